//! The UGI/UCI loop. Generic over any BufRead/Write so tests drive it in
//! memory. It only parses commands (`command`) and formats the engine's
//! data into lines; the engine (`crate::Engine`) does the rest.
//!
//! Two ways to run it. `run_with` (native): a reader thread turns input
//! lines into events; a search runs on its own thread while this loop
//! answers `isready`, turns `stop`/`quit` into the stop flag, and queues
//! every other command until `bestmove` is out. `Protocol` (every target,
//! and what `run_with` is on wasm32): the host hands it one line at a time
//! and a search runs on the calling thread; `go infinite` keeps its
//! `bestmove` until `stop`. A Web Worker can feed it from `onmessage`.
//!
//! In both, the loop itself writes a job's last line (`bestmove`, a perft's
//! or bench's total) once it has the engine back, never the thread that ran
//! the job: a GUI that answers `bestmove` with `go` and `stop` at once must
//! find the `go` started and its `stop` aimed at it, not queued behind a
//! search that has already ended.

pub mod command;

/// The text of `info` lines, shared with the engine's users (the client,
/// the board): one formatter and one parser, in `stackfish-ugi`.
pub use stackfish_ugi::{InfoLine, Score, SearchLine};

use std::collections::VecDeque;
use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{Arc, Mutex};

pub use crate::Host;
use crate::{BestMove, Engine, EngineOption, GoParams, Kind, OPTIONS};
use command::{parse, Command, Dialect, Query};
use stackfish_games::Side;
use stackfish_search::{mate_in, Info, Shared};

pub const ENGINE_NAME: &str = "stackfish";

/// The longest input line read (the one bound of `stackfish_ugi::read_line`).
pub const MAX_INPUT_LINE_BYTES: usize = stackfish_ugi::MAX_LINE_BYTES;

/// What the engine answers to a line longer than `MAX_INPUT_LINE_BYTES`.
fn line_too_long() -> String {
    format!("error: input line of more than {MAX_INPUT_LINE_BYTES} bytes cut; ignored")
}

/// One input line, read with a bound: the reader the client reads engines with.
use stackfish_ugi::{read_line as read_input, Line as Input};

pub const AUTHOR: &str = "the stackfish developers";

/// Lines to the GUI, each written whole and flushed at once.
#[derive(Clone)]
pub struct Out(Arc<Mutex<Box<dyn Write + Send>>>);

impl Out {
    pub fn new(w: impl Write + Send + 'static) -> Out {
        Out(Arc::new(Mutex::new(Box::new(w))))
    }

    pub fn line(&self, text: &str) {
        // A poisoned lock only means another thread panicked mid-write; the
        // writer itself is still usable.
        let mut w = self.0.lock().unwrap_or_else(|e| e.into_inner());
        // A closed stdout is noticed by the reader's end of input.
        let _ = writeln!(w, "{text}");
        let _ = w.flush();
    }
}

/// Runs the protocol until `quit` or end of input, with no table files.
pub fn run(input: impl BufRead + Send + 'static, output: impl Write + Send + 'static) {
    run_with(Host::default(), input, output)
}

/// Runs the protocol until `quit` or end of input, a search on a thread of
/// its own (on wasm32, where there are no threads: `run_inline`).
pub fn run_with(
    host: Host,
    input: impl BufRead + Send + 'static,
    output: impl Write + Send + 'static,
) {
    #[cfg(not(all(target_family = "wasm", target_os = "unknown")))]
    threaded::run(host, input, output);
    #[cfg(all(target_family = "wasm", target_os = "unknown"))]
    run_inline(host, input, output);
}

/// Runs the protocol until `quit` or end of input on the calling thread.
pub fn run_inline(host: Host, mut input: impl BufRead, output: impl Write + Send + 'static) {
    let mut protocol = Protocol::new(host, output);
    let mut buf = Vec::new();
    while let Some(read) = read_input(&mut input, &mut buf) {
        let more = match read {
            Input::Text(line) => protocol.line(&line),
            Input::TooLong => {
                protocol.state.info_string(&line_too_long());
                true
            }
        };
        if !more {
            return;
        }
    }
    protocol.end();
}

