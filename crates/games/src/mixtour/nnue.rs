//! A small learned evaluation for the standard game (5 x 5 board, one point
//! wins): one hidden layer over sparse inputs, plus the linear terms of
//! `eval` with weights of its own, all in integers. Trained by
//! `stackfish train` (crates/lab/src/train.rs) on positions of recorded games; the
//! weights ship in `net.bin` next to this file. Other boards and goals keep
//! the linear evaluation alone.
//!
//! Inputs, from the side to move's view (colours swapped when player 2 is to
//! move, so one set of weights serves both): one per cell and stack (30
//! stacks of height 1 to 4, each order of colours) and one per reserve size
//! of each side. At most 25 + 2 are active. Hidden: `HIDDEN` units, clipped
//! to [0, 1].
//!
//! The search keeps the first layer's sums for both views of each position
//! on its path (`Accumulator`, one per ply): a move changes at most two
//! cells and the reserves, so a child's sums are its parent's plus and
//! minus a few rows of weights, and the evaluation reads the side to move's.
//! The sums are 16-bit: `Network::check` refuses, when a network loads, any
//! whose sums could leave that range, so they are exact.
//!
//! Integers: the first layer is scaled by `QA` (an activation of 1 is
//! `QA`), the output weights by `QB` per centi-unit, so the network's part
//! is `(b2 + sum h_i w2_i) / (QA * QB)` centi-units; the linear part is in
//! centi-units already.

use std::sync::OnceLock;

use super::board::{Bits, Board};
use super::eval::{features, FEATURES};
use super::{MoveKind, Position, Stack};
use crate::{simd, Game, Side};

pub const CELLS: usize = 25;
/// Stacks of height 1 to 4: codes 2..=31 of `Stack` (sentinel bit on top).
pub const CODES: usize = 30;
/// Reserve sizes 0..=20 of one side.
pub const RESERVES: usize = 21;
pub const INPUTS: usize = CELLS * CODES + 2 * RESERVES;
pub const HIDDEN: usize = 64;
/// Most inputs active at once: a stack per cell and two reserves.
pub const MAX_ACTIVE: usize = CELLS + 2;
pub const QA: i32 = 255;
pub const QB: i32 = 16;
/// The most hidden units a network may have.
pub const MAX_HIDDEN: usize = 512;
const MAGIC: &[u8; 8] = b"SFNNUE01";

/// Why bytes are not a network this build can load.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NetworkError {
    #[error("not a stackfish network (bad magic)")]
    BadMagic,
    /// The shape of the network is fixed at compile time; a file of another
    /// length is another shape.
    #[error("network of {found} bytes, expected {expected} for {INPUTS} x {HIDDEN}", INPUTS = INPUTS, HIDDEN = HIDDEN)]
    Length { found: usize, expected: usize },
    #[error("truncated")]
    Truncated,
    /// The sums of the first layer are kept in 16 bits.
    #[error("hidden unit {unit} can sum to {bound}, beyond the 16 bits its accumulator has")]
    Accumulator { unit: usize, bound: i64 },
    /// The output layer is summed in 32 bits.
    #[error("the output weights can sum to {bound}, beyond 32 bits")]
    Output { bound: i64 },
    /// The vector kernels take the hidden units in blocks of `simd::LANES`.
    #[error("{hidden} hidden units: a network has a positive multiple of {lanes}, at most {max}", lanes = simd::LANES, max = MAX_HIDDEN)]
    Hidden { hidden: usize },
    #[error("{what} has {found} weights, expected {expected}")]
    Shape {
        what: &'static str,
        found: usize,
        expected: usize,
    },
}

/// The quantized network.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Network {
    /// `INPUTS` rows of `HIDDEN`.
    pub w1: Vec<i16>,
    pub b1: Vec<i16>,
    pub w2: Vec<i16>,
    pub b2: i32,
    /// Weights of `eval::features`, centi-units.
    pub linear: [i32; FEATURES],
}

