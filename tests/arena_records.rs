//! Records survive a killed arena: `--resume` finishes the match without
//! replaying a finished game, and Ctrl-C stops cleanly keeping every game.

mod support;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use support::{arena, arena_exe, mock, read_summary, temp_dir};

const GAMES: u32 = 8;

/// Two mocks that take ~30 ms per move, games cut at 10 plies: a match of
/// a few seconds that can be interrupted in the middle.
fn match_args(dir: &Path) -> Vec<String> {
    let m = mock();
    let mut v: Vec<String> = Vec::new();
    for (name, seed) in [("a", 1), ("b", 2)] {
        v.extend([
            "--engine".into(),
            format!("name={name}"),
            format!("cmd={m}"),
            format!("args=--fault slow --slow-ms 30 --seed {seed}"),
            "st=1".into(),
        ]);
    }
    let p = |f: &str| dir.join(f).to_string_lossy().into_owned();
    v.extend([
        "--games".into(),
        GAMES.to_string(),
        "--maxplies".into(),
        "10".into(),
        "--jsonl".into(),
        p("games.jsonl"),
        "--pgn".into(),
        p("games.pgn"),
        "--json".into(),
        p("summary.json"),
    ]);
    v
}

fn start(dir: &Path, args: &[String]) -> Child {
    Command::new(arena_exe())
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(dir.join("first.out")).unwrap())
        .stderr(Stdio::null())
        .spawn()
        .expect("arena starts")
}

fn recorded(dir: &Path) -> usize {
    std::fs::read_to_string(dir.join("games.jsonl"))
        .map(|t| t.lines().count())
        .unwrap_or(0)
}

fn wait_for_games(dir: &Path, n: usize, child: &mut Child) {
    let t0 = Instant::now();
    while recorded(dir) < n {
        assert!(child.try_wait().unwrap().is_none(), "arena ended too early");
        assert!(t0.elapsed() < Duration::from_secs(60), "no games recorded");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn game_numbers(dir: &Path) -> Vec<u64> {
    let text = std::fs::read_to_string(dir.join("games.jsonl")).unwrap();
    let mut v: Vec<u64> = text
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).expect("whole JSON lines")["game"]
                .as_u64()
                .unwrap()
        })
        .collect();
    v.sort_unstable();
    v
}

#[test]
fn killed_arena_resumes_without_replaying() {
    let dir = temp_dir("resume");
    let args = match_args(&dir);
    let mut child = start(&dir, &args);
    wait_for_games(&dir, 2, &mut child);
    child.kill().unwrap(); // SIGKILL: no chance to clean up
    child.wait().unwrap();
    let before = game_numbers(&dir);
    assert!(
        before.len() >= 2 && before.len() < GAMES as usize,
        "{before:?}"
    );

    // Without --resume the arena refuses to mix into the old records.
    let plain: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = arena(&plain, &dir);
    assert_eq!(run.code, Some(3), "{}", run.output);
    assert!(run.output.contains("--resume"), "{}", run.output);

    let mut resumed = plain.clone();
    resumed.push("--resume");
    let run = arena(&resumed, &dir);
    assert_eq!(run.code, Some(0), "{}", run.output);
    let line = format!(
        "Resuming: {} of {GAMES} games already recorded",
        before.len()
    );
    assert!(run.output.contains(&line), "{}", run.output);
    assert_eq!(
        run.output.matches("Started game").count(),
        GAMES as usize - before.len()
    );
    for g in &before {
        assert!(
            !run.output.contains(&format!("Started game {g} of")),
            "game {g} replayed"
        );
    }
    assert_eq!(game_numbers(&dir), (1..=GAMES as u64).collect::<Vec<_>>());
    let summary = read_summary(&dir);
    assert_eq!(summary["finished"], GAMES);
    assert_eq!(summary["games"].as_array().unwrap().len(), GAMES as usize);
    let pair = &summary["pairs"][0];
    let total = pair["wins"].as_u64().unwrap()
        + pair["draws"].as_u64().unwrap()
        + pair["losses"].as_u64().unwrap();
    assert_eq!(total, GAMES as u64);
    // Every game once in the PGN file too: a block torn by the kill is cut
    // and written again whole from its JSONL line.
    let pgn = std::fs::read_to_string(dir.join("games.pgn")).unwrap();
    for g in 1..=GAMES {
        assert_eq!(
            pgn.matches(&format!("[Game \"{g}\"]\n")).count(),
            1,
            "game {g}: {pgn}"
        );
    }
}

