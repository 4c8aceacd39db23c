//! End to end: SPRT stops and exit codes, tournaments of three engines,
//! shards merged back into one match, duplicates in a merge, the HTML report.

mod support;

use support::{arena, mock, read_summary, temp_dir};

/// A mock engine whose every move reports `score`: with `--resign moves=1`
/// the side reporting -2000 resigns at once, so results are fixed by who
/// plays whom and each game takes two plies.
fn scored(name: &str, score: i32) -> Vec<String> {
    vec![
        "--engine".into(),
        format!("name={name}"),
        format!("cmd={}", mock()),
        format!("args=--score {score}"),
        "nodes=1".into(),
    ]
}

/// A mock engine whose moves depend only on the position and `seed`.
fn deterministic(name: &str, seed: u32) -> Vec<String> {
    vec![
        "--engine".into(),
        format!("name={name}"),
        format!("cmd={}", mock()),
        format!("args=--per-position --seed {seed}"),
        "nodes=1".into(),
    ]
}

fn run(tag: &str, engines: Vec<Vec<String>>, flags: &[&str]) -> support::Run {
    let dir = temp_dir(tag);
    run_in(&dir, engines, flags)
}

fn run_in(dir: &std::path::Path, engines: Vec<Vec<String>>, flags: &[&str]) -> support::Run {
    let mut args: Vec<String> = engines.into_iter().flatten().collect();
    args.extend(flags.iter().map(|s| s.to_string()));
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    arena(&refs, dir)
}

const LOPSIDED: &[&str] = &[
    "--resign",
    "moves=1",
    "score=1000",
    "--ratinginterval",
    "0",
    "--json",
    "summary.json",
    "--jsonl",
    "games.jsonl",
];

#[test]
fn sprt_accepts_h1_for_a_stronger_candidate_and_stops_early() {
    let mut flags = LOPSIDED.to_vec();
    flags.extend(["--games", "2000", "--sprt", "elo0=0", "elo1=5"]);
    let r = run(
        "h1",
        vec![scored("strong", 2000), scored("weak", -2000)],
        &flags,
    );
    assert_eq!(r.code, Some(0), "{}", r.output);
    let s = read_summary(&r.dir);
    assert_eq!(s["sprt"]["verdict"], "H1", "{s}");
    let finished = s["finished"].as_u64().unwrap();
    assert!(finished < 2000, "stopped early: {finished}");
    assert!(s["sprt"]["llr"].as_f64().unwrap() >= s["sprt"]["upper"].as_f64().unwrap());
    assert!(s["sprt"]["stopped_at"].as_u64().is_some());
    assert!(r.output.contains("H1 was accepted"), "{}", r.output);
    // The records hold exactly the games reported: a merge sees the same LLR.
    let m = arena(
        &["merge", "games.jsonl", "--sprt", "elo0=0", "elo1=5"],
        &r.dir,
    );
    assert_eq!(m.code, Some(0), "{}", m.output);
    // Resuming a decided match plays nothing more.
    let mut again = flags.clone();
    again.push("--resume");
    let r2 = run_in(
        &r.dir,
        vec![scored("strong", 2000), scored("weak", -2000)],
        &again,
    );
    assert_eq!(r2.code, Some(0), "{}", r2.output);
    assert!(!r2.output.contains("Started game"), "{}", r2.output);
    assert_eq!(read_summary(&r.dir)["finished"].as_u64().unwrap(), finished);
}

#[test]
fn sprt_accepts_h0_for_a_clearly_weaker_candidate() {
    let mut flags = LOPSIDED.to_vec();
    flags.extend(["--games", "2000", "--sprt", "elo0=0", "elo1=5"]);
    flags.extend(["--concurrency", "2"]);
    let r = run(
        "h0",
        vec![scored("weak", -2000), scored("strong", 2000)],
        &flags,
    );
    assert_eq!(r.code, Some(1), "{}", r.output);
    let s = read_summary(&r.dir);
    assert_eq!(s["sprt"]["verdict"], "H0");
    assert!(s["finished"].as_u64().unwrap() < 2000);
    assert!(r.output.contains("H0 was accepted"), "{}", r.output);
}

