//! The loop on the calling thread (`Protocol`, what wasm32 runs) answers
//! the protocol transcripts of tests/transcripts exactly as the threaded
//! loop does (all but those with a search that only `stop` ends: nothing
//! can interrupt a search on the calling thread), and holds a `go infinite`
//! answer until `stop`.

use std::io::Write;
use std::sync::{Arc, Mutex};

use super::{run_inline, Host, Protocol};

/// Output lines collected in memory.
#[derive(Clone, Default)]
struct Lines(Arc<Mutex<Vec<u8>>>);

impl Write for Lines {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(data);
        Ok(data.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Lines {
    fn take(&self) -> Vec<String> {
        let text = String::from_utf8(std::mem::take(&mut *self.0.lock().unwrap())).unwrap();
        text.lines().map(str::to_string).collect()
    }
}

/// Feeds a transcript's input lines and checks the output against its
/// expected lines, read as tests/protocol.rs reads them.
fn run_transcript(name: &str, text: &str) {
    use crate::transcript::{steps, Step};
    let steps =
        steps(text).unwrap_or_else(|(n, raw)| panic!("{name}:{n}: not a transcript line: {raw}"));
    let input: String = steps
        .iter()
        .filter_map(|(_, s)| match s {
            Step::Send(l) => Some(format!("{l}\n")),
            _ => None,
        })
        .collect();
    let sink = Lines::default();
    run_inline(Host::default(), input.as_bytes(), sink.clone());
    // A tuning build lists its search parameters in the handshake too; the
    // transcripts are of the normal build.
    let tuning_option = |l: &String| {
        stackfish_search::params::PARAMS
            .iter()
            .any(|p| l.starts_with(&format!("option name {} type spin ", p.name)))
    };
    let output: Vec<String> = sink
        .take()
        .into_iter()
        .filter(|l| !tuning_option(l))
        .collect();
    let mut output = output.into_iter();
    for (n, step) in steps {
        let at = format!("{name}:{n}");
        match step {
            Step::Send(_) => {}
            Step::SkipTo(prefix) => assert!(
                output.by_ref().any(|l| l.starts_with(prefix)),
                "{at}: no line starting '{prefix}'"
            ),
            Step::StartsWith(prefix) => {
                let line = output.next().unwrap_or_default();
                assert!(line.starts_with(prefix), "{at}: '{line}'");
            }
            Step::Exact(expected) => {
                let line = output.next().unwrap_or_default();
                assert_eq!(line, expected, "{at}");
            }
        }
    }
}

#[test]
fn the_inline_loop_answers_every_transcript() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/transcripts");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(files.len() >= 5, "transcripts missing in {dir:?}");
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        if text.lines().any(|l| l == "> stop") {
            continue;
        }
        run_transcript(&path.file_name().unwrap().to_string_lossy(), &text);
    }
}

#[test]
fn an_infinite_answer_waits_for_stop_and_commands_wait_for_it() {
    let sink = Lines::default();
    let mut p = Protocol::new(Host::default(), sink.clone());
    assert!(p.line("position startpos"));
    assert!(p.line("go infinite depth 2"));
    let lines = sink.take();
    assert!(
        lines.iter().all(|l| l.starts_with("info depth")),
        "{lines:?}"
    );
    assert!(p.line("query p1turn"));
    assert!(p.line("isready"));
    assert_eq!(sink.take(), ["readyok"]);
    assert!(p.line("stop"));
    let lines = sink.take();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines[0].starts_with("bestmove "), "{lines:?}");
    assert_eq!(lines[1], "response true");
    assert!(!p.line("quit"));
}

#[test]
fn info_lines_give_proved_wins_and_losses_as_mates_in_moves() {
    use super::{info_line, InfoLine, Score};
    use stackfish_search::{Info, WIN};
    // A win 5 plies away is mate in 3 moves; a loss 4 plies away, mate -2.
    for (score, expected) in [
        (WIN - 5, Score::Mate(3)),
        (4 - WIN, Score::Mate(-2)),
        (-35, Score::Cp(-35)),
    ] {
        let info = Info {
            multipv: 1,
            depth: 6,
            seldepth: 7,
            score,
            nodes: 500,
            time_ms: 2,
            hashfull: 0,
            pv: vec!["c3".into()],
        };
        let line = info_line(&info);
        assert_eq!(InfoLine::parse(&line).score, Some(expected), "{line}");
    }
}

/// Input lines handed out one at a time from a channel, counting how many
/// the loop's reader has taken.
struct Feed {
    lines: std::sync::mpsc::Receiver<String>,
    taken: Arc<std::sync::atomic::AtomicUsize>,
    buf: Vec<u8>,
    pos: usize,
}

impl std::io::Read for Feed {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        use std::io::BufRead;
        let n = {
            let data = self.fill_buf()?;
            let n = data.len().min(out.len());
            out[..n].copy_from_slice(&data[..n]);
            n
        };
        self.consume(n);
        Ok(n)
    }
}

impl std::io::BufRead for Feed {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        if self.pos == self.buf.len() {
            match self.lines.recv() {
                Ok(line) => {
                    self.buf = format!("{line}\n").into_bytes();
                    self.pos = 0;
                    self.taken.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                }
                Err(_) => return Ok(&[]),
            }
        }
        Ok(&self.buf[self.pos..])
    }
    fn consume(&mut self, n: usize) {
        self.pos += n;
    }
}

/// An output that, on the first `bestmove`, sends `go` and `stop` and
/// returns only once the loop's reader has taken both and had time to pass
/// them on: a GUI as fast as a GUI can be, whatever thread wrote the line.
struct Gui {
    seen: Lines,
    send: std::sync::mpsc::Sender<String>,
    taken: Arc<std::sync::atomic::AtomicUsize>,
    answered: bool,
}

impl Write for Gui {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.seen.write(data)?;
        if !self.answered && String::from_utf8_lossy(data).starts_with("bestmove") {
            self.answered = true;
            let before = self.taken.load(std::sync::atomic::Ordering::SeqCst);
            let _ = self.send.send("go".into());
            let _ = self.send.send("stop".into());
            while self.taken.load(std::sync::atomic::Ordering::SeqCst) < before + 2 {
                std::thread::yield_now();
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        Ok(data.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// `go` and `stop` sent the moment `bestmove` is out reach the search they
/// were sent for: the loop writes `bestmove` once it has the engine back,
/// so the `go` is not queued behind the search that has ended (where the
/// `stop` would set that search's flags and the queued `go` run on without
/// a limit).
#[test]
fn a_stop_right_after_bestmove_stops_the_search_the_go_before_it_started() {
    let (send, lines) = std::sync::mpsc::channel();
    let taken = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let seen = Lines::default();
    let gui = Gui {
        seen: seen.clone(),
        send: send.clone(),
        taken: taken.clone(),
        answered: false,
    };
    let feed = Feed {
        lines,
        taken,
        buf: Vec::new(),
        pos: 0,
    };
    send.send("go depth 1".into()).unwrap();
    let engine = std::thread::spawn(move || super::run_with(Host::default(), feed, gui));
    let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let mut answers = Vec::new();
    while answers.len() < 2 {
        assert!(
            std::time::Instant::now() < until,
            "the search after `go` + `stop` did not stop: {answers:?}"
        );
        answers.extend(
            seen.take()
                .into_iter()
                .filter(|l| l.starts_with("bestmove")),
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    send.send("quit".into()).unwrap();
    engine.join().unwrap();
}
