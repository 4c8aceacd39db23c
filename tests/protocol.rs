//! The protocol loop driven in memory: transcripts from tests/transcripts,
//! reproducibility, isready during a search, and a fuzz of broken lines.
//! Plus the real binary as a child process answering stop and quit.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};

// The one reading of the transcript format, shared with the engine's own
// test of its inline loop: test code, so compiled into the tests only.
#[path = "../crates/engine/src/transcript.rs"]
mod transcript;

/// Input side: lines sent through a channel, read as a BufRead.
struct ChannelReader {
    rx: Receiver<String>,
    buf: Vec<u8>,
    pos: usize,
}

impl Read for ChannelReader {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(out.len());
        out[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for ChannelReader {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        if self.pos >= self.buf.len() {
            match self.rx.recv() {
                Ok(line) => {
                    self.buf = format!("{line}\n").into_bytes();
                    self.pos = 0;
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

/// Output side: complete lines into a channel.
struct LineSink {
    tx: Sender<String>,
    partial: Vec<u8>,
}

impl Write for LineSink {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        for &b in data {
            if b == b'\n' {
                let line = String::from_utf8_lossy(&self.partial).into_owned();
                let _ = self.tx.send(line);
                self.partial.clear();
            } else {
                self.partial.push(b);
            }
        }
        Ok(data.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

struct Engine {
    input: Option<Sender<String>>,
    output: Receiver<String>,
    thread: Option<std::thread::JoinHandle<()>>,
}

const WAIT: Duration = Duration::from_secs(20);

impl Engine {
    fn start() -> Engine {
        let (in_tx, in_rx) = channel();
        let (out_tx, out_rx) = channel();
        let reader = ChannelReader {
            rx: in_rx,
            buf: Vec::new(),
            pos: 0,
        };
        let sink = LineSink {
            tx: out_tx,
            partial: Vec::new(),
        };
        let networks = stackfish::game::Networks::default();
        let thread = std::thread::spawn(move || stackfish::protocol::run(networks, reader, sink));
        Engine {
            input: Some(in_tx),
            output: out_rx,
            thread: Some(thread),
        }
    }

    fn send(&self, line: &str) {
        self.input.as_ref().unwrap().send(line.to_string()).unwrap();
    }

    fn next_line(&self) -> Option<String> {
        match self.output.recv_timeout(WAIT) {
            Ok(l) => Some(l),
            Err(RecvTimeoutError::Timeout) => panic!("no output within {WAIT:?}"),
            Err(RecvTimeoutError::Disconnected) => None,
        }
    }

    /// Reads lines until one starts with `prefix`; returns all lines read.
    fn until(&self, prefix: &str) -> Vec<String> {
        let mut seen = Vec::new();
        loop {
            let line = self
                .next_line()
                .unwrap_or_else(|| panic!("ended before '{prefix}': {seen:?}"));
            let done = line.starts_with(prefix);
            seen.push(line);
            if done {
                return seen;
            }
        }
    }

    fn quit(mut self) {
        drop(self.input.take());
        self.thread
            .take()
            .unwrap()
            .join()
            .expect("the loop ends cleanly");
    }
}

fn run_transcript(name: &str, text: &str) {
    use transcript::{steps, Step};
    let steps =
        steps(text).unwrap_or_else(|(n, raw)| panic!("{name}:{n}: not a transcript line: {raw}"));
    let engine = Engine::start();
    for (n, step) in steps {
        let at = format!("{name}:{n}");
        match step {
            Step::Send(input) => engine.send(input),
            Step::SkipTo(prefix) => {
                engine.until(prefix);
            }
            Step::StartsWith(prefix) => {
                let line = engine.next_line().unwrap_or_default();
                assert!(
                    line.starts_with(prefix),
                    "{at}: expected a line starting '{prefix}', got '{line}'"
                );
            }
            Step::Exact(expected) => {
                let line = engine.next_line().unwrap_or_default();
                assert_eq!(line, expected, "{at}");
            }
        }
    }
    engine.quit();
}

#[test]
fn transcripts() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/transcripts");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(files.len() >= 5, "transcripts missing in {dir:?}");
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        run_transcript(&path.file_name().unwrap().to_string_lossy(), &text);
    }
}

/// The info lines of a search without the fields that depend on the clock.
fn search_lines(engine: &Engine) -> Vec<String> {
    engine
        .until("bestmove")
        .into_iter()
        .map(|l| {
            let mut out = Vec::new();
            let mut tokens = l.split_whitespace();
            while let Some(t) = tokens.next() {
                if t == "time" || t == "nps" {
                    tokens.next();
                } else {
                    out.push(t.to_string());
                }
            }
            out.join(" ")
        })
        .collect()
}

#[test]
fn the_same_go_nodes_twice_around_uginewgame_prints_the_same_lines() {
    let engine = Engine::start();
    let mut runs = Vec::new();
    for _ in 0..2 {
        engine.send("uginewgame");
        engine.send("position startpos moves c3 c4 d4");
        engine.send("go nodes 30000");
        runs.push(search_lines(&engine));
    }
    assert!(runs[0].len() > 2, "{:?}", runs[0]);
    assert_eq!(runs[0], runs[1]);
    engine.quit();
}

/// A search that its node limit cut mid-iteration ends with one more `info`
/// before `bestmove`: the last completed depth and the move answered, with
/// the nodes of the whole search.
#[test]
fn a_search_cut_by_its_node_limit_ends_with_an_info_of_all_its_nodes() {
    let engine = Engine::start();
    engine.send("position startpos moves c3 c4 d4");
    engine.send("go nodes 30000");
    let lines = engine.until("bestmove");
    let infos: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("info depth"))
        .collect();
    assert!(infos.len() >= 2, "{lines:?}");
    let field = |line: &str, name: &str| {
        let mut tokens = line.split_whitespace();
        tokens.find(|t| *t == name);
        tokens.next().unwrap().to_string()
    };
    let (before, last) = (infos[infos.len() - 2], infos[infos.len() - 1]);
    assert_eq!(field(last, "depth"), field(before, "depth"), "{lines:?}");
    let nodes = |line: &str| field(line, "nodes").parse::<u64>().unwrap();
    assert!(nodes(last) > nodes(before), "{lines:?}");
    let best = lines.last().unwrap().split_whitespace().nth(1).unwrap();
    assert_eq!(field(last, "pv"), best, "{lines:?}");
    engine.quit();
}

#[test]
fn multipv_prints_every_line_of_every_depth_best_first() {
    let engine = Engine::start();
    engine.send("setoption name MultiPV value 3");
    engine.send("position startpos moves c3 c4 d4");
    engine.send("go depth 4");
    let lines = engine.until("bestmove");
    let field = |line: &str, key: &str| -> Option<String> {
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let i = tokens.iter().position(|&t| t == key)?;
        Some(tokens[i + 1..].join(" "))
    };
    let infos: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("info depth"))
        .collect();
    assert_eq!(infos.len(), 4 * 3, "{lines:?}");
    for (n, group) in infos.chunks(3).enumerate() {
        let mut firsts = Vec::new();
        let mut last_score = i32::MAX;
        for (k, line) in group.iter().enumerate() {
            let depth = field(line, "depth").unwrap();
            assert!(depth.starts_with(&format!("{} ", n + 1)), "{line}");
            let index = field(line, "multipv").unwrap();
            assert!(index.starts_with(&format!("{} ", k + 1)), "{line}");
            let score: i32 = field(line, "cp")
                .unwrap()
                .split(' ')
                .next()
                .unwrap()
                .parse()
                .unwrap();
            assert!(score <= last_score, "lines not best first: {group:?}");
            last_score = score;
            let pv = field(line, "pv").unwrap();
            firsts.push(pv.split(' ').next().unwrap().to_string());
        }
        firsts.sort();
        firsts.dedup();
        assert_eq!(firsts.len(), 3, "a move on two lines: {group:?}");
    }
    let best = field(infos[9], "pv").unwrap();
    assert_eq!(
        lines.last().unwrap(),
        &format!("bestmove {}", best.split(' ').next().unwrap())
    );
    engine.quit();
}

#[test]
fn isready_is_answered_during_a_search_without_stopping_it() {
    let engine = Engine::start();
    engine.send("position startpos");
    engine.send("go infinite");
    std::thread::sleep(Duration::from_millis(100));
    engine.send("isready");
    let before = engine.until("readyok");
    assert!(
        before.iter().all(|l| !l.starts_with("bestmove")),
        "{before:?}"
    );
    // Commands other than isready/stop wait until the search ends.
    engine.send("position startpos moves c3");
    engine.send("query p1turn");
    std::thread::sleep(Duration::from_millis(100));
    engine.send("stop");
    let lines = engine.until("bestmove");
    assert_eq!(
        lines.last().unwrap().split_whitespace().count(),
        2,
        "bestmove has exactly two tokens"
    );
    assert_eq!(engine.until("response"), vec!["response false".to_string()]);
    engine.quit();
}

#[test]
fn random_and_mutated_lines_never_break_the_engine() {
    let engine = Engine::start();
    let mut rng = rand::rngs::StdRng::seed_from_u64(1);
    let seeds = [
        "position startpos moves c3 d4 c3d4",
        "position fen x5/x5/x5/x5/1212,1,x3 2 10,12 0,0 1 - moves 4a1b1",
        "setoption name Level value 5",
        "setoption name MoveOverhead value 20",
        "setoption name Game value mixtour",
        "go depth 2",
        "go nodes 200",
        "go movetime 5",
        "query gameover",
        "d",
        "isready",
        "stop",
        "uginewgame",
    ];
    let alphabet: Vec<char> = "abcdex12345 /,-\t\u{0}\u{e9}goqpstnm".chars().collect();
    for i in 0..3000 {
        let mut chars: Vec<char> = seeds[rng.gen_range(0..seeds.len())].chars().collect();
        let edits = if i % 3 == 0 { 0 } else { rng.gen_range(1..5) };
        for _ in 0..edits {
            let at = rng.gen_range(0..=chars.len());
            match rng.gen_range(0..3) {
                0 if at < chars.len() => chars[at] = alphabet[rng.gen_range(0..alphabet.len())],
                1 if at < chars.len() => {
                    chars.remove(at);
                }
                _ => chars.insert(at, alphabet[rng.gen_range(0..alphabet.len())]),
            }
        }
        let line: String = chars.into_iter().collect();
        // Keep the run short: no deep perft, no bench, no huge tables.
        let lower = line.to_lowercase();
        if ["perft", "bench", "hash", "thread"]
            .iter()
            .any(|w| lower.contains(w))
        {
            continue;
        }
        // A mutated `go` may search without limit; stop follows every go.
        engine.send(&line);
        if lower.contains("go") {
            engine.send("stop");
        }
    }
    engine.send("stop");
    engine.send("isready");
    engine.until("readyok");
    engine.send("position startpos");
    engine.send("go depth 1");
    let best = engine.until("bestmove").pop().unwrap();
    assert!(
        best.starts_with("bestmove ") && best.split_whitespace().count() == 2,
        "{best}"
    );
    engine.quit();
}

fn spawn_engine() -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_stackfish"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the engine binary starts")
}

#[test]
fn the_binary_answers_stop_and_quit_promptly() {
    let mut child = spawn_engine();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        for line in stdout.lines().map_while(Result::ok) {
            let _ = tx.send((Instant::now(), line));
        }
    });
    let started = Instant::now();
    writeln!(stdin, "ugi").unwrap();
    loop {
        let (_, line) = rx.recv_timeout(Duration::from_secs(10)).expect("ugiok");
        if line == "ugiok" {
            break;
        }
    }
    // Generous bound: the point is that start-up does no heavy work.
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "start-up took {:?}",
        started.elapsed()
    );
    writeln!(stdin, "position startpos\ngo infinite").unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let sent = Instant::now();
    writeln!(stdin, "stop").unwrap();
    let answered = loop {
        let (at, line) = rx
            .recv_timeout(Duration::from_secs(10))
            .expect("bestmove after stop");
        if line.starts_with("bestmove") {
            break at;
        }
    };
    assert!(
        answered.duration_since(sent) < Duration::from_millis(500),
        "stop took {:?}",
        answered - sent
    );
    writeln!(stdin, "go infinite").unwrap();
    std::thread::sleep(Duration::from_millis(200));
    writeln!(stdin, "quit").unwrap();
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success());
            break;
        }
        assert!(Instant::now() < deadline, "quit mid-search did not exit");
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn the_binary_exits_at_end_of_input_mid_search() {
    let mut child = spawn_engine();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, "position startpos\ngo infinite").unwrap();
    std::thread::sleep(Duration::from_millis(100));
    drop(stdin);
    let deadline = Instant::now() + Duration::from_secs(5);
    while child.try_wait().unwrap().is_none() {
        assert!(
            Instant::now() < deadline,
            "end of input did not end the engine"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn bench_prints_a_deterministic_node_count() {
    let run = || {
        let out = Command::new(env!("CARGO_BIN_EXE_stackfish"))
            .args(["bench", "4"])
            .output()
            .unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(!text.contains("error"), "{text}");
        let last = text.lines().last().unwrap().to_string();
        let tokens: Vec<&str> = last.split_whitespace().collect();
        assert_eq!(tokens.len(), 4, "{last}");
        assert_eq!((tokens[1], tokens[3]), ("nodes", "nps"));
        let total = tokens[0].parse::<u64>().unwrap();
        // One subtotal per searching game, at the depth given, adding up.
        let mut games = Vec::new();
        let mut sum = 0;
        for line in text.lines() {
            let Some(rest) = line.strip_prefix("info string bench ") else {
                continue;
            };
            if let Some((head, nodes)) = rest.split_once(" depth 4: ") {
                games.push(head.to_string());
                let nodes = nodes
                    .strip_suffix(" nodes")
                    .unwrap()
                    .parse::<u64>()
                    .unwrap();
                assert!(nodes > 100, "{line}");
                sum += nodes;
            }
        }
        assert_eq!(games, ["mixtour", "coinstack", "focus", "castle"], "{text}");
        assert_eq!(sum, total, "{text}");
        total
    };
    let a = run();
    assert_eq!(a, run());
}

#[test]
fn perft_command_reports_and_rejects_bad_input() {
    let out = Command::new(env!("CARGO_BIN_EXE_stackfish"))
        .args(["perft", "2", "--moves", "c3 d4", "--divide"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.ends_with("Nodes searched: 12166\n") || text.contains("Nodes searched:"),
        "{text}"
    );
    // Entering again after c3 d4: 23 placements, each with 22 replies, plus
    // the stack moves between the adjacent c3 and d4.
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[lines.len() - 2], "", "a blank line before the total");
    let bad = Command::new(env!("CARGO_BIN_EXE_stackfish"))
        .args(["perft", "2", "--moves", "c3 c3"])
        .output()
        .unwrap();
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("illegal move 'c3'"));
    let bad = Command::new(env!("CARGO_BIN_EXE_stackfish"))
        .args(["perft", "1", "--fen", "x5 1"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&bad.stderr).contains("field"));
}

/// A command line missing an argument names it and points at the
/// subcommand's own help, for both programs.
#[test]
fn a_missing_argument_is_named_with_the_subcommands_help() {
    for (program, args, expected) in [
        (
            env!("CARGO_BIN_EXE_stackfish"),
            &["perft"][..],
            "error: the following required arguments were not provided: <DEPTH>; try 'stackfish perft --help'",
        ),
        (
            env!("CARGO_BIN_EXE_arena"),
            &["compliance"][..],
            "arena: usage error: the following required arguments were not provided: <CMD>...; try 'arena compliance --help'",
        ),
    ] {
        let out = Command::new(program).args(args).output().unwrap();
        assert!(!out.status.success());
        assert_eq!(String::from_utf8_lossy(&out.stderr).trim_end(), expected);
    }
}

/// The binary's whole output for `input` on a pipe (end of input after
/// it), run by `sh -c "<shell>; exec stackfish"` so a test can set limits.
fn piped_with(shell: &str, input: &str) -> (Option<i32>, String) {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!("{shell}; exec \"$0\""))
        .arg(env!("CARGO_BIN_EXE_stackfish"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("sh starts");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(input.as_bytes()).expect("writes");
    drop(stdin);
    let out = child.wait_with_output().expect("ends");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code(), text)
}

#[test]
fn a_hash_the_memory_cannot_hold_is_an_error_and_the_old_table_stays() {
    // 1 GB of address space: the default table fits, 16 GB does not.
    let (code, out) = piped_with(
        "ulimit -v 1000000",
        "setoption name Hash value 16384\nisready\nposition startpos\ngo depth 2\nquit\n",
    );
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.contains(
            "info string error: option Hash: cannot allocate 16384 MB (17179869184 bytes): \
             not enough memory; the previous table is kept"
        ),
        "{out}"
    );
    assert!(
        out.contains("readyok") && out.contains("\nbestmove "),
        "{out}"
    );
}