impl Network {
    /// The file format: `MAGIC`, then little-endian i16 `w1`, `b1`, `w2`,
    /// i32 `b2` and the `FEATURES` linear weights as i32.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        for v in self.w1.iter().chain(&self.b1).chain(&self.w2) {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&self.b2.to_le_bytes());
        for v in self.linear {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out
    }

    pub fn from_bytes(bytes: &[u8]) -> Result<Network, NetworkError> {
        let body = bytes
            .strip_prefix(MAGIC.as_slice())
            .ok_or(NetworkError::BadMagic)?;
        let want = 2 * (INPUTS * HIDDEN + 2 * HIDDEN) + 4 + 4 * FEATURES;
        if body.len() != want {
            return Err(NetworkError::Length {
                found: body.len(),
                expected: want,
            });
        }
        let mut i16s = body
            .chunks_exact(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]));
        let mut take = |n: usize| (&mut i16s).take(n).collect::<Vec<i16>>();
        let (w1, b1, w2) = (take(INPUTS * HIDDEN), take(HIDDEN), take(HIDDEN));
        let rest = &body[2 * (INPUTS * HIDDEN + 2 * HIDDEN)..];
        let mut i32s = rest
            .chunks_exact(4)
            .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]));
        let b2 = i32s.next().ok_or(NetworkError::Truncated)?;
        let mut linear = [0; FEATURES];
        for w in &mut linear {
            *w = i32s.next().ok_or(NetworkError::Truncated)?;
        }
        let net = Network {
            w1,
            b1,
            w2,
            b2,
            linear,
        };
        net.check()?;
        Ok(net)
    }

    /// The number of hidden units.
    pub fn hidden(&self) -> usize {
        self.b1.len()
    }

    /// Whether the accumulators and the output layer compute this
    /// network's sums exactly: the shapes agree, and no sum can leave the
    /// integers it is kept in (every network `stackfish train` writes
    /// passes; a file of extreme weights does not).
    pub fn check(&self) -> Result<(), NetworkError> {
        let hidden = self.hidden();
        if hidden == 0 || !hidden.is_multiple_of(simd::LANES) || hidden > MAX_HIDDEN {
            return Err(NetworkError::Hidden { hidden });
        }
        for (what, found, expected) in [
            ("the first layer", self.w1.len(), INPUTS * hidden),
            ("the output layer", self.w2.len(), hidden),
        ] {
            if found != expected {
                return Err(NetworkError::Shape {
                    what,
                    found,
                    expected,
                });
            }
        }
        // At most one input of each group is active: a stack per cell, a
        // reserve size per side.
        let groups = (0..CELLS).map(|c| c * CODES..(c + 1) * CODES).chain([
            CELLS * CODES..CELLS * CODES + RESERVES,
            CELLS * CODES + RESERVES..INPUTS,
        ]);
        let mut bound: Vec<i64> = self.b1.iter().map(|&b| i64::from(b).abs()).collect();
        for group in groups {
            for (j, bound) in bound.iter_mut().enumerate() {
                let most = group
                    .clone()
                    .map(|i| i64::from(self.w1[i * hidden + j]).abs())
                    .max()
                    .unwrap_or(0);
                *bound += most;
            }
        }
        if let Some((unit, &bound)) = bound
            .iter()
            .enumerate()
            .find(|(_, &b)| b > i64::from(i16::MAX))
        {
            return Err(NetworkError::Accumulator { unit, bound });
        }
        let bound: i64 = self
            .w2
            .iter()
            .map(|&w| i64::from(w).abs() * i64::from(QA))
            .sum();
        if bound > i64::from(i32::MAX) {
            return Err(NetworkError::Output { bound });
        }
        Ok(())
    }

    /// Row `input` of the first layer.
    #[inline(always)]
    fn row(&self, input: usize) -> &[i16] {
        let hidden = self.hidden();
        &self.w1[input * hidden..(input + 1) * hidden]
    }

    /// The evaluation from the first layer's sums `acc` (one view) and the
    /// linear features `f`: what `evaluate` computes from the inputs.
    #[inline]
    pub fn evaluate_sums(&self, acc: &[i16], f: &[i32; FEATURES]) -> i32 {
        let hidden = i64::from(simd::output(acc, &self.w2, QA as i16));
        self.finish(hidden, f)
    }

    /// The output bias and the linear part added to the output layer's sum.
    #[inline(always)]
    fn finish(&self, hidden: i64, f: &[i32; FEATURES]) -> i32 {
        let linear: i64 = f
            .iter()
            .zip(&self.linear)
            .map(|(&f, &w)| i64::from(f) * i64::from(w))
            .sum();
        let value = (i64::from(self.b2) + hidden) / i64::from(QA * QB) + linear;
        value.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32
    }

    /// The network's evaluation of the inputs `active` and the linear
    /// features `f`, in centi-units, one input at a time: the reference of
    /// the accumulators. The sums are taken in 32 and 64 bits and the
    /// result saturated, so that a network of any weights evaluates (the
    /// search clamps what it gets).
    pub fn evaluate(&self, active: &[u16], f: &[i32; FEATURES]) -> i32 {
        let mut acc = vec![0i32; self.hidden()];
        for (a, &b) in acc.iter_mut().zip(&self.b1) {
            *a = b as i32;
        }
        for &i in active {
            for (a, &w) in acc.iter_mut().zip(self.row(i as usize)) {
                *a += w as i32;
            }
        }
        let hidden: i64 = acc
            .iter()
            .zip(&self.w2)
            .map(|(&a, &w)| i64::from(a.clamp(0, QA)) * i64::from(w))
            .sum();
        self.finish(hidden, f)
    }
}

