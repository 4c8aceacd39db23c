//! `stackfish.Engine`: the engine crate's facade searching in-process, the
//! same options as the UGI loop (`Level`, `MultiPV`, `Hash`, `Threads`,
//! `SiloTablePath`), and the Silo tables probed directly.

use std::sync::{Arc, Mutex, PoisonError};

use pyo3::prelude::*;
use pyo3::types::PyDict;
use stackfish_engine::{BestMove, Engine, GoParams, Host};
use stackfish_search::{mate_in, Info};
use stackfish_tables::TableSet;

use crate::{raise, PyGame};
use stackfish_analyse::Limits;
use stackfish_review::ReviewGame;

/// The game `analyse` was given: a `Game`, or one record's text.
fn review_game_of(game: &Bound<'_, PyAny>) -> PyResult<ReviewGame> {
    if let Ok(game) = game.extract::<PyRef<'_, PyGame>>() {
        let rules = &game.rules;
        let history = rules.moves();
        let moves: Vec<&str> = history.iter().map(String::as_str).collect();
        return ReviewGame::from_moves(rules.variant_name(), Some(&rules.start_fen()), &moves)
            .map_err(raise);
    }
    let Ok(text) = game.extract::<String>() else {
        return Err(raise("analyse takes a Game or the text of one game record"));
    };
    let mut items = stackfish_record::RecordReader::new(text.as_bytes());
    let item = items
        .next()
        .ok_or_else(|| raise("the record text holds no game"))?;
    if items.next().is_some() {
        return Err(raise("the record text holds more than one game: give one"));
    }
    let record = item.parse().map_err(raise)?.record;
    // A move the rules refuse ends the review there (its `stopped` says so).
    ReviewGame::from_record(&record, None).map_err(raise)
}

/// The engine: one transposition table and the options, searching the
/// positions of `Game` objects.
#[pyclass(module = "stackfish._stackfish", name = "Engine")]
pub struct PyEngine {
    /// Behind a lock because Python objects may be shared between threads;
    /// a search holds it (with the GIL released).
    engine: Mutex<Engine>,
    tables: Option<Arc<TableSet>>,
    /// What loading the tables said (files skipped).
    notes: Vec<String>,
}

impl PyEngine {
    fn engine(&self) -> std::sync::MutexGuard<'_, Engine> {
        self.engine.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn set(&self, name: &str, value: &str) -> PyResult<Vec<String>> {
        self.engine().set_option(name, Some(value)).map_err(raise)
    }
}

#[pymethods]
impl PyEngine {
    /// `Engine(hash_mb=16, threads=1, tables=None)`: `tables` is a folder
    /// of Silo table files.
    #[new]
    #[pyo3(signature = (hash_mb = 16, threads = 1, tables = None))]
    fn new(hash_mb: usize, threads: usize, tables: Option<std::path::PathBuf>) -> PyResult<Self> {
        let host = Host {
            table_loader: Some(stackfish_engine_tables::load),
            ..Host::default()
        };
        let mut engine = PyEngine {
            engine: Mutex::new(Engine::new(host)),
            tables: None,
            notes: Vec::new(),
        };
        engine.set("Hash", &hash_mb.to_string())?;
        engine.set("Threads", &threads.to_string())?;
        if let Some(folder) = tables {
            // The option first, so that a bad folder raises the engine's
            // own message for it.
            engine.notes = engine.set("SiloTablePath", &folder.to_string_lossy())?;
            let (set, _) = TableSet::open_folder(&folder).map_err(raise)?;
            engine.tables = Some(Arc::new(set));
        }
        Ok(engine)
    }

    /// Sets any engine option by its UGI name (`setoption`); returns the
    /// notes the engine prints for it.
    #[pyo3(signature = (name, value = None))]
    fn set_option(&self, name: &str, value: Option<&str>) -> PyResult<Vec<String>> {
        self.engine().set_option(name, value).map_err(raise)
    }

    /// What the engine reported on loading the table folder.
    #[getter]
    fn table_notes(&self) -> Vec<String> {
        self.notes.clone()
    }

    /// Forgets what earlier searches learned (the table, the heuristics).
    fn new_game(&self) {
        self.engine().new_game();
    }

