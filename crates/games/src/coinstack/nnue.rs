//! The learned evaluation of Focus: one hidden layer over sparse inputs
//! plus the linear terms of `eval` with weights of their own, in the
//! network format every game shares (`crate::nnue`). Trained by `stackfish
//! train` on Focus records; a network that passes its gate ships in
//! `net-focus.bin` next to this file (none has yet: `BUILT_IN`), and any
//! is played through `STACKFISH_NET`. Coin Stack (the diagonal game) keeps
//! the weighted features alone, as Focus does without a network.
//!
//! Inputs, from the side to move's view (colours swapped when player 2 is
//! to move, so one set of weights serves both): one per cell of the 52 and
//! stack (62 stacks of height 1 to 5, each order of colours: the top coin
//! says who moves it, the coins under it what a capture or a trim takes);
//! one per reserve size 0 to 18 of each side, and one per count 0 to 18 of
//! enemy coins each side has captured. At most 52 + 4 are active.
//!
//! The search keeps the first layer's sums per ply (`Accumulator`): a move
//! changes its source and destination cells, the mover's reserve and the
//! mover's captures, so a child's sums are its parent's plus and minus at
//! most six rows of weights.

use super::eval::{features, FEATURES};
use super::tables::{BOARD, SIZE};
use super::{CoinStack, CoinStackVariant, Move, MoveKind, Stack, COINS};
use crate::nnue::Layout;
use crate::{Game, Side};

pub use crate::nnue::{Accumulator, NetworkError};

/// The squares of the board.
pub const CELLS: usize = 52;
/// Stacks of height 1 to 5: codes 2..=63 of `Stack` (sentinel bit on top).
pub const CODES: usize = 62;
/// Counts 0..=18 of one side's reserve (or captures).
pub const COUNTS: usize = COINS as usize + 1;
/// Where the reserve inputs start: the side to move's, then the
/// opponent's.
pub const RESERVE_INPUTS: usize = CELLS * CODES;
/// Where the capture inputs start: the side to move's, then the
/// opponent's.
pub const CAPTURE_INPUTS: usize = RESERVE_INPUTS + 2 * COUNTS;
pub const INPUTS: usize = CAPTURE_INPUTS + 2 * COUNTS;
/// The hidden units `stackfish train` gives a Focus network.
pub const HIDDEN: usize = 64;
/// Most inputs active at once: a stack per cell, two reserves, two
/// capture counts.
pub const MAX_ACTIVE: usize = CELLS + 4;
/// The scope byte of a Focus network: bit 0, the standard game.
pub const SCOPE: u8 = 1;

/// The Focus network's shape in the shared format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FocusNet;

impl Layout for FocusNet {
    const GAME: &'static [u8; 8] = b"focus\0\0\0";
    const NAME: &'static str = "focus";
    const TITLE: &'static str = "Focus";
    const INPUTS: usize = INPUTS;
    const FEATURES: usize = FEATURES;
    const SCOPE_BITS: u8 = SCOPE;
    const SCOPE_FIELD: &'static str = "scope";
    const SCOPE: &'static str = "a Focus network has scope 1 (the standard game)";

    /// A stack per cell, a reserve size per side, a capture count per side.
    fn groups() -> Vec<std::ops::Range<usize>> {
        (0..CELLS)
            .map(|c| c * CODES..(c + 1) * CODES)
            .chain((0..4).map(|g| RESERVE_INPUTS + g * COUNTS..RESERVE_INPUTS + (g + 1) * COUNTS))
            .collect()
    }
}

/// The quantized Focus network.
pub type Network = crate::nnue::Network<FocusNet>;

/// The networks compiled in: none yet. A Focus network is played through
/// `STACKFISH_NET` (tools/train/README.md; none has passed its gate, see
/// tournaments/log.md), and is compiled in by listing it here
/// (`include_bytes!("net-focus.bin")`) once one does.
const BUILT_IN: [&[u8]; 0] = [];

static NETWORKS: crate::nnue::Networks<FocusNet> = crate::nnue::Networks::new(&BUILT_IN);

/// The network Focus is evaluated by: the one `install`ed, else the
/// built-in one.
#[inline]
pub fn network() -> Option<&'static Network> {
    NETWORKS.get().first()
}

/// Puts `net` before the built-in network for the rest of the process
/// (`None`: no network, the weighted features): only before the first
/// evaluation, and only a network that passes `Network::check`.
pub fn install(net: Option<Network>) -> bool {
    NETWORKS.install(net)
}

