//! Silo (Mark Steere): on a 1 x N row, move your highest checker of a stack
//! with everything above it one square in your direction; win with all your
//! checkers as one unbroken run in one stack.
//! The rules are in `docs/rules/silo.md`; each is implemented below and its
//! interpretation written where it is implemented.

use crate::zobrist::KeyStream;

mod eval;
mod notation;
pub mod solve;
#[cfg(test)]
mod tests;

use std::fmt;
use std::sync::atomic::AtomicBool;

use super::{FenError, Game, GameResult, MoveError, Outcome, Proof, Side};

pub use notation::{parse_square, square_name};

/// The longest row we represent (files a..p).
pub const MAX_SQUARES: usize = 16;
/// All checkers of both players, one bit each in `Silo::colours`.
pub const MAX_CHECKERS: usize = 128;

/// The row length, which fixes the start position. Rows are even and from 2
/// to `MAX_SQUARES` long (the rules say "N even and at least 2").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SiloVariant {
    squares: u8,
}

impl SiloVariant {
    /// The standard 1 x 6 row, 9 + 9 checkers.
    pub const STANDARD: SiloVariant = SiloVariant { squares: 6 };
    /// `silo-8`: the 1 x 8 row with stacks of 4, 16 + 16 checkers.
    pub const EIGHT: SiloVariant = SiloVariant { squares: 8 };

    /// A row of `squares`, if the rules allow it.
    pub fn new(squares: usize) -> Option<SiloVariant> {
        (squares >= 2 && squares.is_multiple_of(2) && squares <= MAX_SQUARES).then_some(
            SiloVariant {
                squares: squares as u8,
            },
        )
    }

    pub fn squares(self) -> usize {
        self.squares as usize
    }
}

/// A move: the source square (`1 + square`), or the forced pass.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Move(std::num::NonZeroU8);

const PASS_BITS: u8 = 0x80;

impl Move {
    pub const PASS: Move = Move(match std::num::NonZeroU8::new(PASS_BITS) {
        Some(b) => b,
        None => panic!("the pass is never zero"),
    });

    /// The move of the stack on `square` (0 = a).
    pub fn from_square(square: u8) -> Move {
        debug_assert!((square as usize) < MAX_SQUARES);
        Move(std::num::NonZeroU8::MIN.saturating_add(square))
    }

    /// The source square, `None` for the pass.
    pub fn square(self) -> Option<u8> {
        (self != Move::PASS).then(|| self.0.get() - 1)
    }

    pub fn bits(self) -> u16 {
        self.0.get() as u16
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// `n` low bits set (n up to 128).
#[inline]
fn low_bits(n: u32) -> u128 {
    if n >= 128 {
        !0
    } else {
        (1u128 << n) - 1
    }
}

/// A Silo position: 48 bytes, copied to make a move.
///
/// All checkers are listed in reading order (square a bottom to top, then b
/// bottom to top, ...) as one bit string, and the stack heights cut it into
/// squares. A move shifts a contiguous piece of that string, so it is a few
/// shifts and masks.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Silo {
    /// Bit i: colour of checker i in reading order, 1 = Blue (player 2).
    /// Bits at and above the checker total are 0.
    colours: u128,
    heights: [u8; MAX_SQUARES],
    squares: u8,
    /// Checkers per player, fixed for the game.
    counts: [u8; 2],
    side: Side,
    hash: u64,
}

impl Silo {
    /// A position from stacks (bottom to top) and the side to move. The caller
    /// guarantees the limits (`notation::parse_fen` checks them for text).
    fn from_stacks(stacks: &[Vec<Side>], side: Side) -> Silo {
        debug_assert!(stacks.len() <= MAX_SQUARES);
        let mut pos = Silo {
            colours: 0,
            heights: [0; MAX_SQUARES],
            squares: stacks.len() as u8,
            counts: [0; 2],
            side,
            hash: 0,
        };
        let mut i = 0;
        for (sq, stack) in stacks.iter().enumerate() {
            pos.heights[sq] = stack.len() as u8;
            for &c in stack {
                pos.colours |= (c.index() as u128) << i;
                pos.counts[c.index()] += 1;
                i += 1;
            }
        }
        pos.hash = pos.compute_hash();
        pos
    }

    pub fn squares(&self) -> usize {
        self.squares as usize
    }

