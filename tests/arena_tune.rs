//! End to end: `arena tune` against the mock engine (a random mover with
//! two spin options): the trace, the ranges, the final values, resuming,
//! and the errors before any game.

mod support;

use support::{arena, mock, temp_dir};

fn tune_args(cmd: &str, iterations: &str) -> Vec<String> {
    [
        "tune",
        "--engine",
        cmd,
        "args=--spins",
        "depth=1",
        "--params-prefix",
        "MockSpin",
        "--iterations",
        iterations,
        "--concurrency",
        "2",
        "--seed",
        "5",
        "--report-every",
        "2",
        "--trace",
        "trace.jsonl",
    ]
    .map(String::from)
    .to_vec()
}

fn trace_lines(dir: &std::path::Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(dir.join("trace.jsonl"))
        .expect("trace written")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

#[test]
fn a_short_run_writes_its_trace_and_resumes_where_it_stopped() {
    let dir = temp_dir("tune");
    let cmd = format!("cmd={}", mock());
    let args = tune_args(&cmd, "6");
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = arena(&argv, &dir);
    assert_eq!(run.code, Some(0), "{}", run.output);
    let lines = trace_lines(&dir);
    assert_eq!(lines.len(), 7, "a header and 6 iterations");
    let header = &lines[0]["spsa"];
    assert_eq!(header[0]["name"], "MockSpinA");
    assert_eq!(header[1]["name"], "MockSpinB");
    assert_eq!(header[1]["start"], 50.0);
    let mut ks: Vec<u64> = Vec::new();
    for l in &lines[1..] {
        ks.push(l["k"].as_u64().expect("k"));
        let r = l["result"].as_f64().expect("result");
        assert!((-2.0..=2.0).contains(&r), "{r}");
        for (i, max) in [(0, 10.0), (1, 100.0)] {
            for key in ["plus", "minus"] {
                let v = l[key][i].as_i64().expect("an integer");
                assert!((0..=max as i64).contains(&v), "{key} {v}");
            }
            let t = l["theta"][i].as_f64().expect("theta");
            assert!((0.0..=max).contains(&t), "{t}");
        }
    }
    ks.sort();
    assert_eq!(ks, (1..=6).collect::<Vec<u64>>());
    assert!(run.output.contains("Iteration 6/6"), "{}", run.output);
    assert!(
        run.output.contains("As engine options: option.MockSpinA="),
        "{}",
        run.output
    );

    // Cut the trace after 2 iterations (as a kill would) and go on.
    let text = std::fs::read_to_string(dir.join("trace.jsonl")).unwrap();
    let kept: Vec<&str> = text.lines().take(3).collect();
    std::fs::write(dir.join("trace.jsonl"), kept.join("\n") + "\n").unwrap();
    let mut resumed = args.clone();
    resumed.push("--resume".into());
    let argv: Vec<&str> = resumed.iter().map(String::as_str).collect();
    let run = arena(&argv, &dir);
    assert_eq!(run.code, Some(0), "{}", run.output);
    assert!(run.output.contains("resuming after 2"), "{}", run.output);
    let again = trace_lines(&dir);
    assert_eq!(again.len(), 7);
    assert_eq!(again[..3], lines[..3]);
    let mut ks: Vec<u64> = again[1..]
        .iter()
        .map(|l| l["k"].as_u64().unwrap())
        .collect();
    ks.sort();
    assert_eq!(ks, (1..=6).collect::<Vec<u64>>());

    // A resume with another schedule is refused before any game.
    let mut other = tune_args(&cmd, "8");
    other.push("--resume".into());
    let argv: Vec<&str> = other.iter().map(String::as_str).collect();
    let run = arena(&argv, &dir);
    assert_eq!(run.code, Some(3), "{}", run.output);
    assert!(
        run.output.contains("the trace is of another run"),
        "{}",
        run.output
    );
}

#[test]
fn an_engine_without_such_options_or_a_bad_file_is_an_error() {
    let dir = temp_dir("tune-bad");
    let cmd = format!("cmd={}", mock());
    let run = arena(
        &[
            "tune",
            "--engine",
            &cmd,
            "depth=1",
            "--params-prefix",
            "Search",
        ],
        &dir,
    );
    assert_eq!(run.code, Some(3), "{}", run.output);
    assert!(
        run.output.contains("no spin option starting with 'Search'"),
        "{}",
        run.output
    );
    std::fs::write(dir.join("p.csv"), "Nope,1,0,5,0.5,0.002\n").unwrap();
    let run = arena(
        &["tune", "--engine", &cmd, "depth=1", "--params", "p.csv"],
        &dir,
    );
    assert_eq!(run.code, Some(3), "{}", run.output);
    assert!(
        run.output.contains("option Nope=1")
            && run.output.contains("not among the options it advertised"),
        "{}",
        run.output
    );
    std::fs::write(dir.join("p.csv"), "MockSpinA,1,0,5\n").unwrap();
    let run = arena(
        &["tune", "--engine", &cmd, "depth=1", "--params", "p.csv"],
        &dir,
    );
    assert_eq!(run.code, Some(3), "{}", run.output);
    assert!(run.output.contains("parameter line 1"), "{}", run.output);
}
