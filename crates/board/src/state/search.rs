//! Engine play and analysis: which search runs, when it stops, and what
//! comes back of it (reports, its finish, a failed engine).

use std::sync::Arc;

use super::super::eval::Eval;
use super::super::host::SearchOrder;
use super::super::job::{Finish, Job, JobLimit, Report};
use super::super::view::*;
use super::{lock, App, Note, Player, Role, Search, State, MAX_ANALYSIS_LINES};
use crate::error::ApiError;
use crate::BUILTIN;
use stackfish_games::{Outcome, Side};

impl App {
    /// The engine moves now for the side to move: that side's engine, or
    /// the last new game's engine on a human's turn.
    pub fn go(self: &Arc<Self>) -> Result<StateView, ApiError> {
        let mut st = lock(&self.state);
        if st.player_thinking() {
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
        let reviewing = st.running(Role::Review);
        self.cancel_search(&mut st);
        if reviewing {
            self.review_cancelled_by(&mut st, "cancelled: the engine was asked to move");
        }
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
            ) => self.host.stop(s.id),
            _ => return Err(ApiError::conflict("the engine is not thinking")),
        }
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
        // A player's engine and a review keep the engine; the analysis
        // starts after them.
        if !matches!(
            st.search,
            Some(Search {
                role: Role::Player(_) | Role::Review,
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

    /// Stops every search, waits for the host to end them, and ends the
    /// engines: for a clean shutdown.
    pub fn shutdown(&self) {
        {
            let mut st = lock(&self.state);
            st.analysis = None;
            st.players = [None, None];
            self.cancel_search(&mut st);
        }
        self.host.shutdown();
    }

    /// Ends the running search, if any, without playing its move.
    pub(super) fn cancel_search(&self, st: &mut State) {
        st.generation += 1;
        if let Some(search) = st.search.take() {
            self.host.stop(search.id);
            if search.role == Role::Review {
                self.review_cancelled(st);
            } else if let Some(r) = st.reports[search.role.slot()].as_mut() {
                r.running = false;
            }
            self.bump(st);
        }
    }

    /// Starts what should run now: the engine of the side to move (if
    /// `autoplay`), else the analysis. The caller holds `state`.
    pub(super) fn next_search(
        self: &Arc<Self>,
        st: &mut State,
        autoplay: bool,
    ) -> Result<(), ApiError> {
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
    pub(super) fn start_search(
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
                Role::Player(_) | Role::Review => JobLimit::Move {
                    movetime_ms: player.movetime_ms,
                    depth: player.depth,
                },
            },
            level: player.level,
            multipv,
            fresh: false,
            tables: false,
        };
        let (ply, side) = (st.ply(), st.game.side_to_move());
        self.launch(st, role, player, job, ply, side)?;
        st.reports[role.slot()] = Some(ReportView {
            engine: player.engine.clone(),
            ply,
            side: side_name(side),
            running: true,
            lines: Vec::new(),
        });
        Ok(())
    }

    /// Orders `job` of `role` from the host, `player`'s engine searching
    /// the position after `ply` moves of the line with `side` to move. The
    /// caller holds `state` and has cancelled any other search.
    pub(super) fn launch(
        self: &Arc<Self>,
        st: &mut State,
        role: Role,
        player: &Player,
        job: Job,
        ply: usize,
        side: Side,
    ) -> Result<(), ApiError> {
        st.generation += 1;
        let id = st.generation;
        let order = SearchOrder {
            search: id,
            slot: role.slot(),
            engine: player.engine.clone(),
            job,
        };
        self.host.start(self, order)?;
        st.search = Some(Search {
            id,
            role,
            engine: player.engine.clone(),
            ply,
            side,
            started_ms: self.host.now_ms(),
            last: None,
        });
        st.engine_error = None;
        self.bump(st);
        Ok(())
    }

    /// Whether `search` is the one running: a host skips a search that was
    /// cancelled before it could begin.
    pub fn is_current(&self, search: u64) -> bool {
        let st = lock(&self.state);
        st.search.as_ref().is_some_and(|s| s.id == search)
    }

    /// One line of search `search`'s report, as it comes.
    pub fn report(&self, search: u64, report: Report) {
        let mut st = lock(&self.state);
        let Some(running) = st.search.as_mut().filter(|s| s.id == search) else {
            return;
        };
        if running.role == Role::Review {
            // A review keeps its position's last best line; the page sees
            // its progress, not each line.
            if report.multipv == 1 {
                running.last = Some(report);
            }
            return;
        }
        let (slot, ply, side) = (running.role.slot(), running.ply, running.side);
        self.take_report(&mut st, slot, ply, side, &report);
        if report.multipv == 1 {
            if let Some(s) = st.search.as_mut() {
                s.last = Some(report);
            }
        }
    }

    /// The engine of search `search` failed and is being restarted: shown
    /// at once, before the (slow) restart and the finish.
    pub fn engine_failing(&self, search: u64, text: String) {
        let mut st = lock(&self.state);
        if st.search.as_ref().is_some_and(|s| s.id == search) {
            st.engine_error = Some(text);
            self.bump(&mut st);
        }
    }

    /// Search `search` ended: its move is played if it was a player's, and
    /// what should run next starts. `Err`: its engine failed, with the text
    /// the page shows.
    pub fn finish(self: &Arc<Self>, search: u64, result: Result<Finish, String>) {
        let mut st = lock(&self.state);
        if st.search.as_ref().is_none_or(|s| s.id != search) {
            return;
        }
        let Some(done) = st.search.take() else {
            return;
        };
        if done.role == Role::Review {
            self.review_searched(&mut st, done, result);
            return;
        }
        let slot = done.role.slot();
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
        let Role::Player(_) = done.role else {
            // Analysis ends only when stopped, and then its id is stale.
            return;
        };
        let (ply, side, last, engine) = (done.ply, done.side, done.last, done.engine);
        match finish {
            Finish::Move { mv } => match st.game.play_text(&mv) {
                Ok(canonical) => {
                    let elapsed = self.host.now_ms() - done.started_ms;
                    let note = Note {
                        score: last.as_ref().map(|r| r.score),
                        depth: last.as_ref().map_or(0, |r| r.depth),
                        ms: elapsed.max(0.0) as u64,
                    };
                    st.push_move(canonical, Some(note));
                    self.line_changed(&mut st, "the engine's move changed the game");
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

    /// One line of a running search: into its report, and the best line
    /// into the position's evaluation.
    pub(super) fn take_report(
        &self,
        st: &mut State,
        slot: usize,
        ply: usize,
        side: stackfish_games::Side,
        r: &Report,
    ) {
        let eval = Eval::new(r.score, side, r.depth);
        let line = LineView {
            multipv: r.multipv,
            depth: r.depth,
            cp: eval.cp,
            mate: eval.mate,
            pv: r.pv.clone(),
            nodes: r.nodes,
            time_ms: r.time_ms,
            at_ms: self.host.wall_ms(),
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
}
