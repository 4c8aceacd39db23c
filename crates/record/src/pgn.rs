//! PGN both ways beyond the plain record: a block with notes on its moves
//! (numeric annotation glyphs, comments, variations: the annotated games of
//! `stackfish analyse`), and the reader of every block we write (the
//! arena's, the browser board's, the annotated ones) and of PGN of other
//! tools as far as it holds moves of our games.

use stackfish_games::Side;

use crate::{move_comment, pgn_escape, GameRecord, MoveRecord, RecordError, PGN_LINE};

/// What a block says of one move besides the move: what `stackfish
/// analyse` writes and what the reader gives back.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MoveNote {
    /// Numeric annotation glyphs in order (`$2`; a suffix `?` on the move
    /// is read as `$2`, `??` `$4`, `?!` `$6`, `!` `$1`, `!!` `$3`, `!?` `$5`).
    pub nags: Vec<u16>,
    /// The comments after the move, in order, without their braces, but the
    /// record's own `{book}` / `{score/depth time}`, which the reader puts
    /// back into the move's fields.
    pub comments: Vec<String>,
    /// The variations after the move (other moves in its place), each as
    /// its move texts; a variation inside a variation is skipped.
    pub variations: Vec<Vec<String>>,
}

/// One block read back: the record, and a note per move (same length as
/// `record.moves`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PgnGame {
    pub record: GameRecord,
    pub notes: Vec<MoveNote>,
    /// Every tag as read, in order (those the record has no field for too).
    pub tags: Vec<(String, String)>,
}

/// The glyph a suffix stands for (PGN's standard suffixes).
fn suffix_nag(suffix: &str) -> Option<u16> {
    Some(match suffix {
        "!" => 1,
        "?" => 2,
        "!!" => 3,
        "??" => 4,
        "!?" => 5,
        "?!" => 6,
        _ => return None,
    })
}

/// A comment as PGN can hold it: a `}` would end it, so it becomes `)`.
fn comment_text(text: &str) -> String {
    text.replace('}', ")")
}

impl GameRecord {
    /// The PGN block of this game with `notes` on its moves (one per move;
    /// missing ones are empty) and `extra` tags after the record's own:
    /// each move, its glyphs, its record comment (if it has one), its note
    /// comments, then its variations with their move numbers. Moves are
    /// numbered per player-1 move, the sides taking turns from `first`.
    pub fn pgn_annotated(
        &self,
        site: &str,
        extra: &[(&str, String)],
        notes: &[MoveNote],
        first: Side,
    ) -> String {
        let mut words = Vec::new();
        let offset = usize::from(first == Side::P2);
        // A player-2 move gets its number (`3...`) when it opens the game
        // or follows a comment or variation, as PGN readers expect.
        let mut renumber = true;
        for (i, m) in self.moves.iter().enumerate() {
            let ply = i + offset;
            if ply % 2 == 0 {
                words.push(format!("{}.", ply / 2 + 1));
            } else if renumber {
                words.push(format!("{}...", ply / 2 + 1));
            }
            words.push(m.mv.clone());
            renumber = false;
            let note = notes.get(i);
            for nag in note.map_or(&[][..], |n| &n.nags[..]) {
                words.push(format!("${nag}"));
            }
            if has_record_comment(m) {
                words.push(format!("{{{}}}", move_comment(m)));
                renumber = true;
            }
            let Some(note) = note else { continue };
            for c in &note.comments {
                words.push(format!("{{{}}}", comment_text(c)));
                renumber = true;
            }
            for line in note.variations.iter().filter(|l| !l.is_empty()) {
                let mut text = Vec::new();
                for (k, mv) in line.iter().enumerate() {
                    let ply = ply + k;
                    if ply % 2 == 0 {
                        text.push(format!("{}.", ply / 2 + 1));
                    } else if k == 0 {
                        text.push(format!("{}...", ply / 2 + 1));
                    }
                    text.push(mv.clone());
                }
                let joined = format!("({})", text.join(" "));
                words.extend(joined.split(' ').map(str::to_string));
                renumber = true;
            }
        }
        words.push(self.result.clone());
        let mut s = self.pgn_tags(site, extra);
        s.push('\n');
        wrap_words(&mut s, words);
        s
    }

