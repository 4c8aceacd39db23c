//! Static evaluation of a Mixtour position, from the side to move's view.
//! Every term is a named weight so tuning can find and change it.

use super::Mixtour;
use crate::game::{Game, Side};

/// Per stack the side tops, by height (index = height): a tall stack you top
/// is material for a tower, since a moved segment keeps its top piece on top.
pub const TOP_BY_HEIGHT: [i32; 5] = [0, 8, 18, 30, 40];
/// Per way the side to move can complete a tower topped by itself right now.
pub const OWN_SCORING_MOVE: i32 = 150;
/// Per way the opponent could complete a tower on its next turn.
pub const THEIR_SCORING_MOVE: i32 = 90;
/// Per piece in hand: placements are tempo moves and blockers.
pub const RESERVE_PIECE: i32 = 4;
/// Per point scored in games played to more than one point.
pub const POINT: i32 = 400;
/// Having the move.
pub const TEMPO: i32 = 10;

/// How many stack moves would complete a tower (height 5+) topped by `side`:
/// a source topped by `side`, high enough that its whole top segment makes
/// five with the target.
pub fn scoring_moves(pos: &Mixtour, side: Side) -> i32 {
    let exact = pos.exact_heights();
    let tops = pos.tops(side);
    let mut n = 0;
    for d in 0..8 {
        let sources = pos.sources_towards(d, &exact);
        for (k, &s) in sources.iter().enumerate() {
            // Target height k+1 needs a source at least 4-k high.
            n += (s & tops & pos.at_least(4 - k)).count_ones() as i32;
        }
    }
    n
}

pub fn evaluate(pos: &Mixtour) -> i32 {
    let us = pos.side_to_move();
    let them = us.opponent();
    let mut score = TEMPO;
    for (side, sign) in [(us, 1), (them, -1)] {
        let tops = pos.tops(side);
        let mut material = 0;
        for (h, exactly) in pos.exact_heights().iter().enumerate() {
            material += TOP_BY_HEIGHT[h + 1] * (tops & exactly).count_ones() as i32;
        }
        material += RESERVE_PIECE * pos.reserve(side) as i32;
        material += POINT * pos.score(side) as i32;
        score += sign * material;
    }
    score += OWN_SCORING_MOVE * scoring_moves(pos, us).min(3);
    score -= THEIR_SCORING_MOVE * scoring_moves(pos, them).min(3);
    score
}
