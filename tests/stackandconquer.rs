//! `stackfish import` / `export` and `arena openings --board` from the
//! outside: what they print, the files they write, their exit codes.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn stackfish(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_stackfish"))
        .args(args)
        .output()
        .expect("stackfish starts")
}

fn arena(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(args)
        .output()
        .expect("arena starts")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn board(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("boards")
        .join(name)
        .display()
        .to_string()
}

/// A fresh directory of this test's own.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("stackandconquer")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir
}

#[test]
fn import_prints_the_start_of_a_board_file() {
    let out = stackfish(&["import", &board("square_5x5.in")]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "x5/x5/x5/x5/x5 1 20,20 0,0 1 -\n");
    let out = stackfish(&["import", &board("square_5x5.in"), "--goal", "4"]);
    assert_eq!(stdout(&out), "x5/x5/x5/x5/x5 1 20,20 0,0 4 -\n");
}

/// Exit status 2 and one line on standard error that contains `needle`.
fn assert_refused(out: &Output, needle: &str) {
    assert_eq!(out.status.code(), Some(2), "{}", stderr(out));
    assert!(stdout(out).is_empty());
    let err = stderr(out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("error: ") && err.contains(needle), "{err}");
}

#[test]
fn import_refuses_bad_files_with_one_line() {
    let dir = scratch("import_errors");
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    };
    let cases = [
        (
            write("wide.in", "20\n0,0,0\n0,0\n"),
            "row 2 from the top has 2 cells",
        ),
        (write("digit.in", "20\n0,0\n0,1\n"), "'1' is not 0"),
        (write("count.in", "twenty\n0,0\n"), "'twenty'"),
        (
            write("b.stackboard", "{\"Board\": [\"0\"]}"),
            "missing key \"Columns\"",
        ),
        (write("plain.stacksav", "{\"Board\": []}"), "not base64"),
        (write("notjson.stacksav", "bm90IGpzb24="), "not JSON"),
        (
            write("board.txt", "20\n0,0\n"),
            "not a StackAndConquer file",
        ),
        (dir.join("missing.in").display().to_string(), "missing.in"),
    ];
    for (path, needle) in &cases {
        assert_refused(&stackfish(&["import", path]), needle);
    }
    let save = write("goal.stacksav", "e30=");
    assert_refused(
        &stackfish(&["import", &save, "--goal", "2"]),
        "a saved game has its own goal",
    );
    // A board the rules refuse: one playable cell.
    let one = write("one.in", "20\n0,#\n");
    assert_refused(
        &stackfish(&["import", &one]),
        "not a position stackfish can play",
    );
}

#[test]
fn arena_openings_start_from_a_board() {
    let out = arena(&[
        "openings",
        "--board",
        &board("square_5x5.in"),
        "--goal",
        "2",
        "--count",
        "5",
        "--plies",
        "3",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(lines.len(), 5, "{text}");
    for line in lines {
        assert!(
            line.starts_with("x5/x5/x5/x5/x5 1 20,20 0,0 2 - moves "),
            "{line}"
        );
    }
    let out = arena(&["openings", "--board", "x5/x5/x5/x5 1 20,20 0,0 1 -"]);
    assert_eq!(out.status.code(), Some(3));
    assert!(stderr(&out).contains("field board"), "{}", stderr(&out));
}
