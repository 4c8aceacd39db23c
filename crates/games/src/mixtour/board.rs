//! The geometry under Mixtour's bitboards. `Standard` is the 5 x 5 board of
//! the standard game, 25 bits of a `u32` with every table fixed at compile
//! time: the fast path. `Grid` is any grid of up to 10 x 10 cells with holes
//! (StackAndConquer's boards), 110 bits of a `u128`: ranks 11 bits apart, so
//! the 11th bit of every rank is never part of the board and a step off the
//! east or west edge lands there instead of wrapping onto the next rank.
//! The position code is written once, generic over `Board`, so both boards
//! play by the very same rules code.

use std::fmt::Debug;
use std::hash::Hash;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, Not, Shl, Shr};

use super::tables::{self as standard, DIRECTIONS};
use super::Stack;
use crate::zobrist::{splitmix64, KeyStream};

/// A set of cells as bits, for the two widths the boards use.
pub trait Bits:
    Copy
    + Eq
    + Debug
    + Send
    + Sync
    + 'static
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + Not<Output = Self>
    + BitAndAssign
    + BitOrAssign
    + Shl<u32, Output = Self>
    + Shr<u32, Output = Self>
{
    const ZERO: Self;
    fn bit(cell: usize) -> Self;
    fn count(self) -> u32;
    /// The lowest cell of a non-empty set.
    fn first(self) -> usize;
    /// The set without its lowest cell.
    fn rest(self) -> Self;
    fn rotate(self, left: u32) -> Self;
    #[inline(always)]
    fn is_empty(self) -> bool {
        self == Self::ZERO
    }
    #[inline(always)]
    fn has(self, cell: usize) -> bool {
        !(self & Self::bit(cell)).is_empty()
    }
    /// The cells of the set, lowest first.
    #[inline(always)]
    fn cells(self) -> Cells<Self> {
        Cells(self)
    }
}

macro_rules! impl_bits {
    ($t:ty) => {
        impl Bits for $t {
            const ZERO: Self = 0;
            #[inline(always)]
            fn bit(cell: usize) -> Self {
                1 << cell
            }
            #[inline(always)]
            fn count(self) -> u32 {
                self.count_ones()
            }
            #[inline(always)]
            fn first(self) -> usize {
                self.trailing_zeros() as usize
            }
            #[inline(always)]
            fn rest(self) -> Self {
                self & (self - 1)
            }
            #[inline(always)]
            fn rotate(self, left: u32) -> Self {
                self.rotate_left(left)
            }
        }
    };
}
impl_bits!(u32);
impl_bits!(u128);

/// Iterator over the cells of a set, lowest first.
pub struct Cells<B>(B);

impl<B: Bits> ExactSizeIterator for Cells<B> {}

impl<B: Bits> Iterator for Cells<B> {
    type Item = usize;

    #[inline(always)]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count() as usize;
        (n, Some(n))
    }

    #[inline(always)]
    fn next(&mut self) -> Option<usize> {
        if self.0.is_empty() {
            return None;
        }
        let cell = self.0.first();
        self.0 = self.0.rest();
        Some(cell)
    }
}

/// A cell that can move onto a target, and the cells that must be free.
#[derive(Clone, Copy, Debug)]
pub struct Ray<B> {
    pub source: u8,
    pub between: B,
}

/// Why a kind of board cannot be the shape a position string draws (the
/// reader reports it as field `board`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ShapeError {
    /// The standard board's type holds only the plain 5 x 5 board.
    #[error("not the standard 5 x 5 board")]
    NotStandard,
    /// Files or ranks outside 1 to `GRID_MAX`.
    #[error("{files} files x {ranks} ranks: a board has 1 to {max} of each", max = GRID_MAX)]
    Size { files: usize, ranks: usize },
    /// A hole map of another size than the grid.
    #[error("{cells} cells for {files} x {ranks}")]
    Cells {
        cells: usize,
        files: usize,
        ranks: usize,
    },
    /// Fewer than two playable cells.
    #[error(
        "{playable} playable {}: a board needs at least two",
        if *.playable == 1 { "cell" } else { "cells" }
    )]
    TooFewCells { playable: u32 },
}

