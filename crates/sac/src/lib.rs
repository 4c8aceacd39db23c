//! StackAndConquer's board files (`.in`, `.stackboard`) and saved games
//! (`.stacksav`): read into one neutral description, written back, and
//! turned into Mixtour position strings. The formats are described in
//! `docs/stackandconquer.md`; every choice where a file is ambiguous is
//! written where it is read, in `files.rs`.
//!
//! Everything in the crate root and in `files.rs` works on text and bytes
//! (a browser build calls it on what it was given); `fs.rs` holds the only
//! functions that touch the file system: reading by path and `export`.

pub mod cpu;
mod error;
mod files;
pub mod fs;
#[cfg(test)]
mod tests;

use std::path::Path;

use stackfish_games::echo::echo_path;
use stackfish_games::mixtour::board::GRID_MAX;
use stackfish_games::mixtour::{Board, MixtourGrid, MixtourVariant, Position, Stack};
use stackfish_games::{FenError, Game, Side};

pub use error::SacError;
pub use files::{read_in, read_stackboard, read_stacksav, write_stackboard, write_stacksav};
pub use fs::{board_start, export, import, import_noted, read_path};

/// The padding StackAndConquer puts around the board of a saved game: the
/// height at which a tower is removed.
pub const PADDING: usize = 5;

/// One cell of the grid.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cell {
    /// Not part of the board (`#` or `-` in the files).
    Hole,
    /// A playable cell and its stack from bottom to top; empty when empty.
    Stack(Vec<Side>),
}

impl Cell {
    pub const EMPTY: Cell = Cell::Stack(Vec::new());
}

/// What the three files say, in one shape: the grid with its stacks, the
/// state of play, and the program's bookkeeping.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Description {
    pub rows: usize,
    pub columns: usize,
    /// `rows * columns` cells, row-major, the top row first as in every
    /// StackAndConquer file (and as the ranks of a position string).
    pub cells: Vec<Cell>,
    /// What the reader accepted but the user should hear of (lines of a
    /// `.in` after its blank line), one line each, for `note:` lines.
    pub notes: Vec<String>,
    /// Pieces each player gets, by number of players (2, 3, ...): line 1 of
    /// a `.in`, `PlayersStones` of a `.stackboard`. Empty for a saved game,
    /// which does not hold it.
    pub players_stones: Vec<u32>,
    /// The player to move (`Current`).
    pub side: Side,
    /// Pieces in hand (`StonesLeft`).
    pub reserves: [u32; 2],
    /// Towers won (`Won`).
    pub scores: [u32; 2],
    /// Towers needed to win (`WinTowers`).
    pub goal: u32,
    /// `BoardFile`, `BoardFileRelative`: where StackAndConquer finds the
    /// `.stackboard` a saved game was started on. Empty when unknown.
    pub board_file: String,
    pub board_file_relative: String,
    /// The CPU opponent's script per player; empty for a human.
    pub cpu_script: [String; 2],
}

impl Description {
    /// The start of a game on this board: empty cells, player 1 to move,
    /// each player's pieces in hand, no towers won.
    pub fn start(
        rows: usize,
        columns: usize,
        playable: &[bool],
        players_stones: Vec<u32>,
        goal: u32,
    ) -> Description {
        let pieces = players_stones.first().copied().unwrap_or(0);
        Description {
            rows,
            columns,
            cells: playable
                .iter()
                .map(|&p| if p { Cell::EMPTY } else { Cell::Hole })
                .collect(),
            notes: Vec::new(),
            players_stones,
            side: Side::P1,
            reserves: [pieces; 2],
            scores: [0; 2],
            goal,
            board_file: String::new(),
            board_file_relative: String::new(),
            cpu_script: Default::default(),
        }
    }

    pub fn cell(&self, row: usize, column: usize) -> &Cell {
        &self.cells[row * self.columns + column]
    }

