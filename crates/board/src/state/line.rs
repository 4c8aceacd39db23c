//! Position handling: new games, moves played, the cursor moved along the
//! line, positions loaded.

use std::sync::Arc;

use super::super::files;
use super::super::view::*;
use super::review::Loaded;
use super::{lock, new_game_of, play_checked, App, Player, Role, State, DEFAULT_VARIANT};
use super::{MAX_MOVE_TIME_MS, MIN_MOVE_TIME_MS};
use crate::error::ApiError;
use stackfish_engine::MAX_LEVEL;
use stackfish_games::AnyGame;
use stackfish_record::RecordReader;
use stackfish_review::ReviewGame;
use stackfish_search as search;

impl App {
    pub(super) fn check_engine(&self, name: &str) -> Result<(), ApiError> {
        if self.engines.iter().any(|e| e == name) {
            Ok(())
        } else {
            Err(ApiError::bad_request(format!(
                "unknown engine {name:?}; known: {}",
                self.engines.join(", ")
            )))
        }
    }

    /// `base` with the fields of `req` that are set, checked.
    pub(super) fn player_from(
        &self,
        base: &Player,
        req: &PlayerRequest,
    ) -> Result<Player, ApiError> {
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
        st.players = players;
        st.default_player = default_player;
        self.show_game(&mut st, game, None, true)?;
        Ok(self.view(&st))
    }

    /// Shows `game` as a new round from its start to its moves, `loaded`
    /// from a record or not: the search running is cancelled, the line's
    /// notes and any review dropped, and the next search started
    /// (`engines_move`: a player's engine moves at once, else it waits for
    /// `go` or the player's move).
    fn show_game(
        self: &Arc<Self>,
        st: &mut State,
        game: Box<dyn AnyGame>,
        loaded: Option<Loaded>,
        engines_move: bool,
    ) -> Result<(), ApiError> {
        self.cancel_search(st);
        st.game = game;
        st.round += 1;
        st.date = self.today();
        st.reset_line();
        st.loaded = loaded;
        self.new_line(st);
        self.bump(st);
        self.next_search(st, engines_move)
    }

    /// The start of a new game on a shipped board or from an uploaded file,
    /// for the game whose own start is `start_fen`: a board is played to
    /// that game's goal, a saved game to its own.
    pub(super) fn shaped_start(
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
        if st.player_thinking() {
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
        // A review goes on while the moves only step along its line.
        if !st.running(Role::Review) {
            self.cancel_search(&mut st);
        }
        for mv in canonical {
            if st.game.play_text(&mv).is_ok() {
                st.push_move(mv, None);
            }
        }
        self.line_changed(&mut st, "a move changed the game");
        st.engine_error = None;
        st.reports[0] = None;
        st.reports[1] = None;
        self.bump(&mut st);
        self.next_search(&mut st, true)?;
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

    pub(super) fn seek_to(self: &Arc<Self>, st: &mut State, ply: usize) -> Result<(), ApiError> {
        // A review searches the whole line, whatever is shown.
        if !st.running(Role::Review) {
            self.cancel_search(st);
        }
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
        let moves = req.moves.as_deref().unwrap_or("");
        for (i, mv) in moves.split_whitespace().enumerate() {
            play_checked(game.as_mut(), mv).map_err(|e| ApiError {
                message: format!("move {} of the moves, {mv}: {}", i + 1, e.message),
                ..e
            })?;
        }
        let mut st = lock(&self.state);
        self.show_game(&mut st, game, None, false)?;
        Ok(self.view(&st))
    }

    /// Loads the first game of a record (`POST /api/load`: the board's
    /// download, the arena's PGN or JSONL, an annotated game): its start
    /// and its moves up to the first one the rules refuse, shown at its
    /// end; an engine waits for `go` or the player's move.
    pub fn load_record(self: &Arc<Self>, req: LoadRequest) -> Result<StateView, ApiError> {
        let name = match req.name.as_deref().map(str::trim) {
            Some(n) if !n.is_empty() => n.to_string(),
            _ => "the record".to_string(),
        };
        if req.text.len() > files::MAX_FILE_BYTES {
            return Err(ApiError::new(
                413,
                format!(
                    "{name} is {} bytes; the board takes files up to {} bytes",
                    req.text.len(),
                    files::MAX_FILE_BYTES
                ),
            ));
        }
        let refused = |e: &dyn std::fmt::Display| ApiError::unprocessable(format!("{name}: {e}"));
        let item = RecordReader::new(req.text.as_bytes())
            .next()
            .ok_or_else(|| refused(&"no game in it"))?;
        let parsed = item.parse().map_err(|e| refused(&e))?;
        let replayed = ReviewGame::from_record(&parsed.record, None).map_err(|e| refused(&e))?;
        let mut game = new_game_of(replayed.variant)?;
        if game.start_fen() != replayed.start_fen {
            game.set_fen(&replayed.start_fen).map_err(|e| refused(&e))?;
        }
        for mv in &replayed.moves {
            // Replayed by the same rules a moment ago.
            game.play_text(mv).map_err(|e| refused(&e))?;
        }
        let loaded = Loaded {
            name,
            start_fen: game.start_fen(),
            record: replayed.record,
            stopped: replayed.stopped,
        };
        let mut st = lock(&self.state);
        self.show_game(&mut st, game, Some(loaded), false)?;
        Ok(self.view(&st))
    }
}
