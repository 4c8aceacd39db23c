//! What the page reads: the JSON views of the board's state, and the
//! requests it sends. Unknown request fields are refused so that a typo
//! ("movetime") is an error the player sees rather than a setting ignored.

use serde::{Deserialize, Serialize};

use super::eval::{Eval, Mark};
use super::files::FileRequest;
use super::position::PositionView;
use stackfish_games::Side;
use stackfish_review::{Accuracy, Decisive, Stopped};

// ---- requests -------------------------------------------------------------

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewRequest {
    pub variant: Option<String>,
    /// "p1", "p2", "both" or "none": the sides an engine plays.
    pub engine: Option<String>,
    /// The engine that plays them (a name from `engines`).
    pub opponent: Option<String>,
    pub level: Option<u8>,
    pub movetime_ms: Option<u64>,
    pub depth: Option<i32>,
    /// Per side, instead of `engine`: that side's engine and settings
    /// (fields left out come from the ones above); a side without is human.
    pub p1: Option<PlayerRequest>,
    pub p2: Option<PlayerRequest>,
    /// Mixtour only: a shipped board (`GET /api/boards`) to start on...
    pub board: Option<String>,
    /// ...or a StackAndConquer file to start from.
    pub file: Option<FileRequest>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlayerRequest {
    pub engine: Option<String>,
    pub level: Option<u8>,
    pub movetime_ms: Option<u64>,
    pub depth: Option<i32>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoveRequest {
    #[serde(rename = "move")]
    pub mv: Option<String>,
    /// Several moves at once (a line of the analysis): all or none.
    pub moves: Option<Vec<String>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UndoRequest {
    pub plies: Option<usize>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GotoRequest {
    pub ply: usize,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FenRequest {
    pub fen: String,
    pub variant: Option<String>,
    /// Moves played from the position, separated by spaces (as
    /// `stackfish analyse --moves` takes them): the board shows the
    /// position after them.
    pub moves: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnalyseRequest {
    pub on: bool,
    pub engine: Option<String>,
    pub multipv: Option<u8>,
}

/// `POST /api/review`: the budget of each position and the engine.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReviewRequest {
    /// Nodes a position (`DEFAULT_REVIEW_NODES` when left out).
    pub nodes: Option<u64>,
    /// One of `engines`; left out: the analysis engine, else stackfish.
    pub engine: Option<String>,
}

/// `POST /api/load`: a game record's text and the file's name, for
/// messages.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoadRequest {
    pub text: String,
    pub name: Option<String>,
}

// ---- views ------------------------------------------------------------------

#[derive(Clone, Debug, Serialize)]
pub struct StateView {
    /// Goes up by one with every change, so a reader can tell nothing moved.
    pub version: u64,
    pub variant: &'static str,
    pub variants: Vec<&'static str>,
    pub fen: String,
    pub start_fen: String,
    /// The moves up to the position shown.
    pub moves: Vec<String>,
    /// The moves after it (taken back or stepped back over), next first.
    pub future: Vec<String>,
    pub last_move: Option<String>,
    pub side_to_move: &'static str,
    /// Empty when the game is over.
    pub legal_moves: Vec<String>,
    pub outcome: OutcomeView,
    /// The engine settings of the last new game (compatible summary).
    pub engine: SettingsView,
    pub players: PlayersView,
    /// Every engine the page may choose, stackfish first.
    pub engines: Vec<String>,
    /// A player's engine is searching.
    pub thinking: bool,
    /// The analysis engine is searching.
    pub analysing: bool,
    pub analysis_mode: Option<AnalysisModeView>,
    /// The best line of the latest search (kept after its move).
    pub analysis: Option<AnalysisView>,
    /// The latest report of each player's engine and of the analysis.
    pub reports: ReportsView,
    /// One per position of the whole line (`moves` then `future`), from
    /// player 1's side; `null` where no engine has looked.
    pub evals: Vec<Option<Eval>>,
    /// One per move of the whole line: `inaccuracy`, `mistake`,
    /// `blunder` or `null` (the review's where it judged the move).
    pub marks: Vec<Option<Mark>>,
    /// The review of the whole line: running, ended, or dropped.
    pub review: Option<ReviewView>,
    /// The record the line was loaded from, while the line is its own.
    pub loaded: Option<LoadedView>,
    /// Why an engine could not move or analyse (shown until the next move).
    pub engine_error: Option<String>,
    /// The position shown as the page draws it: squares and stacks, the
    /// players' counts, the legal moves and the last one by their squares
    /// (board.rs); `None` for a game the page does not draw.
    pub position: Option<PositionView>,
    /// Castle's terrain; `None` for the other games.
    pub board: Option<BoardView>,
    /// A Silo position a table covers: its exact value and its moves'.
    pub table: Option<TableView>,
    /// The configurations of the Silo tables loaded (`--silo-tables`).
    pub silo_tables: Vec<String>,
}

/// Castle's terrain, which the position string does not carry.
#[derive(Clone, Debug, Serialize)]
pub struct BoardView {
    /// One string per rank from the top (rank 19) down, one symbol per file
    /// a..s: `#` wall, `C` channel, `:` courtyard, `K` key, `,` middle-zone
    /// ground (where skulls may lie), `.` ground.
    pub terrain: Vec<String>,
    /// Each player's own key square (a knight never enters its own).
    pub keys: KeysView,
}

#[derive(Clone, Debug, Serialize)]
pub struct KeysView {
    pub p1: String,
    pub p2: String,
}

pub fn board_view(variant: &str) -> Option<BoardView> {
    use stackfish_games::castle::{square_name, tables::KEY_SQUARE, terrain_rows};
    variant.starts_with("castle").then(|| BoardView {
        terrain: terrain_rows(),
        keys: KeysView {
            p1: square_name(KEY_SQUARE[0]),
            p2: square_name(KEY_SQUARE[1]),
        },
    })
}

#[derive(Clone, Debug, Serialize)]
pub struct OutcomeView {
    pub over: bool,
    /// `1-0`, `0-1`, `1/2-1/2`, or `*` while the game goes on.
    pub result: &'static str,
    pub winner: Option<&'static str>,
    pub reason: Option<&'static str>,
}

#[derive(Clone, Debug, Serialize)]
pub struct SettingsView {
    /// "p1", "p2", "both" or "none".
    pub side: &'static str,
    pub level: u8,
    pub movetime_ms: u64,
    pub depth: Option<i32>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PlayerView {
    pub engine: String,
    pub level: u8,
    pub movetime_ms: u64,
    pub depth: Option<i32>,
}

#[derive(Clone, Debug, Serialize)]
pub struct PlayersView {
    pub p1: Option<PlayerView>,
    pub p2: Option<PlayerView>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AnalysisModeView {
    pub engine: String,
    pub multipv: u8,
}

#[derive(Clone, Debug, Serialize)]
pub struct AnalysisView {
    /// The side the engine searched for.
    pub side: &'static str,
    pub depth: u32,
    /// Score in centi-units from player 1's point of view.
    pub cp: Option<i32>,
    /// A forced win: positive for player 1.
    pub mate: Option<i32>,
    pub pv: Vec<String>,
    pub nodes: u64,
    pub time_ms: u64,
}

impl AnalysisView {
    pub fn new(side: Side, line: &LineView) -> AnalysisView {
        AnalysisView {
            side: side_name(side),
            depth: line.depth,
            cp: line.cp,
            mate: line.mate,
            pv: line.pv.clone(),
            nodes: line.nodes,
            time_ms: line.time_ms,
        }
    }
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct ReportsView {
    pub p1: Option<ReportView>,
    pub p2: Option<ReportView>,
    pub analysis: Option<ReportView>,
}

/// One engine's latest lines about one position.
#[derive(Clone, Debug, Serialize)]
pub struct ReportView {
    pub engine: String,
    /// The position searched: after this many moves of the line.
    pub ply: usize,
    pub side: &'static str,
    pub running: bool,
    /// By `multipv`, best first.
    pub lines: Vec<LineView>,
}

#[derive(Clone, Debug, Serialize)]
pub struct LineView {
    pub multipv: u32,
    pub depth: u32,
    /// From player 1's side.
    pub cp: Option<i32>,
    pub mate: Option<i32>,
    pub pv: Vec<String>,
    pub nodes: u64,
    pub time_ms: u64,
    /// When the server got the engine's line, in ms since the Unix epoch:
    /// the page measures how long it took to show it.
    pub at_ms: u64,
}

/// Where a review stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ReviewState {
    /// Searching its positions.
    Running,
    /// Every position searched.
    Done,
    /// Stopped before the end (its cancel, or `go`): the positions
    /// searched so far are kept, the others unknown.
    Cancelled,
    /// Its engine failed: the positions searched so far are kept.
    Failed,
    /// The line changed: nothing of it fits the game shown.
    Outdated,
}

impl ReviewState {
    /// Its name in the state's JSON.
    pub fn name(self) -> &'static str {
        match self {
            ReviewState::Running => "running",
            ReviewState::Done => "done",
            ReviewState::Cancelled => "cancelled",
            ReviewState::Failed => "failed",
            ReviewState::Outdated => "outdated",
        }
    }
}

/// The board's review of the line as the page shows it (the whole review,
/// positions included, is `GET /api/review`).
#[derive(Clone, Debug, Serialize)]
pub struct ReviewView {
    pub state: ReviewState,
    /// The engine and its nodes a position (`null` when outdated).
    pub engine: Option<String>,
    pub nodes: Option<u64>,
    /// Positions searched, and to search in all.
    pub done: usize,
    pub total: usize,
    /// Since it started, or what it took once ended.
    pub elapsed_ms: u64,
    /// Why it failed, was cancelled by `go`, or is outdated.
    pub message: Option<String>,
    pub accuracy: Accuracy,
    pub counts: ClassCountsView,
    /// One per move of the line (empty when outdated).
    pub moves: Vec<ReviewMoveView>,
    pub decisive: Option<Decisive>,
    /// A loaded record's first move the rules refused: reviewed up to it.
    pub stopped: Option<Stopped>,
}

impl ReviewView {
    /// A review dropped because the line changed (`why`).
    pub fn outdated(why: String) -> ReviewView {
        ReviewView {
            state: ReviewState::Outdated,
            engine: None,
            nodes: None,
            done: 0,
            total: 0,
            elapsed_ms: 0,
            message: Some(why),
            accuracy: Accuracy::default(),
            counts: ClassCountsView::default(),
            moves: Vec::new(),
            decisive: None,
            stopped: None,
        }
    }
}

/// One move of a review.
#[derive(Clone, Debug, Serialize)]
pub struct ReviewMoveView {
    /// Who played it: `p1` or `p2`.
    pub side: &'static str,
    /// `null` for a good move and for one not judged yet.
    pub class: Option<Mark>,
    /// The expected score it cost its player; `null` until judged.
    pub loss: Option<f64>,
    /// The engine's better move in the position before, if it named
    /// another, and its line from there.
    pub best: Option<String>,
    pub line: Vec<String>,
}

#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct ClassCounts {
    pub inaccuracy: usize,
    pub mistake: usize,
    pub blunder: usize,
}

#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct ClassCountsView {
    pub p1: ClassCounts,
    pub p2: ClassCounts,
}

/// The record the line was loaded from.
#[derive(Clone, Debug, Serialize)]
pub struct LoadedView {
    /// The file's name as sent.
    pub name: String,
    /// Moves loaded.
    pub plies: usize,
    /// The first move the rules refused: the line stops before it.
    pub stopped: Option<Stopped>,
}

pub fn side_name(side: Side) -> &'static str {
    match side {
        Side::P1 => "p1",
        Side::P2 => "p2",
    }
}

/// What the page shows of a Silo position a table covers (the explorer,
/// where the host has tables).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TableView {
    /// The table's configuration: "1 x 4 row, 4 + 4 checkers".
    pub config: String,
    /// "Red to move wins in 31 plies".
    pub value: String,
    /// For the side to move: `win`, `loss` or `draw`.
    pub result: &'static str,
    /// Plies to the end with best play (0 for a draw).
    pub plies: u16,
    /// Every legal move, best first for the side to move; none when the
    /// game is over.
    pub moves: Vec<TableMoveView>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TableMoveView {
    #[serde(rename = "move")]
    pub mv: String,
    /// The position after the move, for its side to move: "Blue to move
    /// loses in 30 plies".
    pub value: String,
    /// For the player making the move: `win`, `loss` or `draw`.
    pub result: &'static str,
    /// Plies to the end after the move.
    pub plies: u16,
}
