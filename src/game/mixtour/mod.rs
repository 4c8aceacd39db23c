//! Mixtour (Dieter Stein): enter pieces, move the top of any stack exactly as
//! far as the target is high, and score by building a tower of five.
//! The rules are in `shared/rules/mixtour.md`; each is implemented below and
//! its interpretation written where it is implemented.

pub mod eval;
mod notation;
pub mod tables;
#[cfg(test)]
mod tests;

use std::fmt;

use super::{FenError, Game, GameResult, MoveError, Outcome, Side};
use tables::{shift, takeback_key, BOARD, KEYS, LINES, SOURCES, SQUARES};

pub use notation::{parse_square, square_name};

/// Reserve size and goal. The board is always 5 x 5.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MixtourVariant {
    pub reserve: u8,
    pub goal: u8,
}

impl MixtourVariant {
    /// The standard game: 20 pieces each, one tower wins.
    pub const STANDARD: MixtourVariant = MixtourVariant {
        reserve: 20,
        goal: 1,
    };
    /// `mixtour-5`, the French rules text: 25 pieces each, five points win.
    pub const FIVE_POINTS: MixtourVariant = MixtourVariant {
        reserve: 25,
        goal: 5,
    };
}

/// A stack as one byte: a sentinel bit at position `height`, and below it one
/// bit per piece from the bottom (0 = player 1, 1 = player 2). The empty
/// stack is `1`; a legal stack code is below 32.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Stack(u8);

impl Stack {
    pub const EMPTY: Stack = Stack(1);

    #[inline]
    pub fn height(self) -> u32 {
        7 - self.0.leading_zeros()
    }

    pub fn is_empty(self) -> bool {
        self.0 == 1
    }

    /// The owner of the top piece, if any.
    pub fn top(self) -> Option<Side> {
        let h = self.height();
        (h > 0).then(|| piece_side((self.0 >> (h - 1)) & 1))
    }

    /// The owner of piece `i` counted from the bottom.
    pub fn piece(self, i: u32) -> Side {
        piece_side((self.0 >> i) & 1)
    }

    /// Pieces from bottom to top.
    pub fn pieces(self) -> impl Iterator<Item = Side> {
        (0..self.height()).map(move |i| self.piece(i))
    }

    pub fn from_pieces(pieces: &[Side]) -> Stack {
        debug_assert!(pieces.len() <= 4);
        let mut code = 1u8 << pieces.len();
        for (i, &p) in pieces.iter().enumerate() {
            code |= (p.index() as u8) << i;
        }
        Stack(code)
    }

    pub fn code(self) -> u8 {
        self.0
    }
}

fn piece_side(bit: u8) -> Side {
    if bit == 0 {
        Side::P1
    } else {
        Side::P2
    }
}

impl fmt::Debug for Stack {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return f.write_str("x");
        }
        self.pieces().try_for_each(|p| write!(f, "{}", p.digit()))
    }
}

/// A move packed in 16 bits: target or entry square in bits 0..5, source in
/// 5..10, piece count in 10..13, kind in 13..15 (never zero).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Move(std::num::NonZeroU16);

const KIND_PLACE: u16 = 1 << 13;
const KIND_STACK: u16 = 2 << 13;
const KIND_PASS: u16 = 3 << 13;

/// A move in readable form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveKind {
    /// Enter a piece from the reserve onto an empty square.
    Place(u8),
    /// Move the top `count` pieces from `from` onto the stack at `to`.
    Stack {
        count: u8,
        from: u8,
        to: u8,
    },
    Pass,
}

impl Move {
    pub const PASS: Move = Move::from_bits(KIND_PASS);

    const fn from_bits(bits: u16) -> Move {
        match std::num::NonZeroU16::new(bits) {
            Some(b) => Move(b),
            None => panic!("a move is never zero"),
        }
    }

    pub const fn place(square: u8) -> Move {
        Move::from_bits(KIND_PLACE | square as u16)
    }

    pub const fn stack(count: u8, from: u8, to: u8) -> Move {
        Move::from_bits(KIND_STACK | (count as u16) << 10 | (from as u16) << 5 | to as u16)
    }

