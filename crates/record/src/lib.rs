//! Game records: one JSON line and one PGN-style block per finished game,
//! appended and flushed the moment the game ends; read back strictly by the
//! arena (`--resume`, `arena merge`) and leniently by the tools (`tune`,
//! `train`, `tactics --generate` over `datagen`'s and the arena's records).
//! `pgn`: blocks with notes on their moves (annotated reviews) and the PGN
//! reader; `stream`: the games of a record file of either kind one at a
//! time, for files too large to read whole.

use serde::de::IgnoredAny;
use serde::{Deserialize, Serialize};
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use stackfish_games::GameResult;

mod pgn;
mod stream;

pub use pgn::{parse_pgn, MoveNote, PgnGame};
pub use stream::{RecordItem, RecordKind, RecordReader, MAX_RECORD_LINE};

/// A record file that cannot be opened, read, written or understood.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// Files that cannot be read or written.
    #[error("i/o error: {0}")]
    Io(String),
    /// A file that is not what its name says (a line that is not a record,
    /// a sink that is not JSONL or PGN).
    #[error("config error: {0}")]
    Format(String),
}

/// Width PGN move text is wrapped at.
const PGN_LINE: usize = 80;

/// One move as recorded: the canonical text and what the engine said.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveRecord {
    #[serde(rename = "move")]
    pub mv: String,
    /// An opening move from the suite, not played by an engine.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub book: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cp: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mate: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ms: Option<u64>,
}

impl MoveRecord {
    /// An opening move from the suite.
    pub fn book(mv: &str) -> MoveRecord {
        MoveRecord {
            mv: mv.to_string(),
            book: true,
            ..MoveRecord::default()
        }
    }
}

/// A finished game: one line of a JSONL file. The arena writes every field
/// but `nodes` and `seed`; self-play (`stackfish datagen`) writes no match
/// fields (`round`, `opening`, `date`, `fen`, `time_control`,
/// `duration_ms`) but `nodes` and `seed`. Reading, only `moves` is required:
/// the tools take records of either kind and hand-written ones; the arena
/// checks that its own fields are all there ([`parse_jsonl`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameRecord {
    /// The schedule's game number (1-based): the key for `--resume`.
    #[serde(default)]
    pub game: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round: Option<u32>,
    /// Index of the opening in the suite (0-based).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opening: Option<usize>,
    #[serde(default)]
    pub event: String,
    /// `YYYY.MM.DD`, UTC, when the game started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    /// Empty: standard Mixtour (records from before the variant was written).
    #[serde(default)]
    pub variant: String,
    #[serde(default)]
    pub player1: String,
    #[serde(default)]
    pub player2: String,
    /// The start position of the game (before the book moves); `startpos`
    /// (an engine-refereed game) or none: the variant's start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fen: Option<String>,
    pub moves: Vec<MoveRecord>,
    /// `1-0`, `0-1` or `1/2-1/2`, from player 1's side; `*` a voided game.
    #[serde(default)]
    pub result: String,
    #[serde(default)]
    pub termination: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_control: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// Self-play: nodes searched per move.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u64>,
    /// Self-play: the seed of the run (game k is fixed by it and k).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
}

/// The fields every arena record has, in `GameRecord`'s order: a line
/// without one of them is not a game of a match (`--resume`, `arena
/// merge`). Read by serde, so a missing field is reported in its words
/// (`missing field `round` at line 1 column 947`), as when these fields
/// were not optional.
#[derive(Deserialize)]
#[allow(dead_code)] // Only their presence counts.
struct MatchFields {
    game: IgnoredAny,
    round: IgnoredAny,
    opening: IgnoredAny,
    event: IgnoredAny,
    date: IgnoredAny,
    variant: IgnoredAny,
    player1: IgnoredAny,
    player2: IgnoredAny,
    fen: IgnoredAny,
    moves: IgnoredAny,
    result: IgnoredAny,
    termination: IgnoredAny,
    time_control: IgnoredAny,
    duration_ms: IgnoredAny,
}