/// The shape and the tables of one kind of board. Cells are numbered
/// `rank * STRIDE + file` from a1 = 0; tables cover the whole grid of the
/// kind, and `playable` says which cells of it a given board has.
pub trait Board: Copy + Eq + Hash + Debug + Send + Sync + 'static {
    type Bits: Bits;
    /// One stack per cell index, off-board cells always empty.
    type Stacks: Copy + Eq + Debug + Send + Sync + AsRef<[Stack]> + AsMut<[Stack]>;
    const STRIDE: usize;
    const MAX_FILES: usize;
    const MAX_RANKS: usize;
    const EMPTY_STACKS: Self::Stacks;

    /// The plain 5 x 5 board of the standard game, as this kind of board.
    fn standard() -> Self;
    fn files(&self) -> usize;
    fn ranks(&self) -> usize;
    /// The cells of this board: inside its files and ranks, and not holes.
    fn playable(&self) -> Self::Bits;

    /// The board of `files` x `ranks` cells (`holes[rank * files + file]`),
    /// or why this kind of board cannot be it.
    fn from_shape(files: usize, ranks: usize, holes: &[bool]) -> Result<Self, ShapeError>;

    /// One step in direction `D` (an index into `DIRECTIONS`). What leaves
    /// the grid is dropped, or lands on a cell that is never playable;
    /// callers mask with free or occupied cells, which are playable.
    fn step<const D: usize>(bits: Self::Bits) -> Self::Bits;

    /// The cells `steps` (1..=4) steps in direction `d` from the cells of
    /// `bits`, for walks that stay on the grid (a source to its target): the
    /// cells whose walk would leave the grid are dropped, and the rest move
    /// in one rotation (nothing wraps, so it is a shift either way).
    #[inline(always)]
    fn walk(bits: Self::Bits, d: usize, steps: usize) -> Self::Bits {
        let (keep, rotation) = Self::walk_table(d, steps);
        (bits & keep).rotate(rotation)
    }

    /// For `walk`: the cells of the grid from which `steps` steps in
    /// direction `d` stay on the grid, and the rotation that takes them there.
    fn walk_table(d: usize, steps: usize) -> (Self::Bits, u32);

    /// The sources `height` cells away from `target` along a line, with the
    /// cells between them (a hole between blocks like a stack).
    fn rays(target: usize, height: usize) -> &'static [Ray<Self::Bits>];
    /// Distance along a line (0 if not on one) and the cells between.
    fn line(from: usize, to: usize) -> (u8, Self::Bits);

    /// Zobrist key of a stack code on a cell (0 for the empty stack).
    fn stack_key(cell: usize, code: u8) -> u64;
    /// Zobrist key of the shape itself, so that positions of different
    /// boards never share a hash.
    fn shape_key(&self) -> u64;

    /// Packs a move into 16 bits, never 0; `unpack` reverses it.
    const PASS_BITS: u16;
    fn pack(kind: super::MoveKind) -> u16;
    fn unpack(bits: u16) -> super::MoveKind;

    /// Stack moves counted from the sources that have a target in each of
    /// the eight directions: one move per piece a source holds. `at_least`
    /// are the cells at least 2, 3 and 4 high.
    #[inline(always)]
    fn count_from_sources(movable: [Self::Bits; 8], at_least: [Self::Bits; 3]) -> u32 {
        movable
            .iter()
            .map(|&m| m.count() + at_least.iter().map(|&h| (m & h).count()).sum::<u32>())
            .sum()
    }
}

/// The 5 x 5 board of the standard game: everything fixed at compile time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Standard;

const KIND_PLACE: u16 = 1 << 13;
const KIND_STACK: u16 = 2 << 13;
const KIND_PASS: u16 = 3 << 13;

impl Board for Standard {
    type Bits = u32;
    type Stacks = [Stack; standard::SQUARES];
    const STRIDE: usize = standard::SIZE;
    const MAX_FILES: usize = standard::SIZE;
    const MAX_RANKS: usize = standard::SIZE;
    const EMPTY_STACKS: Self::Stacks = [Stack::EMPTY; standard::SQUARES];
    const PASS_BITS: u16 = KIND_PASS;

    fn standard() -> Standard {
        Standard
    }
    #[inline(always)]
    fn files(&self) -> usize {
        standard::SIZE
    }
    #[inline(always)]
    fn ranks(&self) -> usize {
        standard::SIZE
    }
    #[inline(always)]
    fn playable(&self) -> u32 {
        standard::BOARD
    }

    fn from_shape(files: usize, ranks: usize, holes: &[bool]) -> Result<Standard, ShapeError> {
        if files == standard::SIZE && ranks == standard::SIZE && !holes.contains(&true) {
            Ok(Standard)
        } else {
            Err(ShapeError::NotStandard)
        }
    }

    #[inline(always)]
    fn step<const D: usize>(bits: u32) -> u32 {
        standard::shift(bits, D)
    }

