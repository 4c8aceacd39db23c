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
//! The file format, the integer forward pass and the accumulator kernels
//! are every game's (`stackfish_nnue`); this module says what the Mixtour
//! inputs are, and which networks an evaluation plays is its caller's
//! (`Nets`, passed in; the built-in ones by default).

use super::board::{Bits, Board};
use super::eval::{features, linear, FEATURES};
use super::{MoveKind, Position, Stack};
use crate::{Game, Side};
use std::sync::{Arc, OnceLock};

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
/// The goals a network can cover: 1, 2 and 3 points (bits 0, 1, 2 of the
/// header's scope byte, its goals field).
pub const GOALS: u8 = 0b111;

pub use stackfish_nnue::{Accumulator, NetworkError, HEADER_BYTES, MAX_HIDDEN, QA, QB, VERSION};

/// The Mixtour network's shape in the shared format (`stackfish_nnue`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MixtourNet;

impl stackfish_nnue::Layout for MixtourNet {
    const GAME: &'static [u8; 8] = b"mixtour\0";
    const NAME: &'static str = "mixtour";
    const TITLE: &'static str = "Mixtour";
    const INPUTS: usize = INPUTS;
    const FEATURES: usize = FEATURES;
    const SCOPE_BITS: u8 = GOALS;
    const SCOPE_FIELD: &'static str = "goals";
    const SCOPE: &'static str =
        "a network covers one or more of the goals 1, 2 and 3 (bits 0 to 2)";

    /// A stack per cell, a reserve size per side, a goal, a score per side.
    fn groups() -> Vec<std::ops::Range<usize>> {
        (0..CELLS)
            .map(|c| c * CODES..(c + 1) * CODES)
            .chain([
                CELLS * CODES..CELLS * CODES + RESERVES,
                CELLS * CODES + RESERVES..GOAL_INPUTS,
                GOAL_INPUTS..SCORE_INPUTS,
                SCORE_INPUTS..SCORE_INPUTS + SCORES,
                SCORE_INPUTS + SCORES..INPUTS,
            ])
            .collect()
    }
}

/// The quantized Mixtour network.
pub type Network = stackfish_nnue::Network<MixtourNet>;

/// Whether `net` evaluates games to `goal` points.
pub fn covers(net: &Network, goal: u8) -> bool {
    (1..=3).contains(&goal) && net.scope & (1 << (goal - 1)) != 0
}

/// The networks compiled in (`crates/games/src/mixtour/`), each for the
/// goals its header names: `net.bin` for the one-tower game, `net-g23.bin`
/// for games to 2 and 3 towers (tools/train/README.md says how each was
/// made).
const BUILT_IN: [&[u8]; 2] = [include_bytes!("net.bin"), include_bytes!("net-g23.bin")];

/// The networks a Mixtour evaluation reads (`Game::Nets`), in order: the
/// first that covers a game's goal evaluates it. `Default`: the built-in
/// ones; cheap to clone (one list shared).
#[derive(Clone, PartialEq, Eq)]
pub struct Nets(Arc<[Network]>);

impl Nets {
    /// The networks compiled in (`BUILT_IN`), decoded at the first use:
    /// constant data, as a table is.
    pub fn built_in() -> &'static Nets {
        static BUILT_IN_NETS: OnceLock<Nets> = OnceLock::new();
        BUILT_IN_NETS.get_or_init(|| {
            Nets(
                BUILT_IN
                    .iter()
                    .filter_map(|b| Network::from_bytes(b).ok())
                    .collect(),
            )
        })
    }

    /// No network: the linear evaluation everywhere.
    pub fn none() -> Nets {
        Nets(Arc::from([]))
    }

    /// `net` before the built-in networks, so that it evaluates the goals
    /// it covers: a trained network played without a rebuild. Only a
    /// network that passes `Network::check` (every one `from_bytes`
    /// reads): its error otherwise.
    pub fn before_built_in(net: Network) -> Result<Nets, NetworkError> {
        net.check()?;
        let built_in = Nets::built_in().list().iter().cloned();
        Ok(Nets(std::iter::once(net).chain(built_in).collect()))
    }

    /// The networks in order.
    pub fn list(&self) -> &[Network] {
        &self.0
    }

    /// The first of the list (the built-in one for the one-tower game).
    pub fn first(&self) -> Option<&Network> {
        self.0.first()
    }

    /// The network that evaluates games to `goal` points, if any.
    #[inline]
    pub fn for_goal(&self, goal: u8) -> Option<&Network> {
        self.0.iter().find(|n| covers(n, goal))
    }
}

