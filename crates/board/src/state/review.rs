//! The whole game reviewed on the board: every position of the line
//! searched by one engine at a budget of nodes, from the last back to the
//! first (the review crate's `Reviewer` says which and in what order), one
//! search at a time through the host as any other search; its progress,
//! its cancel, what it found, and what ends it: the last search, a cancel,
//! an engine that fails, or a change of the line, which drops it.
//!
//! The review belongs to the line it was made of (its start and every
//! move, before and after the position shown): stepping through the line
//! keeps it, a move that changes the line, a new game or a loaded position
//! drops it. While it runs it has the engine: the analysis waits, a
//! player's engine is not started (a move asked of it with `go` cancels
//! the review first).

use std::sync::Arc;

use super::super::eval::Eval;
use super::super::job::{Finish, Job, JobLimit};
use super::super::view::*;
use super::{lock, App, Player, Role, Search, State};
use crate::error::ApiError;
use crate::BUILTIN;
use stackfish_engine::MAX_LEVEL;
use stackfish_games::Outcome;
use stackfish_record::GameRecord;
use stackfish_review::{Model, PositionReview, Review, ReviewGame, Reviewer, Stopped};

/// Nodes a position when the request names none, and the page's default.
/// Chosen for the board in the browser (docs/playing.md, "Reviewing a game
/// on the board"): the static site's end-to-end test measured 73 ms a
/// position at 20,000 nodes in chromium on this project's shared 2-core
/// machine under load (104 ms at 50,000), so a 40-ply game takes about 3 s
/// there and a few seconds more on a phone a few times slower. Fewer nodes
/// make a noisier review (docs/playing.md, "Inaccuracies, mistakes and
/// blunders").
pub const DEFAULT_REVIEW_NODES: u64 = 20_000;
/// Fewer nodes than this give a review of noise.
pub const MIN_REVIEW_NODES: u64 = 1_000;
/// Seconds a position; a 40-ply game takes minutes.
pub const MAX_REVIEW_NODES: u64 = 10_000_000;

/// A review of the line, running or ended.
pub(super) struct ReviewRun {
    engine: String,
    nodes: u64,
    /// The line it reviews.
    start_fen: String,
    line: Vec<String>,
    reviewer: Reviewer,
    /// What the searches so far make of the game (all of it once done).
    review: Review,
    state: ReviewState,
    /// Why it ended other than done or cancelled by its own request.
    message: Option<String>,
    /// The host's monotonic clock when it started, and what it took once
    /// it ended.
    started_ms: f64,
    took_ms: Option<f64>,
}

impl ReviewRun {
    /// Whether it was made of this line.
    fn fits(&self, start_fen: &str, line: &[String]) -> bool {
        self.start_fen == start_fen && self.line == line
    }

    fn end(&mut self, state: ReviewState, message: Option<String>, now_ms: f64) {
        self.state = state;
        self.message = message;
        self.took_ms = Some((now_ms - self.started_ms).max(0.0));
    }
}

/// The board's review.
pub(super) enum ReviewSlot {
    None,
    Run(Box<ReviewRun>),
    /// Dropped because the line changed: why ("a new game began").
    Outdated(String),
}

/// A record the line was loaded from (`POST /api/load`), kept while the
/// line is still its own: a review of it keeps its header, its result and
/// the move it could not play.
pub(super) struct Loaded {
    pub(super) name: String,
    pub(super) start_fen: String,
    /// The record with the moves as replayed.
    pub(super) record: GameRecord,
    pub(super) stopped: Option<Stopped>,
}

impl Loaded {
    fn fits(&self, start_fen: &str, line: &[String]) -> bool {
        self.start_fen == start_fen
            && self.record.moves.len() == line.len()
            && self.record.moves.iter().zip(line).all(|(m, l)| m.mv == *l)
    }

    pub(super) fn view(&self) -> LoadedView {
        LoadedView {
            name: self.name.clone(),
            plies: self.record.moves.len(),
            stopped: self.stopped.clone(),
        }
    }
}

