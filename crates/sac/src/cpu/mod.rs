//! StackAndConquer's CPU-script interface: one turn as the app hands it to
//! a script (its padded board, its getters, its legal moves) read into a
//! position string and a `searchmoves` list, and the engine's answer
//! mapped back to the app's `[from, count, to]`. Where the engine cannot
//! play (three players, a board past 10 x 10, a board it cannot read), the
//! turn is played by the simple rule of `padded.rs`. The script
//! (`crates/sac-cpu`) runs the search; everything here is plain data, so
//! it is tested natively.
//!
//! The app's rules decide what is legal: its list is the only candidate
//! set, so after a pass, where the app still forbids the take-back of the
//! last tower move and our rules would not, the script never plays it.

mod padded;
#[cfg(test)]
mod testing;
#[cfg(test)]
mod tests;

use std::collections::BTreeSet;

use serde_json::{json, Value};
use stackfish_games::mixtour::{MixtourGrid, MixtourVariant};
use stackfish_games::{Game, Side};

pub use padded::{simple_move, AppCell, PaddedBoard, MAX_PADDED_CELLS, SIMPLE_RULE_VISITS};

use crate::{checked_fen, Cell, Description};

/// A move as the app writes it: `[from, count, to]`, indices of the padded
/// board; a placement is `[-1, 1, to]`.
pub type AppMove = [i64; 3];

/// The tower height at which our rules remove a stack.
const TOWER_HEIGHT: usize = 5;

/// What the simple rule is, for the log.
const SIMPLE_RULE: &str = "plays by the simple rule (a win at once, else a move that leaves the \
                           next player no tower, else the first legal move)";

/// One turn as the script read it from the app, each getter's value as
/// JSON (`null` when the getter failed or is missing).
#[derive(Debug, Default)]
struct Turn {
    board: Value,
    id: Value,
    players: Value,
    height: Value,
    towers: Value,
    stones: Value,
    last: Value,
    legal: Value,
    columns: Value,
    rows: Value,
}

/// What the engine is asked: the position, and the app's legal moves in
/// our notation as the only root moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Search {
    pub fen: String,
    pub search_moves: Vec<String>,
    /// The standard board: 5 x 5 without holes (the engine's fast board
    /// type; every other board takes the general one).
    pub standard: bool,
}

/// What the engine answered: its move in our notation, and a few words on
/// the search for the log (score, depth, nodes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Searched {
    pub best: String,
    pub detail: String,
}

/// The answer of one turn: the move for the app (none only when the app
/// gave no legal move) and the lines for `game.log`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reply {
    pub mv: Option<AppMove>,
    pub log: Vec<String>,
}

impl Reply {
    /// `{"move": [from, count, to] | null, "log": [lines]}`.
    pub fn to_json(&self) -> String {
        json!({ "move": self.mv, "log": self.log }).to_string()
    }
}

/// Why the engine does not play a turn: a kind (each is logged once per
/// script) and the words for the log.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Unplayable {
    kind: &'static str,
    message: String,
}

fn unplayable(kind: &'static str, message: impl Into<String>) -> Unplayable {
    Unplayable {
        kind,
        message: message.into(),
    }
}

/// A script's memory across turns: which troubles it has logged, so each
/// is said once.
#[derive(Debug, Default)]
pub struct Cpu {
    said: BTreeSet<&'static str>,
}

impl Cpu {
    /// Plays one turn: `request` is the JSON object the script builds from
    /// the app's getters (`board`, `id`, `players`, `height`, `towers`,
    /// `stones`, `last`, `legal`, `columns`, `rows`; protocol.md);
    /// `search` runs the engine. Never fails: whatever the request holds,
    /// the reply's move is one of the app's legal moves, or none when the
    /// app listed none.
    pub fn turn(
        &mut self,
        request: &str,
        search: &mut dyn FnMut(&Search) -> Result<Searched, String>,
    ) -> Reply {
        let mut log = Vec::new();
        let turn = match read_turn(request) {
            Ok(turn) => turn,
            Err(e) => {
                self.say(&mut log, &unplayable("request", e));
                return Reply { mv: None, log };
            }
        };
        let legal = match legal_moves(&turn.legal) {
            Ok(legal) if !legal.is_empty() => legal,
            Ok(_) => {
                let e = "the app gave no legal move; there is nothing to play";
                self.say(&mut log, &unplayable("no-move", e));
                return Reply { mv: None, log };
            }
            Err(e) => {
                self.say(&mut log, &unplayable("legal", e));
                return Reply { mv: None, log };
            }
        };
        let board = read_board(&turn);
        match self.engine_move(&turn, &board, &legal, search, &mut log) {
            Ok(mv) => return Reply { mv: Some(mv), log },
            Err(why) => self.say(&mut log, &why),
        }
        let (player, players) = (small(&turn.id), small(&turn.players));
        let simple = simple_move(
            board.as_ref().ok(),
            &legal,
            player.unwrap_or(0),
            players.unwrap_or(2),
            small(&turn.height).map_or(TOWER_HEIGHT, usize::from),
            player.and_then(|p| per_player(&turn.towers, usize::from(p.max(1)))),
        );
        Reply { mv: simple, log }
    }