#[test]
fn sprt_is_inconclusive_when_the_budget_runs_out_first() {
    let mut flags = LOPSIDED.to_vec();
    flags.extend(["--games", "20", "--sprt", "elo0=0", "elo1=5"]);
    let r = run(
        "inconclusive",
        vec![scored("strong", 2000), scored("weak", -2000)],
        &flags,
    );
    // Twenty straight wins are not enough evidence: never H1 on an empty budget.
    assert_eq!(r.code, Some(2), "{}", r.output);
    let s = read_summary(&r.dir);
    assert_eq!(s["sprt"]["verdict"], "inconclusive");
    assert_eq!(s["finished"], 20);
    assert!(r.output.contains("LLR"), "{}", r.output);
    // One vocabulary (issue 23): the table's SPRT column says what the line below it says,
    // and twenty straight wins print a bound, not "+2400.0 ± 0.0" or "+inf".
    // The table's row, not the sentence after it ("strong won 20 of 20 games ...").
    let table_row = r
        .output
        .lines()
        .rev()
        .find(|l| l.starts_with("strong ") && !l.starts_with("strong won"))
        .unwrap_or_default();
    assert!(table_row.ends_with("inconclusive"), "{}", r.output);
    assert!(table_row.contains("> +"), "{table_row}");
    for wrong in ["continue", "2400", "inf", "± 0.0", "-0.0"] {
        assert!(!r.output.contains(wrong), "{wrong} in {}", r.output);
    }
    assert!(s["pairs"][0]["elo"].is_null(), "{s}");
    assert!(s["pairs"][0]["elo_lower"].as_f64().unwrap() > 0.0, "{s}");
    // A merge has no budget: it says no bound was crossed, in the same words.
    let m = arena(
        &["merge", "games.jsonl", "--sprt", "elo0=0", "elo1=5"],
        &r.dir,
    );
    assert_eq!(m.code, Some(2), "{}", m.output);
    assert!(!m.output.contains("budget"), "{}", m.output);
    assert!(
        m.output
            .contains("inconclusive: no bound crossed in 20 games"),
        "{}",
        m.output
    );
}

#[test]
fn a_failed_run_exits_3_and_bad_specs_are_clear_errors() {
    let dir = temp_dir("fail3");
    let mut missing = scored("ghost", 0);
    missing[2] = "cmd=/nonexistent/engine".into();
    let r = run_in(
        &dir,
        vec![missing, scored("base", 0)],
        &["--sprt", "elo0=0", "elo1=5"],
    );
    assert_eq!(r.code, Some(3), "{}", r.output);
    for (flag, value, says) in [
        ("--sprt", "elo0=5 elo1=0", "elo0 < elo1"),
        ("--sprt", "elo0=0 elo1=5 alpha=2", "alpha"),
        ("--sprt", "elo0=zero elo1=5", "elo0=E0"),
        ("--sprt", "elo1=5", "needs elo0"),
        ("--shard", "0/3", "K/N"),
        ("--shard", "4/3", "K/N"),
        ("--shard", "two", "K/N"),
        ("--tournament", "swiss", "roundrobin or gauntlet"),
    ] {
        let mut flags = vec![flag];
        flags.extend(value.split(' '));
        let r = run_in(&dir, vec![scored("a", 0), scored("b", 0)], &flags);
        assert_eq!(r.code, Some(3), "{flag} {value}: {}", r.output);
        assert!(r.output.contains(says), "{flag} {value}: {}", r.output);
        assert!(!r.output.contains("panicked"), "{}", r.output);
    }
}

