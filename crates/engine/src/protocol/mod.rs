//! The UGI/UCI loop. Generic over any BufRead/Write so tests drive it in
//! memory. A reader thread turns input lines into events; a search runs on
//! its own thread while this loop answers `isready`, turns `stop`/`quit` into
//! the stop flag, and queues every other command until `bestmove` is out.

pub mod command;

use std::collections::VecDeque;
use std::io::{BufRead, Write};
use std::sync::atomic::Ordering::Relaxed;
use std::sync::mpsc::{channel, Sender};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::{
    BestMove, Options, Session, MAX_HASH_MB, MAX_LEVEL, MAX_MOVE_OVERHEAD_MS, MAX_MULTIPV,
    MAX_THREADS,
};
use command::{parse, Command, Dialect, ParseError, Query};
use stackfish_games::{variant_names, Side};
use stackfish_search::{mate_in, Info, Shared};

pub const ENGINE_NAME: &str = "stackfish";
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

enum Event {
    Line(String),
    Eof,
    SearchDone(Box<dyn Session>),
}

struct Engine {
    host: Host,
    out: Out,
    options: Options,
    shared: Arc<Shared>,
    /// `None` while a search owns it.
    session: Option<Box<dyn Session>>,
    queue: VecDeque<String>,
    quitting: bool,
    events: Sender<Event>,
}

/// What the program around the loop provides that this crate cannot: the
/// reading of table files (`SiloTablePath`), which a browser build lacks.
#[derive(Clone, Copy, Debug, Default)]
pub struct Host {
    pub table_loader: Option<crate::TableLoader>,
}

/// Runs the protocol until `quit` or end of input, with no table files.
pub fn run(input: impl BufRead + Send + 'static, output: impl Write + Send + 'static) {
    run_with(Host::default(), input, output)
}

/// Runs the protocol until `quit` or end of input.
pub fn run_with(
    host: Host,
    input: impl BufRead + Send + 'static,
    output: impl Write + Send + 'static,
) {
    let out = Out::new(output);
    let (tx, rx) = channel();
    let reader_tx = tx.clone();
    std::thread::spawn(move || {
        for line in input.lines() {
            // Invalid UTF-8 becomes an unknown command rather than an end.
            let line = line.unwrap_or_else(|_| "<invalid utf-8>".to_string());
            if reader_tx.send(Event::Line(line)).is_err() {
                return;
            }
        }
        let _ = reader_tx.send(Event::Eof);
    });
    let options = Options::default();
    let shared =
        crate::allocate_shared(options.hash_mb).unwrap_or_else(|_| Arc::new(Shared::new(1)));
    let mut e = Engine {
        host,
        out,
        options,
        shared,
        session: crate::new_session("mixtour"),
        queue: VecDeque::new(),
        quitting: false,
        events: tx,
    };
    while let Ok(event) = rx.recv() {
        match event {
            Event::Line(line) if e.session.is_none() => e.during_search(line),
            Event::Line(line) => e.handle(&line),
            Event::Eof => {
                e.quitting = true;
                e.shared.stop.store(true, Relaxed);
            }
            Event::SearchDone(session) => {
                e.session = Some(session);
                while e.session.is_some() && !e.quitting {
                    let Some(line) = e.queue.pop_front() else {
                        break;
                    };
                    e.handle(&line);
                }
            }
        }
        if e.quitting && e.session.is_some() {
            break;
        }
    }
}

impl Engine {
    fn info_string(&self, text: &str) {
        self.out.line(&format!("info string {text}"));
    }

    /// While searching: `isready`, `stop` and `quit` act now; the rest waits.
    fn during_search(&mut self, line: String) {
        match line.split_whitespace().next() {
            Some("isready") => self.out.line("readyok"),
            Some("stop") => self.shared.stop.store(true, Relaxed),
            Some("quit") => {
                self.quitting = true;
                self.shared.stop.store(true, Relaxed);
            }
            Some("ponderhit") => {}
            _ => self.queue.push_back(line),
        }
    }