    /// A position from the colours of all checkers in reading order (bit i
    /// set: checker i is Blue), the stack heights of a row of
    /// `heights.len()` squares and the side to move: the form endgame tables
    /// index. `None` unless the row is legal (even length from 2 to
    /// `MAX_SQUARES`, at most `MAX_CHECKERS` checkers, each side at least
    /// one, no colour bit above the last checker).
    pub fn from_row(colours: u128, heights: &[u8], side: Side) -> Option<Silo> {
        let squares = heights.len();
        SiloVariant::new(squares)?;
        let total: u32 = heights.iter().map(|&h| h as u32).sum();
        if total as usize > MAX_CHECKERS || colours & !low_bits(total) != 0 {
            return None;
        }
        let blue = colours.count_ones();
        if blue == 0 || blue == total || blue > u8::MAX as u32 || total - blue > u8::MAX as u32 {
            return None;
        }
        let mut pos = Silo {
            colours,
            heights: [0; MAX_SQUARES],
            squares: squares as u8,
            counts: [(total - blue) as u8, blue as u8],
            side,
            hash: 0,
        };
        pos.heights[..squares].copy_from_slice(heights);
        pos.hash = pos.compute_hash();
        Some(pos)
    }

    /// The colours of all checkers in reading order (square a bottom to top,
    /// then b, ...), bit i set when checker i is Blue.
    pub fn colour_bits(&self) -> u128 {
        self.colours
    }

    /// The stack heights, square a first.
    pub fn heights(&self) -> &[u8] {
        &self.heights[..self.squares()]
    }

    pub fn height(&self, square: usize) -> usize {
        self.heights[square] as usize
    }

    /// Checkers of `side` on the row (constant during a game).
    pub fn checkers(&self, side: Side) -> u32 {
        self.counts[side.index()] as u32
    }

    fn total(&self) -> u32 {
        self.counts[0] as u32 + self.counts[1] as u32
    }

    /// The stack on `square`, bottom to top.
    pub fn stack(&self, square: usize) -> Vec<Side> {
        let start = self.start_of(square);
        (start..start + self.heights[square] as u32)
            .map(|i| self.colour_at(i))
            .collect()
    }

    fn colour_at(&self, i: u32) -> Side {
        if (self.colours >> i) & 1 == 1 {
            Side::P2
        } else {
            Side::P1
        }
    }

    /// Index in reading order of the bottom checker of `square`.
    #[inline]
    fn start_of(&self, square: usize) -> u32 {
        self.heights[..square].iter().map(|&h| h as u32).sum()
    }

    /// Bits of `side`'s checkers in `colours`.
    #[inline]
    fn own_bits(&self, side: Side) -> u128 {
        match side {
            Side::P1 => !self.colours & low_bits(self.total()),
            Side::P2 => self.colours,
        }
    }

    /// Rule: Red moves towards higher files, Blue towards lower ones, so each
    /// has a last square from which it cannot move.
    pub fn last_square(&self, side: Side) -> usize {
        match side {
            Side::P1 => self.squares() - 1,
            Side::P2 => 0,
        }
    }

    /// The square a move of `side` from `square` lands on.
    pub fn target(&self, side: Side, square: usize) -> usize {
        match side {
            Side::P1 => square + 1,
            Side::P2 => square - 1,
        }
    }

    /// Whether `side` may move the stack on `square`: it holds one of its
    /// checkers and the neighbour in its direction exists.
    #[inline]
    pub fn can_move(&self, side: Side, square: usize) -> bool {
        if square >= self.squares() || square == self.last_square(side) {
            return false;
        }
        let start = self.start_of(square);
        let stack = low_bits(start + self.heights[square] as u32) & !low_bits(start);
        self.own_bits(side) & stack != 0
    }

    /// Rule: the win. All of `side`'s checkers form one unbroken run inside
    /// one stack; the other colour may lie below or above the run.
    pub fn has_won(&self, side: Side) -> bool {
        let own = self.own_bits(side);
        if own == 0 {
            return false;
        }
        let lo = own.trailing_zeros();
        let hi = 127 - own.leading_zeros();
        if own.count_ones() != hi - lo + 1 {
            return false;
        }
        // Contiguous in reading order; the run must not cross into the next
        // square: find the square holding checker `lo`.
        let mut end = 0;
        for &h in &self.heights[..self.squares()] {
            end += h as u32;
            if lo < end {
                return hi < end;
            }
        }
        false
    }

    /// The hash recomputed from scratch (the incremental one must equal it).
    pub fn compute_hash(&self) -> u64 {
        let mut h = if self.side == Side::P2 { KEYS.side } else { 0 };
        let mut i = 0;
        for sq in 0..self.squares() {
            for level in 0..self.heights[sq] as usize {
                h ^= KEYS.checker[sq][level][self.colour_at(i).index()];
                i += 1;
            }
        }
        h
    }

