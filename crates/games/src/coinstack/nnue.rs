//! The learned evaluation of Focus: one hidden layer over sparse inputs
//! plus the linear terms of `eval` with weights of their own, in the
//! network format every game shares (`stackfish_nnue`). Trained by `stackfish
//! train` on Focus records; the one that passed its gate ships in
//! `net-focus.bin` next to this file (`BUILT_IN`), and any other is
//! played through `STACKFISH_NET`. Coin Stack (the diagonal game) keeps
//! the weighted features alone, as Focus does with `STACKFISH_NET=none`.
//!
//! Inputs, from the side to move's view (colours swapped when player 2 is
//! to move, so one set of weights serves both): one per cell of the 52 and
//! stack (62 stacks of height 1 to 5, each order of colours: the top coin
//! says who moves it, the coins under it what a capture or a trim takes);
//! one per reserve size 0 to 18 of each side, and one per count 0 to 18 of
//! enemy coins each side has captured. At most 52 + 4 are active.
//!
//! The search keeps the first layer's sums per ply (`Accumulator`), for
//! both views and with the linear terms beside them (`Paired`: each of
//! them is a sum over the inputs): a move changes its source and
//! destination cells, the mover's reserve and the mover's captures, so a
//! child's sums are its parent's plus and minus at most eight rows of the
//! paired table, in one pass for both views.

use std::sync::{Arc, OnceLock};

#[cfg(test)]
use super::eval::features;
use super::eval::{linear, FEATURES, NAMES};
use super::tables::{BOARD, REACH, SIZE};
use super::{CoinStack, CoinStackVariant, Move, MoveKind, Stack, COINS};
use crate::{Game, Side};
use stackfish_nnue::{simd, Layout, QA, QB};

pub use stackfish_nnue::{Accumulator, NetworkError};

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

    /// The linear part is kept in a 16-bit lane beside the sums
    /// (`Paired`): at most one input of each group is active, so its
    /// largest share per group bounds it.
    fn check_layout(net: &Network) -> Result<(), NetworkError> {
        let shares = linear_part(&net.linear);
        let bound: i64 = Self::groups()
            .into_iter()
            .map(|g| shares[g].iter().map(|s| s.abs()).max().unwrap_or(0))
            .sum();
        if bound > i64::from(i16::MAX) {
            return Err(NetworkError::Linear { bound });
        }
        Ok(())
    }
}

/// The quantized Focus network.
pub type Network = stackfish_nnue::Network<FocusNet>;

/// The network compiled in: `net-focus.bin` (tools/train/README.md says
/// how it was made, tournaments/log.md what it gained).
const BUILT_IN: [&[u8]; 1] = [include_bytes!("net-focus.bin")];

/// The network a Focus evaluation reads (`Game::Nets`), if any, with its
/// layout for the search (`Paired`), made once when the network is
/// given. `Default`: the built-in one; cheap to clone (one layout shared).
#[derive(Clone)]
pub struct Nets(Option<Arc<Laid>>);

/// A network and its layout for the search.
struct Laid {
    network: Network,
    paired: Paired,
}

impl Nets {
    /// The network compiled in (`BUILT_IN`), decoded and laid out at the
    /// first use: constant data, as a table is.
    pub fn built_in() -> &'static Nets {
        static BUILT_IN_NETS: OnceLock<Nets> = OnceLock::new();
        BUILT_IN_NETS.get_or_init(|| {
            let first = BUILT_IN.iter().find_map(|b| Network::from_bytes(b).ok());
            first.map_or_else(Nets::none, Nets::laid)
        })
    }

    /// No network: the weighted features.
    pub fn none() -> Nets {
        Nets(None)
    }

    /// Focus evaluated by `net` instead of the built-in network: a trained
    /// network played without a rebuild. Only a network that passes
    /// `Network::check` (every one `from_bytes` reads): its error
    /// otherwise.
    pub fn new(net: Network) -> Result<Nets, NetworkError> {
        net.check()?;
        Ok(Nets::laid(net))
    }

    /// `net`, checked, with its layout for the search.
    fn laid(net: Network) -> Nets {
        let paired = Paired::new(&net);
        Nets(Some(Arc::new(Laid {
            network: net,
            paired,
        })))
    }

    /// The network, if there is one.
    pub fn network(&self) -> Option<&Network> {
        self.0.as_deref().map(|laid| &laid.network)
    }

    /// The network laid out for the search, if there is one.
    #[inline(always)]
    fn paired(&self) -> Option<&Paired> {
        self.0.as_deref().map(|laid| &laid.paired)
    }
}

