//! No engine outlives the arena, however the arena ends: killed by SIGKILL
//! (as the OOM killer does) or by a second Ctrl-C, with engines that hang
//! mid-game and ignore `quit` and the end of their input (issue 43: they
//! ran on with parent 1). Linux: the kernel's death signal
//! (`PR_SET_PDEATHSIG`) does it there, and /proc shows what is left.
#![cfg(target_os = "linux")]

mod support;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use support::{arena_exe, assert_no_mock_engine_left, mock, mock_engines_running, temp_dir};

/// An arena playing `games` games `concurrency` at a time between two mock
/// engines that hang at their third search (mid-game) and are given 60 s a
/// move: it waits on them. Every engine carries `marker` as its name.
fn hung_match(dir: &Path, marker: &str, games: u32, concurrency: u32) -> Child {
    let mut args: Vec<String> = Vec::new();
    for (name, seed) in [("a", 1), ("b", 2)] {
        args.extend([
            "--engine".into(),
            format!("name={name}"),
            format!("cmd={}", mock()),
            format!("args=--fault hang --at 3 --seed {seed} --name {marker}"),
            "st=60".into(),
        ]);
    }
    args.extend([
        "--games".into(),
        games.to_string(),
        "--concurrency".into(),
        concurrency.to_string(),
        "--jsonl".into(),
        "games.jsonl".into(),
    ]);
    Command::new(arena_exe())
        .args(&args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("arena starts")
}

/// Waits until `n` engines marked `marker` run, then a moment more for
/// them to reach their hang.
fn wait_for_engines(marker: &str, n: usize, arena: &mut Child) {
    let t0 = Instant::now();
    while mock_engines_running(marker).len() < n {
        assert!(arena.try_wait().unwrap().is_none(), "the arena ended early");
        assert!(
            t0.elapsed() < Duration::from_secs(30),
            "engines never started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(mock_engines_running(marker).len(), n, "{n} engines hang");
}

/// Sends `signal` to the arena `times` times, 100 ms apart, and waits
/// (at most 10 s) for it to end.
fn signal(arena: &mut Child, sig: libc::c_int, times: usize) -> std::process::ExitStatus {
    for i in 0..times {
        if i > 0 {
            std::thread::sleep(Duration::from_millis(100));
        }
        // Safety: signalling our own child, not reaped yet.
        unsafe {
            libc::kill(arena.id() as libc::pid_t, sig);
        }
    }
    let t0 = Instant::now();
    loop {
        if let Some(s) = arena.try_wait().unwrap() {
            return s;
        }
        if t0.elapsed() > Duration::from_secs(10) {
            let _ = arena.kill();
            panic!("the arena did not end");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn marker(tag: &str) -> String {
    format!("orphan-{tag}-{}", std::process::id())
}

#[test]
fn sigkill_of_the_arena_mid_game_leaves_no_engine() {
    let dir = temp_dir("sigkill");
    let marker = marker("sigkill");
    let mut arena = hung_match(&dir, &marker, 2, 1);
    wait_for_engines(&marker, 2, &mut arena);
    let status = signal(&mut arena, libc::SIGKILL, 1);
    assert_eq!(status.code(), None, "killed by a signal: {status:?}");
    assert_no_mock_engine_left(&marker);
}

#[test]
fn two_ctrl_c_leave_no_engine() {
    let dir = temp_dir("sigint-twice");
    let marker = marker("sigint");
    let mut arena = hung_match(&dir, &marker, 2, 1);
    wait_for_engines(&marker, 2, &mut arena);
    let status = signal(&mut arena, libc::SIGINT, 2);
    assert_eq!(status.code(), Some(130));
    assert_no_mock_engine_left(&marker);
}

#[test]
fn two_sigterms_leave_no_engine() {
    let dir = temp_dir("sigterm-twice");
    let marker = marker("sigterm");
    let mut arena = hung_match(&dir, &marker, 2, 1);
    wait_for_engines(&marker, 2, &mut arena);
    let status = signal(&mut arena, libc::SIGTERM, 2);
    assert_eq!(status.code(), Some(130));
    assert_no_mock_engine_left(&marker);
}

#[test]
fn sigkill_of_a_three_game_concurrent_match_leaves_no_engine() {
    // Six engines, started by three worker threads: all die with the arena.
    let dir = temp_dir("sigkill-concurrent");
    let marker = marker("concurrent");
    let mut arena = hung_match(&dir, &marker, 6, 3);
    wait_for_engines(&marker, 6, &mut arena);
    signal(&mut arena, libc::SIGKILL, 1);
    assert_no_mock_engine_left(&marker);
}
