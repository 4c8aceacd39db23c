//! `stackfish solve --verify`: an independent check of a table file. Every
//! entry is re-derived from the values of its successors, found with the
//! rules library (`generate_moves`, `play`, `outcome`) and the plain index
//! scheme of `format`, never with the builder's un-moves or index tables.
//!
//! Why local checks prove the whole table. A win at d with a move to a loss
//! at d - 1, and a loss at d whose moves all reach wins, the slowest at
//! d - 1, are exact by induction on d from the finished positions. A draw
//! with no move to a loss and some move to a draw cannot hide a forced win
//! or loss either: following the winner's true best moves from it would
//! reach, by induction on the true distance, a position the table marks
//! wrongly as a win or loss, which the checks exclude.

use std::borrow::Cow;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

use super::blocks::Layout;
use super::format::{
    self, colex_unrank, decode, finished_value, heights_of_code, index_of, Config, Header, Row,
    Storage, HEADER_LEN,
};
pub use crate::error::VerifyError;
use stackfish_games::silo::solve::{next_combination, Value};
use stackfish_games::silo::{Silo, MAX_SQUARES};
use stackfish_games::{Game, Side};

/// The value a position has by its successors' values in `data` (or, when
/// finished, by the rules).
fn derive(
    pos: &Silo,
    config: Config,
    data: &[u8],
    moves: &mut Vec<stackfish_games::silo::Move>,
) -> Value {
    if let Some(v) = finished_value(pos) {
        return v;
    }
    moves.clear();
    pos.generate_moves(moves);
    let (mut fastest_win, mut slowest_loss, mut all_win) = (None::<u16>, 0u16, true);
    for &mv in moves.iter() {
        let mut child = *pos;
        child.play(mv);
        match format::value_in(data, config, &child) {
            // The child's side to move loses: a win for us one ply later.
            Value::Loss(d) => {
                fastest_win = Some(fastest_win.map_or(d + 1, |w| w.min(d + 1)));
                all_win = false;
            }
            Value::Win(d) => slowest_loss = slowest_loss.max(d + 1),
            Value::Draw => all_win = false,
        }
    }
    match fastest_win {
        Some(d) => Value::Win(d),
        None if all_win => Value::Loss(slowest_loss),
        None => Value::Draw,
    }
}

/// Checks the entries of heights block `c`; the first bad one, if any.
fn check_block(c: u64, config: Config, data: &[u8]) -> Result<(), VerifyError> {
    let patterns = config.patterns();
    let heights = heights_of_code(colex_unrank(c, config.total()), config.squares as usize);
    let mut moves = Vec::with_capacity(MAX_SQUARES);
    // Colour strings in increasing order, which is colex order.
    let mut colours = (1u64 << config.per_side) - 1;
    for j in 0..patterns {
        let index = c * patterns + j;
        let row = Row { colours, heights };
        let stored = decode(data[index as usize]);
        for side in Side::BOTH {
            let pos = row.position(config, side);
            let at = index_of(&pos, config);
            if at != index {
                return Err(VerifyError::Format(format!(
                    "index scheme: position {} is entry {index} but ranks as {at}",
                    pos.fen()
                )));
            }
            let derived = derive(&pos, config, data, &mut moves);
            if derived != stored {
                return Err(VerifyError::Entry {
                    index,
                    fen: pos.fen(),
                    stored,
                    derived,
                });
            }
        }
        colours = next_combination(colours);
    }
    Ok(())
}

/// Verifies a whole table file (header and data, as `file`); returns the
/// positions checked, both sides to move. A version-2 file's blocks are
/// decompressed into memory first (one byte per entry, 1.6 GB for the
/// standard table): an entry's successors are anywhere in the table. `progress` gets the entries
/// checked so far and the entries in all.
pub fn verify(file: &[u8], progress: &(dyn Fn(u64, u64) + Sync)) -> Result<u64, VerifyError> {
    let header =
        Header::parse(file, file.len() as u64).map_err(|e| VerifyError::Format(e.to_string()))?;
    let format_error = |e: format::FormatError| VerifyError::Format(e.to_string());
    let entries = match (header.storage, Layout::of(&header)) {
        (Storage::Blocks { stored, .. }, Some(layout)) => {
            check_digest("stored data", &stored, &file[HEADER_LEN..])?;
            layout.check_index(file).map_err(format_error)?;
            Cow::Owned(layout.decompress_all(file).map_err(format_error)?)
        }
        _ => Cow::Borrowed(&file[HEADER_LEN..]),
    };
    let data = &entries[..];
    check_digest("entries", &header.checksum, data)?;
    check_statistics(&header, data)?;
    let config = header.config;
    let blocks = config.compositions();
    let patterns = config.patterns();
    // The lowest bad entry found so far: blocks past it need no checking.
    let first_bad = AtomicU64::new(u64::MAX);
    let done = AtomicU64::new(0);
    let bad = (0..blocks)
        .into_par_iter()
        .filter_map(|c| {
            if c * patterns > first_bad.load(Relaxed) {
                return None;
            }
            let result = check_block(c, config, data);
            progress(done.fetch_add(patterns, Relaxed) + patterns, header.entries);
            match result {
                Ok(()) => None,
                Err(e) => {
                    let at = match &e {
                        VerifyError::Entry { index, .. } => *index,
                        _ => c * patterns,
                    };
                    first_bad.fetch_min(at, Relaxed);
                    Some((at, e))
                }
            }
        })
        .min_by_key(|(at, _)| *at);
    match bad {
        Some((_, e)) => Err(e),
        None => Ok(2 * header.entries),
    }
}

/// The SHA-256 of `bytes` against the header's `said`.
fn check_digest(of: &'static str, said: &[u8; 32], bytes: &[u8]) -> Result<(), VerifyError> {
    use sha2::{Digest, Sha256};
    let mut hasher = Sha256::new();
    for chunk in bytes.chunks(1 << 20) {
        hasher.update(chunk);
    }
    let digest: [u8; 32] = hasher.finalize().into();
    if &digest != said {
        return Err(VerifyError::Checksum {
            of,
            header: format::hex(said),
            data: format::hex(&digest),
        });
    }
    Ok(())
}

/// The header's counts and longest distance against the data.
fn check_statistics(header: &Header, data: &[u8]) -> Result<(), VerifyError> {
    let (counts, longest) = data
        .par_chunks(1 << 20)
        .map(|chunk| {
            let mut c = [0u64; 3];
            let mut longest = 0u16;
            for &b in chunk {
                match decode(b) {
                    Value::Win(d) => {
                        c[0] += 1;
                        longest = longest.max(d);
                    }
                    Value::Loss(d) => {
                        c[1] += 1;
                        longest = longest.max(d);
                    }
                    Value::Draw => c[2] += 1,
                }
            }
            (c, longest)
        })
        .reduce(
            || ([0; 3], 0),
            |a, b| {
                (
                    [a.0[0] + b.0[0], a.0[1] + b.0[1], a.0[2] + b.0[2]],
                    a.1.max(b.1),
                )
            },
        );
    let said = [header.wins, header.losses, header.draws];
    if counts != said || longest != header.longest {
        return Err(VerifyError::Statistics(format!(
            "header: {} wins, {} losses, {} draws, longest {}; data: {} wins, {} losses, {} draws, longest {}",
            said[0], said[1], said[2], header.longest, counts[0], counts[1], counts[2], longest
        )));
    }
    Ok(())
}
