//! Reading protocol lines with a bound, the same on both sides: the engine
//! reading its GUI, the client reading its engine.

use std::io::BufRead;

/// The longest line kept; the rest of a longer one, up to its newline, is
/// discarded as it arrives, so a line with no end costs no memory.
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// One line, read with a bound.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Line {
    /// Without its newline and one `\r` before it. Invalid UTF-8 becomes
    /// `<invalid utf-8>`, a line no command or reply starts with.
    Text(String),
    /// A line longer than `MAX_LINE_BYTES`, read to its end and dropped:
    /// a cut line is never passed on as a whole one.
    TooLong,
}

/// The next line, `None` at end of input (or when it cannot be read). `buf`
/// is scratch space, reused between calls.
pub fn read_line(input: &mut impl BufRead, buf: &mut Vec<u8>) -> Option<Line> {
    buf.clear();
    let mut cut = false;
    loop {
        let chunk = match input.fill_buf() {
            Ok(chunk) => chunk,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return None,
        };
        if chunk.is_empty() {
            // A last line without a newline still counts.
            if buf.is_empty() && !cut {
                return None;
            }
            break;
        }
        let (part, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (&chunk[..i], true),
            None => (chunk, false),
        };
        let room = MAX_LINE_BYTES - buf.len();
        if part.len() > room {
            cut = true;
            buf.clear();
        } else if !cut {
            buf.extend_from_slice(part);
        }
        let used = part.len() + usize::from(done);
        input.consume(used);
        if done {
            break;
        }
    }
    if cut {
        return Some(Line::TooLong);
    }
    let text = match std::str::from_utf8(buf) {
        Ok(text) => text.strip_suffix('\r').unwrap_or(text).to_string(),
        Err(_) => "<invalid utf-8>".to_string(),
    };
    Some(Line::Text(text))
}

#[cfg(test)]
mod tests {
    use super::{read_line, Line, MAX_LINE_BYTES};

    #[test]
    fn lines_are_read_up_to_the_bound_and_a_longer_one_is_dropped() {
        let at_bound = "y".repeat(MAX_LINE_BYTES);
        let over = "z".repeat(MAX_LINE_BYTES + 1);
        let text = format!("isready\r\n{at_bound}\n{over}\nd\n\n\u{ff}last");
        let mut bytes = text.into_bytes();
        let invalid = bytes.len() - 5;
        bytes[invalid] = 0xff; // not UTF-8
                               // A small buffer, so that lines arrive in pieces.
        let mut input = std::io::BufReader::with_capacity(1000, &bytes[..]);
        let mut buf = Vec::new();
        let mut read = Vec::new();
        while let Some(line) = read_line(&mut input, &mut buf) {
            read.push(match line {
                Line::Text(l) => l,
                Line::TooLong => "<too long>".to_string(),
            });
        }
        assert_eq!(
            read,
            [
                "isready",
                &at_bound,
                "<too long>",
                "d",
                "",
                "<invalid utf-8>"
            ]
        );
    }

    #[test]
    fn a_line_cut_at_the_end_of_input_is_still_too_long() {
        let over = vec![b'x'; MAX_LINE_BYTES + 10];
        let mut input = &over[..];
        let mut buf = Vec::new();
        assert_eq!(read_line(&mut input, &mut buf), Some(Line::TooLong));
        assert_eq!(read_line(&mut input, &mut buf), None);
    }
}
