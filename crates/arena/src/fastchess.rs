//! fastchess's command line and output, so that scripts and distributed
//! testing workers built around fastchess can drive the arena unchanged.
//!
//! [`translate`] maps a fastchess command line (single-dash options,
//! `-engine key=value ...`) onto ours; the match is then the same as with
//! our flags. [`results_block`] prints the results block fastchess prints
//! every `-ratinginterval` games. The mapping table is in docs/arena.md.

use super::referee::fault_of;
use super::stats::{MatchCounts, SprtConfig, Z_95};
use super::ArenaError;
use std::f64::consts::LN_10;

/// One logistic unit of per-game deviation in normalized Elo.
const NELO_PER_T: f64 = 800.0 / LN_10;

/// A fastchess command line, mapped.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Translated {
    /// Our arguments (without the program name).
    pub args: Vec<String>,
    /// `-output format=fastchess`: print fastchess's results blocks.
    pub fastchess_output: bool,
    /// `-version`: print the version and exit.
    pub version: bool,
}

/// Options fastchess takes that start a fastchess command line.
const OPTIONS: &[&str] = &[
    "-engine",
    "-each",
    "-rounds",
    "-games",
    "-repeat",
    "-concurrency",
    "-openings",
    "-sprt",
    "-pgnout",
    "-epdout",
    "-recover",
    "-srand",
    "-seeds",
    "-maxmoves",
    "-draw",
    "-resign",
    "-ratinginterval",
    "-scoreinterval",
    "-output",
    "-testEnv",
    "-version",
    "-log",
    "-variant",
    "-event",
    "-site",
    "-tournament",
    "-report",
    "-autosaveinterval",
    "-wait",
    "-noswap",
    "-reverse",
    "-show-latency",
    "-use-affinity",
];

/// Whether `args` (without the program name) is a fastchess command line:
/// its first option is one of fastchess's, with a single dash.
pub fn is_fastchess(args: &[String]) -> bool {
    args.first().is_some_and(|a| OPTIONS.contains(&a.as_str()))
}

fn bad(option: &str, why: impl std::fmt::Display) -> ArenaError {
    ArenaError::Config(format!("{option}: {why}"))
}

/// Maps a fastchess command line onto the arena's. Options that mean
/// nothing for our games are accepted and dropped (`-variant standard`,
/// `-recover`: we always recover, `-testEnv`, `-use-affinity`); options
/// whose meaning we cannot honour are errors that say so. Our own
/// double-dash flags may be mixed in and pass through.
pub fn translate(args: &[String]) -> Result<Translated, ArenaError> {
    let mut out = Translated::default();
    let mut games = GameCount::default();
    let mut i = 0;
    while i < args.len() {
        let option = args[i].as_str();
        let v = values_after(args, i);
        i += 1 + v.len();
        if option.starts_with("--") {
            // One of ours: it and its values pass through unchanged.
            out.args.push(option.to_string());
            out.args.extend(v);
            continue;
        }
        translate_option(option, &v, &mut out, &mut games)?;
    }
    games.append_to(&mut out.args);
    Ok(out)
}

/// The options that together give the game count and the seed, applied
/// once the whole line is read.
#[derive(Default)]
struct GameCount {
    rounds: Option<u32>,
    games_per_round: Option<u32>,
    srand: Option<String>,
    random_order: bool,
}

impl GameCount {
    fn append_to(self, args: &mut Vec<String>) {
        let per_round = self.games_per_round.unwrap_or(1);
        if let Some(r) = self.rounds {
            // In u64: the product of two u32 may not fit one; the arena's
            // bound on --games then refuses it in words.
            args.extend([
                "--games".into(),
                (u64::from(r) * u64::from(per_round)).to_string(),
            ]);
        }
        if self.random_order || self.srand.is_some() {
            args.extend(["--seed".into(), self.srand.unwrap_or_else(|| "1".into())]);
        }
    }
}

/// The values after the option at `i`: every following word that is not
/// an option.
fn values_after(args: &[String], i: usize) -> Vec<String> {
    args[i + 1..]
        .iter()
        .take_while(|a| !a.starts_with('-') || a.parse::<f64>().is_ok())
        .cloned()
        .collect()
}

fn one(option: &str, v: &[String]) -> Result<String, ArenaError> {
    match v {
        [x] => Ok(x.clone()),
        _ => Err(bad(option, "takes one value")),
    }
}