    pub fn bits(self) -> u16 {
        self.0.get()
    }

    pub fn kind(self) -> MoveKind {
        let b = self.bits();
        match b & (3 << 13) {
            KIND_PLACE => MoveKind::Place((b & 31) as u8),
            KIND_STACK => MoveKind::Stack {
                count: ((b >> 10) & 7) as u8,
                from: ((b >> 5) & 31) as u8,
                to: (b & 31) as u8,
            },
            _ => MoveKind::Pass,
        }
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// A Mixtour position: 64 bytes, copied to make a move.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Mixtour {
    stacks: [Stack; SQUARES],
    /// Squares holding a stack of height >= 1, >= 2, >= 3, >= 4.
    at_least: [u32; 4],
    /// Squares whose top piece is player 2's.
    p2_top: u32,
    reserves: [u8; 2],
    scores: [u8; 2],
    goal: u8,
    side: Side,
    /// Passes played in a row just before this position (0, 1 or 2).
    passes: u8,
    /// The previous move: the FEN's `last` field and the take-back rule.
    last: Option<Move>,
    hash: u64,
}

impl Mixtour {
    /// An empty board with the given reserves and goal, player 1 to move.
    pub fn empty(variant: MixtourVariant) -> Mixtour {
        let mut pos = Mixtour {
            stacks: [Stack::EMPTY; SQUARES],
            at_least: [0; 4],
            p2_top: 0,
            reserves: [variant.reserve; 2],
            scores: [0; 2],
            goal: variant.goal,
            side: Side::P1,
            passes: 0,
            last: None,
            hash: 0,
        };
        pos.hash = pos.compute_hash();
        pos
    }

    pub fn stack(&self, square: u8) -> Stack {
        self.stacks[square as usize]
    }

    pub fn height(&self, square: u8) -> u32 {
        self.stacks[square as usize].height()
    }

    pub fn occupied(&self) -> u32 {
        self.at_least[0]
    }

    /// Squares whose stack is at least `h` high (1..=4).
    pub fn at_least(&self, h: usize) -> u32 {
        self.at_least[h - 1]
    }

    /// Squares whose top piece belongs to `side`.
    pub fn tops(&self, side: Side) -> u32 {
        match side {
            Side::P1 => self.at_least[0] & !self.p2_top,
            Side::P2 => self.p2_top,
        }
    }

    pub fn reserve(&self, side: Side) -> u8 {
        self.reserves[side.index()]
    }

    pub fn score(&self, side: Side) -> u8 {
        self.scores[side.index()]
    }

    pub fn goal(&self) -> u8 {
        self.goal
    }

    pub fn last_move(&self) -> Option<Move> {
        self.last
    }

    /// Pieces of `side` on the board.
    pub fn pieces_on_board(&self, side: Side) -> u32 {
        self.stacks
            .iter()
            .flat_map(|s| s.pieces())
            .filter(|&p| p == side)
            .count() as u32
    }

    /// The move the take-back rule forbids now: the opponent's last stack
    /// move reversed. A placement or a pass forbids nothing.
    pub fn forbidden(&self) -> Option<Move> {
        match self.last?.kind() {
            MoveKind::Stack { count, from, to } => Some(Move::stack(count, to, from)),
            _ => None,
        }
    }

    /// Puts `stack` on `square`, keeping bitboards and hash in step.
    #[inline(always)]
    fn set(&mut self, square: u8, stack: Stack) {
        let sq = square as usize;
        self.hash ^= KEYS.stack[sq][self.stacks[sq].0 as usize] ^ KEYS.stack[sq][stack.0 as usize];
        self.stacks[sq] = stack;
        let bit = 1u32 << sq;
        let h = stack.height();
        for (i, plane) in self.at_least.iter_mut().enumerate() {
            *plane = (*plane & !bit) | if h > i as u32 { bit } else { 0 };
        }
        let p2 = h > 0 && stack.0 >> (h - 1) & 1 == 1;
        self.p2_top = (self.p2_top & !bit) | if p2 { bit } else { 0 };
    }

