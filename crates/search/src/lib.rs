//! Iterative-deepening alpha-beta, generic over the rules trait: principal
//! variation search, aspiration windows, a lockless shared transposition
//! table, killer and history ordering, quiescence over noisy moves, and Lazy
//! SMP (native builds; see `seam`). The tunable numbers are listed in `params`;
//! the rest are named constants at the top.

pub mod limits;
pub mod minimax;
pub mod params;
pub mod proof;
pub mod seam;
pub mod tt;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

pub use limits::{Deadline, Limits};
use stackfish_games::{Game, GameResult, Outcome};
use tt::{Bound, Tt};

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
use params as p;
pub use params::Profile;

/// Time and the stop flag are looked at every this many nodes.
const CHECK_EVERY: u64 = 1024;
/// Lazy SMP: helper threads deepen by this many plies per iteration.
const HELPER_DEPTH_STEP: i32 = 2;
/// Ordering keys: TT move, then noisy, then killers, then history.
const ORDER_TT: i32 = 1 << 30;
const ORDER_NOISY: i32 = 1 << 29;
const ORDER_KILLER: [i32; 2] = [1 << 28, (1 << 28) - 1];
const HISTORY_MAX: i32 = 1 << 20;
/// Late-move reductions: quiet moves after the first `lmr_min_moves`, from
/// `lmr_min_depth` on, are searched `ln(depth) * ln(index) / divisor + base`
/// plies shallower first (base and divisor in hundredths), and again at full
/// depth only if they beat alpha.
fn lmr(profile: Profile, depth: i32, index: usize) -> i32 {
    let base = f64::from(p::lmr_base(profile)) / 100.0;
    let divisor = f64::from(p::lmr_divisor(profile)) / 100.0;
    let ln_depth = usize::try_from(depth).map_or_else(|_| f64::from(depth).ln(), ln);
    (base + ln_depth * ln(index) / divisor) as i32
}

/// How many natural logarithms `ln` keeps: depths and move indices below
/// this are read from a table.
const LN_TABLE: usize = 256;

/// `(n as f64).ln()`, the same number, from a table for small `n`: a
/// browser build computes `ln` in software, once per reduced move (about 1%
/// of its bench time before).
#[inline]
fn ln(n: usize) -> f64 {
    static TABLE: std::sync::LazyLock<[f64; LN_TABLE]> =
        std::sync::LazyLock::new(|| std::array::from_fn(|n| (n as f64).ln()));
    match TABLE.get(n) {
        Some(&v) => v,
        None => (n as f64).ln(),
    }
}

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

fn to_tt(score: i32, ply: usize) -> i32 {
    if score > WIN_BOUND {
        score + ply as i32
    } else if score < -WIN_BOUND {
        score - ply as i32
    } else {
        score
    }
}