/// The protocol on the calling thread, fed one line at a time.
pub struct Protocol {
    state: State,
}

impl Protocol {
    pub fn new(host: Host, output: impl Write + Send + 'static) -> Protocol {
        Protocol::with_engine(Engine::new(host), output)
    }

    /// The protocol around `engine` as it is (`Engine::with_hash_mb`: a
    /// small table for short sessions).
    pub fn with_engine(engine: Engine, output: impl Write + Send + 'static) -> Protocol {
        Protocol {
            state: State::with_engine(engine, Out::new(output)),
        }
    }

    /// Handles one input line; false once the engine has quit.
    pub fn line(&mut self, line: &str) -> bool {
        if self.state.quitting {
            return false;
        }
        if self.state.busy() {
            self.state.during_search(line.to_string());
            self.release();
        } else {
            self.handle(line);
        }
        !self.state.quitting
    }

    /// The end of input: as `quit`.
    pub fn end(&mut self) {
        self.state.quitting = true;
        self.state.stop_search();
        self.release();
    }

    /// The stop flag of the searches, for a host that can set it while a
    /// search runs (a Web Worker with shared memory).
    pub fn stop_flag(&self) -> Arc<Shared> {
        match &self.state.engine {
            Some(engine) => engine.shared().clone(),
            None => self.state.stop.clone(),
        }
    }

    fn handle(&mut self, line: &str) {
        let Some(job) = self.state.handle(line) else {
            return;
        };
        let Some(mut engine) = self.state.engine.take() else {
            return;
        };
        let out = self.state.out.clone();
        let done = match job {
            Job::Go(params) => {
                self.state.arm_go(&engine, &params);
                Done::Search(search(&out, &mut engine, &params), params.infinite)
            }
            other => Done::Lines(other.run(&out, &engine, &self.state.stopped)),
        };
        self.state.engine = Some(engine);
        self.state.finish(done);
    }

    /// Sends a held answer once `stop` has come, and runs the commands
    /// queued behind it.
    fn release(&mut self) {
        if !self.state.release_held() {
            return;
        }
        // Queued commands run in order, also after `quit` (a `go` among
        // them is stopped at once, as the search before it was).
        while self.state.held.is_none() {
            let Some(line) = self.state.queue.pop_front() else {
                break;
            };
            self.handle(&line);
        }
    }
}

/// What both ways of running share: the engine and the lines it waits on.
struct State {
    out: Out,
    /// `None` while a search on a thread holds it.
    engine: Option<Engine>,
    /// The stop flag of the last search started.
    stop: Arc<Shared>,
    /// Whether the GUI has sent `stop` or `quit` since the last `go` (a
    /// limit reached also sets `stop`, and must not end `go infinite`).
    stopped: Arc<AtomicBool>,
    queue: VecDeque<String>,
    quitting: bool,
    /// The answer of a `go infinite` that has ended, held until `stop`.
    held: Option<BestMove>,
}

/// How a job ended, for the loop to answer once it has the engine back.
enum Done {
    /// A search's answer, and whether it was `go infinite` (whose answer
    /// waits for `stop`, as UCI requires, even when a limit ended it).
    Search(BestMove, bool),
    /// The last lines of `go perft` or `bench`.
    Lines(Vec<String>),
}

/// What a command hands back to run on the search thread: a search, or
/// `go perft` and `bench`, which `stop` ends with no total (`quit` ends
/// the program at once).
enum Job {
    Go(GoParams),
    Perft(u32),
    /// The depth, and the table the bench searches with (the one `stop`
    /// sets the flag of).
    Bench(Option<i32>, Arc<Shared>),
}

impl Job {
    /// Runs `go perft` or `bench` (not `go`, which needs the loop) until its
    /// end or `stopped`; its last lines, for the loop to write.
    fn run(self, out: &Out, engine: &Engine, stopped: &AtomicBool) -> Vec<String> {
        match self {
            Job::Go(_) => Vec::new(),
            Job::Perft(depth) => match engine.session().game().perft_until(depth, true, stopped) {
                Some(report) => report.lines().map(str::to_string).collect(),
                None => vec!["info string perft stopped; no total".to_string()],
            },
            Job::Bench(depth, shared) => {
                let networks = &engine.host.networks;
                match crate::bench_until(depth, &shared, stopped, networks, &mut |l| out.line(l)) {
                    Some(result) => vec![result.summary()],
                    None => vec!["info string bench stopped; no total".to_string()],
                }
            }
        }
    }
}