/// A position of a review as the graph draws it: the searched score, or
/// a finished game's result as a forced win (or a level score for a draw).
fn eval_of(p: &PositionReview) -> Option<Eval> {
    let depth = p.depth.unwrap_or(0);
    match (p.cp, p.mate, p.expected) {
        (_, Some(m), _) => Some(Eval {
            cp: None,
            mate: Some(m),
            depth,
        }),
        (Some(cp), None, _) => Some(Eval {
            cp: Some(cp),
            mate: None,
            depth,
        }),
        (None, None, Some(e)) if p.over.is_some() => Some(if e > 0.75 {
            Eval {
                cp: None,
                mate: Some(1),
                depth,
            }
        } else if e < 0.25 {
            Eval {
                cp: None,
                mate: Some(-1),
                depth,
            }
        } else {
            Eval {
                cp: Some(0),
                mate: None,
                depth,
            }
        }),
        _ => None,
    }
}

impl App {
    /// Starts a review of the whole line (`POST /api/review/start`); one
    /// running already is cancelled first.
    pub fn review(self: &Arc<Self>, req: ReviewRequest) -> Result<StateView, ApiError> {
        let mut st = lock(&self.state);
        if st.player_thinking() {
            return Err(ApiError::conflict(
                "the engine is thinking: wait for its move or stop it, then review the game",
            ));
        }
        let nodes = req.nodes.unwrap_or(DEFAULT_REVIEW_NODES);
        if !(MIN_REVIEW_NODES..=MAX_REVIEW_NODES).contains(&nodes) {
            return Err(ApiError::bad_request(format!(
                "nodes must be {MIN_REVIEW_NODES} to {MAX_REVIEW_NODES}, not {nodes}"
            )));
        }
        let engine = req
            .engine
            .or_else(|| st.analysis.as_ref().map(|a| a.engine.clone()))
            .unwrap_or_else(|| BUILTIN.to_string());
        self.check_engine(&engine)?;
        if st.total() == 0 {
            return Err(ApiError::conflict(
                "there is no move to review: play or load a game first",
            ));
        }
        let game = self.review_game(&st)?;
        if st.search.is_some() {
            self.cancel_search(&mut st);
        }
        let reviewer = Reviewer::new(game);
        let review = reviewer
            .clone()
            .finish(Model::for_variant(st.game.variant_name()));
        st.review = ReviewSlot::Run(Box::new(ReviewRun {
            engine,
            nodes,
            start_fen: st.game.start_fen(),
            line: st.line(),
            reviewer,
            review,
            state: ReviewState::Running,
            message: None,
            started_ms: self.host.now_ms(),
            took_ms: None,
        }));
        st.engine_error = None;
        if let Err(e) = self.review_next(&mut st) {
            self.review_failed(&mut st, e.message.clone());
            return Err(e);
        }
        self.bump(&mut st);
        Ok(self.view(&st))
    }

    /// Cancels the review running (`POST /api/review/stop`): what it has
    /// searched stays; the analysis, if on, takes the engine back.
    pub fn stop_review(self: &Arc<Self>) -> Result<StateView, ApiError> {
        let mut st = lock(&self.state);
        if !st.running(Role::Review) {
            return Err(ApiError::conflict("no review is running"));
        }
        self.cancel_search(&mut st);
        self.next_search(&mut st, false)?;
        Ok(self.view(&st))
    }

    /// The review as `stackfish analyse --json` writes it (`GET
    /// /api/review`): so far while it runs, as far as it went after a
    /// cancel or a failure.
    pub fn review_json(&self) -> Result<serde_json::Value, ApiError> {
        let st = lock(&self.state);
        let run = Self::review_of(&st)?;
        Ok(run.review.json())
    }

    /// The finished review as annotated PGN (`GET /api/review/pgn`): the
    /// file name and the text.
    pub fn review_pgn(&self) -> Result<(String, String), ApiError> {
        let st = lock(&self.state);
        let run = Self::review_of(&st)?;
        if run.state != ReviewState::Done {
            return Err(ApiError::conflict(format!(
                "the review is not finished ({}: {} of {} positions searched)",
                run.state.name(),
                run.reviewer.done(),
                run.reviewer.total()
            )));
        }
        let by = format!(
            "stackfish board, {} at {} nodes a position",
            run.engine, run.nodes
        );
        let name = format!(
            "stackfish-{}-{}-review.pgn",
            run.review.variant,
            run.line.len()
        );
        Ok((name, run.review.pgn(&by)))
    }

