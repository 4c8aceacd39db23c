//! StackAndConquer's board files (`.in`, `.stackboard`) and saved games
//! (`.stacksav`): read into one neutral description, written back, and
//! turned into Mixtour position strings. The formats are described in
//! `docs/stackandconquer.md`; every choice where a file is ambiguous is
//! written where it is read, in `files.rs`.

mod files;
#[cfg(test)]
mod tests;

use std::fmt;
use std::path::Path;

use stackfish_games::mixtour::{Board, MixtourGrid, MixtourVariant, Position};
use stackfish_games::{Game, Side};

pub use files::{read_in, read_stackboard, read_stacksav, write_stackboard, write_stacksav};

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
    pub fn from_fen(fen: &str) -> Result<Description, String> {
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

/// Reads any of the three files. `goal` is the goal of a game started on a
/// board file (1 without it); a saved game has its own, so `goal` with a
/// `.stacksav` is refused rather than silently ignored.
pub fn read_path(path: &Path, goal: Option<u32>) -> Result<Description, SacError> {
    let kind =
        FileKind::of(path).ok_or_else(|| SacError::UnknownKind(path.display().to_string()))?;
    let text = std::fs::read(path).map_err(|e| SacError::Io(format!("{}: {e}", path.display())))?;
    read_bytes(kind, &text, goal)
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

/// What is wrong with a file, in one line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SacError {
    /// The file could not be read or written.
    Io(String),
    /// Not `.in`, `.stackboard` nor `.stacksav`.
    UnknownKind(String),
    /// `--goal` given for a saved game.
    GoalOfSave,
    /// Not UTF-8 text.
    NotText,
    /// A `.stacksav` that is not base64.
    NotBase64(String),
    /// Not JSON (or a `.stacksav` whose decoded bytes are not).
    NotJson(String),
    /// JSON, but not an object.
    NotAnObject,
    MissingKey(&'static str),
    /// A key holding the wrong kind of value.
    WrongType {
        key: &'static str,
        expected: &'static str,
    },
    /// A count that is not a positive (or, where zero is allowed, whole) number.
    Count {
        what: String,
        found: String,
    },
    /// A list of the wrong length (`Board`, `Won`, ...).
    Length {
        what: String,
        found: usize,
        expected: usize,
    },
    /// A `.in` without rows, or a row without cells.
    NoRows,
    /// A `.in` row of another width than the first.
    RowWidth {
        row: usize,
        found: usize,
        expected: usize,
    },
    /// A board cell that is none of `0`, `#`, `-`.
    BadBoardCell {
        row: usize,
        column: usize,
        text: String,
    },
    /// A saved-game cell that is none of `""`, `#`, `-` or a stack of 1 and 2.
    BadStack {
        row: usize,
        column: usize,
        text: String,
    },
    /// A stack or empty cell in the padding of a saved game.
    InPadding {
        row: usize,
        column: usize,
        text: String,
    },
    /// A saved board whose padding fits no grid, or several.
    Shape(String),
    /// `NumOfPlayers` other than 2.
    Players(u64),
    /// `Current` not one of the players.
    Current(u64),
}

impl fmt::Display for SacError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SacError::Io(e) => write!(f, "{e}"),
            SacError::UnknownKind(p) => write!(
                f,
                "{p}: not a StackAndConquer file (expected .in, .stackboard or .stacksav)"
            ),
            SacError::GoalOfSave => write!(
                f,
                "--goal is for board files; a saved game has its own goal (WinTowers)"
            ),
            SacError::NotText => write!(f, "not UTF-8 text"),
            SacError::NotBase64(e) => {
                write!(f, "not base64 (a .stacksav is base64 of a JSON text): {e}")
            }
            SacError::NotJson(e) => write!(f, "not JSON: {e}"),
            SacError::NotAnObject => write!(f, "not a JSON object"),
            SacError::MissingKey(k) => write!(f, "missing key \"{k}\""),
            SacError::WrongType { key, expected } => {
                write!(f, "key \"{key}\": expected {expected}")
            }
            SacError::Count { what, found } => {
                write!(f, "{what}: '{found}' is not a positive whole number")
            }
            SacError::Length {
                what,
                found,
                expected,
            } => write!(f, "{what} has {found} entries, expected {expected}"),
            SacError::NoRows => write!(f, "no rows of cells after the first line"),
            SacError::RowWidth {
                row,
                found,
                expected,
            } => write!(
                f,
                "row {row} from the top has {found} cells, the first row has {expected}"
            ),
            SacError::BadBoardCell { row, column, text } => write!(
                f,
                "row {row} from the top, column {column}: '{text}' is not 0 (playable) nor # or - (not part of the board)"
            ),
            SacError::BadStack { row, column, text } => write!(
                f,
                "row {row} from the top, column {column}: \"{text}\" is not a stack of the digits 1 and 2, \"\" (empty), # or -"
            ),
            SacError::InPadding { row, column, text } => write!(
                f,
                "row {row}, column {column} of the padded Board is in the {PADDING}-cell padding but holds \"{text}\""
            ),
            SacError::Shape(e) => write!(f, "{e}"),
            SacError::Players(n) => write!(
                f,
                "NumOfPlayers is {n}: stackfish plays Mixtour for two players"
            ),
            SacError::Current(n) => write!(f, "Current is {n}: the player to move must be 1 or 2"),
        }
    }
}

