//! The one game the web page shows: its line of moves with a cursor (the
//! position shown), who plays each side, the analysis engine, the searches
//! on background threads, and the state view the page reads.
//!
//! One search runs at a time: a player's engine when it is that player's
//! turn, else the analysis engine when analysis is on. Requests never wait
//! for a search thread: a search is cancelled by its stop flag and a stale
//! generation number, and the next search thread waits for the old one.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use tokio::sync::watch;

use super::engines::{Finish, Job, JobLimit, Report, Roster, Searcher, BUILTIN};
use super::eval::{self, Eval};
use super::explorer::{self, TableView};
use super::files::{self, BoardsView, Export, Shipped};
use super::view::*;
use stackfish_client::engine::Score;
use stackfish_engine::MAX_LEVEL;
use stackfish_games::{variants, AnyGame, MoveError, Outcome, Side};
use stackfish_record::{today, GameRecord, MoveRecord};
use stackfish_search as search;
use stackfish_tables::TableSet;

pub const DEFAULT_VARIANT: &str = "mixtour";
pub const DEFAULT_MOVE_TIME_MS: u64 = 1_000;
/// Below this the engine has no time to finish even a shallow iteration.
pub const MIN_MOVE_TIME_MS: u64 = 10;
/// A player waits for each engine move; a minute is already long.
pub const MAX_MOVE_TIME_MS: u64 = 60_000;
/// Lines the analysis shows at most.
pub const MAX_ANALYSIS_LINES: u8 = 5;

/// An answer the API refuses to give: an HTTP status and a message for people.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApiError {
    pub status: u16,
    pub message: String,
}

impl ApiError {
    pub fn new(status: u16, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            message: message.into(),
        }
    }
    fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(400, message)
    }
    fn conflict(message: impl Into<String>) -> ApiError {
        ApiError::new(409, message)
    }
    fn unprocessable(message: impl Into<String>) -> ApiError {
        ApiError::new(422, message)
    }
}

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

/// What a search is for: a player's move, or the analysis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    Player(Side),
    Analysis,
}

