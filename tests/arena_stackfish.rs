//! The arena over the real engine: stackfish passes the compliance check and
//! plays whole matches against itself without a single fault.

mod support;

use support::{arena, read_summary, temp_dir};

fn stackfish() -> String {
    env!("CARGO_BIN_EXE_stackfish").to_string()
}

#[test]
fn stackfish_passes_compliance_in_every_game() {
    for game in stackfish::game::variant_names() {
        let dir = temp_dir(&format!("sf-compliance-{game}"));
        let run = arena(&["compliance", "--game", game, &stackfish()], &dir);
        assert_eq!(run.code, Some(0), "{game}: {}", run.output);
    }
}

#[test]
fn stackfish_vs_stackfish_plays_clean_games() {
    let dir = temp_dir("sf-match");
    let cmd = format!("cmd={}", stackfish());
    let openings = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tournaments/openings-mixtour.txt"
    );
    let run = arena(
        &[
            "--engine",
            "name=full",
            &cmd,
            "tc=1+0.02",
            // This test is about clean protocol, not time keeping: a loaded
            // machine (test binaries run side by side) must not forfeit.
            "timemargin=1000",
            "--engine",
            "name=weak",
            &cmd,
            "option.Level=3",
            "depth=3",
            "--games",
            "4",
            "--concurrency",
            "2",
            "--openings",
            openings,
            "--seed",
            "5",
            "--game",
            "mixtour-5",
            "--json",
            "summary.json",
            "--jsonl",
            "games.jsonl",
            "--log",
            "protocol.log",
        ],
        &dir,
    );
    assert_eq!(run.code, Some(0), "{}", run.output);
    let summary = read_summary(&dir);
    let games = summary["games"].as_array().unwrap();
    assert_eq!(games.len(), 4);
    for g in games {
        let t = g["termination"].as_str().unwrap();
        assert!(
            !t.starts_with("full:") && !t.starts_with("weak:"),
            "engine fault: {g}"
        );
        assert!(g["plies"].as_u64().unwrap() > 4, "{g}");
    }
    // The engines were told the game, since they advertise a Game option.
    let log = std::fs::read_to_string(dir.join("protocol.log")).unwrap();
    assert!(
        log.contains("full > setoption name Game value mixtour-5"),
        "Game option not set"
    );
    assert!(log.contains("weak > setoption name Level value 3"));
    assert!(log.contains("full > go p1time "), "UGI clocks");
    assert!(log.contains("weak > go p1time ") && log.contains(" depth 3"));
    // Records carry the engines' own score/depth/time per move.
    let first = std::fs::read_to_string(dir.join("games.jsonl")).unwrap();
    let rec: serde_json::Value = serde_json::from_str(first.lines().next().unwrap()).unwrap();
    let engine_move = rec["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m.get("book").is_none())
        .unwrap();
    assert!(
        engine_move["depth"].as_u64().is_some() && engine_move["ms"].as_u64().is_some(),
        "{engine_move}"
    );
}
