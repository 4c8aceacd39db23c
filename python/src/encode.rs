//! The fixed action numbering and the observation planes of every game, as
//! docs/python.md documents them. Numbering a move only reads its parts;
//! turning a number back into a move matches it against the legal moves, so
//! a number can never build a move the rules did not generate.

use stackfish_games::castle::tables::{KEY_SQUARE, SIZE as CASTLE_SIZE, SQUARES as CASTLE_SQUARES};
use stackfish_games::castle::Castle;
use stackfish_games::coinstack::tables::{on_board, SIZE as COIN_SIZE, SQUARES as COIN_SQUARES};
use stackfish_games::coinstack::{CoinStack, MoveKind as CoinKind, COINS};
use stackfish_games::mixtour::{Board, MoveKind as MixKind, Position};
use stackfish_games::silo::Silo;
use stackfish_games::{Game, Side};

/// A game with an action numbering and observation planes.
pub trait Encode: Game {
    /// Actions are numbered `0..num_actions()`; fixed for a board shape.
    fn num_actions(&self) -> usize;
    /// The number of a move of this position.
    fn action(&self, mv: Self::Move) -> usize;
    /// The observation's shape: planes, rows, columns.
    fn shape(&self) -> [usize; 3];
    /// Fills `out` (zeroed, `shape` elements) from `me`'s view: "the
    /// mover" of the plane lists below is `me`.
    fn observe(&self, me: Side, out: &mut [f32]);
}

/// Index of plane `p`, row `r`, column `c` in a `[planes, rows, cols]` tensor.
fn at(shape: [usize; 3], p: usize, r: usize, c: usize) -> usize {
    (p * shape[1] + r) * shape[2] + c
}

/// The sides as (the side to move, its opponent).
fn sides(side: Side) -> [Side; 2] {
    [side, side.opponent()]
}

/// Mixtour: cells numbered `rank * files + file` (a1 = 0), `N` of them.
/// Place on cell c: `c`; move `count` (1-4) from `f` to `t`:
/// `N + (f * N + t) * 4 + count - 1`; pass: `N + 4 N²`.
const MIX_COUNTS: usize = 4;
/// The most pieces in hand the planes scale by (`mixtour-5`).
const MIX_RESERVE_SCALE: f32 = 25.0;

fn mix_cells<B: Board>(pos: &Position<B>) -> usize {
    pos.board().files() * pos.board().ranks()
}

fn mix_cell_number<B: Board>(pos: &Position<B>, cell: u8) -> usize {
    let cell = cell as usize;
    (cell / B::STRIDE) * pos.board().files() + cell % B::STRIDE
}

impl<B: Board> Encode for Position<B> {
    fn num_actions(&self) -> usize {
        let n = mix_cells(self);
        n + MIX_COUNTS * n * n + 1
    }

    fn action(&self, mv: Self::Move) -> usize {
        let n = mix_cells(self);
        match mv.kind() {
            MixKind::Place(cell) => mix_cell_number(self, cell),
            MixKind::Stack { count, from, to } => {
                let (f, t) = (mix_cell_number(self, from), mix_cell_number(self, to));
                n + (f * n + t) * MIX_COUNTS + (count as usize).clamp(1, MIX_COUNTS) - 1
            }
            MixKind::Pass => n + MIX_COUNTS * n * n,
        }
    }

    /// Planes 0-3: the mover's piece at height 1-4 of a cell (bottom = 1);
    /// 4-7: the opponent's; 8: the board's cells; 9, 10: pieces in hand
    /// (mover, opponent) / 25; 11, 12: scores / goal. Row = rank, column = file.
    fn shape(&self) -> [usize; 3] {
        [13, self.board().ranks(), self.board().files()]
    }

    fn observe(&self, me: Side, out: &mut [f32]) {
        let shape = self.shape();
        let me = sides(me);
        for rank in 0..shape[1] {
            for file in 0..shape[2] {
                let Some(cell) = self.cell(file, rank) else {
                    continue;
                };
                out[at(shape, 8, rank, file)] = 1.0;
                for (h, piece) in self.stack(cell).pieces().take(MIX_COUNTS).enumerate() {
                    let plane = if piece == me[0] { h } else { MIX_COUNTS + h };
                    out[at(shape, plane, rank, file)] = 1.0;
                }
                let goal = self.goal().max(1) as f32;
                for (i, side) in me.iter().enumerate() {
                    out[at(shape, 9 + i, rank, file)] =
                        self.reserve(*side) as f32 / MIX_RESERVE_SCALE;
                    out[at(shape, 11 + i, rank, file)] = self.score(*side) as f32 / goal;
                }
            }
        }
    }
}

/// Coin Stack and Focus: squares `rank * 8 + file` (a1 = 0, the 64 of the
/// 8 x 8 square, corners included). Drop on square s: `s`; a move of
/// `count` coins `count` squares in direction d from `f`:
/// `64 + (f * 8 + d) * 5 + count - 1`, d = 0..7 for N, NE, E, SE, S, SW, W, NW.
const COIN_DIRECTIONS: [(i32, i32); 8] = [
    (0, 1),
    (1, 1),
    (1, 0),
    (1, -1),
    (0, -1),
    (-1, -1),
    (-1, 0),
    (-1, 1),
];
const COIN_MAX_COUNT: usize = 5;