impl State {
    fn with_engine(engine: Engine, out: Out) -> State {
        State {
            out,
            stop: engine.shared().clone(),
            stopped: Arc::default(),
            engine: Some(engine),
            queue: VecDeque::new(),
            quitting: false,
            held: None,
        }
    }

    /// Whether a job holds the engine or a `go infinite` holds its answer:
    /// lines other than `isready`, `stop` and `quit` then wait.
    fn busy(&self) -> bool {
        self.engine.is_none() || self.held.is_some()
    }

    /// Before a search: its flags armed (after `quit`, a queued search is
    /// stopped at once).
    fn arm_go(&mut self, engine: &Engine, params: &GoParams) {
        start_go(&self.out, engine, params);
        self.stop = engine.shared().clone();
        self.stopped.store(self.quitting, Relaxed);
        if self.quitting {
            self.stop.stop.store(true, Relaxed);
        }
    }

    /// A job has ended and the engine is back: its last lines now, or, for
    /// `go infinite` not yet stopped, its answer held until `stop`.
    fn finish(&mut self, done: Done) {
        match done {
            Done::Search(best, true) if !self.stopped.load(Relaxed) => self.held = Some(best),
            Done::Search(best, _) => answer(&self.out, best),
            Done::Lines(lines) => lines.iter().for_each(|l| self.out.line(l)),
        }
    }

    /// Writes the held answer if `stop` (or `quit`) has come; whether
    /// nothing is held any more.
    fn release_held(&mut self) -> bool {
        if self.held.is_some() && self.stopped.load(Relaxed) {
            if let Some(best) = self.held.take() {
                answer(&self.out, best);
            }
        }
        self.held.is_none()
    }

    fn info_string(&self, text: &str) {
        self.out.line(&format!("info string {text}"));
    }

    /// While searching: `isready`, `stop` and `quit` act now; the rest waits
    /// in order for the search to end (nothing is read after `quit`).
    fn during_search(&mut self, line: String) {
        if self.quitting {
            return;
        }
        match line.split_whitespace().next() {
            Some("isready") => self.out.line("readyok"),
            Some("stop") => self.stop_search(),
            Some("quit") => {
                self.quitting = true;
                self.stop_search();
            }
            Some("ponderhit") => {}
            _ => self.queue.push_back(line),
        }
    }

    /// `stop`, `quit` or the end of input during a search.
    fn stop_search(&self) {
        self.stopped.store(true, Relaxed);
        self.stop.stop.store(true, Relaxed);
    }

    /// Before `go perft` or `bench`: `stop` now sets `shared`'s flag and
    /// `stopped`; after `quit` (a queued job) they are stopped at once.
    fn arm_job(&mut self, shared: Arc<Shared>) {
        self.stop = shared;
        self.stopped.store(self.quitting, Relaxed);
        self.stop.stop.store(self.quitting, Relaxed);
    }

