//! The installed binaries (as the Debian package lays them out:
//! `usr/bin/arena`, `usr/bin/stackfish`, `usr/share/stackfish/tournaments/`)
//! find their data in the share folder when started outside a checkout:
//! the arena its demo config, `stackfish tactics` its suite.

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::sync::Mutex;

/// Held while a test writes a binary and while one starts a process. A
/// process forked while another thread has a copied binary open for
/// writing holds that file open until it execs, and starting the copy
/// then fails with "Text file busy" (ETXTBSY): the two tests here ran into
/// each other that way.
static EXEC: Mutex<()> = Mutex::new(());

/// Runs `cmd` to its end: started under `EXEC`, waited for without it.
fn output(cmd: &mut Command) -> Output {
    let child = {
        let _held = EXEC.lock().unwrap_or_else(|e| e.into_inner());
        cmd.stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the installed binary starts")
    };
    child.wait_with_output().expect("its output")
}

/// An install under a fresh folder `tag`: the arena and stackfish in
/// `usr/bin`, an empty `usr/share/stackfish/tournaments`. Returns the
/// root, the bin folder and the tournaments folder.
fn fake_install(tag: &str) -> (PathBuf, PathBuf, PathBuf) {
    // Under the build's target/tmp: a failed run leaves its copies there
    // for a look, and the next run empties the folder first.
    let root =
        std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("arena_install-{tag}"));
    let _ = std::fs::remove_dir_all(&root);
    let bin = root.join("usr/bin");
    let share = root.join("usr/share/stackfish/tournaments");
    std::fs::create_dir_all(&bin).expect("bin folder");
    std::fs::create_dir_all(&share).expect("share folder");
    let _held = EXEC.lock().unwrap_or_else(|e| e.into_inner());
    for (exe, name) in [
        (env!("CARGO_BIN_EXE_arena"), "arena"),
        (env!("CARGO_BIN_EXE_stackfish"), "stackfish"),
    ] {
        std::fs::copy(exe, bin.join(name)).expect("binary copied");
    }
    (root, bin, share)
}

#[test]
fn an_installed_arena_finds_the_demo_config_beside_it() {
    let (root, bin, share) = fake_install("install");
    // A demo of its own, so the test sees which config was read: the
    // summary lands beside the config that named it.
    let demo = r#"{
        "event": "installed demo",
        "engines": [
            { "name": "a", "cmd": "stackfish", "depth": 1 },
            { "name": "b", "cmd": "stackfish", "depth": 1 }
        ],
        "games": 2,
        "json": "summary.json"
    }"#;
    std::fs::write(share.join("default.json"), demo).expect("config written");
    // Started elsewhere, with no tournaments/ in the current folder.
    let cwd = root.join("home");
    std::fs::create_dir_all(&cwd).expect("cwd");
    let out = output(
        Command::new(bin.join("arena"))
            .current_dir(&cwd)
            .env_remove("CARGO"),
    );
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{text}");
    let summary = std::fs::read_to_string(share.join("summary.json")).expect("summary written");
    assert!(summary.contains("installed demo"), "{summary}");
    assert!(text.contains("Finished game 2 "), "{text}");
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn an_installed_stackfish_runs_the_tactics_suite_of_its_share_folder() {
    let (root, bin, share) = fake_install("install-tactics");
    // A suite of its own (one line of the shipped one), so the test sees
    // which suite was read: the shipped one has hundreds.
    let shipped = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tournaments/tactics-mixtour.txt"
    ))
    .expect("the shipped suite");
    let line = shipped
        .lines()
        .find(|l| !l.starts_with('#') && !l.trim().is_empty())
        .expect("a suite line");
    std::fs::write(share.join("tactics-mixtour.txt"), format!("{line}\n")).expect("suite");
    let cwd = root.join("home");
    std::fs::create_dir_all(&cwd).expect("cwd");
    let out = output(
        Command::new(bin.join("stackfish"))
            .args(["tactics", "--nodes", "2000"])
            .current_dir(&cwd),
    );
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains(" of 1 solved"), "{text}");
    let _ = std::fs::remove_dir_all(&root);
}
