//! The engine's protocol loop fed a transcript: every line of the input
//! goes to `Protocol` (the loop on the calling thread), which must answer
//! without a panic, and every line it writes must be one line of printable
//! text. So that no input runs for long, the harness bounds what would:
//! every `go` also gets `nodes` (searches, proofs), `go perft` and `bench`
//! a small depth, and the options that take memory or threads small values.
#![no_main]

use std::io::Write;
use std::sync::{Arc, Mutex};

use libfuzzer_sys::fuzz_target;
use stackfish_engine::protocol::command::{parse, Command};
use stackfish_engine::protocol::Protocol;
use stackfish_engine::{Engine, Host};

/// Lines fed from one input at most.
const MAX_LINES: usize = 48;
/// The nodes every `go` may search.
const GO_NODES: u64 = 500;
const MAX_PERFT_DEPTH: u32 = 2;
const MAX_HASH_MB: u64 = 2;
/// The table the engine starts with: the default's 16 MB would take most
/// of the time of a short input to clear.
const START_HASH_MB: usize = 1;

/// The output, kept to be checked.
#[derive(Clone, Default)]
struct Sink(Arc<Mutex<Vec<u8>>>);

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("sink").extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// `line`, or a line that does the same within the harness's bounds.
fn bounded(line: &str) -> String {
    match parse(line) {
        // The last `nodes` counts: this one bounds the search and its proof
        // (unless a parameter before it takes it for its value).
        Ok((Command::Go(_), _)) => {
            let with_nodes = format!("{line} nodes {GO_NODES}");
            match parse(&with_nodes) {
                Ok((Command::Go(p), _)) if p.nodes.is_some_and(|n| n <= GO_NODES) => with_nodes,
                _ => format!("go nodes {GO_NODES}"),
            }
        }
        Ok((Command::GoPerft(d), _)) if d > MAX_PERFT_DEPTH => "go perft 1".into(),
        Ok((Command::Bench(_), _)) => "bench 1".into(),
        Ok((Command::SetOption { name, value }, _)) => {
            let key: String = name
                .chars()
                .filter(|c| !c.is_whitespace())
                .collect::<String>()
                .to_ascii_lowercase();
            let number = value.as_deref().and_then(|v| v.trim().parse::<u64>().ok());
            match (key.as_str(), number) {
                ("hash", Some(mb)) if mb > MAX_HASH_MB => {
                    format!("setoption name Hash value {MAX_HASH_MB}")
                }
                ("threads", Some(n)) if n > 1 => "setoption name Threads value 1".into(),
                _ => line.to_string(),
            }
        }
        _ => line.to_string(),
    }
}

fuzz_target!(|data: &[u8]| {
    let sink = Sink::default();
    let engine = Engine::with_hash_mb(Host::default(), START_HASH_MB).expect("a 1 MB table");
    let mut protocol = Protocol::with_engine(engine, sink.clone());
    let mut input = data;
    let mut buf = Vec::new();
    let mut lines = 0;
    // The engine reads its input with this reader: the same lines reach it.
    while let Some(read) = stackfish_ugi::read_line(&mut input, &mut buf) {
        let stackfish_ugi::Line::Text(line) = read else {
            continue;
        };
        lines += 1;
        if lines > MAX_LINES || !protocol.line(&bounded(&line)) {
            break;
        }
    }
    protocol.end();
    let out = sink.0.lock().expect("sink");
    let text = std::str::from_utf8(&out).expect("the engine writes UTF-8");
    for line in text.lines() {
        assert!(
            !line.chars().any(char::is_control),
            "the engine wrote {line:?}"
        );
    }
});
