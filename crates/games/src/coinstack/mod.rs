//! Coin Stack and Focus (Sid Sackson's Focus, diagonal with a capture win, or
//! orthogonal as published): move the top n coins of a stack you control
//! exactly n squares, drop reserve coins, trim stacks above five from the
//! bottom. The rules are in `docs/rules/coinstack.md`; each is implemented
//! below and its interpretation written where it is implemented.
//!
//! Repetition: the published game has no draw; the house rule (the third
//! occurrence of a position is a draw) is the trait's default
//! `repetition_outcome`, counted by `Line`. Everything that decides the
//! future (stacks, side to move, reserves, captures) is in the hash, so
//! "same position" means the same on all of them.

pub mod eval;
pub mod nnue;
mod notation;
pub mod tables;
#[cfg(test)]
mod tests;

use std::fmt;

use super::{FenError, Game, GameResult, MoveError, Outcome, Side};
use tables::{BOARD, DROPS, KEYS, MAX_HEIGHT, REACH, SIZE, SQUARES, STEPS};

pub use notation::{parse_square, square_name};

/// Coins per side, all on the board at the start.
pub const COINS: u8 = 18;
/// In `coinstack`, capturing this many enemy coins wins at once.
pub const CAPTURE_GOAL: u8 = 9;

/// Which of the two games: they share board, start, drops and trimming, and
/// differ in the move geometry and the capture win.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CoinStackVariant {
    /// The app's game: diagonal moves, 9 captures win.
    CoinStack,
    /// Sackson's Focus: orthogonal moves, no capture win.
    Focus,
}

impl CoinStackVariant {
    /// Index into the geometry tables (`tables::STEPS`, `tables::REACH`).
    #[inline]
    pub fn geometry(self) -> usize {
        match self {
            CoinStackVariant::CoinStack => 0,
            CoinStackVariant::Focus => 1,
        }
    }

    pub fn capture_goal(self) -> Option<u8> {
        match self {
            CoinStackVariant::CoinStack => Some(CAPTURE_GOAL),
            CoinStackVariant::Focus => None,
        }
    }
}

/// A stack of coins (Red is player 1, Green player 2), coded in one byte: a
/// stack on the board is at most five high, so its code is below 64.
pub type Stack = crate::stack::Stack<MAX_HEIGHT>;

/// A move packed in 16 bits: destination in bits 0..6, source in 6..12, coin
/// count in 12..15 (1..=5 for a move), bit 15 for a drop. Never zero.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Move(std::num::NonZeroU16);

const DROP: u16 = 1 << 15;

/// A move in readable form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveKind {
    /// A reserve coin onto a square, empty or not.
    Drop(u8),
    /// The top `count` coins of `from` moved `count` squares onto `to`.
    Step { count: u8, from: u8, to: u8 },
}

impl Move {
    pub fn drop(square: u8) -> Move {
        Move::from_bits(DROP | square as u16)
    }

    pub fn step(count: u8, from: u8, to: u8) -> Move {
        debug_assert!((1..=MAX_HEIGHT as u8).contains(&count));
        Move::from_bits((count as u16) << 12 | (from as u16) << 6 | to as u16)
    }

    const fn from_bits(bits: u16) -> Move {
        // Both constructors set bit 15 or a count >= 1, so this never fires
        // (the tables fill their unused entries with it).
        match std::num::NonZeroU16::new(bits) {
            Some(bits) => Move(bits),
            None => Move(std::num::NonZeroU16::MIN),
        }
    }

    pub fn bits(self) -> u16 {
        self.0.get()
    }

    #[inline]
    pub fn kind(self) -> MoveKind {
        let b = self.bits();
        if b & DROP != 0 {
            MoveKind::Drop((b & 63) as u8)
        } else {
            MoveKind::Step {
                count: ((b >> 12) & 7) as u8,
                from: ((b >> 6) & 63) as u8,
                to: (b & 63) as u8,
            }
        }
    }