    /// The tag lines of the block, the record's then `extra`.
    pub(crate) fn pgn_tags(&self, site: &str, extra: &[(&str, String)]) -> String {
        // PGN's "unknown" for a field the record does not have.
        let known = |v: Option<String>| v.unwrap_or_else(|| "?".to_string());
        let mut s = String::new();
        let tags = [
            ("Event", self.event.clone()),
            ("Site", site.to_string()),
            ("Date", known(self.date.clone())),
            ("Round", known(self.round.map(|r| r.to_string()))),
            ("Game", self.game.to_string()),
            ("Player1", self.player1.clone()),
            ("Player2", self.player2.clone()),
            ("Variant", self.variant.clone()),
            ("FEN", known(self.fen.clone())),
            ("Result", self.result.clone()),
            ("Termination", self.termination.clone()),
            ("TimeControl", known(self.time_control.clone())),
            ("PlyCount", self.moves.len().to_string()),
        ];
        for (k, v) in tags
            .iter()
            .map(|(k, v)| (*k, v))
            .chain(extra.iter().map(|(k, v)| (*k, v)))
        {
            s.push_str(&format!("[{k} \"{}\"]\n", pgn_escape(v)));
        }
        s
    }
}

/// Whether the record writes a comment for this move (an engine said
/// something, or it is a book move): a person's move has none.
pub(crate) fn has_record_comment(m: &MoveRecord) -> bool {
    m.book || m.cp.is_some() || m.mate.is_some() || m.depth.is_some() || m.ms.is_some()
}

/// Appends `words` to `s` wrapped at [`PGN_LINE`] columns, then a blank line.
pub(crate) fn wrap_words(s: &mut String, words: Vec<String>) {
    let mut line = String::new();
    for w in words {
        if !line.is_empty() && line.len() + 1 + w.len() > PGN_LINE {
            s.push_str(&line);
            s.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&w);
    }
    s.push_str(&line);
    s.push_str("\n\n");
}

/// One piece of move text.
#[derive(Debug, PartialEq)]
enum Token<'a> {
    Word(&'a str),
    Comment(&'a str),
    Open,
    Close,
}

/// The move text cut into words, comments and parentheses. A comment not
/// closed, or a `}` that closes none, is an error; `;` comments run to the
/// end of their line.
fn tokens(text: &str) -> Result<Vec<Token<'_>>, String> {
    let mut out = Vec::new();
    let mut rest = text;
    loop {
        rest = rest.trim_start();
        let Some(c) = rest.chars().next() else {
            return Ok(out);
        };
        match c {
            '{' => {
                let end = rest
                    .find('}')
                    .ok_or_else(|| "a comment '{' is never closed".to_string())?;
                out.push(Token::Comment(rest[1..end].trim()));
                rest = &rest[end + 1..];
            }
            ';' => {
                rest = rest.find('\n').map_or("", |end| &rest[end..]);
            }
            '}' => return Err("a '}' closes no comment".to_string()),
            '(' => {
                out.push(Token::Open);
                rest = &rest[1..];
            }
            ')' => {
                out.push(Token::Close);
                rest = &rest[1..];
            }
            _ => {
                let end = rest
                    .find(|c: char| c.is_whitespace() || "{}();".contains(c))
                    .unwrap_or(rest.len());
                out.push(Token::Word(&rest[..end]));
                rest = &rest[end..];
            }
        }
    }
}

/// The game results that end move text.
fn is_result(word: &str) -> bool {
    matches!(word, "1-0" | "0-1" | "1/2-1/2" | "*")
}

