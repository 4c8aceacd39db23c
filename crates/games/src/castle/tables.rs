//! Compile-time tables for Castle conquest: the fixed terrain of the 19 x 19
//! board, one-step neighbours, a 361-bit bitboard, and Zobrist keys from a
//! fixed seed.

use crate::zobrist::splitmix64;

pub const SIZE: usize = 19;
pub const SQUARES: usize = SIZE * SIZE;
/// The "square" past the edge: `NEXT` yields it, `TERRAIN` marks it `OFFBOARD`
/// and no bitboard ever holds it, so walks stop there without bound checks.
pub const OFF: usize = SQUARES;

/// Square index of file `f` (0 = a) and rank `r` (0 = rank 1).
pub const fn square(file: usize, rank: usize) -> usize {
    rank * SIZE + file
}

pub const fn file_of(sq: usize) -> usize {
    sq % SIZE
}

pub const fn rank_of(sq: usize) -> usize {
    sq / SIZE
}

/// The point reflection through j10: (f, r) -> (20 - f, 20 - r) counting from 1.
pub const fn mirror(sq: usize) -> usize {
    SQUARES - 1 - sq
}

// Terrain flags, one byte per square.
pub const WALL: u8 = 1;
pub const CHANNEL: u8 = 2;
pub const COURTYARD: u8 = 4;
pub const KEY: u8 = 8;
/// Ranks 9..11, where skulls may lie.
pub const MIDDLE: u8 = 16;
pub const OFFBOARD: u8 = 32;

/// First square of the middle zone (a9) and its size (ranks 9..11).
pub const MIDDLE_BASE: usize = 8 * SIZE;
pub const MIDDLE_SQUARES: usize = 3 * SIZE;

/// The key squares: Yellow's j5, Blue's j15 (index = `Side::index`).
pub const KEY_SQUARE: [usize; 2] = [square(9, 4), square(9, 14)];

/// The standard skull layout: two mirrored pairs.
pub const STANDARD_SKULLS: [usize; 4] = [square(3, 8), square(15, 10), square(7, 9), square(11, 9)];

/// Yellow's knights at the start (g8 i8 j8 k8 m8 g7 m7 j2); Blue's are the mirror.
pub const YELLOW_START: [usize; 8] = [
    square(6, 7),
    square(8, 7),
    square(9, 7),
    square(10, 7),
    square(12, 7),
    square(6, 6),
    square(12, 6),
    square(9, 1),
];

pub static TERRAIN: [u8; SQUARES + 1] = build_terrain();

/// Yellow's castle is the 7 x 7 block g..m x 2..8; its outer ring is wall
/// except the four channels h8, l8, g4, m4; inside is courtyard with the key
/// j5. Blue's castle is the mirror image.
const fn build_terrain() -> [u8; SQUARES + 1] {
    let mut t = [0u8; SQUARES + 1];
    t[OFF] = OFFBOARD;
    let mut sq = 0;
    while sq < SQUARES {
        let (f, r) = (file_of(sq), rank_of(sq));
        if r >= 8 && r <= 10 {
            t[sq] = MIDDLE;
        }
        if f >= 6 && f <= 12 && r >= 1 && r <= 7 {
            let ring = f == 6 || f == 12 || r == 1 || r == 7;
            let channel = (r == 7 && (f == 7 || f == 11)) || (r == 3 && (f == 6 || f == 12));
            let flags = if channel {
                CHANNEL
            } else if ring {
                WALL
            } else if f == 9 && r == 4 {
                COURTYARD | KEY
            } else {
                COURTYARD
            };
            t[sq] = flags;
            t[mirror(sq)] = flags;
        }
        sq += 1;
    }
    t
}

/// Directions: north, east, south, west. `d ^ 2` is the opposite.
pub const NORTH: usize = 0;
pub const EAST: usize = 1;
pub const SOUTH: usize = 2;
pub const WEST: usize = 3;

/// `NEXT[d][sq]`: the neighbour of `sq` in direction `d`, or `OFF`.
/// `OFF` maps to itself so a walk can never leave the table.
pub static NEXT: [[u16; SQUARES + 1]; 4] = build_next();

