//! Compile-time tables of the standard 5 x 5 board (the fast path; see
//! `board.rs`): geometry, the sources that can reach a target of a given
//! height, between-squares masks, and Zobrist keys from a fixed seed.

use super::board::Ray;
use crate::zobrist::{splitmix64, KeyStream};

pub const SIZE: usize = 5;
pub const SQUARES: usize = SIZE * SIZE;
pub const BOARD: u32 = (1 << SQUARES) - 1;

pub const FILE_A: u32 = 0b00001_00001_00001_00001_00001;
pub const FILE_E: u32 = FILE_A << 4;

/// The eight directions as (file step, rank step).
pub const DIRECTIONS: [(i32, i32); 8] = [
    (1, 0),
    (-1, 0),
    (0, 1),
    (0, -1),
    (1, 1),
    (-1, -1),
    (1, -1),
    (-1, 1),
];

/// Shifts a bitboard one step in direction `d` (an index into `DIRECTIONS`),
/// dropping what falls off the board.
#[inline(always)]
pub const fn shift(bb: u32, d: usize) -> u32 {
    match d {
        0 => (bb << 1) & !FILE_A & BOARD,
        1 => (bb >> 1) & !FILE_E,
        2 => (bb << 5) & BOARD,
        3 => bb >> 5,
        4 => (bb << 6) & !FILE_A & BOARD,
        5 => (bb >> 6) & !FILE_E,
        6 => (bb >> 4) & !FILE_A,
        _ => (bb << 4) & !FILE_E & BOARD,
    }
}

/// The direction opposite to `d`.
pub const fn opposite(d: usize) -> usize {
    d ^ 1
}

/// Per (target square, target height 1..=4): the up-to-eight source squares
/// exactly `height` squares away along a line, with their between masks.
pub struct Sources {
    pub rays: [[[Ray<u32>; 8]; 5]; SQUARES],
    pub len: [[u8; 5]; SQUARES],
}

pub static SOURCES: Sources = build_sources();

const fn build_sources() -> Sources {
    let mut rays = [[[Ray {
        source: 0,
        between: 0,
    }; 8]; 5]; SQUARES];
    let mut len = [[0u8; 5]; SQUARES];
    let mut target = 0;
    while target < SQUARES {
        let (tf, tr) = ((target % SIZE) as i32, (target / SIZE) as i32);
        let mut height = 1;
        while height <= 4 {
            let mut d = 0;
            while d < 8 {
                let (df, dr) = DIRECTIONS[d];
                let (sf, sr) = (tf + df * height as i32, tr + dr * height as i32);
                if sf >= 0 && sf < SIZE as i32 && sr >= 0 && sr < SIZE as i32 {
                    let mut between = 0u32;
                    let mut k = 1;
                    while k < height {
                        let (bf, br) = (tf + df * k as i32, tr + dr * k as i32);
                        between |= 1 << (br * SIZE as i32 + bf);
                        k += 1;
                    }
                    let n = len[target][height] as usize;
                    rays[target][height][n] = Ray {
                        source: (sr * SIZE as i32 + sf) as u8,
                        between,
                    };
                    len[target][height] += 1;
                }
                d += 1;
            }
            height += 1;
        }
        target += 1;
    }
    Sources { rays, len }
}

/// Per pair of squares: the distance along a line (0 if not on one line or
/// the same square) and the squares strictly between.
pub struct Lines {
    pub distance: [[u8; SQUARES]; SQUARES],
    pub between: [[u32; SQUARES]; SQUARES],
}

pub static LINES: Lines = build_lines();

const fn build_lines() -> Lines {
    let mut distance = [[0u8; SQUARES]; SQUARES];
    let mut between = [[0u32; SQUARES]; SQUARES];
    let mut from = 0;
    while from < SQUARES {
        let (ff, fr) = ((from % SIZE) as i32, (from / SIZE) as i32);
        let mut d = 0;
        while d < 8 {
            let (df, dr) = DIRECTIONS[d];
            let mut mask = 0u32;
            let mut k = 1;
            loop {
                let (f, r) = (ff + df * k, fr + dr * k);
                if f < 0 || f >= SIZE as i32 || r < 0 || r >= SIZE as i32 {
                    break;
                }
                let to = (r * SIZE as i32 + f) as usize;
                distance[from][to] = k as u8;
                between[from][to] = mask;
                mask |= 1 << to;
                k += 1;
            }
            d += 1;
        }
        from += 1;
    }
    Lines { distance, between }
}

/// A stack code is below 32 (sentinel bit above at most four colour bits).
pub const STACK_CODES: usize = 32;

pub struct Keys {
    /// Per square and stack code; the empty stack (code 1) has key 0.
    pub stack: [[u64; STACK_CODES]; SQUARES],
    pub side: u64,
    pub reserve: [[u64; 256]; 2],
    pub score: [[u64; 256]; 2],
    /// Per number of consecutive passes just played (0, 1, 2).
    pub passes: [u64; 3],
    pub seed_for_moves: u64,
}

pub static KEYS: Keys = build_keys();

const fn build_keys() -> Keys {
    let mut keys = KeyStream::new(0x5354_4143_4B46_4953); // "STACKFIS"
    let stack = keys.stacks::<SQUARES, STACK_CODES>();
    let side = keys.next();
    let (reserve, score) = keys.count_pairs::<256>();
    let (p1, p2) = (keys.next(), keys.next());
    Keys {
        stack,
        side,
        reserve,
        score,
        passes: [0, p1, p2],
        seed_for_moves: keys.next(),
    }
}

/// The key of a forbidden take-back move, from its 16-bit packing.
#[inline]
pub fn takeback_key(bits: u16) -> u64 {
    splitmix64(KEYS.seed_for_moves ^ bits as u64).1
}