/// A word without its move numbers (`12.`, `12...`, `12.c3`, `1.9.c3`):
/// the move text left, if any; `None` when the word is move numbers alone.
/// Every leading number goes, so that what is read as a move is never one
/// a writer would take for a number.
fn strip_number(word: &str) -> Option<&str> {
    let digits = word.len() - word.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 || !word[digits..].starts_with('.') {
        return Some(word);
    }
    let rest = word[digits..].trim_start_matches('.');
    if rest.is_empty() {
        return None;
    }
    strip_number(rest)
}

/// A move word split into the move and the glyph of its suffix (`c3??`).
fn split_suffix(word: &str) -> (&str, Option<u16>) {
    let bare = word.trim_end_matches(['?', '!']);
    if bare.is_empty() {
        return (word, None);
    }
    (bare, suffix_nag(&word[bare.len()..]))
}

/// The record's own comment (`book`, `+0.35/8 0.102s`, `-M3/12 ?`) put
/// back into `m`; `false` when `text` is not one (a free comment).
fn read_record_comment(text: &str, m: &mut MoveRecord) -> bool {
    if text == "book" {
        m.book = true;
        return true;
    }
    let Some((score_depth, time)) = text.split_once(' ') else {
        return false;
    };
    let Some((score, depth)) = score_depth.split_once('/') else {
        return false;
    };
    let (mut cp, mut mate) = (None, None);
    if score != "?" {
        if let Some(n) = score.strip_prefix("+M") {
            mate = Some(n.parse::<i32>().ok().filter(|n| *n >= 0));
        } else if let Some(n) = score.strip_prefix("-M") {
            mate = Some(n.parse::<i64>().ok().and_then(|n| i32::try_from(-n).ok()));
        } else {
            let pawns: f64 = match score.parse() {
                Ok(p) if score.starts_with(['+', '-']) => p,
                _ => return false,
            };
            cp = Some(Some((pawns * 100.0).round() as i32));
        }
    }
    let depth = match depth {
        "?" => None,
        d => match d.parse() {
            Ok(d) => Some(d),
            Err(_) => return false,
        },
    };
    let ms = match time {
        "?" => None,
        t => match t.strip_suffix('s').and_then(|t| t.parse::<f64>().ok()) {
            Some(s) if s >= 0.0 => Some((s * 1000.0).round() as u64),
            _ => return false,
        },
    };
    if cp.is_some_and(|c| c.is_none()) || mate.is_some_and(|m| m.is_none()) {
        return false;
    }
    m.cp = cp.flatten();
    m.mate = mate.flatten();
    m.depth = depth;
    m.ms = ms;
    true
}

/// One tag line `[Name "value"]`, its value unescaped.
fn read_tag(line: &str) -> Option<(String, String)> {
    let inner = line.trim().strip_prefix('[')?.strip_suffix(']')?;
    let (name, value) = inner.split_once(char::is_whitespace)?;
    let value = value.trim().strip_prefix('"')?.strip_suffix('"')?;
    let mut out = String::new();
    let mut chars = value.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.extend(chars.next()),
            c => out.push(c),
        }
    }
    Some((name.to_string(), out))
}

/// A tag's "unknown" (`?`, or nothing) as none.
fn known(value: &str) -> Option<String> {
    (!value.is_empty() && value != "?").then(|| value.to_string())
}

