//! Castle conquest ("A la conquete du chateau", after Dobyvani hradu, 1984):
//! knights slide like rooks over ground or along castle walls, climb and
//! descend one square, pay channel and skull passes, and win by the enemy key,
//! by the last capture, or by the no-draw decision.
//!
//! The rules are in `docs/rules/castle.md`; each is implemented below and
//! its interpretation written where it is implemented.
//!
//! Levels: the rules give three levels that differ only in the passes each
//! side starts with (8, 7, 6). They are three registry names, `castle`
//! (level 1, the default), `castle-2` and `castle-3`, sharing this one type
//! with a `CastleVariant { passes }`. The level only picks the start
//! position: a position string carries the passes left itself, so any
//! string loads under any level (as Mixtour's reserves do).

pub mod eval;
pub mod layout;
mod notation;
pub mod tables;
#[cfg(test)]
mod tests;

use std::fmt;
use std::num::NonZeroU16;

use super::{FenError, Game, GameResult, MoveError, Outcome, Side};
use tables::{
    mirror, Bb, CHANNEL, KEYS, KEY_SQUARE, MAX_PLY, MIDDLE_BASE, MIDDLE_SQUARES, NEXT, OFF,
    OFFBOARD, SQUARES, STANDARD_SKULLS, TERRAIN, WALL, YELLOW_START,
};

pub use notation::{parse_square, square_name, terrain_rows, terrain_symbol};

/// The level: how many channel passes each side starts with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CastleVariant {
    pub passes: u8,
}

impl CastleVariant {
    pub const LEVEL_1: CastleVariant = CastleVariant { passes: 8 };
    pub const LEVEL_2: CastleVariant = CastleVariant { passes: 7 };
    pub const LEVEL_3: CastleVariant = CastleVariant { passes: 6 };
}

/// A move packed in 16 bits: from-square in bits 0..9 (361 < 512), direction
/// in 9..11 (north, east, south, west), distance 1..=18 in 11..16. The
/// distance is never 0, so the bits never are.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Move(NonZeroU16);

/// Square steps per direction, matching `tables::NEXT`.
const DELTA: [i32; 4] = [tables::SIZE as i32, 1, -(tables::SIZE as i32), -1];

impl Move {
    /// `from` < 361, `dir` < 4, `dist` in 1..=18 and the target on the board:
    /// only the generator and the notation reader build moves.
    fn new(from: usize, dir: usize, dist: usize) -> Move {
        debug_assert!(from < SQUARES && dir < 4 && (1..=18).contains(&dist));
        let bits = (from | dir << 9 | dist << 11) as u16;
        Move(NonZeroU16::new(bits).unwrap_or(NonZeroU16::MIN))
    }

    #[inline]
    pub fn bits(self) -> u16 {
        self.0.get()
    }

    #[inline]
    pub fn from(self) -> usize {
        (self.bits() & 511) as usize
    }

    #[inline]
    pub fn dir(self) -> usize {
        ((self.bits() >> 9) & 3) as usize
    }

    #[inline]
    pub fn dist(self) -> usize {
        (self.bits() >> 11) as usize
    }

