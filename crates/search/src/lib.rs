//! Iterative-deepening alpha-beta, generic over the rules trait: principal
//! variation search, aspiration windows, a lockless shared transposition
//! table, killer and history ordering, quiescence over noisy moves, and Lazy
//! SMP (native builds; see `seam`). The tunable numbers are listed in `params`;
//! the rest are named constants at the top.

pub mod limits;
pub mod minimax;
mod node;
pub mod params;
pub mod proof;
pub mod seam;
pub mod tt;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

pub use limits::{Deadline, Limits};
use node::Thread;
use stackfish_games::{Game, GameResult};
use tt::Tt;

/// A won game at the root scores WIN; each ply of distance costs one.
pub const WIN: i32 = 30_000;
/// Scores beyond this (in absolute value) are forced wins or losses.
pub const WIN_BOUND: i32 = WIN - 1_000;
/// Static evaluations are clamped into (-EVAL_LIMIT, EVAL_LIMIT).
pub const EVAL_LIMIT: i32 = 20_000;
pub const MAX_PLY: usize = 128;
pub const MAX_DEPTH: i32 = 100;

/// The tunable numbers (pruning, reductions, aspiration, quiescence, time
/// use): `params`, constants unless built with the `tune` feature.
pub use params::Profile;

/// Lazy SMP: helper threads deepen by this many plies per iteration.
const HELPER_DEPTH_STEP: i32 = 2;

/// A score relative to the side to move for a finished game at `ply`.
pub fn outcome_score(result: GameResult, side: stackfish_games::Side, ply: usize) -> i32 {
    match result.winner() {
        None => 0,
        Some(w) if w == side => WIN - ply as i32,
        Some(_) => -(WIN - ply as i32),
    }
}

/// `mate <n>`: the side to move wins in n of its own moves, negative if it loses.
pub fn mate_in(score: i32) -> Option<i32> {
    if score > WIN_BOUND {
        Some((WIN - score + 1) / 2)
    } else if score < -WIN_BOUND {
        Some(-(WIN + score) / 2)
    } else {
        None
    }
}

/// Reported after each completed iteration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Info {
    /// Which line this is with `MultiPV`: 1 for the best, 2 for the second...
    pub multipv: usize,
    pub depth: i32,
    pub seldepth: usize,
    pub score: i32,
    pub nodes: u64,
    pub time_ms: u64,
    pub hashfull: u32,
    pub pv: Vec<String>,
}

/// Everything one search shares between its threads and with the caller.
pub struct Shared {
    pub tt: Tt,
    /// Set from outside (`stop`, `quit`) or when a limit is reached.
    pub stop: AtomicBool,
    /// Set by the main thread when it is done, to end the helper threads.
    pub abort: AtomicBool,
    /// Nodes of the helper threads (the main thread counts its own exactly,
    /// so a one-thread search is deterministic).
    pub helper_nodes: AtomicU64,
}

impl Shared {
    pub fn new(hash_mb: usize) -> Shared {
        Shared::with_table(Tt::new(hash_mb))
    }

    /// `new`, or the allocation's error when the memory is not there.
    pub fn try_new(hash_mb: usize) -> Result<Shared, tt::AllocError> {
        Tt::try_new(hash_mb).map(Shared::with_table)
    }

    fn with_table(tt: Tt) -> Shared {
        Shared {
            tt,
            stop: AtomicBool::new(false),
            abort: AtomicBool::new(false),
            helper_nodes: AtomicU64::new(0),
        }
    }
}

impl Shared {
    pub fn stopping(&self) -> bool {
        self.stop.load(Relaxed) || self.abort.load(Relaxed)
    }

    /// Clears both flags before a search.
    pub fn arm(&self) {
        self.stop.store(false, Relaxed);
        self.abort.store(false, Relaxed);
    }
}

/// Per-thread heuristics that persist across moves of one game.
#[derive(Clone)]
pub struct Heuristics {
    history: Vec<i32>,
    killers: [[u16; 2]; MAX_PLY + 1],
}

impl Default for Heuristics {
    fn default() -> Self {
        Heuristics {
            history: vec![0; 2 * 65536],
            killers: [[0; 2]; MAX_PLY + 1],
        }
    }
}

impl Heuristics {
    pub fn clear(&mut self) {
        *self = Heuristics::default();
    }
}

