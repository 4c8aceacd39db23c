//! The engine's endgame tables on a machine with files: Silo table files,
//! memory-mapped by `stackfish-tables`, behind the engine's
//! `EndgameTables` seam (the engine crate itself reads no files, and the
//! tables crate knows no engine). The binary's `SiloTablePath` and the
//! Python package's `Engine(tables=...)` both load through [`load`].

use std::path::Path;
use std::sync::{Arc, Mutex};

use stackfish_engine::{EndgameTables, LoadError};
use stackfish_tables::TableSet;

/// The Silo tables of one folder, as the engine probes them, and the
/// problems already reported. The set is shared: a host may probe it
/// directly too (the Python package's `Engine.probe`).
#[derive(Debug)]
pub struct SiloTables(pub Arc<TableSet>, pub Mutex<Vec<String>>);

impl EndgameTables for SiloTables {
    fn probe(&self, position: &dyn std::any::Any) -> Option<(Vec<String>, i32)> {
        self.0.probe_any(position)
    }

    fn describe(&self) -> Vec<String> {
        self.0
            .tables()
            .iter()
            .map(|t| t.config().to_string())
            .collect()
    }

    fn new_problems(&self) -> Vec<String> {
        let mut reported = self.1.lock().unwrap_or_else(|e| e.into_inner());
        let new: Vec<String> = self
            .0
            .problems()
            .into_iter()
            .filter(|p| !reported.contains(p))
            .collect();
        reported.extend(new.iter().cloned());
        new
    }
}

/// The engine's `TableLoader`: maps the tables of `folder`, with a note per
/// file skipped.
pub fn load(folder: &Path) -> Result<(Arc<dyn EndgameTables>, Vec<String>), LoadError> {
    let (set, notes) = TableSet::open_folder(folder)?;
    Ok((Arc::new(SiloTables(Arc::new(set), Mutex::default())), notes))
}
