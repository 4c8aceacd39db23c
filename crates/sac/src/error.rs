//! What can go wrong reading, checking and writing StackAndConquer files,
//! each in one line (the binaries print it after `error: `, the browser
//! board shows it).

use stackfish_games::echo::{echo, echo_path, quote};
use stackfish_games::FenError;

use crate::PADDING;

/// What is wrong with a file, in one line.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SacError {
    /// The file could not be read.
    #[error("{0}")]
    Io(String),
    /// Not `.in`, `.stackboard` nor `.stacksav`.
    #[error("{}: not a StackAndConquer file (expected .in, .stackboard or .stacksav)", echo_path(.0))]
    UnknownKind(String),
    /// `--goal` given for a saved game.
    #[error("--goal is for board files; a saved game has its own goal (WinTowers)")]
    GoalOfSave,
    /// Nothing in the file but blanks.
    #[error("the file is empty")]
    Empty,
    /// Not UTF-8 text.
    #[error("not UTF-8 text")]
    NotText,
    /// A `.stacksav` that is not base64: why, in the file's bytes.
    #[error("the saved game is not valid base64 ({0}); a .stacksav is base64 of a JSON text")]
    NotBase64(String),
    /// Not JSON (or a `.stacksav` whose decoded bytes are not).
    #[error("not JSON: {0}")]
    NotJson(String),
    /// JSON, but not an object.
    #[error("not a JSON object")]
    NotAnObject,
    #[error("missing key \"{0}\"")]
    MissingKey(&'static str),
    /// A key holding the wrong kind of value.
    #[error("key \"{key}\": expected {expected}")]
    WrongType {
        key: &'static str,
        expected: &'static str,
    },
    /// A count that is not a positive (or, where zero is allowed, whole) number.
    #[error("{what}: '{found}' is not a positive whole number")]
    Count { what: String, found: String },
    /// A list of the wrong length (`Board`, `Won`, ...).
    #[error("{what} has {found} entries, expected {expected}")]
    Length {
        what: String,
        found: usize,
        expected: usize,
    },
    /// A `.in` without rows, or a row without cells.
    #[error("no rows of cells after the first line")]
    NoRows,
    /// A `.in` row of another width than the first (`line`: of the file,
    /// counted from 1; the first row is line 2).
    #[error("line {line} (row {}) has {found} cells, line 2 (row 1) has {expected}", line - 1)]
    RowWidth {
        line: usize,
        found: usize,
        expected: usize,
    },
    /// A board cell that is none of `0`, `#`, `-`; `at` says where in the
    /// file's own terms (`line 3, cell 2` of a `.in`, `row 2, column 2`
    /// of a `.stackboard`).
    #[error(
        "{at}: {} is not 0 (playable) nor # or - (not part of the board)",
        quote(text)
    )]
    BadBoardCell { at: String, text: String },
    /// A saved-game cell that is none of `""`, `#`, `-` or a stack of 1 and 2.
    #[error(
        "row {row}, column {column}: \"{}\" is not a stack of the digits 1 and 2, \"\" (empty), # or -",
        echo(text)
    )]
    BadStack {
        row: usize,
        column: usize,
        text: String,
    },
    /// A stack or empty cell in the padding of a saved game.
    #[error(
        "row {row}, column {column} of the padded Board is in the {PADDING}-cell padding but holds \"{}\"",
        echo(text),
        PADDING = PADDING
    )]
    InPadding {
        row: usize,
        column: usize,
        text: String,
    },
    /// A saved board whose padding fits no grid, or several.
    #[error("{0}")]
    Shape(String),
    /// `NumOfPlayers` other than 2.
    #[error("NumOfPlayers is {0}: stackfish plays Mixtour for two players")]
    Players(u64),
    /// `Current` not one of the players.
    #[error("Current is {0}: the player to move must be 1 or 2")]
    Current(u64),
    /// A file's error, `name` naming the file (`import`, `import_bytes`).
    #[error("{}: {error}", echo_path(name))]
    InFile { name: String, error: Box<SacError> },
    /// A position string the rules library cannot read.
    #[error(transparent)]
    Fen(#[from] FenError),
    /// The rules library has no game named `mixtour` (never, in a build
    /// of this workspace).
    #[error("the rules library has no Mixtour")]
    NoMixtour,
    /// A description the rules library refuses (a score past the goal, too
    /// few playable cells, ...).
    #[error("not a position stackfish can play: {0}")]
    Unplayable(FenError),
    /// A grid larger than the rules library plays, in the file's rows and
    /// columns.
    #[error(
        "{} x {}: stackfish plays boards of 1 to {max} of each",
        counted(*.rows, "row"),
        counted(*.columns, "column")
    )]
    GridSize {
        rows: usize,
        columns: usize,
        max: usize,
    },
    /// A stack higher than Mixtour's stacks grow, where the file has it.
    #[error("row {row}, column {column}: a stack of {height} pieces; a Mixtour stack holds at most {max}")]
    StackHeight {
        row: usize,
        column: usize,
        height: usize,
        max: usize,
    },
    /// `--goal` given with a position string (`arena openings --board`).
    #[error("--goal is for board files; the position string {} has its own goal", quote(.0))]
    GoalOfPosition(String),
    /// `stackfish export` without a file to write.
    #[error("nothing to write: give --stacksav FILE, --stackboard FILE or both")]
    NothingToWrite,
    /// A file that could not be written.
    #[error("cannot write {path}: {reason}")]
    Write { path: String, reason: String },
    /// A board file written but then not found again (for its absolute path).
    #[error("cannot find {path} after writing it: {reason}")]
    Lost { path: String, reason: String },
}

/// `n` and the name of what is counted, plural but for one.
fn counted(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}
