//! `stackfish._stackfish`: the rules, the engine and the Silo tables of the
//! core crates as Python classes. `stackfish/__init__.py` re-exports them
//! and adds what is easier in Python (NumPy observations, the adapters).
//!
//! Every error of the rules or the engine is raised as `stackfish.Error`
//! (a `ValueError`) with the message the engine prints for the same input.

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

mod encode;
mod engine;
mod rules;

use rules::{new_rules, Rules, RulesError};
use stackfish_games::{variant_names, Outcome, Side};

create_exception!(
    stackfish,
    Error,
    PyValueError,
    "A bad position string, move, action, option or table folder: the engine's message for it."
);

/// The error as Python sees it.
pub(crate) fn raise(error: impl std::fmt::Display) -> PyErr {
    Error::new_err(error.to_string())
}

/// What `Game.from_moves` takes: the variant, the start, the moves.
type GameArgs = (&'static str, String, Vec<String>);

fn side_number(side: Side) -> u8 {
    match side {
        Side::P1 => 1,
        Side::P2 => 2,
    }
}

/// A game of one variant as played from its start: the position, the moves
/// so far, the outcome (threefold repetition included).
#[pyclass(module = "stackfish._stackfish", name = "Game")]
pub struct PyGame {
    pub(crate) rules: Box<dyn Rules>,
}

impl PyGame {
    /// An action number from any Python integer (NumPy's included); one
    /// past the 64-bit range is out of range like any other, with its own
    /// digits in the message (not an OverflowError).
    fn action_number(&self, action: &Bound<'_, PyAny>) -> PyResult<i64> {
        if let Ok(number) = action.extract::<i64>() {
            return Ok(number);
        }
        let text = action.str().map(|s| s.to_string()).unwrap_or_default();
        if action.call_method0("__index__").is_ok() {
            let count = self.rules.num_actions();
            return Err(raise(RulesError::range_text(&text, count)));
        }
        Err(raise(format!("action {text} is not an integer")))
    }
}

#[pymethods]
impl PyGame {
    /// `Game(variant, fen=None)`: variant is one of `variants()`; fen a
    /// position string (Mixtour: any board shape).
    #[new]
    #[pyo3(signature = (variant = "mixtour", fen = None))]
    fn new(variant: &str, fen: Option<&str>) -> PyResult<PyGame> {
        new_rules(variant, fen)
            .map(|rules| PyGame { rules })
            .map_err(raise)
    }

    /// The game from `start_fen` (None: the variant's start) after
    /// `moves`, as `moves()` lists them: how a pickled game comes back.
    #[staticmethod]
    #[pyo3(signature = (variant, start_fen, moves))]
    fn from_moves(variant: &str, start_fen: Option<&str>, moves: Vec<String>) -> PyResult<PyGame> {
        let mut game = PyGame::new(variant, start_fen)?;
        for mv in &moves {
            game.play(mv)?;
        }
        Ok(game)
    }

    /// Pickling: the variant, the start and the moves (so the repetition
    /// history survives).
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, GameArgs)> {
        let from_moves = py.get_type::<PyGame>().getattr("from_moves")?;
        let args = (
            self.rules.variant_name(),
            self.rules.start_fen(),
            self.rules.moves(),
        );
        Ok((from_moves, args))
    }

    /// The variant name (`mixtour`, `silo-8`, ...).
    #[getter]
    fn variant(&self) -> &'static str {
        self.rules.variant_name()
    }

    fn fen(&self) -> String {
        self.rules.fen()
    }

    /// The position string the game started from.
    fn start_fen(&self) -> String {
        self.rules.start_fen()
    }

    /// The moves played since the start, in notation.
    fn moves(&self) -> Vec<String> {
        self.rules.moves()
    }

    /// 1 or 2.
    fn side_to_move(&self) -> u8 {
        side_number(self.rules.side_to_move())
    }

    /// Legal moves in notation; empty when the game is over.
    fn legal_moves(&self) -> Vec<String> {
        self.rules.legal_moves()
    }

    /// Plays a move given in notation; returns its canonical text.
    fn play(&mut self, mv: &str) -> PyResult<String> {
        self.rules.play_text(mv).map_err(raise)
    }

    /// None while the game goes on, else (winner, reason): winner 1, 2 or
    /// 0 for a draw.
    fn outcome(&self) -> Option<(u8, &'static str)> {
        match self.rules.outcome() {
            Outcome::Ongoing => None,
            Outcome::Over { result, reason } => {
                Some((result.winner().map_or(0, side_number), reason))
            }
        }
    }

    /// `p1win`, `p2win`, `draw` or `none`, as the engine's `query result`.
    fn result(&self) -> &'static str {
        self.rules.outcome().result().map_or("none", |r| r.ugi())
    }

    fn is_over(&self) -> bool {
        self.rules.outcome().is_over()
    }

    /// Takes back the last move; False at the start.
    fn undo(&mut self) -> bool {
        self.rules.undo()
    }

    /// The position's Zobrist hash (the engine's `Key`).
    fn zobrist(&self) -> u64 {
        self.rules.zobrist()
    }

    /// Leaf count at `depth` plies (the GIL is released meanwhile).
    fn perft(&self, py: Python<'_>, depth: u32) -> u64 {
        let rules = &*self.rules;
        py.detach(|| rules.perft_count(depth))
    }

    /// The static evaluation from the side to move's view (the network's on
    /// the standard Mixtour board).
    fn evaluate(&self) -> i32 {
        self.rules.evaluate()
    }

    /// The number of actions of this game's encoding (docs/python.md).
    fn num_actions(&self) -> usize {
        self.rules.num_actions()
    }

    /// The legal moves as action numbers, ascending.
    fn legal_actions(&self) -> Vec<usize> {
        self.rules.legal_actions()
    }

    fn action_to_move(&self, action: &Bound<'_, PyAny>) -> PyResult<String> {
        self.rules
            .action_to_move(self.action_number(action)?)
            .map_err(raise)
    }

    fn move_to_action(&self, mv: &str) -> PyResult<usize> {
        self.rules.move_to_action(mv).map_err(raise)
    }

    /// Plays the move numbered `action`; returns its text.
    fn play_action(&mut self, action: &Bound<'_, PyAny>) -> PyResult<String> {
        self.rules
            .play_action(self.action_number(action)?)
            .map_err(raise)
    }

    /// The observation's (planes, rows, columns).
    fn observation_shape(&self) -> (usize, usize, usize) {
        let [p, r, c] = self.rules.shape();
        (p, r, c)
    }

    /// The observation as little-endian float32 bytes in (planes, rows,
    /// columns) order, from player `side`'s view (1 or 2; None: the side
    /// to move); `observation()` wraps it as a NumPy array.
    #[pyo3(signature = (side = None))]
    fn observation_bytes<'py>(
        &self,
        py: Python<'py>,
        side: Option<u8>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let me = match side {
            None => self.rules.side_to_move(),
            Some(1) => Side::P1,
            Some(2) => Side::P2,
            Some(other) => return Err(raise(format!("side {other} is not 1 or 2"))),
        };
        let [p, r, c] = self.rules.shape();
        let mut out = vec![0f32; p * r * c];
        self.rules.observe(me, &mut out);
        let bytes: Vec<u8> = out.iter().flat_map(|v| v.to_le_bytes()).collect();
        Ok(PyBytes::new(py, &bytes))
    }

    /// The observation as a float32 NumPy array of `observation_shape()`,
    /// from player `side`'s view (None: the side to move; docs/python.md
    /// lists the planes).
    #[pyo3(signature = (side = None))]
    fn observation<'py>(&self, py: Python<'py>, side: Option<u8>) -> PyResult<Bound<'py, PyAny>> {
        let (p, r, c) = self.observation_shape();
        let bytes = self.observation_bytes(py, side)?;
        py.import("numpy")?
            .call_method1("frombuffer", (bytes, "<f4"))?
            .call_method1("reshape", ((p, r, c),))
    }

    /// Plays `n` games from here with uniformly random moves (seeded), in
    /// Rust: (p1 wins, p2 wins, draws, games cut at max_plies, plies).
    #[pyo3(signature = (n, seed = 0, max_plies = 10_000))]
    fn play_random(
        &self,
        py: Python<'_>,
        n: u64,
        seed: u64,
        max_plies: u64,
    ) -> (u64, u64, u64, u64, u64) {
        let rules = &*self.rules;
        let [a, b, c, d, e] = py.detach(|| rules.play_random(n, seed, max_plies));
        (a, b, c, d, e)
    }

    /// The board for people, as the engine's `d`.
    fn pretty(&self) -> String {
        self.rules.pretty()
    }

    /// A copy (the position and the moves: a few hundred bytes).
    fn copy(&self) -> PyGame {
        PyGame {
            rules: self.rules.clone_rules(),
        }
    }

    fn __copy__(&self) -> PyGame {
        self.copy()
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> PyGame {
        self.copy()
    }

    fn __repr__(&self) -> String {
        format!(
            "Game({:?}, {:?})",
            self.rules.variant_name(),
            self.rules.fen()
        )
    }

    fn __str__(&self) -> String {
        self.rules.pretty()
    }
}