/// Sends `signals` to the arena, 100 ms apart, and waits (at most 10 s)
/// for it to exit.
fn signal_and_wait(child: &mut Child, signals: &[libc::c_int]) -> std::process::ExitStatus {
    for (i, &signal) in signals.iter().enumerate() {
        if i > 0 {
            std::thread::sleep(Duration::from_millis(100));
        }
        // Safety: signalling our own child process, which is not reaped yet.
        unsafe {
            libc::kill(child.id() as libc::pid_t, signal);
        }
    }
    let t0 = Instant::now();
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return s;
        }
        assert!(t0.elapsed() < Duration::from_secs(10), "arena did not stop");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// One `signal` in the middle of a match: exit 130 with every finished game
/// recorded, counted in the summary and reported.
fn stops_cleanly_keeping_every_finished_game(signal: libc::c_int, tag: &str) {
    let dir = temp_dir(tag);
    let mut child = start(&dir, &match_args(&dir));
    wait_for_games(&dir, 1, &mut child);
    let status = signal_and_wait(&mut child, &[signal]);
    assert_eq!(status.code(), Some(130));
    let out = std::fs::read_to_string(dir.join("first.out")).unwrap();
    assert!(out.contains("Interrupted: "), "{out}");
    let summary = read_summary(&dir);
    assert_eq!(summary["interrupted"], true);
    let n = game_numbers(&dir).len();
    assert!(n >= 1 && n < GAMES as usize, "{n}");
    assert_eq!(summary["finished"], n as u64);
    assert_eq!(out.matches("Finished game").count(), n);
}

#[test]
fn ctrl_c_stops_cleanly_and_keeps_every_finished_game() {
    stops_cleanly_keeping_every_finished_game(libc::SIGINT, "sigint");
}

#[test]
fn sigterm_stops_as_cleanly_as_ctrl_c() {
    stops_cleanly_keeping_every_finished_game(libc::SIGTERM, "sigterm");
}

#[test]
fn a_second_ctrl_c_exits_at_once_keeping_the_records() {
    // Engines that hang in their second game and never read `quit`: after
    // one Ctrl-C the arena would give each a second to quit before killing
    // it, then print its tables. A second Ctrl-C in that second ends it at
    // once, with no tables, and the first game still recorded.
    let dir = temp_dir("sigint-twice");
    let marker = format!("sigint-twice-{}", std::process::id());
    let mut args = match_args(&dir);
    for a in args.iter_mut() {
        if a.starts_with("args=") {
            let hang = format!("--fault hang --at 8 --name {marker}");
            *a = a.replace("--fault slow --slow-ms 30", &hang);
        } else if a == "st=1" {
            *a = "st=30".into();
        }
    }
    let mut child = start(&dir, &args);
    wait_for_games(&dir, 1, &mut child);
    // An engine is hung by now: its 8th move is at most the 3rd of game 2.
    std::thread::sleep(Duration::from_millis(500));
    let before = game_numbers(&dir);
    let status = signal_and_wait(&mut child, &[libc::SIGINT, libc::SIGINT]);
    assert_eq!(status.code(), Some(130));
    let out = std::fs::read_to_string(dir.join("first.out")).unwrap();
    assert!(
        !out.contains("Interrupted: "),
        "the shutdown ran to its end: {out}"
    );
    assert!(!dir.join("summary.json").exists(), "{out}");
    assert_eq!(game_numbers(&dir), before);
    // The hung engine ignores `quit` and its end of input: it is killed
    // with the arena, not left running (issue 43).
    #[cfg(target_os = "linux")]
    support::assert_no_mock_engine_left(&marker);
}

/// A quick match of two well-behaved mocks, with `extra` flags.
fn quick_match(extra: &[&str]) -> Vec<String> {
    let m = mock();
    let mut v: Vec<String> = Vec::new();
    for (name, seed) in [("a", 1), ("b", 2)] {
        v.extend([
            "--engine".into(),
            format!("name={name}"),
            format!("cmd={m}"),
            format!("args=--seed {seed}"),
            "depth=1".into(),
        ]);
    }
    v.extend(["--maxplies", "10"].map(String::from));
    v.extend(extra.iter().map(|s| s.to_string()));
    v
}