    #[inline]
    pub fn to(self) -> usize {
        let to = self.from() as i32 + DELTA[self.dir()] * self.dist() as i32;
        // Only in-board moves are ever built; clamp so nothing can index past.
        to.clamp(0, SQUARES as i32 - 1) as usize
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// A Castle position: knight bitboards, skulls, passes, side and ply;
/// 176 bytes, copied to make a move.
#[derive(Clone, Copy)]
pub struct Castle {
    knights: [Bb; 2],
    /// Skulls as bits over the middle zone (bit i = square `MIDDLE_BASE + i`).
    skulls: u64,
    /// The skulls as the position string listed them (middle-zone offsets), so
    /// the string is written back in the order given. Not part of equality.
    skull_list: [u8; MIDDLE_SQUARES],
    skull_count: u8,
    passes: [u8; 2],
    side: Side,
    ply: u16,
    hash: u64,
}

impl PartialEq for Castle {
    /// The order skulls were listed in does not change the position.
    fn eq(&self, other: &Castle) -> bool {
        self.knights == other.knights
            && self.skulls == other.skulls
            && self.passes == other.passes
            && self.side == other.side
            && self.ply == other.ply
    }
}

impl Eq for Castle {}

/// How a game is decided without a winning move (rules, "The end"): more
/// knights wins; equal knights, more passes left; still equal, Blue.
fn tiebreak(knights: [u32; 2], passes: [u8; 2]) -> GameResult {
    use std::cmp::Ordering::*;
    match knights[0].cmp(&knights[1]).then(passes[0].cmp(&passes[1])) {
        Greater => GameResult::P1Win,
        Less | Equal => GameResult::P2Win,
    }
}

impl Castle {
    /// Yellow and Blue knights on the given squares, skulls as listed,
    /// Yellow to move at ply 0; for the start and for set-up positions.
    /// Nothing is checked against the rules (that is `from_fen`'s job), but
    /// entries that cannot be represented are dropped rather than panicking:
    /// squares off the board, and skulls outside ranks 9..11 or listed twice.
    pub fn with_layout(
        yellow: &[usize],
        blue: &[usize],
        skulls: &[usize],
        passes: [u8; 2],
    ) -> Castle {
        let mut pos = Castle {
            knights: [Bb::EMPTY; 2],
            skulls: 0,
            skull_list: [0; MIDDLE_SQUARES],
            skull_count: 0,
            passes,
            side: Side::P1,
            ply: 0,
            hash: 0,
        };
        for (i, squares) in [yellow, blue].into_iter().enumerate() {
            for &sq in squares.iter().filter(|&&sq| sq < SQUARES) {
                pos.knights[i].set(sq);
            }
        }
        for &sq in skulls {
            let offset = sq.wrapping_sub(MIDDLE_BASE);
            if offset < MIDDLE_SQUARES && !pos.is_skull(sq) {
                pos.add_skull(sq);
            }
        }
        pos.hash = pos.compute_hash();
        pos
    }

    /// The start of `variant` with the standard skulls d9, p11, h10, l10.
    fn standard_start(variant: &CastleVariant) -> Castle {
        let blue: Vec<usize> = YELLOW_START.iter().map(|&sq| mirror(sq)).collect();
        Castle::with_layout(&YELLOW_START, &blue, &STANDARD_SKULLS, [variant.passes; 2])
    }

    /// Adds a skull on a middle-zone square not yet holding one (the caller checks).
    fn add_skull(&mut self, sq: usize) {
        let offset = sq - MIDDLE_BASE;
        self.skulls |= 1 << offset;
        self.skull_list[self.skull_count as usize] = offset as u8;
        self.skull_count += 1;
    }

    pub fn knights(&self, side: Side) -> Bb {
        self.knights[side.index()]
    }

    pub fn knight_count(&self, side: Side) -> u32 {
        self.knights[side.index()].count()
    }

    pub fn passes(&self, side: Side) -> u8 {
        self.passes[side.index()]
    }

    pub fn ply(&self) -> u16 {
        self.ply
    }

    /// The skulls in the order the position string gave them.
    pub fn skull_squares(&self) -> impl Iterator<Item = usize> + '_ {
        self.skull_list[..self.skull_count as usize]
            .iter()
            .map(|&o| o as usize + MIDDLE_BASE)
    }

    /// The middle-zone skull bits (bit i = square `MIDDLE_BASE + i`).
    pub fn skull_bits(&self) -> u64 {
        self.skulls
    }

    #[inline(always)]
    pub fn is_skull(&self, sq: usize) -> bool {
        let offset = sq.wrapping_sub(MIDDLE_BASE);
        offset < MIDDLE_SQUARES && (self.skulls >> offset) & 1 != 0
    }

    /// Passes it costs to enter `sq`: 1 for a channel (of either castle), 1
    /// for a skull, else 0. Leaving such a square costs nothing.
    #[inline(always)]
    pub fn entry_cost(&self, sq: usize) -> u32 {
        ((TERRAIN[sq] & CHANNEL != 0) as u32) + self.is_skull(sq) as u32
    }

    /// The hash recomputed from scratch (the incremental one must equal it).
    pub fn compute_hash(&self) -> u64 {
        let mut h = 0;
        for side in Side::BOTH {
            let i = side.index();
            for sq in self.knights[i].squares() {
                h ^= KEYS.knight[i][sq];
            }
            h ^= KEYS.passes[i][self.passes[i] as usize];
        }
        if self.side == Side::P2 {
            h ^= KEYS.side;
        }
        for offset in 0..MIDDLE_SQUARES {
            if (self.skulls >> offset) & 1 != 0 {
                h ^= KEYS.skull[offset];
            }
        }
        h ^ KEYS.ply[(self.ply as usize).min(MAX_PLY)]
    }

    /// Calls `visit(dir, dist, to, cost)` for every move of a knight of
    /// `side` on `from`, with the other knights `own` and `them`, and at most
    /// `budget` passes to spend; stops early when `visit` returns true (and
    /// then returns true). The rules as implemented:
    /// - ground slide: from a ground square, one or more squares in one
    ///   direction over ground only (channels, skulls, courtyards and keys are
    ///   ground); it stops before a wall square, which it cannot enter;
    /// - wall slide: from a wall square along wall squares only; a channel
    ///   ends the line and a slide never turns a corner;
    /// - climb: a ground square onto an orthogonally adjacent wall square; a
    ///   slide that meets a wall after more than one square stops before it
    ///   (so a "two-square climb" is never generated);
    /// - descend: a wall square onto an adjacent ground square;
    /// - no jumping: every square passed over is empty; the target is empty or
    ///   an enemy knight (captured), and the move stops there;
    /// - the own key is never entered nor crossed: a slide stops before it;
    ///   the enemy key may be crossed, and ending on it wins (see `outcome`);
    /// - every channel and skull square entered, passed or final, costs one
    ///   pass; the costs of a slide add up and the move is legal only when
    ///   they do not exceed the passes left. Walls never cost, so climbs and
    ///   wall slides are free; descending onto a channel costs one.
    #[inline(always)]
    fn visit_moves_from(
        &self,
        from: usize,
        own: &Bb,
        them: &Bb,
        own_key: usize,
        budget: u32,
        mut visit: impl FnMut(usize, usize, usize, u32) -> bool,
    ) -> bool {
        if TERRAIN[from] & WALL != 0 {
            for (dir, next) in NEXT.iter().enumerate() {
                let first = next[from] as usize;
                let terrain = TERRAIN[first];
                if terrain & OFFBOARD != 0 || own.has(first) {
                    continue;
                }
                if terrain & WALL != 0 {
                    let mut to = first;
                    let mut dist = 1;
                    loop {
                        if visit(dir, dist, to, 0) {
                            return true;
                        }
                        if them.has(to) {
                            break;
                        }
                        to = next[to] as usize;
                        if TERRAIN[to] & WALL == 0 || own.has(to) {
                            break;
                        }
                        dist += 1;
                    }
                } else if first != own_key {
                    let cost = self.entry_cost(first);
                    if cost <= budget && visit(dir, 1, first, cost) {
                        return true;
                    }
                }
            }
        } else {
            for (dir, next) in NEXT.iter().enumerate() {
                let first = next[from] as usize;
                let terrain = TERRAIN[first];
                if terrain & OFFBOARD != 0 || own.has(first) {
                    continue;
                }
                if terrain & WALL != 0 {
                    if visit(dir, 1, first, 0) {
                        return true;
                    }
                    continue;
                }
                let mut to = first;
                let mut dist = 1;
                let mut cost = 0;
                loop {
                    if to == own_key {
                        break;
                    }
                    cost += self.entry_cost(to);
                    if cost > budget {
                        break;
                    }
                    if visit(dir, dist, to, cost) {
                        return true;
                    }
                    if them.has(to) {
                        break;
                    }
                    to = next[to] as usize;
                    if TERRAIN[to] & (WALL | OFFBOARD) != 0 || own.has(to) {
                        break;
                    }
                    dist += 1;
                }
            }
        }
        false
    }

    /// Every move of the side to move, through `visit(from, dir, dist, to)`;
    /// true if `visit` stopped the walk.
    #[inline(always)]
    fn visit_moves(&self, mut visit: impl FnMut(usize, usize, usize, usize) -> bool) -> bool {
        let us = self.side.index();
        let own = self.knights[us];
        let them = self.knights[us ^ 1];
        let budget = self.passes[us] as u32;
        let own_key = KEY_SQUARE[us];
        for from in own.squares() {
            if self.visit_moves_from(from, &own, &them, own_key, budget, |dir, dist, to, _| {
                visit(from, dir, dist, to)
            }) {
                return true;
            }
        }
        false
    }

    pub fn has_legal_move(&self) -> bool {
        self.visit_moves(|_, _, _, _| true)
    }

    /// The passes a move costs: the entry costs of every square it enters.
    pub fn move_cost(&self, mv: Move) -> u32 {
        let next = &NEXT[mv.dir()];
        let mut sq = mv.from();
        let mut cost = 0;
        for _ in 0..mv.dist() {
            sq = next[sq] as usize;
            cost += self.entry_cost(sq);
        }
        cost
    }

    /// The position seen from the other side: every square mirrored through
    /// j10, colours, passes and side to move swapped. The terrain is
    /// point-symmetric, so the mirror has the same game tree.
    pub fn mirrored(&self) -> Castle {
        let mut pos = *self;
        pos.knights = [Bb::EMPTY; 2];
        for i in 0..2 {
            for sq in self.knights[i].squares() {
                pos.knights[i ^ 1].set(mirror(sq));
            }
        }
        pos.skulls = 0;
        pos.skull_count = 0;
        for sq in self.skull_squares() {
            pos.add_skull(mirror(sq));
        }
        pos.passes = [self.passes[1], self.passes[0]];
        pos.side = self.side.opponent();
        pos.hash = pos.compute_hash();
        pos
    }

    fn decide(&self, reason: &'static str) -> Outcome {
        Outcome::Over {
            result: tiebreak(
                [self.knight_count(Side::P1), self.knight_count(Side::P2)],
                self.passes,
            ),
            reason,
        }
    }

    fn debug_check(&self) {
        debug_assert_eq!(self.hash, self.compute_hash(), "incremental hash drifted");
        debug_assert!(
            !self.knights[0].intersects(&self.knights[1]),
            "two knights on one square"
        );
        debug_assert!(self.knights.iter().all(|k| k.count() <= 8 && !k.has(OFF)));
    }
}

impl Game for Castle {
    type Move = Move;
    type Variant = CastleVariant;