/// Every variant name the engine knows, in the `Game` option's order.
#[pyfunction]
fn variants() -> Vec<&'static str> {
    variant_names().to_vec()
}

/// The Mixtour position string of a StackAndConquer file (`.in`,
/// `.stackboard`, `.stacksav`), as `stackfish import` prints it.
#[pyfunction]
#[pyo3(signature = (path, goal = None))]
fn import_sac(path: std::path::PathBuf, goal: Option<u32>) -> PyResult<String> {
    stackfish_sac::import(&path, goal).map_err(raise)
}

#[pymodule]
fn _stackfish(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // A build compiled for instructions this CPU lacks (`-C target-cpu=...`)
    // refuses to load, with the binaries' line, rather than crash later.
    let mut line = Vec::new();
    if stackfish_games::cpu::refuse_unsupported_build("stackfish", &mut line) {
        let line = String::from_utf8_lossy(&line).trim_end().to_string();
        return Err(pyo3::exceptions::PyImportError::new_err(line));
    }
    m.add("Error", m.py().get_type::<Error>())?;
    m.add_class::<PyGame>()?;
    m.add_class::<engine::PyEngine>()?;
    m.add_function(wrap_pyfunction!(variants, m)?)?;
    m.add_function(wrap_pyfunction!(import_sac, m)?)?;
    Ok(())
}

impl From<RulesError> for PyErr {
    fn from(error: RulesError) -> PyErr {
        raise(error)
    }
}