    fn set_reserve(&mut self, side: Side, n: u8) {
        let i = side.index();
        self.hash ^= KEYS.reserve[i][self.reserves[i] as usize] ^ KEYS.reserve[i][n as usize];
        self.reserves[i] = n;
    }

    fn set_score(&mut self, side: Side, n: u8) {
        let i = side.index();
        self.hash ^= KEYS.score[i][self.scores[i] as usize] ^ KEYS.score[i][n as usize];
        self.scores[i] = n;
    }

    fn set_last(&mut self, last: Option<Move>, passes: u8) {
        self.hash ^= self.last_key() ^ KEYS.passes[self.passes as usize];
        self.last = last;
        self.passes = passes;
        self.hash ^= self.last_key() ^ KEYS.passes[self.passes as usize];
    }

    /// Only a stack move constrains the next turn, so only it is hashed.
    fn last_key(&self) -> u64 {
        match self.last {
            Some(mv) if matches!(mv.kind(), MoveKind::Stack { .. }) => takeback_key(mv.bits()),
            _ => 0,
        }
    }

    /// The hash recomputed from scratch (the incremental one must equal it).
    pub fn compute_hash(&self) -> u64 {
        let mut h = 0;
        for (sq, s) in self.stacks.iter().enumerate() {
            h ^= KEYS.stack[sq][s.0 as usize];
        }
        if self.side == Side::P2 {
            h ^= KEYS.side;
        }
        for side in Side::BOTH {
            let i = side.index();
            h ^=
                KEYS.reserve[i][self.reserves[i] as usize] ^ KEYS.score[i][self.scores[i] as usize];
        }
        h ^ self.last_key() ^ KEYS.passes[self.passes as usize]
    }

    /// Whether moving `count` pieces from `from` onto `to` is allowed by the
    /// geometry: a stack of at least `count` pieces at `from`, a stack at `to`
    /// exactly as high as the distance along a line, nothing in between.
    /// (The take-back rule is checked separately.)
    #[inline]
    pub fn stack_move_fits(&self, count: u8, from: u8, to: u8) -> bool {
        let (f, t) = (from as usize, to as usize);
        let distance = LINES.distance[f][t] as u32;
        distance != 0
            && self.stacks[f].height() >= count as u32
            && count >= 1
            && self.stacks[t].height() == distance
            && LINES.between[f][t] & self.occupied() == 0
    }

    /// Stacks exactly 1, 2, 3 and 4 high.
    #[inline]
    pub fn exact_heights(&self) -> [u32; 4] {
        [
            self.at_least[0] & !self.at_least[1],
            self.at_least[1] & !self.at_least[2],
            self.at_least[2] & !self.at_least[3],
            self.at_least[3],
        ]
    }

    /// For direction `d`: per target height k (index k-1), the squares from
    /// which a stack can move onto a target of height k that lies k squares
    /// away in the direction opposite to `d`. Found by walking from every
    /// target of height k along `d` over k-1 empty squares onto a stack.
    /// A source has at most one target per direction (the first stack it
    /// meets), so the four sets are disjoint.
    #[inline(always)]
    pub fn sources_towards(&self, d: usize, exact: &[u32; 4]) -> [u32; 4] {
        match d {
            0 => self.sources_dir::<0>(exact),
            1 => self.sources_dir::<1>(exact),
            2 => self.sources_dir::<2>(exact),
            3 => self.sources_dir::<3>(exact),
            4 => self.sources_dir::<4>(exact),
            5 => self.sources_dir::<5>(exact),
            6 => self.sources_dir::<6>(exact),
            _ => self.sources_dir::<7>(exact),
        }
    }

    /// `sources_towards` with the direction known at compile time, so every
    /// shift is two instructions and the walk is straight-line code.
    #[inline(always)]
    fn sources_dir<const D: usize>(&self, exact: &[u32; 4]) -> [u32; 4] {
        let occ = self.occupied();
        let empty = !occ & BOARD;
        let step = |b: u32| shift(b, D);
        let one = step(exact[0]);
        let two = step(step(exact[1]) & empty);
        let three = step(step(step(exact[2]) & empty) & empty);
        let four = step(step(step(step(exact[3]) & empty) & empty) & empty);
        [one & occ, two & occ, three & occ, four & occ]
    }

