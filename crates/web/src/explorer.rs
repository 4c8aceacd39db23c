//! The Silo table explorer (`stackfish serve --silo-tables`): the exact
//! value of the position shown and of every legal move, from the table
//! files of a folder. Only the tables' public probing API is used (open a
//! folder, probe a position, describe a value), so how a table file is laid
//! out on disk is none of this code's business.

use std::sync::{Arc, Mutex, PoisonError};

use stackfish_board::Explorer;
use stackfish_games::silo::solve::Value;
use stackfish_games::silo::{Silo, SiloVariant};
use stackfish_games::Game;
use stackfish_tables::probe::describe;
use stackfish_tables::TableSet;

pub use stackfish_board::view::{TableMoveView, TableView};

/// `win`, `loss` or `draw` for the side to move, and the plies to the end.
fn split(value: Value) -> (&'static str, u16) {
    match value {
        Value::Win(n) => ("win", n),
        Value::Loss(n) => ("loss", n),
        Value::Draw => ("draw", 0),
    }
}

/// How good a move is for its player, larger is better: the fastest win,
/// then a draw, then the slowest loss.
fn rank(mover_result: &str, plies: u16) -> i32 {
    match mover_result {
        "win" => 100_000 - i32::from(plies),
        "loss" => -100_000 + i32::from(plies),
        _ => 0,
    }
}

/// The explorer's view of the Silo position `fen`, if a table of `tables`
/// covers it. `over`: the game has ended (by its rules or by repetition),
/// so no move is listed.
pub fn explore(tables: &TableSet, fen: &str, over: bool) -> Option<TableView> {
    // Any row length loads under either Silo variant: the string sets it.
    let pos = Silo::from_fen(&SiloVariant::STANDARD, fen).ok()?;
    let table = tables.find(&pos)?;
    let value = table.value(&pos)?;
    let (result, plies) = split(value);
    let mut moves = Vec::new();
    if !over && !pos.outcome().is_over() {
        let mut list = Vec::new();
        pos.generate_moves(&mut list);
        for mv in list {
            let mut child = pos;
            child.play(mv);
            let after = table.value(&child)?;
            let (child_result, plies) = split(after);
            // The child's side to move is the mover's opponent.
            let result = match child_result {
                "win" => "loss",
                "loss" => "win",
                _ => "draw",
            };
            moves.push(TableMoveView {
                mv: mv.to_string(),
                value: describe(&child, after),
                result,
                plies,
            });
        }
        // Stable: equal moves keep the rules' order.
        moves.sort_by_key(|m| -rank(m.result, m.plies));
    }
    Some(TableView {
        config: table.config().to_string(),
        value: describe(&pos, value),
        result,
        plies,
        moves,
    })
}

/// The configurations of the tables loaded, for the page to name.
pub fn configs(tables: &TableSet) -> Vec<String> {
    tables
        .tables()
        .iter()
        .map(|t| t.config().to_string())
        .collect()
}

/// The board's explorer over `--silo-tables`.
pub struct TablesExplorer {
    tables: Arc<TableSet>,
    /// The view of the last position asked for (its string, whether the
    /// game was over): the state is sent after every engine line, the
    /// position changes far less often.
    explored: Mutex<Option<(String, bool, Option<TableView>)>>,
}

impl TablesExplorer {
    pub fn new(tables: Arc<TableSet>) -> TablesExplorer {
        TablesExplorer {
            tables,
            explored: Mutex::new(None),
        }
    }
}

impl Explorer for TablesExplorer {
    fn explore(&self, _variant: &str, fen: &str, over: bool) -> Option<TableView> {
        let mut cached = self.explored.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((f, o, view)) = cached.as_ref() {
            if f == fen && *o == over {
                return view.clone();
            }
        }
        let view = explore(&self.tables, fen, over);
        *cached = Some((fen.to_string(), over, view.clone()));
        view
    }

    fn configs(&self) -> Vec<String> {
        configs(&self.tables)
    }
}
