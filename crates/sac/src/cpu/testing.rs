//! A turn as the app hands it to a CPU script, written out for tests: the
//! board padded as the app pads it and the request the shim builds. The
//! tests of this interface and those of the script (`crates/sac-cpu`, which
//! includes this file by its path) share it; nothing else compiles it.

use serde_json::{json, Value};

/// The padded board of `grid` (rows top first; cells `""`, `"#"` or a
/// stack of digits) with a padding of 5, as the app writes it.
pub fn padded(grid: &[&[&str]]) -> Vec<String> {
    let (rows, cols) = (grid.len(), grid[0].len());
    let width = cols + 10;
    let mut cells = vec!["-".to_string(); width * (rows + 10)];
    for (r, row) in grid.iter().enumerate() {
        for (c, cell) in row.iter().enumerate() {
            cells[(r + 5) * width + c + 5] = cell.to_string();
        }
    }
    cells
}

/// The padded index of grid row `r` (from the top), column `c`.
pub fn at(cols: usize, r: usize, c: usize) -> i64 {
    ((r + 5) * (cols + 10) + c + 5) as i64
}

/// A request of two players as the shim builds it: the board and the legal
/// list (the app's `[from, count, to]` moves) as the JSON text the app
/// hands over.
pub fn request(
    grid: &[&[&str]],
    id: u8,
    stones: [u8; 2],
    towers: [u8; 2],
    last: Value,
    legal: &[[i64; 3]],
) -> String {
    json!({
        "board": serde_json::to_string(&padded(grid)).unwrap(),
        "id": id,
        "players": 2,
        "height": 5,
        "towers": towers,
        "stones": stones,
        "last": last,
        "legal": serde_json::to_string(legal).unwrap(),
        "columns": grid[0].len(),
        "rows": grid.len(),
    })
    .to_string()
}