    fn start(variant: &CastleVariant) -> Castle {
        Castle::standard_start(variant)
    }

    /// The start with a random mirrored skull layout (`layout::deal_skulls`).
    fn dealt_start(variant: &CastleVariant, seed: u64) -> Option<Castle> {
        Some(layout::dealt_start(variant, seed))
    }

    fn from_fen(variant: &CastleVariant, fen: &str) -> Result<Castle, FenError> {
        let _ = variant; // the position string carries the passes itself
        notation::parse_fen(fen)
    }

    fn fen(&self) -> String {
        notation::write_fen(self)
    }

    fn side_to_move(&self) -> Side {
        self.side
    }

    /// See `visit_moves_from` for the rules as implemented. Moves come knight
    /// by knight (increasing square), direction by direction (N, E, S, W),
    /// nearest target first.
    fn generate_moves(&self, moves: &mut Vec<Move>) {
        crate::cpu::fast!({
            self.visit_moves(|from, dir, dist, _| {
                moves.push(Move::new(from, dir, dist));
                false
            })
        });
    }

    /// The captures and moves onto the enemy key (`is_noisy`) among
    /// `generate_moves`', in its order, without making the others.
    fn noisy_moves(&self, moves: &mut Vec<Move>) {
        let them = self.side.opponent().index();
        let (enemies, key) = (self.knights[them], KEY_SQUARE[them]);
        crate::cpu::fast!({
            self.visit_moves(|from, dir, dist, to| {
                if enemies.has(to) || to == key {
                    moves.push(Move::new(from, dir, dist));
                }
                false
            })
        });
    }