impl Role {
    fn slot(self) -> usize {
        match self {
            Role::Player(side) => side.index(),
            Role::Analysis => 2,
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

struct Search {
    handle: JoinHandle<()>,
    stop: Arc<AtomicBool>,
    role: Role,
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
    /// Cancelled searches still finishing; the next search waits for them.
    retiring: Vec<JoinHandle<()>>,
    /// The searchers of player 1, player 2 and the analysis, with the name
    /// of their engine; `None` while a search thread holds one.
    searchers: [Option<(String, Box<dyn Searcher>)>; 3],
    reports: [Option<ReportView>; 3],
    /// The latest search's best line, for the compatible `analysis` field.
    last_best: Option<AnalysisView>,
    engine_error: Option<String>,
    /// Bumped when a search starts or is cancelled: a search thread whose
    /// number is stale must not touch the game.
    generation: u64,
    version: u64,
    round: u64,
    date: String,
}

/// The web board's game and engines. Shared by all request threads.
pub struct App {
    state: Mutex<State>,
    roster: Roster,
    /// The latest `version`, for the event streams of the pages.
    changes: watch::Sender<u64>,
    /// The boards of `boards/`, offered for a new game.
    shipped: Shipped,
    /// `--silo-tables`: the explorer's tables.
    tables: Option<TableSet>,
    /// The explorer's view of the last position shown (its string, whether
    /// the game was over): the state is sent after every engine line, the
    /// position changes far less often.
    explored: Mutex<Option<(String, bool, Option<TableView>)>>,
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

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
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

    fn first_side(&self) -> Side {
        self.side_at(0)
    }
}

impl App {
    /// `tables`: the Silo tables the explorer shows (`--silo-tables`).
    pub fn new(roster: Roster, tables: Option<TableSet>) -> Result<Arc<App>, String> {
        let game = new_game_of(DEFAULT_VARIANT).map_err(|e| e.message)?;
        let mut state = State {
            game,
            future: Vec::new(),
            notes: Vec::new(),
            evals: Vec::new(),
            players: [None, Some(Player::default())],
            default_player: Player::default(),
            analysis: None,
            search: None,
            retiring: Vec::new(),
            searchers: [None, None, None],
            reports: Default::default(),
            last_best: None,
            engine_error: None,
            generation: 0,
            version: 0,
            round: 1,
            date: today(),
        };
        state.reset_line();
        Ok(Arc::new(App {
            state: Mutex::new(state),
            roster,
            changes: watch::channel(0).0,
            shipped: Shipped::load()?,
            tables,
            explored: Mutex::new(None),
        }))
    }

    /// Tells of every change of the state from now on.
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.changes.subscribe()
    }

    /// Marks a change: readers see a new version, event streams wake up.
    fn bump(&self, st: &mut State) {
        st.version += 1;
        self.changes.send_replace(st.version);
    }

    pub fn state(&self) -> StateView {
        self.view(&lock(&self.state))
    }

    fn check_engine(&self, name: &str) -> Result<(), ApiError> {
        if self.roster.knows(name) {
            Ok(())
        } else {
            Err(ApiError::bad_request(format!(
                "unknown engine {name:?}; known: {}",
                self.roster.names().join(", ")
            )))
        }
    }

    /// `base` with the fields of `req` that are set, checked.
    fn player_from(&self, base: &Player, req: &PlayerRequest) -> Result<Player, ApiError> {
        let mut p = base.clone();
        if let Some(name) = &req.engine {
            self.check_engine(name)?;
            p.engine = name.clone();
        }
        if let Some(level) = req.level {
            if !(1..=MAX_LEVEL).contains(&level) {
                return Err(ApiError::bad_request(format!(
                    "level must be 1 to {MAX_LEVEL}, not {level}"
                )));
            }
            p.level = level;
        }
        if let Some(ms) = req.movetime_ms {
            if !(MIN_MOVE_TIME_MS..=MAX_MOVE_TIME_MS).contains(&ms) {
                return Err(ApiError::bad_request(format!(
                    "movetime_ms must be {MIN_MOVE_TIME_MS} to {MAX_MOVE_TIME_MS}, not {ms}"
                )));
            }
            p.movetime_ms = ms;
        }
        if let Some(depth) = req.depth {
            if !(1..=search::MAX_DEPTH).contains(&depth) {
                return Err(ApiError::bad_request(format!(
                    "depth must be 1 to {}, not {depth}",
                    search::MAX_DEPTH
                )));
            }
        }
        // A depth is a per-game choice: without one the engine searches by time.
        p.depth = req.depth;
        Ok(p)
    }

    /// Starts a new game; an engine moves at once if it plays player 1.
    pub fn new_game(self: &Arc<Self>, req: NewRequest) -> Result<StateView, ApiError> {
        let (base, old_players) = {
            let st = lock(&self.state);
            (st.default_player.clone(), st.players.clone())
        };
        let common = PlayerRequest {
            engine: req.opponent.clone(),
            level: req.level,
            movetime_ms: req.movetime_ms,
            depth: req.depth,
        };
        let default_player = self.player_from(&base, &common)?;
        let players: [Option<Player>; 2] = if req.p1.is_some() || req.p2.is_some() {
            if req.engine.is_some() {
                return Err(ApiError::bad_request(
                    "give either engine or p1/p2, not both",
                ));
            }
            let side = |r: &Option<PlayerRequest>| {
                r.as_ref()
                    .map(|r| self.player_from(&default_player, r))
                    .transpose()
            };
            [side(&req.p1)?, side(&req.p2)?]
        } else {
            let sides = match req.engine.as_deref() {
                Some("p1") => [true, false],
                Some("p2") => [false, true],
                Some("both") => [true, true],
                Some("none") => [false, false],
                None => [old_players[0].is_some(), old_players[1].is_some()],
                Some(other) => {
                    return Err(ApiError::bad_request(format!(
                        "engine must be \"p1\", \"p2\", \"both\" or \"none\", not {other:?}"
                    )))
                }
            };
            sides.map(|on| on.then(|| default_player.clone()))
        };
        let shaped = req.board.is_some() || req.file.is_some();
        let variant = match &req.variant {
            Some(v) => v.clone(),
            None => {
                let st = lock(&self.state);
                // A board or a file with the game left out: Mixtour, the
                // current variant if it is one.
                if shaped && files::mixtour_goal(&st.game.start_fen()).is_none() {
                    DEFAULT_VARIANT.to_string()
                } else {
                    st.game.variant_name().to_string()
                }
            }
        };
        let mut game = new_game_of(&variant)?;
        if shaped {
            let fen = self.shaped_start(&req, &game.start_fen(), &variant)?;
            game.set_fen(&fen)
                .map_err(|e| ApiError::unprocessable(e.to_string()))?;
        }
        let mut st = lock(&self.state);
        self.cancel_search(&mut st);
        st.game = game;
        st.players = players;
        st.default_player = default_player;
        st.round += 1;
        st.date = today();
        st.reset_line();
        self.bump(&mut st);
        self.next_search(&mut st, true)?;
        Ok(self.view(&st))
    }

    /// The start of a new game on a shipped board or from an uploaded file,
    /// for the game whose own start is `start_fen`: a board is played to
    /// that game's goal, a saved game to its own.
    fn shaped_start(
        &self,
        req: &NewRequest,
        start_fen: &str,
        variant: &str,
    ) -> Result<String, ApiError> {
        let goal = files::mixtour_goal(start_fen).ok_or_else(|| {
            ApiError::bad_request(format!(
                "boards and StackAndConquer files are for Mixtour (mixtour, mixtour-5), not {variant}"
            ))
        })?;
        match (&req.board, &req.file) {
            (Some(_), Some(_)) => Err(ApiError::bad_request("give board or file, not both")),
            (Some(board), None) => self.shipped.start(board, goal),
            (None, Some(file)) => files::import_upload(file, goal),
            (None, None) => Err(ApiError::bad_request("give board or file")),
        }
    }

    /// The shipped boards, for `GET /api/boards`.
    pub fn boards(&self) -> BoardsView {
        self.shipped.view()
    }

    /// The position shown as StackAndConquer files.
    pub fn export(&self) -> Result<Export, ApiError> {
        let st = lock(&self.state);
        files::export(
            &self.shipped,
            st.game.variant_name(),
            &st.game.fen(),
            st.ply(),
        )
    }

    /// The explorer's view of the position shown, if it is Silo and a table
    /// covers it.
    fn explore(&self, st: &State) -> Option<TableView> {
        let tables = self.tables.as_ref()?;
        if st.game.variant_name().split('-').next() != Some("silo") {
            return None;
        }
        let fen = st.game.fen();
        let over = st.game.outcome().is_over();
        let mut cached = lock(&self.explored);
        if let Some((f, o, view)) = cached.as_ref() {
            if *f == fen && *o == over {
                return view.clone();
            }
        }
        let view = explorer::explore(tables, &fen, over);
        *cached = Some((fen, over, view.clone()));
        view
    }

    /// Plays a move (or a line of moves) of the side to move; an engine
    /// answers if it plays the other side.
    pub fn play(self: &Arc<Self>, req: MoveRequest) -> Result<StateView, ApiError> {
        let moves = match (req.mv, req.moves) {
            (Some(mv), None) => vec![mv],
            (None, Some(moves)) if !moves.is_empty() => moves,
            (None, Some(_)) => return Err(ApiError::bad_request("moves is empty")),
            _ => return Err(ApiError::bad_request("give move or moves")),
        };
        let mut st = lock(&self.state);
        if matches!(
            st.search,
            Some(Search {
                role: Role::Player(_),
                ..
            })
        ) {
            return Err(ApiError::conflict(
                "the engine is thinking: wait for its move, stop it, or take back",
            ));
        }
        // All or nothing: checked on a copy first.
        let mut trial = st.game.box_clone();
        let mut canonical = Vec::new();
        for mv in &moves {
            canonical.push(play_checked(trial.as_mut(), mv)?);
        }
        self.cancel_search(&mut st);
        for mv in canonical {
            if st.game.play_text(&mv).is_ok() {
                st.push_move(mv, None);
            }
        }
        st.engine_error = None;
        st.reports[0] = None;
        st.reports[1] = None;
        self.bump(&mut st);
        self.next_search(&mut st, true)?;
        Ok(self.view(&st))
    }

    /// The engine moves now for the side to move: that side's engine, or
    /// the last new game's engine on a human's turn.
    pub fn go(self: &Arc<Self>) -> Result<StateView, ApiError> {
        let mut st = lock(&self.state);
        if matches!(
            st.search,
            Some(Search {
                role: Role::Player(_),
                ..
            })
        ) {
            return Err(ApiError::conflict("the engine is already thinking"));
        }
        if let Outcome::Over { reason, .. } = st.game.outcome() {
            return Err(ApiError::conflict(format!("the game is over ({reason})")));
        }
        let side = st.game.side_to_move();
        let player = st
            .engine_to_move()
            .cloned()
            .unwrap_or_else(|| st.default_player.clone());
        self.cancel_search(&mut st);
        self.start_search(&mut st, Role::Player(side), &player, 1)?;
        Ok(self.view(&st))
    }

    /// Asks the thinking engine to play its best move so far.
    pub fn stop(&self) -> Result<StateView, ApiError> {
        let st = lock(&self.state);
        match &st.search {
            Some(
                s @ Search {
                    role: Role::Player(_),
                    ..
                },
            ) => s.stop.store(true, Relaxed),
            _ => return Err(ApiError::conflict("the engine is not thinking")),
        }
        Ok(self.view(&st))
    }

    /// Takes back `plies` moves (they stay as the future, for `goto`); by
    /// default as many as bring the turn back to a side no engine plays.
    /// Cancels a search; an engine does not start on its own after it.
    pub fn undo(self: &Arc<Self>, req: UndoRequest) -> Result<StateView, ApiError> {
        let mut st = lock(&self.state);
        let available = st.ply();
        if req.plies == Some(0) {
            return Err(ApiError::bad_request("plies must be at least 1"));
        }
        if available == 0 {
            return Err(ApiError::conflict("there is no move to take back"));
        }
        let target = match req.plies {
            Some(n) if n > available => {
                return Err(ApiError::conflict(format!(
                    "only {available} moves to take back, not {n}"
                )))
            }
            Some(n) => available - n,
            None => {
                let mut target = available - 1;
                while target > 0 && st.players[st.side_at(target).index()].is_some() {
                    target -= 1;
                }
                target
            }
        };
        self.seek_to(&mut st, target)?;
        Ok(self.view(&st))
    }

    /// Shows the position after `ply` moves of the line (back or forward).
    pub fn goto(self: &Arc<Self>, req: GotoRequest) -> Result<StateView, ApiError> {
        let mut st = lock(&self.state);
        let total = st.total();
        if req.ply > total {
            return Err(ApiError::bad_request(format!(
                "ply must be 0 to {total}, not {}",
                req.ply
            )));
        }
        self.seek_to(&mut st, req.ply)?;
        Ok(self.view(&st))
    }

    fn seek_to(self: &Arc<Self>, st: &mut State, ply: usize) -> Result<(), ApiError> {
        self.cancel_search(st);
        st.seek(ply);
        st.reports = Default::default();
        st.last_best = None;
        st.engine_error = None;
        self.bump(st);
        // A player's engine waits for `go`; the analysis follows at once.
        self.next_search(st, false)
    }

    /// Loads a position; an engine waits for `go` or for the player's move.
    pub fn load_fen(self: &Arc<Self>, req: FenRequest) -> Result<StateView, ApiError> {
        let variant = match &req.variant {
            Some(v) => v.clone(),
            None => lock(&self.state).game.variant_name().to_string(),
        };
        let mut game = new_game_of(&variant)?;
        game.set_fen(req.fen.trim())
            .map_err(|e| ApiError::unprocessable(e.to_string()))?;
        let mut st = lock(&self.state);
        self.cancel_search(&mut st);
        st.game = game;
        st.round += 1;
        st.date = today();
        st.reset_line();
        self.bump(&mut st);
        self.next_search(&mut st, false)?;
        Ok(self.view(&st))
    }

    /// Turns the analysis on (with an engine and a number of lines) or off.
    pub fn analyse(self: &Arc<Self>, req: AnalyseRequest) -> Result<StateView, ApiError> {
        let mut st = lock(&self.state);
        if !req.on {
            if req.engine.is_some() || req.multipv.is_some() {
                return Err(ApiError::bad_request(
                    "analysis off takes no engine or multipv",
                ));
            }
            st.analysis = None;
            if matches!(
                st.search,
                Some(Search {
                    role: Role::Analysis,
                    ..
                })
            ) {
                self.cancel_search(&mut st);
            }
            st.reports[2] = None;
            self.bump(&mut st);
            return Ok(self.view(&st));
        }
        let current = st.analysis.clone();
        let engine = req
            .engine
            .or(current.as_ref().map(|a| a.engine.clone()))
            .unwrap_or_else(|| BUILTIN.to_string());
        self.check_engine(&engine)?;
        let multipv = req.multipv.or(current.map(|a| a.multipv)).unwrap_or(1);
        if !(1..=MAX_ANALYSIS_LINES).contains(&multipv) {
            return Err(ApiError::bad_request(format!(
                "multipv must be 1 to {MAX_ANALYSIS_LINES}, not {multipv}"
            )));
        }
        st.analysis = Some(AnalysisModeView { engine, multipv });
        if !matches!(
            st.search,
            Some(Search {
                role: Role::Player(_),
                ..
            })
        ) {
            self.cancel_search(&mut st);
            st.reports[2] = None;
            self.next_search(&mut st, false)?;
        }
        self.bump(&mut st);
        Ok(self.view(&st))
    }

    /// The game record up to the position shown, in the arena's format.
    pub fn record(&self) -> String {
        let st = lock(&self.state);
        let name = |p: &Option<Player>| p.as_ref().map_or("Human".to_string(), Player::name);
        let outcome = st.game.outcome();
        let moves = st
            .game
            .moves()
            .into_iter()
            .enumerate()
            .map(|(i, mv)| {
                let note = st.notes.get(i).copied().flatten();
                let score = note.and_then(|n| n.score);
                MoveRecord {
                    mv,
                    book: false,
                    cp: match score {
                        Some(Score::Cp(v)) => Some(v),
                        _ => None,
                    },
                    mate: match score {
                        Some(Score::Mate(n)) => Some(n),
                        _ => None,
                    },
                    depth: note.map(|n| n.depth),
                    ms: note.map(|n| n.ms),
                }
            })
            .collect();
        let record = GameRecord {
            game: u32::try_from(st.round).unwrap_or(u32::MAX),
            round: Some(u32::try_from(st.round).unwrap_or(u32::MAX)),
            opening: Some(0),
            event: "stackfish web game".to_string(),
            date: Some(st.date.clone()),
            variant: st.game.variant_name().to_string(),
            player1: name(&st.players[0]),
            player2: name(&st.players[1]),
            fen: Some(st.game.start_fen()),
            moves,
            result: outcome.result().map_or("*", |r| r.pgn()).to_string(),
            termination: match outcome {
                Outcome::Over { reason, .. } => reason.to_string(),
                Outcome::Ongoing => "unterminated".to_string(),
            },
            time_control: Some(String::new()),
            duration_ms: Some(0),
            nodes: None,
            seed: None,
        };
        record.pgn_at("stackfish serve")
    }

    /// Stops every search, waits for the threads, and ends the engines'
    /// processes: for a clean shutdown.
    pub fn shutdown(&self) {
        let handles = {
            let mut st = lock(&self.state);
            st.analysis = None;
            st.players = [None, None];
            self.cancel_search(&mut st);
            std::mem::take(&mut st.retiring)
        };
        for h in handles {
            let _ = h.join();
        }
        let searchers: Vec<_> = {
            let mut st = lock(&self.state);
            st.searchers.iter_mut().filter_map(Option::take).collect()
        };
        for (_, s) in searchers {
            s.close();
        }
    }

    /// Ends the running search, if any, without playing its move.
    fn cancel_search(&self, st: &mut State) {
        st.generation += 1;
        if let Some(search) = st.search.take() {
            search.stop.store(true, Relaxed);
            if let Some(r) = st.reports[search.role.slot()].as_mut() {
                r.running = false;
            }
            st.retiring.retain(|h| !h.is_finished());
            st.retiring.push(search.handle);
            self.bump(st);
        }
    }

    /// Starts what should run now: the engine of the side to move (if
    /// `autoplay`), else the analysis. The caller holds `state`.
    fn next_search(self: &Arc<Self>, st: &mut State, autoplay: bool) -> Result<(), ApiError> {
        if st.search.is_some() || st.game.outcome().is_over() {
            return Ok(());
        }
        if let Some(player) = st.engine_to_move().cloned() {
            if autoplay {
                let side = st.game.side_to_move();
                return self.start_search(st, Role::Player(side), &player, 1);
            }
        }
        if let Some(mode) = st.analysis.clone() {
            let player = Player {
                engine: mode.engine,
                ..Player::default()
            };
            return self.start_search(st, Role::Analysis, &player, mode.multipv);
        }
        Ok(())
    }

    /// Starts `player`'s engine on the position shown. The caller holds
    /// `state` and has cancelled any other search.
    fn start_search(
        self: &Arc<Self>,
        st: &mut State,
        role: Role,
        player: &Player,
        multipv: u8,
    ) -> Result<(), ApiError> {
        if let Outcome::Over { reason, .. } = st.game.outcome() {
            return Err(ApiError::conflict(format!("the game is over ({reason})")));
        }
        let job = Job {
            variant: st.game.variant_name(),
            start_fen: st.game.start_fen(),
            moves: st.game.moves(),
            round: st.round,
            limit: match role {
                Role::Analysis => JobLimit::Infinite,
                Role::Player(_) => JobLimit::Move {
                    movetime_ms: player.movetime_ms,
                    depth: player.depth,
                },
            },
            level: player.level,
            multipv,
        };
        st.generation += 1;
        let generation = st.generation;
        let stop = Arc::new(AtomicBool::new(false));
        let waits: Vec<JoinHandle<()>> = std::mem::take(&mut st.retiring);
        let side = st.game.side_to_move();
        st.reports[role.slot()] = Some(ReportView {
            engine: player.engine.clone(),
            ply: st.ply(),
            side: side_name(side),
            running: true,
            lines: Vec::new(),
        });
        let app = Arc::clone(self);
        let (flag, engine) = (stop.clone(), player.engine.clone());
        let spawned = std::thread::Builder::new()
            .name("web-search".into())
            .spawn(move || app.run_search(waits, role, engine, job, generation, flag));
        match spawned {
            Ok(handle) => {
                st.search = Some(Search { handle, stop, role });
                st.engine_error = None;
                self.bump(st);
                Ok(())
            }
            Err(e) => Err(ApiError::new(
                503,
                format!("cannot start the engine thread: {e}"),
            )),
        }
    }

    /// The body of a search thread: wait for cancelled searches to end,
    /// think, then play the move unless the search was cancelled meanwhile.
    fn run_search(
        self: Arc<Self>,
        waits: Vec<JoinHandle<()>>,
        role: Role,
        engine: String,
        job: Job,
        generation: u64,
        stop: Arc<AtomicBool>,
    ) {
        for h in waits {
            let _ = h.join();
        }
        let slot = role.slot();
        let held = lock(&self.state).searchers[slot].take();
        let mut searcher = match held {
            Some((name, s)) if name == engine => s,
            other => {
                if let Some((_, old)) = other {
                    old.close();
                }
                match self.roster.searcher(&engine) {
                    Some(s) => s,
                    None => return,
                }
            }
        };
        let ply = job.moves.len();
        let side = {
            let st = lock(&self.state);
            if st.generation != generation {
                drop(st);
                self.give_back(slot, engine, searcher);
                return;
            }
            st.game.side_to_move()
        };
        let started = Instant::now();
        let mut last: Option<Report> = None;
        let result = searcher.run(&job, &stop, &mut |report| {
            let mut st = lock(&self.state);
            if st.generation != generation {
                return;
            }
            self.take_report(&mut st, slot, ply, side, &report);
            if report.multipv == 1 {
                last = Some(report);
            }
        });
        let result = match result {
            Ok(finish) => Ok(finish),
            Err(what) => {
                {
                    let mut st = lock(&self.state);
                    if st.generation == generation {
                        st.engine_error = Some(format!("{what}; restarting it"));
                        self.bump(&mut st);
                    }
                }
                let restarted = searcher.restart(job.variant);
                Err(match restarted {
                    Ok(()) => format!("{what}; restarted it"),
                    Err(e) => format!("{what}; restarting failed: {e}"),
                })
            }
        };
        lock(&self.state).searchers[slot] = Some((engine.clone(), searcher));
        let mut st = lock(&self.state);
        if st.generation != generation {
            return;
        }
        st.search = None;
        if let Some(r) = st.reports[slot].as_mut() {
            r.running = false;
        }
        self.bump(&mut st);
        let finish = match result {
            Ok(f) => f,
            Err(text) => {
                st.engine_error = Some(text);
                return;
            }
        };
        let Role::Player(_) = role else {
            // Analysis ends only when stopped, and then its generation is stale.
            return;
        };
        match finish {
            Finish::Move { mv } => match st.game.play_text(&mv) {
                Ok(canonical) => {
                    let note = Note {
                        score: last.as_ref().map(|r| r.score),
                        depth: last.as_ref().map_or(0, |r| r.depth),
                        ms: started.elapsed().as_millis() as u64,
                    };
                    st.push_move(canonical, Some(note));
                    // The engine's score of its move is its view of the
                    // position it leads to, until something looks closer.
                    if let (Some(r), Some(slot)) = (&last, st.evals.get_mut(ply + 1)) {
                        if slot.is_none() {
                            *slot = Some(Eval::new(r.score, side, r.depth.saturating_sub(1)));
                        }
                    }
                    self.bump(&mut st);
                    let _ = self.next_search(&mut st, true);
                }
                Err(e) => {
                    st.engine_error = Some(format!("{engine} played {e}"));
                }
            },
            Finish::NoMove(reason) => {
                st.engine_error = Some(format!("{engine} found no move ({reason})"));
            }
        }
    }

    /// Puts a searcher back for the next search of its role.
    fn give_back(&self, slot: usize, engine: String, searcher: Box<dyn Searcher>) {
        lock(&self.state).searchers[slot] = Some((engine, searcher));
    }

    /// One line of a running search: into its report, and the best line
    /// into the position's evaluation.
    fn take_report(&self, st: &mut State, slot: usize, ply: usize, side: Side, r: &Report) {
        let eval = Eval::new(r.score, side, r.depth);
        let line = LineView {
            multipv: r.multipv,
            depth: r.depth,
            cp: eval.cp,
            mate: eval.mate,
            pv: r.pv.clone(),
            nodes: r.nodes,
            time_ms: r.time_ms,
            at_ms: now_ms(),
        };
        if let Some(report) = st.reports[slot].as_mut() {
            match report.lines.iter().position(|l| l.multipv == r.multipv) {
                Some(at) => report.lines[at] = line.clone(),
                None => report.lines.push(line.clone()),
            }
            report.lines.sort_by_key(|l| l.multipv);
        }
        if r.multipv == 1 {
            if let Some(e) = st.evals.get_mut(ply) {
                if e.is_none_or(|old| old.depth <= r.depth) {
                    *e = Some(eval);
                }
            }
            st.last_best = Some(AnalysisView::new(side, &line));
        }
        self.bump(st);
    }

    fn view(&self, st: &State) -> StateView {
        let outcome = st.game.outcome();
        let moves = st.game.moves();
        let side_of = |p: &Option<Player>| p.is_some();
        let engine_side = match (side_of(&st.players[0]), side_of(&st.players[1])) {
            (true, true) => "both",
            (true, false) => "p1",
            (false, true) => "p2",
            (false, false) => "none",
        };
        let [r1, r2, ra] = st.reports.clone();
        StateView {
            version: st.version,
            variant: st.game.variant_name(),
            variants: variants::variant_names().to_vec(),
            fen: st.game.fen(),
            start_fen: st.game.start_fen(),
            last_move: moves.last().cloned(),
            moves,
            future: st.future.iter().rev().cloned().collect(),
            side_to_move: side_name(st.game.side_to_move()),
            legal_moves: st.game.legal_moves(),
            outcome: match outcome {
                Outcome::Ongoing => OutcomeView {
                    over: false,
                    result: "*",
                    winner: None,
                    reason: None,
                },
                Outcome::Over { result, reason } => OutcomeView {
                    over: true,
                    result: result.pgn(),
                    winner: result.winner().map(side_name),
                    reason: Some(reason),
                },
            },
            engine: SettingsView {
                side: engine_side,
                level: st.default_player.level,
                movetime_ms: st.default_player.movetime_ms,
                depth: st.default_player.depth,
            },
            players: PlayersView {
                p1: st.players[0].as_ref().map(Player::view),
                p2: st.players[1].as_ref().map(Player::view),
            },
            engines: self.roster.names(),
            thinking: matches!(
                st.search,
                Some(Search {
                    role: Role::Player(_),
                    ..
                })
            ),
            analysing: matches!(
                st.search,
                Some(Search {
                    role: Role::Analysis,
                    ..
                })
            ),
            analysis_mode: st.analysis.clone(),
            analysis: st.last_best.clone(),
            reports: ReportsView {
                p1: r1,
                p2: r2,
                analysis: ra,
            },
            evals: st.evals.clone(),
            marks: eval::marks(&st.evals, st.first_side()),
            engine_error: st.engine_error.clone(),
            board: board_view(st.game.variant_name()),
            table: self.explore(st),
            silo_tables: self
                .tables
                .as_ref()
                .map(explorer::configs)
                .unwrap_or_default(),
        }
    }
}
