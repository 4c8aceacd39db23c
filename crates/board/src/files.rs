//! StackAndConquer's boards and saved games on the board page: the shipped
//! boards (compiled in, so an installed binary has them wherever it runs),
//! files the page uploads, and the files it downloads. Every file is read
//! and written by `stackfish_sac`, the code behind `stackfish
//! import` and `export`: the page and the command line agree byte for byte.

use serde::{Deserialize, Serialize};

use super::error::{ApiError, ShippedError};
use stackfish_sac::{self as stackandconquer, Cell, Description, FileKind};

/// The largest file the page uploads. A saved game of the largest grid (10
/// x 10, with its frame 20 x 20 cells) is about 8 KB; the file travels
/// base64-encoded (4 bytes for 3), and the whole request must stay within
/// the server's body limit.
pub const MAX_FILE_BYTES: usize = super::BODY_LIMIT / 2;

/// The boards of `boards/`, compiled in: (name, label, the `.in` file).
/// `tests::every_board_of_the_folder_is_shipped` keeps the list and the
/// folder the same.
const SHIPPED: &[(&str, &str, &str)] = &[
    (
        "square_5x5",
        "5 x 5, the standard board",
        include_str!("../../../boards/square_5x5.in"),
    ),
    (
        "square_5x5_no_corners",
        "5 x 5 without its corners",
        include_str!("../../../boards/square_5x5_no_corners.in"),
    ),
    (
        "ring_7x7",
        "7 x 7 ring (the centre 3 x 3 cut out)",
        include_str!("../../../boards/ring_7x7.in"),
    ),
    (
        "square_6x6",
        "6 x 6",
        include_str!("../../../boards/square_6x6.in"),
    ),
    (
        "square_10x10",
        "10 x 10, the largest grid",
        include_str!("../../../boards/square_10x10.in"),
    ),
];

/// A shipped board as the page lists it.
#[derive(Clone, Debug, Serialize)]
pub struct BoardInfo {
    /// What `POST /api/new` takes as `board`.
    pub name: &'static str,
    /// The file in `boards/` it comes from.
    pub file: String,
    pub label: &'static str,
    pub rows: usize,
    pub columns: usize,
    /// Cells on the board (the grid less its holes).
    pub cells: usize,
    /// The plain 5 x 5 grid: the games' own start position plays on it.
    pub standard: bool,
    /// Its start for two players with goal 1, as `stackfish import` prints it.
    pub fen: String,
}

/// `GET /api/boards`.
#[derive(Clone, Debug, Serialize)]
pub struct BoardsView {
    pub boards: Vec<BoardInfo>,
    pub max_file_bytes: usize,
}

/// A file the page uploads: its name (for its kind, told by the extension,
/// and for messages) and its bytes, base64-encoded: the import code gets
/// the file exactly as it is on the player's disk, whatever its encoding.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileRequest {
    pub name: String,
    pub base64: String,
}

/// The shipped boards, read through the import code: a board the import
/// code refuses is a bug of this build, found by the tests, and refused
/// here rather than shown.
pub struct Shipped {
    /// Each board as listed, as read, and its file.
    boards: Vec<(BoardInfo, Description, &'static str)>,
}

impl Shipped {
    pub fn load() -> Result<Shipped, ShippedError> {
        let boards = SHIPPED
            .iter()
            .map(|&(name, label, text)| {
                let file = format!("{name}.in");
                let refused = |e: &dyn std::fmt::Display| ShippedError {
                    file: file.clone(),
                    message: e.to_string(),
                };
                let desc = stackandconquer::read_bytes(FileKind::In, text.as_bytes(), None)
                    .map_err(|e| refused(&e))?;
                let fen = stackandconquer::checked_fen(&desc).map_err(|e| refused(&e))?;
                let cells = desc.cells.iter().filter(|c| **c != Cell::Hole).count();
                let info = BoardInfo {
                    name,
                    file,
                    label,
                    rows: desc.rows,
                    columns: desc.columns,
                    cells,
                    standard: desc.rows == 5 && desc.columns == 5 && cells == 25,
                    fen,
                };
                Ok((info, desc, text))
            })
            .collect::<Result<_, ShippedError>>()?;
        Ok(Shipped { boards })
    }

    pub fn view(&self) -> BoardsView {
        BoardsView {
            boards: self.boards.iter().map(|(b, _, _)| b.clone()).collect(),
            max_file_bytes: MAX_FILE_BYTES,
        }
    }

    /// The start of shipped board `name` with `goal` points to win.
    pub fn start(&self, name: &str, goal: u32) -> Result<String, ApiError> {
        let Some((info, _, text)) = self.boards.iter().find(|(b, _, _)| b.name == name) else {
            let names: Vec<&str> = self.boards.iter().map(|(b, _, _)| b.name).collect();
            return Err(ApiError::new(
                400,
                format!("unknown board {name:?}; shipped: {}", names.join(", ")),
            ));
        };
        stackandconquer::import_bytes(&info.file, FileKind::In, text.as_bytes(), Some(goal))
            .map_err(|e| ApiError::new(422, e.to_string()))
    }

