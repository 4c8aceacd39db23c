//! `arena compliance` passes a conforming engine and, for a broken one,
//! fails with a non-zero exit and shows what the engine said.

mod support;

use support::{arena, mock, temp_dir};

#[test]
fn conforming_mock_passes() {
    let dir = temp_dir("compliance-ok");
    let run = arena(&["compliance", &mock()], &dir);
    assert_eq!(run.code, Some(0), "{}", run.output);
    assert!(
        run.output
            .contains("ok   go infinite, isready mid-search, stop"),
        "{}",
        run.output
    );
    assert!(run.output.contains("ok   queries"), "{}", run.output);
    assert!(
        run.output.ends_with("compliance: passed\n"),
        "{}",
        run.output
    );
}

#[test]
fn extra_tokens_after_bestmove_fail_and_show_the_conversation() {
    let dir = temp_dir("compliance-extra");
    let run = arena(&["compliance", &mock(), "--fault", "extra"], &dir);
    assert_eq!(run.code, Some(1), "{}", run.output);
    assert!(
        run.output.contains("FAIL go depth: 'bestmove "),
        "{}",
        run.output
    );
    assert!(
        run.output.contains("expected exactly 'bestmove <move>'"),
        "{}",
        run.output
    );
    assert!(run.output.contains("     > go depth 2"), "{}", run.output);
    assert!(run.output.contains("compliance: FAILED"), "{}", run.output);
}

#[test]
fn a_crash_fails_and_skips_the_rest() {
    let dir = temp_dir("compliance-crash");
    // The command as one line, the path quoted (a clone's path may have
    // spaces).
    let cmd = format!("'{}' --fault crash --at 2", mock());
    let run = arena(&["compliance", &cmd], &dir);
    assert_eq!(run.code, Some(1), "{}", run.output);
    assert!(run.output.contains("ok   go depth"), "{}", run.output);
    assert!(
        run.output.contains("engine exited (exit status 101)"),
        "{}",
        run.output
    );
    assert!(
        run.output.contains("skip queries (engine is gone"),
        "{}",
        run.output
    );
}

#[test]
fn a_missing_engine_is_a_run_failure() {
    let dir = temp_dir("compliance-missing");
    let run = arena(&["compliance", "/nonexistent/engine"], &dir);
    assert_eq!(run.code, Some(3), "{}", run.output);
}
