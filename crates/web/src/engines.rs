//! The engines the board offers: stackfish in this process, and any UGI
//! engine given with `--engine`, driven by the engine client the arena uses
//! too (stackfish_client: process group, transport, handshake, deadlines).
//! Each search runs on a thread of the caller's; a searcher reports every
//! `info` line as it comes and never waits longer than its deadline.

use std::collections::HashSet;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

use stackfish_board::{Finish, Job, JobLimit, Report};
use stackfish_client::engine::{spawn_process, Engine, Logger, SearchError, StartError};
use stackfish_client::spec::{EngineSpec, Timeouts, DEFAULT_TIME_MARGIN_MS, MOVE_GRACE_MS};
use stackfish_engine::{
    self as engine, BestMove, GoParams, Networks, Options, Session, SharedTables,
};

use super::error::{EngineError, RosterError};
use stackfish_search::Shared;

pub use stackfish_board::BUILTIN;
/// Transposition table of each stackfish searcher (one per player and one
/// for analysis): enough for minute-long thoughts, small beside a browser.
pub const HASH_MB: usize = 32;
/// After `stop`, an engine has this long to answer `bestmove`.
pub const STOP_GRACE: Duration = Duration::from_secs(2);
/// An engine thinking `movetime T` is given up on after T plus this.
pub const MOVE_MARGIN_MS: u64 = DEFAULT_TIME_MARGIN_MS + MOVE_GRACE_MS + 400;
/// Startup, ping and the first `readyok` of an external engine.
pub const DEFAULT_STARTUP_MS: u64 = 10_000;
/// An engine searching `go nodes N` for a review is given up on after
/// this: ten million nodes (the review's most) take a few seconds.
pub const NODES_DEADLINE: Duration = Duration::from_secs(60);
/// The engine keys (the arena's syntax) that make sense for the board: the page sets
/// each search's limit, so `tc`, `st`, `depth`, `nodes` are refused.
const ENGINE_KEYS: &[&str] = &["name", "cmd", "args", "proto", "dir"];

/// The engines `--engine` adds, and the deadlines they run under.
#[derive(Clone, Debug, Default)]
pub struct Roster {
    specs: Vec<EngineSpec>,
    timeouts: Timeouts,
    /// The Silo tables stackfish answers a review's searches from.
    tables: Option<SharedTables>,
    /// The networks stackfish plays.
    networks: Networks,
}

impl Roster {
    /// Reads `--engine` groups in the arena's syntax (`name=A cmd=path
    /// [args="..."] [proto=ugi|uci] [dir=...] [option.X=v]`).
    pub fn from_groups(groups: &[Vec<String>], startup_ms: u64) -> Result<Roster, RosterError> {
        let mut specs = Vec::new();
        let mut names: HashSet<String> = HashSet::from([BUILTIN.to_string()]);
        for tokens in groups {
            for t in tokens {
                let key = t.split_once('=').map_or(t.as_str(), |(k, _)| k);
                if !ENGINE_KEYS.contains(&key) && !key.starts_with("option.") {
                    return Err(RosterError::Setting {
                        token: t.clone(),
                        keys: ENGINE_KEYS.join(", "),
                    });
                }
            }
            let mut spec = EngineSpec::default();
            spec.apply_tokens(tokens)
                .map_err(|e| RosterError::Spec(e.to_string()))?;
            if spec.name.is_empty() || spec.cmd.is_empty() {
                return Err(RosterError::Incomplete(tokens.join(" ")));
            }
            if !names.insert(spec.name.clone()) {
                return Err(RosterError::Duplicate(spec.name.clone()));
            }
            specs.push(spec);
        }
        let timeouts = Timeouts {
            startup_ms,
            ping_ms: startup_ms,
            ..Timeouts::default()
        };
        Ok(Roster {
            specs,
            timeouts,
            tables: None,
            networks: Networks::default(),
        })
    }

    /// stackfish answers the searches that ask for tables (a review's)
    /// from `tables`.
    pub fn with_tables(mut self, tables: Option<SharedTables>) -> Roster {
        self.tables = tables;
        self
    }

    /// stackfish plays `networks` (the built-in ones by default).
    pub fn with_networks(mut self, networks: Networks) -> Roster {
        self.networks = networks;
        self
    }

    /// Starts each `--engine` once (for the board's first game) and stops it again, so a
    /// command that does not run, fails its handshake, or refuses one of its
    /// options is said before the board is served, not at its first search.
    pub fn check(&self) -> Result<(), RosterError> {
        for spec in &self.specs {
            let mut external = External::new(spec, self.timeouts);
            external
                .start(stackfish_board::DEFAULT_VARIANT)
                .map_err(RosterError::Start)?;
            let refused = external
                .engine
                .as_ref()
                .and_then(|e| e.refused.first().cloned());
            if let Some(e) = external.engine.take() {
                e.quit();
            }
            if let Some(r) = refused {
                return Err(RosterError::Option(r.to_string()));
            }
        }
        Ok(())
    }

