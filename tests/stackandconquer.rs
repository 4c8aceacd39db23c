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
            "line 3 (row 2) has 2 cells, line 2 (row 1) has 3",
        ),
        (write("digit.in", "20\n0,0\n0,1\n"), "'1' is not 0"),
        (write("count.in", "twenty\n0,0\n"), "'twenty'"),
        (
            write("b.stackboard", "{\"Board\": [\"0\"]}"),
            "missing key \"Columns\"",
        ),
        (
            write("plain.stacksav", "{\"Board\": []}"),
            "the saved game is not valid base64 ('{' at byte 1: this looks like plain JSON)",
        ),
        (
            write("game.stacksav", "eyJCb2FyZCI6IF!dfQ=="),
            "game.stacksav: the saved game is not valid base64 ('!' at byte 15)",
        ),
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
    let out = arena(&["openings", "--board", "x5/x4/x5/x5/x5 1 20,20 0,0 1 -"]);
    assert_eq!(out.status.code(), Some(3));
    assert!(stderr(&out).contains("field board"), "{}", stderr(&out));
}

#[test]
fn export_writes_files_that_import_back() {
    let dir = scratch("export");
    let save = dir.join("game.stacksav");
    let board_file = dir.join("board.stackboard");
    let fen = "x5/x2,12,x2/x5/2,x4/x3,1122,x 2 15,16 0,1 2 -";
    let out = stackfish(&[
        "export",
        "--fen",
        fen,
        "--stacksav",
        save.to_str().unwrap(),
        "--stackboard",
        board_file.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).is_empty() && stderr(&out).is_empty());
    let imported = stackfish(&["import", save.to_str().unwrap()]);
    assert_eq!(stdout(&imported), format!("{fen}\n"));
    let imported = stackfish(&["import", board_file.to_str().unwrap()]);
    assert_eq!(stdout(&imported), "x5/x5/x5/x5/x5 1 20,20 0,0 1 -\n");
    // The save names the board file beside it, as StackAndConquer looks it up.
    let text = std::fs::read_to_string(&save).unwrap();
    assert!(!text.contains('\n'));
    let json = base64_decode(&text);
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    let named = PathBuf::from(value["BoardFile"].as_str().unwrap());
    assert!(named.is_absolute());
    assert_eq!(
        std::fs::canonicalize(&named).unwrap(),
        std::fs::canonicalize(&board_file).unwrap()
    );
    assert_eq!(value["BoardFileRelative"], "board.stackboard");

    // Without a board file the save still imports; a note says what is missing.
    let lone = dir.join("lone.stacksav");
    let fen = "x5/x5/x5/x5/1,1,x3 1 19,19 0,0 1 a1b1";
    let out = stackfish(&["export", "--fen", fen, "--stacksav", lone.to_str().unwrap()]);
    assert!(out.status.success());
    let notes = stderr(&out);
    assert!(
        notes.contains("no board file") && notes.contains("b1a1 is no longer forbidden"),
        "{notes}"
    );
    let imported = stackfish(&["import", lone.to_str().unwrap()]);
    assert_eq!(stdout(&imported), "x5/x5/x5/x5/1,1,x3 1 19,19 0,0 1 -\n");
}

#[test]
fn export_refuses_bad_input_with_one_line() {
    let dir = scratch("export_errors");
    let save = dir.join("g.stacksav").display().to_string();
    assert_refused(
        &stackfish(&["export", "--fen", "x5/x5/x5/x5/x5 1 20,20 0,0 1 -"]),
        "nothing to write",
    );
    assert_refused(
        &stackfish(&[
            "export",
            "--fen",
            "x5/x5/x5/x5/x5 3 20,20 0,0 1 -",
            "--stacksav",
            &save,
        ]),
        "field side",
    );
    assert!(
        !Path::new(&save).exists(),
        "nothing written for a bad position"
    );
    let missing = dir.join("no/such/dir/g.stacksav").display().to_string();
    assert_refused(
        &stackfish(&[
            "export",
            "--fen",
            "x5/x5/x5/x5/x5 1 20,20 0,0 1 -",
            "--stacksav",
            &missing,
        ]),
        "cannot write",
    );
}

/// Standard base64, decoded here from the alphabet so the test does not
/// lean on the crate the program uses.
fn base64_decode(text: &str) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut bits = 0u32;
    let mut count = 0;
    let mut out = Vec::new();
    for c in text.bytes().filter(|&c| c != b'=') {
        let v = ALPHABET
            .iter()
            .position(|&a| a == c)
            .expect("a base64 letter") as u32;
        bits = bits << 6 | v;
        count += 6;
        if count >= 8 {
            count -= 8;
            out.push((bits >> count) as u8);
            bits &= (1 << count) - 1;
        }
    }
    String::from_utf8(out).unwrap()
}