/// The goals and hidden units of each network (their weights are long).
impl std::fmt::Debug for Nets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.0.iter().map(|n| (n.scope, n.hidden())))
            .finish()
    }
}

impl Default for Nets {
    fn default() -> Nets {
        Nets::built_in().clone()
    }
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
fn inputs<B: Board>(pos: &Position<B>, view: Side, out: &mut [u16]) -> usize {
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

/// The input `input` of a position seen through symmetry `sym` (0..8) of
/// the 5 x 5 board (bit 0 mirrors the files, bit 1 the ranks, bit 2 swaps
/// files and ranks): lines along ranks, files and diagonals stay lines, so
/// a position and its image have the same value and the same linear
/// features, and `stackfish train` learns from both. Reserves, goal and
/// scores stay.
pub fn symmetric_input(input: usize, sym: usize) -> usize {
    if input >= CELLS * CODES {
        return input;
    }
    let (cell, code) = (input / CODES, input % CODES);
    crate::nnue::symmetric_square(cell, 5, sym) * CODES + code
}

/// The evaluation of `pos` (`Game::evaluate`): the network's of `nets`
/// where it applies (the standard game) and no term is ablated; the
/// weighted features (`eval::linear`) elsewhere.
#[inline(always)]
pub fn evaluate<B: Board>(nets: &Nets, pos: &Position<B>) -> i32 {
    if crate::ablate::ABLATED.is_none() {
        if let Some(v) = network_value(nets, pos) {
            return v;
        }
    }
    linear(pos)
}

/// `evaluate` from the network's sums kept for `pos` by the search
/// (`Game::evaluate_with`).
#[inline]
pub fn evaluate_with<B: Board>(nets: &Nets, pos: &Position<B>, acc: &Accumulator) -> i32 {
    match network_value_with(nets, pos, acc) {
        Some(v) => v,
        None => evaluate(nets, pos),
    }
}

/// The evaluation of `nets`' network of `pos`, if there is one and it
/// applies.
pub fn network_value<B: Board>(nets: &Nets, pos: &Position<B>) -> Option<i32> {
    if !applies(pos) {
        return None;
    }
    let net = nets.for_goal(pos.goal())?;
    let mut inputs = [0u16; MAX_ACTIVE];
    let n = active(pos, &mut inputs);
    Some(net.evaluate_fast(&inputs[..n], &features(pos)))
}

/// The network of `nets` to keep sums for, if it evaluates `pos`.
fn network_of<'n, B: Board>(nets: &'n Nets, pos: &Position<B>) -> Option<&'n Network> {
    if crate::ablate::ABLATED.is_some() || !applies(pos) {
        return None;
    }
    nets.for_goal(pos.goal())
}

/// `acc` for `pos`, from scratch.
pub fn refresh<B: Board>(nets: &Nets, pos: &Position<B>, acc: &mut Accumulator) {
    match network_of(nets, pos) {
        Some(net) => refresh_on(net, pos, acc),
        None => acc.invalidate(),
    }
}

/// `refresh` with `net`.
fn refresh_on<B: Board>(net: &Network, pos: &Position<B>, acc: &mut Accumulator) {
    net.refresh(acc, Side::BOTH, |view, out| inputs(pos, view, out));
}

/// `out` for `child`, which is `pos` after `mv`, from `acc` (that of
/// `pos`): the rows of the cells and reserves the move changed.
pub fn update<B: Board>(
    nets: &Nets,
    pos: &Position<B>,
    mv: super::Move<B>,
    child: &Position<B>,
    acc: &Accumulator,
    out: &mut Accumulator,
) {
    match nets.for_goal(child.goal()) {
        Some(net) if acc.is_valid() => update_on(net, pos, mv, child, acc, out),
        _ => out.invalidate(),
    }
}

/// `update` with `net`: at most two cells, both reserves and both scores
/// change.
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
    net.update(acc, out, Side::BOTH, |view, delta| {
        for cell in cells.into_iter().flatten() {
            let (was, is) = (pos.stack(cell), child.stack(cell));
            if !was.is_empty() {
                delta.off(cell_input::<B>(view, cell as usize, was));
            }
            if !is.is_empty() {
                delta.on(cell_input::<B>(view, cell as usize, is));
            }
        }
        for side in Side::BOTH {
            delta.change(
                reserve_input(view, side, pos.reserve(side)),
                reserve_input(view, side, child.reserve(side)),
            );
            delta.change(
                score_input(view, side, pos.score(side)),
                score_input(view, side, child.score(side)),
            );
        }
    });
}

