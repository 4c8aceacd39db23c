//! `go` as an ordered list of answerers: the endgame tables, a proof, a
//! weaker level, the search. The first that answers plays; one place
//! (`Found::answer`) reports the line of an answer found without the
//! search and builds the move. Each game type gets its own `Driver`, which
//! finds its position behind the erased game by downcasting.

use std::any::Any;
use std::sync::Arc;

use rand::{Rng, SeedableRng};
use stackfish_games::{find_legal, AnyGame, Game, Networks, Outcome};
use stackfish_search::seam::Instant;
use stackfish_search::{self as search, Heuristics, Info, Limits, SearchParams, Shared};

use crate::levels::{level_play, LevelPlay};
use crate::{
    BestMove, GoParams, Options, MAX_MULTIPV, MAX_THREADS, PROVE_POSITIONS_FAST,
    PROVE_POSITIONS_SLOW,
};

/// From this much thinking time (ms) on, the larger proof budget is used.
const PROVE_SLOW_FROM_MS: u64 = 2_000;
/// Under `go nodes N` a proof may take at most N / PROVE_NODES_SHARE
/// positions; the search keeps the rest when it gives up.
const PROVE_NODES_SHARE: u64 = 2;
/// Positions a proof explores per millisecond, at least (about 1-3 million a
/// second measured): what bounds it under a short `movetime`.
const PROVE_POSITIONS_PER_MS: u64 = 1_000;

/// The search side of a session, for the game type behind an `AnyGame`.
pub(crate) trait Searcher: Send {
    fn go(
        &mut self,
        game: &dyn AnyGame,
        shared: &Arc<Shared>,
        params: &GoParams,
        options: &Options,
        report: &mut dyn FnMut(&Info),
    ) -> BestMove;
    /// A new game: heuristics cleared, the level noise reseeded.
    fn new_game(&mut self);
    /// The game may have changed its board type (Mixtour): a searcher of
    /// the other type starts afresh.
    fn follow(&mut self, game: &dyn AnyGame);
    /// See `Session::check_search_moves`.
    fn check_search_moves(&self, game: &dyn AnyGame, moves: &[String]) -> Vec<String>;
}

/// What persists between the searches of one game of type `G`.
pub(crate) struct Driver<G: Game> {
    /// One per search thread that has run.
    heuristics: Vec<Heuristics>,
    /// Seeds the level noise, so each game of a match plays differently.
    games_started: u64,
    /// Nodes (positions) a failed proof spent of this move's `go nodes`,
    /// taken off the search's budget so the limit bounds both.
    proof_spent: u64,
    /// The networks every search of this game evaluates with.
    nets: G::Nets,
}

impl<G: Game> Driver<G> {
    pub(crate) fn new(nets: G::Nets) -> Driver<G> {
        Driver {
            heuristics: vec![Heuristics::default()],
            games_started: 0,
            proof_spent: 0,
            nets,
        }
    }
}

/// The position of type `G` behind `game`. The session makes the game and
/// its driver from one variant name and keeps them of one type.
fn position<G: Game>(game: &dyn AnyGame) -> &G {
    match game.position_any().downcast_ref::<G>() {
        Some(pos) => pos,
        None => unreachable!("the session keeps its driver of its game's type"),
    }
}

impl<G: Game> Searcher for Driver<G> {
    fn go(
        &mut self,
        game: &dyn AnyGame,
        shared: &Arc<Shared>,
        params: &GoParams,
        options: &Options,
        report: &mut dyn FnMut(&Info),
    ) -> BestMove {
        if let Outcome::Over { reason, .. } = game.outcome() {
            return BestMove::GameOver(reason);
        }
        let pos = position::<G>(game);
        let ask = Ask {
            pos,
            keys: game.keys(),
            shared,
            params,
            options,
            // Not over: checked above.
            root_moves: resolve_search_moves(pos, false, &params.search_moves).0,
            multipv: options.multipv.clamp(1, MAX_MULTIPV),
        };
        self.proof_spent = 0;
        for answerer in answerers::<G>() {
            let start = Instant::now();
            match answerer(self, &ask, report) {
                Some(Answer::Found(found)) if !found.pv.is_empty() => {
                    return found.answer(start, report)
                }
                Some(Answer::NoMove) => break,
                _ => {}
            }
        }
        BestMove::GameOver("no legal move")
    }

