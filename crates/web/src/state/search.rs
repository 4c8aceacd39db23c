//! Engine play and analysis: which search runs, its thread, and what it
//! reports.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;

use super::super::engines::{Finish, Job, JobLimit, Report, Searcher, BUILTIN};
use super::super::eval::Eval;
use super::super::view::*;
use super::{lock, now_ms, App, Note, Player, Role, Search, State, MAX_ANALYSIS_LINES};
use crate::error::ApiError;
use stackfish_games::{Outcome, Side};

impl App {
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
    pub(super) fn cancel_search(&self, st: &mut State) {
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
    pub(super) fn run_search(
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
                    // A command that cannot start fails the same way twice.
                    Err(e) if e.to_string() == what.to_string() => {
                        format!("{what}; restarting failed too")
                    }
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
    pub(super) fn give_back(&self, slot: usize, engine: String, searcher: Box<dyn Searcher>) {
        lock(&self.state).searchers[slot] = Some((engine, searcher));
    }

    /// One line of a running search: into its report, and the best line
    /// into the position's evaluation.
    pub(super) fn take_report(
        &self,
        st: &mut State,
        slot: usize,
        ply: usize,
        side: Side,
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
}
