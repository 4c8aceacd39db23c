//! Compile-time tables: the 52-square board as a 64-bit mask, per geometry
//! the destinations of a move of n coins from every square, and Zobrist keys
//! from a fixed seed.

use super::Move;
use crate::zobrist::KeyStream;

/// Squares are `rank * 8 + file`, files a..h = 0..7, ranks 1..8 = 0..7.
pub const SIZE: usize = 8;
pub const SQUARES: usize = SIZE * SIZE;

/// The highest stack the rules leave on the board, and so the longest move.
pub const MAX_HEIGHT: usize = 5;

/// The first and last file of each rank: the three squares of every corner
/// (a1 b1 a2, g1 h1 h2, a7 a8 b8, g8 h8 h7) are not part of the board.
pub const RANK_FILES: [(usize, usize); SIZE] = [
    (2, 5),
    (1, 6),
    (0, 7),
    (0, 7),
    (0, 7),
    (0, 7),
    (1, 6),
    (2, 5),
];

pub const fn on_board(file: i32, rank: i32) -> bool {
    if file < 0 || rank < 0 || file >= SIZE as i32 || rank >= SIZE as i32 {
        return false;
    }
    let (first, last) = RANK_FILES[rank as usize];
    file >= first as i32 && file <= last as i32
}

/// The 52 playable squares.
pub const BOARD: u64 = build_board();

const fn build_board() -> u64 {
    let mut mask = 0u64;
    let mut sq = 0;
    while sq < SQUARES {
        if on_board((sq % SIZE) as i32, (sq / SIZE) as i32) {
            mask |= 1 << sq;
        }
        sq += 1;
    }
    mask
}

/// Diagonal steps (`coinstack`) and orthogonal steps (`focus`), as
/// (file step, rank step); index 0 and 1 of the geometry tables.
pub const STEPS: [[(i32, i32); 4]; 2] = [
    [(1, 1), (-1, 1), (1, -1), (-1, -1)],
    [(1, 0), (-1, 0), (0, 1), (0, -1)],
];

/// For one geometry: from every square, for every count n (1..=5), the
/// squares exactly n steps away along one of the four lines that are on
/// the board. What lies between does not matter (moves jump).
pub struct Reach {
    /// The number of moves of a stack of height h on that square (its
    /// destinations summed over n = 1..=h), for counting moves without
    /// generating them.
    pub upto: [[u8; MAX_HEIGHT + 1]; SQUARES],
    /// The moves of a stack of five, n = 1..=5 and each n's destinations in
    /// `STEPS`' order: those of a stack of height h are the first
    /// `upto[sq][h]`, so the generator copies them rather than building
    /// them one by one.
    pub moves: [[Move; 4 * MAX_HEIGHT]; SQUARES],
    /// The destinations of n coins as a set of squares, for testing them
    /// all at once.
    pub dests: [[u64; MAX_HEIGHT + 1]; SQUARES],
}

pub static REACH: [Reach; 2] = [build_reach(0), build_reach(1)];

const fn build_reach(geometry: usize) -> Reach {
    let mut upto = [[0u8; MAX_HEIGHT + 1]; SQUARES];
    let mut moves = [[Move::from_bits(0); 4 * MAX_HEIGHT]; SQUARES];
    let mut dests = [[0u64; MAX_HEIGHT + 1]; SQUARES];
    let mut sq = 0;
    while sq < SQUARES {
        let (f, r) = ((sq % SIZE) as i32, (sq / SIZE) as i32);
        if on_board(f, r) {
            let mut n = 1;
            while n <= MAX_HEIGHT {
                let (mut d, mut len) = (0, 0);
                while d < 4 {
                    let (df, dr) = STEPS[geometry][d];
                    let (tf, tr) = (f + df * n as i32, r + dr * n as i32);
                    if on_board(tf, tr) {
                        let target = (tr * SIZE as i32 + tf) as usize;
                        dests[sq][n] |= 1 << target;
                        let k = upto[sq][n - 1] as usize + len;
                        moves[sq][k] = Move::from_bits((n << 12 | sq << 6 | target) as u16);
                        len += 1;
                    }
                    d += 1;
                }
                upto[sq][n] = upto[sq][n - 1] + len as u8;
                n += 1;
            }
        }
        sq += 1;
    }
    Reach { upto, moves, dests }
}

/// A drop on each of the 52 squares, in square order: what a side with a
/// reserve may drop, as the generator appends it.
pub static DROPS: [Move; BOARD.count_ones() as usize] = build_drops();

const fn build_drops() -> [Move; BOARD.count_ones() as usize] {
    let mut drops = [Move::from_bits(0); BOARD.count_ones() as usize];
    let (mut sq, mut i) = (0, 0);
    while sq < SQUARES {
        if BOARD & 1 << sq != 0 {
            drops[i] = Move::from_bits(super::DROP | sq as u16);
            i += 1;
        }
        sq += 1;
    }
    drops
}

/// A stack code is below 64 (sentinel bit above at most five colour bits).
pub const STACK_CODES: usize = 64;
/// Reserve and capture counts run from 0 to the 18 coins of a side.
pub const COUNTS: usize = 19;

pub struct Keys {
    /// Per square and stack code; the empty stack (code 1) has key 0.
    pub stack: [[u64; STACK_CODES]; SQUARES],
    pub side: u64,
    pub reserve: [[u64; COUNTS]; 2],
    pub captured: [[u64; COUNTS]; 2],
}

pub static KEYS: Keys = build_keys();

const fn build_keys() -> Keys {
    let mut keys = KeyStream::new(0x434F_494E_5354_4B53); // "COINSTKS"
    let stack = keys.stacks::<SQUARES, STACK_CODES>();
    let side = keys.next();
    let (reserve, captured) = keys.count_pairs::<COUNTS>();
    Keys {
        stack,
        side,
        reserve,
        captured,
    }
}