    fn new_game(&mut self) {
        for h in &mut self.heuristics {
            h.clear();
        }
        self.games_started += 1;
    }

    fn follow(&mut self, _game: &dyn AnyGame) {}

    fn check_search_moves(&self, game: &dyn AnyGame, moves: &[String]) -> Vec<String> {
        resolve_search_moves(position::<G>(game), game.outcome().is_over(), moves).1
    }
}

/// The driver of a game played on boards of many shapes (Mixtour), whose
/// erased game switches between the fast type `F` of the standard board and
/// the general type `G` (`ShapedLine`): a switch starts the heuristics and
/// the level seed afresh, with the same networks.
pub(crate) struct Shaped<F: Game, G: Game<Variant = F::Variant>> {
    driver: ShapedDriver<F, G>,
    networks: Networks,
}

/// The driver of the board type the game is on now.
enum ShapedDriver<F: Game, G: Game<Variant = F::Variant>> {
    Fast(Driver<F>),
    General(Driver<G>),
}

impl<F: Game, G: Game<Variant = F::Variant>> Shaped<F, G> {
    /// On the fast type first, as `ShapedLine` starts.
    pub(crate) fn new(networks: &Networks) -> Shaped<F, G> {
        Shaped {
            driver: ShapedDriver::Fast(Driver::new(F::nets(networks))),
            networks: networks.clone(),
        }
    }

    fn active(&mut self) -> &mut dyn Searcher {
        match &mut self.driver {
            ShapedDriver::Fast(d) => d,
            ShapedDriver::General(d) => d,
        }
    }
}

impl<F: Game, G: Game<Variant = F::Variant>> Searcher for Shaped<F, G> {
    fn go(
        &mut self,
        game: &dyn AnyGame,
        shared: &Arc<Shared>,
        params: &GoParams,
        options: &Options,
        report: &mut dyn FnMut(&Info),
    ) -> BestMove {
        self.follow(game);
        self.active().go(game, shared, params, options, report)
    }

    fn new_game(&mut self) {
        self.active().new_game()
    }

    fn follow(&mut self, game: &dyn AnyGame) {
        let fast = game.position_any().is::<F>();
        match self.driver {
            ShapedDriver::Fast(_) if !fast => {
                self.driver = ShapedDriver::General(Driver::new(G::nets(&self.networks)))
            }
            ShapedDriver::General(_) if fast => {
                self.driver = ShapedDriver::Fast(Driver::new(F::nets(&self.networks)))
            }
            _ => {}
        }
    }

    fn check_search_moves(&self, game: &dyn AnyGame, moves: &[String]) -> Vec<String> {
        let over = game.outcome().is_over();
        match game.position_any().downcast_ref::<F>() {
            Some(pos) => resolve_search_moves(pos, over, moves).1,
            None => resolve_search_moves(position::<G>(game), over, moves).1,
        }
    }
}

/// The legal moves of a `searchmoves` list (duplicates dropped) and what is
/// wrong with the list (see `Session::check_search_moves`).
fn resolve_search_moves<G: Game>(
    pos: &G,
    over: bool,
    texts: &[String],
) -> (Vec<G::Move>, Vec<String>) {
    let (mut moves, mut errors) = (Vec::new(), Vec::new());
    if texts.is_empty() || over {
        return (moves, errors);
    }
    for text in texts {
        match find_legal(pos, text) {
            Ok(mv) if !moves.contains(&mv) => moves.push(mv),
            Ok(_) => {}
            Err(e) => errors.push(format!("go searchmoves: {e}; ignored")),
        }
    }
    if moves.is_empty() {
        errors.push("go searchmoves: no legal move in the list; searching all moves".into());
    }
    (moves, errors)
}

/// What `go` asks of the answerers: a position of a game not over.
struct Ask<'a, G: Game> {
    pos: &'a G,
    /// Repetition keys of the game up to and including `pos`.
    keys: &'a [u64],
    shared: &'a Arc<Shared>,
    params: &'a GoParams,
    options: &'a Options,
    /// `searchmoves`, legal ones only (empty: every move).
    root_moves: Vec<G::Move>,
    multipv: usize,
}

impl<G: Game> Ask<'_, G> {
    /// A table or a proof names one best move of all: not for several lines
    /// or a restricted root.
    fn whole_root(&self) -> bool {
        self.multipv == 1 && self.root_moves.is_empty()
    }
}