    /// Searches `game`'s position (its moves since the start, for the
    /// repetition rule) with at least one limit. Returns a dict: `move`,
    /// `score` (centi-units from the mover's view), `mate` (moves to a win,
    /// negative for a loss, or None), `pv`, `nodes`, `depth`, and `lines`
    /// (one dict per principal variation with `multipv`).
    #[pyo3(signature = (game, nodes = None, movetime = None, depth = None, level = None, multipv = None))]
    #[allow(clippy::too_many_arguments)]
    fn search<'py>(
        &self,
        py: Python<'py>,
        game: &PyGame,
        nodes: Option<u64>,
        movetime: Option<u64>,
        depth: Option<i32>,
        level: Option<u8>,
        multipv: Option<usize>,
    ) -> PyResult<Bound<'py, PyDict>> {
        if nodes.is_none() && movetime.is_none() && depth.is_none() {
            return Err(raise("search needs a limit: nodes, movetime or depth"));
        }
        let rules = &game.rules;
        if self.engine().session().variant() != rules.variant_name() {
            self.set("Game", rules.variant_name())?;
        }
        let max_level = stackfish_engine::MAX_LEVEL.to_string();
        let level = level.map_or(max_level, |l| l.to_string());
        self.set("Level", &level)?;
        self.set("MultiPV", &multipv.unwrap_or(1).to_string())?;
        let start = rules.start_fen();
        let history = rules.moves();
        let moves: Vec<&str> = history.iter().map(String::as_str).collect();
        self.engine()
            .set_position(Some(&start), &moves)
            .map_err(raise)?;
        let params = GoParams {
            nodes,
            move_time: movetime,
            depth,
            ..GoParams::default()
        };
        let engine = &self.engine;
        let (best, lines) = py.detach(|| {
            let mut engine = engine.lock().unwrap_or_else(PoisonError::into_inner);
            let mut lines: Vec<Info> = Vec::new();
            let best = engine.go(&params, &mut |info: &Info| {
                let slot = info.multipv.max(1) - 1;
                if lines.len() <= slot {
                    lines.resize(slot + 1, info.clone());
                }
                lines[slot] = info.clone();
            });
            (best, lines)
        });
        let (best, score, pv) = match best {
            BestMove::Move { best, score, pv } => (best, score, pv),
            BestMove::GameOver(reason) => {
                return Err(raise(format!("the game is over ({reason})")));
            }
        };
        let out = PyDict::new(py);
        out.set_item("move", best)?;
        out.set_item("score", score)?;
        out.set_item("mate", mate_in(score))?;
        out.set_item("pv", pv)?;
        let first = lines.first();
        out.set_item("nodes", first.map_or(0, |i| i.nodes))?;
        out.set_item("depth", first.map_or(0, |i| i.depth))?;
        let listed = lines
            .iter()
            .map(|info| {
                let line = PyDict::new(py);
                line.set_item("multipv", info.multipv)?;
                line.set_item("score", info.score)?;
                line.set_item("mate", mate_in(info.score))?;
                line.set_item("pv", info.pv.clone())?;
                line.set_item("depth", info.depth)?;
                line.set_item("nodes", info.nodes)?;
                Ok(line)
            })
            .collect::<PyResult<Vec<_>>>()?;
        out.set_item("lines", listed)?;
        Ok(out)
    }

    /// Reviews a whole game (stackfish analyse): `game` is a `Game` (its
    /// start and moves) or the text of one record (a JSON line or a PGN
    /// block). Every position is searched at the limits (100000 nodes when
    /// none is given), the last first, with this engine's table. Returns
    /// the review as JSON text (protocol.md) and as annotated PGN.
    #[pyo3(signature = (game, nodes = None, depth = None, movetime = None))]
    fn analyse(
        &self,
        py: Python<'_>,
        game: &Bound<'_, PyAny>,
        nodes: Option<u64>,
        depth: Option<u32>,
        movetime: Option<u64>,
    ) -> PyResult<(String, String)> {
        let reviewed = review_game_of(game)?;
        let limits = Limits::new(nodes, depth, movetime).map_err(raise)?;
        let engine = &self.engine;
        let review = py
            .detach(|| {
                let mut engine = engine.lock().unwrap_or_else(PoisonError::into_inner);
                stackfish_analyse::review_game(&mut engine, reviewed, &limits, None, &mut |_, _| {})
            })
            .map_err(raise)?;
        let by = format!("stackfish.analyse, {} a position", limits.describe());
        Ok((review.json().to_string(), review.pgn(&by)))
    }

    /// The static evaluation of `game`'s position from the mover's view:
    /// the network's on the standard Mixtour board.
    fn evaluate(&self, game: &PyGame) -> i32 {
        game.rules.evaluate()
    }

    /// The Silo table's value of `game`'s position: None when no table of
    /// the folder covers it, else (value, plies, line): value 1 when the
    /// side to move wins, -1 when it loses, 0 for a draw; plies to the end
    /// with best play; the optimal line.
    fn probe(&self, game: &PyGame) -> PyResult<Option<(i8, u32, Vec<String>)>> {
        let Some(tables) = &self.tables else {
            return Err(raise("no table folder: give Engine(tables=FOLDER)"));
        };
        Ok(tables
            .probe_any(game.rules.position_any())
            .map(|(line, plies)| (plies.signum() as i8, plies.unsigned_abs(), line)))
    }
}
