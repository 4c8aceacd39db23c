//! The board's typed errors, one per subject: starting the server, the
//! engines offered, an engine's search, the shipped boards, and an answer
//! the API refuses to give. Every message is the text people have always
//! seen (the tests compare them).

use thiserror::Error;

/// An answer the API refuses to give: an HTTP status and a message for people.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("{message}")]
pub struct ApiError {
    pub status: u16,
    pub message: String,
}

impl ApiError {
    pub fn new(status: u16, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            message: message.into(),
        }
    }
    pub(crate) fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(400, message)
    }
    pub(crate) fn conflict(message: impl Into<String>) -> ApiError {
        ApiError::new(409, message)
    }
    pub(crate) fn unprocessable(message: impl Into<String>) -> ApiError {
        ApiError::new(422, message)
    }
}

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
    /// A board of this build that its own import code refuses: a bug the
    /// tests catch, reported rather than shown.
    #[error(transparent)]
    Shipped(#[from] ShippedError),
    /// The default game cannot be set up (a bug of this build).
    #[error(transparent)]
    Game(#[from] ApiError),
}

/// A shipped board the import code refuses.
#[derive(Debug, Error)]
#[error("shipped board {file}: {message}")]
pub struct ShippedError {
    pub file: String,
    pub message: String,
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