fn number(option: &str, v: &[String]) -> Result<u32, ArenaError> {
    one(option, v)?
        .parse()
        .map_err(|_| bad(option, "expected a whole number"))
}

/// The `key=value` words of an option.
fn key_values(option: &str, v: &[String]) -> Result<Vec<(String, String)>, ArenaError> {
    v.iter()
        .map(|t| {
            t.split_once('=')
                .map(|(k, x)| (k.to_string(), x.to_string()))
                .ok_or_else(|| bad(option, format!("expected key=value, found {t:?}")))
        })
        .collect()
}

/// One fastchess option with its values, in our words.
fn translate_option(
    option: &str,
    v: &[String],
    out: &mut Translated,
    games: &mut GameCount,
) -> Result<(), ArenaError> {
    match option {
        "-engine" | "-each" => {
            out.args.push(format!("-{option}"));
            for (k, x) in key_values(option, v)? {
                out.args.push(engine_key(option, &k, &x)?);
            }
        }
        "-rounds" => games.rounds = Some(number(option, v)?),
        "-games" => games.games_per_round = Some(number(option, v)?),
        "-repeat" => {
            let n = if v.is_empty() { 2 } else { number(option, v)? };
            games.games_per_round = Some(n);
        }
        "-concurrency" => out.args.extend(["--concurrency".into(), one(option, v)?]),
        "-ratinginterval" => out
            .args
            .extend(["--ratinginterval".into(), one(option, v)?]),
        "-srand" | "-seeds" => games.srand = Some(one(option, v)?),
        "-event" => out.args.extend(["--event".into(), v.join(" ")]),
        "-tournament" => out.args.extend(["--tournament".into(), one(option, v)?]),
        "-maxmoves" => {
            let moves = number(option, v)?;
            out.args
                .extend(["--maxplies".into(), (moves * 2).to_string()]);
        }
        "-openings" => openings_option(option, v, out, games)?,
        "-sprt" => sprt_option(option, v, out)?,
        "-pgnout" => {
            let file = match key_values(option, v) {
                Ok(p) => p.into_iter().find(|(k, _)| k == "file").map(|(_, f)| f),
                Err(_) => v.first().cloned(),
            };
            let file = file.ok_or_else(|| bad(option, "needs file=FILE"))?;
            out.args.extend(["--pgn".into(), file]);
        }
        "-log" => {
            let file = key_values(option, v)?
                .into_iter()
                .find(|(k, _)| k == "file")
                .map(|(_, f)| f)
                .ok_or_else(|| bad(option, "needs file=FILE"))?;
            out.args.extend(["--log".into(), file]);
        }
        "-draw" | "-resign" => adjudication_option(option, v, out)?,
        "-output" => output_option(option, v, out)?,
        "-variant" => match v {
            [x] if x == "standard" => {}
            _ => return Err(bad(option, "only -variant standard (the game is --game)")),
        },
        "-version" => out.version = true,
        // We always recover a crashed engine; the rest changes nothing here.
        "-recover" | "-testEnv" | "-use-affinity" | "-show-latency" | "-report"
        | "-autosaveinterval" | "-scoreinterval" | "-site" | "-wait" => {}
        other => {
            return Err(bad(
                other,
                "not a fastchess option the arena takes (docs/arena.md lists them)",
            ))
        }
    }
    Ok(())
}

/// `-openings file=F format=epd order=random ...`.
fn openings_option(
    option: &str,
    v: &[String],
    out: &mut Translated,
    games: &mut GameCount,
) -> Result<(), ArenaError> {
    for (k, x) in key_values(option, v)? {
        match k.as_str() {
            "file" => out.args.extend(["--openings".into(), x]),
            "format" if x == "epd" => {}
            "format" => return Err(bad(option, format!("format={x}: stacking games have no PGN openings; use format=epd, one position string per line"))),
            "order" if x == "random" => games.random_order = true,
            "order" if x == "sequential" => {}
            "start" if x == "1" => {}
            "start" => return Err(bad(option, format!("start={x}: only start=1 is supported (cut the file instead)"))),
            "plies" | "policy" => {}
            _ => return Err(bad(option, format!("unknown key {k}"))),
        }
    }
    Ok(())
}