impl GameRecord {
    /// One record from its JSON line.
    pub fn from_json(line: &str) -> Result<GameRecord, serde_json::Error> {
        serde_json::from_str(line)
    }

    pub fn game_result(&self) -> Option<GameResult> {
        parse_result(&self.result)
    }

    /// The PGN-style text block of this game.
    pub fn pgn(&self) -> String {
        self.pgn_at("stackfish arena")
    }

    /// The PGN-style text block with the given `Site` tag (the arena, or the
    /// browser board, which writes its games in the same format).
    pub fn pgn_at(&self, site: &str) -> String {
        let mut s = self.pgn_tags(site, &[]);
        s.push('\n');
        let mut words = Vec::new();
        for (i, m) in self.moves.iter().enumerate() {
            if i % 2 == 0 {
                words.push(format!("{}.", i / 2 + 1));
            }
            words.push(m.mv.clone());
            // A move nobody reported anything about (a person's) gets none.
            if pgn::has_record_comment(m) {
                words.push(format!("{{{}}}", move_comment(m)));
            }
        }
        words.push(self.result.clone());
        pgn::wrap_words(&mut s, words);
        s
    }
}

/// `book`, or `score/depth time`: `+0.35/8 0.102s`, `-M3/12 1.500s`, `?` for
/// what the engine did not report. Scores are centi-units shown /100 as
/// chess tools expect.
pub fn move_comment(m: &MoveRecord) -> String {
    if m.book {
        return "book".into();
    }
    let score = match (m.cp, m.mate) {
        (_, Some(n)) if n >= 0 => format!("+M{n}"),
        (_, Some(n)) => format!("-M{}", n.unsigned_abs()),
        (Some(cp), None) => format!("{:+.2}", cp as f64 / 100.0),
        (None, None) => "?".into(),
    };
    let depth = m.depth.map_or("?".to_string(), |d| d.to_string());
    let time =
        m.ms.map_or("?".to_string(), |ms| format!("{:.3}s", ms as f64 / 1000.0));
    format!("{score}/{depth} {time}")
}

/// A tag value as PGN writes it: `\` and `"` escaped, and every control
/// character (a line break above all, which would end the tag's line and
/// begin another) written as a space.
fn pgn_escape(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect::<String>()
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
}

pub fn parse_result(text: &str) -> Option<GameResult> {
    match text {
        "1-0" => Some(GameResult::P1Win),
        "0-1" => Some(GameResult::P2Win),
        "1/2-1/2" => Some(GameResult::Draw),
        _ => None,
    }
}

/// Where finished games go. Every write is flushed before the next game is
/// reported, so a killed arena loses no finished game.
#[derive(Default)]
pub struct Sinks {
    pgn: Option<(PathBuf, File)>,
    jsonl: Option<(PathBuf, File)>,
    torn_cut: u64,
    torn_pgn: u64,
}

fn open_append(path: &Path) -> Result<File, RecordError> {
    OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| RecordError::Io(format!("cannot open {}: {e}", path.display())))
}

impl Sinks {
    /// Opens the record files for appending. Without `resume`, an existing
    /// non-empty JSONL file is an error rather than being mixed into; with
    /// it, a torn last line is cut off first ([`Sinks::torn_cut`]).
    pub fn open(
        pgn: Option<&Path>,
        jsonl: Option<&Path>,
        resume: bool,
    ) -> Result<Sinks, RecordError> {
        if let Some(p) = jsonl {
            let non_empty = std::fs::metadata(p).map(|m| m.len() > 0).unwrap_or(false);
            if non_empty && !resume {
                return Err(RecordError::Format(format!(
                    "{} already holds games: pass --resume to continue that match, or remove it",
                    p.display()
                )));
            }
        }
        // Appending after a torn line would glue the next record onto it.
        let torn_cut = match (jsonl, resume) {
            (Some(p), true) => cut_torn_tail(p)?,
            _ => 0,
        };
        // And after a torn PGN game, the next game onto its moves.
        let torn_pgn = match (pgn, resume) {
            (Some(p), true) => cut_torn_pgn(p)?,
            _ => 0,
        };
        Ok(Sinks {
            torn_cut,
            torn_pgn,
            pgn: pgn
                .map(|p| open_append(p).map(|f| (p.to_path_buf(), f)))
                .transpose()?,
            jsonl: jsonl
                .map(|p| open_append(p).map(|f| (p.to_path_buf(), f)))
                .transpose()?,
        })
    }

