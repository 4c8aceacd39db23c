//! Every error of the tables crate in one place: a file that is not a good
//! table (`FormatError`), a table whose contents are wrong (`VerifyError`),
//! a configuration no table covers (`ConfigError`), a build that cannot
//! finish (`BuildError`), and the commands' and the folder reader's
//! (`TableError`). Each prints as the one line the binaries show after
//! `error: `.

use std::path::PathBuf;

use stackfish_games::silo::solve::Value;
use stackfish_games::silo::MAX_SQUARES;

use crate::format::MAX_PER_SIDE;

/// What is wrong with a table file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct FormatError(pub String);

/// The first wrong thing found in a table file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum VerifyError {
    /// The header or the file's length.
    #[error("bad table file: {0}")]
    Format(String),
    /// The entries (`of` = "entries") or, in version 2, the stored bytes
    /// after the header (`of` = "stored data") do not hash to the header's
    /// checksum.
    #[error("checksum mismatch ({of}): the header says {header}, the {of} hash to {data}")]
    Checksum {
        of: &'static str,
        header: String,
        data: String,
    },
    /// The header's counts or longest distance differ from the data's.
    #[error("wrong statistics in the header: {0}")]
    Statistics(String),
    /// An entry disagrees with its successors (or, for a finished position,
    /// with the rules).
    #[error(
        "bad entry {index}: position {fen}: the table says {stored}, its moves give {derived}"
    )]
    Entry {
        index: u64,
        fen: String,
        stored: Value,
        derived: Value,
    },
}

/// A position or configuration no table covers.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// Blue to move is stored as the mirror image of Red to move, which
    /// needs as many checkers of each.
    #[error(
        "{red} Red and {blue} Blue checkers: a table needs equal counts (Blue to move is stored as the mirror image)"
    )]
    UnequalCounts { red: u32, blue: u32 },
    #[error(
        "configuration {squares} squares, {per_side} checkers each is not one a table covers (an even row of 2 to {max_squares} squares, 1 to {max_per_side} checkers each)",
        max_squares = MAX_SQUARES,
        max_per_side = MAX_PER_SIDE
    )]
    Unsupported { squares: u8, per_side: u8 },
}

/// Why a build stopped without a table.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BuildError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The sweep went past the distances its one-byte working entry holds.
    #[error("distances beyond {limit} plies: too long for the one-byte entry")]
    TooDeep { limit: u16 },
    /// The longest distance does not fit the file's entry code.
    #[error("longest distance {longest} plies does not fit the entry code")]
    TooLong { longest: u16 },
}

/// Why `stackfish solve --write` or `--verify`, or reading a folder of
/// tables, failed.
#[derive(Debug, thiserror::Error)]
pub enum TableError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Build(#[from] BuildError),
    #[error("cannot write {}: {source}", .path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Format(#[from] FormatError),
    /// The table just written does not hold the root it was built for.
    #[error("the written table does not cover its root")]
    RootNotCovered,
    #[error(transparent)]
    Verify(#[from] VerifyError),
    #[error("cannot read table folder {}: {source}", .path.display())]
    Folder {
        path: PathBuf,
        source: std::io::Error,
    },
}