/// `-sprt elo0=E0 elo1=E1 [alpha=A] [beta=B] [model=normalized]`.
fn sprt_option(option: &str, v: &[String], out: &mut Translated) -> Result<(), ArenaError> {
    out.args.push("--sprt".into());
    for (k, x) in key_values(option, v)? {
        match k.as_str() {
            "elo0" | "elo1" | "alpha" | "beta" => out.args.push(format!("{k}={x}")),
            "model" if x == "normalized" => {}
            "model" => {
                return Err(bad(
                    option,
                    format!(
                        "model={x}: the arena's SPRT is on normalized Elo only (model=normalized)"
                    ),
                ))
            }
            _ => return Err(bad(option, format!("unknown key {k}"))),
        }
    }
    Ok(())
}

/// `-draw` and `-resign` with their keys in our words.
fn adjudication_option(option: &str, v: &[String], out: &mut Translated) -> Result<(), ArenaError> {
    out.args.push(format!("-{option}"));
    // fastchess resigns one-sided unless told `twosided=true`;
    // ours is two-sided unless told otherwise.
    let mut twosided = "false".to_string();
    for (k, x) in key_values(option, v)? {
        match k.as_str() {
            "movecount" => out.args.push(format!("moves={x}")),
            "score" => out.args.push(format!("{k}={x}")),
            "movenumber" if option == "-draw" => out.args.push(format!("{k}={x}")),
            "twosided" if option == "-resign" => match x.as_str() {
                "true" | "false" => twosided = x,
                _ => return Err(bad(option, format!("twosided={x}: expected true or false"))),
            },
            _ => return Err(bad(option, format!("unknown key {k}"))),
        }
    }
    if option == "-resign" {
        out.args.push(format!("twosided={twosided}"));
    }
    Ok(())
}

/// `-output format=fastchess|cutechess`.
fn output_option(option: &str, v: &[String], out: &mut Translated) -> Result<(), ArenaError> {
    for (k, x) in key_values(option, v)? {
        match (k.as_str(), x.as_str()) {
            ("format", "fastchess") => out.fastchess_output = true,
            ("format", "cutechess") => {}
            _ => {
                return Err(bad(
                    option,
                    format!("{k}={x}: expected format=fastchess or format=cutechess"),
                ))
            }
        }
    }
    Ok(())
}

/// One `key=value` of `-engine` / `-each` in our words.
fn engine_key(option: &str, key: &str, value: &str) -> Result<String, ArenaError> {
    let ours = match key {
        "cmd" | "name" | "tc" | "st" | "nodes" | "depth" | "dir" | "args" | "proto"
        | "timemargin" => key.to_string(),
        // fastchess's depth limit.
        "plies" => "depth".to_string(),
        _ if key.starts_with("option.") => key.to_string(),
        _ => return Err(bad(option, format!("unknown engine key {key}"))),
    };
    Ok(format!("{ours}={value}"))
}