    fn handle(&mut self, line: &str) {
        let (command, warnings) = match parse(line) {
            Ok(parsed) => parsed,
            Err(e @ ParseError::Unknown(_)) => return self.info_string(&e.to_string()),
            Err(e) => return self.info_string(&e.to_string()),
        };
        for w in warnings {
            self.info_string(&w);
        }
        let Some(session) = self.session.as_mut() else {
            return;
        };
        match command {
            Command::Nothing | Command::Debug | Command::PonderHit => {}
            Command::Hello(dialect) => self.hello(dialect),
            Command::IsReady => self.out.line("readyok"),
            Command::NewGame => {
                session.new_game();
                self.shared.tt.clear();
            }
            Command::SetOption { name, value } => self.set_option(&name, value.as_deref()),
            Command::Position { fen, moves } => {
                let moves: Vec<&str> = moves.iter().map(String::as_str).collect();
                if let Err(e) = session.set_position(fen.as_deref(), &moves) {
                    self.info_string(&format!("error: {e}; position unchanged"));
                }
            }
            Command::Go(params) => self.go(params),
            Command::GoPerft(depth) => {
                let report = session.perft(depth, true);
                for l in report.lines() {
                    self.out.line(l);
                }
            }
            Command::Stop => {}
            Command::Quit => self.quitting = true,
            Command::Query(q) => {
                let answer = match q {
                    Query::GameOver => session.outcome().is_over().to_string(),
                    Query::P1Turn => (session.side_to_move() == Side::P1).to_string(),
                    Query::Result => session
                        .outcome()
                        .result()
                        .map_or("none", |r| r.ugi())
                        .to_string(),
                };
                self.out.line(&format!("response {answer}"));
            }
            Command::Display => {
                for l in session.display().lines() {
                    self.out.line(l);
                }
            }
            Command::Bench(depth) => bench(&self.out, depth),
        }
    }

    fn hello(&self, dialect: Dialect) {
        let ablated = match stackfish_games::ablate::ABLATED {
            Some(terms) => format!(" (ablated: {terms})"),
            None => String::new(),
        };
        self.out.line(&format!(
            "id name {ENGINE_NAME} {}{ablated}",
            env!("CARGO_PKG_VERSION")
        ));
        self.out.line(&format!("id author {AUTHOR}"));
        let d = Options::default();
        self.out.line(&format!(
            "option name Hash type spin default {} min 1 max {MAX_HASH_MB}",
            d.hash_mb
        ));
        self.out.line(&format!(
            "option name Threads type spin default {} min 1 max {MAX_THREADS}",
            d.threads
        ));
        self.out.line(&format!(
            "option name MoveOverhead type spin default {} min 0 max {MAX_MOVE_OVERHEAD_MS}",
            d.move_overhead_ms
        ));
        let vars: Vec<String> = variant_names().iter().map(|v| format!("var {v}")).collect();
        self.out.line(&format!(
            "option name Game type combo default mixtour {}",
            vars.join(" ")
        ));
        self.out.line(&format!(
            "option name Level type spin default {MAX_LEVEL} min 1 max {MAX_LEVEL}"
        ));
        self.out.line(&format!(
            "option name MultiPV type spin default {} min 1 max {MAX_MULTIPV}",
            d.multipv
        ));
        self.out.line("option name Clear Hash type button");
        self.out
            .line("option name SiloTablePath type string default <empty>");
        self.out.line(match dialect {
            Dialect::Ugi => "ugiok",
            Dialect::Uci => "uciok",
        });
    }