    /// Carries out one command; a `go`, `go perft` or `bench` is handed
    /// back for the caller to run.
    fn handle(&mut self, line: &str) -> Option<Job> {
        let (command, warnings) = match parse(line) {
            Ok(parsed) => parsed,
            Err(e) => {
                self.info_string(&e.to_string());
                return None;
            }
        };
        for w in warnings {
            self.info_string(&w);
        }
        let engine = self.engine.as_mut()?;
        match command {
            Command::Nothing | Command::Debug | Command::PonderHit => {}
            Command::Hello(dialect) => hello(&self.out, dialect),
            Command::IsReady => self.out.line("readyok"),
            Command::NewGame => engine.new_game(),
            Command::SetOption { name, value } => {
                match engine.set_option(&name, value.as_deref()) {
                    Ok(notes) => notes.iter().for_each(|n| self.info_string(n)),
                    Err(e) => self.info_string(&format!("error: {e}")),
                }
            }
            Command::Position { fen, moves } => {
                let moves: Vec<&str> = moves.iter().map(String::as_str).collect();
                if let Err(e) = engine.set_position(fen.as_deref(), &moves) {
                    self.info_string(&format!("error: {e}; position unchanged"));
                }
            }
            Command::Go(params) => return Some(Job::Go(params)),
            Command::GoPerft(depth) => {
                let shared = engine.shared().clone();
                self.arm_job(shared);
                return Some(Job::Perft(depth));
            }
            Command::Stop => {}
            Command::Quit => self.quitting = true,
            Command::Query(q) => {
                let game = engine.session().game();
                let answer = match q {
                    Query::GameOver => game.outcome().is_over().to_string(),
                    Query::P1Turn => (game.side_to_move() == Side::P1).to_string(),
                    Query::Result => game
                        .outcome()
                        .result()
                        .map_or("none", |r| r.ugi())
                        .to_string(),
                };
                self.out.line(&format!("response {answer}"));
            }
            Command::Display => {
                for l in engine.session().game().display().lines() {
                    self.out.line(l);
                }
            }
            Command::Bench(depth) => {
                let shared = Arc::new(Shared::new(crate::BENCH_HASH_MB));
                self.arm_job(shared.clone());
                return Some(Job::Bench(depth, shared));
            }
        }
        None
    }
}

/// A search, its `info` lines written as they come and the table
/// problems after it; its answer for the loop to write.
fn search(out: &Out, engine: &mut Engine, params: &GoParams) -> BestMove {
    let best = engine.go(params, &mut |info| out.line(&info_line(info)));
    table_problems(out, engine);
    best
}

/// Before a search: what is wrong with `searchmoves`, and the flags armed.
fn start_go(out: &Out, engine: &Engine, params: &GoParams) {
    for e in engine.session().check_search_moves(&params.search_moves) {
        out.line(&format!("info string error: {e}"));
    }
    engine.shared().arm();
}

/// Before `bestmove`: what went wrong with the endgame tables (each said
/// once).
fn table_problems(out: &Out, engine: &Engine) {
    for p in engine.table_problems() {
        out.line(&format!("info string error: {p}"));
    }
}

/// The last lines of a search.
fn answer(out: &Out, best: BestMove) {
    match best {
        BestMove::Move { best, .. } => out.line(&format!("bestmove {best}")),
        BestMove::GameOver(reason) => {
            out.line(&format!(
                "info string the game is over ({reason}); nothing to search"
            ));
            // UCI's word for "no move": a GUI reads anything else as a move.
            out.line("bestmove (none)");
        }
    }
}

/// The handshake: who we are, every option of `OPTIONS`, and `ugiok`/`uciok`.
fn hello(out: &Out, dialect: Dialect) {
    let ablated = match stackfish_games::ablate::ABLATED {
        Some(terms) => format!(" (ablated: {terms})"),
        None => String::new(),
    };
    out.line(&format!(
        "id name {ENGINE_NAME} {}{ablated}",
        env!("CARGO_PKG_VERSION")
    ));
    out.line(&format!("id author {AUTHOR}"));
    for option in &OPTIONS {
        out.line(&option_line(option));
    }
    for p in crate::options::tunable_options() {
        out.line(&format!(
            "option name {} type spin default {} min {} max {}",
            p.name, p.default, p.min, p.max
        ));
    }
    out.line(match dialect {
        Dialect::Ugi => "ugiok",
        Dialect::Uci => "uciok",
    });
}

/// The handshake's `option name ...` line of one option.
pub fn option_line(option: &EngineOption) -> String {
    let name = option.name;
    match option.kind {
        Kind::Spin {
            default, min, max, ..
        } => format!("option name {name} type spin default {default} min {min} max {max}"),
        Kind::Combo { default, choices } => {
            let vars: Vec<String> = choices().iter().map(|v| format!("var {v}")).collect();
            format!(
                "option name {name} type combo default {default} {}",
                vars.join(" ")
            )
        }
        Kind::Button => format!("option name {name} type button"),
        Kind::Text { default } => format!("option name {name} type string default {default}"),
    }
}