/// fastchess's results block for `first` against `second`:
///
/// ```text
/// --------------------------------------------------
/// Results of a vs b (10+0.1, NULL, NULL, book.epd):
/// Elo: 12.34 +/- 5.67, nElo: 20.00 +/- 9.00
/// LOS: 99.00 %, DrawRatio: 40.00 %, PairsRatio: 1.20
/// Games: 100, Wins: 40, Losses: 30, Draws: 30, Points: 55.0 (55.00 %)
/// Ptnml(0-2): [1, 2, 3, 4, 5], WL/DD Ratio: 1.00
/// LLR: 2.95 (-2.94, 2.94) [0.00, 5.00]
/// --------------------------------------------------
/// ```
///
/// A 0% or 100% score has no finite Elo: `inf` then, as fastchess prints.
/// `wl_dd` is the number of pairs won-and-lost and of pairs drawn twice.
pub fn results_block(
    first: &str,
    second: &str,
    setting: &str,
    counts: &MatchCounts,
    wl_dd: (u64, u64),
    sprt: Option<&SprtConfig>,
) -> String {
    let rule = "-".repeat(50);
    let t = counts.trinomial;
    let p = counts.pentanomial.0;
    let mut out = format!("{rule}\nResults of {first} vs {second} ({setting}):\n");
    let (samples, per_sample) = if counts.uses_pairs() {
        (counts.pentanomial.pairs() as f64, 2.0)
    } else {
        (t.games() as f64, 1.0)
    };
    match counts.estimate() {
        Some(e) => {
            let nelo_error = Z_95 * NELO_PER_T / (per_sample * samples).sqrt();
            // fastchess's own figures: -400 log10(1/score - 1) of a perfect score is
            // infinite and its interval's width not a number; otherwise the interval as
            // computed, however wide (our tables read it more carefully).
            let elo = if e.score >= 1.0 {
                "inf +/- nan".to_string()
            } else if e.score <= 0.0 {
                "-inf +/- nan".to_string()
            } else {
                format!("{:.2} +/- {:.2}", e.elo + 0.0, e.error())
            };
            let nelo = e
                .nelo
                .map_or_else(|| "nan".to_string(), |n| format!("{:.2}", n + 0.0));
            out.push_str(&format!("Elo: {elo}, nElo: {nelo} +/- {nelo_error:.2}\n"));
            out.push_str(&format!("LOS: {:.2} %, ", 100.0 * e.los));
        }
        None => out.push_str("Elo: 0.00 +/- 0.00, nElo: 0.00 +/- 0.00\nLOS: 50.00 %, "),
    }
    let pairs = counts.pentanomial.pairs();
    let ratio = |a: f64, b: f64| if b > 0.0 { a / b } else { f64::INFINITY };
    if counts.uses_pairs() {
        out.push_str(&format!(
            "DrawRatio: {:.2} %, PairsRatio: {:.2}\n",
            100.0 * p[2] as f64 / pairs as f64,
            ratio((p[3] + p[4]) as f64, (p[0] + p[1]) as f64)
        ));
    } else {
        out.push_str(&format!(
            "DrawRatio: {:.2} %\n",
            100.0 * t.draw_ratio().unwrap_or(0.0)
        ));
    }
    out.push_str(&format!(
        "Games: {}, Wins: {}, Losses: {}, Draws: {}, Points: {:.1} ({:.2} %)\n",
        t.games(),
        t.wins,
        t.losses,
        t.draws,
        t.points(),
        100.0 * t.score().unwrap_or(0.0)
    ));
    out.push_str(&format!(
        "Ptnml(0-2): [{}, {}, {}, {}, {}], WL/DD Ratio: {:.2}\n",
        p[0],
        p[1],
        p[2],
        p[3],
        p[4],
        ratio(wl_dd.0 as f64, wl_dd.1 as f64)
    ));
    if let Some(s) = sprt {
        out.push_str(&format!(
            "LLR: {:.2} ({:.2}, {:.2}) [{:.2}, {:.2}]\n",
            counts.llr(s),
            s.lower_bound(),
            s.upper_bound(),
            s.elo0(),
            s.elo1()
        ));
    }
    out.push_str(&rule);
    out.push('\n');
    out
}

/// The `{...}` of a `Finished game` line in fastchess's words where it has
/// them, so that tools counting crashes, time losses and illegal moves by
/// fastchess's phrases (OpenBench's worker looks for `disconnect`,
/// `stalls`, `on time` and `illegal` before the first `:` of the text)
/// count ours: `b: crashed (...)` is `b disconnects: crashed (...)`.
/// Other terminations are ours unchanged.
pub fn annotation(termination: &str, players: [&str; 2]) -> String {
    let phrased = fault_of(termination, players).and_then(|(name, detail)| {
        let phrase = [
            ("crashed", " disconnects"),
            ("timeout", " loses on time"),
            ("no ", "'s connection stalls"),
            ("illegal move", " makes an illegal move"),
            ("malformed move", " makes an illegal move"),
        ]
        .iter()
        .find(|(ours, _)| detail.starts_with(ours))?
        .1;
        Some(format!("{name}{phrase}: {detail}"))
    });
    phrased.unwrap_or_else(|| termination.to_string())
}

/// What fastchess prints when a match ends: with an SPRT, the line
/// `SPRT test finished: (lower, upper) [elo0, elo1]`; then the final
/// results `block`, `Tournament finished` and `Finished match`.
pub fn end_of_run(block: &str, sprt: Option<&SprtConfig>) -> String {
    let mut out = String::new();
    if let Some(s) = sprt {
        out.push_str(&format!(
            "SPRT test finished: ({:.2}, {:.2}) [{:.2}, {:.2}]\n",
            s.lower_bound(),
            s.upper_bound(),
            s.elo0(),
            s.elo1()
        ));
    }
    out.push_str(block);
    out.push_str("Tournament finished\nFinished match\n");
    out
}

