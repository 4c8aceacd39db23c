//! The engine's endgame tables on a machine with files: Silo table files,
//! memory-mapped by `stackfish-tables`, behind the engine's
//! `EndgameTables` seam (the engine crate itself reads no files).

use std::path::Path;
use std::sync::Arc;

use stackfish_engine::{EndgameTables, LoadError};
use stackfish_tables::TableSet;

/// The Silo tables of one folder, as the engine probes them.
#[derive(Debug)]
pub struct SiloTables(pub TableSet);

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
}

/// The engine's `TableLoader`: maps the tables of `folder`, with a note per
/// file skipped.
pub fn load(folder: &Path) -> Result<(Arc<dyn EndgameTables>, Vec<String>), LoadError> {
    let (set, notes) = TableSet::open_folder(folder)?;
    Ok((Arc::new(SiloTables(set)), notes))
}