fn run_quick(tag: &str, extra: &[&str]) -> support::Run {
    let dir = temp_dir(tag);
    let args = quick_match(extra);
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    arena(&refs, &dir)
}

#[test]
#[cfg(target_os = "linux")]
fn a_full_disk_under_the_log_or_a_record_stops_the_match_with_exit_3() {
    // /dev/full opens, and every write to it fails as on a full disk. The
    // log was cut off with exit 0 and no word (issue 43).
    let run = run_quick("log-full", &["--games", "4", "--log", "/dev/full"]);
    assert_eq!(run.code, Some(3), "{}", run.output);
    assert!(
        run.output
            .contains("arena: i/o error: cannot write the log /dev/full: No space left on device"),
        "{}",
        run.output
    );
    assert!(!run.output.contains("Finished game"), "{}", run.output);
    for flag in ["--pgn", "--jsonl"] {
        let run = run_quick("record-full", &["--games", "4", flag, "/dev/full"]);
        assert_eq!(run.code, Some(3), "{flag}: {}", run.output);
        assert!(
            run.output.contains("/dev/full: No space left on device"),
            "{flag}: {}",
            run.output
        );
        assert!(
            !run.output.contains("Finished game 2 "),
            "{flag}: {}",
            run.output
        );
    }
}

#[test]
fn an_unwritable_summary_or_report_is_refused_before_the_first_game() {
    // Paths no one can create, root included (tests run as root in CI):
    // a folder that is a file, and a file in /proc.
    let dir = temp_dir("unwritable");
    std::fs::write(dir.join("file"), "").unwrap();
    let under_a_file = dir.join("file/summary.json");
    let under_a_file = under_a_file.to_str().unwrap();
    for (flag, path) in [
        ("--json", under_a_file),
        ("--report", "/proc/stackfish-report.html"),
    ] {
        let args = quick_match(&["--games", "2", flag, path]);
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let run = arena(&refs, &dir);
        assert_eq!(run.code, Some(3), "{flag}: {}", run.output);
        let want = format!("arena: i/o error: cannot write {path} ({flag}): ");
        assert!(run.output.starts_with(&want), "{flag}: {}", run.output);
        assert!(
            !run.output.contains("Started game"),
            "{flag}: {}",
            run.output
        );
    }
    // A writable path is left as it was found: a run that fails later (its
    // log on a full disk) leaves no empty summary made by the check.
    #[cfg(target_os = "linux")]
    {
        let json = dir.join("later.json");
        let json = json.to_str().unwrap();
        let args = quick_match(&["--games", "2", "--json", json, "--log", "/dev/full"]);
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let run = arena(&refs, &dir);
        assert_eq!(run.code, Some(3), "{}", run.output);
        assert!(!Path::new(json).exists(), "the check left {json}");
    }
}

#[test]
fn resume_cuts_a_torn_pgn_game_and_writes_it_again_whole() {
    let dir = temp_dir("torn-pgn");
    let args = quick_match(&[
        "--games",
        "4",
        "--jsonl",
        "games.jsonl",
        "--pgn",
        "games.pgn",
    ]);
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = arena(&refs, &dir);
    assert_eq!(run.code, Some(0), "{}", run.output);
    let whole = std::fs::read_to_string(dir.join("games.pgn")).unwrap();
    // The arena was stopped in the middle of writing the last game's PGN
    // block (its JSONL line, written first, is whole): 40 bytes of it left.
    let last = whole.rfind("[Event ").unwrap();
    std::fs::write(dir.join("games.pgn"), &whole[..last + 40]).unwrap();
    let mut resumed = refs.clone();
    resumed.push("--resume");
    let run = arena(&resumed, &dir);
    assert_eq!(run.code, Some(0), "{}", run.output);
    for note in [
        "Resuming: cut a torn last game (40 bytes, a write that never finished) off games.pgn",
        "Resuming: wrote 1 recorded game missing from games.pgn again, from games.jsonl",
    ] {
        assert!(run.output.contains(note), "{}", run.output);
    }
    assert!(!run.output.contains("Started game"), "{}", run.output);
    assert_eq!(
        std::fs::read_to_string(dir.join("games.pgn")).unwrap(),
        whole
    );
}
