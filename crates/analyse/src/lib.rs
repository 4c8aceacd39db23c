//! `stackfish analyse` and Python's `stackfish.analyse`: whole games
//! reviewed by the engine in this process. The review crate plans the
//! searches and judges the moves; this crate answers its searches with the
//! engine facade ([`EngineEvaluator`]), one transposition table shared by
//! every search of a game, and every search bounded ([`Limits`]).
//!
//! - `file`: the games of a record file reviewed one by one as they are
//!   read (`--games N..M`), each problem a note, never a stop.
//! - `atomic`: an output file that appears whole or not at all.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

use stackfish_engine::protocol::info_score;
use stackfish_engine::{BestMove, Engine, GoParams};
use stackfish_review::{Evaluator, Model, Review, ReviewGame, Searched, Task};

pub mod atomic;
pub mod file;

/// Nodes per position when no limit is given.
pub const DEFAULT_NODES: u64 = 100_000;

/// Why a review could not be made.
#[derive(Debug, thiserror::Error)]
pub enum AnalyseError {
    #[error("no limit on the searches: give nodes, a depth or a time")]
    Unbounded,
    #[error("{what} must be at least 1")]
    Zero { what: &'static str },
    #[error("the engine: {0}")]
    Engine(String),
    #[error("interrupted")]
    Interrupted,
    #[error(transparent)]
    Review(#[from] stackfish_review::ReviewError),
    #[error("{0}")]
    Input(String),
    #[error("{0}")]
    Io(String),
}

/// How long each position is searched: every limit given bounds it, and
/// at least one is given (a review never searches without end).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    pub nodes: Option<u64>,
    pub depth: Option<u32>,
    pub movetime_ms: Option<u64>,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            nodes: Some(DEFAULT_NODES),
            depth: None,
            movetime_ms: None,
        }
    }
}

impl Limits {
    /// `nodes`, `depth`, `movetime_ms` as given; none of them: the default
    /// of [`DEFAULT_NODES`]. A zero is refused.
    pub fn new(
        nodes: Option<u64>,
        depth: Option<u32>,
        movetime_ms: Option<u64>,
    ) -> Result<Limits, AnalyseError> {
        for (value, what) in [
            (nodes, "nodes"),
            (depth.map(u64::from), "depth"),
            (movetime_ms, "movetime"),
        ] {
            if value == Some(0) {
                return Err(AnalyseError::Zero { what });
            }
        }
        if nodes.is_none() && depth.is_none() && movetime_ms.is_none() {
            return Ok(Limits::default());
        }
        Ok(Limits {
            nodes,
            depth,
            movetime_ms,
        })
    }

    /// `go` with these limits.
    pub fn go_params(&self) -> Result<GoParams, AnalyseError> {
        if self.nodes.is_none() && self.depth.is_none() && self.movetime_ms.is_none() {
            return Err(AnalyseError::Unbounded);
        }
        Ok(GoParams {
            nodes: self.nodes,
            depth: self.depth.map(|d| i32::try_from(d).unwrap_or(i32::MAX)),
            move_time: self.movetime_ms,
            ..GoParams::default()
        })
    }

    /// `100000 nodes`, `depth 12, 500 ms`: for the annotator's tag.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(n) = self.nodes {
            parts.push(format!("{n} nodes"));
        }
        if let Some(d) = self.depth {
            parts.push(format!("depth {d}"));
        }
        if let Some(t) = self.movetime_ms {
            parts.push(format!("{t} ms"));
        }
        parts.join(", ")
    }
}

/// The engine in this process answering a review's searches. It keeps its
/// transposition table between them: the caller starts each game with
/// [`prepare`].
pub struct EngineEvaluator<'a> {
    engine: &'a mut Engine,
    params: GoParams,
    /// Set from outside (Ctrl-C): no further search starts.
    interrupt: Option<&'a AtomicBool>,
}

impl<'a> EngineEvaluator<'a> {
    pub fn new(
        engine: &'a mut Engine,
        limits: &Limits,
        interrupt: Option<&'a AtomicBool>,
    ) -> Result<EngineEvaluator<'a>, AnalyseError> {
        Ok(EngineEvaluator {
            engine,
            params: limits.go_params()?,
            interrupt,
        })
    }
}

impl Evaluator for EngineEvaluator<'_> {
    type Error = AnalyseError;

    fn evaluate(&mut self, task: &Task) -> Result<Searched, AnalyseError> {
        if self.interrupt.is_some_and(|i| i.load(Relaxed)) {
            return Err(AnalyseError::Interrupted);
        }
        let moves: Vec<&str> = task.moves.iter().map(String::as_str).collect();
        self.engine
            .set_position(Some(task.start_fen), &moves)
            .map_err(|e| AnalyseError::Engine(e.to_string()))?;
        self.engine.shared().arm();
        let mut last = None;
        let best = self.engine.go(&self.params, &mut |info| {
            if info.multipv == 1 {
                last = Some((info.depth, info.nodes));
            }
        });
        if self.interrupt.is_some_and(|i| i.load(Relaxed)) {
            return Err(AnalyseError::Interrupted);
        }
        let (depth, nodes) = last.unwrap_or((0, 0));
        match best {
            BestMove::Move { score, pv, .. } => Ok(Searched {
                score: info_score(score),
                depth: u32::try_from(depth).unwrap_or(0),
                pv,
                nodes,
            }),
            BestMove::GameOver(reason) => Err(AnalyseError::Engine(format!(
                "the engine sees the game over at ply {} ({reason})",
                task.index
            ))),
        }
    }
}

/// Readies `engine` for a new game of `variant`: its game, full strength
/// and one line, and a clear table and heuristics, so that a game's review
/// depends on it alone.
pub fn prepare(engine: &mut Engine, variant: &str) -> Result<(), AnalyseError> {
    let max_level = stackfish_engine::MAX_LEVEL.to_string();
    let mut settings = vec![("Level", max_level.as_str()), ("MultiPV", "1")];
    if engine.session().variant() != variant {
        settings.push(("Game", variant));
    }
    for (name, value) in settings {
        engine
            .set_option(name, Some(value))
            .map_err(|e| AnalyseError::Engine(format!("{name} {value}: {e}")))?;
    }
    engine.new_game();
    Ok(())
}

/// How often a review looks at its interrupt flag during a search.
const INTERRUPT_POLL: std::time::Duration = std::time::Duration::from_millis(10);

/// Reviews `game` with `engine` at `limits`, calling `progress` with
/// (searches done, searches in all). `interrupt` set: the search running
/// stops at once and the review ends with [`AnalyseError::Interrupted`].
pub fn review_game(
    engine: &mut Engine,
    game: ReviewGame,
    limits: &Limits,
    interrupt: Option<&AtomicBool>,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Review, AnalyseError> {
    prepare(engine, game.variant)?;
    let model = Model::for_variant(game.variant);
    let shared = engine.shared().clone();
    let finished = AtomicBool::new(false);
    std::thread::scope(|scope| {
        if let Some(flag) = interrupt {
            // The search polls its own stop flag: a long one (a minute's
            // `movetime`) ends as soon as the interrupt comes.
            scope.spawn(|| {
                while !finished.load(Relaxed) {
                    if flag.load(Relaxed) {
                        shared.stop.store(true, Relaxed);
                    }
                    std::thread::sleep(INTERRUPT_POLL);
                }
            });
        }
        let reviewed = EngineEvaluator::new(engine, limits, interrupt)
            .and_then(|mut e| stackfish_review::review(game, model, &mut e, progress));
        finished.store(true, Relaxed);
        reviewed
    })
}

#[cfg(test)]
mod tests;
