//! End to end: an option an engine refuses, or never advertised, stops the
//! match before its first game (exit 3) unless `--allow-bad-options` says
//! to warn and play on.

mod support;

use support::{arena, mock, temp_dir, Run};

/// A 2-game match of a plain mock against one started with `bad` (its
/// `args=` and `option.` tokens), plus `extra` flags.
fn options_match(tag: &str, bad: &[&str], extra: &[&str]) -> Run {
    let dir = temp_dir(tag);
    let cmd = format!("cmd={}", mock());
    let mut args = vec!["--engine", "name=a", &cmd, "st=0.02"];
    args.extend_from_slice(bad);
    args.extend_from_slice(&["--engine", "name=b", &cmd, "st=0.02", "--games", "2"]);
    args.extend_from_slice(extra);
    arena(&args, &dir)
}

#[test]
fn an_option_the_engine_never_advertised_stops_the_match_before_the_first_game() {
    let run = options_match("opt-unknown", &["option.Levl=3"], &[]);
    assert_eq!(run.code, Some(3), "{}", run.output);
    assert!(!run.output.contains("Started game"), "{}", run.output);
    let line = run
        .output
        .lines()
        .find(|l| l.contains("Levl"))
        .unwrap_or_else(|| panic!("no line names the option: {}", run.output));
    assert!(
        line.starts_with("arena: config error: engine a: option Levl=3"),
        "{line}"
    );
    assert!(
        line.contains("not among the options it advertised"),
        "{line}"
    );
}

#[test]
fn an_option_the_engine_answers_with_an_error_stops_the_match() {
    let run = options_match(
        "opt-refused",
        &["args=--refuse-options", "option.Game=mixtour"],
        &[],
    );
    assert_eq!(run.code, Some(3), "{}", run.output);
    assert!(!run.output.contains("Started game"), "{}", run.output);
    assert!(
        run.output.contains(
            "arena: config error: engine a: option Game=mixtour: it said: info string error: option Game refused"
        ),
        "{}",
        run.output
    );
}

#[test]
fn allow_bad_options_warns_and_plays_on() {
    let run = options_match("opt-allowed", &["option.Levl=3"], &["--allow-bad-options"]);
    assert_eq!(run.code, Some(0), "{}", run.output);
    let first = run.output.lines().next().unwrap_or_default();
    assert!(
        first.starts_with("Warning: engine a: option Levl=3"),
        "{}",
        run.output
    );
    assert_eq!(
        run.output.matches("Finished game").count(),
        2,
        "{}",
        run.output
    );
}

#[test]
fn option_names_compare_as_uci_does() {
    // The mock advertises `Game`: any case and spacing of it is that option.
    let run = options_match("opt-case", &["option.G AME=mixtour"], &[]);
    assert_eq!(run.code, Some(0), "{}", run.output);
    assert!(!run.output.contains("Warning"), "{}", run.output);
    assert_eq!(
        run.output.matches("Finished game").count(),
        2,
        "{}",
        run.output
    );
}
