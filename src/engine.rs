//! The engine facade: a game chosen by name at run time, its position and
//! history, options, and `go`/`stop`/new game — with no knowledge of the text
//! protocol, so the protocol loop and the web board share it.

use std::sync::Arc;
use std::time::Instant;

use rand::{Rng, SeedableRng};

use crate::game::{perft::perft_report, with_variant, Game, Line, Outcome, Side, VariantVisitor};
use crate::search::{self, Heuristics, Info, Limits, SearchParams, Shared};

pub const DEFAULT_HASH_MB: usize = 16;
pub const MAX_HASH_MB: usize = 16_384;
pub const MAX_THREADS: usize = 256;
pub const DEFAULT_MOVE_OVERHEAD_MS: u64 = 10;
pub const MAX_MOVE_OVERHEAD_MS: u64 = 5_000;
pub const MAX_LEVEL: u8 = 20;

/// Weaker levels search to this depth (index = level) ...
const LEVEL_DEPTH: [i32; MAX_LEVEL as usize] =
    [1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 7, 7, 8];
/// ... and add a random amount up to this many score units to each root
/// move's score before choosing, so they err like a person: often at level
/// 1, rarely and only slightly at 19. A win in hand is never thrown away.
const LEVEL_NOISE: [i32; MAX_LEVEL as usize] = [
    400, 340, 290, 250, 210, 180, 150, 125, 105, 90, 75, 62, 50, 40, 32, 25, 18, 12, 8, 4,
];

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
}

impl Default for Options {
    fn default() -> Self {
        Options {
            hash_mb: DEFAULT_HASH_MB,
            threads: 1,
            move_overhead_ms: DEFAULT_MOVE_OVERHEAD_MS,
            level: MAX_LEVEL,
        }
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

    /// A weaker level: score every root move at a shallow depth, add noise,
    /// pick the best of the noisy scores.
    fn go_level(
        &mut self,
        shared: &Arc<Shared>,
        params: &GoParams,
        options: &Options,
    ) -> Option<(G::Move, i32, u64)> {
        let level = options.level.clamp(1, MAX_LEVEL) as usize;
        let pos = self.line.position();
        let limits = Limits {
            depth: Some(
                params
                    .depth
                    .map_or(LEVEL_DEPTH[level - 1], |d| d.min(LEVEL_DEPTH[level - 1])),
            ),
            ..params.limits_for(pos.side_to_move())
        };
        let (scores, nodes) = search::root_scores(
            pos,
            self.line.keys(),
            shared,
            &mut self.heuristics[0],
            &limits,
            options,
        );
        // Seeded by position and game so that a match is reproducible.
        let seed = pos.hash() ^ self.games_started.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let noise = LEVEL_NOISE[level - 1];
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
        if let Some((mv, plies)) = pos.prove(prove_budget(params)) {
            // A proven value: the fastest win, or the slowest loss.
            let score = match plies {
                0 => 0,
                p if p > 0 => search::WIN - p,
                p => -(search::WIN + p),
            };
            report(&Info {
                depth: plies.unsigned_abs() as i32,
                seldepth: plies.unsigned_abs() as usize,
                score,
                nodes: 0,
                time_ms: 0,
                hashfull: 0,
                pv: vec![mv.to_string()],
            });
            return BestMove::Move {
                best: mv.to_string(),
                score,
                pv: vec![mv.to_string()],
            };
        }
        if options.level < MAX_LEVEL {
            let start = Instant::now();
            return match self.go_level(shared, params, options) {
                Some((mv, score, nodes)) => {
                    report(&Info {
                        depth: LEVEL_DEPTH[options.level.clamp(1, MAX_LEVEL) as usize - 1],
                        seldepth: 0,
                        score,
                        nodes,
                        time_ms: start.elapsed().as_millis() as u64,
                        hashfull: shared.tt.hashfull(),
                        pv: vec![mv.to_string()],
                    });
                    BestMove::Move {
                        best: mv.to_string(),
                        score,
                        pv: vec![mv.to_string()],
                    }
                }
                None => BestMove::GameOver("no legal move"),
            };
        }
        let threads = options.threads.clamp(1, MAX_THREADS);
        if self.heuristics.len() < threads {
            self.heuristics.resize_with(threads, Heuristics::default);
        }
        let limits = params.limits_for(pos.side_to_move());
        let search_params = SearchParams {
            limits: &limits,
            move_overhead_ms: options.move_overhead_ms,
            threads,
            exact: false,
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
}

struct NewSession;

impl VariantVisitor for NewSession {
    type Output = Box<dyn Session>;
    fn visit<G: Game>(self, name: &'static str, variant: G::Variant) -> Box<dyn Session> {
        Box::new(GameSession::<G>::new(name, variant))
    }
}

/// A session for variant `name` at its start position.
pub fn new_session(name: &str) -> Option<Box<dyn Session>> {
    with_variant(name, NewSession)
}

/// Allocates a transposition table of `mb` MB, or says why it cannot.
pub fn allocate_shared(mb: usize) -> Result<Arc<Shared>, String> {
    if !(1..=MAX_HASH_MB).contains(&mb) {
        return Err(format!("Hash must be 1 to {MAX_HASH_MB} MB"));
    }
    Ok(Arc::new(Shared::new(mb)))
}

/// The bench positions: varied Mixtour positions (opening, middlegame,
/// towers in reach, low reserves, a five-point game).
pub const BENCH_POSITIONS: [&str; 14] = [
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
];
pub const BENCH_DEPTH: i32 = 7;
pub const BENCH_HASH_MB: usize = 16;

/// Searches every bench position to `depth` with one thread and a fresh
/// 16 MB table; returns (nodes, milliseconds). Deterministic node count.
pub fn bench(depth: i32, report: &mut dyn FnMut(&str)) -> (u64, u64) {
    let start = Instant::now();
    let mut total = 0;
    for (i, fen) in BENCH_POSITIONS.iter().enumerate() {
        let mut session = new_session("mixtour").expect("mixtour is registered");
        if let Err(e) = session.set_position(Some(fen), &[]) {
            report(&format!("info string error: bench position {}: {e}", i + 1));
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
            "info string bench position {:2}: bestmove {best} nodes {nodes}",
            i + 1
        ));
        total += nodes;
    }
    (total, start.elapsed().as_millis() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::silo::{solve, Silo, SiloVariant};

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
            let mv = crate::game::find_legal(&pos, &best).unwrap();
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