fn piped(input: &str) -> String {
    let (code, out) = piped_with(":", input);
    assert_eq!(code, Some(0), "{out}");
    out
}

#[test]
fn commands_queued_behind_a_search_run_after_it_also_at_quit_and_end_of_input() {
    // `quit` stops the search (as Stockfish does), then the queued query is
    // answered, in order, before the engine ends.
    for end in ["quit\nisready\n", ""] {
        let out = piped(&format!("go depth 8\nquery result\nd\n{end}"));
        let lines: Vec<&str> = out.lines().collect();
        let best = lines.iter().position(|l| l.starts_with("bestmove "));
        let response = lines.iter().position(|l| *l == "response none");
        assert!(best.is_some() && response > best, "{out}");
        assert!(
            lines.len() > response.unwrap() + 1,
            "d after the query: {out}"
        );
        // Nothing is read after quit.
        assert!(!out.contains("readyok"), "{out}");
    }
    // A search queued behind a search that quit ends is stopped at once too.
    let out = piped("go depth 30\ngo depth 30\nquery gameover\nquit\n");
    assert_eq!(out.matches("bestmove ").count(), 2, "{out}");
    assert!(out.ends_with("response false\n"), "{out}");
}

/// The binary with a thread turning its output into timed lines.
fn interactive() -> (
    std::process::Child,
    std::process::ChildStdin,
    Receiver<String>,
) {
    let mut child = spawn_engine();
    let stdin = child.stdin.take().unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        for line in stdout.lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    (child, stdin, rx)
}

