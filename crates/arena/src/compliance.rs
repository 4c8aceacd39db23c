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

/// The positions the steps search and query.
struct Positions {
    start: Box<dyn AnyGame>,
    /// Six random plies from the start (sent as `startpos moves ...`).
    mid: Box<dyn AnyGame>,
    /// Nine random plies from the start (sent as `position fen ...`).
    mid2: Box<dyn AnyGame>,
    /// A finished game's position and result, when one is found.
    finished: Option<(String, GameResult)>,
}

/// One step of the check: its name, whether only UGI engines take it, and
/// what it sends and expects.
struct StepDef {
    name: &'static str,
    ugi_only: bool,
    run: fn(&mut Checker, &Positions) -> Step,
}

/// The steps, in the order they run.
const STEPS: &[StepDef] = &[
    step("handshake", false, handshake),
    step("isready", false, |c, _| c.ready()),
    step("options", false, options),
    step("new game", false, new_game_step),
    step("go depth", false, go_depth),
    step("go nodes (startpos moves ...)", false, go_nodes),
    step("go movetime (position fen ...)", false, go_movetime),
    step("go with clocks", false, go_with_clocks),
    step("go with one clock only", false, go_with_one_clock),
    step("go wtime/btime aliases", true, go_aliases),
    step("go infinite, isready mid-search, stop", false, go_infinite),
    step("queries", true, queries),
    step("bad input", false, bad_input),
    step("quit", false, quit),
];

const fn step(
    name: &'static str,
    ugi_only: bool,
    run: fn(&mut Checker, &Positions) -> Step,
) -> StepDef {
    StepDef {
        name,
        ugi_only,
        run,
    }
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
    let positions = Positions {
        start,
        mid: random_line(game, 6, 3)?,
        mid2: random_line(game, 9, 4)?,
        finished: finished_fen(game),
    };
    let io = |e: std::io::Error| ArenaError::Io(e.to_string());
    let mut all_ok = true;
    for s in STEPS.iter().filter(|s| proto == Proto::Ugi || !s.ugi_only) {
        all_ok &= run_step(&mut c, s, &positions, out).map_err(io)?;
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

/// Runs one step and prints its line (with the conversation when it
/// failed); whether it passed. Once the engine is gone the steps are
/// skipped, but for `quit`.
fn run_step(
    c: &mut Checker,
    s: &StepDef,
    positions: &Positions,
    out: &mut dyn Write,
) -> std::io::Result<bool> {
    let name = s.name;
    if let Some(d) = &c.dead {
        if name != "quit" {
            writeln!(out, "skip {name} (engine is gone: {d})")?;
            return Ok(false);
        }
    }
    c.said.clear();
    let t0 = Instant::now();
    let result = (s.run)(c, positions);
    let ms = t0.elapsed().as_millis();
    match result {
        Ok(()) => {
            writeln!(out, "ok   {name} ({ms} ms)")?;
            Ok(true)
        }
        Err(e) => {
            writeln!(out, "FAIL {name}: {e}")?;
            writeln!(out, "     the conversation (> sent, < received):")?;
            let skip = c.said.len().saturating_sub(SHOW_LINES);
            for l in &c.said[skip..] {
                writeln!(out, "     {l}")?;
            }
            Ok(false)
        }
    }
}

fn handshake(c: &mut Checker, _: &Positions) -> Step {
    let (hello, ok_word) = match c.proto {
        Proto::Ugi => ("ugi", "ugiok"),
        Proto::Uci => ("uci", "uciok"),
    };
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
}

/// Sets every advertised option to its default (the game to ours), then an
/// unknown one, which must get an `info string` line.
fn options(c: &mut Checker, _: &Positions) -> Step {
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
}

fn new_game_step(c: &mut Checker, _: &Positions) -> Step {
    c.send(match c.proto {
        Proto::Ugi => "uginewgame",
        Proto::Uci => "ucinewgame",
    })?;
    c.ready()
}

fn go_depth(c: &mut Checker, p: &Positions) -> Step {
    c.send("position startpos")?;
    c.search("go depth 2", &*p.start, 10_000)
}

fn go_nodes(c: &mut Checker, p: &Positions) -> Step {
    c.send(&position_cmd(&*p.mid, &*p.start))?;
    c.search("go nodes 2000", &*p.mid, 10_000)
}

fn go_movetime(c: &mut Checker, p: &Positions) -> Step {
    c.send(&format!("position fen {}", p.mid2.fen()))?;
    let mut alone = new_game(&c.game).ok_or_else(|| wrong("unknown game"))?;
    alone.set_fen(&p.mid2.fen()).map_err(wrong)?;
    let t0 = Instant::now();
    c.search("go movetime 200", &*alone, 200 + SEARCH_SLACK_MS)?;
    let ms = t0.elapsed().as_millis();
    if ms < 100 {
        c.said
            .push(format!("# note: answered after {ms} ms of 200"));
    }
    Ok(())
}

fn go_with_clocks(c: &mut Checker, p: &Positions) -> Step {
    c.send(&position_cmd(&*p.mid, &*p.start))?;
    let go = match c.proto {
        Proto::Ugi => "go p1time 1000 p2time 1000 p1inc 10 p2inc 10",
        Proto::Uci => "go wtime 1000 btime 1000 winc 10 binc 10",
    };
    c.search(go, &*p.mid, 1000 + SEARCH_SLACK_MS)
}

fn go_with_one_clock(c: &mut Checker, p: &Positions) -> Step {
    c.send("position startpos")?;
    let go = match c.proto {
        Proto::Ugi => "go p1time 500",
        Proto::Uci => "go wtime 500",
    };
    c.search(go, &*p.start, 500 + SEARCH_SLACK_MS)
}

fn go_aliases(c: &mut Checker, p: &Positions) -> Step {
    c.send("position startpos")?;
    c.search(
        "go wtime 1000 btime 1000 winc 10 binc 10",
        &*p.start,
        1000 + SEARCH_SLACK_MS,
    )
}

/// `isready` during `go infinite` is answered without stopping the search;
/// `stop` ends it with a legal move.
fn go_infinite(c: &mut Checker, p: &Positions) -> Step {
    c.send(&position_cmd(&*p.mid, &*p.start))?;
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
    c.bestmove(&*p.mid, STOP_MS)?;
    c.said.push(format!(
        "# bestmove {} ms after stop",
        t0.elapsed().as_millis()
    ));
    c.ready()
}

fn queries(c: &mut Checker, p: &Positions) -> Step {
    c.send("position startpos")?;
    c.query("gameover", "false")?;
    c.query("p1turn", "true")?;
    c.query("result", "none")?;
    c.send(&position_cmd(&*p.mid, &*p.start))?;
    let p1 = (p.mid.side_to_move() == Side::P1).to_string();
    c.query("p1turn", &p1)?;
    if let Some((fen, result)) = &p.finished {
        c.send(&format!("position fen {fen}"))?;
        c.query("gameover", "true")?;
        c.query("result", result.ugi())?;
    }
    Ok(())
}

/// Lines that are not commands leave the engine answering and its
/// position in place.
fn bad_input(c: &mut Checker, p: &Positions) -> Step {
    let mid = &*p.mid;
    c.send(&position_cmd(mid, &*p.start))?;
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
    if c.proto == Proto::Ugi {
        let p1 = (mid.side_to_move() == Side::P1).to_string();
        c.query("p1turn", &p1)
            .map_err(|e| wrong(format!("position changed by a bad command: {e}")))?;
    }
    c.search("go depth 1", mid, 10_000)
}

fn quit(c: &mut Checker, _: &Positions) -> Step {
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
}