    /// Every engine's name, stackfish first.
    pub fn names(&self) -> Vec<String> {
        std::iter::once(BUILTIN.to_string())
            .chain(self.specs.iter().map(|s| s.name.clone()))
            .collect()
    }

    pub fn knows(&self, name: &str) -> bool {
        name == BUILTIN || self.specs.iter().any(|s| s.name == name)
    }

    /// A new searcher for `name` (not started: external engines start on
    /// their first search).
    pub fn searcher(&self, name: &str) -> Option<Box<dyn Searcher>> {
        if name == BUILTIN {
            let (tables, networks) = (self.tables.clone(), self.networks.clone());
            return Some(Box::new(Builtin::new(tables, networks)));
        }
        let spec = self.specs.iter().find(|s| s.name == name)?;
        Some(Box::new(External::new(spec, self.timeouts)))
    }
}

/// An engine the board searches with, on a thread of the native host's.
/// An `Err` from `run` is an engine that failed (its text is for the page);
/// `restart` brings up a new one.
pub trait Searcher: Send {
    /// Searches until the job's limit or until `stop` is set (looked at
    /// every few milliseconds). `Err`: the engine failed; it is killed, and
    /// `restart` brings up a new one.
    fn run(
        &mut self,
        job: &Job,
        stop: &AtomicBool,
        report: &mut dyn FnMut(Report),
    ) -> Result<Finish, EngineError>;
    /// Starts a new process after a failure; says why it could not.
    fn restart(&mut self, variant: &'static str) -> Result<(), EngineError>;
    /// Ends the engine's process, if it has one.
    fn close(self: Box<Self>);
}

/// How often stackfish's search is told of a stop asked for from outside.
const STOP_POLL: Duration = Duration::from_millis(5);

/// stackfish itself, with its own table.
struct Builtin {
    session: Option<Session>,
    shared: Arc<Shared>,
    round: Option<u64>,
    /// The endgame tables of the server, for the searches that ask.
    tables: Option<SharedTables>,
    /// The networks every session plays.
    networks: Networks,
}

impl Builtin {
    fn new(tables: Option<SharedTables>, networks: Networks) -> Builtin {
        Builtin {
            session: None,
            shared: Arc::new(Shared::new(HASH_MB)),
            round: None,
            tables,
            networks,
        }
    }
}

impl Searcher for Builtin {
    fn run(
        &mut self,
        job: &Job,
        stop: &AtomicBool,
        report: &mut dyn FnMut(Report),
    ) -> Result<Finish, EngineError> {
        let mut session = match self.session.take() {
            Some(s) if s.variant() == job.variant => s,
            _ => engine::new_session_with(job.variant, &self.networks)
                .ok_or(EngineError::Unplayed(job.variant))?,
        };
        if self.round != Some(job.round) || job.fresh {
            // Fresh heuristics and a new level seed for each game (and a
            // cleared table for a review's first search).
            session.new_game();
            self.shared.tt.clear();
            self.round = Some(job.round);
        }
        let moves: Vec<&str> = job.moves.iter().map(String::as_str).collect();
        session
            .set_position(Some(&job.start_fen), &moves)
            .map_err(|e| EngineError::Position(e.to_string()))?;
        let params = match job.limit {
            JobLimit::Move { movetime_ms, depth } => GoParams {
                move_time: Some(movetime_ms),
                depth,
                ..GoParams::default()
            },
            JobLimit::Infinite => GoParams {
                infinite: true,
                ..GoParams::default()
            },
            JobLimit::Nodes { nodes } => GoParams {
                nodes: Some(nodes),
                ..GoParams::default()
            },
        };
        let options = Options {
            hash_mb: HASH_MB,
            // The page is for playing; one thread leaves the machine usable.
            threads: 1,
            // Nothing travels between the server and its engine.
            move_overhead_ms: 0,
            level: job.level,
            multipv: usize::from(job.multipv),
            tables: if job.tables {
                self.tables.clone()
            } else {
                None
            },
        };
        self.shared.arm();
        let shared = &self.shared;
        let done = AtomicBool::new(false);
        let best = std::thread::scope(|scope| {
            // The search looks at its own flag; this carries ours over.
            scope.spawn(|| {
                while !done.load(Relaxed) {
                    if stop.load(Relaxed) {
                        shared.stop.store(true, Relaxed);
                        return;
                    }
                    std::thread::sleep(STOP_POLL);
                }
            });
            // A bug in the search must leave a board that still answers.
            let best = catch_unwind(AssertUnwindSafe(|| {
                session.go(shared, &params, &options, &mut |info| {
                    report(Report::from_info(info))
                })
            }));
            done.store(true, Relaxed);
            best
        });
        match best {
            Ok(BestMove::Move { best, .. }) => {
                self.session = Some(session);
                Ok(Finish::Move { mv: best })
            }
            Ok(BestMove::GameOver(reason)) => {
                self.session = Some(session);
                Ok(Finish::NoMove(reason.to_string()))
            }
            // The session may be half-updated: the next search starts afresh.
            Err(_) => Err(EngineError::Panicked),
        }
    }