    /// The file name of the board file of `desc`'s shape: the shipped
    /// board's when it is one, else one naming the grid.
    fn board_file_name(&self, desc: &Description) -> String {
        let holes =
            |d: &Description| -> Vec<bool> { d.cells.iter().map(|c| *c == Cell::Hole).collect() };
        self.boards
            .iter()
            .find(|(_, d, _)| {
                d.rows == desc.rows && d.columns == desc.columns && holes(d) == holes(desc)
            })
            .map_or_else(
                || format!("stackfish-{}x{}.stackboard", desc.columns, desc.rows),
                |(b, _, _)| format!("{}.stackboard", b.name),
            )
    }
}

/// The position string of an uploaded file: a board's start (with `goal`
/// points to win) or a saved game's position, as `stackfish import` reads
/// it; its message when the import code refuses the file.
pub fn import_upload(file: &FileRequest, goal: u32) -> Result<String, ApiError> {
    use base64::Engine;
    let name = file.name.trim();
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(file.base64.trim())
        .map_err(|e| {
            ApiError::new(400, format!(
                "file.base64 of {name} is not base64 (the page sends a file's bytes base64-encoded): {e}"
            ))
        })?;
    if bytes.len() > MAX_FILE_BYTES {
        return Err(ApiError::new(
            413,
            format!(
                "{name} is {} bytes; the board takes files up to {MAX_FILE_BYTES} bytes",
                bytes.len()
            ),
        ));
    }
    let kind = FileKind::of(std::path::Path::new(name)).ok_or_else(|| {
        ApiError::new(
            422,
            stackandconquer::SacError::UnknownKind(name.to_string()).to_string(),
        )
    })?;
    // A saved game has its own goal; the import code refuses one given.
    let goal = kind.is_board().then_some(goal);
    stackandconquer::import_bytes(name, kind, &bytes, goal)
        .map_err(|e| ApiError::new(422, e.to_string()))
}

/// A download: its file name and content.
pub struct Download {
    pub name: String,
    pub content: String,
}

/// What can be downloaded of a Mixtour position: the saved game, which
/// names the board file beside it, and that board file.
pub struct Export {
    pub stacksav: Download,
    pub stackboard: Download,
}

/// The position string `fen` (of `plies` moves) as StackAndConquer files,
/// written by the export code. The browser alone knows where it saves the
/// files, so the save names its board file by file name only
/// (`BoardFile` and `BoardFileRelative` alike).
pub fn export(
    shipped: &Shipped,
    variant: &str,
    fen: &str,
    plies: usize,
) -> Result<Export, ApiError> {
    let mut desc = Description::from_fen(fen).map_err(|e| {
        ApiError::new(
            409,
            format!("StackAndConquer files hold Mixtour games; this position is not one ({e})"),
        )
    })?;
    let board_name = shipped.board_file_name(&desc);
    let stackboard = stackandconquer::write_stackboard(&desc);
    desc.board_file = board_name.clone();
    desc.board_file_relative = board_name.clone();
    Ok(Export {
        stacksav: Download {
            name: format!("stackfish-{variant}-{plies}.stacksav"),
            content: stackandconquer::write_stacksav(&desc),
        },
        stackboard: Download {
            name: board_name,
            content: stackboard,
        },
    })
}

/// The goal of the game whose start is `start_fen`, if it is Mixtour: a
/// board's game is played to it.
pub fn mixtour_goal(start_fen: &str) -> Option<u32> {
    Description::from_fen(start_fen).ok().map(|d| d.goal)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_board_of_the_folder_is_shipped() {
        let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../boards");
        let mut found: Vec<String> = std::fs::read_dir(&folder)
            .expect("boards/ exists")
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".in"))
            .collect();
        found.sort();
        let mut shipped: Vec<String> = SHIPPED.iter().map(|(n, _, _)| format!("{n}.in")).collect();
        shipped.sort();
        assert_eq!(found, shipped, "boards/ and the compiled-in list differ");
        for (name, _, text) in SHIPPED {
            let on_disk = std::fs::read_to_string(folder.join(format!("{name}.in"))).unwrap();
            assert_eq!(&on_disk, text, "{name}");
        }
    }

    #[test]
    fn the_shipped_boards_load_with_their_shapes() {
        let shipped = Shipped::load().expect("every shipped board imports");
        let view = shipped.view();
        let shape = |name: &str| {
            let b = view.boards.iter().find(|b| b.name == name).expect(name);
            (b.rows, b.columns, b.cells, b.standard)
        };
        assert_eq!(shape("square_5x5"), (5, 5, 25, true));
        assert_eq!(shape("square_5x5_no_corners"), (5, 5, 21, false));
        assert_eq!(shape("ring_7x7"), (7, 7, 40, false));
        assert_eq!(shape("square_10x10"), (10, 10, 100, false));
        // The goal asked for is the one played to; the pieces are the file's.
        assert_eq!(
            shipped.start("ring_7x7", 5).unwrap(),
            "x7/x7/x2,#3,x2/x2,#3,x2/x2,#3,x2/x7/x7 1 20,20 0,0 5 -"
        );
        assert_eq!(shipped.start("hexagon", 1).unwrap_err().status, 400);
    }

    #[test]
    fn a_board_file_is_named_after_its_shape() {
        let shipped = Shipped::load().unwrap();
        let name = |fen: &str| shipped.board_file_name(&Description::from_fen(fen).unwrap());
        assert_eq!(
            name("#,x3,#/x5/x5/x5/#,x3,# 1 20,20 0,0 1 -"),
            "square_5x5_no_corners.stackboard"
        );
        // The same grid with stacks on it and another goal.
        assert_eq!(
            name("#,x3,#/x5/x2,12,x2/x5/#,x3,# 2 18,19 0,0 3 -"),
            "square_5x5_no_corners.stackboard"
        );
        assert_eq!(
            name("#,x4/x5/x5/x5/#,x3,# 1 20,20 0,0 1 -"),
            "stackfish-5x5.stackboard"
        );
        assert_eq!(name("x7/x7/x7 1 20,20 0,0 1 -"), "stackfish-7x3.stackboard");
    }
}
