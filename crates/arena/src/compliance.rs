//! `arena compliance`: a scripted conformance check of an engine. Each step
//! sends a few lines and checks the answers against the rules library; a
//! failing step prints what the engine said during it.

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use super::config::{resolve_cmd, Proto};
use super::ArenaError;
use stackfish_client::engine::{option_name, too_long_remark};
use stackfish_client::transport::{ChildTransport, Recv, Transport};
use stackfish_games::variants::new_game;
use stackfish_games::{AnyGame, GameResult, Outcome, Side};

/// Generous limits: compliance is about answers, not speed, except where a
/// step says otherwise.
const HANDSHAKE_MS: u64 = 10_000;
const READY_MS: u64 = 5_000;
const SEARCH_SLACK_MS: u64 = 1_000;
const STOP_MS: u64 = 500;
const QUIT_MS: u64 = 2_000;
/// Lines of the engine's output shown under a failed step.
const SHOW_LINES: usize = 20;

struct Checker {
    t: ChildTransport,
    proto: Proto,
    game: String,
    said: Vec<String>,
    dead: Option<String>,
    options: Vec<String>,
}

/// Why a step failed: the text after `FAIL <step>: `.
#[derive(Debug, thiserror::Error)]
enum StepError {
    /// A line could not be sent: the engine's process is gone.
    #[error("engine is gone ({0})")]
    Gone(String),
    /// The engine's output ended while a step waited for `what`.
    #[error("engine exited ({status}) while waiting for {what}")]
    ExitedWaiting { status: String, what: String },
    /// The engine's output ended while it was to stay quiet.
    #[error("engine exited ({0})")]
    Exited(String),
    #[error("no {what} within {ms} ms")]
    Timeout { what: String, ms: u64 },
    #[error("interrupted")]
    Interrupted,
    /// An answer that breaks the protocol or the rules: what was wrong.
    #[error("{0}")]
    Wrong(String),
}

fn wrong(text: impl std::fmt::Display) -> StepError {
    StepError::Wrong(text.to_string())
}

type Step = Result<(), StepError>;

impl Checker {
    fn send(&mut self, line: &str) -> Step {
        self.said.push(format!("> {line}"));
        self.t.send(line).map_err(|gone| {
            self.dead = Some(gone.0.clone());
            StepError::Gone(gone.0)
        })
    }

    /// Reads until a line satisfies `pred`; every line is kept for the report.
    fn expect(
        &mut self,
        what: &str,
        ms: u64,
        mut pred: impl FnMut(&str) -> bool,
    ) -> Result<String, StepError> {
        let deadline = Instant::now() + Duration::from_millis(ms);
        loop {
            match self.t.recv(deadline) {
                Recv::Line(l) => {
                    self.said.push(format!("< {l}"));
                    if pred(&l) {
                        return Ok(l);
                    }
                }
                Recv::Stderr(l) => self.said.push(format!("! {l}")),
                Recv::TooLong => self.said.push(format!("# {}", too_long_remark())),
                Recv::Timeout => {
                    return Err(StepError::Timeout {
                        what: what.to_string(),
                        ms,
                    })
                }
                Recv::Closed(s) => {
                    self.dead = Some(s.clone());
                    return Err(StepError::ExitedWaiting {
                        status: s,
                        what: what.to_string(),
                    });
                }
                Recv::Interrupted => return Err(StepError::Interrupted),
            }
        }
    }

    /// Fails if the engine prints anything (other than info lines) within `ms`.
    fn expect_quiet(&mut self, ms: u64, what: &str) -> Step {
        let deadline = Instant::now() + Duration::from_millis(ms);
        loop {
            match self.t.recv(deadline) {
                Recv::Line(l) => {
                    self.said.push(format!("< {l}"));
                    if !l.starts_with("info") {
                        return Err(wrong(format!("unexpected line {what}: '{l}'")));
                    }
                }
                Recv::Stderr(l) => self.said.push(format!("! {l}")),
                Recv::TooLong => self.said.push(format!("# {}", too_long_remark())),
                Recv::Timeout | Recv::Interrupted => return Ok(()),
                Recv::Closed(s) => {
                    self.dead = Some(s.clone());
                    return Err(StepError::Exited(s));
                }
            }
        }
    }

    fn ready(&mut self) -> Step {
        self.send("isready")?;
        self.expect("readyok", READY_MS, |l| l.trim() == "readyok")
            .map(|_| ())
    }

