//! The browser board's game state, apart from any transport: the line of
//! moves with its cursor, who plays each side, the analysis, the engines'
//! reports and evaluations, the StackAndConquer files, the shipped boards,
//! and the JSON API the page speaks (`api`), answered the same by the HTTP
//! server (`stackfish serve`, crate stackfish-web) and by the board in
//! WebAssembly (crate stackfish-wasm).
//!
//! Nothing here starts a thread, reads a clock or runs a process: the board
//! decides what to search and when to stop, and a `Host` (`host`) runs the
//! searches and feeds their reports and finish back, tagged with the search
//! id so that a stale one is dropped. The host also tells the time and
//! hears of every change. The crate builds for `wasm32-unknown-unknown`.

pub mod api;
pub mod error;
pub mod eval;
pub mod files;
pub mod host;
pub mod job;
pub mod position;
mod state;
pub mod view;

pub use error::{ApiError, BoardError, ShippedError};
pub use host::{Explorer, Host, SearchOrder};
pub use job::{Finish, Job, JobLimit, Report};
pub use state::{
    App, DEFAULT_MOVE_TIME_MS, DEFAULT_REVIEW_NODES, DEFAULT_VARIANT, MAX_ANALYSIS_LINES,
    MAX_MOVE_TIME_MS, MAX_REVIEW_NODES, MIN_MOVE_TIME_MS, MIN_REVIEW_NODES,
};
pub use view::StateView;

/// The engine in this process (natively) or in the page's worker (in the
/// browser), always offered first.
pub const BUILTIN: &str = "stackfish";

/// Every request body the page sends is well under a kilobyte (a FEN is
/// about a hundred bytes), but for an uploaded StackAndConquer file, a few
/// kilobytes (`files::MAX_FILE_BYTES`).
pub const BODY_LIMIT: usize = 64 * 1024;
