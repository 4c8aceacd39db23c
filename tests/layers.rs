//! The architecture is kept by the compiler only if the crate graph is the
//! one docs/architecture.md draws. This test reads the page's table of
//! allowed arrows (the `layers` block) and fails when a crate of the
//! workspace depends on one of ours the page does not allow it, when a
//! crate is missing from the page, when the engine client or the arena
//! reach the engine or the search by any path, and when the core crates
//! (rules, search, engine, the protocol's text) reach, for the browser's
//! target, a crate that needs an operating system (an async runtime, memory
//! maps, C libraries, signals, OS randomness).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use serde_json::Value;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The core crates, the review the board judges moves with
/// (stackfish-review), the board's state (stackfish-board) and the
/// browser's host around them (stackfish-wasm), which must build for
/// `wasm32-unknown-unknown`.
const CORE: [&str; 8] = [
    "stackfish-ugi",
    "stackfish-nnue",
    "stackfish-games",
    "stackfish-search",
    "stackfish-engine",
    "stackfish-review",
    "stackfish-board",
    "stackfish-wasm",
];

/// Crates the core must never reach on the browser's target: each needs an
/// operating system the browser does not have.
const NOT_IN_THE_BROWSER: [&str; 9] = [
    "tokio",
    "mio",
    "memmap2",
    "zstd",
    "zstd-sys",
    "signal-hook",
    "libc",
    "getrandom",
    "rayon",
];

/// Crates of ours that every crate may use, as it may use `std`: the text of
/// the protocol's lines, which both the engine and its users speak.
const EVERYWHERE: [&str; 1] = ["stackfish-ugi"];

