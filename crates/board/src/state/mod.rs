//! The one game the page shows: its line of moves with a cursor (the
//! position shown), who plays each side, the analysis engine, the search
//! running for one of them, and the state view the page reads.
//!
//! The seams are modules: `line` (new games, moves, the cursor, loaded
//! positions and records), `search` (engine play, analysis, what comes
//! back of a search), `review` (the whole game reviewed, one position at a
//! time), `exports` (the record and the StackAndConquer files), `view`
//! (what the page reads).
//!
//! One search runs at a time: a player's engine when it is that player's
//! turn, else the review's while one runs, else the analysis engine when
//! analysis is on. Requests never wait
//! for a search: the host runs it (`crate::host`), a search is cancelled
//! by a stop and a stale search id, and what a stale search sends back is
//! dropped.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use super::error::{ApiError, BoardError};
use super::eval::Eval;
use super::files::Shipped;
use super::host::{Explorer, Host};
use super::job::Report;
use super::view::*;
use super::BUILTIN;
use stackfish_engine::protocol::Score;
use stackfish_engine::MAX_LEVEL;
use stackfish_games::{variants, AnyGame, MoveError, Outcome, Side};
use stackfish_record::date_at;

mod exports;
mod line;
mod review;
mod search;
mod view;

use review::{Loaded, ReviewSlot};
pub use review::{DEFAULT_REVIEW_NODES, MAX_REVIEW_NODES, MIN_REVIEW_NODES};

pub const DEFAULT_VARIANT: &str = "mixtour";
pub const DEFAULT_MOVE_TIME_MS: u64 = 1_000;
/// Below this the engine has no time to finish even a shallow iteration.
pub const MIN_MOVE_TIME_MS: u64 = 10;
/// A player waits for each engine move; a minute is already long.
pub const MAX_MOVE_TIME_MS: u64 = 60_000;
/// Lines the analysis shows at most.
pub const MAX_ANALYSIS_LINES: u8 = 5;

/// An engine and how it plays.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Player {
    engine: String,
    level: u8,
    movetime_ms: u64,
    depth: Option<i32>,
}

impl Default for Player {
    fn default() -> Self {
        Player {
            engine: BUILTIN.to_string(),
            level: MAX_LEVEL,
            movetime_ms: DEFAULT_MOVE_TIME_MS,
            depth: None,
        }
    }
}

impl Player {
    fn name(&self) -> String {
        let limit = match self.depth {
            Some(d) => format!("depth {d}"),
            None => format!("{:.1} s/move", self.movetime_ms as f64 / 1000.0),
        };
        if self.engine == BUILTIN {
            format!("stackfish (level {}, {limit})", self.level)
        } else {
            format!("{} ({limit})", self.engine)
        }
    }

    fn view(&self) -> PlayerView {
        PlayerView {
            engine: self.engine.clone(),
            level: self.level,
            movetime_ms: self.movetime_ms,
            depth: self.depth,
        }
    }
}

/// What a search is for: a player's move, the analysis, or one position
/// of a review.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    Player(Side),
    Analysis,
    Review,
}

impl Role {
    /// The host's engine for it: the review runs on the analysis's, which
    /// waits while a review runs.
    fn slot(self) -> usize {
        match self {
            Role::Player(side) => side.index(),
            Role::Analysis | Role::Review => 2,
        }
    }
}

/// What the engine said about a move it played, for the record.
#[derive(Clone, Copy, Debug)]
struct Note {
    /// From the mover's point of view.
    score: Option<Score>,
    depth: u32,
    ms: u64,
}

/// The search running, as the board remembers it.
struct Search {
    /// Its id: the `generation` it started with.
    id: u64,
    role: Role,
    engine: String,
    /// The position searched: after this many moves, this side to move.
    ply: usize,
    side: Side,
    /// The host's monotonic clock when it started.
    started_ms: f64,
    /// Its latest best line (`multipv 1`), for the move's note.
    last: Option<Report>,
}

struct State {
    /// The game up to the position shown.
    game: Box<dyn AnyGame>,
    /// The moves after the position shown, the next one last.
    future: Vec<String>,
    /// One per move of the whole line: what its engine said, if an engine
    /// played it.
    notes: Vec<Option<Note>>,
    /// One per position of the whole line.
    evals: Vec<Option<Eval>>,
    players: [Option<Player>; 2],
    /// The engine settings of the last new game: `go` on a human's turn.
    default_player: Player,
    analysis: Option<AnalysisModeView>,
    search: Option<Search>,
    reports: [Option<ReportView>; 3],
    /// The latest search's best line, for the compatible `analysis` field.
    last_best: Option<AnalysisView>,
    engine_error: Option<String>,
    /// The review of the line, running or done, or why it was dropped.
    review: ReviewSlot,
    /// The record the line was loaded from, while the line is still its.
    loaded: Option<Loaded>,
    /// Bumped when a search starts or is cancelled: what a search whose id
    /// is stale sends back must not touch the game.
    generation: u64,
    version: u64,
    round: u64,
    date: String,
}

