//! The board's typed errors: an answer the API refuses to give, a shipped
//! board the import code refuses, and the board that cannot be set up.
//! Every message is the text people have always seen (the tests compare
//! them).

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

/// A shipped board the import code refuses.
#[derive(Debug, Error)]
#[error("shipped board {file}: {message}")]
pub struct ShippedError {
    pub file: String,
    pub message: String,
}

/// Why the board could not be set up: a bug of this build, which the tests
/// catch, reported rather than shown.
#[derive(Debug, Error)]
pub enum BoardError {
    /// A board of this build that its own import code refuses.
    #[error(transparent)]
    Shipped(#[from] ShippedError),
    /// The default game cannot be set up.
    #[error(transparent)]
    Game(#[from] ApiError),
}
