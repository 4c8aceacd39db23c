//! The one game the web page plays: its record, who the engine plays, the
//! engine's search on a background thread, and the JSON views the page reads.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::Ordering::Relaxed;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::Instant;

use serde::{Deserialize, Serialize};
use tokio::sync::watch;

use crate::arena::record::{today, GameRecord, MoveRecord};
use crate::engine::{self, BestMove, GoParams, Options, Session, MAX_LEVEL};
use crate::game::{variants, AnyGame, MoveError, Outcome, Side};
use crate::search::{self, Info, Shared};

/// Transposition table of the web engine: enough for minute-long thoughts,
/// small beside a browser.
pub const HASH_MB: usize = 64;
pub const DEFAULT_VARIANT: &str = "mixtour";
pub const DEFAULT_MOVE_TIME_MS: u64 = 1_000;
/// Below this the engine has no time to finish even a shallow iteration.
pub const MIN_MOVE_TIME_MS: u64 = 10;
/// A player waits for each engine move; a minute is already long.
pub const MAX_MOVE_TIME_MS: u64 = 60_000;

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

// Requests. Unknown fields are refused so that a typo ("movetime") is an
// error the player sees rather than a setting silently ignored.

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewRequest {
    pub variant: Option<String>,
    /// "p1", "p2" or "none": the side the engine plays.
    pub engine: Option<String>,
    pub level: Option<u8>,
    pub movetime_ms: Option<u64>,
    pub depth: Option<i32>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoveRequest {
    #[serde(rename = "move")]
    pub mv: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UndoRequest {
    pub plies: Option<usize>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FenRequest {
    pub fen: String,
    pub variant: Option<String>,
}

// Views: what the page reads.

#[derive(Clone, Debug, Serialize)]
pub struct StateView {
    /// Goes up by one with every change, so a poller can tell nothing moved.
    pub version: u64,
    pub variant: &'static str,
    pub variants: Vec<&'static str>,
    pub fen: String,
    pub start_fen: String,
    pub moves: Vec<String>,
    pub last_move: Option<String>,
    pub side_to_move: &'static str,
    /// Empty when the game is over.
    pub legal_moves: Vec<String>,
    pub outcome: OutcomeView,
    pub engine: SettingsView,
    pub thinking: bool,
    /// The engine's latest report: of the running search while it thinks,
    /// else of its last move (cleared by a new game, a take-back, a FEN).
    pub analysis: Option<AnalysisView>,
    /// Why the engine could not move, if that ever happens.
    pub engine_error: Option<String>,
    /// What the page needs to draw the board beyond the position string:
    /// Castle's fixed terrain; `None` for games whose string says it all.
    pub board: Option<BoardView>,
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

fn board_view(variant: &str) -> Option<BoardView> {
    use crate::game::castle::{square_name, tables::KEY_SQUARE, terrain_rows};
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
    /// "goal reached", "double pass", "threefold repetition".
    pub reason: Option<&'static str>,
}

#[derive(Clone, Debug, Serialize)]
pub struct SettingsView {
    pub side: &'static str,
    pub level: u8,
    pub movetime_ms: u64,
    pub depth: Option<i32>,
}

#[derive(Clone, Debug, Serialize)]
pub struct AnalysisView {
    /// The side the engine searched for.
    pub side: &'static str,
    pub depth: i32,
    /// Score in centi-units from player 1's point of view (positive: player
    /// 1 is better); absent when a forced win was found.
    pub cp: Option<i32>,
    /// A forced win: positive for player 1, negative for player 2, in |mate|
    /// moves of the side that searched.
    pub mate: Option<i32>,
    pub pv: Vec<String>,
    pub nodes: u64,
    pub time_ms: u64,
}

impl AnalysisView {
    fn from_info(info: &Info, side: Side) -> AnalysisView {
        // Engine scores are from the side to move; the page shows one scale.
        let sign = if side == Side::P1 { 1 } else { -1 };
        let (cp, mate) = match search::mate_in(info.score) {
            Some(n) => (None, Some(sign * n)),
            None => (Some(sign * info.score), None),
        };
        AnalysisView {
            side: side_name(side),
            depth: info.depth,
            cp,
            mate,
            pv: info.pv.clone(),
            nodes: info.nodes,
            time_ms: info.time_ms,
        }
    }
}

pub fn side_name(side: Side) -> &'static str {
    match side {
        Side::P1 => "p1",
        Side::P2 => "p2",
    }
}

fn parse_engine_side(text: &str) -> Result<Option<Side>, ApiError> {
    match text {
        "p1" => Ok(Some(Side::P1)),
        "p2" => Ok(Some(Side::P2)),
        "none" => Ok(None),
        _ => Err(ApiError::bad_request(format!(
            "engine must be \"p1\", \"p2\" or \"none\", not {text:?}"
        ))),
    }
}

#[derive(Clone, Debug)]
struct Settings {
    engine: Option<Side>,
    level: u8,
    movetime_ms: u64,
    depth: Option<i32>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            engine: Some(Side::P2),
            level: MAX_LEVEL,
            movetime_ms: DEFAULT_MOVE_TIME_MS,
            depth: None,
        }
    }
}

impl Settings {
    fn engine_name(&self) -> String {
        let limit = match self.depth {
            Some(d) => format!("depth {d}"),
            None => format!("{:.1} s/move", self.movetime_ms as f64 / 1000.0),
        };
        format!("stackfish (level {}, {limit})", self.level)
    }
}

/// What the engine said about a move it played, for the record.
#[derive(Clone, Copy, Debug)]
struct Note {
    /// From the mover's point of view, as the engine reports it.
    score: i32,
    depth: i32,
    ms: u64,
}

struct Search {
    handle: JoinHandle<()>,
}

struct State {
    game: Box<dyn AnyGame>,
    /// The engine's own copy of the game; `None` while a search holds it.
    session: Option<Box<dyn Session>>,
    settings: Settings,
    /// One entry per move of `game`: what the engine said, for its own moves.
    notes: Vec<Option<Note>>,
    search: Option<Search>,
    analysis: Option<AnalysisView>,
    engine_error: Option<String>,
    /// Bumped when a search starts or is cancelled: a search thread whose
    /// number is stale must not touch the game.
    generation: u64,
    version: u64,
    round: u64,
    date: String,
}

/// The web board's game and engine. Shared by all request threads.
pub struct App {
    state: Mutex<State>,
    /// Held by every request that changes the game, for its whole length:
    /// cancelling a search waits for the search thread without holding
    /// `state` (the thread needs it to finish), and no other change may slip
    /// in meanwhile. Reads take `state` only, so polling never waits for this.
    control: Mutex<()>,
    shared: Arc<Shared>,
    /// The latest `version`, for the event streams of the pages.
    changes: watch::Sender<u64>,
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

impl App {
    pub fn new() -> Result<Arc<App>, String> {
        let shared = engine::allocate_shared(HASH_MB)?;
        let game = new_game_of(DEFAULT_VARIANT).map_err(|e| e.message)?;
        let session = engine::new_session(DEFAULT_VARIANT);
        Ok(Arc::new(App {
            state: Mutex::new(State {
                game,
                session,
                settings: Settings::default(),
                notes: Vec::new(),
                search: None,
                analysis: None,
                engine_error: None,
                generation: 0,
                version: 0,
                round: 1,
                date: today(),
            }),
            control: Mutex::new(()),
            shared,
            changes: watch::channel(0).0,
        }))
    }

    /// Tells of every change of the state from now on.
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.changes.subscribe()
    }

    /// Marks a change: pollers see a new version, event streams wake up.
    fn bump(&self, st: &mut State) {
        st.version += 1;
        self.changes.send_replace(st.version);
    }

    pub fn state(&self) -> StateView {
        view(&lock(&self.state))
    }

    /// Starts a new game; the engine moves at once if it plays player 1.
    pub fn new_game(self: &Arc<Self>, req: NewRequest) -> Result<StateView, ApiError> {
        let _control = lock(&self.control);
        let mut settings = lock(&self.state).settings.clone();
        if let Some(side) = &req.engine {
            settings.engine = parse_engine_side(side)?;
        }
        if let Some(level) = req.level {
            if !(1..=MAX_LEVEL).contains(&level) {
                return Err(ApiError::bad_request(format!(
                    "level must be 1 to {MAX_LEVEL}, not {level}"
                )));
            }
            settings.level = level;
        }
        if let Some(ms) = req.movetime_ms {
            if !(MIN_MOVE_TIME_MS..=MAX_MOVE_TIME_MS).contains(&ms) {
                return Err(ApiError::bad_request(format!(
                    "movetime_ms must be {MIN_MOVE_TIME_MS} to {MAX_MOVE_TIME_MS}, not {ms}"
                )));
            }
            settings.movetime_ms = ms;
        }
        if let Some(depth) = req.depth {
            if !(1..=search::MAX_DEPTH).contains(&depth) {
                return Err(ApiError::bad_request(format!(
                    "depth must be 1 to {}, not {depth}",
                    search::MAX_DEPTH
                )));
            }
        }
        // A depth is a per-game choice: a new game without one searches by time.
        settings.depth = req.depth;
        let variant = match &req.variant {
            Some(v) => v.clone(),
            None => lock(&self.state).game.variant_name().to_string(),
        };
        let game = new_game_of(&variant)?;
        self.cancel_search();
        let mut st = lock(&self.state);
        if st.session.as_ref().map(|s| s.variant()) != Some(game.variant_name()) {
            st.session = engine::new_session(game.variant_name());
        }
        if let Some(session) = st.session.as_mut() {
            // Fresh heuristics and a new level seed for each game.
            session.new_game();
        }
        st.game = game;
        st.settings = settings;
        st.round += 1;
        st.date = today();
        self.reset_record(&mut st);
        if st.settings.engine == Some(st.game.side_to_move()) {
            self.start_search(&mut st)?;
        }
        Ok(view(&st))
    }

    /// Plays a move of the side to move; the engine answers if it plays the
    /// other side.
    pub fn play(self: &Arc<Self>, req: MoveRequest) -> Result<StateView, ApiError> {
        let _control = lock(&self.control);
        let mut st = lock(&self.state);
        if st.search.is_some() {
            return Err(ApiError::conflict(
                "the engine is thinking: wait for its move, stop it, or take back",
            ));
        }
        if let Outcome::Over { reason, .. } = st.game.outcome() {
            return Err(ApiError::conflict(format!("the game is over ({reason})")));
        }
        match st.game.play_text(req.mv.trim()) {
            Ok(_) => {}
            Err(e @ MoveError::Syntax { .. }) => return Err(ApiError::bad_request(e.to_string())),
            Err(e @ MoveError::Illegal { .. }) => {
                return Err(ApiError::unprocessable(e.to_string()))
            }
        }
        st.notes.push(None);
        st.engine_error = None;
        self.bump(&mut st);
        if st.settings.engine == Some(st.game.side_to_move()) && !st.game.outcome().is_over() {
            self.start_search(&mut st)?;
        }
        Ok(view(&st))
    }

    /// The engine moves now for the side to move, whichever that is.
    pub fn go(self: &Arc<Self>) -> Result<StateView, ApiError> {
        let _control = lock(&self.control);
        let mut st = lock(&self.state);
        self.start_search(&mut st)?;
        Ok(view(&st))
    }

    /// Asks the thinking engine to play its best move so far.
    pub fn stop(&self) -> Result<StateView, ApiError> {
        let st = lock(&self.state);
        if st.search.is_none() {
            return Err(ApiError::conflict("the engine is not thinking"));
        }
        self.shared.stop.store(true, Relaxed);
        Ok(view(&st))
    }

    /// Takes back `plies` moves; by default as many as bring the turn back
    /// to a side the engine does not play (one or two). Cancels a search.
    pub fn undo(self: &Arc<Self>, req: UndoRequest) -> Result<StateView, ApiError> {
        let _control = lock(&self.control);
        let available = lock(&self.state).game.moves().len();
        if req.plies == Some(0) {
            return Err(ApiError::bad_request("plies must be at least 1"));
        }
        if available == 0 {
            return Err(ApiError::conflict("there is no move to take back"));
        }
        if let Some(n) = req.plies {
            if n > available {
                return Err(ApiError::conflict(format!(
                    "only {available} moves to take back, not {n}"
                )));
            }
        }
        self.cancel_search();
        let mut st = lock(&self.state);
        let mut taken = 0;
        loop {
            if !st.game.undo() {
                break;
            }
            st.notes.pop();
            taken += 1;
            let done = match req.plies {
                Some(n) => taken == n,
                None => st.settings.engine != Some(st.game.side_to_move()),
            };
            if done {
                break;
            }
        }
        st.analysis = None;
        st.engine_error = None;
        self.bump(&mut st);
        Ok(view(&st))
    }

    /// Loads a position; the engine waits for `go` or for the player's move.
    pub fn load_fen(self: &Arc<Self>, req: FenRequest) -> Result<StateView, ApiError> {
        let _control = lock(&self.control);
        let variant = match &req.variant {
            Some(v) => v.clone(),
            None => lock(&self.state).game.variant_name().to_string(),
        };
        let mut game = new_game_of(&variant)?;
        game.set_fen(req.fen.trim())
            .map_err(|e| ApiError::unprocessable(e.to_string()))?;
        self.cancel_search();
        let mut st = lock(&self.state);
        if st.session.as_ref().map(|s| s.variant()) != Some(game.variant_name()) {
            st.session = engine::new_session(game.variant_name());
        }
        st.game = game;
        st.round += 1;
        st.date = today();
        self.reset_record(&mut st);
        Ok(view(&st))
    }

    /// The game record in the arena's PGN-style format.
    pub fn record(&self) -> String {
        let st = lock(&self.state);
        let (player1, player2) = match st.settings.engine {
            Some(Side::P1) => (st.settings.engine_name(), "Human".to_string()),
            Some(Side::P2) => ("Human".to_string(), st.settings.engine_name()),
            None => ("Human".to_string(), "Human".to_string()),
        };
        let outcome = st.game.outcome();
        let moves = st
            .game
            .moves()
            .into_iter()
            .enumerate()
            .map(|(i, mv)| {
                let note = st.notes.get(i).copied().flatten();
                MoveRecord {
                    mv,
                    book: false,
                    cp: note
                        .filter(|n| search::mate_in(n.score).is_none())
                        .map(|n| n.score),
                    mate: note.and_then(|n| search::mate_in(n.score)),
                    depth: note.map(|n| n.depth.max(0) as u32),
                    ms: note.map(|n| n.ms),
                }
            })
            .collect();
        let record = GameRecord {
            game: u32::try_from(st.round).unwrap_or(u32::MAX),
            round: u32::try_from(st.round).unwrap_or(u32::MAX),
            opening: 0,
            event: "stackfish web game".to_string(),
            date: st.date.clone(),
            variant: st.game.variant_name().to_string(),
            player1,
            player2,
            fen: st.game.start_fen(),
            moves,
            result: outcome.result().map_or("*", |r| r.pgn()).to_string(),
            termination: match outcome {
                Outcome::Over { reason, .. } => reason.to_string(),
                Outcome::Ongoing => "unterminated".to_string(),
            },
            time_control: String::new(),
            duration_ms: 0,
        };
        record.pgn_at("stackfish serve")
    }

    /// Stops a running search and waits for it: for a clean shutdown.
    pub fn shutdown(&self) {
        let _control = lock(&self.control);
        self.cancel_search();
    }

    fn reset_record(&self, st: &mut State) {
        st.notes.clear();
        st.analysis = None;
        st.engine_error = None;
        self.bump(st);
    }

    /// Ends the running search, if any, without playing its move. The caller
    /// holds `control` but not `state`.
    fn cancel_search(&self) {
        let search = {
            let mut st = lock(&self.state);
            st.generation += 1;
            let search = st.search.take();
            if search.is_some() {
                self.shared.stop.store(true, Relaxed);
                self.bump(&mut st);
            }
            search
        };
        if let Some(search) = search {
            // The thread gives the session back before it ends; if it died
            // instead, `start_search` makes a new session.
            let _ = search.handle.join();
        }
    }

    /// Starts the engine on the side to move. The caller holds `control` and
    /// `state`.
    fn start_search(self: &Arc<Self>, st: &mut State) -> Result<(), ApiError> {
        if st.search.is_some() {
            return Err(ApiError::conflict("the engine is already thinking"));
        }
        if let Outcome::Over { reason, .. } = st.game.outcome() {
            return Err(ApiError::conflict(format!("the game is over ({reason})")));
        }
        let variant = st.game.variant_name();
        let mut session = match st.session.take() {
            Some(s) if s.variant() == variant => s,
            _ => engine::new_session(variant)
                .ok_or_else(|| ApiError::new(500, format!("no engine for {variant}")))?,
        };
        let start = st.game.start_fen();
        let moves = st.game.moves();
        let moves: Vec<&str> = moves.iter().map(String::as_str).collect();
        if let Err(e) = session.set_position(Some(&start), &moves) {
            st.session = Some(session);
            return Err(ApiError::new(
                500,
                format!("the engine refused the game: {e}"),
            ));
        }
        let side = st.game.side_to_move();
        let params = GoParams {
            move_time: Some(st.settings.movetime_ms),
            depth: st.settings.depth,
            ..GoParams::default()
        };
        let options = Options {
            hash_mb: HASH_MB,
            // The page is for playing; one thread leaves the machine usable.
            threads: 1,
            // Nothing travels between the server and its engine.
            move_overhead_ms: 0,
            level: st.settings.level,
        };
        st.generation += 1;
        let generation = st.generation;
        self.shared.arm();
        let app = Arc::clone(self);
        let spawned = std::thread::Builder::new()
            .name("web-search".into())
            .spawn(move || app.run_search(session, generation, side, params, options));
        match spawned {
            Ok(handle) => {
                st.search = Some(Search { handle });
                st.analysis = None;
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

    /// The body of the search thread: think, then play the move unless the
    /// search was cancelled meanwhile.
    fn run_search(
        self: Arc<Self>,
        mut session: Box<dyn Session>,
        generation: u64,
        side: Side,
        params: GoParams,
        options: Options,
    ) {
        let started = Instant::now();
        // A bug in the search must leave a board that still answers and
        // lets the player go on, not one stuck "thinking" for ever.
        let best = catch_unwind(AssertUnwindSafe(|| {
            session.go(&self.shared, &params, &options, &mut |info| {
                let mut st = lock(&self.state);
                if st.generation == generation {
                    st.analysis = Some(AnalysisView::from_info(info, side));
                    self.bump(&mut st);
                }
            })
        }));
        let mut st = lock(&self.state);
        // After a panic the session may be half-updated: start a fresh one.
        st.session = match best {
            Ok(_) => Some(session),
            Err(_) => None,
        };
        if st.generation != generation {
            return;
        }
        st.search = None;
        self.bump(&mut st);
        let Ok(best) = best else {
            st.engine_error = Some("the engine failed while thinking; try again".into());
            return;
        };
        match best {
            BestMove::Move { best, score, .. } => match st.game.play_text(&best) {
                Ok(_) => {
                    let depth = st.analysis.as_ref().map_or(0, |a| a.depth);
                    let ms = started.elapsed().as_millis() as u64;
                    st.notes.push(Some(Note { score, depth, ms }));
                }
                Err(e) => st.engine_error = Some(format!("the engine played {e}")),
            },
            BestMove::GameOver(reason) => {
                st.engine_error = Some(format!("the engine found no move ({reason})"))
            }
        }
    }
}

fn view(st: &State) -> StateView {
    let outcome = st.game.outcome();
    let moves = st.game.moves();
    StateView {
        version: st.version,
        variant: st.game.variant_name(),
        variants: variants::variant_names().to_vec(),
        fen: st.game.fen(),
        start_fen: st.game.start_fen(),
        last_move: moves.last().cloned(),
        moves,
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
            side: st.settings.engine.map_or("none", side_name),
            level: st.settings.level,
            movetime_ms: st.settings.movetime_ms,
            depth: st.settings.depth,
        },
        thinking: st.search.is_some(),
        analysis: st.analysis.clone(),
        engine_error: st.engine_error.clone(),
        board: board_view(st.game.variant_name()),
    }
}
