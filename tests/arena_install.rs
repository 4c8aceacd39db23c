//! An installed arena (as the Debian package lays it out: `usr/bin/arena`,
//! `usr/share/stackfish/tournaments/`) plays the demo config from the share
//! folder when started without flags outside a checkout.

use std::path::Path;
use std::process::Command;

fn copy_exe(from: &str, to: &Path) {
    std::fs::copy(from, to).expect("binary copied");
}

#[test]
fn an_installed_arena_finds_the_demo_config_beside_it() {
    let root = std::env::temp_dir().join(format!("stackfish-install-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let bin = root.join("usr/bin");
    let share = root.join("usr/share/stackfish/tournaments");
    std::fs::create_dir_all(&bin).expect("bin folder");
    std::fs::create_dir_all(&share).expect("share folder");
    copy_exe(env!("CARGO_BIN_EXE_arena"), &bin.join("arena"));
    copy_exe(env!("CARGO_BIN_EXE_stackfish"), &bin.join("stackfish"));
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
    let out = Command::new(bin.join("arena"))
        .current_dir(&cwd)
        .env_remove("CARGO")
        .output()
        .expect("arena runs");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{text}");
    let summary = std::fs::read_to_string(share.join("summary.json")).expect("summary written");
    assert!(summary.contains("installed demo"), "{summary}");
    assert!(text.contains("Finished game 2 "), "{text}");
    let _ = std::fs::remove_dir_all(&root);
}
