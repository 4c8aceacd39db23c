//! Static evaluation of a Mixtour position, from the side to move's view:
//! a weighted sum of named features, so `stackfish tune` can fit the weights
//! to game results (Texel's method) and this file stays the one place that
//! says what the engine values. The network (`nnue`) weighs these
//! features too, with weights of its own, and falls back to `linear`.

use super::board::{Bits, Board};
use super::Position;
use crate::{ablate, Game, Side};

/// Number of features.
pub const FEATURES: usize = 12;

/// Feature names, in the order of `features` and `WEIGHTS`.
pub const NAMES: [&str; FEATURES] = [
    "tempo",
    "top_height_1",
    "top_height_2",
    "top_height_3",
    "top_height_4",
    "reserve",
    "points",
    "own_scoring_moves",
    "their_scoring_moves",
    "own_setups",
    "their_setups",
    "contested_tall",
];

/// The weights, in evaluation units (100 ~ a clear advantage).
/// - tempo: having the move.
/// - top_height_h: per stack of height h whose top is ours, minus theirs; a
///   moved segment keeps its top piece on top, so tall stacks we top are
///   tower material.
/// - reserve: per piece in hand (placements are tempo moves and blockers).
/// - points: per point scored, for games to more than one point.
/// - own/their_scoring_moves: moves that complete a tower for that side right
///   now (at most 3 counted). Ours are the side to move's, theirs must be
///   parried at once.
/// - own/their_setups: moves that would build a 4-high stack topped by that
///   side, one step from a tower (at most 6 counted).
/// - contested_tall: 3- and 4-high stacks we top that the opponent can move
///   onto right now (they can take the top), minus the same for them.
pub const WEIGHTS: [i32; FEATURES] =
    ablate::named(&NAMES, [11, 10, 23, 51, 97, -1, 400, 150, -13, 15, -5, -25]);

/// The features of `pos`, from the side to move's point of view. Nothing
/// here knows the board's size or shape: every count comes from the
/// bitboards, so the same terms hold on any board.
#[inline(always)] // into both copies of `Game::evaluate` (`cpu::fast`)
pub fn features<B: Board>(pos: &Position<B>) -> [i32; FEATURES] {
    let us = pos.side_to_move();
    let them = us.opponent();
    let exact = pos.exact_heights();
    let mut f = [0; FEATURES];
    f[0] = 1;
    for (h, &exactly) in exact.iter().enumerate() {
        f[1 + h] =
            (pos.tops(us) & exactly).count() as i32 - (pos.tops(them) & exactly).count() as i32;
    }
    f[5] = pos.reserve(us) as i32 - pos.reserve(them) as i32;
    f[6] = pos.score(us) as i32 - pos.score(them) as i32;
    // Sources do not depend on who tops them: found once for both sides.
    let sources = pos.sources_all(&exact);
    let ours = reach(pos, us, &sources);
    let theirs = reach(pos, them, &sources);
    f[7] = ours.scoring.min(3);
    f[8] = theirs.scoring.min(3);
    f[9] = ours.setups.min(6);
    f[10] = theirs.setups.min(6);
    let tall = pos.at_least(3);
    f[11] = (pos.tops(us) & tall & theirs.targets).count() as i32
        - (pos.tops(them) & tall & ours.targets).count() as i32;
    f
}

/// The weighted sum of the features.
#[inline(always)]
pub fn linear<B: Board>(pos: &Position<B>) -> i32 {
    weighted(&features(pos), &WEIGHTS)
}

/// The sum of features `f` times weights `w` (the network keeps weights of
/// its own for the same features).
pub fn weighted(f: &[i32; FEATURES], w: &[i32; FEATURES]) -> i32 {
    f.iter().zip(w).map(|(f, w)| f * w).sum()
}

