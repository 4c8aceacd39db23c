//! Protocol transcripts (`tests/transcripts/*.txt`), read into steps: the
//! one reading of the format for every test that replays them (the
//! threaded loop's in tests/protocol.rs, the inline loop's in
//! `protocol/tests.rs`). Test code: compiled into those tests only (the
//! engine declares it under `cfg(test)`, tests/protocol.rs includes the
//! file by its path), never into the library.
//!
//! A line `> text` is sent to the engine; `< text` is the next output
//! line, exactly (`<` alone: an empty line); `<~ prefix` the next output
//! line, starting with `prefix`; `<* prefix` skips output up to a line
//! starting with `prefix`. Lines starting with `#` and blank lines are
//! comments.

/// One step of a transcript.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step<'a> {
    /// `> text`: a line for the engine.
    Send(&'a str),
    /// `< text`: the next output line is exactly this.
    Exact(&'a str),
    /// `<~ prefix`: the next output line starts with this.
    StartsWith(&'a str),
    /// `<* prefix`: output up to a line starting with this.
    SkipTo(&'a str),
}

/// The steps of a transcript with their line numbers (counted from 1), or
/// the first line that is none of the forms, with its number.
pub fn steps(text: &str) -> Result<Vec<(usize, Step<'_>)>, (usize, String)> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        if raw.starts_with('#') || raw.trim().is_empty() {
            continue;
        }
        let step = if let Some(input) = raw.strip_prefix("> ") {
            Step::Send(input)
        } else if let Some(prefix) = raw.strip_prefix("<* ") {
            Step::SkipTo(prefix)
        } else if let Some(prefix) = raw.strip_prefix("<~ ") {
            Step::StartsWith(prefix)
        } else if raw == "<" || raw.starts_with("< ") {
            Step::Exact(raw.get(2..).unwrap_or(""))
        } else {
            return Err((n, raw.to_string()));
        };
        out.push((n, step));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_is_read_and_anything_else_refused() {
        let text = "# a comment\n\n> uci\n<* uciok\n<~ info string\n< readyok\n<\n";
        assert_eq!(
            steps(text),
            Ok(vec![
                (3, Step::Send("uci")),
                (4, Step::SkipTo("uciok")),
                (5, Step::StartsWith("info string")),
                (6, Step::Exact("readyok")),
                (7, Step::Exact("")),
            ])
        );
        assert_eq!(steps("> go\nbestmove"), Err((2, "bestmove".to_string())));
    }
}
