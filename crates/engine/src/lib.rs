//! The engine facade: a game chosen by name at run time, its position and
//! history, options, and `go`/`stop`/new game — with no knowledge of the text
//! protocol, so the protocol loop and the web board share it.

use std::sync::Arc;
use std::time::Instant;

use rand::{Rng, SeedableRng};

pub mod protocol;

use stackfish_games::{
    perft::perft_report, with_variant, Game, Line, Outcome, Side, VariantVisitor,
};
use stackfish_search::{self as search, Heuristics, Info, Limits, SearchParams, Shared};

pub const DEFAULT_HASH_MB: usize = 16;
pub const MAX_HASH_MB: usize = 16_384;
pub const MAX_THREADS: usize = 256;
pub const DEFAULT_MOVE_OVERHEAD_MS: u64 = 10;
pub const MAX_MOVE_OVERHEAD_MS: u64 = 5_000;
pub const MAX_LEVEL: u8 = 20;
/// The most principal variations `MultiPV` may ask for.
pub const MAX_MULTIPV: usize = 8;

/// How a level below full strength plays.
#[derive(Clone, Copy, Debug, PartialEq)]
enum LevelPlay {
    /// Score every root move at `depth`, add a random amount up to `noise`
    /// to each and take the best: a beginner's errors, often and anywhere.
    /// A win in hand is never thrown away.
    Noisy { depth: i32, noise: i32 },
    /// The full search, stopped after this many nodes: it errs only where
    /// the position is too deep for it, as a stronger player does.
    Nodes(u64),
}

/// Levels 1 to 4: (depth, noise) of the noisy levels, weakest first.
/// Calibrated by matches (tournaments/log.md): at a fixed depth, root noise
/// of 25 costs about 200 Elo and 50 about 330, a ply more gains 160-380.
const NOISY_LEVELS: [(i32, i32); 4] = [(1, 400), (1, 200), (1, 100), (1, 25)];

/// The node budget of the first node-limited level (5); each level above
/// multiplies it by 1.65 (in integers: times 33/20), about 275,000 at 19,
/// which is about as smooth as strength gets.
const FIRST_LEVEL_NODES: u64 = 250;

/// How level `level` plays; `None` at 20, full strength.
fn level_play(level: u8) -> Option<LevelPlay> {
    let level = level.max(1);
    if level >= MAX_LEVEL {
        return None;
    }
    let noisy = NOISY_LEVELS.len() as u8;
    Some(match NOISY_LEVELS.get(level as usize - 1) {
        Some(&(depth, noise)) => LevelPlay::Noisy { depth, noise },
        None => {
            LevelPlay::Nodes((noisy + 1..level).fold(FIRST_LEVEL_NODES, |nodes, _| nodes * 33 / 20))
        }
    })
}

/// How many positions a game that can prove values (Silo) may explore
/// before the engine falls back to searching: small under fast clocks.
pub const PROVE_POSITIONS_FAST: usize = 20_000;
pub const PROVE_POSITIONS_SLOW: usize = 300_000;
/// From this much thinking time (ms) on, the larger budget is used.
const PROVE_SLOW_FROM_MS: u64 = 2_000;

fn prove_budget(params: &GoParams) -> usize {
    let generous = params.infinite
        || params.move_time.is_some_and(|t| t >= PROVE_SLOW_FROM_MS)
        || (params.move_time.is_none()
            && params
                .time
                .iter()
                .all(|t| t.is_none_or(|t| t >= 20 * PROVE_SLOW_FROM_MS)));
    if generous {
        PROVE_POSITIONS_SLOW
    } else {
        PROVE_POSITIONS_FAST
    }
}

/// Go parameters as sent, player-neutral.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GoParams {
    pub time: [Option<u64>; 2],
    pub inc: [Option<u64>; 2],
    pub moves_to_go: Option<u64>,
    pub move_time: Option<u64>,
    pub depth: Option<i32>,
    pub nodes: Option<u64>,
    pub infinite: bool,
    /// `searchmoves`: the root moves to consider, as sent (empty: all).
    /// `Session::check_search_moves` says which of them cannot be used.
    pub search_moves: Vec<String>,
}