    /// The engine's move among `legal`, logged with its search.
    fn engine_move(
        &mut self,
        turn: &Turn,
        board: &Result<PaddedBoard, Unplayable>,
        legal: &[AppMove],
        search: &mut dyn FnMut(&Search) -> Result<Searched, String>,
        log: &mut Vec<String>,
    ) -> Result<AppMove, Unplayable> {
        let (ask, back, notes) = plan(turn, board, legal)?;
        for note in notes {
            self.say(log, &note);
        }
        let found =
            search(&ask).map_err(|e| unplayable("engine", format!("the engine failed: {e}")))?;
        let Some((ours, mv)) = back.iter().find(|(ours, _)| *ours == found.best) else {
            return Err(unplayable(
                "engine",
                format!(
                    "the engine answered {}, not one of the app's moves",
                    found.best
                ),
            ));
        };
        log.push(format!(
            "stackfish: {ours} = [{}, {}, {}] ({})",
            mv[0], mv[1], mv[2], found.detail
        ));
        Ok(*mv)
    }

    /// Logs `why` the first time its kind comes up; a trouble that leaves
    /// the turn to the simple rule says so.
    fn say(&mut self, log: &mut Vec<String>, why: &Unplayable) {
        if self.said.insert(why.kind) {
            match why.kind {
                "legal" | "request" | "no-move" | "refused" => {
                    log.push(format!("stackfish: {}", why.message))
                }
                _ => log.push(format!("stackfish: {}; {SIMPLE_RULE}", why.message)),
            }
        }
    }
}

/// The request's object, each key's value (missing keys `null`).
fn read_turn(request: &str) -> Result<Turn, String> {
    let value: Value =
        serde_json::from_str(request).map_err(|e| format!("the request is not JSON: {e}"))?;
    let Value::Object(mut obj) = value else {
        return Err("the request is not a JSON object".into());
    };
    let mut take = |key: &str| obj.remove(key).unwrap_or(Value::Null);
    Ok(Turn {
        board: take("board"),
        id: take("id"),
        players: take("players"),
        height: take("height"),
        towers: take("towers"),
        stones: take("stones"),
        last: take("last"),
        legal: take("legal"),
        columns: take("columns"),
        rows: take("rows"),
    })
}

/// A whole number from JSON (`5`, or `5.0` as a JS engine may write it).
fn whole(value: &Value) -> Option<i64> {
    let n = value.as_f64()?;
    (n.fract() == 0.0 && n.abs() < 1e15).then_some(n as i64)
}

/// A small count (player numbers, heights): 0 to 255.
fn small(value: &Value) -> Option<u8> {
    whole(value).and_then(|n| u8::try_from(n).ok())
}

fn size(value: &Value) -> Option<usize> {
    whole(value).and_then(|n| usize::try_from(n).ok())
}

/// Player `player`'s (1-based) entry of a per-player list.
fn per_player(list: &Value, player: usize) -> Option<i64> {
    list.as_array()?.get(player.checked_sub(1)?).and_then(whole)
}

/// A JSON list given as a list or as a string holding one (the app hands
/// the board and the legal moves as JSON text).
fn list_of(value: &Value, what: &str) -> Result<Vec<Value>, String> {
    let parsed;
    let value = match value {
        Value::String(text) => {
            parsed = serde_json::from_str::<Value>(text)
                .map_err(|e| format!("{what} is not JSON ({e})"))?;
            &parsed
        }
        other => other,
    };
    match value {
        Value::Array(items) => Ok(items.clone()),
        _ => Err(format!("{what} is not a list")),
    }
}