    #[inline(always)]
    fn walk_table(d: usize, steps: usize) -> (u32, u32) {
        STANDARD_WALKS[d][steps]
    }

    #[inline(always)]
    fn rays(target: usize, height: usize) -> &'static [Ray<u32>] {
        &standard::SOURCES.rays[target][height][..standard::SOURCES.len[target][height] as usize]
    }

    #[inline(always)]
    fn line(from: usize, to: usize) -> (u8, u32) {
        (
            standard::LINES.distance[from][to],
            standard::LINES.between[from][to],
        )
    }

    #[inline(always)]
    fn stack_key(cell: usize, code: u8) -> u64 {
        standard::KEYS.stack[cell][code as usize]
    }

    #[inline(always)]
    fn shape_key(&self) -> u64 {
        0
    }

    /// Target or entry cell in bits 0..5, source in 5..10, piece count in
    /// 10..13, kind in 13..15.
    #[inline(always)]
    fn pack(kind: super::MoveKind) -> u16 {
        use super::MoveKind::*;
        match kind {
            Place(cell) => KIND_PLACE | cell as u16,
            Stack { count, from, to } => {
                KIND_STACK | (count as u16) << 10 | (from as u16) << 5 | to as u16
            }
            Pass => Self::PASS_BITS,
        }
    }

    #[inline(always)]
    fn unpack(b: u16) -> super::MoveKind {
        use super::MoveKind::*;
        match b & (3 << 13) {
            KIND_PLACE => Place((b & 31) as u8),
            KIND_STACK => Stack {
                count: ((b >> 10) & 7) as u8,
                from: ((b >> 5) & 31) as u8,
                to: (b & 31) as u8,
            },
            _ => Pass,
        }
    }

    /// Two directions share one 64-bit word, so each popcount does double work.
    #[inline(always)]
    fn count_from_sources(m: [u32; 8], at_least: [u32; 3]) -> u32 {
        let wide = |b: u32| b as u64 | (b as u64) << 32;
        let [h2, h3, h4] = at_least.map(wide);
        (0..4)
            .map(|i| {
                let p = m[2 * i] as u64 | (m[2 * i + 1] as u64) << 32;
                p.count_ones()
                    + (p & h2).count_ones()
                    + (p & h3).count_ones()
                    + (p & h4).count_ones()
            })
            .sum()
    }
}

/// Ranks of a `Grid` lie this many bits apart: ten files and one cell that
/// is never on the board.
pub const GRID_STRIDE: usize = 11;
pub const GRID_MAX: usize = 10;
/// Cell indices of a grid: 10 ranks of 11.
pub const GRID_CELLS: usize = GRID_STRIDE * GRID_MAX;

/// Any board of StackAndConquer's: up to 10 x 10 cells, some of them holes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Grid {
    files: u8,
    ranks: u8,
    playable: u128,
}

impl Grid {
    /// The 5 x 5 board without holes, as a grid.
    pub fn square(size: usize) -> Grid {
        Grid::from_shape(size, size, &vec![false; size * size]).expect("1..=10 is a grid")
    }

    /// Whether the cell at `file`, `rank` (from a1 = 0, 0) is part of the board.
    pub fn is_playable(&self, file: usize, rank: usize) -> bool {
        file < self.files() && rank < self.ranks() && self.playable.has(rank * GRID_STRIDE + file)
    }
}

/// A stack move in a grid: source and target in 7 bits each, the piece
/// count minus one in the top 2 bits. A placement is written as a move
/// from its cell onto itself with count field 1 (a real stack move never
/// has the same source and target), a pass as cell 127 onto itself.
const GRID_PASS: u16 = 127 << 7 | 127;

impl Board for Grid {
    type Bits = u128;
    type Stacks = [Stack; GRID_CELLS];
    const STRIDE: usize = GRID_STRIDE;
    const MAX_FILES: usize = GRID_MAX;
    const MAX_RANKS: usize = GRID_MAX;
    const EMPTY_STACKS: Self::Stacks = [Stack::EMPTY; GRID_CELLS];
    const PASS_BITS: u16 = GRID_PASS;

    fn standard() -> Grid {
        Grid::square(standard::SIZE)
    }
    #[inline(always)]
    fn files(&self) -> usize {
        self.files as usize
    }
    #[inline(always)]
    fn ranks(&self) -> usize {
        self.ranks as usize
    }
    #[inline(always)]
    fn playable(&self) -> u128 {
        self.playable
    }

