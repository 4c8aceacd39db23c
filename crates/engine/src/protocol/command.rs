//! Parsing one protocol line into a typed command. Never panics; an error
//! says which token was wrong. Tokens are separated by any white space.

use crate::GoParams;
use stackfish_games::echo::{echo, quote};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `ugi` or `uci`: the handshake, answered in the same dialect.
    Hello(Dialect),
    IsReady,
    NewGame,
    SetOption {
        name: String,
        value: Option<String>,
    },
    Position {
        fen: Option<String>,
        moves: Vec<String>,
    },
    Go(GoParams),
    GoPerft(u32),
    Stop,
    PonderHit,
    Quit,
    Query(Query),
    Display,
    Bench(Option<i32>),
    /// UCI `debug on|off`: accepted; the engine has no debug output.
    Debug,
    /// An empty line: ignored.
    Nothing,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    Ugi,
    Uci,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Query {
    GameOver,
    P1Turn,
    Result,
}

/// A line that is not a command we can carry out. `Unknown` goes out as
/// `info string unknown command: ...`, `Bad` as `info string error: ...`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    #[error("unknown command: {0}")]
    Unknown(String),
    #[error("error: {command}: {message}")]
    Bad {
        command: &'static str,
        message: String,
    },
}

fn bad(command: &'static str, message: impl Into<String>) -> ParseError {
    ParseError::Bad {
        command,
        message: message.into(),
    }
}

/// Parses a line. `go` may also return warnings about parameters it skipped.
pub fn parse(line: &str) -> Result<(Command, Vec<String>), ParseError> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let Some((&head, rest)) = tokens.split_first() else {
        return Ok((Command::Nothing, Vec::new()));
    };
    let command = match head {
        "ugi" => Command::Hello(Dialect::Ugi),
        "uci" => Command::Hello(Dialect::Uci),
        "isready" => Command::IsReady,
        "uginewgame" | "ucinewgame" => Command::NewGame,
        "setoption" => parse_setoption(rest)?,
        "position" => parse_position(rest)?,
        "go" => return parse_go(rest),
        "stop" => Command::Stop,
        "ponderhit" => Command::PonderHit,
        "quit" => Command::Quit,
        "query" => match rest {
            ["gameover"] => Command::Query(Query::GameOver),
            ["p1turn"] => Command::Query(Query::P1Turn),
            ["result"] => Command::Query(Query::Result),
            _ => {
                return Err(bad(
                    "query",
                    format!(
                        "expected gameover, p1turn or result, got {}",
                        quote(&rest.join(" "))
                    ),
                ))
            }
        },
        "d" => Command::Display,
        "bench" => match rest {
            [] => Command::Bench(None),
            [d] => match d.parse::<i32>() {
                Ok(d) if (1..=stackfish_search::MAX_DEPTH).contains(&d) => Command::Bench(Some(d)),
                _ => {
                    return Err(bad(
                        "bench",
                        format!(
                            "{} is not a depth from 1 to {}",
                            quote(d),
                            stackfish_search::MAX_DEPTH
                        ),
                    ))
                }
            },
            _ => return Err(bad("bench", "expected at most one argument, the depth")),
        },
        "debug" => Command::Debug,
        _ => return Err(ParseError::Unknown(echo(line.trim()))),
    };
    Ok((command, Vec::new()))
}

/// `setoption name <name words> [value <value words>]`.
fn parse_setoption(rest: &[&str]) -> Result<Command, ParseError> {
    if rest.first() != Some(&"name") {
        return Err(bad("setoption", "expected 'name <option> value <value>'"));
    }
    let value_at = rest.iter().position(|&t| t == "value");
    let name_tokens = &rest[1..value_at.unwrap_or(rest.len())];
    if name_tokens.is_empty() {
        return Err(bad("setoption", "missing option name"));
    }
    let value = value_at.map(|i| rest[i + 1..].join(" "));
    Ok(Command::SetOption {
        name: name_tokens.join(" "),
        value,
    })
}