/// The network's evaluation of `pos` from `acc`, kept for it by `refresh`
/// and `update`; `None` where the network does not evaluate `pos`.
#[inline]
pub fn network_value_with<B: Board>(
    nets: &Nets,
    pos: &Position<B>,
    acc: &Accumulator,
) -> Option<i32> {
    if !acc.is_valid() {
        return None;
    }
    let net = nets.for_goal(pos.goal())?;
    Some(evaluate_on(net, pos, acc))
}

/// `evaluate_with` with `net`, from valid sums.
#[inline]
fn evaluate_on<B: Board>(net: &Network, pos: &Position<B>, acc: &Accumulator) -> i32 {
    net.evaluate_kept(acc, pos.side_to_move().index(), &features(pos))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mixtour::{Mixtour, MixtourVariant};

    /// Random games with the sums kept from move to move
    /// (`crate::nnue::check_engine_path`), on both board types, and where
    /// the network does not apply (other goals and boards), where both give
    /// the linear evaluation.
    #[test]
    fn the_sums_kept_move_by_move_are_the_sums_afresh() {
        use crate::mixtour::ap::{ap_variant, ApMixtour};
        use crate::mixtour::MixtourGrid;
        use crate::nnue::check_engine_path;
        let standard = Mixtour::start(&MixtourVariant::STANDARD);
        assert!(check_engine_path(&standard, 40, 80, 1) > 1000);
        let five = Mixtour::start(&MixtourVariant::FIVE_POINTS);
        assert_eq!(check_engine_path(&five, 40, 80, 2), 0);
        let ap = ApMixtour::start(&ap_variant(1));
        assert!(check_engine_path(&ap, 40, 80, 3) > 1000);
        let grid = |fen: &str| MixtourGrid::from_fen(&MixtourVariant::STANDARD, fen).unwrap();
        let five_by_five = grid("x5/x5/x5/x5/x5 1 20,20 0,0 1 -");
        assert!(check_engine_path(&five_by_five, 40, 80, 4) > 1000);
        let seven = grid("x7/x7/x7/x7/x7/x7/x7 1 20,20 0,0 1 -");
        assert_eq!(check_engine_path(&seven, 40, 80, 5), 0);
        let holed = grid("x5/x5/x2,#,x2/x5/x5 1 20,20 0,0 1 -");
        assert_eq!(check_engine_path(&holed, 40, 80, 6), 0);
    }

    /// Games to 1, 2 and 3 points with a network (of made-up weights, 32
    /// units) that covers them all: towers change the scores and the
    /// reserves, and the sums kept through them stay the fresh ones; the
    /// evaluation from them is the reference one from the inputs.
    #[test]
    fn the_sums_follow_the_scores_in_games_to_more_points() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(8);
        let net = Network::new(
            GOALS,
            (0..INPUTS * 32).map(|_| rng.gen_range(-300..300)).collect(),
            (0..32).map(|_| rng.gen_range(-300..300)).collect(),
            (0..32).map(|_| rng.gen_range(-300..300)).collect(),
            77,
            vec![5; FEATURES],
        );
        assert_eq!(net.check(), Ok(()));
        let mut towers = 0;
        for goal in 1..=3 {
            let variant = MixtourVariant { reserve: 20, goal };
            crate::nnue::check_kept_sums(
                &Mixtour::start(&variant),
                30,
                150,
                8 + u64::from(goal),
                |pos, acc| refresh_on(&net, pos, acc),
                |pos, mv, child, acc, out| update_on(&net, pos, mv, child, acc, out),
                |child, kept| {
                    let mut active = [0; MAX_ACTIVE];
                    let n = super::active(child, &mut active);
                    assert_eq!(
                        evaluate_on(&net, child, kept),
                        net.evaluate(&active[..n], &features(child)),
                        "{child:?}"
                    );
                },
                |pos, _, child| {
                    towers += usize::from(
                        child.score(Side::P1) + child.score(Side::P2)
                            != pos.score(Side::P1) + pos.score(Side::P2),
                    );
                },
            );
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
        let nets = Nets::built_in();
        assert_eq!(
            network_value(nets, &standard),
            Some(evaluate(nets, &standard))
        );
        assert_eq!(network_value(nets, &five), None);
        assert_eq!(evaluate(nets, &five), super::super::eval::linear(&five));
    }

    /// The built-in networks cover goals 1, 2 and 3, a network each, and
    /// games to 2 and 3 towers are evaluated by the network too, from
    /// scores as well: a point ahead is good for the side that has it.
    #[test]
    fn the_built_in_networks_cover_one_to_three_towers() {
        let nets = Nets::built_in().list();
        assert_eq!(nets.len(), 2);
        assert!(covers(&nets[0], 1) && !covers(&nets[0], 2));
        assert!(covers(&nets[1], 2) && covers(&nets[1], 3) && !covers(&nets[1], 1));
        for goal in [2, 3] {
            let fen = |scores: &str| {
                format!("x,1,x3/x4,22/x2,221,x2/2,2,x2,2211/11,x4 1 14,12 {scores} {goal} -")
            };
            let even = Mixtour::from_fen(&MixtourVariant::STANDARD, &fen("0,0")).unwrap();
            let ahead = Mixtour::from_fen(&MixtourVariant::STANDARD, &fen("1,0")).unwrap();
            let (even, ahead) = (
                network_value(Nets::built_in(), &even).unwrap(),
                network_value(Nets::built_in(), &ahead).unwrap(),
            );
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
        let (to_move, waiting) = (
            network_value(Nets::built_in(), &p1).unwrap(),
            network_value(Nets::built_in(), &p2).unwrap(),
        );
        assert!(to_move > 200 && waiting < 0, "{to_move} {waiting}");
    }

    /// A network whose 16-bit sums could wrap does not load: the shipped
    /// one's every unit sums to well within 16 bits, and one row of a
    /// cell's weights at the extreme is too much.
    #[test]
    fn a_network_whose_sums_could_wrap_is_refused() {
        let shipped = Nets::built_in().first().expect("the shipped network reads");
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
        let loud = Network::new(
            1,
            vec![0; INPUTS * 512],
            vec![0; 512],
            vec![i16::MIN; 512],
            0,
            vec![0; FEATURES],
        );
        assert!(matches!(loud.check(), Err(NetworkError::Output { .. })));
    }

    /// Each field of the header is checked, and a file that fails says
    /// which; a version 1 file (the format before the header) says so.
    #[test]
    fn a_file_of_another_version_game_goal_or_shape_says_what_is_wrong() {
        let good = include_bytes!("net.bin").to_vec();
        let net = Network::from_bytes(&good).expect("net.bin reads");
        assert_eq!((net.scope, net.hidden()), (1, 256));
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
                found: "focus".into(),
                expected: "mixtour"
            })
        );
        assert!(matches!(
            with(18, &[0]),
            Err(NetworkError::Scope { found: 0, .. })
        ));
        assert!(matches!(
            with(18, &[8]),
            Err(NetworkError::Scope { found: 8, .. })
        ));
        assert_eq!(
            with(20, &792u32.to_le_bytes()),
            Err(NetworkError::Inputs {
                found: 792,
                expected: INPUTS,
                game: "Mixtour"
            })
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
            Err(NetworkError::Features {
                found: 13,
                expected: FEATURES,
                game: "Mixtour"
            })
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
                hidden: 256
            })
        );
        assert_eq!(
            Network::from_bytes(b"not a net"),
            Err(NetworkError::BadMagic)
        );
        // A goal-2 network does not evaluate the goal-1 game.
        let mut two = net.clone();
        two.scope = 0b010;
        assert!(covers(&two, 2) && !covers(&two, 1) && !covers(&two, 3));
    }

    #[test]
    fn the_file_round_trips_and_the_shipped_one_reads() {
        let net = Network::new(
            1,
            (0..INPUTS * HIDDEN).map(|i| (i % 97) as i16 - 48).collect(),
            (0..HIDDEN).map(|i| i as i16).collect(),
            (0..HIDDEN).map(|i| -(i as i16)).collect(),
            -12345,
            vec![3; FEATURES],
        );
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
        let extreme = |w: i16, b: i32| {
            Network::new(
                1,
                vec![w; INPUTS * HIDDEN],
                vec![w; HIDDEN],
                vec![w; HIDDEN],
                b,
                vec![b; FEATURES],
            )
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
