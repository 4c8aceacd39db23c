//! End to end: the arena binary against a mock engine that misbehaves on
//! purpose. Every fault must give the right verdict and reason, and the
//! match must finish with every game recorded.

mod support;

use support::{arena, mock, read_summary, temp_dir, Run};

/// Plays `games` games of a well-behaved mock against one started with
/// `bad_args`, and returns the run.
fn faulty_match(tag: &str, bad_args: &str, bad_limits: &[&str], games: u32, extra: &[&str]) -> Run {
    let dir = temp_dir(tag);
    let good = format!("cmd={}", mock());
    let bad_cmd = format!("cmd={}", mock());
    let bad_args = format!("args={bad_args}");
    let games = games.to_string();
    let jsonl = dir.join("games.jsonl");
    let pgn = dir.join("games.pgn");
    let json = dir.join("summary.json");
    let mut args = vec![
        "--engine",
        "name=good",
        &good,
        "st=0.05",
        "--engine",
        "name=bad",
        &bad_cmd,
        &bad_args,
    ];
    args.extend_from_slice(bad_limits);
    let (j, p, s) = (
        jsonl.to_string_lossy().into_owned(),
        pgn.to_string_lossy().into_owned(),
        json.to_string_lossy().into_owned(),
    );
    args.extend_from_slice(&[
        "--games",
        &games,
        "--jsonl",
        &j,
        "--pgn",
        &p,
        "--json",
        &s,
        "--startup-timeout",
        "1000",
        "--ping-timeout",
        "1000",
    ]);
    args.extend_from_slice(extra);
    arena(&args, &dir)
}

/// Every game recorded, the bad engine lost each with `reason` in the text.
fn assert_bad_loses_all(run: &Run, games: usize, reason: &str) {
    assert_eq!(run.code, Some(0), "{}", run.output);
    let summary = read_summary(&run.dir);
    let list = summary["games"].as_array().expect("games list");
    assert_eq!(list.len(), games, "{}", run.output);
    for g in list {
        let bad_is_p1 = g["player1"] == "bad";
        let want = if bad_is_p1 { "0-1" } else { "1-0" };
        let term = g["termination"].as_str().unwrap_or("");
        assert_eq!(g["result"], want, "{g}");
        assert!(term.starts_with("bad: "), "{term}");
        assert!(term.contains(reason), "'{term}' lacks '{reason}'");
    }
    let pair = &summary["pairs"][0];
    assert_eq!(pair["engine"], "good");
    assert_eq!(pair["wins"], games as u64);
    // The JSONL and PGN records hold every game too.
    let jsonl = std::fs::read_to_string(run.dir.join("games.jsonl")).unwrap();
    assert_eq!(jsonl.lines().count(), games);
    let pgn = std::fs::read_to_string(run.dir.join("games.pgn")).unwrap();
    assert_eq!(pgn.matches("[Termination \"bad: ").count(), games);
    assert_eq!(run.output.matches("Finished game").count(), games);
}

#[test]
fn crash_on_go_loses_and_the_engine_is_restarted() {
    let run = faulty_match("crash", "--fault crash --at 3", &["st=0.05"], 4, &[]);
    assert_bad_loses_all(&run, 4, "crashed (exit status 101)");
    // Restarted each game: its third move of every game is the fatal one.
    let summary = read_summary(&run.dir);
    for g in summary["games"].as_array().unwrap() {
        let plies = g["plies"].as_u64().unwrap();
        let bad_is_p1 = g["player1"] == "bad";
        assert_eq!(plies, if bad_is_p1 { 4 } else { 5 }, "{g}");
    }
}

#[test]
fn hang_is_a_timeout_with_a_clock() {
    let run = faulty_match(
        "hang",
        "--fault hang",
        &["st=0.05", "timemargin=50"],
        2,
        &[],
    );
    assert_bad_loses_all(&run, 2, "timeout: ");
    assert!(
        run.output.contains("ms over (no bestmove)"),
        "{}",
        run.output
    );
}

#[test]
fn hang_under_a_depth_limit_still_has_a_deadline() {
    let run = faulty_match(
        "hang-depth",
        "--fault hang",
        &["depth=5"],
        2,
        &["--max-move-time", "300"],
    );
    assert_bad_loses_all(&run, 2, "no bestmove within 300 ms");
}

