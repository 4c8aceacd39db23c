//! The file system side: reading a file by its path and writing the files
//! of `stackfish export`. Everything here reads or writes files and then
//! calls the pure readers and writers of the crate root (which a browser
//! build calls on bytes it was given).

use std::path::Path;

use stackfish_games::echo::echo_path;

use crate::{
    export_description, import_bytes_noted, read_bytes, write_stackboard, write_stacksav,
    Description, Export, FileKind, Imported, SacError,
};

/// Reads any of the three files. `goal` is the goal of a game started on a
/// board file (1 without it); a saved game has its own, so `goal` with a
/// `.stacksav` is refused rather than silently ignored.
pub fn read_path(path: &Path, goal: Option<u32>) -> Result<Description, SacError> {
    let (kind, bytes) = read_file(path)?;
    read_bytes(kind, &bytes, goal)
}

/// A file's kind (by its extension, checked before anything is read) and
/// its bytes.
fn read_file(path: &Path) -> Result<(FileKind, Vec<u8>), SacError> {
    let kind =
        FileKind::of(path).ok_or_else(|| SacError::UnknownKind(path.display().to_string()))?;
    let bytes = read_regular(path, MAX_FILE_BYTES)
        .map_err(|e| SacError::Io(format!("{}: {e}", echo_path(&path.display().to_string()))))?;
    Ok((kind, bytes))
}

/// The largest StackAndConquer file read: the largest board the rules
/// allow is a few kilobytes, a saved game with its moves a few hundred.
pub const MAX_FILE_BYTES: u64 = 4 << 20;

/// The bytes of the regular file `path` (symbolic links followed), if it
/// has at most `limit` bytes: a device (`/dev/zero`), a FIFO or a folder
/// is refused before it is opened (opening a FIFO would block), and a
/// file that grows past `limit` while read is refused, so no input makes
/// a reader wait for ever or run out of memory. The one way stackfish
/// reads a whole file named by a user.
pub fn read_regular(path: &Path, limit: u64) -> std::io::Result<Vec<u8>> {
    use std::io::{Error, ErrorKind, Read};
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        let what = if meta.is_dir() {
            "a folder"
        } else {
            "not a regular file"
        };
        return Err(Error::new(ErrorKind::InvalidInput, what));
    }
    let too_big = |n: String| {
        Error::new(
            ErrorKind::InvalidData,
            format!("{n} bytes: larger than the {limit} bytes this file may have"),
        )
    };
    if meta.len() > limit {
        return Err(too_big(meta.len().to_string()));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    std::fs::File::open(path)?
        .take(limit + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(too_big(format!("more than {limit}")));
    }
    Ok(bytes)
}

/// `stackfish import`: the position string of a file, checked by the rules
/// library and written in its own spelling. A board file gives its start
/// for two players (goal `goal`, 1 without it), a saved game its position.
pub fn import(path: &Path, goal: Option<u32>) -> Result<String, SacError> {
    import_noted(path, goal).map(|i| i.fen)
}

/// [`import`] with the notes on the file (`stackfish import` prints them
/// as `note:` lines).
pub fn import_noted(path: &Path, goal: Option<u32>) -> Result<Imported, SacError> {
    let (kind, bytes) = read_file(path)?;
    import_bytes_noted(&path.display().to_string(), kind, &bytes, goal)
}

/// The start position of `arena openings --board`: a StackAndConquer file
/// (told by its extension) as `import` reads it, or else a position string,
/// returned as given for the rules of the match's game to check.
pub fn board_start(board: &str, goal: Option<u32>) -> Result<String, SacError> {
    let path = Path::new(board);
    match FileKind::of(path) {
        Some(_) => import(path, goal),
        None if goal.is_some() => Err(SacError::GoalOfPosition(board.to_string())),
        None => Ok(board.to_string()),
    }
}

/// `stackfish export`: the position string written as a saved game and/or
/// as the board file of its shape. The save names the board file written
/// with it, by absolute path and by file name. Returns notes for the user
/// (what the files cannot hold).
pub fn export(
    fen: &str,
    stacksav: Option<&Path>,
    stackboard: Option<&Path>,
) -> Result<Vec<String>, SacError> {
    if stacksav.is_none() && stackboard.is_none() {
        return Err(SacError::NothingToWrite);
    }
    let Export {
        mut description,
        forbidden,
    } = export_description(fen)?;
    let mut notes = Vec::new();
    let write = |path: &Path, text: &str| {
        std::fs::write(path, text).map_err(|e| SacError::Write {
            path: path.display().to_string(),
            reason: e.to_string(),
        })
    };
    if let Some(path) = stackboard {
        write(path, &write_stackboard(&description))?;
        let absolute = std::fs::canonicalize(path).map_err(|e| SacError::Lost {
            path: path.display().to_string(),
            reason: e.to_string(),
        })?;
        description.board_file = absolute.display().to_string();
        description.board_file_relative = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
    }
    if let Some(path) = stacksav {
        write(path, &write_stacksav(&description))?;
        if stackboard.is_none() {
            notes.push(format!(
                "{}: names no board file; StackAndConquer opens a saved game only with its \
                 board file (add --stackboard FILE)",
                path.display()
            ));
        }
        if let Some(m) = forbidden {
            notes.push(format!(
                "{}: a saved game holds no last move, so {m} is no longer forbidden there",
                path.display()
            ));
        }
    }
    Ok(notes)
}