    fn from_shape(files: usize, ranks: usize, holes: &[bool]) -> Result<Grid, ShapeError> {
        if !(1..=GRID_MAX).contains(&files) || !(1..=GRID_MAX).contains(&ranks) {
            return Err(ShapeError::Size { files, ranks });
        }
        if holes.len() != files * ranks {
            return Err(ShapeError::Cells {
                cells: holes.len(),
                files,
                ranks,
            });
        }
        let mut playable = 0u128;
        for rank in 0..ranks {
            for file in 0..files {
                if !holes[rank * files + file] {
                    playable |= u128::bit(rank * GRID_STRIDE + file);
                }
            }
        }
        // Rule: a board has at least two playable cells.
        if playable.count() < 2 {
            return Err(ShapeError::TooFewCells {
                playable: playable.count(),
            });
        }
        Ok(Grid {
            files: files as u8,
            ranks: ranks as u8,
            playable,
        })
    }

    #[inline(always)]
    fn step<const D: usize>(b: u128) -> u128 {
        // East/west wrap onto the 11th cell of a rank, which is never on
        // the board; beyond the 10th rank nothing is on the board either.
        match D {
            0 => b << 1,
            1 => b >> 1,
            2 => b << GRID_STRIDE,
            3 => b >> GRID_STRIDE,
            4 => b << (GRID_STRIDE + 1),
            5 => b >> (GRID_STRIDE + 1),
            6 => b >> (GRID_STRIDE - 1),
            _ => b << (GRID_STRIDE - 1),
        }
    }

    #[inline(always)]
    fn walk_table(d: usize, steps: usize) -> (u128, u32) {
        GRID_WALKS[d][steps]
    }

    #[inline(always)]
    fn rays(target: usize, height: usize) -> &'static [Ray<u128>] {
        &GRID_SOURCES.rays[target][height][..GRID_SOURCES.len[target][height] as usize]
    }

    #[inline(always)]
    fn line(from: usize, to: usize) -> (u8, u128) {
        let d = GRID_LINES.distance[from][to];
        if d == 0 {
            return (0, 0);
        }
        // The cells between, walked from the direction: no 110 x 110 table of u128.
        let dir = GRID_LINES.direction[from][to] as usize;
        let (df, dr) = DIRECTIONS[dir];
        let delta = dr as isize * GRID_STRIDE as isize + df as isize;
        let between = (1..d as isize).fold(0u128, |acc, k| {
            acc | u128::bit((from as isize + k * delta) as usize)
        });
        (d, between)
    }

    #[inline(always)]
    fn stack_key(cell: usize, code: u8) -> u64 {
        GRID_KEYS[cell][code as usize]
    }

    fn shape_key(&self) -> u64 {
        let mut h = splitmix64(0x4752_4944 ^ (self.files as u64) << 8 ^ self.ranks as u64).1;
        h = splitmix64(h ^ self.playable as u64).1;
        splitmix64(h ^ (self.playable >> 64) as u64).1
    }

    #[inline(always)]
    fn pack(kind: super::MoveKind) -> u16 {
        use super::MoveKind::*;
        match kind {
            Place(cell) => 1 << 14 | (cell as u16) << 7 | cell as u16,
            Stack { count, from, to } => {
                ((count as u16 - 1) << 14) | (from as u16) << 7 | to as u16
            }
            Pass => Self::PASS_BITS,
        }
    }

    #[inline(always)]
    fn unpack(b: u16) -> super::MoveKind {
        use super::MoveKind::*;
        let (from, to) = (((b >> 7) & 127) as u8, (b & 127) as u8);
        if b == GRID_PASS {
            Pass
        } else if from == to {
            Place(to)
        } else {
            Stack {
                count: (b >> 14) as u8 + 1,
                from,
                to,
            }
        }
    }
}

/// Per direction and number of steps 0..=4, for a `files` x `ranks` grid
/// laid out `stride` bits a rank in a word of `width` bits: the cells from
/// which the walk stays on the grid, and the left rotation that walks them.
const fn walk_tables(
    files: usize,
    ranks: usize,
    stride: usize,
    width: i32,
) -> [[(u128, u32); 5]; 8] {
    let mut table = [[(0u128, 0u32); 5]; 8];
    let mut d = 0;
    while d < 8 {
        let (df, dr) = DIRECTIONS[d];
        let mut steps = 0;
        while steps <= 4 {
            let mut keep = 0u128;
            let mut rank = 0;
            while rank < ranks {
                let mut file = 0;
                while file < files {
                    let (f, r) = (file as i32 + df * steps, rank as i32 + dr * steps);
                    if f >= 0 && f < files as i32 && r >= 0 && r < ranks as i32 {
                        keep |= 1 << (rank * stride + file);
                    }
                    file += 1;
                }
                rank += 1;
            }
            let delta = (dr * stride as i32 + df) * steps;
            table[d][steps as usize] = (keep, delta.rem_euclid(width) as u32);
            steps += 1;
        }
        d += 1;
    }
    table
}

