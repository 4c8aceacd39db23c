//! The games of a record file one at a time: JSON lines and PGN blocks,
//! either kind (even mixed in one file), from any reader, each line and
//! each block read with a bound, so that a file of any size is read in
//! little memory and a game is parsed only when its user asks.

use std::io::BufRead;

use crate::{parse_pgn, GameRecord, PgnGame, RecordError};

/// The longest line kept (4 MiB: a record of thousands of moves is well
/// under it); a longer one is read to its end and reported, never cut.
pub const MAX_RECORD_LINE: usize = 4 << 20;
/// The largest PGN block kept, for the same reason.
const MAX_PGN_BLOCK: usize = 4 * MAX_RECORD_LINE;

/// What kind of record a game of the file is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordKind {
    /// One JSON line (the arena's `--jsonl`, `datagen`).
    Jsonl,
    /// A PGN block (the arena's `--pgn`, the board's download, `analyse`).
    Pgn,
}

/// One game of a record file, not parsed yet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordItem {
    /// Its place in the file, from 1.
    pub number: usize,
    /// The line it starts on, from 1.
    pub line: usize,
    pub kind: RecordKind,
    /// Its text, or why it could not be read (too long, not UTF-8).
    text: Result<String, String>,
}

impl RecordItem {
    /// The game: a JSON line as a record (no notes, no tags), a PGN block
    /// through [`parse_pgn`]. The error names the game's line.
    pub fn parse(&self) -> Result<PgnGame, RecordError> {
        let at = |what: String| {
            RecordError::Format(format!("game {} (line {}): {what}", self.number, self.line))
        };
        let text = self.text.as_ref().map_err(|e| at(e.clone()))?;
        match self.kind {
            RecordKind::Jsonl => {
                let record = GameRecord::from_json(text)
                    .map_err(|e| at(format!("not a game record: {e}")))?;
                let notes = vec![Default::default(); record.moves.len()];
                Ok(PgnGame {
                    record,
                    notes,
                    tags: Vec::new(),
                })
            }
            RecordKind::Pgn => parse_pgn(text).map_err(|e| at(e.to_string())),
        }
    }
}

/// One line as the reader sees it.
enum Read {
    Text(String),
    /// Longer than [`MAX_RECORD_LINE`] or not UTF-8: the reason.
    Bad(&'static str),
    End,
    Failed(std::io::Error),
}

/// The games of a record file in order ([`RecordItem`]s). A JSON line is a
/// game; a PGN block is its tags and move text, up to a blank line after
/// the move text or the next block's first tag. Blank lines between games
/// are skipped. A read error ends the games with one item saying so.
pub struct RecordReader<R: BufRead> {
    input: R,
    /// Lines read so far.
    line: usize,
    count: usize,
    /// A line read that begins the next game.
    pending: Option<(usize, String)>,
    done: bool,
}

impl<R: BufRead> RecordReader<R> {
    pub fn new(input: R) -> RecordReader<R> {
        RecordReader {
            input,
            line: 0,
            count: 0,
            pending: None,
            done: false,
        }
    }

    fn read_line(&mut self) -> Read {
        let mut buf = Vec::new();
        let mut too_long = false;
        loop {
            let chunk = match self.input.fill_buf() {
                Ok(c) => c,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Read::Failed(e),
            };
            if chunk.is_empty() {
                if buf.is_empty() && !too_long {
                    return Read::End;
                }
                break;
            }
            let (part, done) = match chunk.iter().position(|&b| b == b'\n') {
                Some(i) => (&chunk[..i], true),
                None => (chunk, false),
            };
            if buf.len() + part.len() > MAX_RECORD_LINE {
                too_long = true;
                buf = Vec::new();
            } else if !too_long {
                buf.extend_from_slice(part);
            }
            let used = part.len() + usize::from(done);
            self.input.consume(used);
            if done {
                break;
            }
        }
        self.line += 1;
        if too_long {
            return Read::Bad("a line longer than 4 MiB: not a record");
        }
        if buf.last() == Some(&b'\r') {
            buf.pop();
        }
        match String::from_utf8(buf) {
            Ok(text) => Read::Text(text),
            Err(_) => Read::Bad("not UTF-8 text"),
        }
    }

    fn item(&mut self, line: usize, kind: RecordKind, text: Result<String, String>) -> RecordItem {
        self.count += 1;
        RecordItem {
            number: self.count,
            line,
            kind,
            text,
        }
    }