/// One `[from, count, to]`.
fn app_move(value: &Value) -> Option<AppMove> {
    match value.as_array()?.as_slice() {
        [a, b, c] => Some([whole(a)?, whole(b)?, whole(c)?]),
        _ => None,
    }
}

/// The app's legal moves, in its order.
fn legal_moves(value: &Value) -> Result<Vec<AppMove>, String> {
    list_of(value, "the legal-move list")?
        .iter()
        .enumerate()
        .map(|(i, v)| {
            app_move(v).ok_or_else(|| {
                format!(
                    "legal move {} is {}, not [from, count, to]",
                    i + 1,
                    stackfish_games::echo::echo(&v.to_string())
                )
            })
        })
        .collect()
}

/// The padded board, read with the getters' size, padding and players.
fn read_board(turn: &Turn) -> Result<PaddedBoard, Unplayable> {
    let bad = |m: String| unplayable("board", format!("cannot read the board: {m}"));
    let (Some(columns), Some(rows)) = (size(&turn.columns), size(&turn.rows)) else {
        return Err(bad(format!(
            "its size is {} x {}, not two whole numbers",
            turn.columns, turn.rows
        )));
    };
    let padding = size(&turn.height).ok_or_else(|| {
        bad(format!(
            "its padding (the tower height) is {}, not a whole number",
            turn.height
        ))
    })?;
    let players = small(&turn.players).map_or(2, usize::from);
    PaddedBoard::read(&turn.board, columns, rows, padding, players.max(1)).map_err(bad)
}

/// Our square name of padded index `i`: files from the left, ranks from
/// the bottom (the app counts rows from the top).
fn square(board: &PaddedBoard, i: i64) -> Option<String> {
    let (row, column) = board.grid_place(i)?;
    let file = char::from(b'a' + u8::try_from(column).ok()?);
    Some(format!("{file}{}", board.rows - row))
}

/// An app move in our notation: `c3`, `a1b2`, `3a1c3`; `None` for what our
/// notation cannot say (a placement of several pieces, a count past 4, a
/// cell off the grid).
fn our_move(board: &PaddedBoard, mv: &AppMove) -> Option<String> {
    let [from, count, to] = *mv;
    let to = square(board, to)?;
    if from == -1 {
        return (count == 1).then_some(to);
    }
    let from = square(board, from)?;
    match count {
        1 => Some(format!("{from}{to}")),
        2..=4 => Some(format!("{count}{from}{to}")),
        _ => None,
    }
}

