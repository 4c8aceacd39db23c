//! The arena's command line as people type it: defaults in `--help`, a game
//! count that is rounded says so, repeated games get a warning, and the
//! JSON config takes numbers and strings alike (issue 23).

mod support;

use support::{arena, mock, temp_dir};

/// A mock engine whose moves depend only on the position: two of them
/// replay the same games from the same start.
fn deterministic(name: &str) -> Vec<String> {
    vec![
        "--engine".into(),
        format!("name={name}"),
        format!("cmd={}", mock()),
        "args=--per-position --seed 1".into(),
        "nodes=1".into(),
    ]
}

fn run(tag: &str, engines: &[&str], flags: &[&str]) -> support::Run {
    let dir = temp_dir(tag);
    let mut args: Vec<String> = engines.iter().flat_map(|n| deterministic(n)).collect();
    args.extend(flags.iter().map(|s| s.to_string()));
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    arena(&refs, &dir)
}

#[test]
fn help_shows_the_defaults() {
    let r = arena(&["--help"], &temp_dir("help"));
    assert_eq!(r.code, Some(0), "{}", r.output);
    for flag in [
        "--games",
        "--game ",
        "--concurrency",
        "--maxplies",
        "--ratinginterval",
        "--ping-timeout",
        "--tournament",
    ] {
        let line = r
            .output
            .lines()
            .find(|l| l.trim_start().starts_with(flag))
            .unwrap_or_else(|| panic!("{flag} missing in {}", r.output));
        assert!(line.contains("[default: "), "{line}");
    }
}

#[test]
fn a_rounded_game_count_says_so() {
    let r = run("round2", &["a", "b"], &["--games", "3"]);
    assert_eq!(r.code, Some(0), "{}", r.output);
    assert!(
        r.output.contains("Note: 3 games rounded up to 4"),
        "{}",
        r.output
    );
    let r = run("round3", &["a", "b", "c"], &["--games", "3"]);
    assert_eq!(r.code, Some(0), "{}", r.output);
    assert!(
        r.output.contains("Note: 3 games rounded up to 6") && r.output.contains("3 engine pairs"),
        "{}",
        r.output
    );
    let r = run("round0", &["a", "b"], &["--games", "4"]);
    assert!(!r.output.contains("rounded"), "{}", r.output);
}

#[test]
fn repeated_games_are_warned_about() {
    let r = run("repeat", &["a", "b"], &["--games", "6"]);
    assert_eq!(r.code, Some(0), "{}", r.output);
    assert!(r.output.contains("Warning: no --openings"), "{}", r.output);
    // Deterministic engines from one start: games 3-6 replay games 1 and 2.
    assert!(
        r.output
            .contains("Warning: 4 of 6 games repeat an earlier game move for move"),
        "{}",
        r.output
    );
    // One pair from the start position repeats nothing: no warning.
    let r = run("single", &["a", "b"], &["--games", "2"]);
    assert!(!r.output.contains("Warning"), "{}", r.output);
}

#[test]
fn the_json_config_takes_numbers_as_strings() {
    let dir = temp_dir("lenient");
    let config = format!(
        r#"{{"engines": [
            {{"name": "a", "cmd": "{m}", "args": ["--per-position"], "nodes": "1"}},
            {{"name": "b", "cmd": "{m}", "depth": "1"}}],
          "games": "2", "maxplies": "40", "ratinginterval": "0"}}"#,
        m = mock()
    );
    std::fs::write(dir.join("match.json"), config).unwrap();
    let r = arena(&["--config", "match.json"], &dir);
    assert_eq!(r.code, Some(0), "{}", r.output);
    assert!(r.output.contains("Finished game 2"), "{}", r.output);
    std::fs::write(
        dir.join("bad.json"),
        r#"{"engines": [{"name": "a", "cmd": "x", "st": "fast"}]}"#,
    )
    .unwrap();
    let r = arena(&["--config", "bad.json"], &dir);
    assert_eq!(r.code, Some(3), "{}", r.output);
    assert!(
        r.output.contains("expected a number, found \"fast\""),
        "{}",
        r.output
    );
}