/// Lines until one starts with `prefix`, waiting at most `wait` in all.
fn wait_for(rx: &Receiver<String>, prefix: &str, wait: Duration) -> Vec<String> {
    let until = Instant::now() + wait;
    let mut seen = Vec::new();
    loop {
        let left = until.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(line) => {
                let done = line.starts_with(prefix);
                seen.push(line);
                if done {
                    return seen;
                }
            }
            Err(_) => panic!("no '{prefix}' within {wait:?}: {seen:?}"),
        }
    }
}

fn exits_within(child: &mut std::process::Child, wait: Duration) {
    let deadline = Instant::now() + wait;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success());
            return;
        }
        assert!(Instant::now() < deadline, "the engine did not exit");
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn go_infinite_with_a_node_limit_waits_for_stop() {
    let (mut child, mut stdin, rx) = interactive();
    writeln!(stdin, "position startpos\ngo infinite nodes 2000").unwrap();
    std::thread::sleep(Duration::from_millis(500));
    writeln!(stdin, "isready").unwrap();
    let seen = wait_for(&rx, "readyok", Duration::from_secs(10));
    assert!(!seen.iter().any(|l| l.starts_with("bestmove")), "{seen:?}");
    writeln!(stdin, "stop").unwrap();
    wait_for(&rx, "bestmove ", Duration::from_secs(10));
    writeln!(stdin, "quit").unwrap();
    exits_within(&mut child, Duration::from_secs(5));
}