/// What an answerer says.
enum Answer {
    Found(Found),
    /// There is no legal move: nobody else need try.
    NoMove,
}

/// A move found, with what its report says.
struct Found {
    /// The move played, then the line expected after it.
    pv: Vec<String>,
    score: i32,
    depth: i32,
    seldepth: usize,
    nodes: u64,
    hashfull: u32,
    /// The search reports its lines itself as its iterations complete.
    reported: bool,
}

impl Found {
    /// Reports the line (unless the search already has, as it went) and
    /// answers its first move.
    fn answer(self, start: Instant, report: &mut dyn FnMut(&Info)) -> BestMove {
        let info = Info {
            multipv: 1,
            depth: self.depth,
            seldepth: self.seldepth,
            score: self.score,
            nodes: self.nodes,
            time_ms: start.elapsed().as_millis() as u64,
            hashfull: self.hashfull,
            pv: self.pv,
        };
        if !self.reported {
            report(&info);
        }
        BestMove::Move {
            best: info.pv[0].clone(),
            score: info.score,
            pv: info.pv,
        }
    }

    /// A value proven `plies` from the end (positive: the side to move
    /// wins), with its line: the fastest win, or the slowest loss.
    fn proven(plies: i32, seldepth: usize, pv: Vec<String>) -> Found {
        Found {
            pv,
            score: proven_score(plies),
            depth: plies.unsigned_abs() as i32,
            seldepth,
            nodes: 0,
            hashfull: 0,
            reported: false,
        }
    }
}

type Answerer<G> = fn(&mut Driver<G>, &Ask<G>, &mut dyn FnMut(&Info)) -> Option<Answer>;

/// Who answers `go`, in order: the first to answer plays.
fn answerers<G: Game>() -> [Answerer<G>; 4] {
    [from_tables, from_proof, from_level, from_search]
}

/// The search score of a value proven `plies` from the end (positive: the
/// side to move wins), as a mate score.
fn proven_score(plies: i32) -> i32 {
    match plies {
        0 => 0,
        p if p > 0 => search::WIN - p,
        p => -(search::WIN + p),
    }
}

/// The endgame tables (`SiloTablePath`), at every level: the table's value
/// with the whole optimal line.
fn from_tables<G: Game>(
    _: &mut Driver<G>,
    ask: &Ask<G>,
    _: &mut dyn FnMut(&Info),
) -> Option<Answer> {
    let tables = ask.options.tables.as_ref().filter(|_| ask.whole_root())?;
    let (line, plies) = tables.set.probe(ask.pos as &dyn Any)?;
    let seldepth = line.len();
    Some(Answer::Found(Found::proven(plies, seldepth, line)))
}

/// How many positions a proof may explore under these limits: every limit
/// bounds it. `nodes N`: at most N / PROVE_NODES_SHARE (a position counts as
/// a node; the search gets the rest). `movetime T`: at most
/// T x PROVE_POSITIONS_PER_MS. `depth` alone: the fast budget (a proof no
/// longer than a shallow search). Clocks: the fast budget under fast clocks.
fn prove_budget(params: &GoParams) -> usize {
    let generous = params.infinite
        || params.move_time.is_some_and(|t| t >= PROVE_SLOW_FROM_MS)
        || (params.move_time.is_none()
            && params.depth.is_none()
            && params
                .time
                .iter()
                .all(|t| t.is_none_or(|t| t >= 20 * PROVE_SLOW_FROM_MS)));
    let mut budget = if generous {
        PROVE_POSITIONS_SLOW
    } else {
        PROVE_POSITIONS_FAST
    };
    if let Some(t) = params.move_time {
        budget = budget
            .min(usize::try_from(t.saturating_mul(PROVE_POSITIONS_PER_MS)).unwrap_or(usize::MAX));
    }
    if let Some(n) = params.nodes {
        budget = budget.min(usize::try_from(n / PROVE_NODES_SHARE).unwrap_or(usize::MAX));
    }
    budget
}