    /// The position string: ranks top first as the rows of the files, holes
    /// `#`/`#N`, empty cells `x`/`xN`, stacks bottom to top; no last move
    /// (a saved game holds none, so nothing is forbidden on the first turn).
    /// Limits (grid size, counts) are the rules library's to check.
    pub fn to_fen(&self) -> String {
        let ranks: Vec<String> = self
            .cells
            .chunks(self.columns.max(1))
            .map(write_fen_rank)
            .collect();
        format!(
            "{} {} {},{} {},{} {} -",
            ranks.join("/"),
            self.side.digit(),
            self.reserves[0],
            self.reserves[1],
            self.scores[0],
            self.scores[1],
            self.goal
        )
    }

    /// A position string read by the rules library, described: the files
    /// of StackAndConquer know no last move, so it is dropped.
    pub fn from_fen(fen: &str) -> Result<Description, SacError> {
        Ok(Description::from_position(&read_fen(fen)?))
    }

    /// The position through the rules library's accessors: its grid of
    /// files and ranks, which cells are on the board, their stacks.
    pub fn from_position<B: Board>(pos: &Position<B>) -> Description {
        let (files, ranks) = (pos.board().files(), pos.board().ranks());
        let cells = (0..ranks)
            .rev()
            .flat_map(|rank| (0..files).map(move |file| (file, rank)))
            .map(|(file, rank)| match pos.cell(file, rank) {
                Some(cell) => Cell::Stack(pos.stack(cell).pieces().collect()),
                None => Cell::Hole,
            })
            .collect();
        Description {
            rows: ranks,
            columns: files,
            cells,
            notes: Vec::new(),
            players_stones: Vec::new(),
            side: pos.side_to_move(),
            reserves: Side::BOTH.map(|s| pos.reserve(s).into()),
            scores: Side::BOTH.map(|s| pos.score(s).into()),
            goal: pos.goal().into(),
            board_file: String::new(),
            board_file_relative: String::new(),
            cpu_script: Default::default(),
        }
    }

    /// Pieces per player for a board file written from a position: what a
    /// player has in hand plus on the board (towers give their pieces back,
    /// so this is what each player started with), the larger of the two.
    pub fn pieces_per_player(&self) -> u32 {
        Side::BOTH
            .iter()
            .map(|&side| {
                let on_board: usize = self
                    .cells
                    .iter()
                    .map(|c| match c {
                        Cell::Stack(s) => s.iter().filter(|&&p| p == side).count(),
                        Cell::Hole => 0,
                    })
                    .sum();
                self.reserves[side.index()].saturating_add(on_board as u32)
            })
            .max()
            .unwrap_or(0)
    }
}

/// One rank of a position string: runs of holes and of empty cells merged.
fn write_fen_rank(cells: &[Cell]) -> String {
    let mut out: Vec<String> = Vec::new();
    // The run being counted: its letter and length.
    let mut run: Option<(char, usize)> = None;
    let flush = |out: &mut Vec<String>, run: &mut Option<(char, usize)>| {
        match run.take() {
            Some((c, 1)) => out.push(c.to_string()),
            Some((c, n)) => out.push(format!("{c}{n}")),
            None => {}
        };
    };
    for cell in cells {
        let letter = match cell {
            Cell::Hole => '#',
            Cell::Stack(s) if s.is_empty() => 'x',
            Cell::Stack(s) => {
                flush(&mut out, &mut run);
                out.push(s.iter().map(|p| p.digit()).collect());
                continue;
            }
        };
        match &mut run {
            Some((c, n)) if *c == letter => *n += 1,
            _ => {
                flush(&mut out, &mut run);
                run = Some((letter, 1));
            }
        }
    }
    flush(&mut out, &mut run);
    out.join(",")
}

/// The three kinds of file, told apart by their extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    In,
    StackBoard,
    StackSav,
}

impl FileKind {
    /// By extension, case-insensitive as StackAndConquer checks it.
    pub fn of(path: &Path) -> Option<FileKind> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "in" => Some(FileKind::In),
            "stackboard" => Some(FileKind::StackBoard),
            "stacksav" => Some(FileKind::StackSav),
            _ => None,
        }
    }

    pub fn is_board(self) -> bool {
        self != FileKind::StackSav
    }
}