    fn review_of(st: &State) -> Result<&ReviewRun, ApiError> {
        match &st.review {
            ReviewSlot::Run(run) => Ok(run),
            ReviewSlot::None => Err(ApiError::conflict(
                "the game has not been reviewed: POST /api/review/start starts a review",
            )),
            ReviewSlot::Outdated(why) => Err(ApiError::conflict(format!(
                "the game shown has not been reviewed ({why})"
            ))),
        }
    }

    /// The line as the review replays it: the loaded record's while the
    /// line is still its own (its header, result and unplayable move),
    /// else the board's game with its players.
    fn review_game(&self, st: &State) -> Result<ReviewGame, ApiError> {
        let (start, line) = (st.game.start_fen(), st.line());
        let record = match &st.loaded {
            Some(loaded) if loaded.fits(&start, &line) => loaded.record.clone(),
            _ => self.game_record(st, line, None),
        };
        let mut game = ReviewGame::from_record(&record, None)
            .map_err(|e| ApiError::new(500, format!("the line cannot be replayed: {e}")))?;
        if let Some(loaded) = st.loaded.as_ref().filter(|l| l.fits(&start, &st.line())) {
            game.stopped = loaded.stopped.clone();
        }
        if let Outcome::Over { reason, .. } = game.outcome {
            game.record.termination = reason.to_string();
        }
        Ok(game)
    }

    /// Starts the search of the review's next position. The caller holds
    /// `state`; no other search runs.
    fn review_next(self: &Arc<Self>, st: &mut State) -> Result<(), ApiError> {
        let ReviewSlot::Run(run) = &st.review else {
            return Ok(());
        };
        let Some(task) = run.reviewer.next_task() else {
            return Ok(());
        };
        let job = Job {
            variant: task.variant,
            start_fen: task.start_fen.to_string(),
            moves: task.moves.to_vec(),
            round: st.round,
            limit: JobLimit::Nodes { nodes: run.nodes },
            level: MAX_LEVEL,
            multipv: 1,
            fresh: run.reviewer.done() == 0,
            tables: true,
        };
        let player = Player {
            engine: run.engine.clone(),
            ..Player::default()
        };
        let (ply, side) = (task.index, task.side);
        self.launch(st, Role::Review, &player, job, ply, side)
    }

    /// The review ends with an engine's failure: `message` says which
    /// position and why.
    fn review_failed(&self, st: &mut State, message: String) {
        let now = self.host.now_ms();
        if let ReviewSlot::Run(run) = &mut st.review {
            run.end(ReviewState::Failed, Some(message), now);
        }
        self.bump(st);
    }

    /// The review's search `done` ended with `result`: its answer goes into
    /// the review and the next position's search starts, or the review
    /// ends (the analysis, if on, takes the engine back).
    pub(super) fn review_searched(
        self: &Arc<Self>,
        st: &mut State,
        done: Search,
        result: Result<Finish, String>,
    ) {
        let variant = st.game.variant_name();
        // Err: why the review ends here; Ok: whether it is done.
        let outcome = {
            let ReviewSlot::Run(run) = &mut st.review else {
                return;
            };
            if run.state != ReviewState::Running {
                return;
            }
            let engine = &run.engine;
            let at = format!(
                "the position after {} moves ({} of {} searched)",
                done.ply,
                run.reviewer.done(),
                run.reviewer.total()
            );
            match (result, done.last) {
                (Err(text), _) => Err(format!("{engine} failed on {at}: {text}")),
                (Ok(Finish::NoMove(reason)), _) => {
                    Err(format!("{engine} saw no move in {at} ({reason})"))
                }
                (Ok(Finish::Move { .. }), None) => Err(format!("{engine} gave no score for {at}")),
                (Ok(Finish::Move { .. }), Some(report)) => {
                    run.reviewer.put(report.searched());
                    run.review = run.reviewer.clone().finish(Model::for_variant(variant));
                    Ok(run.reviewer.next_task().is_none())
                }
            }
        };
        match outcome {
            Err(message) => {
                // The page says it once, in the review.
                st.engine_error = None;
                self.review_failed(st, message);
            }
            Ok(true) => {
                let now = self.host.now_ms();
                if let ReviewSlot::Run(run) = &mut st.review {
                    run.end(ReviewState::Done, None, now);
                }
                self.bump(st);
            }
            Ok(false) => match self.review_next(st) {
                Ok(()) => {
                    self.bump(st);
                    return;
                }
                Err(e) => self.review_failed(st, e.message),
            },
        }
        let _ = self.next_search(st, false);
    }