/// One PGN block (tags, then move text up to its result) read into a
/// record: the tags the record writes fill its fields (`White` and
/// `Black` stand for `Player1` and `Player2`), every move word a move
/// (move numbers, glyphs and suffixes apart), the record's own comments its
/// fields, everything else the move's note. The moves are not checked
/// against the rules here: the game's user replays them.
pub fn parse_pgn(text: &str) -> Result<PgnGame, RecordError> {
    let bad = |what: String| RecordError::Format(format!("not a PGN game: {what}"));
    let mut tags = Vec::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.peek() {
        let t = line.trim();
        if t.is_empty() {
            lines.next();
            continue;
        }
        if !t.starts_with('[') {
            break;
        }
        let tag = read_tag(t).ok_or_else(|| bad(format!("a tag line that does not read: {t}")))?;
        tags.push(tag);
        lines.next();
    }
    let movetext: Vec<&str> = lines.collect();
    let movetext = movetext.join("\n");
    let mut record = GameRecord {
        game: 0,
        round: None,
        opening: None,
        event: String::new(),
        date: None,
        variant: String::new(),
        player1: String::new(),
        player2: String::new(),
        fen: None,
        moves: Vec::new(),
        result: "*".to_string(),
        termination: String::new(),
        time_control: None,
        duration_ms: None,
        nodes: None,
        seed: None,
    };
    for (name, value) in &tags {
        match name.as_str() {
            "Event" => record.event = value.clone(),
            "Date" => record.date = known(value),
            "Round" => record.round = value.parse().ok(),
            "Game" => record.game = value.parse().unwrap_or(0),
            "Player1" | "White" => record.player1 = value.clone(),
            "Player2" | "Black" => record.player2 = value.clone(),
            "Variant" => record.variant = value.clone(),
            "FEN" => record.fen = known(value),
            "Result" => record.result = value.clone(),
            "Termination" => record.termination = value.clone(),
            "TimeControl" => record.time_control = known(value),
            _ => {}
        }
    }
    let mut notes: Vec<MoveNote> = Vec::new();
    let mut depth = 0usize;
    let mut variation: Vec<String> = Vec::new();
    let mut ended = false;
    for token in tokens(&movetext).map_err(bad)? {
        if ended {
            return Err(bad(format!(
                "text after the result {:?}: one game per block",
                record.result
            )));
        }
        match token {
            Token::Open => {
                if notes.is_empty() {
                    return Err(bad("a variation before the first move".to_string()));
                }
                depth += 1;
                if depth == 1 {
                    variation.clear();
                }
            }
            Token::Close => {
                if depth == 0 {
                    return Err(bad("a ')' without its '('".to_string()));
                }
                depth -= 1;
                if depth == 0 {
                    if let Some(note) = notes.last_mut() {
                        note.variations.push(std::mem::take(&mut variation));
                    }
                }
            }
            Token::Comment(text) if depth == 0 => {
                // A comment before the first move says nothing of a move.
                if let (Some(m), Some(note)) = (record.moves.last_mut(), notes.last_mut()) {
                    let own = note.comments.is_empty()
                        && !has_record_comment(m)
                        && read_record_comment(text, m);
                    if !own {
                        note.comments.push(text.to_string());
                    }
                }
            }
            Token::Comment(_) => {}
            // A word is read without its move numbers first, so that what
            // follows a number (`2.$2`, `5.1-0`) is read as it would be
            // alone, and written back reads the same.
            Token::Word(word) if depth > 0 => {
                let Some(word) = strip_number(word) else {
                    continue;
                };
                if word.starts_with('$') || is_result(word) {
                    continue;
                }
                if depth == 1 {
                    variation.push(split_suffix(word).0.to_string());
                }
            }
            Token::Word(word) => {
                let Some(word) = strip_number(word) else {
                    continue;
                };
                if let Some(nag) = word.strip_prefix('$') {
                    let nag = nag
                        .parse()
                        .map_err(|_| bad(format!("{word:?} is not a glyph ($ and a number)")))?;
                    match notes.last_mut() {
                        Some(note) => note.nags.push(nag),
                        None => return Err(bad(format!("the glyph {word} before the first move"))),
                    }
                    continue;
                }
                if is_result(word) {
                    if word != record.result && tags.iter().any(|(n, _)| n == "Result") {
                        return Err(bad(format!(
                            "the move text ends in {word} but the Result tag says {:?}",
                            record.result
                        )));
                    }
                    record.result = word.to_string();
                    ended = true;
                    continue;
                }
                let (mv, nag) = split_suffix(word);
                record.moves.push(MoveRecord {
                    mv: mv.to_string(),
                    ..MoveRecord::default()
                });
                notes.push(MoveNote {
                    nags: nag.into_iter().collect(),
                    ..MoveNote::default()
                });
            }
        }
    }
    if depth > 0 {
        return Err(bad("a variation '(' is never closed".to_string()));
    }
    if !ended {
        return Err(bad(
            "the move text does not end in a result (1-0, 0-1, 1/2-1/2 or *)".to_string(),
        ));
    }
    Ok(PgnGame {
        record,
        notes,
        tags,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::sample;

    #[test]
    fn move_numbers_are_stripped_however_many_lead_a_word() {
        assert_eq!(strip_number("12."), None);
        assert_eq!(strip_number("12..."), None);
        assert_eq!(strip_number("12.c3"), Some("c3"));
        assert_eq!(strip_number("2b4c5"), Some("2b4c5"));
        // Found by the record_pgn fuzz target: `1.9.` was read as the move
        // `9.`, which the annotated PGN wrote back as a move number.
        assert_eq!(strip_number("1.9."), None);
        assert_eq!(strip_number("1.9.b3"), Some("b3"));
    }

    #[test]
    fn a_brace_that_closes_no_comment_is_refused() {
        // Found by the record_pgn fuzz target: a stray `}` in the move text
        // was an empty word that never moved on, a loop without end.
        for text in [
            "1. a5 } 1... e5 1-0",
            "1. a5 {ok} 2. b4.32,2]} 3... e5 1-0",
            "}",
        ] {
            assert_eq!(
                tokens(text).unwrap_err(),
                "a '}' closes no comment",
                "{text}"
            );
        }
        let block = "[Variant \"mixtour\"]\n[Result \"1-0\"]\n\n1. a5 } e5 1-0\n";
        assert!(parse_pgn(block).is_err());
    }

    #[test]
    fn the_records_own_block_reads_back_as_the_record() {
        let rec = sample();
        let back = parse_pgn(&rec.pgn()).unwrap();
        // Everything the block writes comes back; what it does not write
        // (the opening index, the duration) does not.
        let want = GameRecord {
            opening: None,
            duration_ms: None,
            ..rec
        };
        assert_eq!(back.record, want);
        assert!(back.notes.iter().all(|n| *n == MoveNote::default()));
        assert_eq!(
            back.tags[1],
            ("Site".to_string(), "stackfish arena".to_string())
        );
    }

    #[test]
    fn notes_are_written_and_read_back() {
        let mut rec = sample();
        rec.moves.push(MoveRecord {
            mv: "e5".into(),
            ..Default::default()
        });
        for m in &mut rec.moves {
            *m = MoveRecord {
                mv: m.mv.clone(),
                ..Default::default()
            };
        }
        let notes = vec![
            MoveNote {
                comments: vec!["[%eval 0.35,8]".into()],
                ..Default::default()
            },
            MoveNote {
                nags: vec![4],
                comments: vec!["[%eval -1.20,9] Blunder {sic}.".into()],
                variations: vec![vec!["b2".into(), "c3d4".into(), "e5".into()]],
            },
            MoveNote::default(),
            MoveNote {
                nags: vec![6],
                ..Default::default()
            },
        ];
        let pgn = rec.pgn_annotated(
            "stackfish analyse",
            &[("Annotator", "stackfish".into())],
            &notes,
            Side::P1,
        );
        assert!(pgn.contains("[Annotator \"stackfish\"]\n"), "{pgn}");
        assert!(
            pgn.replace('\n', " ").contains("1. c3 {[%eval 0.35,8]} 1... d4 $4 {[%eval -1.20,9] Blunder {sic).} (1... b2 2. c3d4 e5) 2. c3d4 e5 $6 0-1"),
            "{pgn}"
        );
        assert!(pgn.lines().all(|l| l.len() <= 80), "{pgn}");
        let back = parse_pgn(&pgn).unwrap();
        assert_eq!(back.record.moves, rec.moves);
        let mut want = notes.clone();
        want[1].comments[0] = "[%eval -1.20,9] Blunder {sic).".into();
        assert_eq!(back.notes, want);
        // Player 2 moving first: its move is `1...`, and so on.
        let pgn = rec.pgn_annotated("stackfish analyse", &[], &notes, Side::P2);
        assert!(
            pgn.replace('\n', " ").contains("1... c3 {[%eval 0.35,8]} 2. d4 $4 {[%eval -1.20,9] Blunder {sic).} (2. b2 c3d4 3. e5) 2... c3d4 3. e5 $6 0-1"),
            "{pgn}"
        );
    }

    #[test]
    fn other_tools_pgn_reads_as_far_as_it_holds_moves() {
        let text = "[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n\n\
                    1.c3 d4?! {a comment} ; to the end of the line\n\
                    2. c3d4!! (2. e5 (2. a1) b2) 2... pass $13 1-0\n";
        let g = parse_pgn(text).unwrap();
        let moves: Vec<&str> = g.record.moves.iter().map(|m| m.mv.as_str()).collect();
        assert_eq!(moves, ["c3", "d4", "c3d4", "pass"]);
        assert_eq!(
            (g.record.player1.as_str(), g.record.player2.as_str()),
            ("a", "b")
        );
        assert_eq!(g.notes[1].nags, [6]);
        assert_eq!(g.notes[1].comments, ["a comment"]);
        assert_eq!(g.notes[2].nags, [3]);
        assert_eq!(
            g.notes[2].variations,
            [vec!["e5".to_string(), "b2".to_string()]]
        );
        assert_eq!(g.notes[3].nags, [13]);
        assert_eq!(g.record.result, "1-0");
        assert_eq!(g.record.fen, None);
    }

    #[test]
    fn blocks_that_do_not_read_say_why() {
        for (text, why) in [
            ("[Event \"x\"\n\n1. c3 *", "a tag line that does not read"),
            ("1. c3 {never closed", "never closed"),
            ("1. c3 (d4 *", "never closed"),
            ("1. c3 ) *", "without its '('"),
            ("( c3 ) *", "before the first move"),
            ("$2 c3 *", "before the first move"),
            ("1. c3 $x *", "is not a glyph"),
            // Found by the record_pgn fuzz target: `2.$d4` was the move
            // `$d4`, which written back as `2. $d4` read as a bad glyph.
            ("1. c3 2.$d4 *", "is not a glyph"),
            ("[Result \"1-0\"]\n\n1. c3 0-1", "the Result tag says"),
            ("1. c3 1-0 d4", "text after the result"),
            ("", "does not end in a result"),
            ("[Event \"x\"]\n\n1. c3 d4", "does not end in a result"),
            ("not a record", "does not end in a result"),
        ] {
            let e = parse_pgn(text).unwrap_err().to_string();
            assert!(e.contains(why), "{text:?}: {e}");
        }
    }

    #[test]
    fn a_free_comment_shaped_like_the_records_stays_a_comment_when_the_move_has_one() {
        let text = "1. c3 {+0.35/8 0.102s} {+1.00/9 ?} *";
        let g = parse_pgn(text).unwrap();
        assert_eq!(g.record.moves[0].cp, Some(35));
        assert_eq!(g.record.moves[0].ms, Some(102));
        assert_eq!(g.notes[0].comments, ["+1.00/9 ?"]);
        let g = parse_pgn("1. c3 {-M3/? ?} d4 {+0.5/x 1s} *").unwrap();
        assert_eq!(
            (g.record.moves[0].mate, g.record.moves[0].depth),
            (Some(-3), None)
        );
        assert_eq!(g.notes[1].comments, ["+0.5/x 1s"]);
    }
}