impl Default for Nets {
    fn default() -> Nets {
        Nets::built_in().clone()
    }
}

impl std::fmt::Debug for Nets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Nets")
            .field(&self.network().map(Network::hidden))
            .finish()
    }
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

/// The network of `nets` laid out for the search, if it evaluates `pos`.
#[inline(always)]
fn paired_of<'n>(nets: &'n Nets, pos: &CoinStack) -> Option<&'n Paired> {
    if crate::ablate::ABLATED.is_some() || !applies(pos) {
        return None;
    }
    nets.paired()
}

/// A Focus network laid out for the search, so that a move costs one pass
/// over one list of rows. Per input, counted from player 1's view (the
/// board as it is): the input's row of the first layer, the row of the
/// same stack or count from player 2's view beside it, then one vector
/// (`simd::LANES` lanes) whose first two lanes are the input's part of
/// the linear features from each view. The kept sums (`Accumulator`) have
/// the same layout: player 1's hidden sums, player 2's, the linear part.
///
/// The linear part is kept with the sums because every feature of
/// `eval::features` is, in Focus, a sum over the inputs (a stack's height
/// and owner on its cell, a count): `linear_part` gives each input its
/// share. The one exception is `coin_in_play`'s floor at 0, which no
/// position reached from the start meets (a side's reserve and the coins
/// taken from it are at most its 18 coins), so in play the network's
/// evaluation is `Network::evaluate` of the inputs and `features`
/// exactly (a test compares them).
pub struct Paired {
    hidden: usize,
    /// `2 * hidden + simd::LANES`.
    width: usize,
    /// `INPUTS` rows of `width`.
    rows: Vec<i16>,
    /// The biases of both views, then zeros: the sums of no input.
    bias: Vec<i16>,
    w2: Vec<i16>,
    b2: i64,
    /// The linear part's constant: the tempo feature is always 1.
    tempo: i64,
}

impl Paired {
    fn new(net: &Network) -> Paired {
        let hidden = net.hidden();
        let width = 2 * hidden + simd::LANES;
        let linear = linear_part(&net.linear);
        let mut rows = vec![0i16; INPUTS * width];
        for (input, row) in rows.chunks_exact_mut(width).enumerate() {
            let mirror = mirror_input(input);
            row[..hidden].copy_from_slice(net.row(input));
            row[hidden..2 * hidden].copy_from_slice(net.row(mirror));
            // `Network::check` (`FocusNet::check_linear`) bounds the sums
            // of these within 16 bits.
            row[2 * hidden] = linear[input] as i16;
            row[2 * hidden + 1] = linear[mirror] as i16;
        }
        let mut bias = vec![0i16; width];
        bias[..hidden].copy_from_slice(&net.b1);
        bias[hidden..2 * hidden].copy_from_slice(&net.b1);
        Paired {
            hidden,
            width,
            rows,
            bias,
            w2: net.w2.clone(),
            b2: i64::from(net.b2),
            tempo: i64::from(net.linear[TEMPO]),
        }
    }

    /// The row of `input` (from player 1's view).
    #[inline(always)]
    fn row(&self, input: usize) -> &[i16] {
        &self.rows[input * self.width..(input + 1) * self.width]
    }

    /// `acc` from scratch for `pos`.
    fn refresh(&self, pos: &CoinStack, acc: &mut Accumulator) {
        let mut active = [0u16; MAX_ACTIVE];
        let n = inputs(pos, Side::P1, &mut active);
        self.sums(&active[..n], acc.write(self.width));
    }

    /// The sums of the inputs `active` (from player 1's view) into `sums`.
    #[inline]
    fn sums(&self, active: &[u16], sums: &mut [i16]) {
        let mut rows: [&[i16]; MAX_ACTIVE] = [&[]; MAX_ACTIVE];
        for (row, &i) in rows.iter_mut().zip(active) {
            *row = self.row(i as usize);
        }
        simd::update(sums, &self.bias, &rows[..active.len()], &[]);
    }

    /// The evaluation of `pos` from scratch.
    fn evaluate(&self, pos: &CoinStack) -> i32 {
        let mut active = [0u16; MAX_ACTIVE];
        let n = inputs(pos, Side::P1, &mut active);
        let mut sums = [0i16; 2 * stackfish_nnue::MAX_HIDDEN + simd::LANES];
        let sums = &mut sums[..self.width];
        self.sums(&active[..n], sums);
        self.value(sums, pos.side_to_move())
    }