#[test]
fn perft_and_bench_answer_isready_and_quit_while_they_run() {
    for job in ["go perft 9", "bench 30"] {
        let (mut child, mut stdin, rx) = interactive();
        writeln!(stdin, "position startpos\n{job}").unwrap();
        std::thread::sleep(Duration::from_millis(200));
        writeln!(stdin, "isready").unwrap();
        let seen = wait_for(&rx, "readyok", Duration::from_secs(2));
        assert!(
            !seen.iter().any(|l| l.starts_with("Nodes searched")),
            "{seen:?}"
        );
        writeln!(stdin, "quit").unwrap();
        exits_within(&mut child, Duration::from_secs(2));
    }
}

#[test]
fn unknown_input_is_echoed_escaped_and_cut() {
    // Under the input line bound (a longer line is cut unread).
    let long = "y".repeat(60_000);
    let out = piped(&format!(
        "hello\rworld\u{1b}[2J\u{7}\n{long}\nsetoption name Le\u{1b}vl value 3\n"
    ));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        "info string unknown command: hello\\rworld\\u{1b}[2J\\u{7}"
    );
    assert_eq!(
        lines[1],
        format!(
            "info string unknown command: {}... (60000 characters)",
            "y".repeat(80)
        )
    );
    assert_eq!(lines[2], "info string error: unknown option 'Le\\u{1b}vl'");
    assert!(!out.contains('\r') && !out.contains('\u{1b}'), "{out:?}");
}