/// `position startpos [moves ...]` or `position fen <fen ...> [moves ...]`.
fn parse_position(rest: &[&str]) -> Result<Command, ParseError> {
    let moves_at = rest.iter().position(|&t| t == "moves");
    let (spec, moves) = match moves_at {
        Some(i) => (
            &rest[..i],
            rest[i + 1..].iter().map(|m| m.to_string()).collect(),
        ),
        None => (rest, Vec::new()),
    };
    let fen = match spec {
        ["startpos"] => None,
        ["fen", fen @ ..] if !fen.is_empty() => Some(fen.join(" ")),
        ["fen"] => return Err(bad("position", "missing position string after 'fen'")),
        ["startpos", extra, ..] => {
            return Err(bad(
                "position",
                format!("unexpected {} after startpos", quote(extra)),
            ))
        }
        [] => return Err(bad("position", "expected 'startpos' or 'fen <position>'")),
        [other, ..] => {
            return Err(bad(
                "position",
                format!("expected 'startpos' or 'fen', got {}", quote(other)),
            ))
        }
    };
    Ok(Command::Position { fen, moves })
}

/// Every parameter name of `go`: where a `searchmoves` list ends.
const GO_KEYWORDS: [&str; 16] = [
    "p1time",
    "wtime",
    "p2time",
    "btime",
    "p1inc",
    "winc",
    "p2inc",
    "binc",
    "movestogo",
    "movetime",
    "depth",
    "nodes",
    "infinite",
    "ponder",
    "searchmoves",
    "perft",
];

/// The `go` parameters that may be negative (a GUI's clock that ran out):
/// read as zero without a warning.
const CLOCKS: [&str; 4] = ["p1time", "wtime", "p2time", "btime"];

/// What a `go` limit whose value is not a number is read as: its least
/// value (depth 1, one node, no time), so that the search still ends on
/// its own instead of running without the limit the GUI meant to give.
fn least_value(key: &str) -> i64 {
    match key {
        "depth" | "nodes" => 1,
        _ => 0,
    }
}