impl GoParams {
    pub fn limits_for(&self, side: Side) -> Limits {
        Limits {
            time: self.time[side.index()],
            inc: self.inc[side.index()],
            moves_to_go: self.moves_to_go,
            move_time: self.move_time,
            depth: self.depth,
            nodes: self.nodes,
            infinite: self.infinite,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    pub hash_mb: usize,
    pub threads: usize,
    pub move_overhead_ms: u64,
    pub level: u8,
    /// Lines reported per iteration (the best, second best, ... root move).
    pub multipv: usize,
    /// Endgame tables (`SiloTablePath`): a position they cover is answered
    /// from them at once, at every level.
    pub tables: Option<SharedTables>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            hash_mb: DEFAULT_HASH_MB,
            threads: 1,
            move_overhead_ms: DEFAULT_MOVE_OVERHEAD_MS,
            level: MAX_LEVEL,
            multipv: 1,
            tables: None,
        }
    }
}

/// Endgame tables the engine answers from. The host supplies them (the
/// native binary maps Silo table files, see `protocol::Host`): neither the
/// rules nor this crate know of files.
pub trait EndgameTables: Send + Sync + std::fmt::Debug {
    /// The optimal line from `position` (the concrete position type behind
    /// `AnyGame::position_any`) and the plies to the end of the game:
    /// positive when the side to move wins, negative when it loses, 0 for a
    /// draw. `None` when no table covers the position.
    fn probe(&self, position: &dyn std::any::Any) -> Option<(Vec<String>, i32)>;
    /// One line per table loaded, for the option's report.
    fn describe(&self) -> Vec<String>;
}

/// Reads the tables of a folder: the tables and a note per file skipped.
pub type TableLoader =
    fn(&std::path::Path) -> Result<(Arc<dyn EndgameTables>, Vec<String>), String>;

/// The tables of one folder, shared by the engine's searches (loaded once).
#[derive(Clone, Debug)]
pub struct SharedTables {
    pub folder: std::path::PathBuf,
    pub set: Arc<dyn EndgameTables>,
}

impl PartialEq for SharedTables {
    /// The same loaded set, not merely the same folder name.
    fn eq(&self, other: &SharedTables) -> bool {
        Arc::ptr_eq(&self.set, &other.set)
    }
}

impl Eq for SharedTables {}

impl SharedTables {
    /// Loads the tables of `folder` with `load`; also returns a note per
    /// file skipped.
    pub fn open(
        folder: &std::path::Path,
        load: TableLoader,
    ) -> Result<(SharedTables, Vec<String>), String> {
        let (set, notes) = load(folder)?;
        Ok((
            SharedTables {
                folder: folder.to_path_buf(),
                set,
            },
            notes,
        ))
    }
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

/// What a search produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BestMove {
    Move {
        best: String,
        score: i32,
        pv: Vec<String>,
    },
    /// The game is over: there is nothing to play.
    GameOver(&'static str),
}

/// One game of one variant, as the engine holds it.
pub trait Session: Send {
    fn variant(&self) -> &'static str;
    /// Forget the previous game: position back to the start, heuristics cleared.
    fn new_game(&mut self);
    /// `fen = None` is the start position. Atomic: on error nothing changes.
    fn set_position(&mut self, fen: Option<&str>, moves: &[&str]) -> Result<(), String>;
    fn go(
        &mut self,
        shared: &Arc<Shared>,
        params: &GoParams,
        options: &Options,
        report: &mut dyn FnMut(&Info),
    ) -> BestMove;
    fn perft(&self, depth: u32, divide: bool) -> String;
    fn display(&self) -> String;
    fn fen(&self) -> String;
    fn outcome(&self) -> Outcome;
    fn side_to_move(&self) -> Side;
    fn legal_moves(&self) -> Vec<String>;
    /// What is wrong with a `searchmoves` list in the current position: one
    /// message per move that is malformed or illegal (`go` ignores those),
    /// and one more if no move of the list is legal (`go` then searches
    /// every move). Empty when the list is fine, empty, or the game is over.
    fn check_search_moves(&self, moves: &[String]) -> Vec<String>;
}

pub struct GameSession<G: Game> {
    name: &'static str,
    line: Line<G>,
    heuristics: Vec<Heuristics>,
    games_started: u64,
}

impl<G: Game> GameSession<G> {
    pub fn new(name: &'static str, variant: G::Variant) -> GameSession<G> {
        GameSession {
            name,
            line: Line::new(variant),
            heuristics: vec![Heuristics::default()],
            games_started: 0,
        }
    }

    pub fn line(&self) -> &Line<G> {
        &self.line
    }

