//! Text that came from outside the process, made safe to echo in one line
//! of a message: control characters escaped, and cut to a length a person
//! reads (a GUI log or a terminal must not receive a carriage return, an
//! escape sequence or a megabyte from us because someone sent it).

/// Characters of echoed text kept before it is cut.
pub const ECHO_CHARS: usize = 80;

/// `text` with every control character escaped (`\r`, `\u{1b}`, `\0`) and,
/// past `ECHO_CHARS` characters, cut with `... (<n> characters)`.
pub fn echo(text: &str) -> String {
    let mut out = String::new();
    for (kept, c) in text.chars().enumerate() {
        if kept == ECHO_CHARS {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped_and_long_text_cut() {
        assert_eq!(echo("go\rdepth\u{1b}[2J\0"), "go\\rdepth\\u{1b}[2J\\u{0}");
        assert_eq!(echo("plain text"), "plain text");
        let long = "x".repeat(1_000_000);
        let cut = echo(&long);
        assert_eq!(cut, format!("{}... (1000000 characters)", "x".repeat(80)));
    }
}