    /// Bytes of a torn last line cut off the JSONL file on opening it to resume.
    pub fn torn_cut(&self) -> u64 {
        self.torn_cut
    }

    /// Bytes of a torn last game cut off the PGN file on opening it to
    /// resume ([`cut_torn_pgn`]).
    pub fn torn_pgn(&self) -> u64 {
        self.torn_pgn
    }

    /// Writes `rec` to the PGN file only: a game the JSONL file holds whole
    /// whose PGN block was torn or never written (the JSONL line is
    /// written first; [`pgn_game_numbers`] tells which are missing).
    pub fn write_pgn(&mut self, rec: &GameRecord) -> Result<(), RecordError> {
        if let Some((path, f)) = &mut self.pgn {
            f.write_all(rec.pgn().as_bytes())
                .and_then(|_| f.flush())
                .map_err(|e| RecordError::Io(format!("{}: {e}", path.display())))?;
        }
        Ok(())
    }

    pub fn write(&mut self, rec: &GameRecord) -> Result<(), RecordError> {
        if let Some((path, f)) = &mut self.jsonl {
            let mut line = serde_json::to_string(rec)
                .map_err(|e| RecordError::Io(format!("cannot encode record: {e}")))?;
            line.push('\n');
            // One write call per record: a kill leaves at most a torn last line.
            f.write_all(line.as_bytes())
                .and_then(|_| f.flush())
                .map_err(|e| RecordError::Io(format!("{}: {e}", path.display())))?;
        }
        self.write_pgn(rec)
    }
}

/// Reads the finished games of an arena JSONL file ([`parse_jsonl`]); a
/// missing file holds no games (a match not started yet).
pub fn read_jsonl(path: &Path) -> Result<Vec<GameRecord>, RecordError> {
    read_jsonl_file(path).map(|f| f.records)
}

/// The games of a JSONL file and what was left out of it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JsonlFile {
    pub records: Vec<GameRecord>,
    /// Bytes after the last complete line (a writer killed mid-line, or
    /// one still writing): not a game, and never counted.
    pub torn_bytes: u64,
}

impl JsonlFile {
    /// The note a reader prints about the torn tail, if there is one.
    pub fn torn_note(&self, path: &Path) -> Option<String> {
        (self.torn_bytes > 0).then(|| {
            format!(
                "{}: the last line is cut off ({} bytes after the last complete line): not counted",
                path.display(),
                self.torn_bytes
            )
        })
    }
}

/// [`read_jsonl`] that also tells the size of a torn last line.
pub fn read_jsonl_file(path: &Path) -> Result<JsonlFile, RecordError> {
    let bytes = match std::fs::read(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(JsonlFile::default()),
        Err(e) => {
            return Err(RecordError::Io(format!(
                "cannot read {}: {e}",
                path.display()
            )))
        }
    };
    let complete = complete_len(&bytes);
    let text = std::str::from_utf8(&bytes[..complete])
        .map_err(|e| RecordError::Format(format!("{}: not UTF-8 text: {e}", path.display())))?;
    Ok(JsonlFile {
        records: parse_jsonl(text, &path.display().to_string())?,
        torn_bytes: (bytes.len() - complete) as u64,
    })
}

/// The length of the complete lines of `bytes` (up to and with the last `\n`).
pub fn complete_len(bytes: &[u8]) -> usize {
    bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1)
}