fn from_tt(score: i32, ply: usize) -> i32 {
    if score > WIN_BOUND {
        score - ply as i32
    } else if score < -WIN_BOUND {
        score + ply as i32
    } else {
        score
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

/// The search of one thread.
struct Thread<'a, G: Game> {
    shared: &'a Shared,
    deadline: Deadline,
    limits: &'a Limits,
    main: bool,
    heur: &'a mut Heuristics,
    /// Repetition keys of the game before the root, then of the search path.
    keys: Vec<u64>,
    moves: Vec<Vec<G::Move>>,
    order_keys: Vec<Vec<i32>>,
    pv: Vec<Vec<G::Move>>,
    nodes: u64,
    seldepth: usize,
    stopped: bool,
    /// Test oracle mode: no reductions, and a table entry cuts off only at
    /// exactly its depth, so the search returns the fixed-depth minimax value.
    exact: bool,
    /// `go searchmoves`: the root moves that may be searched (`None`: all).
    root_allowed: Option<Vec<G::Move>>,
    /// MultiPV: root moves already given a line in this iteration.
    root_excluded: Vec<G::Move>,
    /// The root's best line so far in this iteration, with its score: a
    /// root move searched to the full depth that raised alpha.
    root_line: Option<(i32, Vec<G::Move>)>,
    /// Which of the tuned sets of numbers this game searches with.
    profile: Profile,
    /// Per ply: whether the move into it was a null move (never two in a row).
    nulled: Vec<bool>,
    /// Per ply: what the evaluation keeps of the position there
    /// (`Game::Eval`), made from the ply before when first needed
    /// (`ensure_eval`); whether it is made for the position there now;
    /// and the move that led there.
    evals: Vec<G::Eval>,
    eval_ready: Vec<bool>,
    made: Vec<Option<G::Move>>,
}

impl<G: Game> Thread<'_, G> {
    /// Whether the root searches only some of its legal moves; its result is
    /// then not the position's value and stays out of the table.
    fn root_restricted(&self) -> bool {
        self.root_allowed.is_some() || !self.root_excluded.is_empty()
    }

    /// Notes that the position at `ply + 1` is now the one after `mv`,
    /// whose evaluation's state is made only if it is needed
    /// (`ensure_eval`): many children end before they evaluate (the
    /// table, a win in one, a finished game).
    #[inline(always)]
    fn enter_child(&mut self, mv: G::Move, ply: usize) {
        self.made[ply + 1] = Some(mv);
        self.eval_ready[ply + 1] = false;
    }

    /// Makes the evaluation's state of `pos` at `ply` if it is not made
    /// yet: from its `parent`'s (ready: a position makes its own before
    /// it plays a move) and the move between, or from scratch at the root.
    #[inline(always)]
    fn ensure_eval(&mut self, pos: &G, parent: Option<&G>, ply: usize) {
        if self.eval_ready[ply] {
            return;
        }
        match (parent, self.made[ply]) {
            (Some(parent), Some(mv)) if ply > 0 => {
                let (done, next) = self.evals.split_at_mut(ply);
                parent.eval_update(mv, pos, &done[ply - 1], &mut next[0]);
            }
            _ => pos.eval_refresh(&mut self.evals[ply]),
        }
        self.eval_ready[ply] = true;
    }

    fn should_stop(&mut self) -> bool {
        if self.stopped {
            return true;
        }
        if let Some(n) = self.limits.nodes {
            if self.main && self.nodes >= n {
                self.stopped = true;
                self.shared.stop.store(true, Relaxed);
                return true;
            }
        }
        if self.nodes.is_multiple_of(CHECK_EVERY) {
            if !self.main {
                self.shared.helper_nodes.fetch_add(CHECK_EVERY, Relaxed);
            }
            if self.shared.stopping() || (self.main && self.deadline.past_hard()) {
                self.stopped = true;
                self.shared.stop.store(true, Relaxed);
            }
        }
        self.stopped
    }

    /// Whether the current position (last key) already occurred with the same
    /// side to move, in the game before the root or on the search path.
    fn is_repetition(&self) -> bool {
        let n = self.keys.len();
        let key = self.keys[n - 1];
        self.keys[..n - 1]
            .iter()
            .rev()
            .skip(1)
            .step_by(2)
            .any(|&k| k == key)
    }

    fn order(&self, pos: &G, moves: &[G::Move], tt_move: u16, ply: usize, keys: &mut Vec<i32>) {
        let side = pos.side_to_move().index() * 65536;
        keys.clear();
        keys.extend(moves.iter().map(|&m| {
            let bits = G::move_bits(m);
            if bits == tt_move {
                ORDER_TT
            } else if pos.is_noisy(m) {
                ORDER_NOISY
            } else if bits == self.heur.killers[ply][0] {
                ORDER_KILLER[0]
            } else if bits == self.heur.killers[ply][1] {
                ORDER_KILLER[1]
            } else {
                self.heur.history[side + bits as usize]
            }
        }));
    }

    /// The principal variation at `ply` becomes `mv` followed by the one
    /// its child just reported.
    fn update_pv(&mut self, ply: usize, mv: G::Move) {
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        head[ply].clear();
        head[ply].push(mv);
        head[ply].extend_from_slice(&tail[0]);
    }

    fn reward(&mut self, pos: &G, mv: G::Move, ply: usize, depth: i32, tried: &[G::Move]) {
        if pos.is_noisy(mv) {
            return;
        }
        let bits = G::move_bits(mv);
        let killers = &mut self.heur.killers[ply];
        if killers[0] != bits {
            killers[1] = killers[0];
            killers[0] = bits;
        }
        let side = pos.side_to_move().index() * 65536;
        let bonus = (depth * depth).min(400);
        let mut update = |bits: u16, delta: i32| {
            let h = &mut self.heur.history[side + bits as usize];
            *h += delta - *h * delta.abs() / HISTORY_MAX;
        };
        update(bits, bonus);
        for &m in tried {
            if m != mv && !pos.is_noisy(m) {
                update(G::move_bits(m), -bonus);
            }
        }
    }

    /// The search below a node, in the copy `V3` names: the x86-64-v3 one
    /// (`negamax_v3`) or the baseline one. `aspirate` picks the copy once
    /// per iteration and every node below calls the same one, so that the
    /// search's own code (the table, move ordering, the evaluation's
    /// update) runs with x86-64-v3's instructions as in a build for it,
    /// where the games' `fast!` would pick per call.
    #[inline(always)]
    fn negamax<const V3: bool>(
        &mut self,
        pos: &G,
        parent: Option<&G>,
        depth: i32,
        ply: usize,
        window: (i32, i32),
    ) -> i32 {
        #[cfg(target_arch = "x86_64")]
        if V3 {
            // Safety: `V3` is true only below a `has_v3()` (`aspirate`).
            return unsafe { self.negamax_v3(pos, parent, depth, ply, window) };
        }
        self.negamax_base(pos, parent, depth, ply, window)
    }

    fn negamax_base(
        &mut self,
        pos: &G,
        parent: Option<&G>,
        depth: i32,
        ply: usize,
        window: (i32, i32),
    ) -> i32 {
        self.negamax_body::<false>(pos, parent, depth, ply, window)
    }

    stackfish_games::v3_fn! {
        /// # Safety
        /// The CPU has x86-64-v3 (`cpu::has_v3`).
        unsafe fn negamax_v3(&mut self, pos: &G, parent: Option<&G>, depth: i32, ply: usize, window: (i32, i32)) -> i32 {
            self.negamax_body::<true>(pos, parent, depth, ply, window)
        }
    }

    #[inline(always)]
    fn negamax_body<const V3: bool>(
        &mut self,
        pos: &G,
        parent: Option<&G>,
        depth: i32,
        ply: usize,
        (mut alpha, mut beta): (i32, i32),
    ) -> i32 {
        let pv_node = beta - alpha > 1;
        self.pv[ply].clear();
        if ply > 0 {
            if let Outcome::Over { result, .. } = pos.outcome() {
                return outcome_score(result, pos.side_to_move(), ply);
            }
            if self.is_repetition() {
                let result = pos
                    .repetition_outcome()
                    .result()
                    .unwrap_or(GameResult::Draw);
                return outcome_score(result, pos.side_to_move(), ply);
            }
            // Mate distance pruning: no line from here beats a quicker win.
            alpha = alpha.max(-(WIN - ply as i32));
            beta = beta.min(WIN - ply as i32 - 1);
            if alpha >= beta {
                return alpha;
            }
            // A win in one needs no search.
            if let Some(mv) = pos.winning_move() {
                self.pv[ply].push(mv);
                return WIN - ply as i32 - 1;
            }
        }
        if depth <= 0 || ply >= MAX_PLY {
            return self.quiesce::<V3>(pos, parent, ply, 0, (alpha, beta));
        }
        self.nodes += 1;
        self.seldepth = self.seldepth.max(ply);
        // The root too: an aspiration re-search enters it again, and two
        // counts with no look at the limit between would overshoot it.
        if self.should_stop() {
            return 0;
        }

        let key = pos.hash();
        let tt = self.shared.tt.probe(key);
        let tt_move = tt.map_or(0, |e| e.mv);
        if let Some(e) = tt {
            if !pv_node && (e.depth == depth || (e.depth > depth && !self.exact)) {
                let score = from_tt(e.score, ply);
                match e.bound {
                    Bound::Exact => return score,
                    Bound::Lower if score >= beta => return score,
                    Bound::Upper if score <= alpha => return score,
                    _ => {}
                }
            }
        }

        // Reverse futility pruning: near the horizon, a position that beats
        // beta by a margin a ply is cut, unless a win in one against it
        // makes its evaluation meaningless.
        if !pv_node
            && !self.exact
            && ply > 0
            && depth <= p::rfp_max_depth(self.profile)
            && beta.abs() < WIN_BOUND
        {
            self.ensure_eval(pos, parent, ply);
            let eval = pos.evaluate_with(&self.evals[ply]);
            if eval - p::rfp_margin(self.profile) * depth >= beta && !pos.threatened() {
                return eval;
            }
        }

        if !pv_node
            && !self.exact
            && ply > 0
            && depth >= p::nmp_min_depth(self.profile)
            && !self.nulled[ply]
            && beta.abs() < WIN_BOUND
        {
            if let Some(null) = pos.null_move() {
                self.ensure_eval(pos, parent, ply);
                if pos.evaluate_with(&self.evals[ply]) >= beta {
                    let mut child = pos.clone();
                    child.play(null);
                    self.enter_child(null, ply);
                    // A pass after a pass would end the game: no free move.
                    if !child.outcome().is_over() {
                        let r = p::nmp_base(self.profile) + depth / p::nmp_divisor(self.profile);
                        self.keys.push(child.repetition_key());
                        self.nulled[ply + 1] = true;
                        let s = -self.negamax::<V3>(
                            &child,
                            Some(pos),
                            depth - 1 - r,
                            ply + 1,
                            (-beta, -beta + 1),
                        );
                        self.nulled[ply + 1] = false;
                        self.keys.pop();
                        if self.stopped {
                            return 0;
                        }
                        if s >= beta {
                            // A win seen only after a free move is no win.
                            return s.min(WIN_BOUND);
                        }
                    }
                }
            }
        }

        let mut moves = std::mem::take(&mut self.moves[ply]);
        moves.clear();
        pos.generate_moves(&mut moves);
        let restricted = ply == 0 && self.root_restricted();
        if restricted {
            let (allowed, excluded) = (&self.root_allowed, &self.root_excluded);
            moves.retain(|m| {
                allowed.as_ref().is_none_or(|a| a.contains(m)) && !excluded.contains(m)
            });
        }
        let mut keys = std::mem::take(&mut self.order_keys[ply]);
        self.order(pos, &moves, tt_move, ply, &mut keys);

        self.ensure_eval(pos, parent, ply);
        let original_alpha = alpha;
        let mut best = -WIN;
        let mut best_move = None;
        for i in 0..moves.len() {
            // Selection sort: most moves are never looked at after a cutoff.
            let j = i + first_max(&keys[i..]);
            moves.swap(i, j);
            keys.swap(i, j);
            let mv = moves[i];
            // Late move pruning: near the horizon, once the ordered quiet
            // moves run long, the rest are not worth a look.
            if !pv_node
                && !self.exact
                && depth <= p::lmp_max_depth(self.profile)
                && i >= (p::lmp_base(self.profile)
                    + p::lmp_per_depth2(self.profile) * depth * depth)
                    as usize
                && keys[i] < ORDER_KILLER[1]
                && best > -WIN_BOUND
            {
                break;
            }
            let mut child = pos.clone();
            child.play(mv);
            self.enter_child(mv, ply);
            self.keys.push(child.repetition_key());
            let here = Some(pos);
            let score = if i == 0 {
                -self.negamax::<V3>(&child, here, depth - 1, ply + 1, (-beta, -alpha))
            } else {
                let quiet = keys[i] < ORDER_KILLER[1];
                let reduction = if quiet
                    && depth >= p::lmr_min_depth(self.profile)
                    && i >= p::lmr_min_moves(self.profile) as usize
                    && !self.exact
                {
                    lmr(self.profile, depth, i).min(depth - 2)
                } else {
                    0
                };
                let null_window = (-alpha - 1, -alpha);
                let mut s =
                    -self.negamax::<V3>(&child, here, depth - 1 - reduction, ply + 1, null_window);
                // (A stopped search returns 0, which is no reason to search again.)
                if reduction > 0 && s > alpha && !self.stopped {
                    s = -self.negamax::<V3>(&child, here, depth - 1, ply + 1, null_window);
                }
                if s > alpha && s < beta && !self.stopped {
                    -self.negamax::<V3>(&child, here, depth - 1, ply + 1, (-beta, -alpha))
                } else {
                    s
                }
            };
            self.keys.pop();
            if self.stopped {
                self.moves[ply] = moves;
                self.order_keys[ply] = keys;
                return 0;
            }
            if score > best {
                best = score;
                best_move = Some(mv);
                if score > alpha {
                    alpha = score;
                    self.update_pv(ply, mv);
                    if ply == 0 {
                        self.root_line = Some((score, self.pv[0].clone()));
                    }
                    if alpha >= beta {
                        self.reward(pos, mv, ply, depth, &moves[..i]);
                        break;
                    }
                }
            }
        }
        self.moves[ply] = moves;
        self.order_keys[ply] = keys;
        let bound = if best >= beta {
            Bound::Lower
        } else if best > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        if !restricted {
            let mv_bits = best_move.map_or(0, G::move_bits);
            self.shared
                .tt
                .store(key, mv_bits, to_tt(best, ply), 0, depth, bound);
        }
        best
    }

    /// Only noisy moves (towers, captures) until the position is quiet or
    /// `qsearch_max_plies` deep, with the static evaluation as the score of
    /// standing still. `qply` counts the plies since the horizon.
    #[inline(always)]
    fn quiesce<const V3: bool>(
        &mut self,
        pos: &G,
        parent: Option<&G>,
        ply: usize,
        qply: i32,
        window: (i32, i32),
    ) -> i32 {
        #[cfg(target_arch = "x86_64")]
        if V3 {
            // Safety: as in `negamax`.
            return unsafe { self.quiesce_v3(pos, parent, ply, qply, window) };
        }
        self.quiesce_base(pos, parent, ply, qply, window)
    }

    fn quiesce_base(
        &mut self,
        pos: &G,
        parent: Option<&G>,
        ply: usize,
        qply: i32,
        window: (i32, i32),
    ) -> i32 {
        self.quiesce_body::<false>(pos, parent, ply, qply, window)
    }

    stackfish_games::v3_fn! {
        /// # Safety
        /// The CPU has x86-64-v3 (`cpu::has_v3`).
        unsafe fn quiesce_v3(&mut self, pos: &G, parent: Option<&G>, ply: usize, qply: i32, window: (i32, i32)) -> i32 {
            self.quiesce_body::<true>(pos, parent, ply, qply, window)
        }
    }

    #[inline(always)]
    fn quiesce_body<const V3: bool>(
        &mut self,
        pos: &G,
        parent: Option<&G>,
        ply: usize,
        qply: i32,
        (mut alpha, beta): (i32, i32),
    ) -> i32 {
        self.pv[ply].clear();
        if let Outcome::Over { result, .. } = pos.outcome() {
            return outcome_score(result, pos.side_to_move(), ply);
        }
        self.nodes += 1;
        self.seldepth = self.seldepth.max(ply);
        if self.should_stop() {
            return 0;
        }
        if let Some(mv) = pos.winning_move() {
            self.pv[ply].push(mv);
            return WIN - ply as i32 - 1;
        }
        self.ensure_eval(pos, parent, ply);
        let stand = pos
            .evaluate_with(&self.evals[ply])
            .clamp(-EVAL_LIMIT + 1, EVAL_LIMIT - 1);
        // Standing pat assumes the side to move could do nothing at all;
        // facing a win in one, it must parry, and a position where no move
        // does is lost, however the evaluation sees it. (Only where the
        // stand would count: below alpha the loss fails low all the same.)
        if stand > alpha
            && qply == 0
            && ply < MAX_PLY
            && pos.threatened()
            && !self.can_parry(pos, ply)
            && !self.stopped
        {
            return -(WIN - ply as i32 - 2);
        }
        if self.stopped {
            return 0;
        }
        if stand >= beta || ply >= MAX_PLY || qply >= p::qsearch_max_plies(self.profile) {
            return stand;
        }
        alpha = alpha.max(stand);
        let mut moves = std::mem::take(&mut self.moves[ply]);
        moves.clear();
        pos.noisy_moves(&mut moves);
        let mut best = stand;
        for &mv in &moves {
            let mut child = pos.clone();
            child.play(mv);
            self.enter_child(mv, ply);
            let window = (-beta, -alpha);
            let score = -self.quiesce::<V3>(&child, Some(pos), ply + 1, qply + 1, window);
            if self.stopped {
                break;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    self.update_pv(ply, mv);
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        self.moves[ply] = moves;
        best
    }

    /// Whether some move of `pos` (at `ply`, the last position of the
    /// search path, whose opponent threatens a win in one) leaves the
    /// opponent no win in one: each move tried is a node. A move that
    /// repeats a position is a draw, so it parries too.
    fn can_parry(&mut self, pos: &G, ply: usize) -> bool {
        let mut moves = std::mem::take(&mut self.moves[ply]);
        moves.clear();
        pos.parry_candidates(&mut moves);
        let mut parried = false;
        for &mv in &moves {
            let mut child = pos.clone();
            child.play(mv);
            if let Outcome::Over { result, .. } = child.outcome() {
                // A tower of ours that ends the game is a win in one, which
                // the caller has ruled out; the opponent's is no parry; a
                // draw (a second pass) is.
                if result.winner() == Some(pos.side_to_move().opponent()) {
                    continue;
                }
                parried = true;
                break;
            }
            self.nodes += 1;
            if self.should_stop() {
                break;
            }
            self.keys.push(child.repetition_key());
            let repeated = self.is_repetition();
            self.keys.pop();
            if repeated || child.winning_move().is_none() {
                parried = true;
                break;
            }
        }
        self.moves[ply] = moves;
        parried
    }

    /// One iteration at the root with an aspiration window around `guess`.
    fn aspirate(&mut self, root: &G, depth: i32, guess: Option<i32>) -> i32 {
        let mut delta = p::aspiration_window(self.profile);
        let (mut alpha, mut beta) = match guess {
            Some(g) if depth >= p::aspiration_min_depth(self.profile) && g.abs() < WIN_BOUND => {
                (g - delta, g + delta)
            }
            _ => (-WIN, WIN),
        };
        loop {
            let score = if stackfish_games::cpu::has_v3() {
                self.negamax::<true>(root, None, depth, 0, (alpha, beta))
            } else {
                self.negamax::<false>(root, None, depth, 0, (alpha, beta))
            };
            if self.stopped {
                return score;
            }
            if score <= alpha {
                alpha = (alpha - delta).max(-WIN);
            } else if score >= beta {
                beta = (beta + delta).min(WIN);
            } else {
                return score;
            }
            delta *= 2;
        }
    }
}

/// The index of the first largest key (0 for an empty slice): the next
/// move of the selection sort, the earliest generated among equals. One
/// compare a key, so that the loop stays cheap where it is hottest (the
/// WebAssembly build compiled the tuple compare it replaces into a chain
/// of conditional moves).
#[inline(always)]
fn first_max(keys: &[i32]) -> usize {
    let Some((&first, rest)) = keys.split_first() else {
        return 0;
    };
    let (mut best, mut top) = (0, first);
    for (k, &key) in rest.iter().enumerate() {
        if key > top {
            (best, top) = (k + 1, key);
        }
    }
    best
}

/// Options of one search call.
pub struct SearchParams<'a, M> {
    pub limits: &'a Limits,
    pub move_overhead_ms: u64,
    pub threads: usize,
    /// See `Thread::exact`: the minimax value, for tests; false otherwise.
    pub exact: bool,
    /// How many best root moves get a line of their own (MultiPV), at least 1.
    pub multipv: usize,
    /// `go searchmoves`: only these root moves are searched; empty means
    /// all. Moves that are not legal are ignored; if none is, all are searched.
    pub root_moves: &'a [M],
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
    params: &SearchParams<G::Move>,
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
    let limits = params.limits;
    let shared_ref = &**shared;
    let mut result = seam::with_helpers(
        helper_heur.iter_mut().take(threads - 1),
        |i, heur| {
            let mut t = new_thread::<G>(root, shared_ref, deadline, limits, false, heur, history);
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
            let mut t = new_thread::<G>(
                root,
                shared_ref,
                deadline,
                limits,
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

fn new_thread<'a, G: Game>(
    root: &G,
    shared: &'a Shared,
    deadline: Deadline,
    limits: &'a Limits,
    main: bool,
    heur: &'a mut Heuristics,
    history: &[u64],
) -> Thread<'a, G> {
    Thread {
        shared,
        deadline,
        limits,
        main,
        heur,
        keys: history.to_vec(),
        moves: vec![Vec::new(); MAX_PLY + 2],
        order_keys: vec![Vec::new(); MAX_PLY + 2],
        pv: vec![Vec::new(); MAX_PLY + 2],
        nodes: 0,
        seldepth: 0,
        stopped: false,
        exact: false,
        root_allowed: None,
        root_excluded: Vec::new(),
        root_line: None,
        profile: Profile::of(root),
        nulled: vec![false; MAX_PLY + 2],
        evals: vec![G::Eval::default(); MAX_PLY + 2],
        eval_ready: vec![false; MAX_PLY + 2],
        made: vec![None; MAX_PLY + 2],
    }
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
/// scored so far, when the limits or the stop flag say so.
pub fn root_scores<G: Game>(
    root: &G,
    history: &[u64],
    shared: &Arc<Shared>,
    heuristics: &mut Heuristics,
    limits: &Limits,
    move_overhead_ms: u64,
    only: &[G::Move],
) -> (Vec<(G::Move, i32)>, u64) {
    let deadline = Deadline::new(limits, move_overhead_ms);
    shared.tt.new_search();
    let mut t = new_thread::<G>(root, shared, deadline, limits, true, heuristics, history);
    let depth = limits.depth.unwrap_or(1).max(1);
    let mut moves = Vec::new();
    root.generate_moves(&mut moves);
    if moves.iter().any(|m| only.contains(m)) {
        moves.retain(|m| only.contains(m));
    }
    let mut scored = Vec::with_capacity(moves.len());
    t.ensure_eval(root, None, 0);
    for mv in moves {
        let mut child = root.clone();
        child.play(mv);
        t.enter_child(mv, 0);
        t.keys.push(child.repetition_key());
        let score = -t.negamax::<false>(&child, Some(root), depth - 1, 1, (-WIN, WIN));
        t.keys.pop();
        if t.stopped && !scored.is_empty() {
            break;
        }
        scored.push((mv, score));
    }
    (scored, t.nodes)
}
