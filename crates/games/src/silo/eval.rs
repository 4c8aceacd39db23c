//! Static evaluation of a Silo position, from the side to move's view.
//! Every term is a named weight so tuning can find and change it.

use super::{low_bits, Silo};
use crate::{Game, Side};

/// Per unbroken run of a player's checkers beyond the first: the win is one
/// run, so every extra run is work still to do.
pub const EXTRA_RUN: i32 = 60;
/// Per stack beyond the first that holds a player's checkers: runs in one
/// stack can be joined by one move; runs in different stacks need more.
pub const EXTRA_STACK: i32 = 30;
/// Having the move.
pub const TEMPO: i32 = 10;

/// (runs, stacks) of `side`: maximal blocks of its checkers inside a stack,
/// and stacks holding at least one of them. From the colour bits: a run
/// starts at each own checker whose neighbour below (in the same stack) is
/// not its own.
pub fn fragments(pos: &Silo, side: Side) -> (i32, i32) {
    let own = pos.own_bits(side);
    let (mut runs, mut stacks, mut start) = (0, 0, 0);
    for &h in &pos.heights[..pos.squares()] {
        let stack = (own >> start) & low_bits(h as u32);
        if stack != 0 {
            stacks += 1;
            runs += (stack & !(stack << 1)).count_ones() as i32;
        }
        start += h as u32;
    }
    (runs, stacks)
}

#[inline(always)] // into both copies of `Game::evaluate` (`cpu::fast`)
pub fn evaluate(pos: &Silo) -> i32 {
    let us = pos.side_to_move();
    let mut score = TEMPO;
    for (side, sign) in [(us, 1), (us.opponent(), -1)] {
        let (runs, stacks) = fragments(pos, side);
        score -= sign * (EXTRA_RUN * (runs - 1) + EXTRA_STACK * (stacks - 1));
    }
    score
}