/// Options of one search call.
pub struct SearchParams<'a, G: Game> {
    pub limits: &'a Limits,
    pub move_overhead_ms: u64,
    pub threads: usize,
    /// See `Thread::exact`: the minimax value, for tests; false otherwise.
    pub exact: bool,
    /// How many best root moves get a line of their own (MultiPV), at least 1.
    pub multipv: usize,
    /// `go searchmoves`: only these root moves are searched; empty means
    /// all. Moves that are not legal are ignored; if none is, all are searched.
    pub root_moves: &'a [G::Move],
    /// The networks the evaluation reads (`G::Nets::default()`: the
    /// built-in ones), owned by the caller.
    pub nets: &'a G::Nets,
}

/// The result of `search`.
#[derive(Clone, Debug)]
pub struct SearchResult<M> {
    pub best: M,
    pub score: i32,
    pub depth: i32,
    pub pv: Vec<M>,
    pub nodes: u64,
}

/// Searches `root` (with `history`: the repetition keys of the game up to and
/// including the root) and returns a legal move, or `None` if there is none.
/// The caller checks that the game is not over. `report` is called after each
/// completed iteration of the main thread, once per MultiPV line, best first;
/// `heuristics` has one entry per thread that may run. The stop flag in
/// `shared` ends the search early.
pub fn search<G: Game>(
    root: &G,
    history: &[u64],
    shared: &Arc<Shared>,
    heuristics: &mut [Heuristics],
    params: &SearchParams<G>,
    report: &mut dyn FnMut(&Info),
) -> Option<SearchResult<G::Move>> {
    let deadline = Deadline::new(params.limits, params.move_overhead_ms);
    shared.tt.new_search();
    shared.helper_nodes.store(0, Relaxed);
    let mut root_moves = Vec::new();
    root.generate_moves(&mut root_moves);
    let allowed: Vec<G::Move> = root_moves
        .iter()
        .copied()
        .filter(|m| params.root_moves.contains(m))
        .collect();
    let allowed = (!allowed.is_empty()).then_some(allowed);
    let candidates = allowed.as_deref().unwrap_or(&root_moves);
    let first = *candidates.first()?;
    let lines = params.multipv.clamp(1, candidates.len());
    let fallback = SearchResult {
        best: first,
        score: 0,
        depth: 0,
        pv: vec![first],
        nodes: 0,
    };
    let threads = if seam::THREADS {
        params.threads.max(1).min(heuristics.len())
    } else {
        1
    };
    let (main_heur, helper_heur) = heuristics.split_at_mut(1);
    let (limits, nets) = (params.limits, params.nets);
    let shared_ref = &**shared;
    let mut result = seam::with_helpers(
        helper_heur.iter_mut().take(threads - 1),
        |i, heur| {
            let mut t = Thread::<G>::new(
                root, shared_ref, deadline, limits, nets, false, heur, history,
            );
            t.root_allowed = allowed.clone();
            // Helpers search every other depth, staggered, so they run
            // ahead of the main thread and fill the table for it instead
            // of walking the same nodes at the same time.
            iterate(
                &mut t,
                root,
                2 + (i as i32 % 2),
                HELPER_DEPTH_STEP,
                1,
                &mut |_| {},
            );
        },
        || {
            let mut t = Thread::<G>::new(
                root,
                shared_ref,
                deadline,
                limits,
                nets,
                true,
                &mut main_heur[0],
                history,
            );
            t.exact = params.exact;
            t.root_allowed = allowed.clone();
            let mut result = iterate(&mut t, root, 1, 1, lines, report).unwrap_or(fallback);
            result.nodes = t.nodes;
            shared_ref.abort.store(true, Relaxed);
            result
        },
    );
    result.nodes += shared.helper_nodes.load(Relaxed);
    Some(result)
}