    /// The destination square of a move or drop.
    pub fn to(self) -> u8 {
        (self.bits() & 63) as u8
    }

    /// Coins arriving on the destination.
    pub fn count(self) -> u32 {
        match self.kind() {
            MoveKind::Drop(_) => 1,
            MoveKind::Step { count, .. } => count as u32,
        }
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// A Coin Stack or Focus position: about 100 bytes, copied to make a move.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct CoinStack {
    stacks: [Stack; SQUARES],
    occupied: u64,
    /// Occupied squares whose top coin is Green's.
    p2_top: u64,
    reserves: [u8; 2],
    /// `captured[i]`: enemy coins captured by player i+1.
    captured: [u8; 2],
    side: Side,
    variant: CoinStackVariant,
    hash: u64,
}

impl CoinStack {
    /// An empty board, no reserves, Red to move.
    pub fn empty(variant: CoinStackVariant) -> CoinStack {
        let mut pos = CoinStack {
            stacks: [Stack::EMPTY; SQUARES],
            occupied: 0,
            p2_top: 0,
            reserves: [0; 2],
            captured: [0; 2],
            side: Side::P1,
            variant,
            hash: 0,
        };
        pos.hash = pos.compute_hash();
        pos
    }

    pub fn variant(&self) -> CoinStackVariant {
        self.variant
    }

    pub fn stack(&self, square: u8) -> Stack {
        self.stacks[square as usize & 63]
    }

    pub fn occupied(&self) -> u64 {
        self.occupied
    }

    /// Squares whose stack `side` controls (its coin on top).
    #[inline]
    pub fn tops(&self, side: Side) -> u64 {
        match side {
            Side::P1 => self.occupied & !self.p2_top,
            Side::P2 => self.p2_top,
        }
    }

    pub fn reserve(&self, side: Side) -> u8 {
        self.reserves[side.index()]
    }

    /// Enemy coins captured by `side`.
    pub fn captured(&self, side: Side) -> u8 {
        self.captured[side.index()]
    }

    /// Coins of `side` on the board.
    pub fn coins_on_board(&self, side: Side) -> u32 {
        self.stacks.iter().map(|s| s.count(side)).sum()
    }

    /// Coins of `side` still in the game: on the board, in its reserve, or
    /// captured by the opponent (those left the game but are accounted for).
    /// Constant over a game: the debug check after every move compares it.
    pub fn coins_accounted(&self, side: Side) -> u32 {
        self.coins_on_board(side)
            + self.reserve(side) as u32
            + self.captured(side.opponent()) as u32
    }

    /// Puts `stack` on `square`, keeping bitboards and hash in step.
    #[inline]
    fn set(&mut self, square: u8, stack: Stack) {
        let sq = square as usize & 63;
        self.hash ^= KEYS.stack[sq][self.stacks[sq].code() as usize & 63]
            ^ KEYS.stack[sq][stack.code() as usize & 63];
        self.stacks[sq] = stack;
        let bit = 1u64 << sq;
        let h = stack.height();
        let occupied = if h > 0 { bit } else { 0 };
        let green = if stack.top() == Some(Side::P2) {
            bit
        } else {
            0
        };
        self.occupied = (self.occupied & !bit) | occupied;
        self.p2_top = (self.p2_top & !bit) | green;
    }

    /// Counts stay within 0..=18 in any position reached from a valid one
    /// (conservation); the `min` only keeps a bad caller memory safe.
    fn set_reserve(&mut self, side: Side, n: u8) {
        let i = side.index();
        let n = n.min(COINS);
        self.hash ^= KEYS.reserve[i][self.reserves[i] as usize] ^ KEYS.reserve[i][n as usize];
        self.reserves[i] = n;
    }

    fn set_captured(&mut self, side: Side, n: u8) {
        let i = side.index();
        let n = n.min(COINS);
        self.hash ^= KEYS.captured[i][self.captured[i] as usize] ^ KEYS.captured[i][n as usize];
        self.captured[i] = n;
    }