/// The search of a two-player turn on a board the engine plays: the
/// position string (reserves from the stones in hand, the goal and scores
/// from the towers each player still needs, the app's last tower move as
/// ours, so its take-back is forbidden as in the app), the app's moves in
/// our notation (each checked legal by our rules) and the way back, and
/// notes on app moves our rules refuse.
#[allow(clippy::type_complexity)]
fn plan(
    turn: &Turn,
    board: &Result<PaddedBoard, Unplayable>,
    legal: &[AppMove],
) -> Result<(Search, Vec<(String, AppMove)>, Vec<Unplayable>), Unplayable> {
    let players = whole(&turn.players);
    if players != Some(2) {
        return Err(unplayable(
            "players",
            format!("a game of {} players; the engine plays two", turn.players),
        ));
    }
    let height = whole(&turn.height);
    if height != Some(TOWER_HEIGHT as i64) {
        return Err(unplayable(
            "height",
            format!(
                "towers score at height {}; the engine's rules score them at {TOWER_HEIGHT}",
                turn.height
            ),
        ));
    }
    let board = match board {
        Ok(board) => board,
        Err(e) => return Err(e.clone()),
    };
    let grid_max = stackfish_games::mixtour::board::GRID_MAX;
    if board.columns > grid_max || board.rows > grid_max {
        return Err(unplayable(
            "size",
            format!(
                "the board is {} x {} cells; the engine plays boards up to {grid_max} x {grid_max}",
                board.columns, board.rows
            ),
        ));
    }
    let side = match whole(&turn.id) {
        Some(1) => Side::P1,
        Some(2) => Side::P2,
        _ => {
            return Err(unplayable(
                "turn",
                format!("the player to move is {}, not 1 or 2", turn.id),
            ))
        }
    };
    let pair = |value: &Value, what: &str, min: i64| -> Result<[u8; 2], Unplayable> {
        let bad = || {
            unplayable(
                "turn",
                format!("{what} are {value}, not two whole numbers from {min} to 255"),
            )
        };
        let list = value.as_array().ok_or_else(bad)?;
        match list.as_slice() {
            [a, b] => {
                let read = |v: &Value| {
                    whole(v)
                        .filter(|&n| n >= min)
                        .and_then(|n| u8::try_from(n).ok())
                };
                Ok([read(a).ok_or_else(bad)?, read(b).ok_or_else(bad)?])
            }
            _ => Err(bad()),
        }
    };
    let stones = pair(&turn.stones, "the stones in hand", 0)?;
    let towers = pair(&turn.towers, "the towers still needed", 1)?;
    // The app tells how many towers each player still needs, not the goal:
    // two players who each need as many more play the same game whatever
    // the goal was, so the goal is the larger need and the other player has
    // scored the difference.
    let goal = towers[0].max(towers[1]);
    let cells = (0..board.rows * board.columns)
        .map(|i| {
            let at = (i / board.columns + board.padding) * (board.columns + 2 * board.padding)
                + board.padding
                + i % board.columns;
            match &board.cells[at] {
                AppCell::Off => Cell::Hole,
                AppCell::Stack(s) => Cell::Stack(
                    s.iter()
                        .map(|&p| if p == 1 { Side::P1 } else { Side::P2 })
                        .collect(),
                ),
            }
        })
        .collect();
    let desc = Description {
        rows: board.rows,
        columns: board.columns,
        cells,
        notes: Vec::new(),
        players_stones: Vec::new(),
        side,
        reserves: [u32::from(stones[0]), u32::from(stones[1])],
        scores: [u32::from(goal - towers[0]), u32::from(goal - towers[1])],
        goal: u32::from(goal),
        board_file: String::new(),
        board_file_relative: String::new(),
        cpu_script: Default::default(),
    };
    let fen = checked_fen(&desc).map_err(|e| {
        unplayable(
            "rules",
            format!("the engine's rules refuse the position: {e}"),
        )
    })?;
    // The last tower move as ours: our rules forbid its take-back, as the
    // app does (after a pass too). A placement or none leaves `-`.
    let last = app_move(&turn.last)
        .filter(|m| m[0] >= 0)
        .and_then(|m| our_move(board, &m));
    let fen = match last {
        Some(last) => match fen.rsplit_once(' ') {
            Some((head, _)) => format!("{head} {last}"),
            None => fen,
        },
        None => fen,
    };
    let pos = MixtourGrid::from_fen(&MixtourVariant::STANDARD, &fen).map_err(|e| {
        unplayable(
            "rules",
            format!("the engine's rules refuse the position: {e}"),
        )
    })?;
    let mut ours = Vec::new();
    pos.generate_moves(&mut ours);
    let ours: BTreeSet<String> = ours.iter().map(|m| m.to_string()).collect();
    let mut back = Vec::new();
    let mut refused = Vec::new();
    for mv in legal {
        match our_move(board, mv).filter(|text| ours.contains(text)) {
            Some(text) => {
                if !back.iter().any(|(t, _)| *t == text) {
                    back.push((text, *mv));
                }
            }
            None => refused.push(format!("[{}, {}, {}]", mv[0], mv[1], mv[2])),
        }
    }
    if back.is_empty() {
        return Err(unplayable(
            "moves",
            format!(
                "none of the app's legal moves is legal in the engine's rules ({})",
                refused.join(", ")
            ),
        ));
    }
    let mut notes = Vec::new();
    if !refused.is_empty() {
        notes.push(unplayable(
            "refused",
            format!(
                "the app's legal moves {} are not legal in the engine's rules: left out of the \
                 search",
                refused.join(", ")
            ),
        ));
    }
    let standard =
        board.columns == 5 && board.rows == 5 && desc.cells.iter().all(|c| *c != Cell::Hole);
    let ask = Search {
        fen,
        search_moves: back.iter().map(|(t, _)| t.clone()).collect(),
        standard,
    };
    Ok((ask, back, notes))
}
