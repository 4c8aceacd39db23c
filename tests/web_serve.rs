//! `stackfish serve` start-up, end to end: each `--engine` is started once
//! before the board is served, so a command that does not run or an option
//! the engine refuses stops the server with one line and exit 2 instead of
//! a board whose engine fails at its first search.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long a start-up may take before the test calls it a server that runs.
const WATCHDOG: Duration = Duration::from_secs(20);

fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("stackfish-serve-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

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