    /// The hash recomputed from scratch (the incremental one must equal it).
    pub fn compute_hash(&self) -> u64 {
        let mut h = 0;
        for (sq, s) in self.stacks.iter().enumerate() {
            h ^= KEYS.stack[sq][s.code() as usize & 63];
        }
        if self.side == Side::P2 {
            h ^= KEYS.side;
        }
        for i in 0..2 {
            h ^= KEYS.reserve[i][self.reserves[i] as usize]
                ^ KEYS.captured[i][self.captured[i] as usize];
        }
        h
    }

    /// Puts the coins of `segment` on top of the stack at `to`, then trims.
    ///
    /// Rule: a stack higher than 5 loses coins from its BOTTOM until it is 5
    /// high; the mover's own coins go to the mover's reserve, the opponent's
    /// are captured by the mover. A drop trims the same way as a move.
    #[inline(always)] // into both copies of `Game::play` (`cpu::fast`)
    fn land(&mut self, to: u8, segment: Stack) {
        let pile = self.stacks[to as usize & 63].join(segment);
        let kept = match pile.stack() {
            Some(stack) => stack,
            None => {
                let (cut, kept) = pile.cut();
                let side = self.side;
                let own = cut.count(side) as u8;
                let enemy = cut.count(side.opponent()) as u8;
                if own > 0 {
                    self.set_reserve(side, self.reserve(side) + own);
                }
                if enemy > 0 {
                    self.set_captured(side, self.captured(side) + enemy);
                }
                kept
            }
        };
        self.set(to, kept);
    }

    #[cfg(debug_assertions)]
    fn debug_check(&self, before: [u32; 2]) {
        debug_assert_eq!(self.hash, self.compute_hash(), "incremental hash drifted");
        debug_assert_eq!(
            before,
            [
                self.coins_accounted(Side::P1),
                self.coins_accounted(Side::P2)
            ],
            "coins not conserved"
        );
        debug_assert!(
            self.stacks
                .iter()
                .all(|s| Stack::from_code(s.code()).is_some()),
            "a stack above five"
        );
        debug_assert_eq!(self.occupied & !BOARD, 0, "a coin off the board");
    }
}

/// Number of moves of the stacks in `own`, from the per-square table.
#[inline]
fn count_steps(pos: &CoinStack, mut own: u64) -> u32 {
    let upto = &REACH[pos.variant.geometry()].upto;
    let mut total = 0;
    while own != 0 {
        let sq = own.trailing_zeros() as usize;
        own &= own - 1;
        total += upto[sq][pos.stacks[sq].height() as usize] as u32;
    }
    total
}

/// The squares holding a stack some count n of which, moved n squares
/// along one of geometry `G`'s lines, lands on a stack of at least 6 - n
/// coins (`at_least` as `noisy_moves_inline` makes it). The geometry a
/// constant, so that every shift is one.
#[inline(always)]
fn trimmers<const G: usize>(at_least: &[u64; 8]) -> u64 {
    let mut trimmers = 0;
    for n in 1..=MAX_HEIGHT {
        trimmers |= at_least[n] & reaching(at_least[MAX_HEIGHT + 1 - n], n, G);
    }
    trimmers
}

/// The squares from which a move of exactly `n` squares along one of
/// `geometry`'s four lines lands on `targets` (squares of the board):
/// `targets` shifted back along each line, less the files the shift would
/// wrap around. The sources `REACH[geometry].dests` gives, for any set.
#[inline(always)]
fn reaching(targets: u64, n: usize, geometry: usize) -> u64 {
    let mut from = 0;
    for &(df, dr) in &STEPS[geometry] {
        let shift = n as i32 * (dr * SIZE as i32 + df);
        let back = if shift > 0 {
            targets >> (shift & 63)
        } else {
            targets << (-shift & 63)
        };
        from |= back & KEEP_FILES[(df + 1) as usize][n];
    }
    from & BOARD
}

/// `KEEP_FILES[df + 1][n]`: the squares whose file plus n * df is a file.
const KEEP_FILES: [[u64; MAX_HEIGHT + 1]; 3] = {
    let mut keep = [[0u64; MAX_HEIGHT + 1]; 3];
    let mut d = 0;
    while d < 3 {
        let mut n = 0;
        while n <= MAX_HEIGHT {
            let mut sq = 0;
            while sq < SQUARES {
                let file = (sq % SIZE) as i32 + (d as i32 - 1) * n as i32;
                if file >= 0 && file < SIZE as i32 {
                    keep[d][n] |= 1 << sq;
                }
                sq += 1;
            }
            n += 1;
        }
        d += 1;
    }
    keep
};

/// The bodies of the hot `Game` methods, inlined into both copies that
/// `cpu::fast` makes of them.
impl CoinStack {
    /// Drops in square order, then the stacks the side controls in square
    /// order, each one's moves by count and then destination: copied from
    /// the tables (`DROPS`, `Reach::moves`).
    #[inline(always)]
    fn generate_moves_inline(&self, moves: &mut Vec<Move>) {
        if self.reserve(self.side) > 0 {
            moves.extend_from_slice(&DROPS);
        }
        let reach = &REACH[self.variant.geometry()];
        let mut own = self.tops(self.side);
        while own != 0 {
            let from = own.trailing_zeros() as usize & 63;
            own &= own - 1;
            let n = reach.upto[from][self.stacks[from].height() as usize] as usize;
            // All of a stack of five's moves, then only the first n kept:
            // a copy of a constant length is a few vector moves, where one
            // of n moves is a call to memmove (and in WebAssembly a call
            // out of the compiled code).
            let len = moves.len();
            moves.extend_from_slice(&reach.moves[from]);
            moves.truncate(len + n);
        }
    }

