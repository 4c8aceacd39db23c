//! stackfish as a StackAndConquer CPU script: the Mixtour engine alone (its
//! rules, search and networks, no other game), one turn at a time. The app
//! runs scripts in Qt's JS engine, which has no WebAssembly, so
//! `tools/build-sac-cpu.sh` builds this crate for `wasm32-unknown-unknown`
//! and converts it to plain JS with binaryen's `wasm2js`; a thin shim
//! (`js/shim.js`) reads the app's getters into one request and hands the
//! reply's move back (protocol.md, "The StackAndConquer CPU script").
//!
//! What a turn reads and answers is `stackfish_sac::cpu`; here the engine
//! plays it: a fresh session of Mixtour at the script's level, the app's
//! legal moves as `searchmoves`, bounded by nodes (the app's JS engine has
//! no clock worth the name, and the app freezes while a script thinks).
//!
//! The ABI (`abi.rs`, on `wasm32-unknown-unknown` only): `sc_alloc(len) ->
//! ptr`, a buffer for the request; `sc_init(level)`; `sc_turn(ptr, len) ->
//! len`, the reply (JSON) at `sc_out()`; `sc_bench(depth) -> len`, the
//! Mixtour part of `bench`, its lines at `sc_out()`; `sc_strength(level)
//! -> len`, the label of `strength`, at `sc_out()`. No imports.

#[cfg(all(target_family = "wasm", target_os = "unknown"))]
mod abi;
#[cfg(test)]
mod tests;

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;

use stackfish_engine::levels::{level_play, LevelPlay};
use stackfish_engine::protocol::info_score;
use stackfish_engine::{
    bench_suite, new_shaped_session, BestMove, GoParams, Options, Session, BENCH, BENCH_HASH_MB,
};
use stackfish_games::mixtour::{Mixtour, MixtourGrid, MixtourVariant};
use stackfish_sac::cpu::{Cpu, Search, Searched};
use stackfish_search::Shared;

/// The highest level a script plays at: level 20, full strength, has no
/// node budget, and a script must stop by nodes.
pub const MAX_LEVEL: u8 = 19;

/// No search of the script passes this many nodes, whatever its level
/// (the levels' own budgets stay below it: 101,000 at level 19).
pub const NODE_CAP: u64 = 200_000;

/// On every board but the standard one the engine runs its general board
/// type, whose 128-bit sets the JS engine computes in 32-bit halves: 2 to
/// 2.5 times slower a node there (measured in QJSEngine over whole games:
/// docs/stackandconquer.md). A level's node budget is divided by this much
/// on those boards, so that a move takes no longer than on the standard
/// board.
pub const OTHER_BOARD_DIVISOR: u64 = 3;

/// The script's transposition table: 1 MB holds some 65,000 entries, more
/// than a move at any script level visits, and clearing it each move costs
/// little in the app's JS engine.
pub const HASH_MB: usize = 1;

/// A Mixtour session as the native engine makes it for `mixtour`.
fn mixtour_session() -> Session {
    new_shaped_session::<Mixtour, MixtourGrid>("mixtour", MixtourVariant::STANDARD)
}

/// The script: its level, its table, and what it has logged.
pub struct Script {
    level: u8,
    shared: Arc<Shared>,
    cpu: Cpu,
}

impl Script {
    /// A script playing at `level`, brought into 1 ..= MAX_LEVEL.
    pub fn new(level: u8) -> Script {
        Script {
            level: level.clamp(1, MAX_LEVEL),
            shared: Arc::new(Shared::new(HASH_MB)),
            cpu: Cpu::default(),
        }
    }

    pub fn level(&self) -> u8 {
        self.level
    }

    /// One turn: the request the shim built from the app's getters in, the
    /// reply (`{"move": [from, count, to], "log": [...]}`) out.
    pub fn turn(&mut self, request: &str) -> String {
        let (level, shared) = (self.level, &self.shared);
        self.cpu
            .turn(request, &mut |ask| search(ask, level, shared))
            .to_json()
    }
}

/// The nodes a search may take at `level` on the standard board or
/// another: the level's own budget (a third of it on other boards), and
/// never more than `NODE_CAP`.
pub fn node_limit(level: u8, standard: bool) -> u64 {
    match level_play(level.clamp(1, MAX_LEVEL)) {
        Some(LevelPlay::Nodes(nodes)) if !standard => (nodes / OTHER_BOARD_DIVISOR).max(1),
        _ => NODE_CAP,
    }
}

/// Searches `ask` afresh (a new session, the table cleared), as `ucinewgame`,
/// `position fen`, `setoption name Level` and `go nodes <node_limit>
/// searchmoves ...` do natively: the move depends on the position and level
/// alone.
pub fn search(ask: &Search, level: u8, shared: &Arc<Shared>) -> Result<Searched, String> {
    let mut session = mixtour_session();
    session
        .set_position(Some(&ask.fen), &[])
        .map_err(|e| e.to_string())?;
    shared.tt.clear();
    shared.helper_nodes.store(0, Relaxed);
    shared.arm();
    let params = GoParams {
        nodes: Some(node_limit(level, ask.standard)),
        search_moves: ask.search_moves.clone(),
        ..GoParams::default()
    };
    let options = Options {
        level: level.clamp(1, MAX_LEVEL),
        threads: 1,
        hash_mb: HASH_MB,
        ..Options::default()
    };
    let (mut depth, mut nodes) = (0, 0);
    let best = session.go(shared, &params, &options, &mut |info| {
        (depth, nodes) = (info.depth, info.nodes);
    });
    match best {
        BestMove::Move { best, score, .. } => Ok(Searched {
            best,
            detail: format!(
                "level {level}, score {}, depth {depth}, {nodes} nodes",
                info_score(score)
            ),
        }),
        BestMove::GameOver(reason) => Err(format!("no move to search: {reason}")),
    }
}

/// The script's `// CPU strength:` label at `level`, which the app shows
/// beside the script's name: the level and how it plays.
pub fn strength(level: u8) -> String {
    let level = level.clamp(1, MAX_LEVEL);
    match level_play(level) {
        Some(LevelPlay::Nodes(nodes)) => format!(
            "stackfish level {level} of 20, {nodes} nodes a move ({} on other boards than 5 x 5)",
            node_limit(level, false)
        ),
        Some(LevelPlay::Noisy { depth, noise }) => {
            format!("stackfish level {level} of 20, {depth} ply with noise {noise}")
        }
        None => format!("stackfish level {level} of 20"),
    }
}

/// The Mixtour part of `bench` (its positions, depth 7 unless `depth`
/// says), on the script's engine: the same node count as the native
/// `bench`'s `info string bench mixtour depth 7` line. Its lines go to
/// `report`; returns the node count.
pub fn bench_mixtour(depth: Option<i32>, report: &mut dyn FnMut(&str)) -> u64 {
    let shared = Arc::new(Shared::new(BENCH_HASH_MB));
    let never = AtomicBool::new(false);
    let suite = BENCH.iter().find(|s| s.game == "mixtour");
    suite
        .and_then(|suite| {
            bench_suite(
                suite,
                depth,
                &shared,
                &never,
                &|| Some(mixtour_session()),
                report,
            )
        })
        .unwrap_or(0)
}