/// Cuts a torn last line off the file at `path` (back to the end of its last
/// complete line), so that what is appended next starts a line of its own;
/// returns the number of bytes cut (0: none, or no such file).
pub fn cut_torn_tail(path: &Path) -> Result<u64, RecordError> {
    let io = |e: std::io::Error| RecordError::Io(format!("{}: {e}", path.display()));
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(io(e)),
    };
    let complete = complete_len(&bytes);
    if complete == bytes.len() {
        return Ok(0);
    }
    OpenOptions::new()
        .write(true)
        .open(path)
        .and_then(|f| f.set_len(complete as u64).and_then(|_| f.sync_all()))
        .map_err(io)?;
    Ok((bytes.len() - complete) as u64)
}

/// The length of the whole games at the start of the PGN text `bytes`, as
/// the arena writes them ([`GameRecord::pgn`]: tag lines, a blank line,
/// the moves ending with the result, a blank line): up to the blank line
/// after the last move text that ends with a result. Tag lines never end a
/// game, so a game torn right after its tags is not taken for a whole one.
pub fn complete_pgn_len(bytes: &[u8]) -> usize {
    const RESULTS: [&[u8]; 4] = [b"1-0", b"0-1", b"1/2-1/2", b"*"];
    let mut end = bytes.len();
    while let Some(i) = bytes[..end].windows(2).rposition(|w| w == b"\n\n") {
        let line_start = bytes[..i]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |j| j + 1);
        let line = &bytes[line_start..i];
        let last_word = line.split(|&b| b == b' ').next_back().unwrap_or_default();
        if !line.starts_with(b"[") && RESULTS.contains(&last_word) {
            return i + 2;
        }
        end = i + 1;
    }
    0
}

/// Cuts a torn last game off the arena's PGN file at `path` (back to the
/// end of its last whole game, [`complete_pgn_len`]), so that the next game
/// is appended after a whole one, as [`cut_torn_tail`] does for JSONL;
/// returns the number of bytes cut. Only a tail that begins as the arena
/// begins a game (`[Event "`) is cut: text of another program is left
/// alone. No such file: nothing to cut.
pub fn cut_torn_pgn(path: &Path) -> Result<u64, RecordError> {
    const GAME_START: &[u8] = b"[Event \"";
    let io = |e: std::io::Error| RecordError::Io(format!("{}: {e}", path.display()));
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(io(e)),
    };
    let complete = complete_pgn_len(&bytes);
    let tail = &bytes[complete..];
    let ours = tail.starts_with(GAME_START) || GAME_START.starts_with(tail);
    if tail.is_empty() || !ours {
        return Ok(0);
    }
    OpenOptions::new()
        .write(true)
        .open(path)
        .and_then(|f| f.set_len(complete as u64).and_then(|_| f.sync_all()))
        .map_err(io)?;
    Ok(tail.len() as u64)
}

/// The game numbers (`[Game "N"]` tags) of a PGN file; none for a file
/// that does not exist.
pub fn pgn_game_numbers(path: &Path) -> Result<std::collections::BTreeSet<u32>, RecordError> {
    let text = match std::fs::read(path) {
        Ok(b) => String::from_utf8_lossy(&b).into_owned(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => {
            return Err(RecordError::Io(format!(
                "cannot read {}: {e}",
                path.display()
            )))
        }
    };
    Ok(text
        .lines()
        .filter_map(|l| {
            l.strip_prefix("[Game \"")?
                .strip_suffix("\"]")?
                .parse()
                .ok()
        })
        .collect())
}

/// The games of the arena's JSONL text `text` read from `name`, every line a
/// complete match record. A torn last line (the arena was killed while
/// writing it) is skipped; any other bad line is an error naming `name` and
/// the line.
pub fn parse_jsonl(text: &str, name: &str) -> Result<Vec<GameRecord>, RecordError> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match parse_match_record(line) {
            Ok(r) => out.push(r),
            Err(_) if i + 1 == lines.len() && !text.ends_with('\n') => {}
            Err(e) => {
                return Err(RecordError::Format(format!(
                    "{name} line {}: not a game record: {e}",
                    i + 1
                )))
            }
        }
    }
    Ok(out)
}