    /// All sources with a target in direction `D` (any height).
    #[inline(always)]
    fn movable_dir<const D: usize>(&self, exact: &[u32; 4]) -> u64 {
        let [a, b, c, e] = self.sources_dir::<D>(exact);
        (a | b | c | e) as u64
    }

    /// Number of stack moves, counted from the bitboards: each source with a
    /// target in a direction offers one move per piece it holds. Two
    /// directions share one 64-bit word so each popcount does double work.
    #[inline]
    fn count_stack_moves(&self) -> u32 {
        let exact = self.exact_heights();
        let pairs = [
            self.movable_dir::<0>(&exact) | self.movable_dir::<1>(&exact) << 32,
            self.movable_dir::<2>(&exact) | self.movable_dir::<3>(&exact) << 32,
            self.movable_dir::<4>(&exact) | self.movable_dir::<5>(&exact) << 32,
            self.movable_dir::<6>(&exact) | self.movable_dir::<7>(&exact) << 32,
        ];
        let wide = |b: u32| b as u64 | (b as u64) << 32;
        let (h2, h3, h4) = (
            wide(self.at_least[1]),
            wide(self.at_least[2]),
            wide(self.at_least[3]),
        );
        pairs
            .iter()
            .map(|&p| {
                p.count_ones()
                    + (p & h2).count_ones()
                    + (p & h3).count_ones()
                    + (p & h4).count_ones()
            })
            .sum()
    }

    fn forbidden_is_playable(&self) -> bool {
        match self.forbidden().map(Move::kind) {
            Some(MoveKind::Stack { count, from, to }) => self.stack_move_fits(count, from, to),
            _ => false,
        }
    }

    fn place(&mut self, square: u8) {
        let side = self.side;
        self.set(square, Stack::from_pieces(&[side]));
        self.set_reserve(side, self.reserve(side) - 1);
    }

    fn move_stack(&mut self, count: u8, from: u8, to: u8) {
        let source = self.stacks[from as usize];
        let target = self.stacks[to as usize];
        let (hs, ht, n) = (source.height(), target.height(), count as u32);
        // The top n pieces as a stack code of their own (sentinel at bit n).
        let segment = (source.0 >> (hs - n)) as u16;
        let left = Stack((source.0 & ((1 << (hs - n)) - 1)) | 1 << (hs - n));
        let joined = (target.0 as u16 ^ 1 << ht) | segment << ht;
        let height = ht + n;
        self.set(from, left);
        if height >= 5 {
            // Rule: a stack of five or more leaves the board at once; every
            // piece goes back to its owner's reserve, and the owner of the top
            // piece scores a point.
            let colours = joined & ((1 << height) - 1);
            let p2 = colours.count_ones() as u8;
            let p1 = height as u8 - p2;
            self.set(to, Stack::EMPTY);
            self.set_reserve(Side::P1, self.reserve(Side::P1).saturating_add(p1));
            self.set_reserve(Side::P2, self.reserve(Side::P2).saturating_add(p2));
            let top = piece_side(((colours >> (height - 1)) & 1) as u8);
            self.set_score(top, self.score(top).saturating_add(1));
        } else {
            self.set(to, Stack(joined as u8));
        }
    }

    fn debug_check(&self) {
        debug_assert_eq!(self.hash, self.compute_hash(), "incremental hash drifted");
        debug_assert!(self.stacks.iter().all(|s| s.0 < 32), "a stack above four");
    }
}

impl Game for Mixtour {
    type Move = Move;
    type Variant = MixtourVariant;

    fn start(variant: &MixtourVariant) -> Mixtour {
        Mixtour::empty(*variant)
    }

    fn from_fen(variant: &MixtourVariant, fen: &str) -> Result<Mixtour, FenError> {
        let _ = variant; // the position string carries reserves and goal itself
        notation::parse_fen(fen)
    }