/// The board's game and engines. Shared by all request threads natively;
/// one instance in the browser (a `Mutex` works without threads too).
pub struct App {
    state: Mutex<State>,
    /// Every engine the page may choose, stackfish first.
    engines: Vec<String>,
    host: Box<dyn Host>,
    /// The boards of `boards/`, offered for a new game.
    shipped: Shipped,
    explorer: Option<Box<dyn Explorer>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic elsewhere must not take the board down with it: the data under
    // these locks stays consistent between statements.
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

fn new_game_of(variant: &str) -> Result<Box<dyn AnyGame>, ApiError> {
    variants::new_game(variant).ok_or_else(|| {
        ApiError::bad_request(format!(
            "unknown variant {variant:?}; known: {}",
            variants::variant_names().join(", ")
        ))
    })
}

fn play_checked(game: &mut dyn AnyGame, text: &str) -> Result<String, ApiError> {
    if let Outcome::Over { reason, .. } = game.outcome() {
        return Err(ApiError::conflict(format!("the game is over ({reason})")));
    }
    game.play_text(text.trim()).map_err(|e| match e {
        MoveError::Syntax { .. } => ApiError::bad_request(e.to_string()),
        MoveError::Illegal { .. } => ApiError::unprocessable(e.to_string()),
    })
}

impl State {
    fn ply(&self) -> usize {
        self.game.moves().len()
    }

    fn total(&self) -> usize {
        self.ply() + self.future.len()
    }

    /// Every move of the line, up to the position shown and after it.
    fn line(&self) -> Vec<String> {
        let mut line = self.game.moves();
        line.extend(self.future.iter().rev().cloned());
        line
    }

    /// Whether `search` is the one running and has `role`.
    fn running(&self, role: Role) -> bool {
        self.search.as_ref().is_some_and(|s| s.role == role)
    }

    /// Whether a player's engine is thinking (either side's).
    fn player_thinking(&self) -> bool {
        self.search
            .as_ref()
            .is_some_and(|s| matches!(s.role, Role::Player(_)))
    }

    /// A new line from the game's start: no future, no notes, no reports.
    fn reset_line(&mut self) {
        self.future.clear();
        self.notes = vec![None; self.ply()];
        self.evals = vec![None; self.ply() + 1];
        self.reports = Default::default();
        self.last_best = None;
        self.engine_error = None;
    }

    /// Plays `mv` at the cursor: the next move of the future if it is the
    /// same, else a new branch that drops the old future.
    fn push_move(&mut self, canonical: String, note: Option<Note>) {
        let ply = self.ply() - 1;
        if self.future.last() == Some(&canonical) {
            self.future.pop();
            if note.is_some() {
                self.notes[ply] = note;
            }
        } else {
            self.future.clear();
            self.notes.truncate(ply);
            self.notes.push(note);
            self.evals.truncate(ply + 1);
            self.evals.push(None);
        }
    }

    /// Moves the cursor to `ply` (0 ..= total), keeping the line.
    fn seek(&mut self, ply: usize) {
        while self.ply() > ply {
            let Some(mv) = self.game.moves().pop() else {
                break;
            };
            if !self.game.undo() {
                break;
            }
            self.future.push(mv);
        }
        while self.ply() < ply {
            let Some(mv) = self.future.pop() else { break };
            if self.game.play_text(&mv).is_err() {
                // Cannot happen: the future was played from here before.
                self.future.clear();
                break;
            }
        }
    }

    /// Who plays the side to move, if an engine does.
    fn engine_to_move(&self) -> Option<&Player> {
        self.players[self.game.side_to_move().index()].as_ref()
    }

    /// The side to move after `ply` moves of the line (sides alternate; a
    /// pass is a move).
    fn side_at(&self, ply: usize) -> Side {
        let side = self.game.side_to_move();
        if ply.abs_diff(self.ply()).is_multiple_of(2) {
            side
        } else {
            side.opponent()
        }
    }
}
impl App {
    /// A board offering `engines` (stackfish first; a name the host cannot
    /// run fails that search), run by `host`, with the Silo table explorer
    /// if there is one.
    pub fn new(
        engines: Vec<String>,
        host: Box<dyn Host>,
        explorer: Option<Box<dyn Explorer>>,
    ) -> Result<Arc<App>, BoardError> {
        let game = new_game_of(DEFAULT_VARIANT)?;
        let date = date_at(host.wall_ms());
        let mut state = State {
            game,
            future: Vec::new(),
            notes: Vec::new(),
            evals: Vec::new(),
            players: [None, Some(Player::default())],
            default_player: Player::default(),
            analysis: None,
            search: None,
            reports: Default::default(),
            last_best: None,
            engine_error: None,
            review: ReviewSlot::None,
            loaded: None,
            generation: 0,
            version: 0,
            round: 1,
            date,
        };
        state.reset_line();
        Ok(Arc::new(App {
            state: Mutex::new(state),
            engines,
            host,
            shipped: Shipped::load()?,
            explorer,
        }))
    }

    /// Marks a change: readers see a new version, the host tells the pages.
    fn bump(&self, st: &mut State) {
        st.version += 1;
        self.host.changed(st.version);
    }

    /// Today's date for a new game's record.
    fn today(&self) -> String {
        date_at(self.host.wall_ms())
    }

    pub fn state(&self) -> StateView {
        self.view(&lock(&self.state))
    }
}