static NETWORK: OnceLock<Option<Network>> = OnceLock::new();

/// The network the evaluation uses: the one `install`ed, else the one in
/// `net.bin`.
pub fn network() -> Option<&'static Network> {
    NETWORK
        .get_or_init(|| Network::from_bytes(include_bytes!("net.bin")).ok())
        .as_ref()
}

/// Puts `net` in place of the built-in network for the rest of the process
/// (`None`: the linear evaluation everywhere), so a trained network can be
/// played without a rebuild. Only before the first evaluation, and only a
/// network that passes `Network::check` (every one `from_bytes` reads):
/// false, and nothing changes, otherwise.
pub fn install(net: Option<Network>) -> bool {
    if net.as_ref().is_some_and(|n| n.check().is_err()) {
        return false;
    }
    NETWORK.set(net).is_ok()
}

/// Whether the network knows this kind of position: the full 5 x 5 board
/// (on either board type) and a one-point goal.
pub fn applies<B: Board>(pos: &Position<B>) -> bool {
    if pos.goal() != 1 {
        return false;
    }
    if B::MAX_FILES == 5 && B::MAX_RANKS == 5 {
        return true;
    }
    let board = pos.board();
    board.files() == 5 && board.ranks() == 5 && board.playable().count() == 25
}

/// The input of `stack` on `cell` from `view`'s side: our pieces read as
/// player 1's. Cells are numbered a1 = 0, b1 = 1, ..., e5 = 24 on either
/// board type.
#[inline(always)]
fn cell_input<B: Board>(view: Side, cell: usize, stack: Stack) -> usize {
    let h = stack.height();
    let mut code = stack.code();
    if view == Side::P2 {
        // Swap colours below the sentinel bit.
        code ^= (1 << h) - 1;
    }
    let cell = cell / B::STRIDE * 5 + cell % B::STRIDE;
    cell * CODES + code as usize - 2
}