/// Whether the network knows this kind of position: Focus, not Coin Stack.
#[inline]
pub fn applies(pos: &CoinStack) -> bool {
    pos.variant() == CoinStackVariant::Focus
}

/// The cell (0..52) of a square of the board, counted along the ranks.
#[inline(always)]
pub fn cell_of(square: u8) -> usize {
    CELL_OF[square as usize & 63] as usize
}

/// `cell_of` as a table: a load where the bit count would be a dozen
/// instructions on CPUs without `popcnt` (the baseline build's).
const CELL_OF: [u8; 64] = {
    let mut table = [0u8; 64];
    let mut sq = 0;
    while sq < 64 {
        table[sq] = (BOARD & ((1u64 << sq) - 1)).count_ones() as u8;
        sq += 1;
    }
    table
};

/// The input of `stack` on `square` from `view`'s side: our coins read as
/// player 1's.
#[inline(always)]
fn cell_input(view: Side, square: u8, stack: Stack) -> usize {
    let h = stack.height();
    let mut code = stack.code();
    if view == Side::P2 {
        // Swap colours below the sentinel bit.
        code ^= (1 << h) - 1;
    }
    cell_of(square) * CODES + code as usize - 2
}

/// The input of `side`'s count `n` in the group at `base` (reserves or
/// captures), from `view`'s side.
#[inline(always)]
fn count_input(base: usize, view: Side, side: Side, n: u8) -> usize {
    let whose = if side == view { 0 } else { COUNTS };
    base + whose + (n as usize).min(COUNTS - 1)
}

/// The active inputs of `pos` from `view`'s side; returns how many.
fn inputs(pos: &CoinStack, view: Side, out: &mut [u16]) -> usize {
    let mut n = 0;
    let mut occupied = pos.occupied() & BOARD;
    while occupied != 0 {
        let sq = occupied.trailing_zeros() as u8;
        occupied &= occupied - 1;
        out[n] = cell_input(view, sq, pos.stack(sq)) as u16;
        n += 1;
    }
    for side in [view, view.opponent()] {
        out[n] = count_input(RESERVE_INPUTS, view, side, pos.reserve(side)) as u16;
        out[n + 1] = count_input(CAPTURE_INPUTS, view, side, pos.captured(side)) as u16;
        n += 2;
    }
    n
}

/// The active inputs of `pos` from the side to move's view; returns how
/// many were written.
pub fn active(pos: &CoinStack, out: &mut [u16; MAX_ACTIVE]) -> usize {
    inputs(pos, pos.side_to_move(), out)
}

/// The network to evaluate `pos` with, if one does.
#[inline]
fn network_of(pos: &CoinStack) -> Option<&'static Network> {
    if crate::ablate::ABLATED.is_some() || !applies(pos) {
        return None;
    }
    network()
}

/// The network's evaluation of `pos`, if a network evaluates it.
pub fn evaluate(pos: &CoinStack) -> Option<i32> {
    let net = network_of(pos)?;
    let mut inputs = [0u16; MAX_ACTIVE];
    let n = active(pos, &mut inputs);
    Some(net.evaluate_fast(&inputs[..n], &features_for(net, pos)))
}

/// The linear features `net` weighs: none (zeros, the same sum) for a
/// network without linear weights, which saves most of an evaluation's
/// cost.
#[inline(always)]
fn features_for(net: &Network, pos: &CoinStack) -> [i32; FEATURES] {
    if net.has_linear() {
        features(pos)
    } else {
        [0; FEATURES]
    }
}

/// `acc` for `pos`, from scratch.
pub fn refresh(pos: &CoinStack, acc: &mut Accumulator) {
    match network_of(pos) {
        Some(net) => refresh_on(net, pos, acc),
        None => acc.invalidate(),
    }
}

/// `refresh` with `net`.
fn refresh_on(net: &Network, pos: &CoinStack, acc: &mut Accumulator) {
    net.refresh(acc, |view, out| inputs(pos, view, out));
}

/// `out` for `child`, which is `pos` after `mv`, from `acc` (that of
/// `pos`): the rows of the cells, reserves and captures the move changed.
#[inline]
pub fn update(
    pos: &CoinStack,
    mv: Move,
    child: &CoinStack,
    acc: &Accumulator,
    out: &mut Accumulator,
) {
    match network_of(child) {
        Some(net) if acc.is_valid() => update_on(net, pos, mv, child, acc, out),
        _ => out.invalidate(),
    }
}

