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
//! of each side. At most 25 + 2 are active. Hidden: as many units as the
//! file says (a multiple of 16; `stackfish train` makes `HIDDEN`), clipped
//! to [0, 1]. The file's header also says which goals the network covers.
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
/// Where the goal inputs start: one per goal 1, 2, 3.
pub const GOAL_INPUTS: usize = CELLS * CODES + 2 * RESERVES;
/// Where the score inputs start: the side to move's score 0, 1, 2, then
/// the opponent's.
pub const SCORE_INPUTS: usize = GOAL_INPUTS + 3;
/// Scores an input tells apart: 0, 1 and 2 or more.
pub const SCORES: usize = 3;
pub const INPUTS: usize = SCORE_INPUTS + 2 * SCORES;
/// The hidden units `stackfish train` gives a network.
pub const HIDDEN: usize = 64;
/// Most inputs active at once: a stack per cell and two reserves.
pub const MAX_ACTIVE: usize = CELLS + 2 + 3;
pub const QA: i32 = 255;
pub const QB: i32 = 16;
/// The most hidden units a network may have.
pub const MAX_HIDDEN: usize = 512;
/// The file's first bytes.
const MAGIC: &[u8; 8] = b"STACKNET";
/// The first bytes of a version 1 file (no header: 792 x 64 implied).
const MAGIC_V1: &[u8; 8] = b"SFNNUE01";
/// The format this build reads and writes.
pub const VERSION: u16 = 2;
/// The game field of a Mixtour network.
const GAME: &[u8; 8] = b"mixtour\0";
/// Magic, version, game, goals, a zero byte, inputs, hidden units, linear
/// features.
pub const HEADER_BYTES: usize = 8 + 2 + 8 + 1 + 1 + 4 + 4 + 4;
/// The goals a network can cover: 1, 2 and 3 points (bits 0, 1, 2).
pub const GOALS: u8 = 0b111;

/// Why bytes are not a network this build can load.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NetworkError {
    #[error("not a stackfish network (bad magic)")]
    BadMagic,
    #[error("network file version {found}; this build reads version {VERSION}")]
    Version { found: u16 },
    #[error("a network for {found}, not for mixtour")]
    Game { found: String },
    #[error("goals field {found:#05b}: a network covers one or more of the goals 1, 2 and 3 (bits 0 to 2)")]
    Goals { found: u8 },
    #[error("{found} inputs; this build's Mixtour network has {INPUTS}")]
    Inputs { found: u32 },
    #[error("{found} linear features; this build's Mixtour evaluation has {FEATURES}")]
    Features { found: u32 },
    /// The header gives the shape, the shape the length.
    #[error("network of {found} bytes, expected {expected} for {hidden} hidden units")]
    Length {
        found: usize,
        expected: usize,
        hidden: usize,
    },
    #[error("truncated: {found} bytes, shorter than the {HEADER_BYTES}-byte header")]
    Truncated { found: usize },
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
    /// The goals (points to win) it evaluates: bit g - 1 for goal g.
    pub goals: u8,
    /// `INPUTS` rows of `hidden` (the length of `b1`).
    pub w1: Vec<i16>,
    pub b1: Vec<i16>,
    pub w2: Vec<i16>,
    pub b2: i32,
    /// Weights of `eval::features`, centi-units.
    pub linear: [i32; FEATURES],
}

impl Network {
    /// The file format (protocol.md, "The Mixtour network file"): a
    /// header of `HEADER_BYTES` (magic, version, game, goals, shape), then
    /// little-endian i16 `w1`, `b1`, `w2`, i32 `b2` and the `FEATURES`
    /// linear weights as i32.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(GAME);
        out.extend_from_slice(&[self.goals, 0]);
        for n in [INPUTS, self.hidden(), FEATURES] {
            out.extend_from_slice(&(n as u32).to_le_bytes());
        }
        for v in self.w1.iter().chain(&self.b1).chain(&self.w2) {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&self.b2.to_le_bytes());
        for v in self.linear {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out
    }