/// What the stack moves of sources topped by one side can do.
struct Reach<T> {
    /// Moves that complete a tower topped by the side.
    scoring: i32,
    /// Moves that build a stack of exactly four topped by the side.
    setups: i32,
    /// Targets reachable by some source the side tops.
    targets: T,
}

fn reach<B: Board>(pos: &Position<B>, side: Side, sources: &[[B::Bits; 4]; 8]) -> Reach<B::Bits> {
    let tops = pos.tops(side);
    let mut r = Reach {
        scoring: 0,
        setups: 0,
        targets: B::Bits::ZERO,
    };
    for (d, sources) in sources.iter().enumerate() {
        for (k, &s) in sources.iter().enumerate() {
            let mine = s & tops;
            if mine.is_empty() {
                continue;
            }
            // Target height k+1: a source at least 4-k high completes a tower
            // (all its pieces moved); a source of at least 3-k can make four.
            r.scoring += (mine & pos.at_least(4 - k)).count() as i32;
            if k < 3 {
                r.setups += (mine & pos.at_least(3 - k)).count() as i32;
            }
            r.targets |= B::walk(mine, super::tables::opposite(d), k + 1);
        }
    }
    r
}

/// How many stack moves would complete a tower topped by `side`.
#[cfg(test)]
fn scoring_moves(pos: &super::Mixtour, side: Side) -> i32 {
    reach(pos, side, &pos.sources_all(&pos.exact_heights())).scoring
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mixtour::{Mixtour, MixtourVariant};

    fn pos(fen: &str) -> Mixtour {
        Mixtour::from_fen(&MixtourVariant::STANDARD, fen).unwrap()
    }

    #[test]
    fn scoring_moves_count_towers_for_the_top_owner_only() {
        // a1 = 1111 next to b1 = 2: 4a1b1 makes five topped by player 1.
        let p = pos("x5/x5/x5/x5/1111,2,x3 1 10,10 0,0 1 -");
        assert_eq!(scoring_moves(&p, Side::P1), 1);
        assert_eq!(scoring_moves(&p, Side::P2), 0);
        // Three pieces are not enough: 3 + 1 = 4.
        let p = pos("x5/x5/x5/x5/111,2,x3 1 10,10 0,0 1 -");
        assert_eq!(scoring_moves(&p, Side::P1), 0);
    }

    #[test]
    fn features_are_the_same_after_swapping_colours_and_side() {
        // Features are from the side to move's view, so swapping colours and
        // the side to move changes none of them.
        let a = pos("x,1,x3/x4,22/x2,221,x2/2,2,x2,2211/11,x4 1 14,12 0,0 1 -");
        let b = pos("x,2,x3/x4,11/x2,112,x2/1,1,x2,1122/22,x4 2 12,14 0,0 1 -");
        let (fa, fb) = (features(&a), features(&b));
        assert_eq!(fa[1..], fb[1..]);
    }

    #[test]
    fn an_opponent_tower_threat_lowers_the_evaluation() {
        use crate::Game;
        let quiet = pos("x5/x5/x5/x3,1,x/222,2,x3 1 5,5 0,0 1 -");
        let threat = pos("x5/x5/x5/x3,1,x/2222,2,x3 1 5,4 0,0 1 -");
        assert_eq!(features(&threat)[8], 1);
        assert!(threat.evaluate() < quiet.evaluate());
    }

    #[test]
    fn contested_tall_stacks_are_seen() {
        // b1 = 112 (3 high, topped by player 2); player 1 to move tops e1,
        // 3 squares away over empty squares: it can move onto b1 and take its top.
        let p = pos("x5/x5/x5/x5/x,112,x2,1 1 5,5 0,0 1 -");
        assert_eq!(features(&p)[11], -1, "their tall stack is contested by us");
        // Blocked by d1: no longer contested.
        let p = pos("x5/x5/x5/x5/x,112,x,2,1 1 5,5 0,0 1 -");
        assert_eq!(features(&p)[11], 0);
    }
}
