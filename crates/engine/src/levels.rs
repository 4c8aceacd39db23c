//! How a level below full strength plays: the few numbers that make the
//! levels, calibrated by matches (tournaments/log.md).

use crate::MAX_LEVEL;

/// How a level below full strength plays.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LevelPlay {
    /// Score every root move at `depth`, add a random amount up to `noise`
    /// to each and take the best: a beginner's errors, often and anywhere.
    /// A win in hand is never thrown away.
    Noisy { depth: i32, noise: i32 },
    /// The full search, stopped after this many nodes: it errs only where
    /// the position is too deep for it, as a stronger player does.
    Nodes(u64),
}

/// Levels 1 to 4: (depth, noise) of the noisy levels, weakest first.
/// At a fixed depth, root noise of 25 costs about 200 Elo and 50 about 330,
/// a ply more gains 160-380.
const NOISY_LEVELS: [(i32, i32); 4] = [(1, 400), (1, 200), (1, 100), (1, 25)];

/// The node budget of the first node-limited level (5); each level above
/// multiplies it by 1.65 (in integers: times 33/20), about 101,000 at 19,
/// which is about as smooth as strength gets. It was 250 until issue 32
/// made the search stronger per node: today's engine at 92 nodes and its
/// multiples plays as the engine of 2026-12-05 did at the old budgets
/// (levels 5, 10 and 15 measured, tournaments/log.md), so each level is
/// the strength it was.
const FIRST_LEVEL_NODES: u64 = 92;

/// How level `level` plays; `None` at 20, full strength.
pub fn level_play(level: u8) -> Option<LevelPlay> {
    let level = level.max(1);
    if level >= MAX_LEVEL {
        return None;
    }
    let noisy = NOISY_LEVELS.len() as u8;
    Some(match NOISY_LEVELS.get(level as usize - 1) {
        Some(&(depth, noise)) => LevelPlay::Noisy { depth, noise },
        None => {
            LevelPlay::Nodes((noisy + 1..level).fold(FIRST_LEVEL_NODES, |nodes, _| nodes * 33 / 20))
        }
    })
}
