//! What can go wrong reading, checking and writing StackAndConquer files,
//! each in one line (the binaries print it after `error: `, the browser
//! board shows it).

use stackfish_games::FenError;

use crate::PADDING;

/// What is wrong with a file, in one line.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SacError {
    /// The file could not be read.
    #[error("{0}")]
    Io(String),
    /// Not `.in`, `.stackboard` nor `.stacksav`.
    #[error("{0}: not a StackAndConquer file (expected .in, .stackboard or .stacksav)")]
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
    /// A `.stacksav` that is not base64.
    #[error("not base64 (a .stacksav is base64 of a JSON text): {0}")]
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
    /// A `.in` row of another width than the first.
    #[error("row {row} from the top has {found} cells, the first row has {expected}")]
    RowWidth {
        row: usize,
        found: usize,
        expected: usize,
    },
    /// A board cell that is none of `0`, `#`, `-`.
    #[error(
        "row {row} from the top, column {column}: '{text}' is not 0 (playable) nor # or - (not part of the board)"
    )]
    BadBoardCell {
        row: usize,
        column: usize,
        text: String,
    },
    /// A saved-game cell that is none of `""`, `#`, `-` or a stack of 1 and 2.
    #[error(
        "row {row} from the top, column {column}: \"{text}\" is not a stack of the digits 1 and 2, \"\" (empty), # or -"
    )]
    BadStack {
        row: usize,
        column: usize,
        text: String,
    },
    /// A stack or empty cell in the padding of a saved game.
    #[error(
        "row {row}, column {column} of the padded Board is in the {PADDING}-cell padding but holds \"{text}\"",
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
    #[error("{name}: {error}")]
    InFile { name: String, error: Box<SacError> },
    /// A position string the rules library cannot read.
    #[error(transparent)]
    Fen(#[from] FenError),
    /// The rules library has no game named `mixtour` (never, in a build
    /// of this workspace).
    #[error("the rules library has no Mixtour")]
    NoMixtour,
    /// A description the rules library refuses (a grid larger than it
    /// plays, a stack too high, a score past the goal, ...).
    #[error("not a position stackfish can play: {0}")]
    Unplayable(FenError),
    /// `--goal` given with a position string (`arena openings --board`).
    #[error("--goal is for board files; the position string '{0}' has its own goal")]
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