    fn count_moves(&self) -> u64 {
        crate::cpu::fast!({
            let mut n = 0;
            self.visit_moves(|_, _, _, _| {
                n += 1;
                false
            });
            n
        })
    }

    fn play(&mut self, mv: Move) {
        let us = self.side.index();
        let them = us ^ 1;
        let (from, to) = (mv.from(), mv.to());
        let cost = self.move_cost(mv);
        // Capture by landing.
        if self.knights[them].has(to) {
            self.knights[them].clear(to);
            self.hash ^= KEYS.knight[them][to];
        }
        self.knights[us].clear(from);
        self.knights[us].set(to);
        self.hash ^= KEYS.knight[us][from] ^ KEYS.knight[us][to];
        // The generator never spends more than is left; saturate anyway so an
        // illegal move stays memory safe as the trait asks.
        let left = (self.passes[us] as u32).saturating_sub(cost) as u8;
        self.hash ^= KEYS.passes[us][self.passes[us] as usize] ^ KEYS.passes[us][left as usize];
        self.passes[us] = left;
        let ply = (self.ply + 1).min(MAX_PLY as u16);
        self.hash ^= KEYS.ply[self.ply as usize] ^ KEYS.ply[ply as usize];
        self.ply = ply;
        self.side = self.side.opponent();
        self.hash ^= KEYS.side;
        self.debug_check();
    }