    fn set_option(&mut self, name: &str, value: Option<&str>) {
        let key: String = name
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect::<String>()
            .to_ascii_lowercase();
        let spin = |min: u64, max: u64| -> Result<u64, String> {
            let v = value.ok_or_else(|| format!("option {name} needs a value"))?;
            match v.trim().parse::<u64>() {
                Ok(n) if (min..=max).contains(&n) => Ok(n),
                _ => Err(format!(
                    "option {name}: '{v}' is not a number from {min} to {max}"
                )),
            }
        };
        let result: Result<(), String> = match key.as_str() {
            "hash" => spin(1, MAX_HASH_MB as u64).and_then(|mb| {
                // Reallocated now, so the next `readyok` finds it ready.
                self.shared = crate::allocate_shared(mb as usize)?;
                self.options.hash_mb = mb as usize;
                Ok(())
            }),
            "threads" => spin(1, MAX_THREADS as u64).map(|n| self.options.threads = n as usize),
            "moveoverhead" => {
                spin(0, MAX_MOVE_OVERHEAD_MS).map(|n| self.options.move_overhead_ms = n)
            }
            "level" => spin(1, MAX_LEVEL as u64).map(|n| self.options.level = n as u8),
            "multipv" => spin(1, MAX_MULTIPV as u64).map(|n| self.options.multipv = n as usize),
            "clearhash" => {
                self.shared.tt.clear();
                Ok(())
            }
            "game" => match value.map(|v| (v, crate::new_session(v))) {
                Some((_, Some(session))) => {
                    self.session = Some(session);
                    self.shared.tt.clear();
                    Ok(())
                }
                Some((v, None)) => Err(format!(
                    "option Game: unknown game '{v}' (known: {})",
                    variant_names().join(", ")
                )),
                None => Err("option Game needs a value".to_string()),
            },
            "silotablepath" => self.set_table_path(value),
            _ => Err(format!("unknown option '{name}'")),
        };
        if let Err(e) = result {
            self.info_string(&format!("error: {e}"));
        }
    }

    /// `SiloTablePath`: maps the tables of a folder (empty or `<empty>`:
    /// none). Says what it loaded, and names each file it skipped.
    fn set_table_path(&mut self, value: Option<&str>) -> Result<(), String> {
        let folder = value.map(str::trim).unwrap_or("");
        if folder.is_empty() || folder == "<empty>" {
            self.options.tables = None;
            return Ok(());
        }
        let load = self
            .host
            .table_loader
            .ok_or("option SiloTablePath: this build reads no table files")?;
        let (tables, notes) = crate::SharedTables::open(std::path::Path::new(folder), load)
            .map_err(|e| format!("option SiloTablePath: {e}"))?;
        for note in notes {
            self.info_string(&format!("SiloTablePath: {note}"));
        }
        let found = tables.set.describe();
        self.info_string(&match found.len() {
            0 => format!("SiloTablePath: no table in {folder}"),
            n => format!("SiloTablePath: {n} table(s): {}", found.join("; ")),
        });
        self.options.tables = Some(tables);
        Ok(())
    }

    fn go(&mut self, params: crate::GoParams) {
        let Some(mut session) = self.session.take() else {
            return;
        };
        for e in session.check_search_moves(&params.search_moves) {
            self.info_string(&format!("error: {e}"));
        }
        self.shared.arm();
        let (out, shared, options, events) = (
            self.out.clone(),
            self.shared.clone(),
            self.options.clone(),
            self.events.clone(),
        );
        std::thread::spawn(move || {
            let result = session.go(&shared, &params, &options, &mut |info: &Info| {
                out.line(&info_line(info))
            });
            // In infinite mode the answer waits for `stop`, as UCI requires.
            while params.infinite && !shared.stop.load(Relaxed) {
                std::thread::sleep(Duration::from_millis(1));
            }
            match result {
                BestMove::Move { best, .. } => out.line(&format!("bestmove {best}")),
                BestMove::GameOver(reason) => {
                    out.line(&format!(
                        "info string the game is over ({reason}); nothing to search"
                    ));
                    out.line("bestmove none");
                }
            }
            let _ = events.send(Event::SearchDone(session));
        });
    }
}

fn bench(out: &Out, depth: Option<i32>) {
    let result = crate::bench(depth, &mut |l| out.line(l));
    out.line(&result.summary());
}

/// The UCI/UGI `info` line of one line of a search.
pub fn info_line(info: &Info) -> String {
    let score = match mate_in(info.score) {
        Some(n) => format!("mate {n}"),
        None => format!("cp {}", info.score),
    };
    let nps = info.nodes * 1000 / info.time_ms.max(1);
    format!(
        "info depth {} seldepth {} multipv {} score {} nodes {} nps {} time {} hashfull {} pv {}",
        info.depth,
        info.seldepth,
        info.multipv,
        score,
        info.nodes,
        nps,
        info.time_ms,
        info.hashfull,
        info.pv.join(" ")
    )
}