/// The page's allowed arrows: crate -> the crates of ours it may use
/// (the `EVERYWHERE` crates not included).
fn allowed_arrows() -> BTreeMap<String, BTreeSet<String>> {
    let page = std::fs::read_to_string(Path::new(ROOT).join("docs/architecture.md"))
        .expect("docs/architecture.md is readable");
    let block = page
        .split("```layers\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("docs/architecture.md has a ```layers block");
    let mut arrows = BTreeMap::new();
    for line in block.lines().filter(|l| !l.trim().is_empty()) {
        let (name, uses) = line
            .split_once(':')
            .unwrap_or_else(|| panic!("layers line without ':': {line}"));
        let uses: BTreeSet<String> = uses
            .split(',')
            .map(str::trim)
            .filter(|u| !u.is_empty() && *u != "-")
            .map(String::from)
            .collect();
        arrows.insert(name.trim().to_string(), uses);
    }
    arrows
}

fn cargo(args: &[&str]) -> String {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(args)
        .current_dir(ROOT)
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("cargo prints UTF-8")
}

/// Every workspace package with the workspace packages it depends on for
/// building its library and binaries (dev-dependencies are tests' business).
fn workspace_arrows() -> BTreeMap<String, BTreeSet<String>> {
    let meta: Value =
        serde_json::from_str(&cargo(&["metadata", "--format-version", "1", "--no-deps"]))
            .expect("cargo metadata is JSON");
    let packages = meta["packages"].as_array().expect("packages");
    let ours: BTreeSet<String> = packages
        .iter()
        .map(|p| p["name"].as_str().expect("name").to_string())
        .collect();
    packages
        .iter()
        .map(|p| {
            let deps = p["dependencies"]
                .as_array()
                .expect("dependencies")
                .iter()
                .filter(|d| d["kind"].is_null() || d["kind"] == "build")
                .map(|d| d["name"].as_str().expect("dependency name").to_string())
                .filter(|d| ours.contains(d))
                .collect();
            (p["name"].as_str().expect("name").to_string(), deps)
        })
        .collect()
}

#[test]
fn every_crate_uses_only_the_layers_the_architecture_page_allows() {
    let allowed = allowed_arrows();
    let actual = workspace_arrows();
    assert!(
        actual.len() >= 11,
        "the workspace has its crates: {actual:?}"
    );
    let mut wrong = Vec::new();
    for (name, deps) in &actual {
        let Some(may) = allowed.get(name) else {
            wrong.push(format!("{name} has no line in the layers block"));
            continue;
        };
        for dep in deps
            .difference(may)
            .filter(|d| !EVERYWHERE.contains(&d.as_str()))
        {
            wrong.push(format!("{name} uses {dep}, which the page does not allow"));
        }
    }
    for name in allowed.keys().filter(|n| !actual.contains_key(*n)) {
        wrong.push(format!("the page names {name}, which is not a crate"));
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_page_forbids_the_arrows_that_matter() {
    // The table itself could drift: these arrows are what the layers are for.
    let allowed = allowed_arrows();
    let uses = |a: &str, b: &str| allowed.get(a).is_some_and(|s| s.contains(b));
    assert!(
        allowed["stackfish-nnue"].is_empty(),
        "the networks' machinery uses nothing of ours: it knows no game"
    );
    assert_eq!(
        allowed["stackfish-games"],
        BTreeSet::from(["stackfish-nnue".to_string()]),
        "the rules use only the networks' machinery"
    );
    assert_eq!(
        allowed["stackfish-search"],
        BTreeSet::from(["stackfish-games".to_string()]),
        "the search uses only the rules"
    );
    for crate_everywhere in EVERYWHERE {
        assert!(
            allowed[crate_everywhere].is_empty(),
            "{crate_everywhere}, which every crate may use, uses nothing of ours"
        );
    }
    for runner in ["stackfish-arena", "stackfish-client"] {
        for engine_side in ["stackfish-search", "stackfish-engine"] {
            assert!(
                !reaches(&allowed, runner, engine_side),
                "{runner} trusts no engine: the page lets it reach {engine_side}"
            );
        }
    }
    assert!(
        !uses("stackfish-web", "stackfish-arena"),
        "the board is not the arena"
    );
    for core in CORE {
        assert!(
            !uses(core, "stackfish-tables"),
            "{core} reads no table files"
        );
        assert!(
            !uses(core, "stackfish-client"),
            "{core} runs no engine processes"
        );
        assert!(!uses(core, "stackfish-web"), "{core} is below the server");
    }
}

/// Whether `from` depends on `to` directly or through other crates.
fn reaches(arrows: &BTreeMap<String, BTreeSet<String>>, from: &str, to: &str) -> bool {
    let mut seen = BTreeSet::new();
    let mut todo = vec![from.to_string()];
    while let Some(name) = todo.pop() {
        for dep in arrows.get(&name).into_iter().flatten() {
            if dep == to {
                return true;
            }
            if seen.insert(dep.clone()) {
                todo.push(dep.clone());
            }
        }
    }
    false
}

#[test]
fn the_runner_and_the_referee_reach_no_engine_by_any_path() {
    // Our referee and runner must stay independent of the engine they test:
    // a direct arrow is caught above, this also catches one through another
    // crate (the client once used the engine for its `info` parser).
    let actual = workspace_arrows();
    for runner in ["stackfish-arena", "stackfish-client"] {
        for engine_side in ["stackfish-search", "stackfish-engine"] {
            assert!(
                !reaches(&actual, runner, engine_side),
                "{runner} reaches {engine_side}"
            );
        }
    }
}

#[test]
fn the_core_reaches_no_operating_system_crate_on_the_browser_target() {
    for core in CORE {
        let tree = cargo(&[
            "tree",
            "-p",
            core,
            "--target",
            "wasm32-unknown-unknown",
            "-e",
            "normal",
            "--prefix",
            "none",
            "--format",
            "{p}",
        ]);
        let crates: BTreeSet<&str> = tree
            .lines()
            .filter_map(|l| l.split_whitespace().next())
            .collect();
        assert!(crates.contains(core), "cargo tree lists {core}: {tree}");
        let bad: Vec<&&str> = NOT_IN_THE_BROWSER
            .iter()
            .filter(|c| crates.contains(**c))
            .collect();
        assert!(bad.is_empty(), "{core} reaches {bad:?} on wasm32:\n{tree}");
    }
}