    fn hash(&self) -> u64 {
        self.hash
    }

    /// "The same position" for repetition is knights, side, passes (and the
    /// fixed skulls): not the ply counter, which would make every position
    /// unique. It is in the hash because it decides the game at 400.
    fn repetition_key(&self) -> u64 {
        self.hash ^ KEYS.ply[self.ply as usize]
    }

    /// In this order:
    /// 1. a knight on the enemy key: its side wins, whatever the ply;
    /// 2. a side without knights: the other side wins, whatever the ply;
    /// 3. 400 plies played: decided by the tiebreak. Interpretation: the
    ///    rules make only the key and the last capture win "whatever the
    ///    ply", and once 400 plies are played no further turn is due, so a
    ///    side without a legal move at ply 400 does not lose by that;
    /// 4. the side to move has no legal move: it loses.
    fn outcome(&self) -> Outcome {
        for side in Side::BOTH {
            if self.knights[side.index()].has(KEY_SQUARE[side.opponent().index()]) {
                return Outcome::Over {
                    result: GameResult::win_for(side),
                    reason: "enemy key taken",
                };
            }
        }
        for side in Side::BOTH {
            if self.knights[side.index()].is_empty() {
                return Outcome::Over {
                    result: GameResult::win_for(side.opponent()),
                    reason: "last knight captured",
                };
            }
        }
        if self.ply as usize >= MAX_PLY {
            return self.decide("ply 400 reached");
        }
        if !self.has_legal_move() {
            return Outcome::Over {
                result: GameResult::win_for(self.side.opponent()),
                reason: "no legal move",
            };
        }
        Outcome::Ongoing
    }

    /// Castle has no draws: the third repetition decides like ply 400.
    /// Interpretation: "the third repetition of a position" is its third
    /// occurrence (threefold, as `Line` counts), not a fourth one.
    fn repetition_outcome(&self) -> Outcome {
        self.decide("third repetition")
    }

    fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        notation::parse_move(text)
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

    /// Captures and moves onto the enemy key.
    #[inline(always)]
    fn is_noisy(&self, mv: Move) -> bool {
        let them = self.side.opponent().index();
        let to = mv.to();
        self.knights[them].has(to) || to == KEY_SQUARE[them]
    }

    fn pretty(&self) -> String {
        notation::pretty(self)
    }
}

impl fmt::Debug for Castle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Castle({})", self.fen())
    }
}