    /// The evaluation for `side` to move from sums in this layout: what
    /// `Network::evaluate` computes (the output bias and layer, scaled, then
    /// the linear part).
    #[inline(always)]
    fn value(&self, sums: &[i16], side: Side) -> i32 {
        let (hidden, view) = (self.hidden, side.index());
        let out = simd::output(
            &sums[view * hidden..(view + 1) * hidden],
            &self.w2,
            QA as i16,
        );
        let linear = i64::from(sums[2 * hidden + view]) + self.tempo;
        let value = (self.b2 + i64::from(out)) / i64::from(QA * QB) + linear;
        value.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32
    }

    /// `out` for `child`, `pos` after `mv`, from `acc` (that of `pos`): the
    /// rows of the stacks the move took away and put down on its two
    /// squares, and of the mover's reserve and captures where a trim (or
    /// a drop) changed them; one pass for both views.
    #[inline(always)]
    fn update(
        &self,
        pos: &CoinStack,
        mv: Move,
        child: &CoinStack,
        acc: &Accumulator,
        out: &mut Accumulator,
    ) {
        // At most the two squares' old and new stacks, and the mover's two
        // counts.
        let mut rows = Rows::default();
        let to = match mv.kind() {
            MoveKind::Drop(to) => to,
            MoveKind::Step { from, to, .. } => {
                rows.square(self, from, pos.stack(from), child.stack(from));
                to
            }
        };
        rows.square(self, to, pos.stack(to), child.stack(to));
        let mover = pos.side_to_move();
        let (was, is) = (pos.reserve(mover), child.reserve(mover));
        if was != is {
            rows.sub(self.row(count_input(RESERVE_INPUTS, Side::P1, mover, was)));
            rows.add(self.row(count_input(RESERVE_INPUTS, Side::P1, mover, is)));
        }
        let (was, is) = (pos.captured(mover), child.captured(mover));
        if was != is {
            rows.sub(self.row(count_input(CAPTURE_INPUTS, Side::P1, mover, was)));
            rows.add(self.row(count_input(CAPTURE_INPUTS, Side::P1, mover, is)));
        }
        simd::update(
            out.write(self.width),
            acc.sums(),
            &rows.adds[..rows.ons],
            &rows.subs[..rows.offs],
        );
    }
}

