//! The server's typed errors, one per subject: starting the server, the
//! engines offered, an engine's search (the board's own errors, an answer
//! the API refuses to give and the shipped boards, are stackfish-board's).
//! Every message is the text people have always seen (the tests compare
//! them).

use thiserror::Error;

pub use stackfish_board::{ApiError, BoardError, ShippedError};

/// Why the server did not start.
#[derive(Debug, Error)]
pub enum ServeError {
    #[error("cannot listen on {host}:{port}: {source}")]
    Listen {
        host: String,
        port: u16,
        source: std::io::Error,
    },
    #[error("cannot start the server threads: {0}")]
    Threads(std::io::Error),
    #[error("cannot install the stop signals' handlers: {0}")]
    Signals(std::io::Error),
    /// The board cannot be set up (a bug of this build).
    #[error(transparent)]
    Board(#[from] BoardError),
}

/// A `--engine` group the board cannot offer.
#[derive(Debug, Error)]
pub enum RosterError {
    #[error(
        "engine setting '{token}': the board takes {keys} and option.X (the page sets the time)"
    )]
    Setting { token: String, keys: String },
    /// The engine client's reading of a setting (the arena's syntax) refused it.
    #[error("{0}")]
    Spec(String),
    #[error("--engine {0}: name= and cmd= are required")]
    Incomplete(String),
    #[error("two engines are named '{0}'")]
    Duplicate(String),
    /// An engine that does not start, checked once before serving.
    #[error("{0}")]
    Start(EngineError),
    /// An option the engine refused or never advertised.
    #[error("{0}")]
    Option(String),
}

/// An engine that failed a search, or could not be (re)started; the page
/// shows the text, so each names the engine.
#[derive(Debug, Error)]
pub enum EngineError {
    #[error("stackfish does not play {0}")]
    Unplayed(&'static str),
    #[error("stackfish refused the position: {0}")]
    Position(String),
    #[error("stackfish failed while thinking")]
    Panicked,
    /// The command cannot be run at all.
    #[error("{0}")]
    Spawn(String),
    /// It ran but failed the handshake.
    #[error("{name}: {text}")]
    Handshake { name: String, text: String },
    /// A fault while it was running: `crashed (exit status 101)`, ...
    #[error("{name} {text}")]
    Fault { name: String, text: String },
    #[error("{0} is not running")]
    NotRunning(String),
    #[error("{name} sent no bestmove within {ms} ms")]
    NoReply { name: String, ms: u128 },
}

/// The desktop's browser could not be run.
#[derive(Debug, Error)]
#[error("cannot run {program}: {source}")]
pub struct OpenError {
    pub program: &'static str,
    pub source: std::io::Error,
}