/// The peak resident memory of process `pid` in kB (VmHWM).
fn peak_kb(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM in /proc/<pid>/status")
}

#[test]
fn a_line_too_long_is_cut_while_it_is_read_and_the_engine_goes_on() {
    // 10 MB with no newline, then `isready`; the peak memory before and
    // after (a whole line held would add 10 MB).
    let (mut child, mut stdin, rx) = interactive();
    let pid = child.id();
    writeln!(stdin, "isready").unwrap();
    wait_for(&rx, "readyok", Duration::from_secs(10));
    let before = peak_kb(pid);
    let writer = std::thread::spawn(move || {
        let chunk = vec![b'x'; 1 << 20];
        for _ in 0..10 {
            stdin.write_all(&chunk).unwrap();
        }
        stdin.write_all(b"\nisready\n").unwrap();
        stdin
    });
    let seen = wait_for(&rx, "readyok", Duration::from_secs(10));
    assert_eq!(
        seen,
        [
            "info string error: input line of more than 65536 bytes cut; ignored",
            "readyok"
        ]
    );
    let grown = peak_kb(pid).saturating_sub(before);
    assert!(grown < 2 * 1024, "the peak grew by {grown} kB");
    let mut stdin = writer.join().unwrap();
    writeln!(stdin, "quit").unwrap();
    exits_within(&mut child, Duration::from_secs(5));
}

