//! What a solve finds out about a position: its game-theoretic value for
//! the side to move and the length of the optimal line.

use std::fmt;

use super::super::Silo;
use crate::{Game, Outcome};

/// The game-theoretic value of a position for the side to move, with the
/// number of plies of the optimal line (passes count as plies).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// The side to move wins in this many plies (0: it has already won, only
    /// possible in a position given as text).
    Win(u16),
    /// The side to move loses in this many plies (0: it has lost).
    Loss(u16),
    /// Neither side can force a win: play goes on until a repetition.
    Draw,
}

impl Value {
    /// The value of the parent when this is the value of the child reached
    /// by one move.
    pub fn parent(self) -> Value {
        match self {
            Value::Win(n) => Value::Loss(n + 1),
            Value::Loss(n) => Value::Win(n + 1),
            Value::Draw => Value::Draw,
        }
    }

    /// Orders values for the side to move: larger is better. Faster wins are
    /// better, slower losses are better.
    pub(super) fn rank(self) -> i32 {
        match self {
            Value::Win(n) => 100_000 - n as i32,
            Value::Draw => 0,
            Value::Loss(n) => -100_000 + n as i32,
        }
    }

    /// Plies to the end: positive when the side to move wins, negative
    /// when it loses, 0 for a draw.
    pub fn signed_plies(self) -> i32 {
        match self {
            Value::Win(n) => n as i32,
            Value::Loss(n) => -(n as i32),
            Value::Draw => 0,
        }
    }

    pub fn plies(self) -> Option<u16> {
        match self {
            Value::Win(n) | Value::Loss(n) => Some(n),
            Value::Draw => None,
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Win(n) => write!(f, "win in {n} plies"),
            Value::Loss(n) => write!(f, "loss in {n} plies"),
            Value::Draw => f.write_str("draw"),
        }
    }
}

/// A terminal position's value; `None` while the game goes on.
pub(super) fn terminal_value(pos: &Silo) -> Option<Value> {
    match pos.outcome() {
        Outcome::Ongoing => None,
        Outcome::Over { result, .. } if result.winner() == Some(pos.side_to_move()) => {
            Some(Value::Win(0))
        }
        Outcome::Over { .. } => Some(Value::Loss(0)),
    }
}