    /// The rest of a PGN block begun by `first` (read at line `start`).
    fn pgn_block(&mut self, start: usize, first: String) -> RecordItem {
        let mut text = first;
        let mut movetext = !text.trim_start().starts_with('[');
        let mut problem: Option<String> = None;
        loop {
            let line = match self.read_line() {
                Read::Text(t) => t,
                Read::Bad(why) => {
                    problem.get_or_insert_with(|| format!("line {}: {why}", self.line));
                    continue;
                }
                Read::End => break,
                Read::Failed(e) => {
                    problem.get_or_insert_with(|| format!("cannot read on: {e}"));
                    self.done = true;
                    break;
                }
            };
            let t = line.trim_start();
            if movetext && t.is_empty() {
                break;
            }
            // The next game's first tag, or a JSON line: the block is over.
            if movetext && (t.starts_with('[') || t.starts_with('{') && t.starts_with("{\"")) {
                self.pending = Some((self.line, line));
                break;
            }
            if !t.is_empty() && !t.starts_with('[') {
                movetext = true;
            }
            if text.len() + line.len() > MAX_PGN_BLOCK {
                problem.get_or_insert_with(|| "a PGN block larger than 16 MiB: not a game".into());
                continue;
            }
            text.push('\n');
            text.push_str(&line);
        }
        let text = match problem {
            Some(p) => Err(p),
            None => Ok(text),
        };
        self.item(start, RecordKind::Pgn, text)
    }
}

impl<R: BufRead> Iterator for RecordReader<R> {
    type Item = RecordItem;

    fn next(&mut self) -> Option<RecordItem> {
        loop {
            let (line_no, line) = match self.pending.take() {
                Some(p) => p,
                None => {
                    if self.done {
                        return None;
                    }
                    match self.read_line() {
                        Read::Text(t) => (self.line, t),
                        Read::Bad(why) => {
                            let line = self.line;
                            return Some(self.item(line, RecordKind::Jsonl, Err(why.to_string())));
                        }
                        Read::End => return None,
                        Read::Failed(e) => {
                            self.done = true;
                            let line = self.line + 1;
                            return Some(self.item(
                                line,
                                RecordKind::Jsonl,
                                Err(format!("cannot read on: {e}")),
                            ));
                        }
                    }
                }
            };
            let t = line.trim_start();
            if t.is_empty() {
                continue;
            }
            // A PGN block starts with a tag or a move; a JSON record with `{`.
            if t.starts_with('{') {
                return Some(self.item(line_no, RecordKind::Jsonl, Ok(line)));
            }
            return Some(self.pgn_block(line_no, line));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::sample;

    fn read(text: &[u8]) -> Vec<RecordItem> {
        // A small buffer, so that lines arrive in pieces.
        RecordReader::new(std::io::BufReader::with_capacity(7, text)).collect()
    }

    #[test]
    fn jsonl_and_pgn_games_come_one_at_a_time_in_order() {
        let rec = sample();
        let json = serde_json::to_string(&rec).unwrap();
        let mut second = rec.clone();
        second.game = 4;
        let text = format!(
            "\n{json}\n\n{}{}\n{json}\r\n",
            rec.pgn(),
            second.pgn_at("stackfish serve").trim_end()
        );
        let items = read(text.as_bytes());
        let kinds: Vec<(usize, usize, RecordKind)> =
            items.iter().map(|i| (i.number, i.line, i.kind)).collect();
        let pgn_lines = rec.pgn().lines().count();
        assert_eq!(
            kinds,
            [
                (1, 2, RecordKind::Jsonl),
                (2, 4, RecordKind::Pgn),
                (3, 4 + pgn_lines, RecordKind::Pgn),
                (4, 4 + 2 * pgn_lines - 1, RecordKind::Jsonl),
            ]
        );
        let games: Vec<u32> = items
            .iter()
            .map(|i| i.parse().unwrap().record.game)
            .collect();
        assert_eq!(games, [3, 3, 4, 3]);
        assert_eq!(items[0].parse().unwrap().record, rec);
        assert_eq!(items[1].parse().unwrap().record.moves, rec.moves);
    }

    #[test]
    fn bad_games_are_reported_with_their_line_and_the_rest_still_read() {
        let rec = sample();
        let json = serde_json::to_string(&rec).unwrap();
        let long = "x".repeat(MAX_RECORD_LINE + 1);
        let mut text = format!("{{\"moves\": 3}}\n{long}\n{json}\n").into_bytes();
        text.extend_from_slice(b"{\"moves\":[],\"event\":\"\xff\"}\n");
        text.extend_from_slice(json.as_bytes());
        let items = read(&text);
        assert_eq!(items.len(), 5);
        let e = items[0].parse().unwrap_err().to_string();
        assert!(
            e.starts_with("config error: game 1 (line 1): not a game record: invalid type"),
            "{e}"
        );
        let e = items[1].parse().unwrap_err().to_string();
        assert!(
            e.contains("game 2 (line 2): a line longer than 4 MiB"),
            "{e}"
        );
        assert!(items[2].parse().is_ok());
        let e = items[3].parse().unwrap_err().to_string();
        assert!(e.contains("game 4 (line 4): not UTF-8"), "{e}");
        // The last line has no newline: it is read all the same.
        assert_eq!(items[4].parse().unwrap().record, rec);
    }

    #[test]
    fn an_empty_file_has_no_games() {
        assert!(read(b"").is_empty());
        assert!(read(b"\n \n\r\n").is_empty());
    }
}
