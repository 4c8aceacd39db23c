//! The UGI/UCI command parser on every line of the input: it never panics,
//! and what it says back (an error, a warning) is one line of printable
//! text, so that no input can make the engine write a line a GUI would read
//! as another reply.
#![no_main]

use libfuzzer_sys::fuzz_target;
use stackfish_engine::protocol::command::parse;

fn one_printable_line(text: &str) {
    assert!(
        !text.chars().any(char::is_control),
        "control characters in {text:?}"
    );
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for line in text.split('\n') {
        match parse(line) {
            Ok((_, warnings)) => warnings.iter().for_each(|w| one_printable_line(w)),
            Err(e) => one_printable_line(&e.to_string()),
        }
    }
});
