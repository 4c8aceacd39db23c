//! The match runner: plays engines against each other, referees every move
//! with our own rules, survives any engine behaviour and records every game.

pub mod compliance;
pub mod config;
pub mod engine;
pub mod openings;
pub mod record;
pub mod referee;
pub mod report;
pub mod runner;
pub mod schedule;
pub mod transport;

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