    /// The review's search was cancelled: it ends where it got to.
    pub(super) fn review_cancelled(&self, st: &mut State) {
        let now = self.host.now_ms();
        if let ReviewSlot::Run(run) = &mut st.review {
            if run.state == ReviewState::Running {
                run.end(ReviewState::Cancelled, None, now);
            }
        }
    }

    /// Says why the review running was cancelled (`go`).
    pub(super) fn review_cancelled_by(&self, st: &mut State, why: &str) {
        if let ReviewSlot::Run(run) = &mut st.review {
            if run.state == ReviewState::Cancelled && run.message.is_none() {
                run.message = Some(why.to_string());
            }
        }
    }

    /// After anything that may change the line: a loaded record and a
    /// review that no longer fit it are dropped (a running review's
    /// search cancelled), the review saying `why`.
    pub(super) fn line_changed(&self, st: &mut State, why: &str) {
        let (start, line) = (st.game.start_fen(), st.line());
        if st.loaded.as_ref().is_some_and(|l| !l.fits(&start, &line)) {
            st.loaded = None;
        }
        let ReviewSlot::Run(run) = &st.review else {
            return;
        };
        if run.fits(&start, &line) {
            return;
        }
        if st.running(Role::Review) {
            self.cancel_search(st);
        }
        st.review = ReviewSlot::Outdated(why.to_string());
        self.bump(st);
    }

    /// Another game is shown (a new game, a loaded position or record):
    /// the review of the old one goes, its search cancelled; the record
    /// loaded goes unless the line is still its own.
    pub(super) fn new_line(&self, st: &mut State) {
        self.line_changed(st, "another game is shown");
        st.review = ReviewSlot::None;
    }

    /// What the page reads of the review, if there is one.
    pub(super) fn review_view(&self, st: &State) -> Option<ReviewView> {
        let run = match &st.review {
            ReviewSlot::None => return None,
            ReviewSlot::Outdated(why) => return Some(ReviewView::outdated(why.clone())),
            ReviewSlot::Run(run) => run,
        };
        if !run.fits(&st.game.start_fen(), &st.line()) {
            return Some(ReviewView::outdated("the game changed".to_string()));
        }
        let review = &run.review;
        let counts = review.counts();
        let count = |c: [usize; 3]| ClassCounts {
            inaccuracy: c[0],
            mistake: c[1],
            blunder: c[2],
        };
        let elapsed = run
            .took_ms
            .unwrap_or_else(|| (self.host.now_ms() - run.started_ms).max(0.0));
        Some(ReviewView {
            state: run.state,
            engine: Some(run.engine.clone()),
            nodes: Some(run.nodes),
            done: run.reviewer.done(),
            total: run.reviewer.total(),
            elapsed_ms: elapsed as u64,
            message: run.message.clone(),
            accuracy: review.accuracy,
            counts: ClassCountsView {
                p1: count(counts[0]),
                p2: count(counts[1]),
            },
            moves: review
                .moves
                .iter()
                .map(|m| ReviewMoveView {
                    side: side_name(m.side),
                    class: m.class,
                    loss: m.loss,
                    best: m.best.clone(),
                    line: m.line.clone(),
                })
                .collect(),
            decisive: review.decisive.clone(),
            stopped: review.stopped.clone(),
        })
    }

    /// The review's evaluations over the line's (one per position), where
    /// the review has them; with the review's marks over the live ones,
    /// where it judged the move.
    pub(super) fn with_review(
        &self,
        st: &State,
        evals: &mut [Option<Eval>],
        marks: &mut [Option<crate::eval::Mark>],
    ) {
        let ReviewSlot::Run(run) = &st.review else {
            return;
        };
        if !run.fits(&st.game.start_fen(), &st.line()) {
            return;
        }
        for (slot, p) in evals.iter_mut().zip(&run.review.positions) {
            if let Some(e) = eval_of(p) {
                *slot = Some(e);
            }
        }
        for (slot, m) in marks.iter_mut().zip(&run.review.moves) {
            if m.loss.is_some() {
                *slot = m.class;
            }
        }
    }
}
