//! Silo solved in play: table files holding the exact value of every
//! position of one configuration (row length, checkers per player), built
//! by a parallel retrograde sweep, checked by an independent verifier, and
//! probed by the engine, the arena and the browser board.
//! protocol.md documents the file byte by byte.

pub mod blocks;
pub mod build;
mod error;
pub mod format;
mod platform;
pub mod probe;
#[cfg(test)]
mod tests;
pub mod verify;

use std::path::Path;

use stackfish_games::silo::Silo;
use stackfish_games::Game;

pub use error::{BuildError, ConfigError, FormatError, TableError, VerifyError};
pub use format::Config;
pub use probe::{Table, TableSet};

/// `stackfish solve --write <path>`: builds the table of the configuration
/// of `root` (its row length and checkers), writes it, reads the root's
/// value back from the file, and returns the statistics to print.
pub fn build_command(
    root: &Silo,
    path: &Path,
    progress: build::Progress,
) -> Result<String, TableError> {
    let config = Config::of(root)?;
    let built = build::build(config, progress)?;
    built.write(path).map_err(|source| TableError::Write {
        path: path.to_path_buf(),
        source,
    })?;
    let table = Table::open(path)?;
    let value = table.value(root).ok_or(TableError::RootNotCovered)?;
    let line: Vec<String> = table.line(root).iter().map(|m| m.to_string()).collect();
    let h = table.header();
    Ok(format!(
        "Configuration: {}\nPosition: {}\nValue: {} for player {} to move\nLine: {}\n{}Moves followed backwards: {}\nChecksum (SHA-256 of the entries): {}\nWritten: {} ({} bytes)\n",
        config,
        root.fen(),
        value,
        root.side_to_move().digit(),
        line.join(" "),
        h.statistics(),
        built.edges,
        format::hex(&h.checksum),
        path.display(),
        table.file_len()
    ))
}

/// `stackfish solve --verify <path>`: `verified: N positions`, or what is
/// wrong.
pub fn verify_command(
    path: &Path,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<String, TableError> {
    let table = Table::open(path)?;
    let file =
        std::fs::File::open(path).map_err(|e| FormatError(format!("{}: {e}", path.display())))?;
    // Safety: `stackfish solve --verify` reads the whole file once; a file
    // truncated under it ends the command (SIGBUS), which protocol.md says
    // (the engine and `serve` never map a table).
    let map = unsafe { memmap2::Mmap::map(&file) }
        .map_err(|e| FormatError(format!("{}: {e}", path.display())))?;
    let n = verify::verify(&map, progress)?;
    Ok(format!(
        "Configuration: {}\n{}verified: {n} positions\n",
        table.config(),
        table.header().statistics()
    ))
}
