//! Skull layouts. The rules ("Board"): skulls lie on ground squares of the
//! middle zone (ranks 9..11) in mirrored pairs; the standard start uses
//! d9, p11, h10, l10, and a match runner may deal other mirrored layouts
//! through the position string. The arena deals them here, through
//! `Game::dealt_start`, so every game of a suite starts on a fair board.
//!
//! Interpretation: a pair is two different squares, so j10 (its own mirror)
//! never holds a skull in a dealt layout; a layout has as many pairs as the
//! standard start (2). The position string itself accepts any skulls (see
//! `notation::parse_fen`): pairing is how a layout is dealt, not a rule of
//! the position.

use super::tables::{
    mirror, MIDDLE, MIDDLE_BASE, MIDDLE_SQUARES, STANDARD_SKULLS, TERRAIN, WALL, YELLOW_START,
};
use super::{Castle, CastleVariant};
use crate::zobrist::splitmix64;

/// Skull pairs in a layout: as many as in the standard start.
pub const SKULL_PAIRS: usize = STANDARD_SKULLS.len() / 2;

/// A square a skull may lie on: middle-zone ground.
fn skull_ground(sq: usize) -> bool {
    (MIDDLE_BASE..MIDDLE_BASE + MIDDLE_SQUARES).contains(&sq)
        && TERRAIN[sq] & MIDDLE != 0
        && TERRAIN[sq] & WALL == 0
}

/// The first square of every possible pair (the one before its mirror), in
/// increasing order: 28 squares, a9..s9 and a10..i10.
pub fn pair_squares() -> Vec<usize> {
    (MIDDLE_BASE..MIDDLE_BASE + MIDDLE_SQUARES)
        .filter(|&sq| skull_ground(sq) && sq < mirror(sq))
        .collect()
}

/// Whether `skulls` is a mirrored layout: middle-zone ground squares, none
/// listed twice, none its own mirror, and the mirror of each one listed too.
pub fn is_mirrored_layout(skulls: &[usize]) -> bool {
    skulls.iter().enumerate().all(|(i, &sq)| {
        skull_ground(sq)
            && mirror(sq) != sq
            && !skulls[..i].contains(&sq)
            && skulls.contains(&mirror(sq))
    })
}

/// The start of `variant` with the skulls on `skulls` (kept in that order)
/// instead of the standard layout; `None` unless `skulls` is a mirrored
/// layout (`is_mirrored_layout`).
pub fn start_with_skulls(variant: &CastleVariant, skulls: &[usize]) -> Option<Castle> {
    if !is_mirrored_layout(skulls) {
        return None;
    }
    let blue: Vec<usize> = YELLOW_START.iter().map(|&sq| mirror(sq)).collect();
    Some(Castle::with_layout(
        &YELLOW_START,
        &blue,
        skulls,
        [variant.passes; 2],
    ))
}

/// A layout of `SKULL_PAIRS` distinct pairs drawn uniformly from `seed`,
/// written canonically: pairs by increasing first square, each first square
/// followed by its mirror (the standard layout comes out as d9,p11,h10,l10).
pub fn deal_skulls(seed: u64) -> Vec<usize> {
    let mut squares = pair_squares();
    let mut state = seed;
    // A partial Fisher-Yates shuffle: the first SKULL_PAIRS entries.
    for i in 0..SKULL_PAIRS.min(squares.len()) {
        let (next, key) = splitmix64(state);
        state = next;
        let j = i + (key % (squares.len() - i) as u64) as usize;
        squares.swap(i, j);
    }
    squares.truncate(SKULL_PAIRS);
    squares.sort_unstable();
    squares.iter().flat_map(|&sq| [sq, mirror(sq)]).collect()
}

/// The start of `variant` with a layout dealt from `seed`.
pub fn dealt_start(variant: &CastleVariant, seed: u64) -> Castle {
    let skulls = deal_skulls(seed);
    start_with_skulls(variant, &skulls).unwrap_or_else(|| Castle::standard_start(variant))
}