/// `update` with `net`.
#[inline]
fn update_on(
    net: &Network,
    pos: &CoinStack,
    mv: Move,
    child: &CoinStack,
    acc: &Accumulator,
    out: &mut Accumulator,
) {
    let squares = match mv.kind() {
        MoveKind::Drop(to) => [None, Some(to)],
        MoveKind::Step { from, to, .. } => [Some(from), Some(to)],
    };
    net.update(acc, out, |view, delta| {
        for sq in squares.into_iter().flatten() {
            let (was, is) = (pos.stack(sq), child.stack(sq));
            if !was.is_empty() {
                delta.off(cell_input(view, sq, was));
            }
            if !is.is_empty() {
                delta.on(cell_input(view, sq, is));
            }
        }
        for side in Side::BOTH {
            delta.change(
                count_input(RESERVE_INPUTS, view, side, pos.reserve(side)),
                count_input(RESERVE_INPUTS, view, side, child.reserve(side)),
            );
            delta.change(
                count_input(CAPTURE_INPUTS, view, side, pos.captured(side)),
                count_input(CAPTURE_INPUTS, view, side, child.captured(side)),
            );
        }
    });
}

/// The network's evaluation of `pos` from `acc`, kept for it by `refresh`
/// and `update`; `None` where no network evaluates `pos`.
#[inline]
pub fn evaluate_with(pos: &CoinStack, acc: &Accumulator) -> Option<i32> {
    if !acc.is_valid() {
        return None;
    }
    let net = network_of(pos)?;
    Some(net.evaluate_kept(acc, pos.side_to_move(), &features_for(net, pos)))
}

/// The input `input` of a position seen through symmetry `sym` (0..8) of
/// the board: the 52 squares and the orthogonal moves are the same under
/// the square's eight symmetries, so a position and its image have the
/// same value (`stackfish train` learns from both). Counts stay.
pub fn symmetric_input(input: usize, sym: usize) -> usize {
    if input >= RESERVE_INPUTS {
        return input;
    }
    let (cell, code) = (input / CODES, input % CODES);
    let square = nth_square(cell);
    let (mut f, mut r) = (square % SIZE, square / SIZE);
    if sym & 1 != 0 {
        f = SIZE - 1 - f;
    }
    if sym & 2 != 0 {
        r = SIZE - 1 - r;
    }
    if sym & 4 != 0 {
        (f, r) = (r, f);
    }
    cell_of((r * SIZE + f) as u8) * CODES + code
}

