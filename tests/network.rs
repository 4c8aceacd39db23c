//! The Mixtour network's tools from the outside: `stackfish datagen` writes
//! records, `stackfish train` makes a network of them, `STACKFISH_NET`
//! plays it; bad input gets an error and an exit status, never a panic.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn stackfish(args: &[&str], env: Option<&Path>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_stackfish"));
    cmd.args(args);
    if let Some(net) = env {
        cmd.env("STACKFISH_NET", net);
    }
    cmd.output().expect("stackfish starts")
}

/// `stackfish datagen --out <out> --games <games> --nodes <nodes>` and
/// `extra`: a success.
fn datagen(out: &Path, games: &str, nodes: &str, extra: &[&str]) {
    let mut args = vec![
        "datagen",
        "--out",
        out.to_str().unwrap(),
        "--games",
        games,
        "--nodes",
        nodes,
    ];
    args.extend_from_slice(extra);
    let out = stackfish(&args, None);
    assert!(out.status.success(), "{}", stderr(&out));
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A fresh directory of this test's own.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("network")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The engine's `bestmove` for the standard start after a short search,
/// and what it wrote on stderr.
fn engine_move(net: &Path) -> (String, String) {
    engine_move_in(net, "position startpos moves c3 b2\ngo nodes 2000\n")
}

/// The engine's `bestmove` after the commands `script` (which end in a
/// `go`), and what it wrote on stderr.
fn engine_move_in(net: &Path, script: &str) -> (String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_stackfish"))
        .env("STACKFISH_NET", net)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(format!("ugi\nisready\n{script}").as_bytes())
        .unwrap();
    // `quit` only once the answer is out: sent during the search it would
    // stop it early, and the move would depend on the machine's load.
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut seen = String::new();
    let best = loop {
        let mut line = String::new();
        if stdout.read_line(&mut line).unwrap() == 0 {
            panic!("no bestmove in {seen}");
        }
        seen.push_str(&line);
        if let Some(best) = line.trim_end().strip_prefix("bestmove ") {
            break best.to_string();
        }
    };
    stdin.write_all(b"quit\n").unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    (best, stderr(&out))
}

#[test]
fn datagen_then_train_makes_a_network_the_engine_plays() {
    let dir = scratch("round-trip");
    let records = dir.join("games.jsonl");
    let r = records.to_str().unwrap();
    let out = stackfish(
        &[
            "datagen",
            "--out",
            r,
            "--games",
            "6",
            "--nodes",
            "300",
            "--threads",
            "2",
        ],
        None,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("wrote 6 games to "));
    // Appends: a second run adds its games to the same file.
    let out = stackfish(
        &[
            "datagen", "--out", r, "--games", "2", "--nodes", "300", "--seed", "9",
        ],
        None,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(&records).unwrap().lines().count(),
        8
    );

    let net = dir.join("net.bin");
    let out = stackfish(
        &["train", r, "--out", net.to_str().unwrap(), "--epochs", "2"],
        None,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    // The size the format gives: the 32-byte header, then 801 inputs x 64
    // hidden units, 64 biases, 64 output weights (i16), the output bias
    // and 12 linear weights (i32).
    assert_eq!(
        std::fs::metadata(&net).unwrap().len(),
        32 + 2 * (801 * 64 + 64 + 64) + 4 + 4 * 12
    );

    let (best, err) = engine_move(&net);
    assert!(!best.is_empty() && err.is_empty(), "{best} / {err}");
}

/// Focus records train a Focus network, which `STACKFISH_NET` plays in
/// Focus; records of Focus and Mixtour together are refused.
#[test]
fn focus_records_train_a_focus_network_the_engine_plays() {
    let dir = scratch("focus");
    let records = dir.join("focus.jsonl");
    let r = records.to_str().unwrap();
    datagen(&records, "4", "200", &["--game", "focus", "--threads", "2"]);
    let net = dir.join("focus.bin");
    let n = net.to_str().unwrap();
    let train = |hidden: &str| {
        stackfish(
            &["train", r, "--out", n, "--epochs", "2", "--hidden", hidden],
            None,
        )
    };
    let out = train("32");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(" focus positions"),
        "{}",
        stderr(&out)
    );
    // The 32-byte header, 3300 inputs x 32 hidden units, 32 biases, 32
    // output weights (i16), the output bias and 11 linear weights (i32).
    let bytes = std::fs::read(&net).unwrap();
    assert_eq!(bytes.len(), 32 + 2 * (3300 * 32 + 32 + 32) + 4 + 4 * 11);
    assert_eq!(&bytes[10..18], b"focus\0\0\0");
    // The same records and seed: the same file.
    let out = train("32");
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(std::fs::read(&net).unwrap(), bytes);

    let (best, err) = engine_move_in(
        &net,
        "setoption name Game value focus\nposition startpos\ngo nodes 2000\n",
    );
    assert!(!best.is_empty() && err.is_empty(), "{best} / {err}");

    let mixtour = dir.join("mixtour.jsonl");
    datagen(&mixtour, "1", "100", &[]);
    let both = dir.join("both.bin");
    let out = stackfish(
        &[
            "train",
            r,
            mixtour.to_str().unwrap(),
            "--out",
            both.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("records of focus and of mixtour: train one game at a time"),
        "{}",
        stderr(&out)
    );
    assert!(!both.exists());
    let out = train("40");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("--hidden 40"), "{}", stderr(&out));
}

#[test]
fn a_network_file_that_does_not_read_is_reported_and_the_built_in_one_plays() {
    let dir = scratch("bad-net");
    let bad = dir.join("bad.bin");
    std::fs::write(&bad, b"SFNNUE01 too short").unwrap();
    let (best, err) = engine_move(&bad);
    assert!(
        err.contains("STACKFISH_NET=") && err.contains("built-in"),
        "{err}"
    );
    // A file of the format before the header: its version, on one line.
    assert!(err.contains("network file version 1;"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    // The same move as the built-in network plays (the search is
    // deterministic at a node count with one thread).
    let builtin = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/games/src/mixtour/net.bin");
    assert_eq!(best, engine_move(&builtin).0);
}

#[test]
fn bad_arguments_and_files_get_an_error_and_status_2() {
    let dir = scratch("bad-input");
    let garbage = dir.join("garbage.jsonl");
    std::fs::write(&garbage, "not json\n{\"variant\":\"silo\"}\n").unwrap();
    let g = garbage.to_str().unwrap();
    let missing = dir.join("missing.jsonl");
    let unwritable = dir.join("no-such-dir").join("x.jsonl");
    let cases: [(Vec<&str>, &str); 5] = [
        (vec!["train", missing.to_str().unwrap()], "cannot read"),
        (vec!["train", g], "no usable positions"),
        (vec!["train", g, "--lambda", "1.5"], "--lambda"),
        (vec!["train", g, "--epochs", "0"], "--epochs"),
        (
            vec!["datagen", "--out", unwritable.to_str().unwrap()],
            "cannot open",
        ),
    ];
    // Records of another game, and too few positions: an error that says
    // so, and no file.
    let coinstack = dir.join("coinstack.jsonl");
    datagen(&coinstack, "1", "100", &["--game", "coinstack"]);
    let one = dir.join("one.jsonl");
    datagen(&one, "1", "100", &[]);
    // The game cut to its first 20 moves: at most 20 positions.
    let text = std::fs::read_to_string(&one).unwrap();
    let mut record: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    record["moves"].as_array_mut().unwrap().truncate(20);
    std::fs::write(&one, format!("{record}\n")).unwrap();
    let written = dir.join("never.bin");
    for (records, message) in [
        (
            &coinstack,
            "the records are of coinstack, not mixtour or focus",
        ),
        (&one, "training needs at least 50: nothing written"),
    ] {
        let out = stackfish(
            &[
                "train",
                records.to_str().unwrap(),
                "--out",
                written.to_str().unwrap(),
            ],
            None,
        );
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert!(stderr(&out).contains(message), "{}", stderr(&out));
        assert!(!written.exists());
    }
    for (args, message) in cases {
        let out = stackfish(&args, None);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(message), "{args:?}: {}", stderr(&out));
        assert!(!stderr(&out).contains("panicked"), "{args:?}");
    }
}