impl std::error::Error for SacError {}

/// `stackfish import`: the position string of a file, checked by the rules
/// library and written in its own spelling. A board file gives its start
/// for two players (goal `goal`, 1 without it), a saved game its position.
pub fn import(path: &Path, goal: Option<u32>) -> Result<String, String> {
    let kind = FileKind::of(path)
        .ok_or_else(|| SacError::UnknownKind(path.display().to_string()).to_string())?;
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    import_bytes(&path.display().to_string(), kind, &bytes, goal)
}

/// `import` of a file's content, `name` naming it in the messages (the
/// browser board's uploads, which never touch the disk).
pub fn import_bytes(
    name: &str,
    kind: FileKind,
    bytes: &[u8],
    goal: Option<u32>,
) -> Result<String, String> {
    let desc = read_bytes(kind, bytes, goal).map_err(|e| format!("{name}: {e}"))?;
    checked_fen(&desc).map_err(|e| format!("{name}: {e}"))
}

/// The description's position string as the rules library reads and writes
/// it; an error if the library refuses it (a grid larger than it plays, a
/// stack too high, a score past the goal, ...).
pub fn checked_fen(desc: &Description) -> Result<String, String> {
    let fen = desc.to_fen();
    let mut game = stackfish_games::variants::new_game("mixtour")
        .ok_or_else(|| "the rules library has no Mixtour".to_string())?;
    game.set_fen(&fen)
        .map_err(|e| format!("not a position stackfish can play: {e}"))?;
    Ok(game.fen())
}

/// The start position of `arena openings --board`: a StackAndConquer file
/// (told by its extension) as `import` reads it, or else a position string,
/// returned as given for the rules of the match's game to check.
pub fn board_start(board: &str, goal: Option<u32>) -> Result<String, String> {
    let path = Path::new(board);
    match FileKind::of(path) {
        Some(_) => import(path, goal),
        None if goal.is_some() => Err(format!(
            "--goal is for board files; the position string '{board}' has its own goal"
        )),
        None => Ok(board.to_string()),
    }
}

/// A Mixtour position string of any shape, read by the rules library (the
/// variant does not matter: the string carries reserves and goal).
fn read_fen(fen: &str) -> Result<MixtourGrid, String> {
    MixtourGrid::from_fen(&MixtourVariant::STANDARD, fen).map_err(|e| e.to_string())
}

/// `stackfish export`: the position string written as a saved game and/or
/// as the board file of its shape. The save names the board file written
/// with it, by absolute path and by file name. Returns notes for the user
/// (what the files cannot hold).
pub fn export(
    fen: &str,
    stacksav: Option<&Path>,
    stackboard: Option<&Path>,
) -> Result<Vec<String>, String> {
    if stacksav.is_none() && stackboard.is_none() {
        return Err("nothing to write: give --stacksav FILE, --stackboard FILE or both".into());
    }
    let pos = read_fen(fen)?;
    let mut desc = Description::from_position(&pos);
    let mut notes = Vec::new();
    let write = |path: &Path, text: &str| {
        std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
    };
    if let Some(path) = stackboard {
        write(path, &write_stackboard(&desc))?;
        let absolute = std::fs::canonicalize(path)
            .map_err(|e| format!("cannot find {} after writing it: {e}", path.display()))?;
        desc.board_file = absolute.display().to_string();
        desc.board_file_relative = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
    }
    if let Some(path) = stacksav {
        write(path, &write_stacksav(&desc))?;
        if stackboard.is_none() {
            notes.push(format!(
                "{}: names no board file; StackAndConquer opens a saved game only with its \
                 board file (add --stackboard FILE)",
                path.display()
            ));
        }
        if let Some(m) = pos.forbidden() {
            notes.push(format!(
                "{}: a saved game holds no last move, so {m} is no longer forbidden there",
                path.display()
            ));
        }
    }
    Ok(notes)
}