    /// Moves the top `k` checkers of `from` (levels `h - k ..h`) to the top of
    /// `to`, updating the hash; `colours` is updated by the caller.
    #[inline]
    fn hash_segment(&mut self, segment: u128, k: u32, from: usize, to: usize) {
        let (hf, ht) = (
            self.heights[from] as usize - k as usize,
            self.heights[to] as usize,
        );
        for j in 0..k as usize {
            let c = ((segment >> j) & 1) as usize;
            self.hash ^= KEYS.checker[from][hf + j][c] ^ KEYS.checker[to][ht + j][c];
        }
    }

    /// Rule: a move takes the mover's HIGHEST checker in the source stack and
    /// every checker above it (all enemy ones), order kept, onto the top of
    /// the neighbouring stack in the mover's direction.
    fn move_stack(&mut self, square: usize) {
        let side = self.side;
        let start = self.start_of(square);
        let end = start + self.heights[square] as u32;
        let own = self.own_bits(side) & low_bits(end) & !low_bits(start);
        debug_assert!(own != 0, "moving a stack without a checker of the mover");
        let p = 127 - own.leading_zeros();
        let k = end - p;
        let segment = (self.colours >> p) & low_bits(k);
        let to = self.target(side, square);
        self.hash_segment(segment, k, square, to);
        match side {
            Side::P1 => {
                // Reading order [p, end + h_to): segment, then the target
                // stack; becomes the target stack, then the segment.
                let ht = self.heights[to] as u32;
                let target = (self.colours >> end) & low_bits(ht);
                let chunk = target | segment << ht;
                let span = low_bits(end + ht) & !low_bits(p);
                self.colours = (self.colours & !span) | chunk << p;
            }
            Side::P2 => {
                // Reading order [start, end): the rest of the source, then the
                // segment; becomes the segment (now on top of the square
                // before), then the rest of the source.
                let rest = (self.colours >> start) & low_bits(p - start);
                let chunk = segment | rest << k;
                let span = low_bits(end) & !low_bits(start);
                self.colours = (self.colours & !span) | chunk << start;
            }
        }
        self.heights[square] -= k as u8;
        self.heights[to] += k as u8;
    }

    fn debug_check(&self) {
        debug_assert_eq!(self.hash, self.compute_hash(), "incremental hash drifted");
        debug_assert_eq!(
            self.colours.count_ones(),
            self.counts[1] as u32,
            "blue checkers not conserved"
        );
        debug_assert_eq!(
            self.heights.iter().map(|&h| h as u32).sum::<u32>(),
            self.total(),
            "checkers not conserved"
        );
        debug_assert_eq!(self.colours & !low_bits(self.total()), 0);
    }
}

/// The body of `Game::generate_moves`, inlined into both copies that
/// `cpu::fast` makes of it.
impl Silo {
    #[inline(always)]
    fn generate_moves_inline(&self, moves: &mut Vec<Move>) {
        let own = self.own_bits(self.side);
        let last = self.last_square(self.side);
        let mut start = 0;
        let before = moves.len();
        for sq in 0..self.squares() {
            let end = start + self.heights[sq] as u32;
            if sq != last && own & low_bits(end) & !low_bits(start) != 0 {
                moves.push(Move::from_square(sq as u8));
            }
            start = end;
        }
        if moves.len() == before {
            moves.push(Move::PASS);
        }
    }
}

impl Game for Silo {
    type Move = Move;
    type Variant = SiloVariant;

    /// Rule: N/2 checkers per square, single-coloured, Red on a, Blue on b,
    /// alternating; Red moves first.
    fn start(variant: &SiloVariant) -> Silo {
        let n = variant.squares();
        let stacks: Vec<Vec<Side>> = (0..n)
            .map(|sq| vec![if sq % 2 == 0 { Side::P1 } else { Side::P2 }; n / 2])
            .collect();
        Silo::from_stacks(&stacks, Side::P1)
    }

    /// The position string gives the row length itself (the rules: "the row
    /// length is the number of squares written"), so any legal row is
    /// accepted whatever the variant; the variant only fixes the start.
    fn from_fen(variant: &SiloVariant, fen: &str) -> Result<Silo, FenError> {
        let _ = variant;
        notation::parse_fen(fen)
    }

