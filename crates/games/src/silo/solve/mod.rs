//! Strong solution of a Silo position by retrograde analysis over every
//! position reachable from it: the game-theoretic value of each, the length
//! of its optimal line (win fastest, lose slowest), and perfect play.
//! Pure: no I/O, no clocks; the caller times it.
//!
//! Why retrograde and not a forward search: the standard row has 1.6e9
//! arrangements with Red to move (the other side is the mirror image), and
//! at 2 bytes each they fit in memory; one backward sweep then gives exact
//! distances for every one of them, which the engine plays from. A
//! depth-first proof search must re-prove positions at every iteration of
//! the distance bound; `prove_by_search` (in `proof.rs`) is that method,
//! kept in the tests to measure against (docs/silo.md has the figures).
//!
//! Draws. The rules know no draw, and the house rule makes a third
//! repetition one. A position is a draw here when neither side can force a
//! win in the game graph (which has cycles: a value the backward sweep never
//! reaches). That is the exact value under the repetition rule too: a forced
//! win found by the sweep strictly shortens at each of the winner's moves, so
//! it never repeats a position and the house rule cannot save the loser; and
//! from a drawn position each side can stay among drawn positions forever,
//! which under the house rule ends in a repetition, a draw. The arena's ply
//! cap is not modelled (optimal lines here are far below it).
//!
//! The rooms: `value` (what a solve finds out about a position), `table`
//! (the solved values, looked up by position, and the best move and line
//! they give), `reachable` and `full` (the two retrograde methods), `space`
//! (the full-space method's indexing: ranks of colour strings and stack
//! heights, mirror images, un-moves), `proof` (the depth-first proof search
//! kept to measure against, built for the tests only) and `command` (`stackfish solve`: the root from a
//! game name and a position string, the report).

mod command;
mod full;
#[cfg(test)]
mod proof;
mod reachable;
mod space;
mod table;
mod value;

use std::fmt;
use std::sync::atomic::AtomicBool;

use super::Silo;

pub use command::{root, solve_command, solve_report, CommandError};
pub use full::solve_full;
#[cfg(test)]
pub use proof::{prove_by_search, ProofStats};
pub use reachable::solve_reachable;
pub(in crate::silo) use space::FullSpace;
pub use space::{mask, next_combination};
pub use table::{
    best_move, best_move_by, principal_line, principal_line_by, Solution, Table, PV_DRAW_PLIES,
};
pub use value::Value;

/// How a position is solved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// The full space when it applies (equal checker counts, small enough
    /// index tables), else the reachable set.
    Auto,
    /// Number the positions reachable from the root through a hash map and
    /// store the game graph explicitly; any checker counts.
    Reachable,
    /// Index every arrangement of the checkers with Red to move (Blue to
    /// move is the mirror image) and sweep backwards with un-moves; no
    /// graph or hash map is stored. Needs equal checker counts.
    FullSpace,
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Method::Auto => "auto",
            Method::Reachable => "retrograde analysis over the positions reachable from the root",
            Method::FullSpace => {
                "retrograde analysis over every arrangement of the checkers (colour-swap mirror symmetry)"
            }
        })
    }
}

/// Bounds on the work a solve may do.
#[derive(Clone, Copy, Debug)]
pub struct SolveLimits {
    pub method: Method,
    /// Stop with an error once this many distinct positions are found
    /// (about 60 bytes each while solving, 20 in the kept table).
    pub max_positions: usize,
}

impl Default for SolveLimits {
    /// About 6 GiB at the peak for the reachable method; the full-space
    /// method takes 2 bytes a position, so the standard row (1.6e9) fits.
    fn default() -> SolveLimits {
        SolveLimits {
            method: Method::Auto,
            max_positions: 100_000_000,
        }
    }
}

/// Why a solve stopped without a solution.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SolveError {
    /// The exact position key needs `bits` > 64 (two bits per checker and
    /// one per square, plus the side): too many checkers for this solver.
    #[error("position key needs {bits} bits (at most 64): too many checkers to solve")]
    TooWide { bits: u32 },
    /// More reachable positions than `SolveLimits::max_positions`.
    #[error("more than {limit} positions")]
    TooManyPositions { limit: usize },
    /// The full-space method does not apply: `reason`.
    #[error("the full-space method does not apply: {reason}")]
    NotFullSpace { reason: String },
    /// The caller's stop flag was set (`solve_until`).
    #[error("stopped")]
    Stopped,
}

/// Solves `root` by the method `limits.method` asks for.
pub fn solve(root: &Silo, limits: &SolveLimits) -> Result<Solution, SolveError> {
    solve_until(root, limits, &AtomicBool::new(false))
}

/// `solve`, giving up with `SolveError::Stopped` soon after `stop` is set
/// (the reachable method looks at it; the full-space method, for whole
/// rows solved offline, runs to its end).
pub fn solve_until(
    root: &Silo,
    limits: &SolveLimits,
    stop: &AtomicBool,
) -> Result<Solution, SolveError> {
    match limits.method {
        Method::Reachable => solve_reachable(root, limits, stop),
        Method::FullSpace => solve_full(root),
        Method::Auto => match FullSpace::new(root) {
            Ok(_) => solve_full(root),
            Err(_) => solve_reachable(root, limits, stop),
        },
    }
}