/// Reads a file's content as `kind` (what `read_path` does after reading it).
pub fn read_bytes(
    kind: FileKind,
    bytes: &[u8],
    goal: Option<u32>,
) -> Result<Description, SacError> {
    if kind == FileKind::StackSav && goal.is_some() {
        return Err(SacError::GoalOfSave);
    }
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(SacError::Empty);
    }
    let goal = goal.unwrap_or(1);
    if goal == 0 {
        return Err(SacError::Count {
            what: "the goal".into(),
            found: "0".into(),
        });
    }
    match kind {
        FileKind::StackSav => read_stacksav(bytes),
        _ => {
            let text = std::str::from_utf8(bytes).map_err(|_| SacError::NotText)?;
            match kind {
                FileKind::In => read_in(text, goal),
                _ => read_stackboard(text, goal),
            }
        }
    }
}

/// What `import` read: the position string and the notes on the file
/// (each led by the file's name), for `note:` lines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Imported {
    pub fen: String,
    pub notes: Vec<String>,
}

/// `import` of a file's content, `name` naming it in the messages (the
/// browser board's uploads, which never touch the disk).
pub fn import_bytes(
    name: &str,
    kind: FileKind,
    bytes: &[u8],
    goal: Option<u32>,
) -> Result<String, SacError> {
    import_bytes_noted(name, kind, bytes, goal).map(|i| i.fen)
}

/// [`import_bytes`] with the notes on the file.
pub fn import_bytes_noted(
    name: &str,
    kind: FileKind,
    bytes: &[u8],
    goal: Option<u32>,
) -> Result<Imported, SacError> {
    let in_file = |error| SacError::InFile {
        name: name.to_string(),
        error: Box::new(error),
    };
    let desc = read_bytes(kind, bytes, goal).map_err(in_file)?;
    Ok(Imported {
        fen: checked_fen(&desc).map_err(in_file)?,
        notes: desc
            .notes
            .iter()
            .map(|n| format!("{}: {n}", echo_path(name)))
            .collect(),
    })
}

/// The description's position string as the rules library reads and writes
/// it; an error if the library refuses it (a score past the goal, too few
/// playable cells, ...). A grid too large and a stack too high are named
/// first in the file's rows and columns, which the library's ranks are not.
pub fn checked_fen(desc: &Description) -> Result<String, SacError> {
    if !(1..=GRID_MAX).contains(&desc.rows) || !(1..=GRID_MAX).contains(&desc.columns) {
        return Err(SacError::GridSize {
            rows: desc.rows,
            columns: desc.columns,
            max: GRID_MAX,
        });
    }
    let high = desc.cells.iter().enumerate().find_map(|(i, c)| match c {
        Cell::Stack(s) if s.len() > Stack::MAX_HEIGHT => Some((i, s.len())),
        _ => None,
    });
    if let Some((i, height)) = high {
        return Err(SacError::StackHeight {
            row: i / desc.columns + 1,
            column: i % desc.columns + 1,
            height,
            max: Stack::MAX_HEIGHT,
        });
    }
    let fen = desc.to_fen();
    let mut game = stackfish_games::variants::new_game("mixtour").ok_or(SacError::NoMixtour)?;
    game.set_fen(&fen).map_err(SacError::Unplayable)?;
    Ok(game.fen())
}

/// A Mixtour position string of any shape, read by the rules library (the
/// variant does not matter: the string carries reserves and goal).
fn read_fen(fen: &str) -> Result<MixtourGrid, FenError> {
    MixtourGrid::from_fen(&MixtourVariant::STANDARD, fen)
}

/// What `export` writes, before it knows where: the description of the
/// position (the board file it names is filled in once written) and the
/// forbidden take-back move, which a saved game cannot hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Export {
    pub description: Description,
    pub forbidden: Option<String>,
}

/// The position string as `export` writes it, read by the rules library.
pub fn export_description(fen: &str) -> Result<Export, SacError> {
    let pos = read_fen(fen)?;
    Ok(Export {
        description: Description::from_position(&pos),
        forbidden: pos.forbidden().map(|m| m.to_string()),
    })
}