const fn build_next() -> [[u16; SQUARES + 1]; 4] {
    let mut next = [[OFF as u16; SQUARES + 1]; 4];
    let mut sq = 0;
    while sq < SQUARES {
        let (f, r) = (file_of(sq), rank_of(sq));
        if r + 1 < SIZE {
            next[NORTH][sq] = (sq + SIZE) as u16;
        }
        if f + 1 < SIZE {
            next[EAST][sq] = (sq + 1) as u16;
        }
        if r > 0 {
            next[SOUTH][sq] = (sq - SIZE) as u16;
        }
        if f > 0 {
            next[WEST][sq] = (sq - 1) as u16;
        }
        sq += 1;
    }
    next
}

/// A set of squares: 361 bits in six words (bit `sq % 64` of word `sq / 64`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, Debug)]
pub struct Bb(pub [u64; 6]);

impl Bb {
    pub const EMPTY: Bb = Bb([0; 6]);

    /// Safe for `OFF` (361): that bit is never set.
    #[inline(always)]
    pub fn has(&self, sq: usize) -> bool {
        (self.0[sq >> 6] >> (sq & 63)) & 1 != 0
    }

    #[inline(always)]
    pub fn set(&mut self, sq: usize) {
        self.0[sq >> 6] |= 1 << (sq & 63);
    }

    #[inline(always)]
    pub fn clear(&mut self, sq: usize) {
        self.0[sq >> 6] &= !(1 << (sq & 63));
    }

    pub fn count(&self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }

    pub fn intersects(&self, other: &Bb) -> bool {
        self.0.iter().zip(other.0.iter()).any(|(a, b)| a & b != 0)
    }

    /// The squares in increasing order.
    #[inline]
    pub fn squares(self) -> impl Iterator<Item = usize> {
        self.0.into_iter().enumerate().flat_map(|(i, mut w)| {
            std::iter::from_fn(move || {
                (w != 0).then(|| {
                    let bit = w.trailing_zeros() as usize;
                    w &= w - 1;
                    i * 64 + bit
                })
            })
        })
    }
}

/// The decision ply: once this many plies are played the game is decided.
pub const MAX_PLY: usize = 400;

pub struct Keys {
    pub knight: [[u64; SQUARES]; 2],
    pub side: u64,
    /// Per side and passes left (the string allows 0..=255).
    pub passes: [[u64; 256]; 2],
    /// Per plies played, 0..=400: the ply decides the game at 400, so it is
    /// hashed; `repetition_key` takes it out again.
    pub ply: [u64; MAX_PLY + 1],
    /// Per middle-zone square holding a skull (skulls never move, but two
    /// games with different layouts must not share table entries).
    pub skull: [u64; MIDDLE_SQUARES],
}

pub static KEYS: Keys = build_keys();

const fn build_keys() -> Keys {
    let mut state = 0x4341_5354_4C45_3139; // "CASTLE19"
    let mut knight = [[0u64; SQUARES]; 2];
    let mut p = 0;
    while p < 2 {
        let mut sq = 0;
        while sq < SQUARES {
            let (s, k) = splitmix64(state);
            state = s;
            knight[p][sq] = k;
            sq += 1;
        }
        p += 1;
    }
    let (s, side) = splitmix64(state);
    state = s;
    let mut passes = [[0u64; 256]; 2];
    let mut p = 0;
    while p < 2 {
        let mut n = 0;
        while n < 256 {
            let (s, k) = splitmix64(state);
            state = s;
            passes[p][n] = k;
            n += 1;
        }
        p += 1;
    }
    let mut ply = [0u64; MAX_PLY + 1];
    let mut n = 0;
    while n <= MAX_PLY {
        let (s, k) = splitmix64(state);
        state = s;
        ply[n] = k;
        n += 1;
    }
    let mut skull = [0u64; MIDDLE_SQUARES];
    let mut n = 0;
    while n < MIDDLE_SQUARES {
        let (s, k) = splitmix64(state);
        state = s;
        skull[n] = k;
        n += 1;
    }
    Keys {
        knight,
        side,
        passes,
        ply,
        skull,
    }
}