    fn restart(&mut self, _variant: &'static str) -> Result<(), EngineError> {
        Ok(())
    }

    fn close(self: Box<Self>) {}
}

/// A UGI (or UCI) engine process.
struct External {
    spec: EngineSpec,
    timeouts: Timeouts,
    engine: Option<Engine>,
    /// The variant the running process was set up for.
    variant: Option<&'static str>,
    round: Option<u64>,
    multipv: u8,
}

impl External {
    /// An engine of `spec`, not started yet.
    fn new(spec: &EngineSpec, timeouts: Timeouts) -> External {
        External {
            spec: spec.clone(),
            timeouts,
            engine: None,
            variant: None,
            round: None,
            multipv: 1,
        }
    }

    fn start(&mut self, variant: &'static str) -> Result<(), EngineError> {
        if let Some(old) = self.engine.take() {
            old.quit();
        }
        let started = Engine::start(
            &self.spec,
            variant,
            self.timeouts,
            Logger::default(),
            0,
            &spawn_process,
        );
        match started {
            Ok(e) => {
                self.engine = Some(e);
                self.variant = Some(variant);
                self.round = None;
                self.multipv = 1;
                Ok(())
            }
            Err(StartError::Spawn(e)) => Err(EngineError::Spawn(e.to_string())),
            Err(StartError::Fault(f)) => Err(EngineError::Handshake {
                name: self.spec.name.clone(),
                text: f.text,
            }),
        }
    }

    /// Kills the engine after a fault; says what happened.
    fn fail(&mut self, what: EngineError) -> EngineError {
        if let Some(e) = self.engine.take() {
            e.kill();
        }
        what
    }

    fn prepare(&mut self, job: &Job) -> Result<(), EngineError> {
        if self.engine.is_none() || self.variant != Some(job.variant) {
            self.start(job.variant)?;
        }
        let name = self.spec.name.clone();
        let Some(engine) = self.engine.as_mut() else {
            return Err(EngineError::NotRunning(name));
        };
        let fault = |f: stackfish_client::engine::Fault| EngineError::Fault {
            name: name.clone(),
            text: f.text,
        };
        if self.round != Some(job.round) || job.fresh {
            engine.new_game().map_err(fault)?;
            self.round = Some(job.round);
        }
        let has_multipv = engine
            .options
            .iter()
            .find(|o| o.name.eq_ignore_ascii_case("multipv"))
            .map(|o| o.name.clone());
        if let Some(option) = has_multipv {
            if self.multipv != job.multipv {
                engine.send(&job.multipv_line(&option)).map_err(fault)?;
                self.multipv = job.multipv;
            }
        }
        // Alive and done with whatever came before.
        engine.ping().map_err(fault)
    }
}

impl Searcher for External {
    fn run(
        &mut self,
        job: &Job,
        stop: &AtomicBool,
        report: &mut dyn FnMut(Report),
    ) -> Result<Finish, EngineError> {
        if let Err(what) = self.prepare(job) {
            return Err(self.fail(what));
        }
        let name = self.spec.name.clone();
        let Some(engine) = self.engine.as_mut() else {
            return Err(EngineError::NotRunning(name));
        };
        let (position, go) = (job.position_line(), job.go_line());
        let deadline = match job.limit {
            JobLimit::Move { movetime_ms, .. } => {
                Instant::now() + Duration::from_millis(movetime_ms + MOVE_MARGIN_MS)
            }
            // Analysis ends with `stop`; the grace after it is the deadline.
            JobLimit::Infinite => Instant::now() + Duration::from_secs(365 * 24 * 3600),
            // An engine that does not count nodes (or counts slowly) is
            // given up on, as a move's search is.
            JobLimit::Nodes { .. } => Instant::now() + NODES_DEADLINE,
        };
        let result = engine.search_live(&position, &go, deadline, stop, STOP_GRACE, &mut |l| {
            if let Some(r) = Report::from_line(l) {
                report(r)
            }
        });
        match result {
            Ok(reply) => Ok(Finish::Move { mv: reply.mv }),
            Err(SearchError::NoReply { waited }) => Err(self.fail(EngineError::NoReply {
                name,
                ms: waited.as_millis(),
            })),
            Err(SearchError::Fault(f)) => Err(self.fail(EngineError::Fault { name, text: f.text })),
        }
    }

    fn restart(&mut self, variant: &'static str) -> Result<(), EngineError> {
        self.start(variant)
    }

    fn close(mut self: Box<Self>) {
        if let Some(e) = self.engine.take() {
            e.quit();
        }
    }
}
