//! `stackfish serve` start-up, end to end: each `--engine` is started once
//! before the board is served, so a command that does not run or an option
//! the engine refuses stops the server with one line and exit 2 instead of
//! a board whose engine fails at its first search.

mod web_support;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use web_support::{open_events, post_raw, serve_process, temp_dir};

/// How long a start-up may take before the test calls it a server that runs.
const WATCHDOG: Duration = Duration::from_secs(20);

/// Runs `stackfish serve --port 0 ARGS` until it exits, or until `until`
/// holds for its output (then it is killed: the server was up); `None` as
/// the status when it was still running.
fn serve(tag: &str, args: &[&str], until: impl Fn(&str) -> bool) -> (Option<i32>, String) {
    let dir = temp_dir(tag);
    let (out, err) = (dir.join("out"), dir.join("err"));
    let mut child = Command::new(env!("CARGO_BIN_EXE_stackfish"))
        .args(["serve", "--port", "0"])
        .args(args)
        .current_dir(&dir)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out).expect("out file"))
        .stderr(std::fs::File::create(&err).expect("err file"))
        .spawn()
        .expect("stackfish starts");
    let read = || {
        std::fs::read_to_string(&out).unwrap_or_default()
            + &std::fs::read_to_string(&err).unwrap_or_default()
    };
    let start = Instant::now();
    let code = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s.code();
        }
        if until(&read()) || start.elapsed() > WATCHDOG {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let text = read();
    let _ = std::fs::remove_dir_all(&dir);
    (code, text)
}

fn served(out: &str) -> bool {
    out.contains("play at http://")
}

#[test]
fn serve_refuses_an_engine_command_that_does_not_exist() {
    let (code, out) = serve(
        "ghost",
        &["--engine", "name=ghost", "cmd=./no-such-engine"],
        served,
    );
    assert_eq!(code, Some(2), "{out}");
    assert!(!served(&out), "{out}");
    assert!(
        out.starts_with("error: cannot start engine: ghost (./no-such-engine): "),
        "{out}"
    );
    assert_eq!(out.lines().count(), 1, "{out}");
}

#[test]
fn serve_refuses_an_option_the_engine_does_not_have() {
    let cmd = format!("cmd={}", env!("CARGO_BIN_EXE_negamax-engine"));
    let (code, out) = serve(
        "levl",
        &["--engine", "name=negamax", &cmd, "option.Levl=3"],
        served,
    );
    assert_eq!(code, Some(2), "{out}");
    assert!(
        out.starts_with(
            "error: engine negamax: option Levl=3: not among the options it advertised"
        ),
        "{out}"
    );
    assert_eq!(out.lines().count(), 1, "{out}");
}

#[test]
fn the_documented_engine_command_starts() {
    // docs/playing.md: `cmd=negamax-engine`, found beside stackfish.
    let (code, out) = serve(
        "doc",
        &[
            "--engine",
            "name=negamax",
            "cmd=negamax-engine",
            "option.Depth=3",
        ],
        served,
    );
    assert_eq!(code, None, "{out}");
    assert!(served(&out), "{out}");
}

/// The pids of `pid`'s children (Linux: each thread lists the children it
/// started).
fn children(pid: u32) -> Vec<u32> {
    let tasks = std::fs::read_dir(format!("/proc/{pid}/task"))
        .into_iter()
        .flatten();
    tasks
        .flatten()
        .flat_map(|t| {
            std::fs::read_to_string(t.path().join("children"))
                .unwrap_or_default()
                .split_whitespace()
                .filter_map(|p| p.parse().ok())
                .collect::<Vec<u32>>()
        })
        .collect()
}

#[cfg(target_os = "linux")]
#[test]
fn sigterm_closes_the_streams_ends_the_engines_and_exits_0() {
    use std::io::Read;
    let dir = temp_dir("sigterm");
    let cmd = format!("cmd={}", env!("CARGO_BIN_EXE_negamax-engine"));
    let mut server = serve_process(&["--engine", "name=negamax", &cmd], Some(&dir), true);
    let (addr, child) = (server.addr, &mut server.child);
    let post = |path: &str, body: &str| {
        let (status, answer) = post_raw(addr, path, "", body);
        assert_eq!(status, 200, "{path}: {answer}");
    };
    post("/api/new", r#"{"engine":"none"}"#);
    let mut stream = open_events(addr);
    post("/api/analyse", r#"{"on":true,"engine":"negamax"}"#);
    // The engine process comes up for the analysis.
    let start = Instant::now();
    let mut engines = children(child.id());
    while engines.is_empty() && start.elapsed() < WATCHDOG {
        std::thread::sleep(Duration::from_millis(20));
        engines = children(child.id());
    }
    assert!(!engines.is_empty(), "no engine process started");
    let sent = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(sent.success());
    let stopped = Instant::now();
    // The stream ends: the server closed it.
    let mut rest = Vec::new();
    let read = stream.read_to_end(&mut rest);
    assert!(read.is_ok(), "the stream did not end cleanly: {read:?}");
    let code = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s.code();
        }
        assert!(
            stopped.elapsed() < Duration::from_secs(5),
            "still running 5 s after SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(10));
    };
    let mut err = String::new();
    let _ = child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut err);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("stackfish: SIGTERM: stopped"), "{err}");
    // The engines went with it (a process that is gone, or a zombie its
    // parent no longer waits for, has no live state).
    for pid in engines {
        let state = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let alive = state
            .rsplit(')')
            .next()
            .and_then(|s| s.split_whitespace().next())
            .is_some_and(|s| s != "Z" && s != "X");
        assert!(!alive, "engine {pid} still runs: {state}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