    fn fen(&self) -> String {
        notation::write_fen(self)
    }

    fn side_to_move(&self) -> Side {
        self.side
    }

    /// Rules as implemented:
    /// - enter: only with a non-empty reserve, only onto an empty square;
    /// - move: the top n pieces (1..=height) of any stack, whoever owns it,
    ///   along one of 8 lines onto a stack exactly as many squares away as it
    ///   is high, over empty squares only; never onto an empty square;
    /// - the take-back rule: not the opponent's last stack move reversed
    ///   (same count, swapped squares) in the very next turn;
    /// - pass: when nothing else is legal, and only then.
    fn generate_moves(&self, moves: &mut Vec<Move>) {
        let start = moves.len();
        if self.reserve(self.side) > 0 {
            let mut empty = !self.occupied() & BOARD;
            while empty != 0 {
                moves.push(Move::place(empty.trailing_zeros() as u8));
                empty &= empty - 1;
            }
        }
        let occ = self.occupied();
        let forbidden = self.forbidden();
        let mut targets = occ;
        while targets != 0 {
            let to = targets.trailing_zeros() as usize;
            targets &= targets - 1;
            let h = self.stacks[to].height() as usize;
            let rays = &SOURCES.rays[to][h][..SOURCES.len[to][h] as usize];
            for ray in rays {
                if occ & (1 << ray.source) != 0 && occ & ray.between == 0 {
                    for count in 1..=self.stacks[ray.source as usize].height() as u8 {
                        let mv = Move::stack(count, ray.source, to as u8);
                        if Some(mv) != forbidden {
                            moves.push(mv);
                        }
                    }
                }
            }
        }
        if moves.len() == start {
            moves.push(Move::PASS);
        }
    }

    fn count_moves(&self) -> u64 {
        let placements = if self.reserve(self.side) > 0 {
            (!self.occupied() & BOARD).count_ones()
        } else {
            0
        };
        let n = placements + self.count_stack_moves() - self.forbidden_is_playable() as u32;
        n.max(1) as u64 // nothing legal: the pass
    }

    fn play(&mut self, mv: Move) {
        let passes = match mv.kind() {
            MoveKind::Place(square) => {
                self.place(square);
                0
            }
            MoveKind::Stack { count, from, to } => {
                self.move_stack(count, from, to);
                0
            }
            MoveKind::Pass => self.passes + 1,
        };
        self.set_last(Some(mv), passes.min(2));
        self.side = self.side.opponent();
        self.hash ^= KEYS.side;
        self.debug_check();
    }

    fn hash(&self) -> u64 {
        self.hash
    }

    /// The rules' "same position" is stacks, side, reserves, scores and the
    /// forbidden take-back: whether a pass was just played is not part of it,
    /// although it is part of the hash (it decides whether a pass ends the game).
    fn repetition_key(&self) -> u64 {
        self.hash ^ KEYS.passes[self.passes as usize]
    }

    fn outcome(&self) -> Outcome {
        for side in Side::BOTH {
            // Rule: reaching the goal wins at once.
            if self.score(side) >= self.goal {
                return Outcome::Over {
                    result: GameResult::win_for(side),
                    reason: "goal reached",
                };
            }
        }
        // Rule: both players passing in a row is a draw.
        if self.passes >= 2 {
            return Outcome::Over {
                result: GameResult::Draw,
                reason: "double pass",
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
        eval::evaluate(self)
    }

    fn is_noisy(&self, mv: Move) -> bool {
        match mv.kind() {
            MoveKind::Stack { count, to, .. } => self.height(to) + count as u32 >= 5,
            _ => false,
        }
    }

    /// A pass changes nothing but the turn (and lifts the take-back ban).
    fn null_move(&self) -> Option<Move> {
        Some(Move::PASS)
    }

    fn pretty(&self) -> String {
        notation::pretty(self)
    }
}

impl fmt::Debug for Mixtour {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Mixtour({})", self.fen())
    }
}