#[test]
fn illegal_move_loses_with_the_move() {
    let run = faulty_match("illegal", "--fault illegal", &["st=0.05"], 2, &[]);
    assert_eq!(run.code, Some(0), "{}", run.output);
    let summary = read_summary(&run.dir);
    let g = &summary["games"][0];
    assert_eq!(g["result"], "1-0");
    assert_eq!(g["termination"], "bad: illegal move 3a1b2");
    assert_eq!(summary["games"].as_array().unwrap().len(), 2);
    // Not a process fault: the same engine goes on (its later moves are fine).
    assert!(!summary["games"][1]["termination"]
        .as_str()
        .unwrap()
        .contains("illegal"));
}

#[test]
fn garbage_output_loses() {
    let run = faulty_match("garbage", "--fault garbage", &["st=0.05"], 2, &[]);
    assert_bad_loses_all(&run, 2, "garbage output: '#$%& not a protocol line'");
}

#[test]
fn an_over_long_line_is_dropped_and_logged_not_read_as_a_move() {
    let log = temp_dir("longline-log").join("protocol.log");
    let log_arg = log.to_string_lossy().into_owned();
    let run = faulty_match(
        "longline",
        "--fault longline",
        &["st=0.05"],
        2,
        &["--log", &log_arg],
    );
    assert_eq!(run.code, Some(0), "{}", run.output);
    let summary = read_summary(&run.dir);
    for g in summary["games"].as_array().expect("games list") {
        let term = g["termination"].as_str().unwrap_or("");
        assert!(!term.starts_with("bad: "), "{term}");
    }
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(
        text.contains("bad # dropped a line of more than 65536 bytes"),
        "{}",
        &text[..text.len().min(2000)]
    );
}

#[test]
fn silent_at_start_up_loses() {
    let run = faulty_match("silent", "--fault silent", &["st=0.05"], 2, &[]);
    assert_bad_loses_all(&run, 2, "no ugiok within 1000 ms");
}

#[test]
fn bestmove_with_extra_tokens_loses() {
    let run = faulty_match("extra", "--fault extra", &["st=0.05"], 2, &[]);
    assert_bad_loses_all(&run, 2, "(bestmove takes exactly one move)");
    assert!(run.output.contains(" extra' "), "{}", run.output);
}

#[test]
fn exit_after_moves_is_a_crash() {
    let run = faulty_match("exit", "--fault exit --at 2", &["st=0.05"], 2, &[]);
    assert_bad_loses_all(&run, 2, "crashed (exit status 0)");
}

#[test]
fn no_answer_to_a_ping_loses() {
    let run = faulty_match("noping", "--fault noping --at 2", &["st=0.05"], 2, &[]);
    assert_bad_loses_all(&run, 2, "no readyok within 1000 ms");
}

#[test]
fn slow_reply_loses_on_time_by_the_overrun() {
    // Budget 50 ms, no margin; the reply comes after ~80 ms, before the
    // arena's own deadline (budget + margin + 100 ms grace).
    let run = faulty_match(
        "slow",
        "--fault slow --slow-ms 80",
        &["st=0.05", "timemargin=0"],
        2,
        &[],
    );
    assert_bad_loses_all(&run, 2, "timeout: ");
    assert!(!run.output.contains("no bestmove"), "{}", run.output);
    let over: Vec<u64> = run
        .output
        .lines()
        .filter_map(|l| l.split("timeout: ").nth(1))
        .filter_map(|r| r.split(' ').next()?.parse().ok())
        .collect();
    assert_eq!(over.len(), 2, "{}", run.output);
    assert!(over.iter().all(|&o| (25..=99).contains(&o)), "{over:?}");
}

#[test]
fn an_engine_that_cannot_start_fails_the_run() {
    let dir = temp_dir("nostart");
    let good = format!("cmd={}", mock());
    let run = arena(
        &[
            "--engine",
            "name=good",
            &good,
            "st=0.05",
            "--engine",
            "name=ghost",
            "cmd=/nonexistent/engine",
            "st=0.05",
        ],
        &dir,
    );
    assert_eq!(run.code, Some(3), "{}", run.output);
    assert!(
        run.output.contains("cannot start engine: ghost"),
        "{}",
        run.output
    );
}

