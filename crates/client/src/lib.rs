//! A UGI/UCI engine as a child process, as the arena and the browser board
//! drive it: the transport (`transport`), the conversation with its
//! handshake, pings, searches and watchdog (`engine`), and the engine's
//! settings (`spec`). Nothing here trusts the engine: anything unexpected is
//! a `Fault` with a text for the game's termination.

pub mod engine;
mod platform;
pub mod spec;
pub mod transport;

/// An engine that could not be used at all, or a log that could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// Files that cannot be read or written (the log).
    #[error("i/o error: {0}")]
    Io(String),
    /// An engine that cannot be started at all (no such file, not executable).
    #[error("cannot start engine: {0}")]
    Spawn(String),
}