#[test]
fn stop_ends_perft_and_bench_with_no_total_and_the_engine_goes_on() {
    for (job, stopped) in [
        ("go perft 9", "info string perft stopped; no total"),
        ("bench 30", "info string bench stopped; no total"),
    ] {
        let (mut child, mut stdin, rx) = interactive();
        writeln!(stdin, "position startpos\n{job}").unwrap();
        std::thread::sleep(Duration::from_millis(300));
        writeln!(stdin, "stop").unwrap();
        let seen = wait_for(&rx, stopped, Duration::from_secs(10));
        assert!(
            !seen
                .iter()
                .any(|l| l.starts_with("Nodes searched") || l.ends_with(" nps")),
            "{job}: {seen:?}"
        );
        // It goes on answering, and the next job is not stopped at once.
        writeln!(stdin, "isready\ngo perft 2").unwrap();
        wait_for(&rx, "readyok", Duration::from_secs(10));
        let seen = wait_for(&rx, "Nodes searched", Duration::from_secs(10));
        // 25 placements, each with 24 replies.
        assert_eq!(seen.last().unwrap(), "Nodes searched: 600", "{seen:?}");
        writeln!(stdin, "quit").unwrap();
        exits_within(&mut child, Duration::from_secs(5));
    }
}

#[test]
fn an_unknown_game_and_bad_go_values_are_echoed_escaped_and_cut() {
    // Under the input line bound (the parser's own test takes 1 MB).
    let token = "\u{1b}[2J".to_string() + &"q".repeat(60_000);
    let out = piped(&format!(
        "setoption name Game value {token}\ngo depth {token}\ngo movetime -\u{1b}5\nquit\n"
    ));
    let cut = format!("\\u{{1b}}[2J{}... (1000004 characters)", "q".repeat(76));
    let cut = cut.replace("1000004", "60004");
    for expected in [
        format!("info string error: option Game: unknown game '{cut}' (known: "),
        format!("info string go: 'depth' needs a number, got '{cut}'; read as 1"),
        "info string go: 'movetime' needs a number, got '-\\u{1b}5'; read as 0".to_string(),
    ] {
        assert!(out.contains(&expected), "{expected}\n{out:.2000}");
    }
    assert!(!out.contains('\u{1b}') && out.len() < 10_000, "{out:.2000}");
}

