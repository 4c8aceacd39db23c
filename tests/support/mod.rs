//! Helpers shared by the arena's end-to-end tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// No test run of the arena may take longer than this.
const WATCHDOG: Duration = Duration::from_secs(120);

pub fn mock() -> String {
    env!("CARGO_BIN_EXE_mock-engine").to_string()
}

pub fn arena_exe() -> &'static str {
    env!("CARGO_BIN_EXE_arena")
}

/// A fresh, empty folder `tag` for one test, under the build's own
/// `target/tmp` (never the system's temporary folder, which a test suite
/// would fill up run after run). Named by test binary and tag, without a
/// process id, so a rerun empties and reuses the folder of the run before:
/// the folders of a failed test stay for a look, and never pile up.
pub fn temp_dir(tag: &str) -> PathBuf {
    let dir =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{}-{tag}", env!("CARGO_CRATE_NAME")));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

pub struct Run {
    pub code: Option<i32>,
    /// stdout and stderr together.
    pub output: String,
    pub dir: PathBuf,
}

/// Runs the arena in `dir` with a watchdog, so a hanging arena fails the
/// test instead of blocking it.
pub fn arena(args: &[&str], dir: &Path) -> Run {
    let out = dir.join("arena.out");
    let err = dir.join("arena.err");
    let mut child = Command::new(arena_exe())
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out).expect("out file"))
        .stderr(std::fs::File::create(&err).expect("err file"))
        .spawn()
        .expect("arena starts");
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if start.elapsed() > WATCHDOG {
            let _ = child.kill();
            panic!("arena still running after {WATCHDOG:?}: {args:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let output = std::fs::read_to_string(&out).unwrap_or_default()
        + &std::fs::read_to_string(&err).unwrap_or_default();
    Run {
        code: status.code(),
        output,
        dir: dir.to_path_buf(),
    }
}

pub fn read_summary(dir: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join("summary.json")).expect("summary.json written");
    serde_json::from_str(&text).expect("summary is JSON")
}

/// The mock engines still running (zombies are dead: not counted) whose
/// command line holds `marker` (give each test's engines `--name
/// <marker>`): found by their executable, so the arena, whose own command
/// line holds the engines' arguments, is never among them.
#[cfg(target_os = "linux")]
pub fn mock_engines_running(marker: &str) -> Vec<u32> {
    let Ok(exe) = std::fs::canonicalize(mock()) else {
        return Vec::new();
    };
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    procs
        .flatten()
        .filter_map(|p| p.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let at = |f: &str| format!("/proc/{pid}/{f}");
            let same_exe = std::fs::read_link(at("exe")).is_ok_and(|e| e == exe);
            let marked = std::fs::read(at("cmdline"))
                .is_ok_and(|c| c.split(|&b| b == 0).any(|a| a == marker.as_bytes()));
            // `pid (comm) S ...`: the state follows the last ')'.
            let zombie = std::fs::read_to_string(at("stat")).is_ok_and(|s| {
                s.rsplit(')')
                    .next()
                    .is_some_and(|rest| rest.trim_start().starts_with('Z'))
            });
            same_exe && marked && !zombie
        })
        .collect()
}

/// Waits up to 5 s for every mock engine marked `marker` to be gone; kills
/// any left (so a failure leaves nothing running) and fails naming them.
#[cfg(target_os = "linux")]
pub fn assert_no_mock_engine_left(marker: &str) {
    let until = Instant::now() + Duration::from_secs(5);
    let mut left = mock_engines_running(marker);
    while !left.is_empty() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
        left = mock_engines_running(marker);
    }
    for pid in &left {
        let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
    }
    assert!(
        left.is_empty(),
        "engines outlived the arena: mock-engine --name {marker}, pids {left:?}"
    );
}