/// The square of cell `cell` (the inverse of `cell_of`).
fn nth_square(cell: usize) -> usize {
    let mut board = BOARD;
    for _ in 0..cell {
        board &= board - 1;
    }
    board.trailing_zeros() as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// A network of made-up weights, 32 units.
    fn made_up(seed: u64) -> Network {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        Network::new(
            SCOPE,
            (0..INPUTS * 32).map(|_| rng.gen_range(-200..200)).collect(),
            (0..32).map(|_| rng.gen_range(-200..200)).collect(),
            (0..32).map(|_| rng.gen_range(-300..300)).collect(),
            77,
            vec![5; FEATURES],
        )
    }

    /// Random Focus games, with trims and captures (the noisy moves half
    /// the time when there are any): the sums kept from move to move are
    /// at every position the sums computed afresh, and the evaluation from
    /// them is the reference one from the inputs.
    #[test]
    fn incremental_equals_fresh() {
        let net = made_up(5);
        assert_eq!(net.check(), Ok(()));
        let (mut trims, mut drops) = (0, 0);
        let evaluated = crate::nnue::check_kept_sums(
            &CoinStack::start(&CoinStackVariant::Focus),
            40,
            200,
            9,
            |pos, acc| refresh_on(&net, pos, acc),
            |pos, mv, child, acc, out| update_on(&net, pos, mv, child, acc, out),
            |child, kept| {
                let mut active = [0; MAX_ACTIVE];
                let n = super::active(child, &mut active);
                assert_eq!(
                    net.evaluate_kept(kept, child.side_to_move(), &features(child)),
                    net.evaluate(&active[..n], &features(child)),
                    "{child:?}"
                );
            },
            |pos, mv, _| {
                trims += usize::from(pos.is_noisy(mv));
                drops += usize::from(matches!(mv.kind(), MoveKind::Drop(_)));
            },
        );
        assert!(
            evaluated > 2000 && trims > 200 && drops > 20,
            "{evaluated} {trims} {drops}"
        );
    }

    /// The same through the engine's path (`Game::eval_update` with the
    /// built-in network): the evaluation from kept sums is always the
    /// evaluation from scratch, in Focus by the network and in Coin Stack
    /// by the weighted features.
    #[test]
    fn the_games_evaluation_from_kept_sums_is_the_fresh_one() {
        for (variant, seed) in [
            (CoinStackVariant::Focus, 11),
            (CoinStackVariant::CoinStack, 12),
        ] {
            let start = CoinStack::start(&variant);
            let valid = crate::nnue::check_engine_path(&start, 20, 120, seed);
            // Focus has a network in a build that ships one.
            let networked = variant == CoinStackVariant::Focus && network().is_some();
            assert_eq!(valid > 1000, networked, "{variant:?}: {valid}");
            assert!(networked || valid == 0, "{variant:?}: {valid}");
        }
    }

    #[test]
    fn inputs_are_the_same_with_colours_and_turn_swapped() {
        let a = CoinStack::from_fen(
            &CoinStackVariant::Focus,
            "x4/x6/x2,1,x5/x3,12,x4/x4,221,x3/x8/x,2,x4/x4 1 3,1 2,4",
        );
        let b = CoinStack::from_fen(
            &CoinStackVariant::Focus,
            "x4/x6/x2,2,x5/x3,21,x4/x4,112,x3/x8/x,1,x4/x4 2 1,3 4,2",
        );
        let (a, b) = match (a, b) {
            (Ok(a), Ok(b)) => (a, b),
            (a, b) => panic!("{a:?} {b:?}"),
        };
        let (mut ia, mut ib) = ([0; MAX_ACTIVE], [0; MAX_ACTIVE]);
        let (na, nb) = (active(&a, &mut ia), active(&b, &mut ib));
        assert_eq!(ia[..na], ib[..nb]);
        assert_eq!(na, 4 + 4);
        assert!(ia[..na].iter().all(|&i| (i as usize) < INPUTS));
    }

    /// The eight symmetries map the board's cells onto themselves, each
    /// cell once, and the image of a position's inputs are the inputs of
    /// the mirrored position.
    #[test]
    fn symmetries_permute_the_cells() {
        for sym in 0..8 {
            let mut seen = [false; CELLS];
            for cell in 0..CELLS {
                let image = symmetric_input(cell * CODES + 5, sym);
                assert_eq!(image % CODES, 5);
                assert!(!std::mem::replace(&mut seen[image / CODES], true));
                assert_eq!(cell_of(nth_square(cell) as u8), cell);
            }
            assert_eq!(symmetric_input(RESERVE_INPUTS + 3, sym), RESERVE_INPUTS + 3);
        }
        // Files mirrored: c1 (square 2) is f1 (square 5).
        let c1 = cell_of(2) * CODES;
        assert_eq!(symmetric_input(c1, 1), cell_of(5) * CODES);
        // Ranks mirrored: c1 is c8 (square 58); transposed: a3 (16).
        assert_eq!(symmetric_input(c1, 2), cell_of(58) * CODES);
        assert_eq!(symmetric_input(c1, 4), cell_of(16) * CODES);
    }

    #[test]
    fn a_file_of_another_game_or_scope_says_what_is_wrong() {
        let net = made_up(1);
        let bytes = net.to_bytes();
        assert_eq!(Network::from_bytes(&bytes), Ok(net));
        assert_eq!(crate::nnue::game_of(&bytes).as_deref(), Some("focus"));
        let mut other = bytes.clone();
        other[18] = 2;
        assert!(matches!(
            Network::from_bytes(&other),
            Err(NetworkError::Scope { found: 2, .. })
        ));
        let mixtour = crate::mixtour::nnue::network()
            .expect("the Mixtour network")
            .to_bytes();
        assert_eq!(
            Network::from_bytes(&mixtour),
            Err(NetworkError::Game {
                found: "mixtour".into(),
                expected: "focus"
            })
        );
        let mut short = bytes.clone();
        short.truncate(bytes.len() - 4);
        assert!(matches!(
            Network::from_bytes(&short),
            Err(NetworkError::Length { hidden: 32, .. })
        ));
    }
}