/// The input of `side` holding `n` pieces in hand, from `view`'s side.
#[inline(always)]
fn reserve_input(view: Side, side: Side, n: u8) -> usize {
    let whose = if side == view { 0 } else { RESERVES };
    CELLS * CODES + whose + (n as usize).min(RESERVES - 1)
}

/// The active inputs of `pos` (which `applies`) from `view`'s side; returns
/// how many were written.
fn inputs<B: Board>(pos: &Position<B>, view: Side, out: &mut [u16; MAX_ACTIVE]) -> usize {
    let mut n = 0;
    for cell in pos.occupied().cells() {
        out[n] = cell_input::<B>(view, cell, pos.stack(cell as u8)) as u16;
        n += 1;
    }
    for side in [view, view.opponent()] {
        out[n] = reserve_input(view, side, pos.reserve(side)) as u16;
        n += 1;
    }
    n
}

/// The active inputs of `pos` (which `applies`), from the side to move's
/// view; returns how many were written.
pub fn active<B: Board>(pos: &Position<B>, out: &mut [u16; MAX_ACTIVE]) -> usize {
    inputs(pos, pos.side_to_move(), out)
}

/// The network's evaluation of `pos`, if there is a network and it applies.
pub fn evaluate<B: Board>(pos: &Position<B>) -> Option<i32> {
    let net = network()?;
    if !applies(pos) {
        return None;
    }
    let mut inputs = [0u16; MAX_ACTIVE];
    let n = active(pos, &mut inputs);
    let mut rows: [&[i16]; MAX_ACTIVE] = [&[]; MAX_ACTIVE];
    for (row, &i) in rows.iter_mut().zip(&inputs[..n]) {
        *row = net.row(i as usize);
    }
    let mut sums = [0i16; MAX_HIDDEN];
    let sums = &mut sums[..net.hidden()];
    simd::update(sums, &net.b1, &rows[..n], &[]);
    Some(net.evaluate_sums(sums, &features(pos)))
}

/// The first layer's sums of one position for both views, kept by the
/// search per ply (`Game::Eval`).
#[derive(Clone, Debug, Default)]
pub struct Accumulator {
    /// The sums from player 1's view, then from player 2's, `hidden` each;
    /// meaningful only when `valid`.
    sums: Vec<i16>,
    /// Whether the sums are those of the position: false where the network
    /// does not apply (or there is none, or the build ablates terms).
    valid: bool,
}

/// The network to keep sums for, if it evaluates `pos`.
fn network_for<B: Board>(pos: &Position<B>) -> Option<&'static Network> {
    if crate::ablate::ABLATED.is_some() || !applies(pos) {
        return None;
    }
    network()
}

/// `acc` for `pos`, from scratch.
pub fn refresh<B: Board>(pos: &Position<B>, acc: &mut Accumulator) {
    let Some(net) = network_for(pos) else {
        acc.valid = false;
        return;
    };
    let hidden = net.hidden();
    acc.sums.resize(2 * hidden, 0);
    for (view, sums) in Side::BOTH
        .into_iter()
        .zip(acc.sums.chunks_exact_mut(hidden))
    {
        let mut active = [0u16; MAX_ACTIVE];
        let n = inputs(pos, view, &mut active);
        let mut rows: [&[i16]; MAX_ACTIVE] = [&[]; MAX_ACTIVE];
        for (row, &i) in rows.iter_mut().zip(&active[..n]) {
            *row = net.row(i as usize);
        }
        simd::update(sums, &net.b1, &rows[..n], &[]);
    }
    acc.valid = true;
}

/// Most rows one move adds (or takes away) per view: two cells and both
/// reserves.
const MAX_CHANGED: usize = 4;

