//! Static evaluation of a Coin Stack / Focus position, from the side to
//! move's view: a weighted sum of named features (own minus opponent's), so
//! `stackfish tune` can fit the weights to game results, one weight array per
//! game (the two move differently and only `coinstack` has the capture win).
//! Every feature is read from bitboards and one table, no move generation.
//! Focus is evaluated by its network (`nnue`), which weighs these features
//! too, with weights of its own.

use super::tables::REACH;
use super::{CoinStack, CoinStackVariant};
use crate::{ablate, Game};

/// Number of features.
pub const FEATURES: usize = 11;

/// Feature names, in the order of `features` and the weight arrays; they are
/// also the names `STACKFISH_ABLATE` takes (see `game::ablate`), with the
/// group names of `GROUPS`.
pub const NAMES: [&str; FEATURES] = [
    "tempo",
    "coin_in_play",
    "reserve_coin",
    "captured_coin",
    "near_capture_win",
    "controlled_height_1",
    "controlled_height_2",
    "controlled_height_3",
    "controlled_height_4",
    "controlled_height_5",
    "mobility",
];

/// Index of the feature for stacks of height 1 (heights 1..=5 follow).
const CONTROLLED: usize = 5;
const MOBILITY: usize = 10;

/// Names that switch off several features at once when ablated:
/// `controlled_by_height` is every `controlled_height_h`.
pub const GROUPS: [&str; 1] = ["controlled_by_height"];

/// The features of `pos`, from the side to move's view, each own minus the
/// opponent's:
/// - tempo: having the move (always 1).
/// - coin_in_play: coins on the board, material that can still be freed or
///   buried.
/// - reserve_coin: coins in reserve; they cannot be captured and drop
///   anywhere, which both attacks (on top of an enemy stack) and defends.
/// - captured_coin: enemy coins captured, in `coinstack` only (nine win); in
///   Focus a capture is worth only the enemy material it removes, and the
///   feature is 0. Note that coin_in_play = captured_coin - reserve_coin in
///   every game played from the start (18 coins per side), so only two of
///   the three material weights are independent.
/// - near_capture_win: one capture away from the `coinstack` win (0 or 1).
/// - controlled_height_h: stacks of height h controlled (own coin on top):
///   only controlled stacks move, a tall one reaches further, carries more
///   and holds coins under it.
/// - mobility: stack moves available (drops are the same for everybody with
///   a reserve).
#[inline(always)] // into both copies of `Game::evaluate` (`cpu::fast`)
pub fn features(pos: &CoinStack) -> [i32; FEATURES] {
    let us = pos.side_to_move();
    let reach = &REACH[pos.variant().geometry()].upto;
    let goal = pos.variant().capture_goal();
    let mut f = [0; FEATURES];
    f[0] = 1;
    for (side, sign) in [(us, 1), (us.opponent(), -1)] {
        let mut own = pos.tops(side);
        let mut mobility = 0;
        while own != 0 {
            let sq = own.trailing_zeros() as usize;
            own &= own - 1;
            // A controlled stack is 1..=5 high.
            let h = pos.stack(sq as u8).height() as usize;
            f[CONTROLLED - 1 + h] += sign;
            mobility += reach[sq][h] as i32;
        }
        f[MOBILITY] += sign * mobility;
        // Coins still on the board: 18 minus reserve minus those the opponent
        // captured, cheaper than counting stacks coin by coin (exact in every
        // game played from the start; built positions may hold fewer coins).
        let captured_from = pos.captured(side.opponent()) as i32;
        let reserve = pos.reserve(side) as i32;
        f[1] += sign * (super::COINS as i32 - reserve - captured_from).max(0);
        f[2] += sign * reserve;
        if let Some(goal) = goal {
            let captured = pos.captured(side) as i32;
            f[3] += sign * captured;
            f[4] += sign * (captured + 1 == goal as i32) as i32;
        }
    }
    f
}

/// The weights of a game's features after the build's ablation: the named
/// features, and every height when `controlled_by_height` is ablated.
const fn ablated(w: [i32; FEATURES]) -> [i32; FEATURES] {
    let mut w = ablate::named(&NAMES, w);
    if ablate::is_ablated(GROUPS[0]) {
        let mut h = 0;
        while h < 5 {
            w[CONTROLLED + h] = 0;
            h += 1;
        }
    }
    w
}

/// The `coinstack` weights, in the order of `NAMES`, in evaluation units:
/// fitted by `stackfish tune`, then tempo and coin_in_play set to 0, as the
/// ablation SPRTs showed tempo does nothing and coin_in_play (tied to the
/// other two material features) costs about 50 Elo (tournaments/log.md).
pub const WEIGHTS_COINSTACK: [i32; FEATURES] = ablated([0, 0, 75, 40, 35, 0, 10, 27, 40, 53, 1]);

/// The `focus` weights, in the order of `NAMES` (no capture win: the
/// captured_coin and near_capture_win features are always 0).
pub const WEIGHTS_FOCUS: [i32; FEATURES] = ablated([4, 36, 113, 0, 0, -6, 4, 21, 25, 55, 2]);

/// The weights of `variant`.
pub fn weights(variant: CoinStackVariant) -> &'static [i32; FEATURES] {
    match variant {
        CoinStackVariant::CoinStack => &WEIGHTS_COINSTACK,
        CoinStackVariant::Focus => &WEIGHTS_FOCUS,
    }
}

/// The weighted features: Coin Stack's evaluation, and Focus's where no
/// network evaluates it (a build without one, `STACKFISH_NET=none`, an
/// ablation build).
#[inline(always)]
pub fn linear(pos: &CoinStack) -> i32 {
    features(pos)
        .iter()
        .zip(weights(pos.variant()).iter())
        .map(|(f, w)| f * w)
        .sum()
}