/// A search score as `info` lines give it: a mate in moves once the search
/// has proved one, centipawns otherwise.
pub fn info_score(score: i32) -> Score {
    match mate_in(score) {
        Some(n) => Score::Mate(n),
        None => Score::Cp(score),
    }
}

/// The UCI/UGI `info` line of one line of a search: the search's data in
/// the text crate's terms. Depth, seldepth and MultiPV are small and never
/// negative, so they fit the line's `u32`s.
pub fn info_line(info: &Info) -> String {
    let small = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    stackfish_ugi::info_line(&SearchLine {
        multipv: small(info.multipv),
        depth: u32::try_from(info.depth).unwrap_or(0),
        seldepth: small(info.seldepth),
        score: info_score(info.score),
        nodes: info.nodes,
        time_ms: info.time_ms,
        hashfull: info.hashfull,
        pv: &info.pv,
    })
}

/// The loop with a reader thread and a search thread.
#[cfg(not(all(target_family = "wasm", target_os = "unknown")))]
mod threaded {
    use std::io::{BufRead, Write};
    use std::sync::mpsc::{channel, Sender};

    use super::{line_too_long, read_input, search, Done, Host, Input, Job, Out, State};
    use crate::Engine;

    enum Event {
        Line(String),
        /// A line too long, dropped: answered at once, also mid-search.
        TooLong,
        Eof,
        /// A job has ended: the engine back, and its answer for the loop
        /// to write.
        JobDone(Box<Engine>, Done),
    }

    pub(super) fn run(
        host: Host,
        mut input: impl BufRead + Send + 'static,
        output: impl Write + Send + 'static,
    ) {
        let (tx, rx) = channel();
        let reader_tx = tx.clone();
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            while let Some(read) = read_input(&mut input, &mut buf) {
                let event = match read {
                    Input::Text(line) => Event::Line(line),
                    Input::TooLong => Event::TooLong,
                };
                if reader_tx.send(event).is_err() {
                    return;
                }
            }
            let _ = reader_tx.send(Event::Eof);
        });
        let mut s = State::with_engine(Engine::new(host), Out::new(output));
        // Whether the job running can be stopped (a search) or runs to its
        // end (`go perft`, `bench`: `quit` then ends the program at once).
        let mut stoppable = true;
        while let Ok(event) = rx.recv() {
            match event {
                Event::Line(line) if s.busy() => s.during_search(line),
                Event::Line(line) => stoppable = handle(&mut s, &line, &tx),
                Event::TooLong => s.info_string(&line_too_long()),
                // The end of input is `quit`, also during a search.
                Event::Eof => {
                    s.quitting = true;
                    s.stop_search();
                }
                Event::JobDone(engine, done) => {
                    s.engine = Some(*engine);
                    s.finish(done);
                }
            }
            // The commands queued behind the job, in order, once its answer
            // is out, also after `quit` (a `go` among them stops at once).
            if s.engine.is_some() && s.release_held() {
                while !s.busy() {
                    let Some(line) = s.queue.pop_front() else {
                        break;
                    };
                    stoppable = handle(&mut s, &line, &tx);
                }
            }
            if s.quitting && (!s.busy() || !stoppable) {
                break;
            }
        }
    }

    /// Carries out `line`; whether what it left running (if anything) can
    /// be stopped.
    fn handle(s: &mut State, line: &str, events: &Sender<Event>) -> bool {
        let Some(job) = s.handle(line) else {
            return true;
        };
        let Some(mut engine) = s.engine.take() else {
            return true;
        };
        let (out, events, stopped) = (s.out.clone(), events.clone(), s.stopped.clone());
        match job {
            Job::Go(params) => {
                s.arm_go(&engine, &params);
                std::thread::spawn(move || {
                    let done = Done::Search(search(&out, &mut engine, &params), params.infinite);
                    let _ = events.send(Event::JobDone(Box::new(engine), done));
                });
                true
            }
            job => {
                std::thread::spawn(move || {
                    let done = Done::Lines(job.run(&out, &engine, &stopped));
                    let _ = events.send(Event::JobDone(Box::new(engine), done));
                });
                false
            }
        }
    }
}

#[cfg(test)]
mod tests;
