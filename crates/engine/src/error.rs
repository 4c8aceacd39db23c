//! The engine's typed errors. Their texts are what the protocol prints
//! after `info string error: `.

use crate::tables::LoadError;
use crate::MAX_HASH_MB;

/// A transposition table that cannot be had; the old one is kept.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HashSizeError {
    #[error("Hash must be 1 to {MAX_HASH_MB} MB")]
    Range { mb: usize },
    /// The memory is not there (the allocation failed).
    #[error("option Hash: cannot allocate {mb} MB ({bytes} bytes): not enough memory; the previous table is kept")]
    Memory { mb: usize, bytes: usize },
}

/// A `setoption` that could not be carried out; nothing changed.
#[derive(Debug, thiserror::Error)]
pub enum OptionError {
    /// `name` as sent.
    #[error("unknown option '{name}'")]
    Unknown { name: String },
    #[error("option {name} needs a value")]
    NeedsValue { name: String },
    #[error("option {name}: '{value}' is not a number from {min} to {max}")]
    NotANumber {
        name: String,
        value: String,
        min: u64,
        max: u64,
    },
    #[error(transparent)]
    Hash(#[from] HashSizeError),
    #[error("option Game: unknown game {} (known: {})", stackfish_games::echo::quote(value), stackfish_games::variant_names().join(", "))]
    UnknownGame { value: String },
    #[error("option SiloTablePath: this build reads no table files")]
    NoTableReader,
    #[error("option SiloTablePath: {0}")]
    Tables(LoadError),
}