impl Encode for CoinStack {
    fn num_actions(&self) -> usize {
        COIN_SQUARES + COIN_SQUARES * COIN_DIRECTIONS.len() * COIN_MAX_COUNT
    }

    fn action(&self, mv: Self::Move) -> usize {
        match mv.kind() {
            CoinKind::Drop(square) => square as usize,
            CoinKind::Step { count, from, to } => {
                let size = COIN_SIZE as i32;
                let (f, t) = (from as i32, to as i32);
                let n = (count as i32).max(1);
                let delta = ((t % size - f % size) / n, (t / size - f / size) / n);
                let dir = COIN_DIRECTIONS
                    .iter()
                    .position(|&d| d == delta)
                    .unwrap_or(0);
                let count = (count as usize).clamp(1, COIN_MAX_COUNT);
                COIN_SQUARES
                    + (from as usize * COIN_DIRECTIONS.len() + dir) * COIN_MAX_COUNT
                    + count
                    - 1
            }
        }
    }

    /// Planes 0-4: the mover's coin at height 1-5 (bottom = 1); 5-9: the
    /// opponent's; 10: the board's squares; 11, 12: reserves (mover,
    /// opponent) / 18; 13, 14: captured coins / 18. Row = rank, column = file.
    fn shape(&self) -> [usize; 3] {
        [15, COIN_SIZE, COIN_SIZE]
    }

    fn observe(&self, me: Side, out: &mut [f32]) {
        let shape = self.shape();
        let me = sides(me);
        for rank in 0..COIN_SIZE {
            for file in 0..COIN_SIZE {
                if !on_board(file as i32, rank as i32) {
                    continue;
                }
                out[at(shape, 10, rank, file)] = 1.0;
                let square = (rank * COIN_SIZE + file) as u8;
                for (h, coin) in self.stack(square).pieces().take(COIN_MAX_COUNT).enumerate() {
                    let plane = if coin == me[0] { h } else { COIN_MAX_COUNT + h };
                    out[at(shape, plane, rank, file)] = 1.0;
                }
                for (i, side) in me.iter().enumerate() {
                    out[at(shape, 11 + i, rank, file)] = self.reserve(*side) as f32 / COINS as f32;
                    out[at(shape, 13 + i, rank, file)] = self.captured(*side) as f32 / COINS as f32;
                }
            }
        }
    }
}

/// Silo: the move of the stack on square s (a = 0): `s`; the pass: the
/// number of squares.
impl Encode for Silo {
    fn num_actions(&self) -> usize {
        self.squares() + 1
    }

    fn action(&self, mv: Self::Move) -> usize {
        mv.square().map_or(self.squares(), |s| s as usize)
    }

    /// Plane 0: the mover's checkers, plane 1: the opponent's; row = the
    /// height in the stack (0 = bottom), column = the square; as many rows
    /// as checkers on the board.
    fn shape(&self) -> [usize; 3] {
        let checkers = self.checkers(Side::P1) + self.checkers(Side::P2);
        [2, checkers as usize, self.squares()]
    }

    fn observe(&self, me: Side, out: &mut [f32]) {
        let shape = self.shape();
        for square in 0..self.squares() {
            for (h, side) in self.stack(square).into_iter().take(shape[1]).enumerate() {
                let plane = usize::from(side != me);
                out[at(shape, plane, h, square)] = 1.0;
            }
        }
    }
}

/// Castle conquest: squares `rank * 19 + file` (a1 = 0). A knight's move
/// from square f in direction d (0-3: north, east, south, west) over
/// `dist` squares (1-18): `(f * 4 + d) * 18 + dist - 1`.
const CASTLE_DIRECTIONS: usize = 4;
const CASTLE_MAX_DIST: usize = 18;
/// The most channel passes a side starts with (level 1).
const CASTLE_PASS_SCALE: f32 = 8.0;

impl Encode for Castle {
    fn num_actions(&self) -> usize {
        CASTLE_SQUARES * CASTLE_DIRECTIONS * CASTLE_MAX_DIST
    }

    fn action(&self, mv: Self::Move) -> usize {
        (mv.from() * CASTLE_DIRECTIONS + mv.dir()) * CASTLE_MAX_DIST
            + mv.dist().clamp(1, CASTLE_MAX_DIST)
            - 1
    }

    /// Plane 0: the mover's knights; 1: the opponent's; 2: skulls; 3: the
    /// mover's key square; 4: the opponent's; 5, 6: channel passes left
    /// (mover, opponent) / 8. Row = rank, column = file.
    fn shape(&self) -> [usize; 3] {
        [7, CASTLE_SIZE, CASTLE_SIZE]
    }

    fn observe(&self, me: Side, out: &mut [f32]) {
        let shape = self.shape();
        let me = sides(me);
        let mut put = |plane: usize, sq: usize, value: f32| {
            out[at(shape, plane, sq / CASTLE_SIZE, sq % CASTLE_SIZE)] = value;
        };
        for (i, side) in me.iter().enumerate() {
            for sq in self.knights(*side).squares() {
                put(i, sq, 1.0);
            }
            put(3 + i, KEY_SQUARE[side.index()], 1.0);
            let passes = self.passes(*side) as f32 / CASTLE_PASS_SCALE;
            for sq in 0..CASTLE_SQUARES {
                put(5 + i, sq, passes);
            }
        }
        for sq in self.skull_squares() {
            put(2, sq, 1.0);
        }
    }
}
