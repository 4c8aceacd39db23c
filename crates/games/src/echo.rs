//! Text that came from outside the process, made safe to echo in one line
//! of a message: control characters escaped, and cut to a length a person
//! reads (a GUI log or a terminal must not receive a carriage return, an
//! escape sequence or a megabyte from us because someone sent it).

/// Characters of echoed text kept before it is cut.
pub const ECHO_CHARS: usize = 80;

/// Characters of an echoed path kept before it is cut: Linux's PATH_MAX,
/// so that a path the system accepts is named whole (a user with a deep
/// folder must see which file is meant), while a megabyte sent as a file
/// name is still cut.
pub const ECHO_PATH_CHARS: usize = 4096;

/// `text` with every control character escaped (`\r`, `\u{1b}`, `\0`) and,
/// past `ECHO_CHARS` characters, cut with `... (<n> characters)`.
pub fn echo(text: &str) -> String {
    echo_cut(text, ECHO_CHARS)
}

/// A path or file name the user gave, as `echo` writes text but cut only
/// past `ECHO_PATH_CHARS` characters.
pub fn echo_path(path: &str) -> String {
    echo_cut(path, ECHO_PATH_CHARS)
}

fn echo_cut(text: &str, keep: usize) -> String {
    let mut out = String::new();
    for (kept, c) in text.chars().enumerate() {
        if kept == keep {
            out.push_str(&format!("... ({} characters)", text.chars().count()));
            return out;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// `text` echoed in single quotes, as messages quote what they were sent.
pub fn quote(text: &str) -> String {
    format!("'{}'", echo(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_echoed_whole_with_its_control_characters_escaped() {
        let deep = format!(
            "/srv/games/{}/board\r.stackboard",
            "nested folder/".repeat(20)
        );
        assert!(deep.chars().count() > 3 * ECHO_CHARS);
        assert_eq!(echo_path(&deep), deep.replace('\r', "\\r"));
        let huge = "x".repeat(1_000_000);
        assert_eq!(
            echo_path(&huge),
            format!("{}... (1000000 characters)", "x".repeat(ECHO_PATH_CHARS))
        );
    }

    #[test]
    fn control_characters_are_escaped_and_long_text_cut() {
        assert_eq!(echo("go\rdepth\u{1b}[2J\0"), "go\\rdepth\\u{1b}[2J\\u{0}");
        assert_eq!(echo("plain text"), "plain text");
        let long = "x".repeat(1_000_000);
        let cut = echo(&long);
        assert_eq!(cut, format!("{}... (1000000 characters)", "x".repeat(80)));
    }

    #[test]
    fn position_string_errors_quote_what_they_were_sent_escaped_and_cut() {
        let junk = format!("\u{1b}[2J\r{}", "y".repeat(100_000));
        for name in crate::variant_names() {
            let mut game = crate::variants::new_game(name).expect("a known game");
            let start = game.start_fen();
            let fields: Vec<&str> = start.split_whitespace().collect();
            // Each field in turn replaced by the junk, then junk after the end.
            let mut fens: Vec<String> = (0..fields.len())
                .map(|i| {
                    let mut f = fields.clone();
                    f[i] = &junk;
                    f.join(" ")
                })
                .collect();
            fens.push(format!("{start} {junk}"));
            for fen in &fens {
                let Err(e) = game.set_fen(fen) else {
                    continue;
                };
                let text = e.to_string();
                assert!(!text.chars().any(char::is_control), "{name}: {text:?}");
                assert!(
                    text.len() < 400,
                    "{name}: {} bytes: {text:.200}",
                    text.len()
                );
            }
        }
        let e = crate::variants::new_game("mixtour")
            .unwrap()
            .play_text(&junk)
            .unwrap_err()
            .to_string();
        assert!(
            !e.chars().any(char::is_control) && e.len() < 400,
            "{e:.200}"
        );
    }
}