/// Pairs of `a` against `b` (the two games of one round on one opening)
/// that were won once and lost once, and that were drawn twice: the WL/DD
/// ratio fastchess prints (our pentanomial counts both as one point).
pub fn wl_dd(a: &str, b: &str, records: &[stackfish_record::GameRecord]) -> (u64, u64) {
    let mut rounds: std::collections::BTreeMap<(Option<u32>, Option<usize>), Vec<&str>> =
        Default::default();
    for r in records {
        let players = (r.player1.as_str(), r.player2.as_str());
        if players == (a, b) || players == (b, a) {
            rounds
                .entry((r.round, r.opening))
                .or_default()
                .push(r.result.as_str());
        }
    }
    let mut counts = (0, 0);
    for results in rounds.values() {
        match results.as_slice() {
            // Colours swapped: the same result string twice is one win each.
            [x, y] if x == y && (*x == "1-0" || *x == "0-1") => counts.0 += 1,
            [x, y] if x == y && *x == "1/2-1/2" => counts.1 += 1,
            _ => {}
        }
    }
    counts
}

/// The match in the words of fastchess's block header: time control,
/// threads, hash (`NULL` when not set) and the book's file name.
pub fn setting(cfg: &super::config::MatchConfig) -> String {
    let both = |f: &dyn Fn(&super::config::EngineSpec) -> String| -> String {
        let a = cfg.engines.first().map(f).unwrap_or_default();
        let b = cfg.engines.get(1).map(f).unwrap_or_default();
        if a == b {
            a
        } else {
            format!("{a} - {b}")
        }
    };
    let limit = |e: &super::config::EngineSpec| {
        e.limits()
            .map_or_else(|_| "-".to_string(), |l| time_words(&l))
    };
    let option = |name: &'static str, unit: &'static str| {
        move |e: &super::config::EngineSpec| {
            e.options
                .get(name)
                .map_or_else(|| "NULL".to_string(), |v| format!("{v}{unit}"))
        }
    };
    let mut text = format!(
        "{}, {}, {}",
        both(&limit),
        both(&option("Threads", "t")),
        both(&option("Hash", "MB"))
    );
    if let Some(name) = cfg.openings.as_ref().and_then(|p| p.file_name()) {
        text.push_str(&format!(", {}", name.to_string_lossy()));
    }
    text
}