/// A game that proves values (Silo), within the budget, at every level.
/// The positions it explores count as nodes: a proof found reports the
/// positions it solved, a proof given up leaves the search what the budget
/// did not take.
fn from_proof<G: Game>(
    driver: &mut Driver<G>,
    ask: &Ask<G>,
    _: &mut dyn FnMut(&Info),
) -> Option<Answer> {
    if !ask.whole_root() {
        return None;
    }
    let budget = prove_budget(ask.params);
    if budget == 0 {
        return None;
    }
    let proof = ask.pos.prove(budget, &ask.shared.stop);
    let Some((mv, plies)) = proof.best else {
        // Only what the attempt explored: a game that cannot prove (all
        // but Silo) leaves the search the whole budget.
        driver.proof_spent = proof.positions;
        return None;
    };
    let seldepth = plies.unsigned_abs() as usize;
    let mut found = Found::proven(plies, seldepth, vec![mv.to_string()]);
    found.nodes = proof.positions;
    Some(Answer::Found(found))
}

/// A noisy level: score every root move at a shallow depth, add noise,
/// pick the best of the noisy scores. (A node-limited level is the search
/// with a budget: `from_search`.)
fn from_level<G: Game>(
    driver: &mut Driver<G>,
    ask: &Ask<G>,
    _: &mut dyn FnMut(&Info),
) -> Option<Answer> {
    let Some(LevelPlay::Noisy { depth, noise }) = level_play(ask.options.level) else {
        return None;
    };
    let pos = ask.pos;
    let limits = Limits {
        depth: Some(ask.params.depth.map_or(depth, |d| d.min(depth))),
        ..ask.params.limits_for(pos.side_to_move())
    };
    let (scores, nodes) = search::root_scores(
        pos,
        ask.keys,
        ask.shared,
        &mut driver.heuristics[0],
        &limits,
        ask.options.move_overhead_ms,
        &ask.root_moves,
        &driver.nets,
    );
    // Seeded by position and game so that a match is reproducible.
    let seed = pos.hash() ^ driver.games_started.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let chosen = scores
        .into_iter()
        .map(|(mv, s)| {
            let keep_win = s > search::WIN_BOUND;
            let noisy = if keep_win {
                s
            } else {
                s + rng.gen_range(-noise..=noise)
            };
            (mv, s, noisy)
        })
        .max_by_key(|&(_, _, noisy)| noisy);
    Some(match chosen {
        Some((mv, score, _)) => Answer::Found(Found {
            pv: vec![mv.to_string()],
            score,
            depth,
            seldepth: 0,
            nodes,
            hashfull: ask.shared.tt.hashfull(),
            reported: false,
        }),
        None => Answer::NoMove,
    })
}

/// The search, at full strength or with a node-limited level's budget.
fn from_search<G: Game>(
    driver: &mut Driver<G>,
    ask: &Ask<G>,
    report: &mut dyn FnMut(&Info),
) -> Option<Answer> {
    let mut limits = ask.params.limits_for(ask.pos.side_to_move());
    if let Some(n) = limits.nodes.as_mut() {
        *n = n.saturating_sub(driver.proof_spent).max(1);
    }
    let mut threads = ask.options.threads.clamp(1, MAX_THREADS);
    if let Some(LevelPlay::Nodes(budget)) = level_play(ask.options.level) {
        // One thread, so the budget means the same on every machine.
        limits.nodes = Some(limits.nodes.map_or(budget, |n| n.min(budget)));
        threads = 1;
    }
    if driver.heuristics.len() < threads {
        driver.heuristics.resize_with(threads, Heuristics::default);
    }
    let params = SearchParams {
        limits: &limits,
        move_overhead_ms: ask.options.move_overhead_ms,
        threads,
        exact: false,
        multipv: ask.multipv,
        root_moves: &ask.root_moves,
        nets: &driver.nets,
    };
    // The best line last reported: when the search went on after it (a
    // limit or `stop` cut an iteration), one more line says what it cost.
    let mut last: Option<(u64, usize)> = None;
    let found = search::search(
        ask.pos,
        ask.keys,
        ask.shared,
        &mut driver.heuristics,
        &params,
        &mut |info| {
            if info.multipv == 1 {
                last = Some((info.nodes, info.seldepth));
            }
            report(info)
        },
    );
    Some(match found {
        Some(r) => Answer::Found(Found {
            pv: r.pv.iter().map(|m| m.to_string()).collect(),
            score: r.score,
            depth: r.depth,
            seldepth: last.map_or(0, |(_, seldepth)| seldepth),
            nodes: r.nodes,
            hashfull: ask.shared.tt.hashfull(),
            reported: last.is_some_and(|(nodes, _)| nodes >= r.nodes),
        }),
        None => Answer::NoMove,
    })
}