#[test]
fn bad_flags_fail_with_code_3() {
    let dir = temp_dir("badflags");
    let run = arena(&["--engine", "name=a", "cmd=x", "tc=banana"], &dir);
    assert_eq!(run.code, Some(3), "{}", run.output);
    let run = arena(&["--no-such-flag"], &dir);
    assert_eq!(run.code, Some(3), "{}", run.output);
}

#[test]
fn a_crashing_engine_in_a_round_robin_leaves_the_other_games_intact() {
    let dir = temp_dir("roundrobin");
    let m = format!("cmd={}", mock());
    let run = arena(
        &[
            "--engine",
            "name=one",
            &m,
            "args=--seed 1",
            "st=0.02",
            "--engine",
            "name=two",
            &m,
            "args=--seed 2",
            "st=0.02",
            "--engine",
            "name=bad",
            &m,
            "args=--fault crash --at 2",
            "st=0.02",
            "--games",
            "12",
            "--concurrency",
            "2",
            "--json",
            "summary.json",
        ],
        &dir,
    );
    assert_eq!(run.code, Some(0), "{}", run.output);
    let summary = read_summary(&dir);
    let games = summary["games"].as_array().unwrap();
    assert_eq!(games.len(), 12);
    for g in games {
        let t = g["termination"].as_str().unwrap();
        let bad_plays = g["player1"] == "bad" || g["player2"] == "bad";
        if bad_plays {
            assert_eq!(t, "bad: crashed (exit status 101)", "{g}");
        } else {
            assert!(!t.contains("crashed"), "{g}");
        }
    }
    let pairs = summary["pairs"].as_array().unwrap();
    assert_eq!(pairs.len(), 3);
    assert_eq!(
        (
            &pairs[1]["engine"],
            &pairs[1]["opponent"],
            &pairs[1]["wins"]
        ),
        (&"one".into(), &"bad".into(), &4.into())
    );
    assert_eq!(pairs[0]["games"], 4);
}

/// An engine that leaves a descendant in its own session holding its pipes
/// (`setsid sleep 30 &`) and crashes at its second search, so the arena
/// kills and restarts it every game: reading its pipes must end when the
/// engine is gone, whatever the orphan does. Before the fix each restart
/// left two reader threads (and their fds) waiting for the orphan, and the
/// arena grew by two threads a game.
#[test]
fn orphans_holding_an_engines_pipes_leak_no_threads() {
    let dir = temp_dir("orphans");
    let orphans = dir.join("orphans.txt");
    let script = dir.join("orphaning-engine.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nsetsid sleep 30 &\necho $! >> '{}'\nexec '{}' --fault crash --at 2\n",
            orphans.display(),
            mock()
        ),
    )
    .expect("script written");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let games = 16;
    let mut child = std::process::Command::new(support::arena_exe())
        .args([
            "--engine",
            "name=good",
            &format!("cmd={}", mock()),
            "nodes=1",
            "--engine",
            "name=orphaning",
            &format!("cmd={}", script.display()),
            "nodes=1",
            "--games",
            &games.to_string(),
        ])
        .current_dir(&dir)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("arena starts");
    let tasks = format!("/proc/{}/task", child.id());
    let start = std::time::Instant::now();
    let mut most = 0;
    let status = loop {
        if let Some(status) = child.try_wait().expect("waits") {
            break status;
        }
        if start.elapsed() > std::time::Duration::from_secs(25) {
            let _ = child.kill();
            panic!("the arena waited for the orphans (still running after 25 s)");
        }
        if let Ok(entries) = std::fs::read_dir(&tasks) {
            most = most.max(entries.count());
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let started: Vec<i32> = std::fs::read_to_string(&orphans)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect();
    // The sleeps this test's script started, each by its id.
    for pid in &started {
        let _ = std::process::Command::new("kill")
            .args(["-9", &pid.to_string()])
            .status();
    }
    assert!(status.success(), "{status:?}");
    assert!(started.len() >= games, "an orphan per game: {started:?}");
    // A leak would add two threads per restart: 30 and more here.
    assert!(most <= 12, "{most} threads in the arena");
}