/// An engine's limit as fastchess's block header writes it (its
/// `getTime`): `10+0.1`, `0.1/move`, `6 plies`, `1000 nodes`, in that order
/// of precedence; empty without a limit.
fn time_words(l: &stackfish_client::spec::Limits) -> String {
    let seconds = |ms: u64| ms as f64 / 1000.0;
    if let Some(tc) = l.tc {
        let inc = if tc.inc_ms > 0 {
            format!("+{}", seconds(tc.inc_ms))
        } else {
            String::new()
        };
        format!("{}{inc}", seconds(tc.base_ms))
    } else if let Some(ms) = l.movetime_ms {
        format!("{}/move", seconds(ms))
    } else if let Some(d) = l.depth {
        format!("{d} plies")
    } else if let Some(n) = l.nodes {
        format!("{n} nodes")
    } else {
        String::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::{Pentanomial, Trinomial};

    fn words(line: &str) -> Vec<String> {
        line.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn an_openbench_command_line_maps_onto_ours() {
        let t = translate(&words(
            "-engine cmd=./dev name=dev option.Hash=16 -engine cmd=./base name=base \
             -each tc=8+0.08 proto=uci -rounds 100 -games 2 -repeat -concurrency 3 \
             -openings file=book.epd format=epd order=random start=1 -srand 42 \
             -sprt elo0=0 elo1=5 alpha=0.05 beta=0.05 model=normalized -pgnout file=out.pgn \
             -recover -maxmoves 150 -draw movenumber=40 movecount=8 score=10 \
             -resign movecount=3 score=1000 twosided=true -ratinginterval 10 \
             -output format=fastchess -testEnv -variant standard -log file=p.log level=info",
        ))
        .unwrap();
        let expected = "--engine cmd=./dev name=dev option.Hash=16 --engine cmd=./base name=base \
             --each tc=8+0.08 proto=uci --concurrency 3 --openings book.epd \
             --sprt elo0=0 elo1=5 alpha=0.05 beta=0.05 --pgn out.pgn --maxplies 300 \
             --draw movenumber=40 moves=8 score=10 --resign moves=3 score=1000 twosided=true \
             --ratinginterval 10 --log p.log --games 200 --seed 42";
        assert_eq!(t.args.join(" "), words(expected).join(" "));
        assert!(t.fastchess_output && !t.version);
        assert!(is_fastchess(&words("-engine cmd=x")));
        assert!(!is_fastchess(&words("--engine cmd=x")));
    }

    #[test]
    fn what_cannot_be_honoured_is_an_error() {
        for (line, says) in [
            ("-openings file=b.pgn format=pgn", "format=epd"),
            ("-sprt elo0=0 elo1=5 model=logistic", "normalized"),
            ("-variant fischerandom", "standard"),
            ("-openings file=b.epd start=7", "start=1"),
            ("-engine cmd=x ponder=on", "unknown engine key"),
            ("-bogus 1", "not a fastchess option"),
            ("-rounds many", "whole number"),
            (
                "-resign movecount=3 score=600 twosided=maybe",
                "true or false",
            ),
            (
                "-resign movecount=3 score=600 movenumber=5",
                "unknown key movenumber",
            ),
        ] {
            let err = translate(&words(line)).unwrap_err().to_string();
            assert!(err.contains(says), "{line}: {err}");
        }
        // fastchess's resign is one-sided unless twosided=true.
        let t = translate(&words("-resign movecount=3 score=600")).unwrap();
        assert_eq!(
            t.args.join(" "),
            "--resign moves=3 score=600 twosided=false"
        );
        // -repeat alone is two games per round; our flags pass through.
        let t = translate(&words("-rounds 5 -repeat --game coinstack --jsonl g.jsonl")).unwrap();
        assert_eq!(
            t.args.join(" "),
            "--game coinstack --jsonl g.jsonl --games 10"
        );
    }

    #[test]
    fn faults_are_annotated_in_fastchess_words() {
        let players = ["dev", "base"];
        for (ours, theirs) in [
            (
                "base: crashed (exit status 101)",
                "base disconnects: crashed (exit status 101)",
            ),
            (
                "dev: timeout: 12 ms over",
                "dev loses on time: timeout: 12 ms over",
            ),
            (
                "dev: no bestmove within 900 ms",
                "dev's connection stalls: no bestmove within 900 ms",
            ),
            (
                "base: illegal move a1b2",
                "base makes an illegal move: illegal move a1b2",
            ),
            (
                "adjudication: resign by score",
                "adjudication: resign by score",
            ),
            ("towers", "towers"),
        ] {
            assert_eq!(annotation(ours, players), theirs);
        }
    }

    #[test]
    fn the_results_block_reads_like_fastchess() {
        // Pairs [0, 1, 1, 2, 0] = games 4-3-1 (the stats tests derive Elo 43.66, its interval
        // -100.44 to 205.66, so +/- 153.05; LOS 72.68 %; nElo 74.07, +/- 1.96 * 347.44 / sqrt 8).
        let counts = MatchCounts {
            trinomial: Trinomial::new(4, 3, 1),
            pentanomial: Pentanomial::new([0, 1, 1, 2, 0]),
        };
        let sprt = SprtConfig::new(0.0, 5.0, 0.05, 0.05).unwrap();
        let block = results_block(
            "a",
            "b",
            "1 nodes, NULL, NULL",
            &counts,
            (1, 0),
            Some(&sprt),
        );
        let lines: Vec<&str> = block.lines().collect();
        assert_eq!(lines[0], "-".repeat(50));
        assert_eq!(lines[1], "Results of a vs b (1 nodes, NULL, NULL):");
        assert_eq!(lines[2], "Elo: 43.66 +/- 153.05, nElo: 74.07 +/- 240.76");
        assert_eq!(
            lines[3],
            "LOS: 72.68 %, DrawRatio: 25.00 %, PairsRatio: 2.00"
        );
        assert_eq!(
            lines[4],
            "Games: 8, Wins: 4, Losses: 1, Draws: 3, Points: 5.5 (68.75 %)"
        );
        assert_eq!(lines[5], "Ptnml(0-2): [0, 1, 1, 2, 0], WL/DD Ratio: inf");
        assert!(lines[6].starts_with("LLR: ") && lines[6].ends_with("(-2.94, 2.94) [0.00, 5.00]"));
        assert_eq!(lines[7], "-".repeat(50));
    }
}
