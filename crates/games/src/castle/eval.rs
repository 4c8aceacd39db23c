//! Static evaluation of a Castle position, from the side to move's view.
//! A weighted sum of named terms (`NAMES`, `WEIGHTS`), so `stackfish tune`
//! can fit them to game results.

use std::cell::RefCell;

use super::tables::{file_of, rank_of, Bb, KEY_SQUARE, SQUARES};
use super::Castle;
use crate::{Game, Side};

/// The terms, in the order of `WEIGHTS` and `features`, each own minus the
/// opponent's: having the move; knights (losing the last one loses the
/// game, and the tiebreak at ply 400 counts them first); passes left
/// (they open channels and skull paths, and are the second tiebreak);
/// whether the side's nearest knight needs 1, 2, ... 7 moves to reach the
/// enemy key (one move away threatens to win outright; 8 or more, or none,
/// counts nothing); knights within `DEFENCE_RADIUS` (Manhattan) of the own
/// key, up to `MAX_DEFENDERS`: they block and recapture on the ways in.
pub const NAMES: [&str; FEATURES] = [
    "tempo", "knight", "pass", "attack_1", "attack_2", "attack_3", "attack_4", "attack_5",
    "attack_6", "attack_7", "defender",
];
pub const FEATURES: usize = 11;
/// Nearest-knight distances with a term of their own (`attack_1` ..).
pub const ATTACK_DISTANCES: usize = 7;
/// The weights of `NAMES`, centi-units: fitted by `stackfish tune --game
/// castle` (docs/development.md, "Tuning the evaluation"); zero where
/// `STACKFISH_ABLATE` names them.
pub const WEIGHTS: [i32; FEATURES] =
    crate::ablate::named(&NAMES, [38, 49, 3, 392, 12, -98, -163, -63, -48, -254, 13]);
/// Having the move.
pub const TEMPO: i32 = WEIGHTS[0];
pub const DEFENCE_RADIUS: usize = 4;
pub const MAX_DEFENDERS: usize = 3;
/// Pass budgets the distance table distinguishes; more passes count as this.
pub const MAX_BUDGET: usize = 8;
/// No path at all within the budget.
pub const FAR: u8 = u8::MAX;

/// Per side, per pass budget 0..=MAX_BUDGET, per square: the fewest moves a
/// knight of that side needs to reach the enemy key with total cost within
/// the budget. Approximation: other knights are ignored (they move, and a
/// BFS with blockers at every node would cost more than the term is worth);
/// terrain, channel and skull costs and the own-key ban are exact.
pub struct Distances {
    skulls: u64,
    moves: [[[u8; SQUARES]; MAX_BUDGET + 1]; 2],
}

impl Distances {
    pub fn moves(&self, side: Side, passes: u8, sq: usize) -> u8 {
        self.moves[side.index()][(passes as usize).min(MAX_BUDGET)][sq]
    }
}

/// Relaxes "one move, then the rest" until nothing improves (the longest
/// shortest path is a few dozen moves; this runs once per skull layout and
/// thread, a few milliseconds).
fn build(pos: &Castle) -> Distances {
    let mut table = Distances {
        skulls: pos.skull_bits(),
        moves: [[[FAR; SQUARES]; MAX_BUDGET + 1]; 2],
    };
    for side in Side::BOTH {
        let i = side.index();
        let (own_key, target) = (KEY_SQUARE[i], KEY_SQUARE[i ^ 1]);
        let d = &mut table.moves[i];
        for budget in d.iter_mut() {
            budget[target] = 0;
        }
        loop {
            let mut changed = false;
            for sq in 0..SQUARES {
                if sq == target || sq == own_key {
                    continue;
                }
                pos.visit_moves_from(
                    sq,
                    &Bb::EMPTY,
                    &Bb::EMPTY,
                    own_key,
                    MAX_BUDGET as u32,
                    |_, _, to, cost| {
                        let cost = cost as usize;
                        for b in cost..=MAX_BUDGET {
                            let via = d[b - cost][to].saturating_add(1);
                            if via < d[b][sq] {
                                d[b][sq] = via;
                                changed = true;
                            }
                        }
                        false
                    },
                );
            }
            if !changed {
                break;
            }
        }
    }
    table
}

thread_local! {
    /// The table of the last skull layout this thread evaluated.
    static CACHE: RefCell<Option<Box<Distances>>> = const { RefCell::new(None) };
}

/// Runs `f` with the distance table for `pos`'s skull layout.
pub fn with_distances<R>(pos: &Castle, f: impl FnOnce(&Distances) -> R) -> R {
    CACHE.with(|cache| {
        let mut cache = cache.borrow_mut();
        if !matches!(&*cache, Some(d) if d.skulls == pos.skull_bits()) {
            *cache = Some(Box::new(build(pos)));
        }
        match &*cache {
            Some(d) => f(d),
            None => f(&build(pos)),
        }
    })
}

fn manhattan(a: usize, b: usize) -> usize {
    file_of(a).abs_diff(file_of(b)) + rank_of(a).abs_diff(rank_of(b))
}

/// The terms of `NAMES` for `pos`, from the side to move's view.
pub fn features(pos: &Castle) -> [i32; FEATURES] {
    let us = pos.side_to_move();
    with_distances(pos, |table| {
        let mut f = [0; FEATURES];
        f[0] = 1;
        for (side, sign) in [(us, 1), (us.opponent(), -1)] {
            let knights = pos.knights(side);
            let passes = pos.passes(side);
            let nearest = knights
                .squares()
                .map(|sq| table.moves(side, passes, sq))
                .min()
                .unwrap_or(FAR) as usize;
            let own_key = KEY_SQUARE[side.index()];
            let defenders = knights
                .squares()
                .filter(|&sq| manhattan(sq, own_key) <= DEFENCE_RADIUS)
                .count()
                .min(MAX_DEFENDERS) as i32;
            f[1] += sign * knights.count() as i32;
            f[2] += sign * passes as i32;
            if (1..=ATTACK_DISTANCES).contains(&nearest) {
                f[2 + nearest] += sign;
            }
            f[10] += sign * defenders;
        }
        f
    })
}

pub fn evaluate(pos: &Castle) -> i32 {
    features(pos)
        .iter()
        .zip(WEIGHTS.iter())
        .map(|(f, w)| f * w)
        .sum()
}
