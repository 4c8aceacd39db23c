//! Mixtour (Dieter Stein): enter pieces, move the top of any stack exactly as
//! far as the target is high, and score by building a tower of five; on the
//! standard 5 x 5 board or on any board of StackAndConquer's (up to 10 x 10,
//! with holes). The rules are in `docs/rules/mixtour.md`; each is implemented
//! below and its interpretation written where it is implemented.

pub mod ap;
pub mod board;
pub mod eval;
pub mod nnue;
mod notation;
pub mod tables;
#[cfg(test)]
mod tests;

use std::fmt;
use std::marker::PhantomData;

use super::{FenError, Game, GameResult, MoveError, Outcome, Side};
use board::Bits;
pub use board::{Board, Grid, ShapeError, Standard};
use tables::{takeback_key, KEYS};

pub use notation::{parse_square, square_name};

/// Mixtour on the standard 5 x 5 board: the fast path.
pub type Mixtour = Position<Standard>;
/// Mixtour on any board up to 10 x 10 with holes.
pub type MixtourGrid = Position<Grid>;

/// Reserve size and goal of the start position. The board comes from the
/// position string: the start position is the plain 5 x 5 board.
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

/// A stack of at most four pieces (a fifth makes a tower, which is won and
/// leaves the board), coded in one byte: its codes are below 32.
pub type Stack = crate::stack::Stack<4>;

/// A move packed in 16 bits by its board (`Board::pack`), never zero. Cells
/// are the board's cell indices.
pub struct Move<B: Board>(std::num::NonZeroU16, PhantomData<B>);

// By hand: derived impls would ask the board type for them too.
impl<B: Board> Clone for Move<B> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<B: Board> Copy for Move<B> {}
impl<B: Board> PartialEq for Move<B> {
    #[inline(always)]
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}
impl<B: Board> Eq for Move<B> {}
impl<B: Board> std::hash::Hash for Move<B> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.hash(state)
    }
}

/// A move in readable form, with board cell indices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveKind {
    /// Enter a piece from the reserve onto an empty cell.
    Place(u8),
    /// Move the top `count` pieces from `from` onto the stack at `to`.
    Stack {
        count: u8,
        from: u8,
        to: u8,
    },
    Pass,
}

impl<B: Board> Move<B> {
    pub const PASS: Move<B> = match std::num::NonZeroU16::new(B::PASS_BITS) {
        Some(bits) => Move(bits, PhantomData),
        None => panic!("a move is never zero"),
    };

    #[inline(always)]
    pub fn new(kind: MoveKind) -> Move<B> {
        match std::num::NonZeroU16::new(B::pack(kind)) {
            Some(bits) => Move(bits, PhantomData),
            None => unreachable!("a packed move is never zero"),
        }
    }

    #[inline(always)]
    pub fn place(cell: u8) -> Move<B> {
        Move::new(MoveKind::Place(cell))
    }

    #[inline(always)]
    pub fn stack(count: u8, from: u8, to: u8) -> Move<B> {
        Move::new(MoveKind::Stack { count, from, to })
    }

    #[inline(always)]
    pub fn bits(self) -> u16 {
        self.0.get()
    }

    #[inline(always)]
    pub fn kind(self) -> MoveKind {
        B::unpack(self.bits())
    }
}

impl<B: Board> fmt::Debug for Move<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// A Mixtour position, copied to make a move: 64 bytes on the standard
/// board, about 240 on a grid.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Position<B: Board> {
    stacks: B::Stacks,
    /// Cells holding a stack of height >= 1, >= 2, >= 3, >= 4.
    at_least: [B::Bits; 4],
    /// Cells whose top piece is player 2's.
    p2_top: B::Bits,
    /// The shape: nothing at all for the standard board.
    board: B,
    reserves: [u8; 2],
    scores: [u8; 2],
    goal: u8,
    side: Side,
    /// Passes played in a row just before this position (0, 1 or 2).
    passes: u8,
    /// The previous move: the FEN's `last` field and the take-back rule.
    last: Option<Move<B>>,
    hash: u64,
}

impl Mixtour {
    /// The standard board, empty, with the given reserves and goal, player 1 to move.
    pub fn empty(variant: MixtourVariant) -> Mixtour {
        Position::empty_on(Standard, variant)
    }
}

