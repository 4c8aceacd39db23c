//! The match runner: plays engines against each other, referees every move
//! with our own rules, survives any engine behaviour and records every game;
//! plus the pure statistics, ratings and report rendering.
//!
//! The runner feeds finished games (in colour-swapped pairs when it can) into
//! [`stats::MatchCounts`], asks it for the estimate and the SPRT state, and maps the end of the
//! run to an exit code:
//!
//! ```
//! use stackfish_arena::stats::{GameResult, MatchCounts, RunVerdict, SprtConfig};
//! let sprt = SprtConfig::new(0.0, 2.0, 0.05, 0.05).unwrap();
//! let mut counts = MatchCounts::default();
//! counts.add_pair(GameResult::Win, GameResult::Draw);
//! let status = counts.sprt_status(&sprt);
//! // Two games prove nothing: with the budget spent the run is inconclusive, never H1.
//! let verdict = RunVerdict::from_sprt(status.verdict, true).unwrap();
//! assert_eq!((verdict, verdict.exit_code()), (RunVerdict::Inconclusive, 2));
//! ```

pub mod compliance;
pub mod config;
pub mod merge;
pub mod openings;
pub mod ratings;
pub mod referee;
pub mod report;
pub mod results;
pub mod runner;
pub mod schedule;
pub mod stats;

use std::fmt;

/// A failure of the run itself (not of an engine inside a game).
#[derive(Debug)]
pub enum ArenaError {
    /// Bad flags, config file or openings.
    Config(String),
    /// Files that cannot be read or written.
    Io(String),
    /// An engine that cannot be started at all (no such file, not executable).
    Spawn(String),
}

impl fmt::Display for ArenaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArenaError::Config(m) => write!(f, "config error: {m}"),
            ArenaError::Io(m) => write!(f, "i/o error: {m}"),
            ArenaError::Spawn(m) => write!(f, "cannot start engine: {m}"),
        }
    }
}

impl std::error::Error for ArenaError {}

impl From<stackfish_record::RecordError> for ArenaError {
    fn from(e: stackfish_record::RecordError) -> ArenaError {
        match e {
            stackfish_record::RecordError::Io(m) => ArenaError::Io(m),
            stackfish_record::RecordError::Format(m) => ArenaError::Config(m),
        }
    }
}

impl From<stackfish_client::ClientError> for ArenaError {
    fn from(e: stackfish_client::ClientError) -> ArenaError {
        match e {
            stackfish_client::ClientError::Io(m) => ArenaError::Io(m),
            stackfish_client::ClientError::Spawn(m) => ArenaError::Spawn(m),
        }
    }
}
