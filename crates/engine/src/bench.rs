//! `bench`: a fixed set of positions searched to fixed depths, whose node
//! count is the signature of the search (every commit that changes it says
//! `Bench: <nodes>`).

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;

use stackfish_search::seam::Instant;
use stackfish_search::{self as search, Shared};

use crate::{new_session_with, BestMove, GoParams, Networks, Options, Session};

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
/// line per position and one per game; the node count is deterministic
/// (for a set of `networks`: the built-in ones give the signature).
pub fn bench(depth: Option<i32>, networks: &Networks, report: &mut dyn FnMut(&str)) -> BenchResult {
    let shared = Arc::new(Shared::new(BENCH_HASH_MB));
    let never = AtomicBool::new(false);
    bench_until(depth, &shared, &never, networks, report).unwrap_or(BenchResult { nodes: 0, ms: 0 })
}

/// `bench` on `shared`'s table (cleared before each position, so the count
/// is the same as with a fresh one), given up (`None`) once `stopped` is
/// set. Whoever sets `stopped` also sets `shared.stop`, to cut the search
/// running. Every session plays its game's networks of `networks`.
pub fn bench_until(
    depth: Option<i32>,
    shared: &Arc<Shared>,
    stopped: &AtomicBool,
    networks: &Networks,
    report: &mut dyn FnMut(&str),
) -> Option<BenchResult> {
    let start = Instant::now();
    let mut total = 0;
    for suite in &BENCH {
        let session = || new_session_with(suite.game, networks);
        total += bench_suite(suite, depth, shared, stopped, &session, report)?;
    }
    Some(BenchResult {
        nodes: total,
        ms: start.elapsed().as_millis() as u64,
    })
}

/// One game's part of `bench`, each position searched by a fresh session
/// from `session` (`new_session_with` of the suite's game; a host that carries
/// that game alone makes its own, `new_shaped_session`) to the suite's
/// depth or `depth`. Reports a line per position and one for the game;
/// returns the game's node count, `None` once `stopped` is set.
pub fn bench_suite(
    suite: &BenchSuite,
    depth: Option<i32>,
    shared: &Arc<Shared>,
    stopped: &AtomicBool,
    session: &dyn Fn() -> Option<Session>,
    report: &mut dyn FnMut(&str),
) -> Option<u64> {
    let depth = depth.unwrap_or(suite.depth).clamp(1, search::MAX_DEPTH);
    let mut game_nodes = 0;
    for (i, fen) in suite.positions.iter().enumerate() {
        let Some(mut session) = session() else {
            report(&format!(
                "info string error: bench: unknown game {}",
                suite.game
            ));
            continue;
        };
        if let Err(e) = session.set_position(Some(fen), &[]) {
            report(&format!(
                "info string error: bench {} position {}: {e}",
                suite.game,
                i + 1
            ));
            continue;
        }
        shared.tt.clear();
        shared.helper_nodes.store(0, Relaxed);
        shared.arm();
        // A stop before `arm` is seen here, one after it by the search.
        if stopped.load(Relaxed) {
            return None;
        }
        let params = GoParams {
            depth: Some(depth),
            ..GoParams::default()
        };
        let mut nodes = 0;
        let best = session.go(shared, &params, &Options::default(), &mut |info| {
            nodes = info.nodes
        });
        if stopped.load(Relaxed) {
            return None;
        }
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
    Some(game_nodes)
}
