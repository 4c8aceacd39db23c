//! The engine facade: a game chosen by name at run time, its position and
//! history, options, the networks its host loaded, and `go`/`stop`/new
//! game — with no knowledge of the text protocol, so the protocol loop and
//! the web board share it.
//!
//! - `session`: one game (the rules crate's `AnyGame`) with the search
//!   driver of its type; `answer`: `go` as an ordered list of answerers.
//! - `options`: every option declared once; `levels`: how weaker levels play.
//! - `tables`: the endgame-table seam; `bench`: the node-count signature.
//! - `protocol`: the UGI/UCI loop over any reader and writer.

use std::sync::Arc;

mod answer;
pub mod bench;
pub mod error;
pub mod levels;
pub mod options;
pub mod protocol;
mod session;
pub mod tables;
// Read by the transcript tests only: here and in tests/protocol.rs, which
// includes the same file.
#[cfg(test)]
mod transcript;

pub use bench::{bench, bench_suite, bench_until, BenchResult, BenchSuite, BENCH, BENCH_HASH_MB};
pub use error::{HashSizeError, OptionError};
pub use options::{EngineOption, Kind, Options, OPTIONS};
pub use session::{new_session, new_session_with, new_shaped_session, Session};
pub use stackfish_games::Networks;
pub use stackfish_games::PositionError;
pub use tables::{EndgameTables, LoadError, SharedTables, TableLoader};

use stackfish_games::Side;
use stackfish_search::{Info, Limits, Shared};

pub const DEFAULT_HASH_MB: usize = 16;
pub const MAX_HASH_MB: usize = 16_384;
pub const MAX_THREADS: usize = 256;
pub const DEFAULT_MOVE_OVERHEAD_MS: u64 = 10;
pub const MAX_MOVE_OVERHEAD_MS: u64 = 5_000;
pub const MAX_LEVEL: u8 = 20;
/// The most principal variations `MultiPV` may ask for.
pub const MAX_MULTIPV: usize = 8;
/// The game the engine plays until `Game` says otherwise.
pub const DEFAULT_GAME: &str = "mixtour";

/// How many positions a game that can prove values (Silo) may explore
/// before the engine falls back to searching: small under fast clocks.
pub const PROVE_POSITIONS_FAST: usize = 20_000;
pub const PROVE_POSITIONS_SLOW: usize = 300_000;

/// Go parameters as sent, player-neutral.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GoParams {
    pub time: [Option<u64>; 2],
    pub inc: [Option<u64>; 2],
    pub moves_to_go: Option<u64>,
    pub move_time: Option<u64>,
    pub depth: Option<i32>,
    pub nodes: Option<u64>,
    pub infinite: bool,
    /// `searchmoves`: the root moves to consider, as sent (empty: all).
    /// `Session::check_search_moves` says which of them cannot be used.
    pub search_moves: Vec<String>,
}

impl GoParams {
    pub fn limits_for(&self, side: Side) -> Limits {
        Limits {
            time: self.time[side.index()],
            inc: self.inc[side.index()],
            moves_to_go: self.moves_to_go,
            move_time: self.move_time,
            depth: self.depth,
            nodes: self.nodes,
            infinite: self.infinite,
        }
    }
}

/// What a search produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BestMove {
    Move {
        best: String,
        score: i32,
        pv: Vec<String>,
    },
    /// The game is over: there is nothing to play.
    GameOver(&'static str),
}

/// Allocates a transposition table of `mb` MB, or says why it cannot.
pub fn allocate_shared(mb: usize) -> Result<Arc<Shared>, HashSizeError> {
    if !(1..=MAX_HASH_MB).contains(&mb) {
        return Err(HashSizeError::Range { mb });
    }
    Shared::try_new(mb)
        .map(Arc::new)
        .map_err(|e| HashSizeError::Memory { mb, bytes: e.bytes })
}

/// What the program around the engine provides that this crate cannot: the
/// reading of table files (`SiloTablePath`), which a browser build lacks,
/// and the networks it loaded (`Networks::default()`: the built-in ones),
/// which every session of the engine plays.
#[derive(Clone, Debug, Default)]
pub struct Host {
    pub table_loader: Option<TableLoader>,
    pub networks: Networks,
}

/// The engine as a program drives it: one game, the options, and the table
/// its searches share. The protocol loop holds one; `setoption` goes
/// through `set_option`, which knows every option from `OPTIONS`.
pub struct Engine {
    pub(crate) options: Options,
    pub(crate) shared: Arc<Shared>,
    pub(crate) session: Session,
    pub(crate) host: Host,
}

impl Engine {
    /// Every option at its default, the default game at its start.
    pub fn new(host: Host) -> Engine {
        let options = Options::default();
        let shared = allocate_shared(options.hash_mb).unwrap_or_else(|_| Arc::new(Shared::new(1)));
        Engine::with_shared(host, options, shared)
    }

    /// `new` with a table of `hash_mb` MB instead of the default, as after
    /// `setoption name Hash value <hash_mb>`: for a host that starts many
    /// short sessions (the fuzz target of the protocol loop), which would
    /// spend its time clearing the default table.
    pub fn with_hash_mb(host: Host, hash_mb: usize) -> Result<Engine, HashSizeError> {
        let options = Options {
            hash_mb,
            ..Options::default()
        };
        let shared = allocate_shared(hash_mb)?;
        Ok(Engine::with_shared(host, options, shared))
    }

    fn with_shared(host: Host, options: Options, shared: Arc<Shared>) -> Engine {
        let session = match new_session_with(DEFAULT_GAME, &host.networks) {
            Some(session) => session,
            None => unreachable!("the default game is registered"),
        };
        Engine {
            options,
            shared,
            session,
            host,
        }
    }

    pub fn options(&self) -> &Options {
        &self.options
    }

    pub fn session(&self) -> &Session {
        &self.session
    }

    /// The table and stop flag of the searches.
    pub fn shared(&self) -> &Arc<Shared> {
        &self.shared
    }

    /// Forgets the previous game: position, heuristics and table.
    pub fn new_game(&mut self) {
        self.session.new_game();
        self.shared.tt.clear();
    }

    /// `fen = None` is the start position. Atomic: on error nothing changes.
    pub fn set_position(&mut self, fen: Option<&str>, moves: &[&str]) -> Result<(), PositionError> {
        self.session.set_position(fen, moves)
    }

    /// Sets the option named `name` (any case, spaces ignored) from `value`
    /// as sent; returns notes for the user (tables loaded, files skipped).
    pub fn set_option(
        &mut self,
        name: &str,
        value: Option<&str>,
    ) -> Result<Vec<String>, OptionError> {
        options::set(self, name, value)
    }

    /// Searches the current position; the stop flag of `shared` ends it.
    pub fn go(&mut self, params: &GoParams, report: &mut dyn FnMut(&Info)) -> BestMove {
        self.session.go(&self.shared, params, &self.options, report)
    }

    /// What has gone wrong with the endgame tables since the last call.
    pub fn table_problems(&self) -> Vec<String> {
        self.options
            .tables
            .as_ref()
            .map_or_else(Vec::new, |t| t.set.new_problems())
    }
}

#[cfg(test)]
mod boards;

#[cfg(test)]
mod tests;