    /// The legal moves of a `searchmoves` list (duplicates dropped) and
    /// what is wrong with the list (see `Session::check_search_moves`).
    fn resolve_search_moves(&self, texts: &[String]) -> (Vec<G::Move>, Vec<String>) {
        let (mut moves, mut errors) = (Vec::new(), Vec::new());
        if texts.is_empty() || self.line.outcome().is_over() {
            return (moves, errors);
        }
        let pos = self.line.position();
        for text in texts {
            match stackfish_games::find_legal(pos, text) {
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

    /// A noisy level: score every root move at a shallow depth, add noise,
    /// pick the best of the noisy scores.
    fn go_noisy(
        &mut self,
        shared: &Arc<Shared>,
        params: &GoParams,
        options: &Options,
        (depth, noise): (i32, i32),
        root_moves: &[G::Move],
    ) -> Option<(G::Move, i32, u64)> {
        let pos = self.line.position();
        let limits = Limits {
            depth: Some(params.depth.map_or(depth, |d| d.min(depth))),
            ..params.limits_for(pos.side_to_move())
        };
        let (scores, nodes) = search::root_scores(
            pos,
            self.line.keys(),
            shared,
            &mut self.heuristics[0],
            &limits,
            options.move_overhead_ms,
            root_moves,
        );
        // Seeded by position and game so that a match is reproducible.
        let seed = pos.hash() ^ self.games_started.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        scores
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
            .max_by_key(|&(_, _, noisy)| noisy)
            .map(|(mv, s, _)| (mv, s, nodes))
    }
}

impl<G: Game> Session for GameSession<G> {
    fn variant(&self) -> &'static str {
        self.name
    }

    fn new_game(&mut self) {
        self.line = Line::new(self.line.variant().clone());
        for h in &mut self.heuristics {
            h.clear();
        }
        self.games_started += 1;
    }

    fn set_position(&mut self, fen: Option<&str>, moves: &[&str]) -> Result<(), String> {
        let variant = self.line.variant().clone();
        let mut line = match fen {
            Some(fen) => Line::<G>::from_fen(variant, fen).map_err(|e| e.to_string())?,
            None => Line::<G>::new(variant),
        };
        for (i, text) in moves.iter().enumerate() {
            line.play_text(text)
                .map_err(|e| format!("{e} (move {} of the list)", i + 1))?;
        }
        self.line = line;
        Ok(())
    }

    fn go(
        &mut self,
        shared: &Arc<Shared>,
        params: &GoParams,
        options: &Options,
        report: &mut dyn FnMut(&Info),
    ) -> BestMove {
        if let Outcome::Over { reason, .. } = self.line.outcome() {
            return BestMove::GameOver(reason);
        }
        let pos = self.line.position().clone();
        let (root_moves, _) = self.resolve_search_moves(&params.search_moves);
        let multipv = options.multipv.clamp(1, MAX_MULTIPV);
        // A table or a proof names one best move of all: not for several
        // lines or a restricted root.
        let whole_root = multipv == 1 && root_moves.is_empty();
        if let Some(tables) = options.tables.as_ref().filter(|_| whole_root) {
            let start = Instant::now();
            if let Some((line, plies)) = tables.set.probe(&pos as &dyn std::any::Any) {
                // The table's value: the fastest win or the slowest loss,
                // with the whole optimal line.
                return answer_one_move(
                    report,
                    Info {
                        multipv: 1,
                        depth: plies.unsigned_abs() as i32,
                        seldepth: line.len(),
                        score: proven_score(plies),
                        nodes: 0,
                        time_ms: start.elapsed().as_millis() as u64,
                        hashfull: 0,
                        pv: line,
                    },
                );
            }
        }
        let proof = if whole_root {
            pos.prove(prove_budget(params))
        } else {
            None
        };
        if let Some((mv, plies)) = proof {
            // A proven value: the fastest win, or the slowest loss.
            let score = proven_score(plies);
            return answer_one_move(
                report,
                Info {
                    multipv: 1,
                    depth: plies.unsigned_abs() as i32,
                    seldepth: plies.unsigned_abs() as usize,
                    score,
                    nodes: 0,
                    time_ms: 0,
                    hashfull: 0,
                    pv: vec![mv.to_string()],
                },
            );
        }
        let mut limits = params.limits_for(pos.side_to_move());
        let mut threads = options.threads.clamp(1, MAX_THREADS);
        match level_play(options.level) {
            Some(LevelPlay::Noisy { depth, noise }) => {
                let start = Instant::now();
                return match self.go_noisy(shared, params, options, (depth, noise), &root_moves) {
                    Some((mv, score, nodes)) => answer_one_move(
                        report,
                        Info {
                            multipv: 1,
                            depth,
                            seldepth: 0,
                            score,
                            nodes,
                            time_ms: start.elapsed().as_millis() as u64,
                            hashfull: shared.tt.hashfull(),
                            pv: vec![mv.to_string()],
                        },
                    ),
                    None => BestMove::GameOver("no legal move"),
                };
            }
            Some(LevelPlay::Nodes(budget)) => {
                // One thread, so the budget means the same on every machine.
                limits.nodes = Some(limits.nodes.map_or(budget, |n| n.min(budget)));
                threads = 1;
            }
            None => {}
        }
        if self.heuristics.len() < threads {
            self.heuristics.resize_with(threads, Heuristics::default);
        }
        let search_params = SearchParams {
            limits: &limits,
            move_overhead_ms: options.move_overhead_ms,
            threads,
            exact: false,
            multipv,
            root_moves: &root_moves,
        };
        match search::search(
            &pos,
            self.line.keys(),
            shared,
            &mut self.heuristics,
            &search_params,
            report,
        ) {
            Some(r) => BestMove::Move {
                best: r.best.to_string(),
                score: r.score,
                pv: r.pv.iter().map(|m| m.to_string()).collect(),
            },
            None => BestMove::GameOver("no legal move"),
        }
    }

    fn perft(&self, depth: u32, divide: bool) -> String {
        perft_report(self.line.position(), depth, divide)
    }

    fn display(&self) -> String {
        let mut text = self.line.position().pretty();
        if let Outcome::Over { result, reason } = self.line.outcome() {
            text.push_str(&format!("Game over: {} ({reason})\n", result.pgn()));
        }
        text
    }

    fn fen(&self) -> String {
        self.line.position().fen()
    }

    fn outcome(&self) -> Outcome {
        self.line.outcome()
    }

    fn side_to_move(&self) -> Side {
        self.line.position().side_to_move()
    }

    fn legal_moves(&self) -> Vec<String> {
        if self.line.outcome().is_over() {
            return Vec::new();
        }
        let mut moves = Vec::new();
        self.line.position().generate_moves(&mut moves);
        moves.iter().map(|m| m.to_string()).collect()
    }

    fn check_search_moves(&self, moves: &[String]) -> Vec<String> {
        self.resolve_search_moves(moves).1
    }
}

struct NewSession;

impl VariantVisitor for NewSession {
    type Output = Box<dyn Session>;
    fn visit<G: Game>(self, name: &'static str, variant: G::Variant) -> Box<dyn Session> {
        Box::new(GameSession::<G>::new(name, variant))
    }

    fn visit_shaped<F: Game, G: Game<Variant = F::Variant>>(
        self,
        name: &'static str,
        variant: G::Variant,
    ) -> Box<dyn Session> {
        Box::new(ShapedSession::<F, G>::Fast(GameSession::new(name, variant)))
    }
}

/// The session of a game played on boards of many shapes (Mixtour): on the
/// fast type `F` while the position is on its standard board, on the
/// general type `G` as soon as a position string gives another board, and
/// back on `F` for a new game. A switch starts the search heuristics afresh.
enum ShapedSession<F: Game, G: Game<Variant = F::Variant>> {
    Fast(GameSession<F>),
    General(GameSession<G>),
}

impl<F: Game, G: Game<Variant = F::Variant>> ShapedSession<F, G> {
    fn active(&self) -> &dyn Session {
        match self {
            ShapedSession::Fast(s) => s,
            ShapedSession::General(s) => s,
        }
    }

    fn active_mut(&mut self) -> &mut dyn Session {
        match self {
            ShapedSession::Fast(s) => s,
            ShapedSession::General(s) => s,
        }
    }

    fn name_and_variant(&self) -> (&'static str, F::Variant) {
        match self {
            ShapedSession::Fast(s) => (s.name, s.line.variant().clone()),
            ShapedSession::General(s) => (s.name, s.line.variant().clone()),
        }
    }
}

impl<F: Game, G: Game<Variant = F::Variant>> Session for ShapedSession<F, G> {
    fn variant(&self) -> &'static str {
        self.active().variant()
    }

    fn new_game(&mut self) {
        if let ShapedSession::General(_) = self {
            let (name, variant) = self.name_and_variant();
            *self = ShapedSession::Fast(GameSession::new(name, variant));
        }
        self.active_mut().new_game();
    }

    fn set_position(&mut self, fen: Option<&str>, moves: &[&str]) -> Result<(), String> {
        fn fresh<T: Game>(
            (name, variant): (&'static str, T::Variant),
            fen: Option<&str>,
            moves: &[&str],
        ) -> Result<GameSession<T>, String> {
            let mut s = GameSession::new(name, variant);
            s.set_position(fen, moves)?;
            Ok(s)
        }
        let (name, variant) = self.name_and_variant();
        let fast = fen.is_none_or(|fen| F::from_fen(&variant, fen).is_ok());
        match (fast, &mut *self) {
            (true, ShapedSession::Fast(s)) => s.set_position(fen, moves),
            (false, ShapedSession::General(s)) => s.set_position(fen, moves),
            (true, ShapedSession::General(_)) => {
                *self = ShapedSession::Fast(fresh((name, variant), fen, moves)?);
                Ok(())
            }
            (false, ShapedSession::Fast(_)) => {
                *self = ShapedSession::General(fresh((name, variant), fen, moves)?);
                Ok(())
            }
        }
    }

    fn go(
        &mut self,
        shared: &Arc<Shared>,
        params: &GoParams,
        options: &Options,
        report: &mut dyn FnMut(&Info),
    ) -> BestMove {
        self.active_mut().go(shared, params, options, report)
    }

    fn perft(&self, depth: u32, divide: bool) -> String {
        self.active().perft(depth, divide)
    }

    fn display(&self) -> String {
        self.active().display()
    }

    fn fen(&self) -> String {
        self.active().fen()
    }

    fn outcome(&self) -> Outcome {
        self.active().outcome()
    }

    fn side_to_move(&self) -> Side {
        self.active().side_to_move()
    }

    fn legal_moves(&self) -> Vec<String> {
        self.active().legal_moves()
    }

    fn check_search_moves(&self, moves: &[String]) -> Vec<String> {
        self.active().check_search_moves(moves)
    }
}

/// A session for variant `name` at its start position.
pub fn new_session(name: &str) -> Option<Box<dyn Session>> {
    with_variant(name, NewSession)
}

/// Reports `info`, a line of one move found without the search (a proof,
/// a noisy level), and answers that move.
fn answer_one_move(report: &mut dyn FnMut(&Info), info: Info) -> BestMove {
    report(&info);
    BestMove::Move {
        best: info.pv[0].clone(),
        score: info.score,
        pv: info.pv,
    }
}

/// Allocates a transposition table of `mb` MB, or says why it cannot.
pub fn allocate_shared(mb: usize) -> Result<Arc<Shared>, String> {
    if !(1..=MAX_HASH_MB).contains(&mb) {
        return Err(format!("Hash must be 1 to {MAX_HASH_MB} MB"));
    }
    Ok(Arc::new(Shared::new(mb)))
}

/// One game's share of `bench`: positions searched to a depth chosen so each
/// game takes a comparable part of the run.
pub struct BenchSuite {
    pub game: &'static str,
    pub depth: i32,
    pub positions: &'static [&'static str],
}

/// The bench suites, Mixtour first: varied positions of every searching game
/// (openings, middlegames, towers in reach, low reserves, captures near the
/// Coin Stack goal, a five-point Mixtour game, Castle after first contact).
/// Silo is left out: its engine proves values rather than searching.
pub const BENCH: [BenchSuite; 4] = [
    BenchSuite {
        game: "mixtour",
        depth: 7,
        positions: &[
            "x5/x5/x5/x5/x5 1 20,20 0,0 1 -",
            "x5/x5/x2,1,x2/x5/x5 2 19,20 0,0 1 c3",
            "x5/x,2,x3/x2,1,x2/x3,1,x/x5 2 18,19 0,0 1 d2",
            "x,1,x3/x4,22/x2,221,x2/2,2,x2,2211/11,x4 1 14,12 0,0 1 c1c3",
            "x2,22,x2/1,x2,21,x/x,2,x,2,21/1212,x4/x3,1,x 1 14,12 0,0 1 b3",
            "x,2,2,x2/x5/x2,1121,2221,x/2122,212,x,11,x/x2,11,x2 1 10,9 0,0 1 c2d2",
            "x5/2211,x4/x5/x2,1,x2/x,11,x2,12 1 14,17 0,0 1 d4a4",
            "x3,11,x/x,22,x3/x5/x,2,2,x2/211,x3,1 1 15,15 0,0 1 b2",
            "x,2,x2,2122/x,1,x3/x,1121,x3/x5/x2,111,x,2 1 12,14 0,0 1 b5",
            "x2,21,x2/x5/x,2112,x3/x4,11/11,2112,x3 1 11,15 0,0 1 e1e2",
            "x4,21/x3,221,x/x5/x,212,x3/2,x2,2222,x 1 17,10 0,0 1 b4d4",
            "x,222,x,1212,x/x3,2212,x/x3,111,x/x5/x4,122 1 13,10 0,0 1 a1d4",
            "x3,12,x/x4,12/112,x4/x3,1,x/122,112,x2,21 1 11,13 0,0 1 d5e4",
            "12,x3,21/x5/x2,1,x2/x5/21,x3,12 1 11,10 2,3 5 -",
        ],
    },
    BenchSuite {
        game: "coinstack",
        depth: 7,
        positions: &[
            "x4/2,2,1,1,2,2/x,1,1,2,2,1,1,x/x,2,2,1,1,2,2,x/x,1,1,2,2,1,1,x/x,2,2,1,1,2,2,x/1,1,2,2,1,1/x4 1 0,0 0,0",
            "x4/2,2,1,112,2,x/x,1,1,2,2211,12,1,x/x,2,2,x2,21,2,x/x4,21,1,x2/x3,1,1,2,2,x/1122,x2,2,1,1/x4 1 0,0 0,0",
            "x4/x3,112,x2/x,12,122,2,211,12212,1,x/x,12,2,x2,21,x2/12,x,21,x5/x,21,x2,1,x,21,x/x6/x4 1 0,0 2,2",
            "x4/x6/x2,122,x,211,2,x2/x,12,x3,21,x2/12,x,2,12,x2,1,11212/x,2121,x6/x4,212,x/x4 1 0,1 2,4",
            "x,112,x2/22121,2,12,x3/x,1,212,2,x,1212,12,x/x8/x,12,1,21,x4/x2,21,x3,21,x/x,1121,x4/x4 1 0,0 1,0",
            "x4/1,x,12,122,x2/2,x7/1,x2,21212,21,x3/x3,12,1,121,x2/x4,221,x,21,x/x,112,x4/21,x3 1 0,0 3,2",
        ],
    },
    BenchSuite {
        game: "focus",
        depth: 6,
        positions: &[
            "x4/2,2,1,1,2,2/x,1,1,2,2,1,1,x/x,2,2,1,1,2,2,x/x,1,1,2,2,1,1,x/x,2,2,1,1,2,2,x/1,1,2,2,1,1/x4 1 0,0 0,0",
            "x4/2,2,1,1,2,2/x,1,1,x,221,1,1,x/x,2,2,12,1,2,2,x/x,1,1,2,x4/x2,2212,1,121,212,x2/1,x4,1/x4 1 0,0 0,0",
            "x4/2,2,1,x,212,x/x4,2,1,1,x/x,21,21,x,1,2,2,x/x,1,x,2,x4/x3,112,21212,x3/1,x4,1/x4 1 0,1 3,4",
            "x4/x,2,1221,1,x,2/x,12,x,12,x2,12,x/x2,1,x2,211,x2/x,1,x,21,21,x3/x5,2121,x2/x,2212,x,2112,x,1/x4 1 0,0 1,0",
            "x4/2,2,112,x,2,x/x3,2,x,11,x2/x,21,x,1,x2,21,x/x4,212,2121,112,x/x,2,2,112,x2,2,x/1,1,x2,121,x/x4 1 0,1 0,0",
            "x4/2,x5/x3,221,x,1121,x2/x,2,x,11,x2,21,x/x6,1,x/x2,21,11,x4/x3,22112,x2/x4 1 0,3 5,5",
        ],
    },
    BenchSuite {
        game: "castle",
        depth: 9,
        positions: &[
            "x19/x9,2,x9/x19/x19/x19/x19/x6,2,x5,2,x6/x6,2,x,2,2,2,x,2,x6/x19/x19/x19/x6,1,x,1,1,1,x,1,x6/x6,1,x5,1,x6/x19/x19/x19/x19/x9,1,x9/x19 1 8,8 q9,c11,h10,l10 0",
            "x19/x9,2,x9/x19/x19/x7,2,x11/x19/x7,2,x4,2,x6/x8,2,2,2,x,2,x6/x19/x19/x19/x7,1,1,1,1,x,1,x6/x6,1,x6,1,x5/x19/x19/x19/x19/x6,1,x12/x19 1 7,7 q9,c11,h10,l10 6",
            "x19/x9,2,x9/x19/x13,1,x5/x7,2,x11/x19/x8,2,x2,2,x7/x8,2,x,2,x,2,x6/x19/x19/x19/x7,2,1,1,1,x8/x7,1,x3,1,x7/x19/x19/x19/x19/x6,1,x12/x19 1 6,4 q9,c11,h10,l10 14",
            "x19/x9,2,x9/x19/x11,2,x7/x6,2,x12/x19/x11,2,x7/x6,2,x,2,x,2,x,2,x6/x19/x19/x19/x7,1,1,1,x9/x5,1,x,1,x3,1,1,x6/x19/x19/x19/x19/x19/x9,1,x9 1 7,6 l9,h11,d10,p10 14",
        ],
    },
];
pub const BENCH_HASH_MB: usize = 16;

/// What `bench` measured.
pub struct BenchResult {
    pub nodes: u64,
    pub ms: u64,
}

impl BenchResult {
    /// The last line of `bench`, the same in the protocol and on the
    /// command line: `<nodes> nodes <nps> nps`.
    pub fn summary(&self) -> String {
        format!(
            "{} nodes {} nps",
            self.nodes,
            self.nodes * 1000 / self.ms.max(1)
        )
    }
}

/// Searches every bench position with one thread and a fresh 16 MB table,
/// each suite to its own depth or all to `depth` when given. Reports one
/// line per position and one per game; the node count is deterministic.
pub fn bench(depth: Option<i32>, report: &mut dyn FnMut(&str)) -> BenchResult {
    let start = Instant::now();
    let mut total = 0;
    for suite in &BENCH {
        let depth = depth.unwrap_or(suite.depth).clamp(1, search::MAX_DEPTH);
        let mut game_nodes = 0;
        for (i, fen) in suite.positions.iter().enumerate() {
            let mut session = new_session(suite.game).expect("bench games are registered");
            if let Err(e) = session.set_position(Some(fen), &[]) {
                report(&format!(
                    "info string error: bench {} position {}: {e}",
                    suite.game,
                    i + 1
                ));
                continue;
            }
            let shared = Arc::new(Shared::new(BENCH_HASH_MB));
            let params = GoParams {
                depth: Some(depth),
                ..GoParams::default()
            };
            let mut nodes = 0;
            let best = session.go(&shared, &params, &Options::default(), &mut |info| {
                nodes = info.nodes
            });
            let best = match best {
                BestMove::Move { best, .. } => best,
                BestMove::GameOver(r) => format!("none ({r})"),
            };
            report(&format!(
                "info string bench {} position {:2}: bestmove {best} nodes {nodes}",
                suite.game,
                i + 1
            ));
            game_nodes += nodes;
        }
        report(&format!(
            "info string bench {} depth {depth}: {game_nodes} nodes",
            suite.game
        ));
        total += game_nodes;
    }
    BenchResult {
        nodes: total,
        ms: start.elapsed().as_millis() as u64,
    }
}

#[cfg(test)]
mod boards;

#[cfg(test)]
mod tests {
    use super::*;
    use stackfish_games::silo::{solve, Silo, SiloVariant};