#[test]
fn every_shipped_board_imports_and_round_trips_on_the_command_line() {
    // The start positions themselves are checked in the library's tests;
    // here the command line gives the same and its files read back.
    let dir = scratch("shipped");
    let boards = Path::new(env!("CARGO_MANIFEST_DIR")).join("boards");
    for entry in std::fs::read_dir(boards).unwrap() {
        let path = entry.unwrap().path();
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        let start = stackfish::stackandconquer::read_path(&path, None)
            .unwrap()
            .to_fen();
        let out = stackfish(&["import", path.to_str().unwrap()]);
        assert!(out.status.success(), "{file}: {}", stderr(&out));
        assert_eq!(stdout(&out), format!("{start}\n"), "{file}");
        let save = dir.join(&file).with_extension("stacksav");
        let sboard = dir.join(&file).with_extension("stackboard");
        let out = stackfish(&[
            "export",
            "--fen",
            &start,
            "--stacksav",
            save.to_str().unwrap(),
            "--stackboard",
            sboard.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{file}: {}", stderr(&out));
        for written in [&save, &sboard] {
            let out = stackfish(&["import", written.to_str().unwrap()]);
            assert_eq!(stdout(&out), format!("{start}\n"), "{}", written.display());
        }
    }
}

#[test]
fn a_match_on_a_ring_plays_from_its_openings() {
    let dir = scratch("ring_match");
    let suite = dir.join("ring.txt");
    let out = arena(&[
        "openings",
        "--board",
        &board("ring_7x7.in"),
        "--plies",
        "4",
        "--count",
        "2",
        "--out",
        suite.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = std::fs::read_to_string(&suite).unwrap();
    let start = "x7/x7/x2,#3,x2/x2,#3,x2/x2,#3,x2/x7/x7 1 20,20 0,0 1 - moves ";
    assert_eq!(
        text.lines().filter(|l| l.starts_with(start)).count(),
        2,
        "{text}"
    );
    let cmd = format!("cmd={}", env!("CARGO_BIN_EXE_stackfish"));
    let out = Command::new(env!("CARGO_BIN_EXE_arena"))
        .current_dir(&dir)
        .args([
            "--engine",
            "name=a",
            &cmd,
            "depth=2",
            "--engine",
            "name=b",
            &cmd,
            "depth=1",
            "--games",
            "2",
            "--openings",
            suite.to_str().unwrap(),
            "--maxplies",
            "60",
            "--jsonl",
            "games.jsonl",
            "--log",
            "protocol.log",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    let records = std::fs::read_to_string(dir.join("games.jsonl")).unwrap();
    assert_eq!(records.lines().count(), 2);
    for line in records.lines() {
        let g: serde_json::Value = serde_json::from_str(line).unwrap();
        let t = g["termination"].as_str().unwrap_or("");
        assert!(
            !t.starts_with("a:") && !t.starts_with("b:"),
            "engine fault: {g}"
        );
    }
    let log = std::fs::read_to_string(dir.join("protocol.log")).unwrap();
    assert!(
        log.contains("> position fen x7/x7/x2,#3,x2/"),
        "the engines got the ring"
    );
}

#[test]
fn import_refuses_a_device_a_fifo_and_a_huge_file_at_once() {
    let dir = scratch("unbounded");
    let zero = dir.join("zero.in");
    std::os::unix::fs::symlink("/dev/zero", &zero).expect("a symbolic link");
    let fifo = dir.join("fifo.in");
    let made = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    let huge = dir.join("huge.in");
    std::fs::write(&huge, "1".repeat(5 << 20)).expect("writes");
    // Reading /dev/zero runs out of memory, opening the FIFO blocks.
    for (path, needle) in [
        (&zero, "zero.in: not a regular file"),
        (&fifo, "fifo.in: not a regular file"),
        (
            &huge,
            "huge.in: 5242880 bytes: larger than the 4194304 bytes this file may have",
        ),
    ] {
        let out = stackfish(&["import", path.to_str().expect("utf-8")]);
        assert_refused(&out, needle);
    }
}

#[test]
fn import_messages_name_the_real_fault() {
    let dir = scratch("import_messages");
    // An empty file says it is empty, whatever its kind.
    for name in ["empty.in", "empty.stackboard", "empty.stacksav"] {
        let path = dir.join(name);
        std::fs::write(&path, "\n").unwrap();
        let out = stackfish(&["import", path.to_str().unwrap()]);
        assert_refused(&out, &format!("{name}: the file is empty"));
    }
    // A bad --goal is the flag's fault, not the file's.
    let out = stackfish(&["import", &board("square_5x5.in"), "--goal", "0"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("--goal"), "{err}");
    assert!(!err.contains("square_5x5.in"), "{err}");
    // One playable cell is one cell.
    let one = dir.join("one.in");
    std::fs::write(&one, "20,15\n#, 0, #\n").unwrap();
    let out = stackfish(&["import", one.to_str().unwrap()]);
    assert_refused(&out, "1 playable cell: a board needs at least two");
}

#[test]
fn import_names_rows_a_blank_line_drops_in_a_note() {
    let dir = scratch("import_note");
    let gap = dir.join("gap.in");
    std::fs::write(&gap, "20,15\n0,0,0\n0,0,0\n\n0,0,0\n0,0,0\n").unwrap();
    let out = stackfish(&["import", gap.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // The import succeeds as StackAndConquer reads the file: two rows.
    assert_eq!(stdout(&out).trim(), "x3/x3 1 20,20 0,0 1 -");
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with(&format!(
            "note: {}: lines 5 to 6 are not read: the board ends at the blank line 4",
            gap.display()
        )),
        "{err}"
    );
    // File content in an error is escaped: no escape sequence reaches the
    // terminal.
    let bad = dir.join("escape.in");
    std::fs::write(&bad, "20\n0,\u{1b}[2J\n").unwrap();
    let out = stackfish(&["import", bad.to_str().unwrap()]);
    assert_refused(&out, "'\\u{1b}[2J' is not 0");
    assert!(!stderr(&out).contains('\u{1b}'));
    // So is a position string given to export.
    let out = stackfish(&[
        "export",
        "--fen",
        "x5/x\u{1b}[2J/x5 1 20,20 0,0 1 -",
        "--stackboard",
        "x.stackboard",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        !stderr(&out).contains('\u{1b}') && stderr(&out).contains("\\u{1b}"),
        "{}",
        stderr(&out)
    );
}
