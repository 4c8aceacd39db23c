//! Static evaluation of a Coin Stack / Focus position, from the side to
//! move's view. Every term is a named weight so tuning can find and change it;
//! everything is read from bitboards and one table, no move generation.

use super::tables::REACH;
use super::CoinStack;
use crate::game::ablate::{weight, weights};
use crate::game::Game;

/// The term names, as `STACKFISH_ABLATE` takes them (see `game::ablate`).
pub const NAMES: [&str; 7] = [
    "coin_in_play",
    "reserve_coin",
    "captured_coin",
    "near_capture_win",
    "controlled_by_height",
    "mobility",
    "tempo",
];

/// Per own coin on the board: material that can still be freed or buried.
pub const COIN_IN_PLAY: i32 = weight("coin_in_play", 10);
/// Per own coin in reserve: it cannot be captured and drops anywhere, which
/// both attacks (on top of an enemy stack) and defends.
pub const RESERVE_COIN: i32 = weight("reserve_coin", 30);
/// Per enemy coin captured, in `coinstack` only, where nine captures win; in
/// Focus a capture is worth only the enemy material it removes.
pub const CAPTURED_COIN: i32 = weight("captured_coin", 20);
/// Extra for being one capture away from the `coinstack` win.
pub const NEAR_CAPTURE_WIN: i32 = weight("near_capture_win", 60);
/// Per stack controlled, by height (index = height): only controlled stacks
/// move, a tall one reaches further, carries more and holds coins under it.
pub const CONTROLLED_BY_HEIGHT: [i32; 6] = weights("controlled_by_height", [0, 12, 20, 28, 36, 44]);
/// Per stack move available (drops are the same for everybody with a reserve).
pub const MOBILITY: i32 = weight("mobility", 1);
/// Having the move.
pub const TEMPO: i32 = weight("tempo", 10);

pub fn evaluate(pos: &CoinStack) -> i32 {
    let us = pos.side_to_move();
    let reach = &REACH[pos.variant().geometry()].upto;
    let mut score = TEMPO;
    for (side, sign) in [(us, 1), (us.opponent(), -1)] {
        let mut own = pos.tops(side);
        let mut term = 0;
        while own != 0 {
            let sq = own.trailing_zeros() as u8;
            own &= own - 1;
            let h = pos.stack(sq).height() as usize;
            term += CONTROLLED_BY_HEIGHT[h] + MOBILITY * reach[sq as usize][h] as i32;
        }
        // Coins still on the board: 18 minus reserve minus those the opponent
        // captured, cheaper than counting stacks coin by coin (exact in every
        // game played from the start; built positions may hold fewer coins).
        let captured_from = pos.captured(side.opponent()) as i32;
        let reserve = pos.reserve(side) as i32;
        let in_play = (super::COINS as i32 - reserve - captured_from).max(0);
        term += COIN_IN_PLAY * in_play + RESERVE_COIN * reserve;
        if let Some(goal) = pos.variant().capture_goal() {
            let captured = pos.captured(side) as i32;
            term += CAPTURED_COIN * captured;
            if captured + 1 == goal as i32 {
                term += NEAR_CAPTURE_WIN;
            }
        }
        score += sign * term;
    }
    score
}
