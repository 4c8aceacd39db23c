//! Match runner support; so far the pure statistics, ratings and report rendering.
//!
//! The runner feeds finished games (in colour-swapped pairs when it can) into
//! [`stats::MatchCounts`], asks it for the estimate and the SPRT state, and maps the end of the
//! run to an exit code:
//!
//! ```
//! use stackfish::arena::stats::{GameResult, MatchCounts, RunVerdict, SprtConfig};
//! let sprt = SprtConfig::new(0.0, 2.0, 0.05, 0.05).unwrap();
//! let mut counts = MatchCounts::default();
//! counts.add_pair(GameResult::Win, GameResult::Draw);
//! let status = counts.sprt_status(&sprt);
//! // Two games prove nothing: with the budget spent the run is inconclusive, never H1.
//! let verdict = RunVerdict::from_sprt(status.verdict, true).unwrap();
//! assert_eq!((verdict, verdict.exit_code()), (RunVerdict::Inconclusive, 2));
//! ```

pub mod ratings;
pub mod report;
pub mod stats;