    fn go_at_level(fen: &str, level: u8, params: &GoParams) -> (String, u64) {
        let mut session = new_session("mixtour").unwrap();
        session.set_position(Some(fen), &[]).unwrap();
        let shared = allocate_shared(1).unwrap();
        let options = Options {
            level,
            threads: 2,
            ..Options::default()
        };
        let mut nodes = 0;
        let best = session.go(&shared, params, &options, &mut |info| nodes = info.nodes);
        match best {
            BestMove::Move { best, .. } => (best, nodes),
            BestMove::GameOver(r) => panic!("no move at level {level}: {r}"),
        }
    }

    #[test]
    fn every_level_takes_a_win_in_one() {
        // 4a1b1 completes a tower of five topped by player 1: the game.
        let fen = "x5/x5/x5/x5/1111,1,x3 1 10,10 0,0 1 -";
        for level in 1..=MAX_LEVEL {
            let params = GoParams {
                move_time: Some(2_000),
                ..GoParams::default()
            };
            assert_eq!(go_at_level(fen, level, &params).0, "4a1b1", "level {level}");
        }
    }

    #[test]
    fn node_levels_keep_to_their_budget_on_one_thread() {
        let fen = "x3,11,x/x,22,x3/x5/x,2,2,x2/211,x3,1 1 15,15 0,0 1 b2";
        let mut last = 0;
        for level in 1..MAX_LEVEL {
            let Some(LevelPlay::Nodes(budget)) = level_play(level) else {
                continue;
            };
            assert!(
                budget > last,
                "level {level} is no deeper than the one below"
            );
            last = budget;
            let params = GoParams {
                move_time: Some(10_000),
                ..GoParams::default()
            };
            let (_, nodes) = go_at_level(fen, level, &params);
            assert!(nodes <= budget, "level {level}: {nodes} nodes > {budget}");
            // A tighter `go nodes` still wins over the level's budget.
            let params = GoParams {
                nodes: Some(100),
                ..params
            };
            assert!(go_at_level(fen, level, &params).1 <= 100, "level {level}");
        }
        assert!(last > 0, "no node-limited level");
    }