/// The pairs a test sends per game: enough that a lost `stop` shows.
const GO_STOP_PAIRS: usize = 2000;

/// `go` and `stop` written together the moment each `bestmove` is read,
/// thousands of times in every game, with two busy threads beside the
/// engine (the race showed under CPU contention): every search ends.
/// Before the loop wrote `bestmove` itself, a `go` that came right after
/// one was queued as if the search were still running, its `stop` set the
/// flags of the search that had ended, and the queued `go` then ran with
/// no limit.
#[test]
fn a_stop_sent_right_after_bestmove_always_stops_the_next_search() {
    use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
    use std::sync::Arc;
    let busy = Arc::new(AtomicBool::new(true));
    let spinners: Vec<_> = (0..2)
        .map(|_| {
            let busy = busy.clone();
            std::thread::spawn(move || {
                let mut n = 0u64;
                while busy.load(Relaxed) {
                    n = n.wrapping_mul(6364136223846793005).wrapping_add(1);
                }
                n
            })
        })
        .collect();
    for (i, game) in stackfish::game::variants::variant_names()
        .iter()
        .enumerate()
    {
        let mut child = spawn_engine();
        let mut stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        writeln!(stdin, "setoption name Game value {game}\nisready").unwrap();
        let (tx, rx) = channel();
        // The reader answers each bestmove at once, from its own thread, as
        // a GUI that stops its analysis right after restarting it would.
        let go = if i % 2 == 0 { "go" } else { "go infinite" };
        std::thread::spawn(move || {
            let mut answered = 0;
            for line in stdout.lines().map_while(Result::ok) {
                let next = if line == "readyok" {
                    true
                } else if line.starts_with("bestmove") {
                    answered += 1;
                    let _ = tx.send(answered);
                    answered < GO_STOP_PAIRS
                } else {
                    false
                };
                if next && writeln!(stdin, "{go}\nstop").is_err() {
                    return;
                }
                if answered == GO_STOP_PAIRS {
                    let _ = writeln!(stdin, "quit");
                    return;
                }
            }
        });
        let mut answered = 0;
        while answered < GO_STOP_PAIRS {
            match rx.recv_timeout(Duration::from_secs(20)) {
                Ok(n) => answered = n,
                Err(_) => {
                    let _ = child.kill();
                    panic!(
                        "{game}: `{go}` + `stop` number {} got no bestmove",
                        answered + 1
                    );
                }
            }
        }
        exits_within(&mut child, Duration::from_secs(10));
    }
    busy.store(false, Relaxed);
    spinners.into_iter().for_each(|s| {
        s.join().unwrap();
    });
}
