//! Endgame tables behind a seam: the host supplies them (the native binary
//! maps Silo table files, see `Host`); neither the rules nor this crate
//! know of files.

use std::sync::Arc;

/// Endgame tables the engine answers from.
pub trait EndgameTables: Send + Sync + std::fmt::Debug {
    /// The optimal line from `position` (the concrete position type behind
    /// `AnyGame::position_any`) and the plies to the end of the game:
    /// positive when the side to move wins, negative when it loses, 0 for a
    /// draw. `None` when no table covers the position.
    fn probe(&self, position: &dyn std::any::Any) -> Option<(Vec<String>, i32)>;
    /// One line per table loaded, for the option's report.
    fn describe(&self) -> Vec<String>;
    /// What has gone wrong with the tables since the last call (a file
    /// changed on disk, a damaged block), each said once: the engine sends
    /// them as `info string error: ...` before its `bestmove`.
    fn new_problems(&self) -> Vec<String> {
        Vec::new()
    }
}

/// Why a folder of tables could not be read: the host's own error.
pub type LoadError = Box<dyn std::error::Error + Send + Sync>;

/// Reads the tables of a folder: the tables and a note per file skipped.
pub type TableLoader =
    fn(&std::path::Path) -> Result<(Arc<dyn EndgameTables>, Vec<String>), LoadError>;

/// The tables of one folder, shared by the engine's searches (loaded once).
#[derive(Clone, Debug)]
pub struct SharedTables {
    pub folder: std::path::PathBuf,
    pub set: Arc<dyn EndgameTables>,
}

impl PartialEq for SharedTables {
    /// The same loaded set, not merely the same folder name.
    fn eq(&self, other: &SharedTables) -> bool {
        Arc::ptr_eq(&self.set, &other.set)
    }
}

impl Eq for SharedTables {}

impl SharedTables {
    /// Loads the tables of `folder` with `load`; also returns a note per
    /// file skipped.
    pub fn open(
        folder: &std::path::Path,
        load: TableLoader,
    ) -> Result<(SharedTables, Vec<String>), LoadError> {
        let (set, notes) = load(folder)?;
        Ok((
            SharedTables {
                folder: folder.to_path_buf(),
                set,
            },
            notes,
        ))
    }
}