    /// The noisy moves among `generate_moves_inline`'s, in its order,
    /// without making the others: drops onto stacks of five, and the
    /// moves whose n coins land on a stack of at least 6 - n. A stack is
    /// looked at only if some count of it reaches such a stack
    /// (`trimmers`), and a count move by move only where one of its
    /// destinations (`Reach::dests`) holds one.
    #[inline(always)]
    fn noisy_moves_inline(&self, moves: &mut Vec<Move>) {
        let at_least = self.at_least();
        if self.reserve(self.side) > 0 {
            let mut fives = at_least[MAX_HEIGHT];
            while fives != 0 {
                moves.push(Move::drop(fives.trailing_zeros() as u8));
                fives &= fives - 1;
            }
        }
        let geometry = self.variant.geometry();
        let reach = &REACH[geometry];
        // Most stacks reach no stack they could trim: all at once, the
        // stacks some count n of which lands on a stack of 6 - n or more.
        let trimmers = match geometry {
            0 => trimmers::<0>(&at_least),
            _ => trimmers::<1>(&at_least),
        };
        let mut own = self.tops(self.side) & trimmers;
        while own != 0 {
            let from = own.trailing_zeros() as usize & 63;
            own &= own - 1;
            let height = (self.stacks[from].height() as usize).clamp(1, MAX_HEIGHT);
            for n in 1..=height {
                let targets = at_least[MAX_HEIGHT + 1 - n];
                if reach.dests[from][n] & targets == 0 {
                    continue;
                }
                let (first, end) = (reach.upto[from][n - 1], reach.upto[from][n]);
                for &mv in &reach.moves[from][first as usize..end as usize] {
                    if targets & 1 << mv.to() != 0 {
                        moves.push(mv);
                    }
                }
            }
        }
    }

    /// `at_least[k]`: the squares holding a stack of at least k coins, k =
    /// 1..=5 (a stack's height is at most five; 7 masks the index).
    #[cfg(not(all(target_family = "wasm", target_feature = "simd128")))]
    #[inline(always)]
    fn at_least(&self) -> [u64; 8] {
        let mut at_least = [0u64; 8];
        let mut occupied = self.occupied;
        while occupied != 0 {
            let sq = occupied.trailing_zeros() as usize & 63;
            occupied &= occupied - 1;
            at_least[self.stacks[sq].height() as usize & 7] |= 1 << sq;
        }
        for k in (1..MAX_HEIGHT).rev() {
            at_least[k] |= at_least[k + 1];
        }
        at_least
    }