/// One line as a record with every field of a match. The record is read
/// first, so a field of the wrong type is reported before a missing one.
fn parse_match_record(line: &str) -> Result<GameRecord, serde_json::Error> {
    let record = GameRecord::from_json(line)?;
    serde_json::from_str::<MatchFields>(line)?;
    Ok(record)
}

/// Every record of a JSON-lines text of any writer (the arena, the browser
/// board, `stackfish datagen`, by hand), each non-blank line read on its
/// own: its number (from 1) and the record, or why the line is not one. For
/// the tools that skip what they cannot use.
pub fn records(
    text: &str,
) -> impl Iterator<Item = (usize, Result<GameRecord, serde_json::Error>)> + '_ {
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(i, line)| (i + 1, GameRecord::from_json(line)))
}

/// Today's date (UTC) as `YYYY.MM.DD`, without a date library.
pub fn today() -> String {
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64);
    date_at(ms)
}

/// The PGN date (`YYYY.MM.DD`, UTC) of `unix_ms` milliseconds since the
/// Unix epoch: for hosts whose clock is not the system's (the browser,
/// where `SystemTime::now` panics).
pub fn date_at(unix_ms: u64) -> String {
    let (y, m, d) = civil_from_days((unix_ms / 86_400_000) as i64);
    format!("{y:04}.{m:02}.{d:02}")
}

