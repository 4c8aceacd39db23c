//! End to end with well-behaved mock engines: adjudication, the UCI dialect,
//! concurrency with a shuffled suite, and the record formats.

mod support;

use support::{arena, mock, read_summary, temp_dir};

fn engine(name: &str, extra: &str, limit: &str) -> Vec<String> {
    vec![
        "--engine".into(),
        format!("name={name}"),
        format!("cmd={}", mock()),
        format!("args=--seed {} {extra}", name.len()),
        limit.into(),
    ]
}

fn run_with(tag: &str, engines: Vec<Vec<String>>, flags: &[&str]) -> support::Run {
    let dir = temp_dir(tag);
    let mut args: Vec<String> = engines.into_iter().flatten().collect();
    args.extend(
        [
            "--json",
            "summary.json",
            "--jsonl",
            "games.jsonl",
            "--pgn",
            "games.pgn",
        ]
        .map(String::from),
    );
    args.extend(flags.iter().map(|s| s.to_string()));
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    arena(&refs, &dir)
}

#[test]
fn resign_adjudication_when_both_agree() {
    let run = run_with(
        "resign",
        vec![
            engine("up", "--score 2000", "st=0.01"),
            engine("down", "--score -2000", "st=0.01"),
        ],
        &["--games", "2", "--resign", "moves=2", "score=1000"],
    );
    assert_eq!(run.code, Some(0), "{}", run.output);
    let s = read_summary(&run.dir);
    for g in s["games"].as_array().unwrap() {
        assert_eq!(g["termination"], "adjudication: resign by score");
        let want = if g["player1"] == "up" { "1-0" } else { "0-1" };
        assert_eq!(g["result"], want);
        // Two scores each are needed: the earliest is after 4 plies.
        assert!(g["plies"].as_u64().unwrap() >= 4);
    }
}

#[test]
fn draw_adjudication_and_max_plies() {
    let run = run_with(
        "draw",
        vec![engine("a", "", "st=0.01"), engine("bb", "", "st=0.01")],
        &[
            "--games",
            "2",
            "--draw",
            "movenumber=3",
            "moves=2",
            "score=5",
        ],
    );
    assert_eq!(run.code, Some(0), "{}", run.output);
    let s = read_summary(&run.dir);
    for g in s["games"].as_array().unwrap() {
        let t = g["termination"].as_str().unwrap();
        // A random game may end by the rules before move 3.
        assert!(
            t == "adjudication: draw by score" || !t.starts_with("adjudication"),
            "{t}"
        );
        if t.starts_with("adjudication") {
            assert_eq!(g["plies"], 6);
            assert_eq!(g["result"], "1/2-1/2");
        }
    }
    let run = run_with(
        "maxplies",
        vec![engine("a", "", "depth=1"), engine("bb", "", "nodes=10")],
        &[
            "--games",
            "2",
            "--maxplies",
            "3",
            "--openings",
            concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tournaments/openings-mixtour.txt"
            ),
        ],
    );
    assert_eq!(run.code, Some(0), "{}", run.output);
    let s = read_summary(&run.dir);
    for g in s["games"].as_array().unwrap() {
        assert_eq!(g["termination"], "adjudication: max plies (3)");
        assert_eq!(g["plies"], 7, "4 book plies + 3 engine plies");
    }
}

#[test]
fn extreme_engine_scores_are_no_draw_and_mate_minus_0_resigns() {
    // `score cp -2147483648` from both: |i32::MIN| wrapped in release builds
    // and every position read as "within 5 cp of even" (issue 43).
    let run = run_with(
        "extreme-cp",
        vec![
            engine("a", "--score -2147483648", "depth=1"),
            engine("bb", "--score -2147483648", "depth=1"),
        ],
        &[
            "--games",
            "2",
            "--maxplies",
            "8",
            "--draw",
            "moves=1",
            "score=5",
        ],
    );
    assert_eq!(run.code, Some(0), "{}", run.output);
    let s = read_summary(&run.dir);
    for g in s["games"].as_array().unwrap() {
        assert_ne!(g["termination"], "adjudication: draw by score", "{g}");
    }
    // `mate -0`: the engine says it is mated now, a lost score; with
    // one-sided resignation its side loses at its first scored move.
    let run = run_with(
        "mate-minus-0",
        vec![
            engine("mated", "--mate -0", "depth=1"),
            engine("calm", "", "depth=1"),
        ],
        &[
            "--games",
            "2",
            "--draw",
            "moves=1",
            "score=5",
            "--resign",
            "moves=1",
            "score=1000",
            "twosided=false",
        ],
    );
    assert_eq!(run.code, Some(0), "{}", run.output);
    let s = read_summary(&run.dir);
    for g in s["games"].as_array().unwrap() {
        assert_eq!(g["termination"], "adjudication: resign by score", "{g}");
        let want = if g["player1"] == "mated" {
            "0-1"
        } else {
            "1-0"
        };
        assert_eq!(g["result"], want, "{g}");
    }
}