#[test]
fn round_robin_of_three_prints_ratings_and_cross_table() {
    let r = run(
        "rr3",
        vec![scored("top", 2000), scored("mid", 0), scored("low", -2000)],
        &[
            "--games",
            "12",
            "--maxplies",
            "40",
            "--resign",
            "moves=1",
            "score=1000",
            "--json",
            "summary.json",
            "--report",
            "report.html",
        ],
    );
    assert_eq!(r.code, Some(0), "{}", r.output);
    assert!(r.output.contains("Ratings"), "{}", r.output);
    assert!(r.output.contains("Cross table"), "{}", r.output);
    let s = read_summary(&r.dir);
    assert_eq!(s["finished"], 12);
    assert_eq!(s["pairs"].as_array().unwrap().len(), 3);
    let rows = s["ratings"]["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 3);
    let rating = |i: usize| rows[i]["rating"].as_f64().unwrap();
    // top beats low every game: it must be rated above it.
    assert!(rating(0) > rating(2), "{s}");
    let html = std::fs::read_to_string(r.dir.join("report.html")).unwrap();
    assert!(html.contains("<svg"), "report has a chart");
    assert!(html.contains("top") && html.contains("low"));
    // Every pair charted (issue 23: only the first was), the settings, every game.
    let elo_chart = html.split("<svg").nth(1).unwrap();
    assert_eq!(elo_chart.matches("<polyline").count(), 3, "{html}");
    for label in ["top vs mid", "top vs low", "mid vs low"] {
        assert!(html.contains(&format!("</span> {label}")), "legend {label}");
    }
    assert!(html.contains("<th class=\"key\">Tournament</th><td>roundrobin</td>"));
    assert!(html.contains("<h2>Engines</h2>") && html.contains("<td>nodes=1</td>"));
    assert!(
        html.contains("--score 2000"),
        "the command with its arguments"
    );
    assert_eq!(html.matches("<details id=\"game-").count(), 12);
}

#[test]
fn gauntlet_plays_only_the_first_engine() {
    let r = run(
        "gauntlet",
        vec![scored("hero", 2000), scored("x", -2000), scored("y", -2000)],
        &[
            "--tournament",
            "gauntlet",
            "--games",
            "8",
            "--resign",
            "moves=1",
            "score=1000",
            "--json",
            "summary.json",
        ],
    );
    assert_eq!(r.code, Some(0), "{}", r.output);
    let s = read_summary(&r.dir);
    assert_eq!(s["finished"], 8);
    for g in s["games"].as_array().unwrap() {
        assert!(g["player1"] == "hero" || g["player2"] == "hero", "{g}");
    }
    assert!(r.output.contains("Cross table"), "{}", r.output);
}

#[test]
fn shards_merged_equal_one_unsharded_run() {
    let dir = temp_dir("shards");
    let engines = || {
        vec![
            deterministic("cand", 1),
            deterministic("base", 2),
            deterministic("third", 3),
        ]
    };
    let openings = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tournaments/openings-mixtour.txt"
    );
    let common = [
        "--games",
        "18",
        "--maxplies",
        "30",
        "--openings",
        openings,
        "--seed",
        "7",
    ];
    let mut flags = common.to_vec();
    flags.extend(["--jsonl", "all.jsonl", "--json", "all.json"]);
    let whole = run_in(&dir, engines(), &flags);
    assert_eq!(whole.code, Some(0), "{}", whole.output);
    let mut files = Vec::new();
    for k in 1..=3 {
        let (shard, jsonl) = (format!("{k}/3"), format!("shard{k}.jsonl"));
        let mut flags = common.to_vec();
        flags.extend(["--shard", &shard, "--jsonl", &jsonl]);
        let r = run_in(&dir, engines(), &flags);
        assert_eq!(r.code, Some(0), "{}", r.output);
        files.push(jsonl);
    }
    let mut args = vec!["merge"];
    args.extend(files.iter().map(String::as_str));
    args.extend(["--json", "merged.json"]);
    let m = arena(&args, &dir);
    assert_eq!(m.code, Some(0), "{}", m.output);
    let read = |f: &str| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(dir.join(f)).unwrap()).unwrap()
    };
    let (whole, merged) = (read("all.json"), read("merged.json"));
    assert_eq!(merged["duplicates"], 0);
    assert_eq!(merged["engines"], whole["engines"]);
    assert_eq!(merged["games"], whole["games"]);
    assert_eq!(merged["pairs"], whole["pairs"]);
    assert_eq!(merged["ratings"], whole["ratings"]);
    assert_eq!(merged["finished"], 18);
}

