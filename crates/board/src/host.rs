//! The seams between the board and what runs it: the `Host` runs the
//! searches the board orders, tells the time and hears of every change;
//! the optional `Explorer` fills the view's Silo table part.
//!
//! A search's life: the board calls `Host::start` with an order whose
//! `search` id is new; the host calls `App::report` with each line and
//! once `App::finish` (or `App::engine_failed`), always with that id. The
//! board drops whatever comes with an id that is no longer current (a
//! move was played or the search cancelled meanwhile), so a host never
//! needs to know why a search ended. `Host::stop` asks a search to end
//! soon; its finish still comes. The board starts a new search only after
//! stopping the previous one: a host with one engine waits for the old
//! search's end before it begins the next.

use std::sync::Arc;

use super::error::ApiError;
use super::job::Job;
use super::state::App;
use super::view::TableView;

/// One search the board orders.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchOrder {
    /// The id its reports and finish come back with.
    pub search: u64,
    /// Player 1's engine (0), player 2's (1), the analysis (2): a host that
    /// keeps one engine per role picks it by this.
    pub slot: usize,
    /// A name of the board's engine list.
    pub engine: String,
    pub job: Job,
}

/// What runs the board: its engines, its clock and its change signal.
pub trait Host: Send + Sync {
    /// Starts `order`; the board's lock is held, so the host must not call
    /// back into `board` before this returns (a thread or a later event
    /// does). `Err`: the search could not start at all.
    fn start(&self, board: &Arc<App>, order: SearchOrder) -> Result<(), ApiError>;
    /// Asks search `search` to end soon (it plays or reports its best so
    /// far); nothing if it has ended.
    fn stop(&self, search: u64);
    /// Ends every search and engine, for a clean shutdown; the board's lock
    /// is not held.
    fn shutdown(&self);
    /// The state has a new `version`: tell the pages.
    fn changed(&self, version: u64);
    /// Milliseconds on a monotonic clock: what a move took.
    fn now_ms(&self) -> f64;
    /// Milliseconds since the Unix epoch: the record's date, when an
    /// engine line arrived.
    fn wall_ms(&self) -> u64;
}

/// The Silo table explorer, where there are tables (natively only).
pub trait Explorer: Send + Sync {
    /// The table's view of the position `fen` of `variant`, if a table
    /// covers it; `over`: the game has ended, so no move is listed.
    fn explore(&self, variant: &str, fen: &str, over: bool) -> Option<TableView>;
    /// The configurations of the tables loaded, for the page to name.
    fn configs(&self) -> Vec<String>;
}