fn parse_go(rest: &[&str]) -> Result<(Command, Vec<String>), ParseError> {
    if rest.first() == Some(&"perft") {
        return match rest.get(1).map(|d| d.parse::<u32>()) {
            Some(Ok(d)) if d <= 64 => Ok((Command::GoPerft(d), Vec::new())),
            _ => Err(bad("go perft", "expected a depth from 0 to 64")),
        };
    }
    let mut p = GoParams::default();
    let mut warnings = Vec::new();
    let mut i = 0;
    while i < rest.len() {
        let key = rest[i];
        if key == "searchmoves" {
            // The moves run up to the next parameter name (no move of any of
            // our games is spelt like one) or the end of the line.
            let count = rest[i + 1..]
                .iter()
                .take_while(|t| !GO_KEYWORDS.contains(t))
                .count();
            if count == 0 {
                warnings.push("go: 'searchmoves' without moves ignored".to_string());
            }
            p.search_moves
                .extend(rest[i + 1..i + 1 + count].iter().map(|m| m.to_string()));
            i += 1 + count;
            continue;
        }
        let takes_value = !matches!(key, "infinite" | "ponder");
        let value = rest.get(i + 1).copied();
        // A limit whose value is not a number is read as its least value,
        // said in a warning: a `go` given any limit ends on its own.
        let number = |warnings: &mut Vec<String>| -> i64 {
            match value.map(str::parse::<i64>) {
                Some(Ok(v)) => v,
                _ => {
                    let least = least_value(key);
                    warnings.push(format!(
                        "go: '{key}' needs a number, got {}; read as {least}",
                        quote(value.unwrap_or(""))
                    ));
                    least
                }
            }
        };
        // A negative time or increment is read as 0 (clocks can go negative
        // in some GUIs: no time left, said for the others).
        let non_negative = |warnings: &mut Vec<String>| -> u64 {
            let v = number(warnings);
            if v < 0 && !CLOCKS.contains(&key) {
                warnings.push(format!(
                    "go: '{key}' needs a number of 0 or more, got '{v}'; read as 0"
                ));
            }
            v.max(0).unsigned_abs()
        };
        match key {
            "p1time" | "wtime" => p.time[0] = Some(non_negative(&mut warnings)),
            "p2time" | "btime" => p.time[1] = Some(non_negative(&mut warnings)),
            "p1inc" | "winc" => p.inc[0] = Some(non_negative(&mut warnings)),
            "p2inc" | "binc" => p.inc[1] = Some(non_negative(&mut warnings)),
            // Not a limit on its own: a bad value is dropped.
            "movestogo" => {
                p.moves_to_go = match value.map(str::parse::<i64>) {
                    Some(Ok(n)) if n > 0 => Some(n.unsigned_abs()),
                    Some(Ok(0)) => None,
                    _ => {
                        warnings.push(format!(
                            "go: 'movestogo' needs a number of 1 or more, got {}; ignored",
                            quote(value.unwrap_or(""))
                        ));
                        None
                    }
                }
            }
            "movetime" => p.move_time = Some(non_negative(&mut warnings)),
            "depth" => {
                let d = number(&mut warnings);
                let max = i64::from(stackfish_search::MAX_DEPTH);
                let searched = d.clamp(1, max);
                if searched != d {
                    let bound = if d < 1 { "least" } else { "most" };
                    warnings.push(format!(
                        "go: depth {d} searches depth {searched} (the {bound} there is)"
                    ));
                }
                p.depth = i32::try_from(searched).ok();
            }
            "nodes" => {
                let n = number(&mut warnings);
                if n < 1 {
                    warnings.push(format!(
                        "go: nodes {n} searches 1 node (the least there is)"
                    ));
                }
                p.nodes = Some(n.max(1).unsigned_abs());
            }
            "infinite" => p.infinite = true,
            "ponder" => {
                warnings.push("go: ponder is not supported; searching normally".to_string())
            }
            other => {
                warnings.push(format!("go: unknown parameter {} ignored", quote(other)));
                i += 1;
                continue;
            }
        }
        // A value that is the next parameter's name is missing: that
        // parameter is read next.
        let has_value = value.is_some_and(|v| !GO_KEYWORDS.contains(&v));
        i += if takes_value && has_value { 2 } else { 1 };
    }
    Ok((Command::Go(p), warnings))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_reads_ugi_and_uci_clocks_into_the_same_slots() {
        let (ugi, _) = parse("go p1time 1000 p2time 2000 p1inc 10 p2inc 20 movestogo 5").unwrap();
        let (uci, _) = parse("go wtime 1000 btime 2000 winc 10 binc 20 movestogo 5").unwrap();
        assert_eq!(ugi, uci);
        let Command::Go(p) = ugi else {
            panic!("not a go")
        };
        assert_eq!(
            (p.time, p.inc, p.moves_to_go),
            ([Some(1000), Some(2000)], [Some(10), Some(20)], Some(5))
        );
    }

    #[test]
    fn go_parameters_not_sent_stay_unset() {
        let (Command::Go(p), w) = parse("go wtime 100").unwrap() else {
            panic!()
        };
        assert_eq!(
            p,
            GoParams {
                time: [Some(100), None],
                ..GoParams::default()
            }
        );
        assert!(w.is_empty());
    }

    #[test]
    fn go_reads_a_bad_limit_as_its_least_skips_unknown_tokens_and_says_so() {
        let (Command::Go(p), w) = parse("go depth x nodes 500 frobnicate movetime -5").unwrap()
        else {
            panic!()
        };
        assert_eq!(
            (p.depth, p.nodes, p.move_time),
            (Some(1), Some(500), Some(0))
        );
        assert_eq!(
            w,
            [
                "go: 'depth' needs a number, got 'x'; read as 1",
                "go: unknown parameter 'frobnicate' ignored",
                "go: 'movetime' needs a number of 0 or more, got '-5'; read as 0",
            ]
        );
        // Every limit given, however bad its value, still limits the search.
        for (line, depth, nodes) in [
            ("go depth -3", Some(1), None),
            ("go nodes -100", None, Some(1)),
            ("go depth", Some(1), None),
            ("go nodes 1.5", None, Some(1)),
            ("go depth 99999999999999999999", Some(1), None),
        ] {
            let (Command::Go(p), w) = parse(line).unwrap() else {
                panic!()
            };
            assert_eq!((p.depth, p.nodes), (depth, nodes), "{line}");
            assert_eq!(w.len(), 1, "{line}: {w:?}");
        }
        // A missing value: the next parameter is read as itself.
        let (Command::Go(p), w) = parse("go depth nodes 500").unwrap() else {
            panic!()
        };
        assert_eq!((p.depth, p.nodes), (Some(1), Some(500)));
        assert_eq!(w, ["go: 'depth' needs a number, got 'nodes'; read as 1"]);
        // movestogo is no limit on its own: a bad one is dropped.
        let (Command::Go(p), w) = parse("go wtime 900 movestogo -2").unwrap() else {
            panic!()
        };
        assert_eq!((p.time[0], p.moves_to_go), (Some(900), None));
        assert_eq!(w.len(), 1, "{w:?}");
    }

    #[test]
    fn go_brings_a_depth_or_node_count_out_of_range_into_it_and_says_so() {
        let (Command::Go(p), w) = parse("go depth 0 nodes 0").unwrap() else {
            panic!()
        };
        assert_eq!((p.depth, p.nodes), (Some(1), Some(1)));
        assert_eq!(
            w,
            [
                "go: depth 0 searches depth 1 (the least there is)",
                "go: nodes 0 searches 1 node (the least there is)"
            ]
        );
        let (Command::Go(p), w) = parse("go depth 500").unwrap() else {
            panic!()
        };
        assert_eq!(p.depth, Some(100));
        assert_eq!(w, ["go: depth 500 searches depth 100 (the most there is)"]);
        let (Command::Go(p), w) = parse("go depth -3 nodes -100").unwrap() else {
            panic!()
        };
        assert_eq!((p.depth, p.nodes), (Some(1), Some(1)));
        assert_eq!(
            w,
            [
                "go: depth -3 searches depth 1 (the least there is)",
                "go: nodes -100 searches 1 node (the least there is)"
            ]
        );
        // Clocks may go negative in some GUIs: no time left, no warning.
        let (Command::Go(p), w) = parse("go wtime -20 btime 100").unwrap() else {
            panic!()
        };
        assert_eq!(p.time, [Some(0), Some(100)]);
        assert!(w.is_empty(), "{w:?}");
    }

    #[test]
    fn searchmoves_run_to_the_next_parameter_or_the_end() {
        let (Command::Go(p), w) =
            parse("go searchmoves c3 2a1b2 depth 4 searchmoves pass").unwrap()
        else {
            panic!()
        };
        assert_eq!(p.search_moves, ["c3", "2a1b2", "pass"]);
        assert_eq!(p.depth, Some(4));
        assert!(w.is_empty(), "{w:?}");
        let (Command::Go(p), w) = parse("go depth 2 searchmoves").unwrap() else {
            panic!()
        };
        assert!(p.search_moves.is_empty());
        assert_eq!((p.depth, w.len()), (Some(2), 1), "{w:?}");
    }

    #[test]
    fn position_splits_fen_and_moves() {
        let (c, _) = parse("position fen x5/x5/x5/x5/x5 1 20,20 0,0 1 - moves c3 d4").unwrap();
        assert_eq!(
            c,
            Command::Position {
                fen: Some("x5/x5/x5/x5/x5 1 20,20 0,0 1 -".into()),
                moves: vec!["c3".into(), "d4".into()]
            }
        );
        assert!(parse("position").is_err());
        assert!(parse("position fen").is_err());
        assert!(parse("position startpos c3").is_err());
        assert_eq!(
            parse("position  startpos\tmoves").unwrap().0,
            Command::Position {
                fen: None,
                moves: vec![]
            }
        );
    }

    #[test]
    fn setoption_names_and_values_may_have_spaces() {
        let (c, _) = parse("setoption name Move Overhead value 30").unwrap();
        assert_eq!(
            c,
            Command::SetOption {
                name: "Move Overhead".into(),
                value: Some("30".into())
            }
        );
        let (c, _) = parse("setoption name Clear Hash").unwrap();
        assert_eq!(
            c,
            Command::SetOption {
                name: "Clear Hash".into(),
                value: None
            }
        );
        assert!(parse("setoption value 3").is_err());
    }

    #[test]
    fn bad_go_values_are_echoed_escaped_and_cut() {
        let token = "\u{1b}[2J".to_string() + &"q".repeat(1_000_000);
        let (_, w) = parse(&format!("go nodes {token} movetime -\u{1b}5 wtime 1\u{7}")).unwrap();
        let cut = format!("\\u{{1b}}[2J{}... (1000004 characters)", "q".repeat(76));
        assert_eq!(
            w,
            [
                format!("go: 'nodes' needs a number, got '{cut}'; read as 1"),
                "go: 'movetime' needs a number, got '-\\u{1b}5'; read as 0".to_string(),
                "go: 'wtime' needs a number, got '1\\u{7}'; read as 0".to_string(),
            ]
        );
    }

    #[test]
    fn unknown_commands_are_reported_not_fatal() {
        assert_eq!(
            parse("hello world"),
            Err(ParseError::Unknown("hello world".into()))
        );
        assert_eq!(parse("   ").unwrap().0, Command::Nothing);
        assert!(parse("query nothing").is_err());
        assert!(parse("go perft").is_err());
        assert_eq!(parse("go perft 3").unwrap().0, Command::GoPerft(3));
    }
}
