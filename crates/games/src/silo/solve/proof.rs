//! Depth-first proof search, kept to measure the retrograde methods against
//! and to check them: built for the tests only (`solve/mod.rs`).

use std::collections::HashMap;

use fxhash::FxBuildHasher;

use super::value::terminal_value;
use super::{SolveError, Value};
use crate::silo::{Silo, MAX_SQUARES};
use crate::Game;

/// What the proof search knows of a position: the largest bound at which
/// it is still open, and the smallest at which it is decided (and how).
#[derive(Clone, Copy, Debug)]
struct Proof {
    /// Open within this many plies (0: nothing known).
    open_within: u16,
    /// Decided within this many plies: (bound, side to move wins).
    decided: Option<(u16, bool)>,
}

/// The statistics of a proof search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProofStats {
    /// The value; `Value::Draw` here means only that no bound up to the
    /// limit decided it (a true draw if the limit exceeds every distance).
    pub value: Value,
    /// Positions expanded, over all iterations.
    pub nodes: u64,
    /// Distinct positions in the memo at the end.
    pub positions: u64,
}

/// Iterative deepening on the ply bound d: "can the side to move force a
/// win within d plies, or the opponent?" with every answer memoised; the
/// first d that decides the root is its exact distance (the fastest win or
/// slowest loss). Gives up with `TooManyPositions` past `max_positions`.
pub fn prove_by_search(
    root: &Silo,
    max_plies: u16,
    max_positions: usize,
) -> Result<ProofStats, SolveError> {
    let mut memo: HashMap<Silo, Proof, FxBuildHasher> = HashMap::default();
    let mut nodes = 0;
    for d in 0..=max_plies {
        if let Some(win) = bounded(root, d, &mut memo, &mut nodes, max_positions)? {
            let value = if win { Value::Win(d) } else { Value::Loss(d) };
            return Ok(ProofStats {
                value,
                nodes,
                positions: memo.len() as u64,
            });
        }
    }
    Ok(ProofStats {
        value: Value::Draw,
        nodes,
        positions: memo.len() as u64,
    })
}

/// `Some(true)`: the side to move wins within `d` plies; `Some(false)`: it
/// loses within `d`; `None`: neither is forced within `d`.
fn bounded(
    pos: &Silo,
    d: u16,
    memo: &mut HashMap<Silo, Proof, FxBuildHasher>,
    nodes: &mut u64,
    max_positions: usize,
) -> Result<Option<bool>, SolveError> {
    if let Some(v) = terminal_value(pos) {
        return Ok(Some(matches!(v, Value::Win(_))));
    }
    if d == 0 {
        return Ok(None);
    }
    if let Some(p) = memo.get(pos) {
        match p.decided {
            Some((bound, win)) if bound <= d => return Ok(Some(win)),
            _ if p.open_within >= d => return Ok(None),
            _ => {}
        }
    }
    *nodes += 1;
    let mut moves = Vec::with_capacity(MAX_SQUARES);
    pos.generate_moves(&mut moves);
    let mut all_lose_for_us = true;
    let mut result = None;
    for mv in moves {
        let mut child = *pos;
        child.play(mv);
        match bounded(&child, d - 1, memo, nodes, max_positions)? {
            Some(false) => {
                result = Some(true);
                break;
            }
            Some(true) => {}
            None => all_lose_for_us = false,
        }
    }
    if result.is_none() && all_lose_for_us {
        result = Some(false);
    }
    if memo.len() >= max_positions && !memo.contains_key(pos) {
        return Err(SolveError::TooManyPositions {
            limit: max_positions,
        });
    }
    let entry = memo.entry(*pos).or_insert(Proof {
        open_within: 0,
        decided: None,
    });
    match result {
        Some(win) => entry.decided = Some((d, win)),
        None => entry.open_within = entry.open_within.max(d),
    }
    Ok(result)
}
