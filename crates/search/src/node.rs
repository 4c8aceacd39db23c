//! The search below the root of one thread: principal variation search
//! with its pruning and reductions, quiescence over noisy moves, move
//! ordering by the table's move, noisy moves, killers and history, and one
//! aspirated iteration at the root. `lib.rs` deepens and reports.

use std::sync::atomic::Ordering::Relaxed;

use stackfish_games::{Game, GameResult, Outcome};

use crate::params::{self as p, Profile};
use crate::tt::Bound;
use crate::{
    outcome_score, Deadline, Heuristics, Limits, Shared, EVAL_LIMIT, MAX_PLY, WIN, WIN_BOUND,
};

/// The node search in the copy `V3` names, as three functions: `$name`
/// picks the x86-64-v3 copy (`$v3`, compiled with those features) or the
/// baseline one (`$base`), both of which run `$body::<V3>`, inlined there.
macro_rules! trampoline {
    ($(#[$doc:meta])* $name:ident / $base:ident / $v3:ident => $body:ident($($arg:ident: $ty:ty),* $(,)?)) => {
        $(#[$doc])*
        #[inline(always)]
        fn $name<const V3: bool>(&mut self, $($arg: $ty),*) -> i32 {
            #[cfg(target_arch = "x86_64")]
            if V3 {
                // Safety: `V3` is true only below a `has_v3()` (`aspirate`).
                return unsafe { self.$v3($($arg),*) };
            }
            self.$base($($arg),*)
        }

        fn $base(&mut self, $($arg: $ty),*) -> i32 {
            self.$body::<false>($($arg),*)
        }

        stackfish_games::v3_fn! {
            /// # Safety
            /// The CPU has x86-64-v3 (`cpu::has_v3`).
            unsafe fn $v3(&mut self, $($arg: $ty),*) -> i32 {
                self.$body::<true>($($arg),*)
            }
        }
    };
}

/// Time and the stop flag are looked at every this many nodes.
const CHECK_EVERY: u64 = 1024;
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
pub(crate) const LN_TABLE: usize = 256;

/// `(n as f64).ln()`, the same number, from a table for small `n`: a
/// browser build computes `ln` in software, once per reduced move (about 1%
/// of its bench time before).
#[inline]
pub(crate) fn ln(n: usize) -> f64 {
    static TABLE: std::sync::LazyLock<[f64; LN_TABLE]> =
        std::sync::LazyLock::new(|| std::array::from_fn(|n| (n as f64).ln()));
    match TABLE.get(n) {
        Some(&v) => v,
        None => (n as f64).ln(),
    }
}

pub(crate) fn to_tt(score: i32, ply: usize) -> i32 {
    if score > WIN_BOUND {
        score + ply as i32
    } else if score < -WIN_BOUND {
        score - ply as i32
    } else {
        score
    }
}

pub(crate) fn from_tt(score: i32, ply: usize) -> i32 {
    if score > WIN_BOUND {
        score - ply as i32
    } else if score < -WIN_BOUND {
        score + ply as i32
    } else {
        score
    }
}

/// The search of one thread.
pub(crate) struct Thread<'a, G: Game> {
    pub(crate) shared: &'a Shared,
    pub(crate) deadline: Deadline,
    pub(crate) limits: &'a Limits,
    /// The networks every evaluation of this search reads.
    pub(crate) nets: &'a G::Nets,
    pub(crate) main: bool,
    pub(crate) heur: &'a mut Heuristics,
    /// Repetition keys of the game before the root, then of the search path.
    pub(crate) keys: Vec<u64>,
    pub(crate) moves: Vec<Vec<G::Move>>,
    pub(crate) order_keys: Vec<Vec<i32>>,
    pub(crate) pv: Vec<Vec<G::Move>>,
    pub(crate) nodes: u64,
    pub(crate) seldepth: usize,
    pub(crate) stopped: bool,
    /// Test oracle mode: no reductions, and a table entry cuts off only at
    /// exactly its depth, so the search returns the fixed-depth minimax value.
    pub(crate) exact: bool,
    /// `go searchmoves`: the root moves that may be searched (`None`: all).
    pub(crate) root_allowed: Option<Vec<G::Move>>,
    /// MultiPV: root moves already given a line in this iteration.
    pub(crate) root_excluded: Vec<G::Move>,
    /// The root's best line so far in this iteration, with its score: a
    /// root move searched to the full depth that raised alpha.
    pub(crate) root_line: Option<(i32, Vec<G::Move>)>,
    /// Which of the tuned sets of numbers this game searches with.
    pub(crate) profile: Profile,
    /// Per ply: whether the move into it was a null move (never two in a row).
    pub(crate) nulled: Vec<bool>,
    /// Per ply: what the evaluation keeps of the position there
    /// (`Game::Eval`), made from the ply before when first needed
    /// (`ensure_eval`); whether it is made for the position there now;
    /// and the move that led there.
    pub(crate) evals: Vec<G::Eval>,
    pub(crate) eval_ready: Vec<bool>,
    pub(crate) made: Vec<Option<G::Move>>,
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
                parent.eval_update(self.nets, mv, pos, &done[ply - 1], &mut next[0]);
            }
            _ => pos.eval_refresh(self.nets, &mut self.evals[ply]),
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

    trampoline! {
        /// The search below a node, in the copy `V3` names: the x86-64-v3 one
        /// (`negamax_v3`) or the baseline one. `aspirate` picks the copy once
        /// per iteration and every node below calls the same one, so that the
        /// search's own code (the table, move ordering, the evaluation's
        /// update) runs with x86-64-v3's instructions as in a build for it,
        /// where the games' `fast!` would pick per call.
        negamax / negamax_base / negamax_v3 => negamax_body(
            pos: &G, parent: Option<&G>, depth: i32, ply: usize, window: (i32, i32)
        )
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
            let eval = pos.evaluate_with(self.nets, &self.evals[ply]);
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
                if pos.evaluate_with(self.nets, &self.evals[ply]) >= beta {
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

    trampoline! {
        /// Only noisy moves (towers, captures) until the position is quiet or
        /// `qsearch_max_plies` deep, with the static evaluation as the score of
        /// standing still. `qply` counts the plies since the horizon.
        quiesce / quiesce_base / quiesce_v3 => quiesce_body(
            pos: &G, parent: Option<&G>, ply: usize, qply: i32, window: (i32, i32)
        )
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
            .evaluate_with(self.nets, &self.evals[ply])
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

    /// Each of `moves` (legal at `root`) with its score from a full-window
    /// search `depth` plies deep, in order, until the limits or the stop
    /// flag end the search (the first move is always scored).
    pub(crate) fn score_root_moves(
        &mut self,
        root: &G,
        moves: &[G::Move],
        depth: i32,
    ) -> Vec<(G::Move, i32)> {
        let mut scored = Vec::with_capacity(moves.len());
        self.ensure_eval(root, None, 0);
        for &mv in moves {
            let mut child = root.clone();
            child.play(mv);
            self.enter_child(mv, 0);
            self.keys.push(child.repetition_key());
            let score = -self.negamax::<false>(&child, Some(root), depth - 1, 1, (-WIN, WIN));
            self.keys.pop();
            if self.stopped && !scored.is_empty() {
                break;
            }
            scored.push((mv, score));
        }
        scored
    }

    /// One iteration at the root with an aspiration window around `guess`.
    pub(crate) fn aspirate(&mut self, root: &G, depth: i32, guess: Option<i32>) -> i32 {
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

impl<'a, G: Game> Thread<'a, G> {
    /// A thread's search state for `root`, with the game's repetition keys
    /// before it (`history`), evaluating with `nets`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        root: &G,
        shared: &'a Shared,
        deadline: Deadline,
        limits: &'a Limits,
        nets: &'a G::Nets,
        main: bool,
        heur: &'a mut Heuristics,
        history: &[u64],
    ) -> Thread<'a, G> {
        Thread {
            shared,
            deadline,
            limits,
            nets,
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
}

/// The index of the first largest key (0 for an empty slice): the next
/// move of the selection sort, the earliest generated among equals. Two
/// passes: the largest key, a maximum the compiler computes a vector of
/// lanes at a time, then the first key equal to it, a scan that stops
/// there. One pass carrying the best index and key made each key wait
/// for the one before (a chain of conditional moves, which V8 compiled to
/// four dependent instructions a key: the browser build spent a tenth of
/// its bench in that loop).
#[inline(always)]
pub(crate) fn first_max(keys: &[i32]) -> usize {
    let top = keys.iter().fold(i32::MIN, |top, &key| top.max(key));
    keys.iter().position(|&key| key == top).unwrap_or(0)
}
