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

pub mod analyse;
pub mod compliance;
pub mod config;
pub mod fastchess;
pub mod merge;
pub mod openings;
pub mod ratings;
pub mod referee;
pub mod report;
pub mod results;
pub mod runner;
pub mod schedule;
pub mod seats;
pub mod shard;
pub mod stats;
pub mod tune;
pub mod watch;

/// A failure of the run itself (not of an engine inside a game).
#[derive(Debug, thiserror::Error)]
pub enum ArenaError {
    /// Bad flags, config file or openings.
    #[error("config error: {0}")]
    Config(String),
    /// Files that cannot be read or written.
    #[error("i/o error: {0}")]
    Io(String),
    /// An engine that cannot be started at all (no such file, not executable).
    #[error("cannot start engine: {0}")]
    Spawn(String),
}

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

impl From<stackfish_client::spec::SpecError> for ArenaError {
    fn from(e: stackfish_client::spec::SpecError) -> ArenaError {
        ArenaError::Config(e.to_string())
    }
}

impl From<schedule::ScheduleError> for ArenaError {
    fn from(e: schedule::ScheduleError) -> ArenaError {
        ArenaError::Config(e.to_string())
    }
}

impl From<openings::OpeningError> for ArenaError {
    fn from(e: openings::OpeningError) -> ArenaError {
        ArenaError::Config(e.to_string())
    }
}

impl From<shard::ShardError> for ArenaError {
    fn from(e: shard::ShardError) -> ArenaError {
        ArenaError::Config(e.to_string())
    }
}
