//! The solved values, looked up by position, and what they give: the best
//! move (fastest win, else a draw, else slowest loss) and the optimal line.

use std::collections::HashMap;

use fxhash::FxBuildHasher;

use super::full::{decode, FullTable};
use super::reachable::{key, key_bits};
use super::{Method, Value};
use crate::silo::{Move, Silo, MAX_SQUARES};
use crate::{Game, GameResult};

/// Every solved position's value, looked up by position.
#[derive(Clone, Debug)]
pub struct Table {
    pub(super) kind: TableKind,
}

#[derive(Clone, Debug)]
pub(super) enum TableKind {
    /// From the reachable-set method: exact keys to values.
    Reachable {
        /// Row length and checkers of the game: keys of other games could
        /// coincide with these.
        shape: (usize, [u8; 2]),
        index: HashMap<u64, u32, FxBuildHasher>,
        values: Vec<Value>,
    },
    /// From the full-space method: every arrangement of the checkers.
    Full(Box<FullTable>),
}

impl Table {
    /// The value of `pos`, if the table covers it (the reachable method
    /// covers what is reachable from its root; the full-space method every
    /// position with the same row and checkers).
    pub fn value(&self, pos: &Silo) -> Option<Value> {
        match &self.kind {
            TableKind::Reachable {
                shape,
                index,
                values,
            } => {
                if *shape != (pos.squares(), pos.counts) || key_bits(pos) > 64 {
                    return None;
                }
                index.get(&key(pos)).map(|&i| values[i as usize])
            }
            TableKind::Full(full) => full.value(pos),
        }
    }

    /// Positions in the table (the full-space method stores each position
    /// once for both sides to move, by symmetry).
    pub fn len(&self) -> usize {
        match &self.kind {
            TableKind::Reachable { values, .. } => values.len(),
            TableKind::Full(full) => full.values.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How many of the positions are wins, losses and draws for the side
    /// to move.
    pub fn census(&self) -> (u64, u64, u64) {
        let mut c = (0, 0, 0);
        let mut count = |v: Value| match v {
            Value::Win(_) => c.0 += 1,
            Value::Loss(_) => c.1 += 1,
            Value::Draw => c.2 += 1,
        };
        match &self.kind {
            TableKind::Reachable { values, .. } => values.iter().for_each(|&v| count(v)),
            TableKind::Full(full) => full.values.iter().for_each(|&e| count(decode(e))),
        }
        c
    }
}

/// The result of a solve.
#[derive(Clone, Debug)]
pub struct Solution {
    /// The root's value for its side to move.
    pub value: Value,
    /// The optimal line from the root (cut at `PV_DRAW_PLIES` for a draw).
    pub pv: Vec<Move>,
    /// Distinct positions reachable from the root, the root included.
    pub positions: u64,
    /// Moves between them (edges of the game graph); for the full-space
    /// method, the backward moves followed.
    pub edges: u64,
    pub method: Method,
    pub table: Table,
}

impl Solution {
    /// The result of the game under perfect play, from player 1's view.
    pub fn result(&self, root: &Silo) -> Option<GameResult> {
        let side = root.side_to_move();
        match self.value {
            Value::Win(_) => Some(GameResult::win_for(side)),
            Value::Loss(_) => Some(GameResult::win_for(side.opponent())),
            Value::Draw => None,
        }
    }
}

/// How far the principal line of a drawn position is written out.
pub const PV_DRAW_PLIES: usize = 40;

/// The best move in `pos` by the table: the fastest win, else a draw, else
/// the slowest loss; with the value of `pos` it leads to. `None` when the
/// game is over or `pos` is not in the table.
pub fn best_move(pos: &Silo, table: &Table) -> Option<(Move, Value)> {
    best_move_by(pos, |p| table.value(p))
}

/// `best_move` with the values read by `value` (any table that knows them).
pub fn best_move_by(pos: &Silo, value: impl Fn(&Silo) -> Option<Value>) -> Option<(Move, Value)> {
    if pos.outcome().is_over() {
        return None;
    }
    let mut moves = Vec::with_capacity(MAX_SQUARES);
    pos.generate_moves(&mut moves);
    let mut best: Option<(Move, Value)> = None;
    for mv in moves {
        let mut child = *pos;
        child.play(mv);
        let v = value(&child)?.parent();
        if best.is_none_or(|(_, b)| v.rank() > b.rank()) {
            best = Some((mv, v));
        }
    }
    best
}

/// The optimal line from `root`: best moves until the game ends (a draw is
/// written out for `PV_DRAW_PLIES` plies).
pub fn principal_line(root: &Silo, table: &Table) -> Vec<Move> {
    principal_line_by(root, |p| table.value(p))
}

/// `principal_line` with the values read by `value`.
pub fn principal_line_by(root: &Silo, value: impl Fn(&Silo) -> Option<Value>) -> Vec<Move> {
    let mut line = Vec::new();
    let mut pos = *root;
    while let Some((mv, _)) = best_move_by(&pos, &value) {
        if line.len() >= PV_DRAW_PLIES && value(&pos) == Some(Value::Draw) {
            break;
        }
        line.push(mv);
        pos.play(mv);
    }
    line
}