    fn fen(&self) -> String {
        notation::write_fen(self)
    }

    fn side_to_move(&self) -> Side {
        self.side
    }

    /// Rules as implemented:
    /// - a move is named by its source square: any square whose stack holds a
    ///   checker of the mover, except the mover's last square (f for Red, a
    ///   for Blue on the standard row), since nothing falls off the row;
    /// - the target may be empty;
    /// - pass: when no square qualifies (all the mover's checkers are on its
    ///   last square), and only then. There is no voluntary pass.
    fn generate_moves(&self, moves: &mut Vec<Move>) {
        crate::cpu::fast!(self.generate_moves_inline(moves))
    }

    fn play(&mut self, mv: Move) {
        if let Some(sq) = mv.square() {
            self.move_stack(sq as usize);
        }
        self.side = self.side.opponent();
        self.hash ^= KEYS.side;
        self.debug_check();
    }

    fn hash(&self) -> u64 {
        self.hash
    }

    /// Rule: checked after every move. A move never completes the opponent's
    /// run (the mover's checker is at the bottom of the moved segment and
    /// only the mover's own run can be joined), so by play only the last
    /// mover can have won. For a position given as text where both
    /// conditions hold, the player who moved last (not to move) has won.
    fn outcome(&self) -> Outcome {
        let last_mover = self.side.opponent();
        for side in [last_mover, self.side] {
            if self.has_won(side) {
                return Outcome::Over {
                    result: GameResult::win_for(side),
                    reason: "one unbroken run",
                };
            }
        }
        Outcome::Ongoing
    }

    // `repetition_outcome` keeps the trait's default: the rules give Silo no
    // draw, but the house rule makes a third repetition a draw.

    fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        notation::parse_move(text, self.squares())
    }

    fn move_bits(mv: Move) -> u16 {
        mv.bits()
    }

    fn evaluate(&self) -> i32 {
        crate::cpu::fast!(eval::evaluate(self))
    }

    type Nets = ();

    fn nets(_: &crate::Networks) {}

    type Eval = ();

    /// Silo has no captures; the only move that changes the result at once is
    /// the one that completes the mover's run.
    #[inline(always)]
    fn is_noisy(&self, mv: Move) -> bool {
        let mut child = *self;
        child.play(mv);
        child.has_won(self.side)
    }

    fn pretty(&self) -> String {
        notation::pretty(self)
    }

    /// Solves the positions reachable from here by retrograde analysis when
    /// they are few enough: then the engine plays the fastest win or the
    /// slowest loss instead of searching.
    fn prove(&self, max_positions: usize, stop: &AtomicBool) -> Proof<Move> {
        let limits = solve::SolveLimits {
            method: solve::Method::Reachable,
            max_positions,
        };
        match solve::solve_until(self, &limits, stop) {
            Ok(solution) => Proof {
                best: solve::best_move(self, &solution.table)
                    .map(|(mv, value)| (mv, value.signed_plies())),
                positions: solution.positions,
            },
            // It enumerated positions up to the limit and stopped there.
            Err(solve::SolveError::TooManyPositions { limit }) => Proof {
                best: None,
                positions: limit as u64,
            },
            // Refused before exploring anything, or stopped: the search
            // after it stops at once too.
            Err(
                solve::SolveError::TooWide { .. }
                | solve::SolveError::NotFullSpace { .. }
                | solve::SolveError::Stopped,
            ) => Proof::default(),
        }
    }
}

/// Consistent with `Eq`: equal positions have equal Zobrist hashes.
impl std::hash::Hash for Silo {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash);
    }
}

impl fmt::Debug for Silo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Silo({})", self.fen())
    }
}

/// Zobrist keys from a fixed seed, built at compile time.
pub struct Keys {
    /// Per square, level in the stack (0 = bottom) and colour.
    pub checker: [[[u64; 2]; MAX_CHECKERS]; MAX_SQUARES],
    pub side: u64,
}

pub static KEYS: Keys = build_keys();

const fn build_keys() -> Keys {
    let mut keys = KeyStream::new(0x5349_4C4F_5349_4C4F); // "SILOSILO"
    let mut checker = [[[0u64; 2]; MAX_CHECKERS]; MAX_SQUARES];
    let mut sq = 0;
    while sq < MAX_SQUARES {
        let mut level = 0;
        while level < MAX_CHECKERS {
            checker[sq][level] = [keys.next(), keys.next()];
            level += 1;
        }
        sq += 1;
    }
    Keys {
        checker,
        side: keys.next(),
    }
}