    /// Reads a file of `to_bytes`'s format, or says what is wrong with it
    /// first: magic, version, game, goals, shape, length, then the sums
    /// (`check`).
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, NetworkError> {
        if bytes.starts_with(MAGIC_V1) {
            return Err(NetworkError::Version { found: 1 });
        }
        if !bytes.starts_with(MAGIC) {
            return Err(NetworkError::BadMagic);
        }
        let Some((header, body)) = bytes.split_first_chunk::<HEADER_BYTES>() else {
            return Err(NetworkError::Truncated { found: bytes.len() });
        };
        let u32_at = |at: usize| {
            u32::from_le_bytes([header[at], header[at + 1], header[at + 2], header[at + 3]])
        };
        let version = u16::from_le_bytes([header[8], header[9]]);
        if version != VERSION {
            return Err(NetworkError::Version { found: version });
        }
        if &header[10..18] != GAME {
            let name = header[10..18].split(|&b| b == 0).next().unwrap_or(&[]);
            return Err(NetworkError::Game {
                found: String::from_utf8_lossy(name).into_owned(),
            });
        }
        let goals = header[18];
        if goals == 0 || goals & !GOALS != 0 {
            return Err(NetworkError::Goals { found: goals });
        }
        let (inputs, hidden, features) = (u32_at(20), u32_at(24), u32_at(28));
        if inputs as usize != INPUTS {
            return Err(NetworkError::Inputs { found: inputs });
        }
        if features as usize != FEATURES {
            return Err(NetworkError::Features { found: features });
        }
        let hidden = hidden as usize;
        if hidden == 0 || !hidden.is_multiple_of(simd::LANES) || hidden > MAX_HIDDEN {
            return Err(NetworkError::Hidden { hidden });
        }
        let want = 2 * (INPUTS * hidden + 2 * hidden) + 4 + 4 * FEATURES;
        if body.len() != want {
            return Err(NetworkError::Length {
                found: bytes.len(),
                expected: HEADER_BYTES + want,
                hidden,
            });
        }
        let mut i16s = body
            .chunks_exact(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]));
        let mut take = |n: usize| (&mut i16s).take(n).collect::<Vec<i16>>();
        let (w1, b1, w2) = (take(INPUTS * hidden), take(hidden), take(hidden));
        let mut i32s = body[2 * (INPUTS * hidden + 2 * hidden)..]
            .chunks_exact(4)
            .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]));
        // The length was checked: every value is there.
        let b2 = i32s.next().unwrap_or(0);
        let mut linear = [0; FEATURES];
        for w in &mut linear {
            *w = i32s.next().unwrap_or(0);
        }
        let net = Network {
            goals,
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

    /// Whether it evaluates games to `goal` points.
    pub fn covers(&self, goal: u8) -> bool {
        (1..=3).contains(&goal) && self.goals & (1 << (goal - 1)) != 0
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
        // reserve size per side, a goal, a score per side.
        let groups = (0..CELLS).map(|c| c * CODES..(c + 1) * CODES).chain([
            CELLS * CODES..CELLS * CODES + RESERVES,
            CELLS * CODES + RESERVES..GOAL_INPUTS,
            GOAL_INPUTS..SCORE_INPUTS,
            SCORE_INPUTS..SCORE_INPUTS + SCORES,
            SCORE_INPUTS + SCORES..INPUTS,
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

static NETWORKS: OnceLock<Vec<Network>> = OnceLock::new();

/// The networks compiled in (`crates/games/src/mixtour/`), each for the
/// goals its header names: `net.bin` for the one-tower game, `net-g23.bin`
/// for games to 2 and 3 towers (tools/train/README.md says how each was
/// made).
const BUILT_IN: [&[u8]; 2] = [include_bytes!("net.bin"), include_bytes!("net-g23.bin")];

fn built_in() -> Vec<Network> {
    BUILT_IN
        .iter()
        .filter_map(|b| Network::from_bytes(b).ok())
        .collect()
}

/// The networks the evaluation uses, the first that covers a game's goal
/// evaluating it: the one `install`ed, then the built-in ones.
pub fn networks() -> &'static [Network] {
    NETWORKS.get_or_init(built_in)
}

/// The first of `networks` (the built-in one for the one-tower game).
pub fn network() -> Option<&'static Network> {
    networks().first()
}

/// The network that evaluates games to `goal` points, if any.
#[inline]
pub fn network_for(goal: u8) -> Option<&'static Network> {
    networks().iter().find(|n| n.covers(goal))
}

/// Puts `net` before the built-in networks for the rest of the process,
/// so that it evaluates the goals it covers (`None`: no network at all,
/// the linear evaluation everywhere): a trained network is played without
/// a rebuild. Only before the first evaluation, and only a network that
/// passes `Network::check` (every one `from_bytes` reads): false, and
/// nothing changes, otherwise.
pub fn install(net: Option<Network>) -> bool {
    if net.as_ref().is_some_and(|n| n.check().is_err()) {
        return false;
    }
    let list = match net {
        Some(net) => std::iter::once(net).chain(built_in()).collect(),
        None => Vec::new(),
    };
    NETWORKS.set(list).is_ok()
}

/// Whether a network can know this kind of position: the full 5 x 5
/// board (on either board type) and a goal of 1 to 3 points.
pub fn applies<B: Board>(pos: &Position<B>) -> bool {
    if !(1..=3).contains(&pos.goal()) {
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

/// The input of `side`'s score `n`, from `view`'s side.
#[inline(always)]
fn score_input(view: Side, side: Side, n: u8) -> usize {
    let whose = if side == view { 0 } else { SCORES };
    SCORE_INPUTS + whose + (n as usize).min(SCORES - 1)
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
        out[n + 1] = score_input(view, side, pos.score(side)) as u16;
        n += 2;
    }
    out[n] = (GOAL_INPUTS + (pos.goal() as usize).clamp(1, 3) - 1) as u16;
    n + 1
}

/// The active inputs of `pos` (which `applies`), from the side to move's
/// view; returns how many were written.
pub fn active<B: Board>(pos: &Position<B>, out: &mut [u16; MAX_ACTIVE]) -> usize {
    inputs(pos, pos.side_to_move(), out)
}

/// The network's evaluation of `pos`, if there is a network and it applies.
pub fn evaluate<B: Board>(pos: &Position<B>) -> Option<i32> {
    if !applies(pos) {
        return None;
    }
    let net = network_for(pos.goal())?;
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
fn network_of<B: Board>(pos: &Position<B>) -> Option<&'static Network> {
    if crate::ablate::ABLATED.is_some() || !applies(pos) {
        return None;
    }
    network_for(pos.goal())
}

/// `acc` for `pos`, from scratch.
pub fn refresh<B: Board>(pos: &Position<B>, acc: &mut Accumulator) {
    match network_of(pos) {
        Some(net) => refresh_on(net, pos, acc),
        None => acc.valid = false,
    }
}

/// `refresh` with `net`.
fn refresh_on<B: Board>(net: &Network, pos: &Position<B>, acc: &mut Accumulator) {
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

/// Most rows one move adds (or takes away) per view: two cells, both
/// reserves, both scores.
const MAX_CHANGED: usize = 6;

/// `out` for `child`, which is `pos` after `mv`, from `acc` (that of
/// `pos`): the rows of the cells and reserves the move changed.
pub fn update<B: Board>(
    pos: &Position<B>,
    mv: super::Move<B>,
    child: &Position<B>,
    acc: &Accumulator,
    out: &mut Accumulator,
) {
    match network_for(child.goal()) {
        Some(net) if acc.valid => update_on(net, pos, mv, child, acc, out),
        _ => out.valid = false,
    }
}

/// `update` with `net`.
#[inline]
fn update_on<B: Board>(
    net: &Network,
    pos: &Position<B>,
    mv: super::Move<B>,
    child: &Position<B>,
    acc: &Accumulator,
    out: &mut Accumulator,
) {
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
            for (was, is) in [
                (
                    reserve_input(view, side, pos.reserve(side)),
                    reserve_input(view, side, child.reserve(side)),
                ),
                (
                    score_input(view, side, pos.score(side)),
                    score_input(view, side, child.score(side)),
                ),
            ] {
                if was != is {
                    subs[ns] = net.row(was);
                    adds[na] = net.row(is);
                    ns += 1;
                    na += 1;
                }
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
    let net = network_for(pos.goal())?;
    Some(evaluate_on(net, pos, acc))
}

/// `evaluate_with` with `net`, from valid sums.
#[inline]
fn evaluate_on<B: Board>(net: &Network, pos: &Position<B>, acc: &Accumulator) -> i32 {
    let hidden = net.hidden();
    let view = pos.side_to_move().index();
    let sums = &acc.sums[view * hidden..(view + 1) * hidden];
    net.evaluate_sums(sums, &features(pos))
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

    /// Games to 1, 2 and 3 points with a network (of made-up weights, 32
    /// units) that covers them all: towers change the scores and the
    /// reserves, and the sums kept through them stay the fresh ones; the
    /// evaluation from them is the reference one from the inputs.
    #[test]
    fn the_sums_follow_the_scores_in_games_to_more_points() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(8);
        let net = Network {
            goals: GOALS,
            w1: (0..INPUTS * 32).map(|_| rng.gen_range(-300..300)).collect(),
            b1: (0..32).map(|_| rng.gen_range(-300..300)).collect(),
            w2: (0..32).map(|_| rng.gen_range(-300..300)).collect(),
            b2: 77,
            linear: [5; FEATURES],
        };
        assert_eq!(net.check(), Ok(()));
        let mut towers = 0;
        let mut moves = Vec::new();
        for goal in 1..=3 {
            let variant = MixtourVariant { reserve: 20, goal };
            for _ in 0..30 {
                let mut pos = Mixtour::start(&variant);
                let mut acc = Accumulator::default();
                refresh_on(&net, &pos, &mut acc);
                for _ in 0..150 {
                    if pos.outcome().is_over() {
                        break;
                    }
                    moves.clear();
                    pos.generate_moves(&mut moves);
                    // Towers when there are any, so that scores change.
                    let noisy: Vec<_> =
                        moves.iter().copied().filter(|&m| pos.is_noisy(m)).collect();
                    let mv = if !noisy.is_empty() && rng.gen_ratio(1, 2) {
                        noisy[rng.gen_range(0..noisy.len())]
                    } else {
                        moves[rng.gen_range(0..moves.len())]
                    };
                    let mut child = pos;
                    child.play(mv);
                    towers += usize::from(
                        child.score(Side::P1) + child.score(Side::P2)
                            != pos.score(Side::P1) + pos.score(Side::P2),
                    );
                    let mut next = Accumulator::default();
                    update_on(&net, &pos, mv, &child, &acc, &mut next);
                    let mut fresh = Accumulator::default();
                    refresh_on(&net, &child, &mut fresh);
                    assert_eq!(next.sums, fresh.sums, "{child:?} after {mv}");
                    let mut active = [0; MAX_ACTIVE];
                    let n = super::active(&child, &mut active);
                    assert_eq!(
                        evaluate_on(&net, &child, &next),
                        net.evaluate(&active[..n], &features(&child)),
                        "{child:?}"
                    );
                    (pos, acc) = (child, next);
                }
            }
        }
        assert!(towers > 50, "{towers} towers");
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
        // Seven stacks (b5, e4, c3, a2, b2, e2, a1), two reserves, two
        // scores and the goal.
        assert_eq!(na, 7 + 2 + 2 + 1);
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

    /// The built-in networks cover goals 1, 2 and 3, a network each, and
    /// games to 2 and 3 towers are evaluated by the network too, from
    /// scores as well: a point ahead is good for the side that has it.
    #[test]
    fn the_built_in_networks_cover_one_to_three_towers() {
        let nets = networks();
        assert_eq!(nets.len(), 2);
        assert!(nets[0].covers(1) && !nets[0].covers(2));
        assert!(nets[1].covers(2) && nets[1].covers(3) && !nets[1].covers(1));
        for goal in [2, 3] {
            let fen = |scores: &str| {
                format!("x,1,x3/x4,22/x2,221,x2/2,2,x2,2211/11,x4 1 14,12 {scores} {goal} -")
            };
            let even = Mixtour::from_fen(&MixtourVariant::STANDARD, &fen("0,0")).unwrap();
            let ahead = Mixtour::from_fen(&MixtourVariant::STANDARD, &fen("1,0")).unwrap();
            let (even, ahead) = (evaluate(&even).unwrap(), evaluate(&ahead).unwrap());
            assert!(ahead > even + 50, "goal {goal}: {ahead} {even}");
        }
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
            goals: 1,
            w1: vec![0; INPUTS * 512],
            b1: vec![0; 512],
            w2: vec![i16::MIN; 512],
            b2: 0,
            linear: [0; FEATURES],
        };
        assert!(matches!(loud.check(), Err(NetworkError::Output { .. })));
    }

    /// Each field of the header is checked, and a file that fails says
    /// which; a version 1 file (the format before the header) says so.
    #[test]
    fn a_file_of_another_version_game_goal_or_shape_says_what_is_wrong() {
        let good = include_bytes!("net.bin").to_vec();
        let net = Network::from_bytes(&good).expect("net.bin reads");
        assert_eq!((net.goals, net.hidden()), (1, 64));
        let with = |at: usize, bytes: &[u8]| {
            let mut b = good.clone();
            b[at..at + bytes.len()].copy_from_slice(bytes);
            Network::from_bytes(&b)
        };
        assert_eq!(
            with(8, &3u16.to_le_bytes()),
            Err(NetworkError::Version { found: 3 })
        );
        assert_eq!(
            with(0, b"SFNNUE01"),
            Err(NetworkError::Version { found: 1 })
        );
        assert_eq!(
            with(10, b"focus\0\0\0"),
            Err(NetworkError::Game {
                found: "focus".into()
            })
        );
        assert_eq!(with(18, &[0]), Err(NetworkError::Goals { found: 0 }));
        assert_eq!(with(18, &[8]), Err(NetworkError::Goals { found: 8 }));
        assert_eq!(
            with(20, &792u32.to_le_bytes()),
            Err(NetworkError::Inputs { found: 792 })
        );
        assert_eq!(
            with(24, &128u32.to_le_bytes()),
            Err(NetworkError::Length {
                found: good.len(),
                expected: HEADER_BYTES + 2 * (INPUTS * 128 + 256) + 4 + 4 * FEATURES,
                hidden: 128
            })
        );
        assert_eq!(
            with(24, &60u32.to_le_bytes()),
            Err(NetworkError::Hidden { hidden: 60 })
        );
        assert_eq!(
            with(28, &13u32.to_le_bytes()),
            Err(NetworkError::Features { found: 13 })
        );
        assert_eq!(
            Network::from_bytes(&good[..20]),
            Err(NetworkError::Truncated { found: 20 })
        );
        assert_eq!(
            Network::from_bytes(&good[..good.len() - 1]).map(|_| ()),
            Err(NetworkError::Length {
                found: good.len() - 1,
                expected: good.len(),
                hidden: 64
            })
        );
        assert_eq!(
            Network::from_bytes(b"not a net"),
            Err(NetworkError::BadMagic)
        );
        // A goal-2 network does not evaluate the goal-1 game.
        let mut two = net.clone();
        two.goals = 0b010;
        assert!(two.covers(2) && !two.covers(1) && !two.covers(3));
    }

    #[test]
    fn the_file_round_trips_and_the_shipped_one_reads() {
        let net = Network {
            goals: 1,
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
            goals: 1,
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
