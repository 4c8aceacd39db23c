//! The reachable-set method: number the positions reachable from the root
//! by their exact keys, store the game graph, and sweep it backwards.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

use fxhash::FxBuildHasher;

use super::table::{principal_line, Table, TableKind};
use super::value::terminal_value;
use super::{Method, Solution, SolveError, SolveLimits, Value};
use crate::silo::{Silo, MAX_SQUARES};
use crate::{Game, Side};

/// An exact 64-bit name of a position: the colours of all checkers in
/// reading order (`total` bits), then each square's height in unary (that
/// many ones and a zero: `total + squares` bits), then the side to move.
/// Unlike the Zobrist hash it cannot collide, so a solution stays a proof.
pub(super) fn key(pos: &Silo) -> u64 {
    let total = pos.total();
    let mut k = pos.colours as u64;
    let mut at = total;
    for sq in 0..pos.squares() {
        let h = pos.heights[sq] as u32;
        k |= ((1u64 << h) - 1) << at;
        at += h + 1;
    }
    k | (pos.side.index() as u64) << at
}

pub(super) fn key_bits(pos: &Silo) -> u32 {
    2 * pos.total() + pos.squares() as u32 + 1
}

/// Rebuilds a position from its key (the inverse of `key`, given the row
/// length and the checker total, which a game never changes).
fn from_key(k: u64, squares: usize, counts: [u8; 2]) -> Silo {
    let total = counts[0] as u32 + counts[1] as u32;
    let mut pos = Silo {
        colours: (k & ((1u64 << total) - 1)) as u128,
        heights: [0; MAX_SQUARES],
        squares: squares as u8,
        counts,
        side: Side::P1,
        hash: 0,
    };
    let mut rest = k >> total;
    for sq in 0..squares {
        let h = rest.trailing_ones();
        pos.heights[sq] = h as u8;
        rest >>= h + 1;
    }
    if rest & 1 == 1 {
        pos.side = Side::P2;
    }
    pos.hash = pos.compute_hash();
    pos
}

/// Positions numbered between two looks at the stop flag: a look costs
/// an atomic load, a position a hash-map insert per child.
const STOP_CHECK_EVERY: usize = 4096;

/// Solves `root` by the reachable-set method: every position reachable from
/// it gets its value. Works for any checker counts whose key fits 64 bits.
/// Gives up with `SolveError::Stopped` soon after `stop` is set.
pub fn solve_reachable(
    root: &Silo,
    limits: &SolveLimits,
    stop: &AtomicBool,
) -> Result<Solution, SolveError> {
    let bits = key_bits(root);
    if bits > 64 {
        return Err(SolveError::TooWide { bits });
    }
    let (squares, counts) = (root.squares(), root.counts);

    // Forward: number the reachable positions breadth first and record each
    // one's children (compressed rows: children of i at succ[first[i]..first[i+1]]).
    let mut index: HashMap<u64, u32, FxBuildHasher> = HashMap::default();
    let mut keys: Vec<u64> = vec![key(root)];
    index.insert(keys[0], 0);
    let mut first: Vec<u64> = vec![0];
    let mut succ: Vec<u32> = Vec::new();
    let mut moves = Vec::with_capacity(MAX_SQUARES);
    let mut i = 0;
    while i < keys.len() {
        if i % STOP_CHECK_EVERY == 0 && stop.load(Relaxed) {
            return Err(SolveError::Stopped);
        }
        let pos = from_key(keys[i], squares, counts);
        if terminal_value(&pos).is_none() {
            moves.clear();
            pos.generate_moves(&mut moves);
            for &mv in &moves {
                let mut child = pos;
                child.play(mv);
                let k = key(&child);
                let next = keys.len() as u32;
                let j = *index.entry(k).or_insert(next);
                if j == next {
                    if keys.len() >= limits.max_positions {
                        return Err(SolveError::TooManyPositions {
                            limit: limits.max_positions,
                        });
                    }
                    keys.push(k);
                }
                succ.push(j);
            }
        }
        first.push(succ.len() as u64);
        i += 1;
    }
    let n = keys.len();
    drop(keys);

    // Backward edges, by counting sort of the forward ones.
    let mut pred_first = vec![0u64; n + 1];
    for &c in &succ {
        pred_first[c as usize + 1] += 1;
    }
    for i in 0..n {
        pred_first[i + 1] += pred_first[i];
    }
    let mut fill = pred_first.clone();
    let mut pred = vec![0u32; succ.len()];
    for p in 0..n {
        for &c in &succ[first[p] as usize..first[p + 1] as usize] {
            pred[fill[c as usize] as usize] = p as u32;
            fill[c as usize] += 1;
        }
    }
    drop(fill);
    let edges = succ.len() as u64;
    // Children not yet known to be wins for their side to move.
    let mut open: Vec<u8> = (0..n).map(|p| (first[p + 1] - first[p]) as u8).collect();
    drop(succ);
    drop(first);

    // Backward sweep, one distance at a time so that the first win found for
    // a position is its fastest and the last child resolving a loss is its
    // slowest.
    let mut value: Vec<Option<Value>> = vec![None; n];
    let mut frontier: Vec<u32> = Vec::new();
    // Terminal positions are exactly those without children; find them again
    // from the table of keys kept in `index`.
    for (&k, &i) in &index {
        if open[i as usize] == 0 {
            let pos = from_key(k, squares, counts);
            // A position without children is over: a non-terminal one always
            // has a move or the pass.
            value[i as usize] = terminal_value(&pos);
            debug_assert!(value[i as usize].is_some());
            frontier.push(i);
        }
    }
    frontier.sort_unstable(); // fixed order, whatever the hasher does
    while !frontier.is_empty() {
        if stop.load(Relaxed) {
            return Err(SolveError::Stopped);
        }
        let mut next = Vec::new();
        for &c in &frontier {
            let v = value[c as usize].expect("frontier positions are solved");
            for &p in &pred[pred_first[c as usize] as usize..pred_first[c as usize + 1] as usize] {
                let p = p as usize;
                if value[p].is_some() {
                    continue;
                }
                match v {
                    Value::Loss(_) => {
                        value[p] = Some(v.parent());
                        next.push(p as u32);
                    }
                    Value::Win(_) => {
                        open[p] -= 1;
                        if open[p] == 0 {
                            value[p] = Some(v.parent());
                            next.push(p as u32);
                        }
                    }
                    Value::Draw => unreachable!("draws are never in the frontier"),
                }
            }
        }
        frontier = next;
    }
    drop(pred);
    drop(pred_first);
    drop(open);

    let table = Table {
        kind: TableKind::Reachable {
            shape: (squares, counts),
            index,
            values: value
                .into_iter()
                .map(|v| v.unwrap_or(Value::Draw))
                .collect(),
        },
    };
    let root_value = table.value(root).expect("the root is in its table");
    let pv = principal_line(root, &table);
    Ok(Solution {
        value: root_value,
        pv,
        positions: n as u64,
        edges,
        method: Method::Reachable,
        table,
    })
}