    /// Sends `go ...`, waits for `bestmove` and checks it on `board`.
    fn search(&mut self, go: &str, board: &dyn AnyGame, ms: u64) -> Step {
        self.send(go)?;
        self.bestmove(board, ms)
    }

    fn bestmove(&mut self, board: &dyn AnyGame, ms: u64) -> Step {
        let line = self.expect("bestmove", ms, |l| l.starts_with("bestmove"))?;
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let ok_shape = match (self.proto, tokens.len()) {
            (_, 2) => true,
            (Proto::Uci, 4) => tokens[2] == "ponder",
            _ => false,
        };
        if !ok_shape || tokens[0] != "bestmove" {
            return Err(wrong(format!(
                "'{line}': expected exactly 'bestmove <move>'"
            )));
        }
        let mut b = board.box_clone();
        b.play_text(tokens[1]).map(|_| ()).map_err(|e| {
            wrong(format!(
                "bestmove {}: {e} (position {})",
                tokens[1],
                board.fen()
            ))
        })
    }

    fn query(&mut self, what: &str, want: &str) -> Step {
        self.send(&format!("query {what}"))?;
        let line = self.expect("response", READY_MS, |l| l.starts_with("response"))?;
        let tokens: Vec<&str> = line.split_whitespace().collect();
        if tokens.len() != 2 || tokens[1] != want {
            return Err(wrong(format!(
                "query {what}: expected 'response {want}', got '{line}'"
            )));
        }
        Ok(())
    }
}

fn position_cmd(board: &dyn AnyGame, start: &dyn AnyGame) -> String {
    let moves = board.moves();
    let mut s = if board.start_fen() == start.start_fen() {
        "position startpos".to_string()
    } else {
        format!("position fen {}", board.start_fen())
    };
    if !moves.is_empty() {
        s.push_str(" moves ");
        s.push_str(&moves.join(" "));
    }
    s
}

/// A board after `plies` random moves (fixed seed), not finished.
fn random_line(game: &str, plies: usize, seed: u64) -> Result<Box<dyn AnyGame>, ArenaError> {
    let mut rng = StdRng::seed_from_u64(seed);
    for _ in 0..100 {
        let mut b =
            new_game(game).ok_or_else(|| ArenaError::Config(format!("unknown game {game}")))?;
        for _ in 0..plies {
            let moves = b.legal_moves();
            let Some(m) = moves.choose(&mut rng) else {
                break;
            };
            b.play_text(m)
                .map_err(|e| ArenaError::Config(e.to_string()))?;
        }
        if !b.outcome().is_over() && b.moves().len() == plies {
            return Ok(b);
        }
    }
    Err(ArenaError::Config("no random line found".into()))
}

/// A position string of a finished game whose end is visible in the
/// position alone (not a repetition), found by random play.
fn finished_fen(game: &str) -> Option<(String, GameResult)> {
    let mut rng = StdRng::seed_from_u64(11);
    for _ in 0..200 {
        let mut b = new_game(game)?;
        for _ in 0..2000 {
            if b.outcome().is_over() {
                break;
            }
            let moves = b.legal_moves();
            let m = moves.choose(&mut rng)?;
            b.play_text(m).ok()?;
        }
        let fen = b.fen();
        let mut alone = new_game(game)?;
        alone.set_fen(&fen).ok()?;
        if let Outcome::Over { result, .. } = alone.outcome() {
            return Some((fen, result));
        }
    }
    None
}

