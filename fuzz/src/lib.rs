//! What several fuzz targets share.

use stackfish_sac::{
    export_description, import_bytes_noted, read_stacksav, write_stacksav, FileKind,
};

/// A StackAndConquer file of `kind` as `stackfish import` and the board's
/// upload read it: never a panic, and a position it gives exports as a
/// saved game that imports as the same position.
pub fn sac_file(kind: FileKind, data: &[u8]) {
    let Ok(imported) = import_bytes_noted("fuzz", kind, data, None) else {
        return;
    };
    let fen = imported.fen;
    let export = export_description(&fen)
        .unwrap_or_else(|e| panic!("the imported {fen:?} does not export: {e}"));
    let saved = write_stacksav(&export.description);
    let back = read_stacksav(saved.as_bytes())
        .and_then(|d| stackfish_sac::checked_fen(&d))
        .unwrap_or_else(|e| panic!("the save of {fen:?} does not import: {e}"));
    assert_eq!(back, fen, "the save of {fen:?} imports as another position");
}