/// Iterative deepening with `lines` principal variations (at most the number
/// of root moves the thread may search). Line k is searched with the root
/// moves of lines 1..k excluded, so its score is the k-th best; an iteration
/// counts only when all its lines are complete.
fn iterate<G: Game>(
    t: &mut Thread<G>,
    root: &G,
    first_depth: i32,
    depth_step: i32,
    lines: usize,
    report: &mut dyn FnMut(&Info),
) -> Option<SearchResult<G::Move>> {
    let max_depth = t.limits.depth.unwrap_or(MAX_DEPTH).clamp(1, MAX_DEPTH);
    let mut best: Option<SearchResult<G::Move>> = None;
    // The scores of the lines of the last complete iteration: their
    // aspiration guesses in the next one.
    let mut guesses: Vec<i32> = Vec::new();
    let mut depth = first_depth.min(max_depth);
    while depth <= max_depth {
        t.seldepth = 0;
        let mut found: Vec<(i32, Vec<G::Move>)> = Vec::with_capacity(lines);
        t.root_excluded.clear();
        for k in 0..lines {
            t.root_line = None;
            let score = t.aspirate(root, depth, guesses.get(k).copied());
            let pv = t.pv[0].clone();
            if t.stopped {
                // An interrupted iteration still counts with one line: the
                // root moves it searched to the full depth were the
                // previous best first, then any that beat it, so its best
                // so far is at least as good as the last iteration's.
                if k == 0 && lines == 1 {
                    if let Some((score, pv)) = t.root_line.take() {
                        if let Some(b) = best.as_mut() {
                            if b.best != pv[0] {
                                b.best = pv[0];
                                b.score = score;
                                b.pv = pv;
                            }
                        } else {
                            found.push((score, pv));
                        }
                    }
                } else if best.is_none() && found.is_empty() && !pv.is_empty() {
                    found.push((score, pv));
                }
                break;
            }
            let Some(&mv) = pv.first() else { break };
            t.root_excluded.push(mv);
            found.push((score, pv));
        }
        t.root_excluded.clear();
        if found.is_empty() || (t.stopped && best.is_some()) {
            break;
        }
        // Reductions can let a later line score above an earlier one.
        found.sort_by_key(|(score, _)| std::cmp::Reverse(*score));
        let (score, pv) = &found[0];
        best = Some(SearchResult {
            best: pv[0],
            score: *score,
            depth,
            pv: pv.clone(),
            nodes: t.nodes,
        });
        if t.main {
            for (k, (score, pv)) in found.iter().enumerate() {
                report(&Info {
                    multipv: k + 1,
                    depth,
                    seldepth: t.seldepth,
                    score: *score,
                    nodes: t.nodes + t.shared.helper_nodes.load(Relaxed),
                    time_ms: t.deadline.elapsed().as_millis() as u64,
                    hashfull: t.shared.tt.hashfull(),
                    pv: pv.iter().map(|m| m.to_string()).collect(),
                });
            }
        }
        if t.stopped || t.shared.stopping() {
            break;
        }
        // A forced result is final once the search is deep enough to see it
        // (for every line).
        if found
            .iter()
            .all(|&(s, _)| s.abs() > WIN_BOUND && depth >= WIN - s.abs())
        {
            break;
        }
        if t.main && t.deadline.past_soft() {
            break;
        }
        guesses = found.iter().map(|&(s, _)| s).collect();
        depth += depth_step;
    }
    best
}

#[cfg(test)]
mod tests;

/// Every root move (of `only`, if it names any legal one) with its score from
/// a full-window search to `limits.depth` (for the weaker levels, which
/// choose among them), and the nodes searched. Stops early, keeping the moves
/// scored so far, when the limits or the stop flag say so. Evaluates with
/// `nets`, as `SearchParams::nets`.
#[allow(clippy::too_many_arguments)]
pub fn root_scores<G: Game>(
    root: &G,
    history: &[u64],
    shared: &Arc<Shared>,
    heuristics: &mut Heuristics,
    limits: &Limits,
    move_overhead_ms: u64,
    only: &[G::Move],
    nets: &G::Nets,
) -> (Vec<(G::Move, i32)>, u64) {
    let deadline = Deadline::new(limits, move_overhead_ms);
    shared.tt.new_search();
    let mut t = Thread::<G>::new(
        root, shared, deadline, limits, nets, true, heuristics, history,
    );
    let depth = limits.depth.unwrap_or(1).max(1);
    let mut moves = Vec::new();
    root.generate_moves(&mut moves);
    if moves.iter().any(|m| only.contains(m)) {
        moves.retain(|m| only.contains(m));
    }
    let scored = t.score_root_moves(root, &moves, depth);
    (scored, t.nodes)
}