    /// `at_least` sixteen squares at a time: a stack is at least k coins
    /// high when its code is at least 2^k (the sentinel bit; an empty or
    /// off-board square's code is 1), so each mask is a byte comparison and
    /// a `bitmask` per sixteen squares. V8 compiles the loop over the
    /// occupied squares above into some 12 instructions a square, with a
    /// stack check in each turn. Only the browser build runs it:
    /// tests/site-e2e checks that its `bench` counts the native nodes.
    #[cfg(all(target_family = "wasm", target_feature = "simd128"))]
    #[inline(always)]
    fn at_least(&self) -> [u64; 8] {
        use core::arch::wasm32::*;
        let codes: [u8; SQUARES] = self.stacks.map(Stack::code);
        let word = |i: usize| u64::from_le_bytes(core::array::from_fn(|b| codes[8 * i + b]));
        let v: [v128; 4] = core::array::from_fn(|j| u64x2(word(2 * j), word(2 * j + 1)));
        // Codes are below 64: a signed comparison is an unsigned one.
        let at_least = |k: u32| -> u64 {
            let below = i8x16_splat((1i8 << k) - 1);
            (0..4).fold(0, |mask, j| {
                mask | u64::from(i8x16_bitmask(i8x16_gt(v[j], below))) << (16 * j)
            })
        };
        [
            0,
            at_least(1),
            at_least(2),
            at_least(3),
            at_least(4),
            at_least(5),
            0,
            0,
        ]
    }

    /// Drops (52 with a reserve) plus, per controlled stack, the table count
    /// of on-board destinations for n = 1..=height: no move is materialised.
    #[inline(always)]
    fn count_moves_inline(&self) -> u64 {
        let drops = if self.reserve(self.side) > 0 {
            BOARD.count_ones()
        } else {
            0
        };
        (drops + count_steps(self, self.tops(self.side))) as u64
    }

    #[inline(always)]
    fn play_inline(&mut self, mv: Move) {
        #[cfg(debug_assertions)]
        let before = [
            self.coins_accounted(Side::P1),
            self.coins_accounted(Side::P2),
        ];
        let side = self.side;
        match mv.kind() {
            MoveKind::Drop(to) => {
                self.set_reserve(side, self.reserve(side).saturating_sub(1));
                self.land(to, Stack::single(side));
            }
            MoveKind::Step { count, from, to } => {
                let source = self.stacks[from as usize & 63];
                let (left, segment) = source.split((count as u32).min(source.height()));
                self.set(from, left);
                self.land(to, segment);
            }
        }
        self.side = side.opponent();
        self.hash ^= KEYS.side;
        #[cfg(debug_assertions)]
        self.debug_check(before);
    }
}

impl Game for CoinStack {
    type Move = Move;
    type Variant = CoinStackVariant;

    /// Rule: one coin per square of the 6 x 6 centre in the Focus pattern,
    /// arm squares empty, reserves and captures 0, Red to move.
    fn start(variant: &CoinStackVariant) -> CoinStack {
        let mut pos = CoinStack::empty(*variant);
        for rank in 1..7 {
            for file in 1..7 {
                // Pairs of files alternate R R G G R R along rank 2, and each
                // rank above is the one below with colours swapped.
                let green = ((file - 1) / 2 == 1) != (rank % 2 == 0);
                let side = if green { Side::P2 } else { Side::P1 };
                pos.set((rank * SIZE + file) as u8, Stack::single(side));
            }
        }
        pos.hash = pos.compute_hash();
        pos
    }

    fn from_fen(variant: &CoinStackVariant, fen: &str) -> Result<CoinStack, FenError> {
        notation::parse_fen(*variant, fen)
    }

    fn fen(&self) -> String {
        notation::write_fen(self)
    }