/// Runs every step against the engine `cmd args`; prints a line per step and
/// returns whether all passed.
pub fn run(
    cmd: &str,
    args: &[String],
    proto: Proto,
    game: &str,
    out: &mut dyn Write,
) -> Result<bool, ArenaError> {
    let start =
        new_game(game).ok_or_else(|| ArenaError::Config(format!("unknown game '{game}'")))?;
    let path = resolve_cmd(cmd);
    let t = ChildTransport::spawn(Path::new(&path), args, None)
        .map_err(|e| ArenaError::Spawn(format!("{}: {e}", path.display())))?;
    let mut c = Checker {
        t,
        proto,
        game: game.to_string(),
        said: Vec::new(),
        dead: None,
        options: Vec::new(),
    };
    let mid = random_line(game, 6, 3)?;
    let mid2 = random_line(game, 9, 4)?;
    let finished = finished_fen(game);
    let ugi = proto == Proto::Ugi;
    let (hello, ok_word, newgame) = match proto {
        Proto::Ugi => ("ugi", "ugiok", "uginewgame"),
        Proto::Uci => ("uci", "uciok", "ucinewgame"),
    };
    let start_b: &dyn AnyGame = &*start;

    type StepFn<'a> = Box<dyn FnOnce(&mut Checker) -> Step + 'a>;
    let mut steps: Vec<(&str, StepFn)> = Vec::new();
    steps.push((
        "handshake",
        Box::new(move |c: &mut Checker| {
            c.send(hello)?;
            let mut has_id = false;
            let mut opts = Vec::new();
            c.expect(ok_word, HANDSHAKE_MS, |l| {
                has_id |= l.starts_with("id name ");
                if l.starts_with("option ") {
                    opts.push(l.to_string());
                }
                l.trim() == ok_word
            })?;
            c.options = opts;
            if !has_id {
                return Err(wrong("no 'id name ...' line before the ok"));
            }
            Ok(())
        }),
    ));
    steps.push(("isready", Box::new(|c: &mut Checker| c.ready())));
    steps.push((
        "options",
        Box::new(|c: &mut Checker| {
            for line in c.options.clone() {
                let Some(name) = option_name(&line) else {
                    return Err(wrong(format!("option line without a name: '{line}'")));
                };
                let tokens: Vec<&str> = line.split_whitespace().collect();
                let value = if name.eq_ignore_ascii_case("game") {
                    Some(c.game.clone())
                } else {
                    tokens
                        .iter()
                        .position(|&t| t == "default")
                        .and_then(|i| tokens.get(i + 1))
                        .map(|v| v.to_string())
                };
                match value {
                    Some(v) => c.send(&format!("setoption name {name} value {v}"))?,
                    None => c.send(&format!("setoption name {name}"))?,
                }
            }
            c.ready()?;
            c.send("setoption name NoSuchOptionXyz value 1")?;
            c.send("isready")?;
            let mut warned = false;
            c.expect("readyok", READY_MS, |l| {
                warned |= l.starts_with("info string");
                l.trim() == "readyok"
            })?;
            if !warned {
                return Err(wrong("an unknown option got no 'info string' line"));
            }
            Ok(())
        }),
    ));
    steps.push((
        "new game",
        Box::new(move |c: &mut Checker| {
            c.send(newgame)?;
            c.ready()
        }),
    ));
    steps.push((
        "go depth",
        Box::new(move |c: &mut Checker| {
            c.send("position startpos")?;
            c.search("go depth 2", start_b, 10_000)
        }),
    ));
    let mid_b: &dyn AnyGame = &*mid;
    let mid2_b: &dyn AnyGame = &*mid2;
    steps.push((
        "go nodes (startpos moves ...)",
        Box::new(move |c: &mut Checker| {
            c.send(&position_cmd(mid_b, start_b))?;
            c.search("go nodes 2000", mid_b, 10_000)
        }),
    ));
    steps.push((
        "go movetime (position fen ...)",
        Box::new(move |c: &mut Checker| {
            c.send(&format!("position fen {}", mid2_b.fen()))?;
            let mut alone = new_game(&c.game).ok_or_else(|| wrong("unknown game"))?;
            alone.set_fen(&mid2_b.fen()).map_err(wrong)?;
            let t0 = Instant::now();
            c.search("go movetime 200", &*alone, 200 + SEARCH_SLACK_MS)?;
            let ms = t0.elapsed().as_millis();
            if ms < 100 {
                c.said
                    .push(format!("# note: answered after {ms} ms of 200"));
            }
            Ok(())
        }),
    ));
    steps.push((
        "go with clocks",
        Box::new(move |c: &mut Checker| {
            c.send(&position_cmd(mid_b, start_b))?;
            let go = if ugi {
                "go p1time 1000 p2time 1000 p1inc 10 p2inc 10"
            } else {
                "go wtime 1000 btime 1000 winc 10 binc 10"
            };
            c.search(go, mid_b, 1000 + SEARCH_SLACK_MS)
        }),
    ));
    steps.push((
        "go with one clock only",
        Box::new(move |c: &mut Checker| {
            c.send("position startpos")?;
            let go = if ugi { "go p1time 500" } else { "go wtime 500" };
            c.search(go, start_b, 500 + SEARCH_SLACK_MS)
        }),
    ));
    if ugi {
        steps.push((
            "go wtime/btime aliases",
            Box::new(move |c: &mut Checker| {
                c.send("position startpos")?;
                c.search(
                    "go wtime 1000 btime 1000 winc 10 binc 10",
                    start_b,
                    1000 + SEARCH_SLACK_MS,
                )
            }),
        ));
    }
    steps.push((
        "go infinite, isready mid-search, stop",
        Box::new(move |c: &mut Checker| {
            c.send(&position_cmd(mid_b, start_b))?;
            c.send("go infinite")?;
            c.expect_quiet(200, "during go infinite")?;
            c.send("isready")?;
            c.expect("readyok during the search", READY_MS, |l| {
                l.trim() == "readyok" || l.starts_with("bestmove")
            })
            .and_then(|l| {
                if l.starts_with("bestmove") {
                    Err(wrong(
                        "bestmove before stop (isready must not stop the search)",
                    ))
                } else {
                    Ok(())
                }
            })?;
            let t0 = Instant::now();
            c.send("stop")?;
            c.bestmove(mid_b, STOP_MS)?;
            c.said.push(format!(
                "# bestmove {} ms after stop",
                t0.elapsed().as_millis()
            ));
            c.ready()
        }),
    ));
    if ugi {
        steps.push((
            "queries",
            Box::new(move |c: &mut Checker| {
                c.send("position startpos")?;
                c.query("gameover", "false")?;
                c.query("p1turn", "true")?;
                c.query("result", "none")?;
                c.send(&position_cmd(mid_b, start_b))?;
                let p1 = (mid_b.side_to_move() == Side::P1).to_string();
                c.query("p1turn", &p1)?;
                if let Some((fen, result)) = &finished {
                    c.send(&format!("position fen {fen}"))?;
                    c.query("gameover", "true")?;
                    c.query("result", result.ugi())?;
                }
                Ok(())
            }),
        ));
    }
    steps.push((
        "bad input",
        Box::new(move |c: &mut Checker| {
            c.send(&position_cmd(mid_b, start_b))?;
            for bad in [
                "",
                "   ",
                "foo bar",
                "position fen this is not a position",
                "position startpos moves zz9",
                "position",
                "setoption name",
                "setoption",
                "go depth",
                "\u{1b}[2J garbage \u{7f}",
            ] {
                if bad == "go depth" {
                    // A malformed go may still search: make sure it ends.
                    c.send(bad)?;
                    c.send("stop")?;
                    c.expect_quiet(100, "").ok();
                    continue;
                }
                c.send(bad)?;
                c.ready()
                    .map_err(|e| wrong(format!("after '{bad}': {e}")))?;
            }
            // The bad positions must have left the good one in place.
            if ugi {
                let p1 = (mid_b.side_to_move() == Side::P1).to_string();
                c.query("p1turn", &p1)
                    .map_err(|e| wrong(format!("position changed by a bad command: {e}")))?;
            }
            c.search("go depth 1", mid_b, 10_000)
        }),
    ));
    steps.push((
        "quit",
        Box::new(|c: &mut Checker| {
            c.send("quit")?;
            match c.t.recv(Instant::now() + Duration::from_millis(QUIT_MS)) {
                Recv::Closed(_) => Ok(()),
                Recv::Line(l) => {
                    // Output after quit is tolerated; the exit is what counts.
                    c.said.push(format!("< {l}"));
                    match c.expect("exit", QUIT_MS, |_| false) {
                        Err(StepError::ExitedWaiting { .. }) => Ok(()),
                        _ => Err(wrong(format!("still running {QUIT_MS} ms after quit"))),
                    }
                }
                _ => Err(wrong(format!("still running {QUIT_MS} ms after quit"))),
            }
        }),
    ));

    let mut all_ok = true;
    let io = |e: std::io::Error| ArenaError::Io(e.to_string());
    for (name, step) in steps {
        if let Some(d) = &c.dead {
            if name != "quit" {
                writeln!(out, "skip {name} (engine is gone: {d})").map_err(io)?;
                all_ok = false;
                continue;
            }
        }
        c.said.clear();
        let t0 = Instant::now();
        let result = step(&mut c);
        let ms = t0.elapsed().as_millis();
        match result {
            Ok(()) => writeln!(out, "ok   {name} ({ms} ms)").map_err(io)?,
            Err(e) => {
                all_ok = false;
                writeln!(out, "FAIL {name}: {e}").map_err(io)?;
                writeln!(out, "     the conversation (> sent, < received):").map_err(io)?;
                let skip = c.said.len().saturating_sub(SHOW_LINES);
                for l in &c.said[skip..] {
                    writeln!(out, "     {l}").map_err(io)?;
                }
            }
        }
    }
    c.t.close(Duration::from_millis(100));
    writeln!(
        out,
        "{}",
        if all_ok {
            "compliance: passed"
        } else {
            "compliance: FAILED"
        }
    )
    .map_err(io)?;
    Ok(all_ok)
}