static GRID_WALKS: [[(u128, u32); 5]; 8] = walk_tables(GRID_MAX, GRID_MAX, GRID_STRIDE, 128);

static STANDARD_WALKS: [[(u32, u32); 5]; 8] = {
    let wide = walk_tables(standard::SIZE, standard::SIZE, standard::SIZE, 32);
    let mut table = [[(0u32, 0u32); 5]; 8];
    let mut d = 0;
    while d < 8 {
        let mut steps = 0;
        while steps <= 4 {
            table[d][steps] = (wide[d][steps].0 as u32, wide[d][steps].1);
            steps += 1;
        }
        d += 1;
    }
    table
};

/// Per (target cell, target height 1..=4) of the full 10 x 10 grid: the up
/// to eight sources with their between masks.
struct GridSources {
    rays: [[[Ray<u128>; 8]; 5]; GRID_CELLS],
    len: [[u8; 5]; GRID_CELLS],
}

static GRID_SOURCES: GridSources = build_grid_sources();

const fn on_grid(file: i32, rank: i32) -> bool {
    file >= 0 && file < GRID_MAX as i32 && rank >= 0 && rank < GRID_MAX as i32
}

const fn grid_cell(file: i32, rank: i32) -> usize {
    rank as usize * GRID_STRIDE + file as usize
}

const fn build_grid_sources() -> GridSources {
    let mut rays = [[[Ray {
        source: 0,
        between: 0u128,
    }; 8]; 5]; GRID_CELLS];
    let mut len = [[0u8; 5]; GRID_CELLS];
    let mut target = 0;
    while target < GRID_CELLS {
        let (tf, tr) = ((target % GRID_STRIDE) as i32, (target / GRID_STRIDE) as i32);
        let mut height = 1;
        while height <= 4 && tf < GRID_MAX as i32 {
            let mut d = 0;
            while d < 8 {
                let (df, dr) = DIRECTIONS[d];
                let (sf, sr) = (tf + df * height, tr + dr * height);
                if on_grid(sf, sr) {
                    let mut between = 0u128;
                    let mut k = 1;
                    while k < height {
                        between |= 1 << grid_cell(tf + df * k, tr + dr * k);
                        k += 1;
                    }
                    let n = len[target][height as usize] as usize;
                    rays[target][height as usize][n] = Ray {
                        source: grid_cell(sf, sr) as u8,
                        between,
                    };
                    len[target][height as usize] += 1;
                }
                d += 1;
            }
            height += 1;
        }
        target += 1;
    }
    GridSources { rays, len }
}

/// Per pair of grid cells: the distance along a line (0 if none) and the
/// direction from the first to the second.
struct GridLines {
    distance: [[u8; GRID_CELLS]; GRID_CELLS],
    direction: [[u8; GRID_CELLS]; GRID_CELLS],
}

static GRID_LINES: GridLines = build_grid_lines();

const fn build_grid_lines() -> GridLines {
    let mut distance = [[0u8; GRID_CELLS]; GRID_CELLS];
    let mut direction = [[0u8; GRID_CELLS]; GRID_CELLS];
    let mut from = 0;
    while from < GRID_CELLS {
        let (ff, fr) = ((from % GRID_STRIDE) as i32, (from / GRID_STRIDE) as i32);
        let mut d = 0;
        while d < 8 && ff < GRID_MAX as i32 {
            let (df, dr) = DIRECTIONS[d];
            let mut k = 1;
            while on_grid(ff + df * k, fr + dr * k) {
                let to = grid_cell(ff + df * k, fr + dr * k);
                distance[from][to] = k as u8;
                direction[from][to] = d as u8;
                k += 1;
            }
            d += 1;
        }
        from += 1;
    }
    GridLines {
        distance,
        direction,
    }
}

/// Zobrist keys of the grid's cells, from a seed of their own (the
/// standard board's keys stay as they were).
static GRID_KEYS: [[u64; standard::STACK_CODES]; GRID_CELLS] = build_grid_keys();

const fn build_grid_keys() -> [[u64; standard::STACK_CODES]; GRID_CELLS] {
    KeyStream::new(0x4752_4944_4B45_5953).stacks() // "GRIDKEYS"
}