/// `out` for `child`, which is `pos` after `mv`, from `acc` (that of
/// `pos`): the rows of the cells and reserves the move changed.
pub fn update<B: Board>(
    pos: &Position<B>,
    mv: super::Move<B>,
    child: &Position<B>,
    acc: &Accumulator,
    out: &mut Accumulator,
) {
    let net = match network() {
        Some(net) if acc.valid => net,
        _ => {
            out.valid = false;
            return;
        }
    };
    let cells = match mv.kind() {
        MoveKind::Place(cell) => [Some(cell), None],
        MoveKind::Stack { from, to, .. } => [Some(from), Some(to)],
        MoveKind::Pass => [None, None],
    };
    let hidden = net.hidden();
    out.sums.resize(2 * hidden, 0);
    for (view, (sums, before)) in Side::BOTH.into_iter().zip(
        out.sums
            .chunks_exact_mut(hidden)
            .zip(acc.sums.chunks_exact(hidden)),
    ) {
        let mut adds: [&[i16]; MAX_CHANGED] = [&[]; MAX_CHANGED];
        let mut subs: [&[i16]; MAX_CHANGED] = [&[]; MAX_CHANGED];
        let (mut na, mut ns) = (0, 0);
        for cell in cells.into_iter().flatten() {
            let (was, is) = (pos.stack(cell), child.stack(cell));
            if !was.is_empty() {
                subs[ns] = net.row(cell_input::<B>(view, cell as usize, was));
                ns += 1;
            }
            if !is.is_empty() {
                adds[na] = net.row(cell_input::<B>(view, cell as usize, is));
                na += 1;
            }
        }
        for side in Side::BOTH {
            let was = reserve_input(view, side, pos.reserve(side));
            let is = reserve_input(view, side, child.reserve(side));
            if was != is {
                subs[ns] = net.row(was);
                adds[na] = net.row(is);
                ns += 1;
                na += 1;
            }
        }
        simd::update(sums, before, &adds[..na], &subs[..ns]);
    }
    out.valid = true;
}