    #[test]
    fn searchmoves_bind_every_level_and_bad_entries_are_named() {
        let fen = "x3,11,x/x,22,x3/x5/x,2,2,x2/211,x3,1 1 15,15 0,0 1 b2";
        let params = GoParams {
            depth: Some(3),
            search_moves: vec!["e5".into(), "zz9".into(), "a5".into(), "e5".into()],
            ..GoParams::default()
        };
        for level in [1, 3, 8, MAX_LEVEL] {
            let (best, _) = go_at_level(fen, level, &params);
            assert!(best == "e5" || best == "a5", "level {level}: {best}");
        }
        let mut session = new_session("mixtour").unwrap();
        session.set_position(Some(fen), &[]).unwrap();
        let errors = session.check_search_moves(&params.search_moves);
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(errors[0].contains("'zz9'"), "{errors:?}");
        let errors = session.check_search_moves(&["b2".into()]);
        assert_eq!(
            errors.len(),
            2,
            "b2 is taken: illegal, and then none is left"
        );
        assert!(session.check_search_moves(&[]).is_empty());
    }

    /// Plays `moves` out of the engine at 1x4 and checks each against the
    /// solver's table: the winner keeps the fastest win, the loser the
    /// slowest loss.
    #[test]
    fn silo_positions_within_the_budget_are_played_perfectly() {
        let fen = "11/22/11/22 1";
        let root = Silo::from_fen(&SiloVariant::STANDARD, fen).unwrap();
        let table = solve::solve(&root, &solve::SolveLimits::default())
            .unwrap()
            .table;
        let mut session = new_session("silo").unwrap();
        session.set_position(Some(fen), &[]).unwrap();
        let shared = allocate_shared(1).unwrap();
        let mut played: Vec<String> = Vec::new();
        let mut pos = root;
        while !pos.outcome().is_over() {
            let params = GoParams {
                move_time: Some(50),
                ..GoParams::default()
            };
            let BestMove::Move { best, score, .. } =
                session.go(&shared, &params, &Options::default(), &mut |_| {})
            else {
                panic!("no move in {}", pos.fen())
            };
            let expected = table.value(&pos).unwrap();
            let mv = stackfish_games::find_legal(&pos, &best).unwrap();
            let mut child = pos;
            child.play(mv);
            assert_eq!(
                table.value(&child).unwrap().parent(),
                expected,
                "{best} in {} is not optimal",
                pos.fen()
            );
            let plies = expected.plies().unwrap() as i32;
            let want = if matches!(expected, solve::Value::Win(_)) {
                search::WIN - plies
            } else {
                -(search::WIN - plies)
            };
            assert_eq!(score, want);
            played.push(best);
            pos = child;
            let moves: Vec<&str> = played.iter().map(String::as_str).collect();
            session.set_position(Some(fen), &moves).unwrap();
        }
        assert_eq!(played.len(), 31, "the first player wins 1x4 in 31 plies");
    }
}
