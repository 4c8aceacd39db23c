//! On a terminal the arena draws a progress bar below the Started /
//! Finished lines (indicatif) and clears it before the tables. Run under
//! util-linux `script`, which gives the arena a pseudo-terminal (Debian's
//! essential bsdutils package has it; a machine without it fails the test
//! with the package to install, rather than skipping it).

mod support;

use std::process::Command;
use support::{arena_exe, mock, temp_dir};

fn have_script() -> bool {
    Command::new("script")
        .arg("--version")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("util-linux"))
}

#[test]
fn a_terminal_gets_a_progress_bar_and_every_line_once() {
    assert!(
        have_script(),
        "this test needs util-linux `script`: apt-get install bsdutils"
    );
    let dir = temp_dir("tty");
    let engine = |name: &str, seed: u32| {
        format!(
            "--engine name={name} 'cmd={}' 'args=--seed {seed}' depth=1",
            mock()
        )
    };
    // A shell command line: the paths quoted (a clone's path may have
    // spaces).
    let command = format!(
        "'{}' {} {} --games 6 --maxplies 10",
        arena_exe(),
        engine("a", 1),
        engine("b", 2)
    );
    let out = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .current_dir(&dir)
        .env("COLUMNS", "200")
        .output()
        .expect("script runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    for g in 1..=6 {
        assert_eq!(
            text.matches(&format!("Finished game {g} ")).count(),
            1,
            "game {g}: {text}"
        );
    }
    assert!(text.contains("/6 games, "), "no progress bar: {text}");
    assert!(text.contains("[#"), "the bar never filled: {text}");
    // Every frame drawn: the bar fills with its count, never a step ahead
    // of it (issue 43): n of 6 games is n * 16 / 6 whole sixteenths.
    let frames = bar_frames(&text);
    assert!(frames.len() >= 6, "{frames:?}: {text}");
    for (bar, done) in &frames {
        assert_eq!(
            bar.matches('#').count(),
            done * 16 / 6,
            "{bar} {done}/6: {text}"
        );
    }
    assert!(frames.iter().any(|(_, done)| *done == 6), "{frames:?}");
    // The plain-output lines are for pipes only.
    assert!(!text.contains("Progress: "), "{text}");
    assert!(text.contains("W-D-L"), "no table at the end: {text}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Each `[####....] N/6 games` the terminal was sent: the bar and N.
fn bar_frames(text: &str) -> Vec<(String, usize)> {
    text.match_indices("/6 games")
        .filter_map(|(at, _)| {
            let before = &text[..at];
            let count_at = before.rfind(' ')? + 1;
            let done: usize = before[count_at..].parse().ok()?;
            let bar = before[..count_at - 1]
                .rsplit('[')
                .next()?
                .strip_suffix(']')?;
            (bar.len() == 16 && bar.chars().all(|c| c == '#' || c == '.'))
                .then(|| (bar.to_string(), done))
        })
        .collect()
}
