//! The full-space method: a 16-bit entry for every arrangement of the
//! checkers with Red to move, swept backwards by distance from the finished
//! positions with un-moves (`space.rs` numbers the arrangements).
//!
//! Each entry is 16 bits (`Entry`): while open, how many children are not yet
//! known to be wins for their mover; once solved, win/loss and distance.
//! The sweep goes backwards by distance from the finished positions, with
//! un-moves: the position before Blue's move onto square t is found by
//! taking Blue's highest checker on t and all above it back to t + 1 (that
//! segment is exactly what Blue moved). A finished position is never a
//! predecessor, since no move is played from it.

use super::space::{FullSpace, Row};
use super::table::{principal_line, Table, TableKind};
use super::{Method, Solution, SolveError, Value};
use crate::silo::{Silo, MAX_SQUARES};
use crate::{Game, Side};

/// One table entry: bit 15 solved, bit 14 win (for Red to move), bits
/// 0..14 the distance in plies; unsolved: the open-children count.
pub(super) type Entry = u16;
pub(super) const SOLVED: Entry = 1 << 15;
const WIN: Entry = 1 << 14;
const DISTANCE: Entry = WIN - 1;

pub(super) fn decode(e: Entry) -> Value {
    if e & SOLVED == 0 {
        Value::Draw
    } else if e & WIN != 0 {
        Value::Win(e & DISTANCE)
    } else {
        Value::Loss(e & DISTANCE)
    }
}

pub(super) fn encode(v: Value) -> Entry {
    match v {
        Value::Win(n) => SOLVED | WIN | n,
        Value::Loss(n) => SOLVED | n,
        Value::Draw => 0,
    }
}

/// The values of every arrangement with Red to move.
#[derive(Clone, Debug)]
pub(super) struct FullTable {
    pub(super) space: FullSpace,
    pub(super) values: Vec<Entry>,
}

impl FullTable {
    pub(super) fn value(&self, pos: &Silo) -> Option<Value> {
        let sp = &self.space;
        if pos.squares() != sp.squares
            || pos.checkers(Side::P1) != sp.per_side
            || pos.checkers(Side::P2) != sp.per_side
        {
            return None;
        }
        let row = Row {
            colours: pos.colours as u64,
            heights: pos.heights,
        };
        let row = match pos.side_to_move() {
            Side::P1 => row,
            Side::P2 => sp.mirror(row),
        };
        Some(decode(self.values[sp.index(&row) as usize]))
    }
}

/// Solves `root` by the full-space method: the value of every position with
/// the same row length and checkers, whether reachable or not.
pub fn solve_full(root: &Silo) -> Result<Solution, SolveError> {
    let space = FullSpace::new(root)?;
    let n = space.size();
    let mut values: Vec<Entry> = vec![0; n as usize];
    let mut frontier: Vec<u32> = Vec::new();
    let mut buffer = Vec::with_capacity(MAX_SQUARES + 1);
    for i in 0..n {
        let row = space.row(i);
        // Red to move: Blue moved last, so Blue's run counts first.
        if space.has_won(&row, Side::P2) {
            values[i as usize] = encode(Value::Loss(0));
            frontier.push(i as u32);
        } else if space.has_won(&row, Side::P1) {
            values[i as usize] = encode(Value::Win(0));
            frontier.push(i as u32);
        } else {
            values[i as usize] = space.move_count(&row);
        }
    }
    let mut edges = 0u64;
    while !frontier.is_empty() {
        let mut next = Vec::new();
        for &c in &frontier {
            let v = decode(values[c as usize]);
            space.parents(&space.row(c as u64), &mut buffer);
            edges += buffer.len() as u64;
            for &p in &buffer {
                let e = &mut values[p as usize];
                if *e & SOLVED != 0 {
                    continue;
                }
                match v {
                    Value::Loss(_) => {
                        *e = encode(v.parent());
                        next.push(p as u32);
                    }
                    _ => {
                        *e -= 1;
                        if *e == 0 {
                            *e = encode(v.parent());
                            next.push(p as u32);
                        }
                    }
                }
            }
        }
        frontier = next;
    }
    // Whatever is still open is a draw; clear the counters.
    for e in values.iter_mut() {
        if *e & SOLVED == 0 {
            *e = 0;
        }
    }
    let table = Table {
        kind: TableKind::Full(Box::new(FullTable { space, values })),
    };
    let value = table.value(root).expect("the root is in its space");
    let pv = principal_line(root, &table);
    Ok(Solution {
        value,
        pv,
        positions: n,
        edges,
        method: Method::FullSpace,
        table,
    })
}
