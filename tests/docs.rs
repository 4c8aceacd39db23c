//! The documentation shows what the programs do: the example engine
//! sessions run as written, the start line of `stackfish serve` and the
//! one-line summaries of `stackfish --help` are the programs' own. A change
//! of output that the docs do not follow fails here.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn doc(path: &str) -> String {
    std::fs::read_to_string(Path::new(ROOT).join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The fenced blocks of a Markdown text that start with a typed line
/// (`> ...`): the example sessions.
fn sessions(text: &str) -> Vec<Vec<&str>> {
    let mut blocks = Vec::new();
    let mut block: Option<Vec<&str>> = None;
    for line in text.lines() {
        if line.starts_with("```") {
            match block.take() {
                Some(b) => {
                    if b.first().is_some_and(|l| l.starts_with("> ")) {
                        blocks.push(b);
                    }
                }
                None => block = Some(Vec::new()),
            }
        } else if let Some(b) = block.as_mut() {
            b.push(line);
        }
    }
    blocks
}

/// An output line with the figures that depend on the machine (`nps`,
/// `time`) replaced by `*`.
fn steady(line: &str) -> String {
    let mut words: Vec<&str> = line.split(' ').collect();
    for i in 1..words.len() {
        if matches!(words[i - 1], "nps" | "time") {
            words[i] = "*";
        }
    }
    words.join(" ")
}

/// The engine binary with a thread turning its output into lines.
fn engine() -> (
    std::process::Child,
    std::process::ChildStdin,
    Receiver<String>,
) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_stackfish"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the engine starts");
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

/// Runs one session: each typed line is sent once the lines shown before
/// it have come; each shown line must come next (`...`: any lines until
/// the next shown one).
fn run_session(name: &str, session: &[&str]) {
    use std::io::Write;
    let (mut child, mut stdin, out) = engine();
    let mut skipping = false;
    for (n, line) in session.iter().enumerate() {
        let at = format!("{name}, session line {}", n + 1);
        if let Some(typed) = line.strip_prefix("> ") {
            writeln!(stdin, "{typed}").unwrap();
        } else if *line == "..." {
            skipping = true;
        } else {
            loop {
                let got = out
                    .recv_timeout(Duration::from_secs(30))
                    .unwrap_or_else(|_| panic!("{at}: no line, expected '{line}'"));
                if steady(&got) == steady(line) {
                    break;
                }
                assert!(
                    skipping,
                    "{at}: expected '{line}', the engine wrote '{got}'"
                );
            }
            skipping = false;
        }
    }
    drop(stdin);
    let _ = child.wait();
}

#[test]
fn the_example_sessions_run_as_written() {
    let mut ran = 0;
    for path in [
        "docs/engine.md",
        "protocol.md",
        "README.md",
        "docs/playing.md",
    ] {
        for session in sessions(&doc(path)) {
            run_session(path, &session);
            ran += 1;
        }
    }
    assert!(ran >= 1, "no example session found");
}

/// Lines of Markdown joined, so that a phrase broken over lines is found.
fn flowing(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn serves_start_line_is_the_one_the_docs_show() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_stackfish"))
        .args(["serve", "--port", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("serve starts");
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let _ = child.kill();
    let _ = child.wait();
    // The documented port is the default one.
    let port = first
        .trim_end()
        .split("127.0.0.1:")
        .nth(1)
        .and_then(|r| r.split('/').next())
        .unwrap_or_else(|| panic!("no address in '{first}'"))
        .to_string();
    let shown = first.trim_end().replace(&format!(":{port}/"), ":8080/");
    for path in ["protocol.md", "docs/playing.md"] {
        assert!(
            flowing(&doc(path)).contains(&format!("`{shown}`")),
            "{path} does not show serve's start line `{shown}`"
        );
    }
}

/// The one-line summary `stackfish --help` gives of a subcommand.
fn summary(help: &str, command: &str) -> String {
    help.lines()
        .find_map(|l| l.trim_start().strip_prefix(&format!("{command} ")))
        .unwrap_or_else(|| panic!("no {command} in the help"))
        .trim()
        .to_string()
}

#[test]
fn the_help_summaries_name_every_game_a_command_takes() {
    let help = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_stackfish"))
            .args(args)
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    let top = help(&["--help"]);
    // tune's --game lists the games it fits.
    let tune = help(&["tune", "--help"]);
    let values = tune
        .split("[possible values: ")
        .nth(1)
        .and_then(|r| r.split(']').next())
        .expect("tune --game's values");
    let names = [
        ("mixtour", "Mixtour"),
        ("coinstack", "Coin Stack"),
        ("focus", "Focus"),
        ("castle", "Castle"),
    ];
    for value in values.split(", ") {
        let (_, name) = names
            .iter()
            .find(|(v, _)| *v == value)
            .unwrap_or_else(|| panic!("a game this test does not know: {value}"));
        assert!(
            summary(&top, "tune").contains(name),
            "stackfish --help's tune line leaves out {name}"
        );
    }
    // train writes a network for each game that has one.
    for name in ["Mixtour", "Focus"] {
        assert!(
            summary(&top, "train").contains(name),
            "stackfish --help's train line leaves out {name}"
        );
    }
}