#[test]
fn merge_counts_duplicates_once_and_rejects_broken_lines() {
    let mut flags = LOPSIDED.to_vec();
    flags.extend(["--games", "10"]);
    let r = run(
        "dups",
        vec![scored("strong", 2000), scored("weak", -2000)],
        &flags,
    );
    assert_eq!(r.code, Some(0), "{}", r.output);
    let dir = &r.dir;
    let text = std::fs::read_to_string(dir.join("games.jsonl")).unwrap();
    // A second machine that replayed the first two games of the match.
    let replay: String = text.lines().take(2).map(|l| format!("{l}\n")).collect();
    std::fs::write(dir.join("replay.jsonl"), replay).unwrap();
    let m = arena(
        &[
            "merge",
            "games.jsonl",
            "games.jsonl",
            "replay.jsonl",
            "--json",
            "merged.json",
            "--report",
            "merged.html",
            "--sprt",
            "elo0=0",
            "elo1=5",
        ],
        dir,
    );
    // Ten straight wins prove nothing yet: inconclusive.
    assert_eq!(m.code, Some(2), "{}", m.output);
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("merged.json")).unwrap()).unwrap();
    assert_eq!(s["finished"], 10);
    assert_eq!(s["duplicates"], 12);
    assert_eq!(s["pairs"][0]["wins"], 10);
    assert_eq!(s["sprt"]["verdict"], "inconclusive");
    let html = std::fs::read_to_string(dir.join("merged.html")).unwrap();
    assert!(html.contains("<svg"));

    let mut broken = text.clone();
    broken.insert_str(0, "{\"game\": 1, not json\n");
    std::fs::write(dir.join("broken.jsonl"), broken).unwrap();
    let m = arena(&["merge", "broken.jsonl"], dir);
    assert_eq!(m.code, Some(3), "{}", m.output);
    assert!(m.output.contains("broken.jsonl line 1"), "{}", m.output);
    let m = arena(&["merge", "missing.jsonl"], dir);
    assert_eq!(m.code, Some(3), "{}", m.output);
    assert!(m.output.contains("no such file"), "{}", m.output);
}

/// Two different matches share game numbers, openings and players: a
/// record whose key collides with another's but whose moves differ is a
/// different game, not a copy (issue 23: it was silently dropped).
#[test]
fn merge_refuses_colliding_games_unless_asked_to_keep_them() {
    let mut flags = LOPSIDED.to_vec();
    flags.extend(["--games", "4"]);
    let r = run(
        "collide",
        vec![scored("strong", 2000), scored("weak", -2000)],
        &flags,
    );
    assert_eq!(r.code, Some(0), "{}", r.output);
    let dir = &r.dir;
    let text = std::fs::read_to_string(dir.join("games.jsonl")).unwrap();
    // The other match: same keys, but game 1 went another way (and
    // replays of it with other scores or times are still copies).
    let other: String = text
        .lines()
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
            if v["game"] == 1 {
                v["moves"][0]["move"] = "a1-b2".into();
            } else if let Some(m) = v["moves"][0].as_object_mut() {
                m.insert("ms".into(), 12345.into());
            }
            format!("{v}\n")
        })
        .collect();
    std::fs::write(dir.join("other.jsonl"), other).unwrap();
    let m = arena(&["merge", "games.jsonl", "other.jsonl"], dir);
    assert_eq!(m.code, Some(3), "{}", m.output);
    assert!(
        m.output.contains("games.jsonl game 1") && m.output.contains("other.jsonl game 1"),
        "{}",
        m.output
    );
    assert!(m.output.contains("--keep-collisions"), "{}", m.output);

    let m = arena(
        &[
            "merge",
            "games.jsonl",
            "other.jsonl",
            "games.jsonl",
            "--keep-collisions",
            "--json",
            "kept.json",
        ],
        dir,
    );
    assert_eq!(m.code, Some(0), "{}", m.output);
    assert!(
        m.output
            .contains("Merged 5 games from 3 files (7 duplicates counted once)"),
        "{}",
        m.output
    );
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("kept.json")).unwrap()).unwrap();
    assert_eq!(s["finished"], 5);
    assert_eq!(s["duplicates"], 7);

    // The same file twice is still one match.
    let m = arena(&["merge", "games.jsonl", "games.jsonl"], dir);
    assert_eq!(m.code, Some(0), "{}", m.output);
    assert!(
        m.output
            .contains("Merged 4 games from 2 files (4 duplicates counted once)"),
        "{}",
        m.output
    );
}

#[test]
fn shipped_configs_load_and_validate() {
    use stackfish::arena::config::MatchConfig;
    use stackfish::arena::schedule::Tournament;
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tournaments");
    for name in ["default.json", "regression.json", "gauntlet-levels.json"] {
        let cfg = MatchConfig::from_file(&dir.join(name)).expect(name);
        cfg.validate().expect(name);
    }
    let gate = MatchConfig::from_file(&dir.join("regression.json")).unwrap();
    let sprt = gate.sprt.expect("the gate runs an SPRT");
    assert_eq!(
        (sprt.elo0(), sprt.elo1()),
        (-5.0, 0.0),
        "non-regression bounds"
    );
    let levels = MatchConfig::from_file(&dir.join("gauntlet-levels.json")).unwrap();
    assert_eq!(levels.tournament, Tournament::Gauntlet);
    assert!(levels.engines.len() >= 4);
}