/// The rows a move adds and takes away (`Paired::update`): at most the two
/// squares' old and new stacks and the mover's two counts.
#[derive(Default)]
struct Rows<'a> {
    adds: [&'a [i16]; 4],
    subs: [&'a [i16]; 4],
    ons: usize,
    offs: usize,
}

impl<'a> Rows<'a> {
    #[inline(always)]
    fn add(&mut self, row: &'a [i16]) {
        self.adds[self.ons] = row;
        self.ons += 1;
    }

    #[inline(always)]
    fn sub(&mut self, row: &'a [i16]) {
        self.subs[self.offs] = row;
        self.offs += 1;
    }

    /// `square` held `was` and holds `is`.
    #[inline(always)]
    fn square(&mut self, net: &'a Paired, square: u8, was: Stack, is: Stack) {
        if !was.is_empty() {
            self.sub(net.row(cell_input(Side::P1, square, was)));
        }
        if !is.is_empty() {
            self.add(net.row(cell_input(Side::P1, square, is)));
        }
    }
}

/// The index of the tempo feature in `eval::features` (always 1).
const TEMPO: usize = 0;

/// The input that shows from player 2's view what `input` shows from
/// player 1's (and the other way round): the stack with its colours
/// swapped, the count of the other side.
fn mirror_input(input: usize) -> usize {
    if input < RESERVE_INPUTS {
        let (cell, code) = (input / CODES, (input % CODES + 2) as u8);
        let h = code.ilog2();
        cell * CODES + (code ^ ((1 << h) - 1)) as usize - 2
    } else {
        let (base, n) = if input < CAPTURE_INPUTS {
            (RESERVE_INPUTS, input - RESERVE_INPUTS)
        } else {
            (CAPTURE_INPUTS, input - CAPTURE_INPUTS)
        };
        base + (n + COUNTS) % (2 * COUNTS)
    }
}

/// Each input's share, in centi-units, of the linear features weighed by
/// `weights` (those of `eval::features`, Focus's): an input from the side
/// to move's view adds its share to every feature it counts in, so that the
/// weighted features of a position are the tempo weight plus the shares
/// of its active inputs (exactly, where no side's coins in play fall below
/// 0: `Paired`). Per feature, own minus the opponent's:
/// - a stack of height h that we (or they) control: `controlled_height_h`
///   and `mobility` (the moves of a stack of h on its square);
/// - a reserve of n: n reserve coins, n coins less in play;
/// - n enemy coins captured: n coins less in the opponent's play;
/// - `captured_coin` and `near_capture_win` are Coin Stack's and always 0.
pub fn linear_part(weights: &[i32]) -> Vec<i64> {
    let w = |name: &str| {
        let i = NAMES.iter().position(|&n| n == name).unwrap_or(TEMPO);
        weights.get(i).map_or(0, |&w| i64::from(w))
    };
    let (in_play, reserve, mobility) = (w("coin_in_play"), w("reserve_coin"), w("mobility"));
    let upto = &REACH[CoinStackVariant::Focus.geometry()].upto;
    let height_names = [
        "controlled_height_1",
        "controlled_height_2",
        "controlled_height_3",
        "controlled_height_4",
        "controlled_height_5",
    ];
    (0..INPUTS)
        .map(|input| {
            if input < RESERVE_INPUTS {
                let (cell, code) = (input / CODES, (input % CODES + 2) as u8);
                let h = code.ilog2() as usize;
                // Our coins read as player 1's (bit 0): a top bit of 1 is
                // the opponent's stack.
                let sign = if (code >> (h - 1)) & 1 == 0 { 1 } else { -1 };
                let square = nth_square(cell);
                sign * (w(height_names[h - 1]) + mobility * i64::from(upto[square][h]))
            } else {
                let (base, n) = if input < CAPTURE_INPUTS {
                    (RESERVE_INPUTS, input - RESERVE_INPUTS)
                } else {
                    (CAPTURE_INPUTS, input - CAPTURE_INPUTS)
                };
                let (ours, n) = (n < COUNTS, (n % COUNTS) as i64);
                let sign = if ours { 1 } else { -1 };
                if base == RESERVE_INPUTS {
                    sign * n * (reserve - in_play)
                } else {
                    // Coins we captured are coins the opponent no longer
                    // has in play.
                    sign * n * in_play
                }
            }
        })
        .collect()
}

/// The evaluation of `pos` (`Game::evaluate`): the network's of `nets`
/// where it applies (Focus), the weighted features (`eval::linear`)
/// elsewhere.
#[inline(always)]
pub fn evaluate(nets: &Nets, pos: &CoinStack) -> i32 {
    match network_value(nets, pos) {
        Some(v) => v,
        None => linear(pos),
    }
}

/// `evaluate` from the network's sums kept for `pos` by the search
/// (`Game::evaluate_with`).
#[inline]
pub fn evaluate_with(nets: &Nets, pos: &CoinStack, acc: &Accumulator) -> i32 {
    match network_value_with(nets, pos, acc) {
        Some(v) => v,
        None => linear(pos),
    }
}

/// The evaluation of `nets`' network of `pos`, if it evaluates `pos`.
pub fn network_value(nets: &Nets, pos: &CoinStack) -> Option<i32> {
    Some(paired_of(nets, pos)?.evaluate(pos))
}

/// `acc` for `pos`, from scratch.
pub fn refresh(nets: &Nets, pos: &CoinStack, acc: &mut Accumulator) {
    match paired_of(nets, pos) {
        Some(p) => p.refresh(pos, acc),
        None => acc.invalidate(),
    }
}

/// `out` for `child`, which is `pos` after `mv`, from `acc` (that of
/// `pos`): the rows of the cells, reserves and captures the move changed.
#[inline]
pub fn update(
    nets: &Nets,
    pos: &CoinStack,
    mv: Move,
    child: &CoinStack,
    acc: &Accumulator,
    out: &mut Accumulator,
) {
    match paired_of(nets, child) {
        Some(p) if acc.is_valid() => p.update(pos, mv, child, acc, out),
        _ => out.invalidate(),
    }
}

/// The network's evaluation of `pos` from `acc`, kept for it by `refresh`
/// and `update`; `None` where no network of `nets` evaluates `pos`.
#[inline]
pub fn network_value_with(nets: &Nets, pos: &CoinStack, acc: &Accumulator) -> Option<i32> {
    if !acc.is_valid() {
        return None;
    }
    Some(paired_of(nets, pos)?.value(acc.sums(), pos.side_to_move()))
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
    let image = crate::nnue::symmetric_square(nth_square(cell), SIZE, sym);
    cell_of(image as u8) * CODES + code
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

    /// A network of made-up weights, 32 units, a different weight per
    /// linear feature.
    fn made_up(seed: u64) -> Network {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        Network::new(
            SCOPE,
            (0..INPUTS * 32).map(|_| rng.gen_range(-200..200)).collect(),
            (0..32).map(|_| rng.gen_range(-200..200)).collect(),
            (0..32).map(|_| rng.gen_range(-300..300)).collect(),
            77,
            vec![3, 7, 11, 13, 17, -19, 23, 29, -31, 37, 2],
        )
    }

    /// Random Focus games, with trims and captures (the noisy moves half
    /// the time when there are any): the sums kept from move to move are
    /// at every position the sums computed afresh, and the evaluation from
    /// them (the linear part from its lanes) is the reference one from the
    /// inputs and `features`.
    #[test]
    fn incremental_equals_fresh() {
        let net = made_up(5);
        assert_eq!(net.check(), Ok(()));
        let paired = Paired::new(&net);
        let (mut trims, mut drops) = (0, 0);
        let evaluated = crate::nnue::check_kept_sums(
            &CoinStack::start(&CoinStackVariant::Focus),
            40,
            200,
            9,
            |pos, acc| paired.refresh(pos, acc),
            |pos, mv, child, acc, out| paired.update(pos, mv, child, acc, out),
            |child, kept| {
                let mut active = [0; MAX_ACTIVE];
                let n = super::active(child, &mut active);
                let reference = net.evaluate(&active[..n], &features(child));
                assert_eq!(
                    paired.value(kept.sums(), child.side_to_move()),
                    reference,
                    "{child:?}"
                );
                assert_eq!(paired.evaluate(child), reference, "{child:?}");
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

    /// An input and its mirror show the same thing to the two players: the
    /// inputs from player 2's view are the mirrors of player 1's.
    #[test]
    fn mirrored_inputs_are_the_other_views() {
        assert!((0..INPUTS).all(|i| mirror_input(mirror_input(i)) == i));
        let mut pos = CoinStack::start(&CoinStackVariant::Focus);
        let mut moves = Vec::new();
        for ply in 0..60 {
            let (mut p1, mut p2) = ([0; MAX_ACTIVE], [0; MAX_ACTIVE]);
            let n = inputs(&pos, Side::P1, &mut p1);
            assert_eq!(inputs(&pos, Side::P2, &mut p2), n);
            let mut mirrored: Vec<u16> = p1[..n]
                .iter()
                .map(|&i| mirror_input(i as usize) as u16)
                .collect();
            mirrored.sort_unstable();
            p2[..n].sort_unstable();
            assert_eq!(mirrored, p2[..n], "{pos:?}");
            moves.clear();
            pos.generate_moves(&mut moves);
            if moves.is_empty() {
                break;
            }
            pos.play(moves[(ply * 7919) % moves.len()]);
        }
    }

    /// A file whose linear part could wrap its 16-bit lane is refused with
    /// the reason.
    #[test]
    fn a_linear_part_beyond_16_bits_is_refused() {
        let mut net = made_up(2);
        net.linear[NAMES.iter().position(|&n| n == "mobility").unwrap_or(0)] = 2000;
        assert!(matches!(net.check(), Err(NetworkError::Linear { .. })));
        assert!(matches!(
            Network::from_bytes(&net.to_bytes()),
            Err(NetworkError::Linear { .. })
        ));
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
            let networked =
                variant == CoinStackVariant::Focus && Nets::built_in().network().is_some();
            assert_eq!(valid > 1000, networked, "{variant:?}: {valid}");
            assert!(networked || valid == 0, "{variant:?}: {valid}");
        }
    }

    /// The shipped network loads (a built-in file that did not would be
    /// skipped in silence) and is the one Focus plays.
    #[test]
    fn the_built_in_network_loads_and_is_played() {
        let net = Network::from_bytes(BUILT_IN[0]).expect("net-focus.bin loads");
        assert_eq!((net.hidden(), net.has_linear()), (128, true));
        assert_eq!(Nets::built_in().network(), Some(&net));
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
        assert_eq!(stackfish_nnue::game_of(&bytes).as_deref(), Some("focus"));
        let mut other = bytes.clone();
        other[18] = 2;
        assert!(matches!(
            Network::from_bytes(&other),
            Err(NetworkError::Scope { found: 2, .. })
        ));
        let mixtour = crate::mixtour::nnue::Nets::built_in()
            .first()
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