/// Days since 1970-01-01 to a proleptic Gregorian date (H. Hinnant's
/// algorithm): year, month, day. The one calendar of the workspace, for
/// the PGN dates and the bot's log times.
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use crate::*;

    /// Found by the fuzz target `record_jsonl` (from a crafted input): a
    /// mate score of i32::MIN overflowed its negation in the PGN comment.
    #[test]
    fn fuzz_record_jsonl_mate_at_i32_min() {
        let r = GameRecord::from_json(r#"{"moves":[{"move":"c3","mate":-2147483648}]}"#).unwrap();
        assert_eq!(move_comment(&r.moves[0]), "-M2147483648/? ?");
    }

    /// Found by the fuzz target `record_jsonl`: a line break in a field
    /// (a player's name) ended its PGN tag line and began a forged tag.
    #[test]
    fn fuzz_record_jsonl_line_break_in_a_tag() {
        let json = r#"{"moves":[],"player1":"a\n[Result \"1-0\"]\u0007","result":"0-1"}"#;
        let pgn = GameRecord::from_json(json).unwrap().pgn();
        assert!(
            pgn.contains("[Player1 \"a [Result \\\"1-0\\\"] \"]\n"),
            "{pgn}"
        );
        let results = pgn.lines().filter(|l| l.starts_with("[Result")).count();
        assert_eq!(results, 1, "{pgn}");
    }

    #[test]
    fn a_move_with_nothing_reported_has_no_comment() {
        let mut rec = sample();
        rec.moves.push(MoveRecord {
            mv: "e5".into(),
            ..Default::default()
        });
        let pgn = rec.pgn_at("stackfish serve");
        assert!(pgn.contains("[Site \"stackfish serve\"]"));
        assert!(pgn.contains("e5 "), "{pgn}");
        assert!(!pgn.contains("e5 {"), "{pgn}");
        assert!(pgn.contains("d4 {+0.35/8 0.102s}"), "{pgn}");
    }

    pub(crate) fn sample() -> GameRecord {
        GameRecord {
            game: 3,
            round: Some(2),
            opening: Some(1),
            event: "test \"quoted\"".into(),
            date: Some("2026.11.29".into()),
            variant: "mixtour".into(),
            player1: "A".into(),
            player2: "B".into(),
            fen: Some("x5/x5/x5/x5/x5 1 20,20 0,0 1 -".into()),
            moves: vec![
                MoveRecord {
                    mv: "c3".into(),
                    book: true,
                    ..Default::default()
                },
                MoveRecord {
                    mv: "d4".into(),
                    cp: Some(35),
                    depth: Some(8),
                    ms: Some(102),
                    ..Default::default()
                },
                MoveRecord {
                    mv: "c3d4".into(),
                    mate: Some(-3),
                    depth: Some(12),
                    ms: Some(1500),
                    ..Default::default()
                },
            ],
            result: "0-1".into(),
            termination: "A: illegal move 3a1b2".into(),
            time_control: Some("10+0.1".into()),
            duration_ms: Some(1234),
            nodes: None,
            seed: None,
        }
    }

    #[test]
    fn pgn_block() {
        let pgn = sample().pgn();
        assert!(pgn.contains("[Event \"test \\\"quoted\\\"\"]\n"));
        assert!(pgn.contains("[FEN \"x5/x5/x5/x5/x5 1 20,20 0,0 1 -\"]"));
        assert!(pgn.contains("[Termination \"A: illegal move 3a1b2\"]"));
        assert!(
            pgn.contains("1. c3 {book} d4 {+0.35/8 0.102s} 2. c3d4 {-M3/12 1.500s} 0-1"),
            "{pgn}"
        );
    }

    /// What a kill mid-write leaves: a folder `tag` with `g.jsonl` holding
    /// one whole record and [`TORN`] after it. Returns the folder and file.
    fn torn_file(tag: &str) -> (std::path::PathBuf, std::path::PathBuf) {
        let dir = std::env::temp_dir().join(format!("arena-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("g.jsonl");
        let _ = std::fs::remove_file(&path);
        let mut sinks = Sinks::open(None, Some(&path), false).unwrap();
        sinks.write(&sample()).unwrap();
        drop(sinks);
        assert!(
            Sinks::open(None, Some(&path), false).is_err(),
            "no silent mixing"
        );
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(TORN).unwrap();
        (dir, path)
    }

    /// The start of a record cut off mid-write.
    const TORN: &[u8] = b"{\"game\": 4, \"rou";

    #[test]
    fn jsonl_round_trip_and_torn_last_line() {
        let (dir, path) = torn_file("rec");
        let back = read_jsonl(&path).unwrap();
        assert_eq!(back, vec![sample()]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn resuming_after_a_torn_line_cuts_it_and_keeps_every_record() {
        let (dir, path) = torn_file("torn");
        let torn = TORN;
        let read = read_jsonl_file(&path).unwrap();
        assert_eq!(read.records, vec![sample()]);
        assert_eq!(read.torn_bytes, torn.len() as u64);
        let note = read.torn_note(&path).unwrap();
        assert!(note.contains(&format!("{} bytes", torn.len())), "{note}");
        let mut sinks = Sinks::open(None, Some(&path), true).unwrap();
        assert_eq!(sinks.torn_cut(), torn.len() as u64);
        let mut next = sample();
        next.game = 4;
        sinks.write(&next).unwrap();
        drop(sinks);
        let read = read_jsonl_file(&path).unwrap();
        assert_eq!(read.records, vec![sample(), next]);
        assert_eq!(read.torn_bytes, 0);
        assert_eq!(cut_torn_tail(&path).unwrap(), 0);
        assert_eq!(cut_torn_tail(&dir.join("none.jsonl")).unwrap(), 0);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn resuming_cuts_a_torn_pgn_game_wherever_it_was_cut() {
        let dir = std::env::temp_dir().join(format!("arena-torn-pgn-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("g.pgn");
        let whole = sample().pgn();
        let mut next = sample();
        next.game = 4;
        let torn = next.pgn();
        // Cut anywhere in the next game, even right after its tags or in
        // its first word: the file goes back to the first game alone.
        let after_tags = torn.find("\n\n").unwrap() + 2;
        for cut in [1, 5, 30, after_tags, torn.len() - 3, torn.len() - 1] {
            std::fs::write(&path, format!("{whole}{}", &torn[..cut])).unwrap();
            let mut sinks = Sinks::open(Some(&path), None, true).unwrap();
            assert_eq!(sinks.torn_pgn(), cut as u64, "cut at {cut}");
            assert_eq!(
                pgn_game_numbers(&path)
                    .unwrap()
                    .into_iter()
                    .collect::<Vec<_>>(),
                [sample().game],
                "cut at {cut}"
            );
            sinks.write_pgn(&next).unwrap();
            drop(sinks);
            let text = std::fs::read_to_string(&path).unwrap();
            assert_eq!(text, format!("{whole}{torn}"), "cut at {cut}");
        }
        // A whole file, an empty one, or none: nothing is cut.
        for text in [format!("{whole}{torn}"), String::new()] {
            std::fs::write(&path, &text).unwrap();
            let sinks = Sinks::open(Some(&path), None, true).unwrap();
            assert_eq!(sinks.torn_pgn(), 0);
            drop(sinks);
            assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
        }
        assert_eq!(cut_torn_pgn(&dir.join("none.pgn")).unwrap(), 0);
        assert!(pgn_game_numbers(&dir.join("none.pgn")).unwrap().is_empty());
        // Text that is not the start of one of our games is left alone.
        let foreign = format!("{whole}; a note by hand\n");
        std::fs::write(&path, &foreign).unwrap();
        assert_eq!(cut_torn_pgn(&path).unwrap(), 0);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), foreign);
        // Without --resume the file is only appended to.
        std::fs::write(&path, format!("{whole}{}", &torn[..30])).unwrap();
        let sinks = Sinks::open(Some(&path), None, false).unwrap();
        assert_eq!(sinks.torn_pgn(), 0);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_arena_record_needs_every_field_it_writes() {
        let line = serde_json::to_string(&sample()).unwrap();
        assert_eq!(parse_jsonl(&line, "g.jsonl").unwrap(), vec![sample()]);
        let fields: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(&line).unwrap();
        for key in fields.keys() {
            let mut without = fields.clone();
            without.remove(key);
            let text = format!("{}\n", serde_json::Value::Object(without));
            let e = parse_jsonl(&text, "g.jsonl").unwrap_err().to_string();
            let want = format!("config error: g.jsonl line 1: not a game record: missing field `{key}` at line 1 column ");
            assert!(e.starts_with(&want), "{e}");
            // The tools read it all the same.
            assert!(records(&text).all(|(_, r)| r.is_ok() == (key != "moves")));
        }
    }

    #[test]
    fn a_self_play_record_writes_only_what_it_has() {
        let rec = GameRecord {
            game: 1,
            round: None,
            opening: None,
            event: "stackfish datagen".into(),
            date: None,
            variant: "mixtour".into(),
            player1: "stackfish".into(),
            player2: "stackfish".into(),
            fen: None,
            moves: vec![MoveRecord::book("c3")],
            result: "1-0".into(),
            termination: "tower".into(),
            time_control: None,
            duration_ms: None,
            nodes: Some(300),
            seed: Some(7),
        };
        let line = serde_json::to_value(&rec).unwrap().to_string();
        assert_eq!(
            line,
            r#"{"event":"stackfish datagen","game":1,"moves":[{"book":true,"move":"c3"}],"nodes":300,"player1":"stackfish","player2":"stackfish","result":"1-0","seed":7,"termination":"tower","variant":"mixtour"}"#
        );
        assert_eq!(GameRecord::from_json(&line).unwrap(), rec);
    }

    #[test]
    fn the_tools_read_partial_records_and_number_every_line() {
        let text = "\n{\"moves\":[{\"move\":\"c3\"}]}\nnot json\n  \n{\"result\":\"1-0\"}\n";
        let got: Vec<(usize, bool)> = records(text).map(|(n, r)| (n, r.is_ok())).collect();
        assert_eq!(
            got,
            vec![(2, true), (3, false), (5, false)],
            "moves are required"
        );
        let (_, first) = records(text).next().unwrap();
        let first = first.unwrap();
        assert_eq!((first.variant.as_str(), first.fen), ("", None));
    }

    #[test]
    fn dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(20_556), (2026, 4, 13));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        // The last millisecond of a day is still that day.
        assert_eq!(date_at(20_556 * 86_400_000 + 86_399_999), "2026.04.13");
        assert_eq!(date_at(11_016 * 86_400_000), "2000.02.29");
    }
}