    fn side_to_move(&self) -> Side {
        self.side
    }

    /// Rules as implemented:
    /// - move: from a stack whose top coin is the mover's, the top n coins
    ///   (1 <= n <= height) exactly n squares along one of four lines
    ///   (diagonal in `coinstack`, orthogonal in `focus`), jumping over
    ///   anything, onto any of the 52 squares, empty or not; a destination
    ///   off the 52 squares (in a cut corner or past the edge) is no move;
    /// - drop: with a non-empty reserve, one coin onto any of the 52 squares;
    /// - no pass: a player with nothing to do has lost (see `outcome`), so
    ///   such a position generates no moves.
    ///
    /// A count fixes the distance, so a move is just (from, to) and no two
    /// generated moves coincide.
    fn generate_moves(&self, moves: &mut Vec<Move>) {
        crate::cpu::fast!(self.generate_moves_inline(moves))
    }

    fn count_moves(&self) -> u64 {
        crate::cpu::fast!(self.count_moves_inline())
    }

    fn noisy_moves(&self, moves: &mut Vec<Move>) {
        crate::cpu::fast!(self.noisy_moves_inline(moves))
    }

    fn play(&mut self, mv: Move) {
        crate::cpu::fast!(self.play_inline(mv))
    }

    fn hash(&self) -> u64 {
        self.hash
    }

    /// Rules as implemented:
    /// - `coinstack`: a player with 9 or more captured enemy coins has won,
    ///   checked first (a win "as soon as" it happens, even if the opponent
    ///   would also be out of actions);
    /// - both: the side to move controlling no stack and holding no reserve
    ///   has lost. A controlled stack always has a move (every square has an
    ///   on-board neighbour along both geometries), so "no legal action" and
    ///   "no stack and no reserve" are the same thing.
    fn outcome(&self) -> Outcome {
        if let Some(goal) = self.variant.capture_goal() {
            for side in Side::BOTH {
                if self.captured(side) >= goal {
                    return Outcome::Over {
                        result: GameResult::win_for(side),
                        reason: "nine coins captured",
                    };
                }
            }
        }
        if self.reserve(self.side) == 0 && self.tops(self.side) == 0 {
            return Outcome::Over {
                result: GameResult::win_for(self.side.opponent()),
                reason: "no legal action",
            };
        }
        Outcome::Ongoing
    }

    fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        notation::parse_move(text)
    }

    fn move_bits(mv: Move) -> u16 {
        mv.bits()
    }

    fn evaluate(&self) -> i32 {
        crate::cpu::fast!(nnue::evaluate(nnue::Nets::built_in(), self))
    }

    type Nets = nnue::Nets;

    fn nets(networks: &crate::Networks) -> Self::Nets {
        networks.focus()
    }

    type Eval = nnue::Accumulator;

    fn eval_refresh(&self, nets: &nnue::Nets, state: &mut nnue::Accumulator) {
        nnue::refresh(nets, self, state);
    }

    #[inline]
    fn eval_update(
        &self,
        nets: &nnue::Nets,
        mv: Move,
        child: &Self,
        state: &nnue::Accumulator,
        child_state: &mut nnue::Accumulator,
    ) {
        crate::cpu::fast!(nnue::update(nets, self, mv, child, state, child_state));
    }

    #[inline]
    fn evaluate_with(&self, nets: &nnue::Nets, state: &nnue::Accumulator) -> i32 {
        crate::cpu::fast!(nnue::evaluate_with(nets, self, state))
    }

    /// A move or drop that makes the destination higher than five trims it,
    /// which captures or refills the reserve.
    #[inline(always)]
    fn is_noisy(&self, mv: Move) -> bool {
        self.stack(mv.to()).height() + mv.count() > MAX_HEIGHT as u32
    }

    fn pretty(&self) -> String {
        notation::pretty(self)
    }
}

impl fmt::Debug for CoinStack {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CoinStack({:?}, {})", self.variant, self.fen())
    }
}