impl<B: Board> Position<B> {
    /// `board`, empty, with the given reserves and goal, player 1 to move.
    pub fn empty_on(board: B, variant: MixtourVariant) -> Position<B> {
        let mut pos = Position {
            stacks: B::EMPTY_STACKS,
            at_least: [B::Bits::ZERO; 4],
            p2_top: B::Bits::ZERO,
            board,
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

    pub fn board(&self) -> &B {
        &self.board
    }

    /// The cell index of `file`, `rank` (from a1 = 0, 0), if it is on the board.
    pub fn cell(&self, file: usize, rank: usize) -> Option<u8> {
        let cell = rank * B::STRIDE + file;
        (file < self.board.files() && rank < self.board.ranks() && self.playable().has(cell))
            .then_some(cell as u8)
    }

    /// The cells of the board.
    #[inline(always)]
    pub fn playable(&self) -> B::Bits {
        self.board.playable()
    }

    pub fn stack(&self, cell: u8) -> Stack {
        self.stacks.as_ref()[cell as usize]
    }

    pub fn height(&self, cell: u8) -> u32 {
        self.stack(cell).height()
    }

    #[inline(always)]
    pub fn occupied(&self) -> B::Bits {
        self.at_least[0]
    }

    /// Cells of the board with no stack.
    #[inline(always)]
    pub fn free(&self) -> B::Bits {
        !self.occupied() & self.playable()
    }

    /// Cells whose stack is at least `h` high (1..=4).
    #[inline(always)]
    pub fn at_least(&self, h: usize) -> B::Bits {
        self.at_least[h - 1]
    }

    /// Cells whose top piece belongs to `side`.
    #[inline(always)]
    pub fn tops(&self, side: Side) -> B::Bits {
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

    pub fn last_move(&self) -> Option<Move<B>> {
        self.last
    }

    /// Pieces of `side` on the board.
    pub fn pieces_on_board(&self, side: Side) -> u32 {
        self.stacks
            .as_ref()
            .iter()
            .flat_map(|s| s.pieces())
            .filter(|&p| p == side)
            .count() as u32
    }

    /// The move the take-back rule forbids now: the opponent's last stack
    /// move reversed. A placement or a pass forbids nothing.
    pub fn forbidden(&self) -> Option<Move<B>> {
        match self.last?.kind() {
            MoveKind::Stack { count, from, to } => Some(Move::stack(count, to, from)),
            _ => None,
        }
    }

    /// Puts `stack` on `cell`, keeping bitboards and hash in step.
    #[inline(always)]
    fn set(&mut self, cell: u8, stack: Stack) {
        let sq = cell as usize;
        let stacks = self.stacks.as_mut();
        self.hash ^= B::stack_key(sq, stacks[sq].code()) ^ B::stack_key(sq, stack.code());
        stacks[sq] = stack;
        let bit = B::Bits::bit(sq);
        let h = stack.height();
        for (i, plane) in self.at_least.iter_mut().enumerate() {
            *plane = (*plane & !bit) | if h > i as u32 { bit } else { B::Bits::ZERO };
        }
        let p2 = stack.top() == Some(Side::P2);
        self.p2_top = (self.p2_top & !bit) | if p2 { bit } else { B::Bits::ZERO };
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

    fn set_last(&mut self, last: Option<Move<B>>, passes: u8) {
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
        let mut h = self.board.shape_key();
        for (sq, s) in self.stacks.as_ref().iter().enumerate() {
            h ^= B::stack_key(sq, s.code());
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
    /// exactly as high as the distance along a line, nothing in between
    /// (neither a stack nor a hole). The take-back rule is checked separately.
    #[inline]
    pub fn stack_move_fits(&self, count: u8, from: u8, to: u8) -> bool {
        let (distance, between) = B::line(from as usize, to as usize);
        distance != 0
            && self.height(from) >= count as u32
            && count >= 1
            && self.height(to) == distance as u32
            && (between & !self.free()).is_empty()
    }

    /// Stacks exactly 1, 2, 3 and 4 high.
    #[inline]
    pub fn exact_heights(&self) -> [B::Bits; 4] {
        [
            self.at_least[0] & !self.at_least[1],
            self.at_least[1] & !self.at_least[2],
            self.at_least[2] & !self.at_least[3],
            self.at_least[3],
        ]
    }

    /// For each direction `d`: per target height k (index k-1), the cells
    /// from which a stack can move onto a target of height k that lies k
    /// cells away in the direction opposite to `d`. Found by walking from
    /// every target of height k along `d` over k-1 free cells onto a stack
    /// (a hole is not free, so it stops the walk). A source has at most one
    /// target per direction (the first stack it meets), so the four sets of
    /// a direction are disjoint.
    #[inline(always)]
    pub fn sources_all(&self, exact: &[B::Bits; 4]) -> [[B::Bits; 4]; 8] {
        [
            self.sources_dir::<0>(exact),
            self.sources_dir::<1>(exact),
            self.sources_dir::<2>(exact),
            self.sources_dir::<3>(exact),
            self.sources_dir::<4>(exact),
            self.sources_dir::<5>(exact),
            self.sources_dir::<6>(exact),
            self.sources_dir::<7>(exact),
        ]
    }

    /// `sources_all` of one direction known at compile time, so every
    /// shift is two instructions and the walk is straight-line code.
    #[inline(always)]
    fn sources_dir<const D: usize>(&self, exact: &[B::Bits; 4]) -> [B::Bits; 4] {
        let occ = self.occupied();
        let free = self.free();
        let step = B::step::<D>;
        let one = step(exact[0]);
        let two = step(step(exact[1]) & free);
        let three = step(step(step(exact[2]) & free) & free);
        let four = step(step(step(step(exact[3]) & free) & free) & free);
        [one & occ, two & occ, three & occ, four & occ]
    }

    /// All sources with a target in direction `D` (any height).
    #[inline(always)]
    fn movable_dir<const D: usize>(&self, exact: &[B::Bits; 4]) -> B::Bits {
        let [a, b, c, e] = self.sources_dir::<D>(exact);
        a | b | c | e
    }

    /// Number of stack moves, counted from the bitboards: each source with a
    /// target in a direction offers one move per piece it holds.
    #[inline(always)] // into both copies of `Game::count_moves` (`cpu::fast`)
    fn count_stack_moves(&self) -> u32 {
        let exact = self.exact_heights();
        let movable = [
            self.movable_dir::<0>(&exact),
            self.movable_dir::<1>(&exact),
            self.movable_dir::<2>(&exact),
            self.movable_dir::<3>(&exact),
            self.movable_dir::<4>(&exact),
            self.movable_dir::<5>(&exact),
            self.movable_dir::<6>(&exact),
            self.movable_dir::<7>(&exact),
        ];
        B::count_from_sources(
            movable,
            [self.at_least[1], self.at_least[2], self.at_least[3]],
        )
    }

    fn forbidden_is_playable(&self) -> bool {
        match self.forbidden().map(Move::kind) {
            Some(MoveKind::Stack { count, from, to }) => self.stack_move_fits(count, from, to),
            _ => false,
        }
    }

    fn place(&mut self, cell: u8) {
        let side = self.side;
        self.set(cell, Stack::single(side));
        self.set_reserve(side, self.reserve(side) - 1);
    }

    fn move_stack(&mut self, count: u8, from: u8, to: u8) {
        let (left, moved) = self.stack(from).split(count as u32);
        let pile = self.stack(to).join(moved);
        self.set(from, left);
        match pile.stack() {
            Some(stack) => self.set(to, stack),
            None => {
                // Rule: a stack of five or more leaves the board at once;
                // every piece goes back to its owner's reserve, and the owner
                // of the top piece scores a point.
                let (p1, p2) = (pile.count(Side::P1) as u8, pile.count(Side::P2) as u8);
                self.set(to, Stack::EMPTY);
                self.set_reserve(Side::P1, self.reserve(Side::P1).saturating_add(p1));
                self.set_reserve(Side::P2, self.reserve(Side::P2).saturating_add(p2));
                // Always some: the pile is at least five high.
                if let Some(top) = pile.top() {
                    self.set_score(top, self.score(top).saturating_add(1));
                }
            }
        }
    }

    fn debug_check(&self) {
        debug_assert_eq!(self.hash, self.compute_hash(), "incremental hash drifted");
        debug_assert!(
            self.stacks
                .as_ref()
                .iter()
                .all(|s| Stack::from_code(s.code()).is_some()),
            "a stack above four"
        );
        debug_assert!(
            (self.occupied() & !self.playable()).is_empty(),
            "a stack off the board"
        );
    }
}

/// The bodies of the hot `Game` methods, inlined into both copies that
/// `cpu::fast` makes of them.
impl<B: Board> Position<B> {
    #[inline(always)]
    fn generate_moves_inline(&self, moves: &mut Vec<Move<B>>) {
        let start = moves.len();
        if self.reserve(self.side) > 0 {
            for cell in self.free().cells() {
                moves.push(Move::place(cell as u8));
            }
        }
        let occ = self.occupied();
        let blocked = !self.free();
        let forbidden = self.forbidden();
        for to in occ.cells() {
            let h = self.stack(to as u8).height() as usize;
            for ray in B::rays(to, h) {
                if occ.has(ray.source as usize) && (blocked & ray.between).is_empty() {
                    for count in 1..=self.height(ray.source) as u8 {
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

    /// A stack move that would complete a tower topped by `side` while
    /// `side` is one point from the goal: a move that wins the game at
    /// once when it is `side`'s turn. The take-back rule never forbids one:
    /// a stack moved back onto its square is no taller than it was there.
    #[inline(always)]
    fn winning_move_for(&self, side: Side) -> Option<Move<B>> {
        if u32::from(self.score(side)) + 1 < u32::from(self.goal) {
            return None;
        }
        let exact = self.exact_heights();
        let tops = self.tops(side);
        let sources = self.sources_all(&exact);
        for (d, by_height) in sources.iter().enumerate() {
            for (k, &s) in by_height.iter().enumerate() {
                // Onto a target of height k + 1, 4 - k pieces make five.
                let need = 4 - k;
                let winners = s & tops & self.at_least(need);
                if winners.is_empty() {
                    continue;
                }
                let from = winners.first();
                let to = B::walk(B::Bits::bit(from), tables::opposite(d), k + 1).first();
                return Some(Move::stack(need as u8, from as u8, to as u8));
            }
        }
        None
    }

    /// The towers quiescence tries (`Game::noisy_moves`).
    #[inline(always)]
    fn towers(&self, moves: &mut Vec<Move<B>>) {
        let them = self.side.opponent();
        let mut tops = self.occupied();
        if u32::from(self.score(them)) + 1 >= u32::from(self.goal) {
            tops &= !self.tops(them);
        }
        let exact = self.exact_heights();
        let sources = self.sources_all(&exact);
        for (d, by_height) in sources.iter().enumerate() {
            for (k, &s) in by_height.iter().enumerate() {
                let need = 4 - k;
                for from in (s & tops & self.at_least(need)).cells() {
                    let to = B::walk(B::Bits::bit(from), tables::opposite(d), k + 1).first();
                    for count in need..=self.height(from as u8) as usize {
                        moves.push(Move::stack(count as u8, from as u8, to as u8));
                    }
                }
            }
        }
    }

    #[inline(always)]
    fn count_moves_inline(&self) -> u64 {
        let placements = if self.reserve(self.side) > 0 {
            self.free().count()
        } else {
            0
        };
        let n = placements + self.count_stack_moves() - self.forbidden_is_playable() as u32;
        n.max(1) as u64 // nothing legal: the pass
    }
}

impl<B: Board> Game for Position<B> {
    type Move = Move<B>;
    type Variant = MixtourVariant;

    /// The plain 5 x 5 board: other boards come from position strings.
    fn start(variant: &MixtourVariant) -> Position<B> {
        Position::empty_on(B::standard(), *variant)
    }

    fn from_fen(variant: &MixtourVariant, fen: &str) -> Result<Position<B>, FenError> {
        let _ = variant; // the position string carries board, reserves and goal itself
        notation::parse_fen(fen)
    }

    fn fen(&self) -> String {
        notation::write_fen(self)
    }

    fn side_to_move(&self) -> Side {
        self.side
    }

    /// Rules as implemented:
    /// - enter: only with a non-empty reserve, only onto an empty cell of
    ///   the board (never onto a hole);
    /// - move: the top n pieces (1..=height) of any stack, whoever owns it,
    ///   along one of 8 lines onto a stack exactly as many cells away as it
    ///   is high, over empty cells only: a hole between blocks the line like
    ///   a stack, so a line that starts next to a hole works as on the edge
    ///   of the board; never onto an empty cell;
    /// - the take-back rule: not the opponent's last stack move reversed
    ///   (same count, swapped squares) in the very next turn;
    /// - pass: when nothing else is legal, and only then.
    fn generate_moves(&self, moves: &mut Vec<Move<B>>) {
        crate::cpu::fast!(self.generate_moves_inline(moves))
    }

    fn count_moves(&self) -> u64 {
        crate::cpu::fast!(self.count_moves_inline())
    }

    fn play(&mut self, mv: Move<B>) {
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

    fn parse_move(&self, text: &str) -> Result<Move<B>, MoveError> {
        notation::parse_move(text)
    }

    fn move_bits(mv: Move<B>) -> u16 {
        mv.bits()
    }

    fn evaluate(&self) -> i32 {
        crate::cpu::fast!(nnue::evaluate(nnue::Nets::built_in(), self))
    }

    type Nets = nnue::Nets;

    fn nets(networks: &crate::Networks) -> Self::Nets {
        networks.mixtour()
    }

    type Eval = nnue::Accumulator;

    fn eval_refresh(&self, nets: &nnue::Nets, state: &mut nnue::Accumulator) {
        nnue::refresh(nets, self, state);
    }

    #[inline]
    fn eval_update(
        &self,
        nets: &nnue::Nets,
        mv: Move<B>,
        child: &Self,
        state: &nnue::Accumulator,
        child_state: &mut nnue::Accumulator,
    ) {
        nnue::update(nets, self, mv, child, state, child_state);
    }

    #[inline]
    fn evaluate_with(&self, nets: &nnue::Nets, state: &nnue::Accumulator) -> i32 {
        nnue::evaluate_with(nets, self, state)
    }

    #[inline(always)]
    fn is_noisy(&self, mv: Move<B>) -> bool {
        match mv.kind() {
            MoveKind::Stack { count, to, .. } => self.height(to) + count as u32 >= 5,
            _ => false,
        }
    }

    /// A stack move that completes a tower topped by the side to move when
    /// one more point reaches the goal.
    fn winning_move(&self) -> Option<Move<B>> {
        crate::cpu::fast!(self.winning_move_for(self.side))
    }

    fn threatened(&self) -> bool {
        crate::cpu::fast!(self.winning_move_for(self.side.opponent()).is_some())
    }

    /// A move that leaves the opponent's winning move S -> T standing is
    /// no parry; any other touches it: it enters a piece between S and T,
    /// or moves pieces from or onto S or T (a forced pass is kept too).
    fn parry_candidates(&self, moves: &mut Vec<Move<B>>) {
        let start = moves.len();
        self.generate_moves(moves);
        let Some(MoveKind::Stack { from: s, to: t, .. }) =
            self.winning_move_for(self.side.opponent()).map(Move::kind)
        else {
            return;
        };
        let (_, between) = B::line(s as usize, t as usize);
        let mut i = 0;
        moves.retain(|m| {
            i += 1;
            i <= start
                || match m.kind() {
                    MoveKind::Place(c) => between.has(c as usize),
                    MoveKind::Stack { from, to, .. } => {
                        [from, to].iter().any(|c| *c == s || *c == t)
                    }
                    MoveKind::Pass => true,
                }
        });
    }

    /// The towers, straight from the bitboards: each source that reaches
    /// a target of height k with at least 5 - k pieces, every count from
    /// 5 - k up; none topped by the opponent when that point would reach
    /// its goal. (The take-back rule never forbids a tower.)
    fn noisy_moves(&self, moves: &mut Vec<Move<B>>) {
        crate::cpu::fast!(self.towers(moves))
    }

    /// A pass changes nothing but the turn (and lifts the take-back ban).
    fn null_move(&self) -> Option<Move<B>> {
        Some(Move::PASS)
    }

    fn pretty(&self) -> String {
        notation::pretty(self)
    }
}

impl<B: Board> fmt::Debug for Position<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Mixtour({})", self.fen())
    }
}
