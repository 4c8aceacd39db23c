//! Where the binaries find the data files of the project (the demo config,
//! the tactics suite, the network's source folder) when a path is not
//! given: one order for all of them.

use std::path::{Path, PathBuf};

/// `relative` (a path of the source tree: `tournaments/default.json`) where
/// it exists: in the current folder (a checkout), in the share folder
/// beside an installed binary (`/usr/bin/arena` reads
/// `/usr/share/stackfish/tournaments/default.json`), or in the source tree
/// the binary was built from (`cargo install --path .`). `None` when none
/// of them has it.
pub fn find(relative: &str) -> Option<PathBuf> {
    let installed = std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.parent()?.join("share/stackfish")));
    [
        Some(PathBuf::from(relative)),
        installed.map(|share| share.join(relative)),
        Some(source_tree().join(relative)),
    ]
    .into_iter()
    .flatten()
    .find(|p| p.exists())
}

/// [`find`], or else the source tree's path, for the error that follows
/// to name a place a user recognises.
pub fn file(relative: &str) -> PathBuf {
    find(relative).unwrap_or_else(|| source_tree().join(relative))
}

/// The source tree the binaries were built from. A release build names a
/// fixed one (tools/release.sh sets STACKFISH_SOURCE_TREE), so that the
/// checkout's folder does not make two builds of one commit differ; its
/// binaries find their data in the share folder beside them.
pub fn source_tree() -> &'static Path {
    Path::new(match option_env!("STACKFISH_SOURCE_TREE") {
        Some(tree) => tree,
        None => env!("CARGO_MANIFEST_DIR"),
    })
}