#[test]
fn uci_engines_concurrency_and_records() {
    let mut a = engine("a", "", "tc=2+0.01");
    a.push("proto=uci".into());
    let mut b = engine("bb", "", "tc=2+0.01");
    b.push("proto=uci".into());
    let run = run_with(
        "uci",
        vec![a, b],
        &[
            "--log",
            "protocol.log",
            "--games",
            "6",
            "--concurrency",
            "2",
            "--seed",
            "3",
            "--maxplies",
            "20",
            "--openings",
            concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tournaments/openings-mixtour.txt"
            ),
        ],
    );
    assert_eq!(run.code, Some(0), "{}", run.output);
    let s = read_summary(&run.dir);
    let games = s["games"].as_array().unwrap();
    assert_eq!(games.len(), 6);
    for g in games {
        let t = g["termination"].as_str().unwrap();
        assert!(!t.starts_with("a:") && !t.starts_with("bb:"), "fault: {g}");
    }
    // Each round is one opening with colours swapped.
    let jsonl = std::fs::read_to_string(run.dir.join("games.jsonl")).unwrap();
    let recs: Vec<serde_json::Value> = jsonl
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for round in 1..=3 {
        let pair: Vec<&serde_json::Value> = recs.iter().filter(|r| r["round"] == round).collect();
        assert_eq!(pair.len(), 2);
        assert_eq!(pair[0]["opening"], pair[1]["opening"]);
        assert_eq!(pair[0]["player1"], pair[1]["player2"]);
        let book = |r: &serde_json::Value| -> Vec<String> {
            r["moves"]
                .as_array()
                .unwrap()
                .iter()
                .take(4)
                .map(|m| m["move"].as_str().unwrap().to_string())
                .collect()
        };
        assert_eq!(book(pair[0]), book(pair[1]));
    }
    let log = std::fs::read_to_string(run.dir.join("protocol.log")).unwrap();
    assert!(log.contains("a > uci\n") && log.contains("a > ucinewgame"));
    assert!(log.contains(" > go wtime ") && log.contains(" btime ") && !log.contains("p1time"));
    let pgn = std::fs::read_to_string(run.dir.join("games.pgn")).unwrap();
    for tag in [
        "Event",
        "Site",
        "Date",
        "Round",
        "Game",
        "Player1",
        "Player2",
        "FEN",
        "Result",
        "Termination",
        "TimeControl",
    ] {
        assert_eq!(pgn.matches(&format!("[{tag} \"")).count(), 6, "{tag}");
    }
    assert!(pgn.contains("[TimeControl \"2+0.01\"]"));
    assert!(pgn.contains("{book}") && pgn.contains("{+0.00/1 "), "{pgn}");
    let pair = &s["pairs"][0];
    assert_eq!(pair["engine"], "a");
    assert_eq!(pair["opponent"], "bb");
    let p: u64 = pair["pentanomial"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .sum();
    assert_eq!(p, 3);
    assert!(pair["elo"].is_number() && pair["elo_error"].is_number());
}

#[test]
fn engines_referee_for_a_game_the_library_does_not_know() {
    // Without --referee engines an unknown game is a config error.
    let run = run_with(
        "unknown-game",
        vec![engine("a", "", "st=0.01"), engine("bb", "", "st=0.01")],
        &["--game", "othergame"],
    );
    assert_eq!(run.code, Some(3), "{}", run.output);
    assert!(run.output.contains("--referee engines"), "{}", run.output);

    let run = run_with(
        "engines-referee",
        vec![engine("a", "", "st=0.01"), engine("bb", "", "st=0.01")],
        &[
            "--game",
            "othergame",
            "--referee",
            "engines",
            "--games",
            "2",
            "--log",
            "protocol.log",
        ],
    );
    assert_eq!(run.code, Some(0), "{}", run.output);
    let s = read_summary(&run.dir);
    for g in s["games"].as_array().unwrap() {
        let t = g["termination"].as_str().unwrap();
        assert!(
            t == "game over (engines agree)" || t.starts_with("adjudication: max plies"),
            "{t}"
        );
    }
    let log = std::fs::read_to_string(run.dir.join("protocol.log")).unwrap();
    assert!(log.contains("a > query gameover") && log.contains("bb > query result"));
    assert!(log.contains("a > query p1turn"));

    // Engines that play different rules disagree: the game is voided, not scored.
    let mut five = engine("a", "", "st=0.01");
    five.push("option.Game=mixtour-5".into());
    let run = run_with(
        "engines-disagree",
        vec![five, engine("bb", "", "st=0.01")],
        &["--referee", "engines", "--games", "2"],
    );
    assert_eq!(run.code, Some(0), "{}", run.output);
    let s = read_summary(&run.dir);
    for g in s["games"].as_array().unwrap() {
        assert_eq!(g["result"], "*");
        assert!(
            g["termination"]
                .as_str()
                .unwrap()
                .starts_with("voided: engines disagree"),
            "{g}"
        );
    }
    assert_eq!(s["pairs"][0]["games"], 0, "voided games are not counted");
}