/// The network's evaluation of `pos` from `acc`, kept for it by `refresh`
/// and `update`; `None` where the network does not evaluate `pos`.
#[inline]
pub fn evaluate_with<B: Board>(pos: &Position<B>, acc: &Accumulator) -> Option<i32> {
    if !acc.valid {
        return None;
    }
    let net = network()?;
    let hidden = net.hidden();
    let view = pos.side_to_move().index();
    let sums = &acc.sums[view * hidden..(view + 1) * hidden];
    Some(net.evaluate_sums(sums, &features(pos)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mixtour::{Mixtour, MixtourVariant};

    /// Random games, passes included (the search plays them as null
    /// moves), with the sums kept from move to move: at every position they
    /// are the sums computed afresh, and the evaluation from them is the
    /// evaluation from scratch. On both board types, and where the network
    /// does not apply (other goals and boards), where both give the linear
    /// evaluation.
    fn incremental_equals_fresh<G: Game<Eval = Accumulator>>(
        start: &G,
        fresh: impl Fn(&G) -> Accumulator,
        seed: u64,
    ) -> usize {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let mut evaluated = 0;
        let mut moves = Vec::new();
        for _ in 0..40 {
            let mut pos = start.clone();
            let mut acc = Accumulator::default();
            pos.eval_refresh(&mut acc);
            for _ in 0..80 {
                if pos.outcome().is_over() {
                    break;
                }
                moves.clear();
                pos.generate_moves(&mut moves);
                let mv = if rng.gen_ratio(1, 10) {
                    pos.null_move().unwrap()
                } else {
                    moves[rng.gen_range(0..moves.len())]
                };
                let mut child = pos.clone();
                child.play(mv);
                let mut next = Accumulator::default();
                pos.eval_update(mv, &child, &acc, &mut next);
                let again = fresh(&child);
                assert_eq!(next.valid, again.valid, "{child:?}");
                if next.valid {
                    assert_eq!(next.sums, again.sums, "{child:?} after {mv}");
                    evaluated += 1;
                }
                assert_eq!(child.evaluate_with(&next), child.evaluate(), "{child:?}");
                (pos, acc) = (child, next);
            }
        }
        evaluated
    }

    fn fresh<G: Game<Eval = Accumulator>>(pos: &G) -> Accumulator {
        let mut acc = Accumulator::default();
        pos.eval_refresh(&mut acc);
        acc
    }

    #[test]
    fn the_sums_kept_move_by_move_are_the_sums_afresh() {
        use crate::mixtour::ap::{ap_variant, ApMixtour};
        use crate::mixtour::MixtourGrid;
        let standard = Mixtour::start(&MixtourVariant::STANDARD);
        assert!(incremental_equals_fresh(&standard, fresh, 1) > 1000);
        let five = Mixtour::start(&MixtourVariant::FIVE_POINTS);
        assert_eq!(incremental_equals_fresh(&five, fresh, 2), 0);
        let ap = ApMixtour::start(&ap_variant(1));
        assert!(incremental_equals_fresh(&ap, fresh, 3) > 1000);
        let grid = |fen: &str| MixtourGrid::from_fen(&MixtourVariant::STANDARD, fen).unwrap();
        let five_by_five = grid("x5/x5/x5/x5/x5 1 20,20 0,0 1 -");
        assert!(incremental_equals_fresh(&five_by_five, fresh, 4) > 1000);
        let seven = grid("x7/x7/x7/x7/x7/x7/x7 1 20,20 0,0 1 -");
        assert_eq!(incremental_equals_fresh(&seven, fresh, 5), 0);
        let holed = grid("x5/x5/x2,#,x2/x5/x5 1 20,20 0,0 1 -");
        assert_eq!(incremental_equals_fresh(&holed, fresh, 6), 0);
    }

    #[test]
    fn inputs_are_the_same_with_colours_and_turn_swapped() {
        let a = Mixtour::from_fen(
            &MixtourVariant::STANDARD,
            "x,1,x3/x4,22/x2,221,x2/2,2,x2,2211/11,x4 1 14,12 0,0 1 -",
        )
        .unwrap();
        let b = Mixtour::from_fen(
            &MixtourVariant::STANDARD,
            "x,2,x3/x4,11/x2,112,x2/1,1,x2,1122/22,x4 2 12,14 0,0 1 -",
        )
        .unwrap();
        let (mut ia, mut ib) = ([0; MAX_ACTIVE], [0; MAX_ACTIVE]);
        let (na, nb) = (active(&a, &mut ia), active(&b, &mut ib));
        assert_eq!(ia[..na], ib[..nb]);
        // Seven stacks (b5, e4, c3, a2, b2, e2, a1) and two reserves.
        assert_eq!(na, 7 + 2);
        assert!(ia[..na].iter().all(|&i| (i as usize) < INPUTS));
    }

    /// The standard game is evaluated by the network, a five-point game
    /// (same board, same stacks) by the linear features alone.
    #[test]
    fn the_network_evaluates_the_standard_game_and_only_it() {
        let board = "x,1,x3/x4,22/x2,221,x2/2,2,x2,2211/11,x4 1 14,12 0,0";
        let standard =
            Mixtour::from_fen(&MixtourVariant::STANDARD, &format!("{board} 1 -")).unwrap();
        let five =
            Mixtour::from_fen(&MixtourVariant::FIVE_POINTS, &format!("{board} 5 -")).unwrap();
        assert_eq!(
            evaluate(&standard),
            Some(super::super::eval::evaluate(&standard))
        );
        assert_eq!(evaluate(&five), None);
        assert_eq!(
            super::super::eval::evaluate(&five),
            super::super::eval::linear(&five)
        );
    }

    /// The shipped network has learnt the game's main fact: four-high
    /// stacks one move from a tower are worth the most. Player 1 tops a1
    /// and c3 (four high) and e5 (three high), player 2 only b4 and d2:
    /// good for player 1 with the move (it completes a tower at once), and
    /// still bad for player 2 when player 2 moves.
    #[test]
    fn the_shipped_network_sees_a_won_position() {
        let fen =
            |side: u8| format!("x4,221/x,2,x3/x2,2221,x2/x3,2,x/2221,x4 {side} 17,10 0,0 1 -");
        let p1 = Mixtour::from_fen(&MixtourVariant::STANDARD, &fen(1)).unwrap();
        let p2 = Mixtour::from_fen(&MixtourVariant::STANDARD, &fen(2)).unwrap();
        let (to_move, waiting) = (evaluate(&p1).unwrap(), evaluate(&p2).unwrap());
        assert!(to_move > 200 && waiting < 0, "{to_move} {waiting}");
    }

    /// A network whose 16-bit sums could wrap does not load: the shipped
    /// one's every unit sums to well within 16 bits, and one row of a
    /// cell's weights at the extreme is too much.
    #[test]
    fn a_network_whose_sums_could_wrap_is_refused() {
        let shipped = network().expect("the shipped network reads");
        assert_eq!(shipped.check(), Ok(()));
        let mut wide = shipped.clone();
        for w in &mut wide.w1[..CODES * HIDDEN] {
            *w = i16::MAX;
        }
        assert!(matches!(
            Network::from_bytes(&wide.to_bytes()),
            Err(NetworkError::Accumulator { .. })
        ));
        // 512 units at the most negative weight: beyond 32 bits.
        let loud = Network {
            w1: vec![0; INPUTS * 512],
            b1: vec![0; 512],
            w2: vec![i16::MIN; 512],
            b2: 0,
            linear: [0; FEATURES],
        };
        assert!(matches!(loud.check(), Err(NetworkError::Output { .. })));
    }

    #[test]
    fn the_file_round_trips_and_the_shipped_one_reads() {
        let net = Network {
            w1: (0..INPUTS * HIDDEN).map(|i| (i % 97) as i16 - 48).collect(),
            b1: (0..HIDDEN).map(|i| i as i16).collect(),
            w2: (0..HIDDEN).map(|i| -(i as i16)).collect(),
            b2: -12345,
            linear: [3; FEATURES],
        };
        assert_eq!(Network::from_bytes(&net.to_bytes()), Ok(net.clone()));
        assert!(Network::from_bytes(&net.to_bytes()[..100]).is_err());
        assert!(
            Network::from_bytes(include_bytes!("net.bin")).is_ok(),
            "net.bin does not read"
        );
    }

    /// Found by the fuzz target `mixtour_network`: a network file whose
    /// weights are all at their extremes overflowed the sums (a panic with
    /// overflow checks, a wrapped score without). It saturates instead.
    #[test]
    fn fuzz_mixtour_network_extreme_weights_saturate() {
        let pos = Mixtour::from_fen(
            &MixtourVariant::STANDARD,
            "x,1,x3/x4,22/x2,221,x2/2,2,x2,2211/11,x4 1 14,12 0,0 1 -",
        )
        .unwrap();
        let mut inputs = [0; MAX_ACTIVE];
        let n = active(&pos, &mut inputs);
        let f = features(&pos);
        let extreme = |w: i16, b: i32| Network {
            w1: vec![w; INPUTS * HIDDEN],
            b1: vec![w; HIDDEN],
            w2: vec![w; HIDDEN],
            b2: b,
            linear: [b; FEATURES],
        };
        let high = extreme(i16::MAX, i32::MAX).evaluate(&inputs[..n], &f);
        let low = extreme(i16::MAX, i32::MIN).evaluate(&inputs[..n], &f);
        // Every linear weight at an extreme: the sum is far beyond i32, on
        // the side of the features' sum (times the weights' sign).
        let sum: i32 = f.iter().sum();
        assert_ne!(sum, 0, "the position has features");
        let (up, down) = if sum > 0 {
            (i32::MAX, i32::MIN)
        } else {
            (i32::MIN, i32::MAX)
        };
        assert_eq!((high, low), (up, down));
    }
}
