//! `arena analyse` end to end: the decisive mistakes of the match records
//! the repository ships (tests/records/match.jsonl), found by our own
//! engine as a child process, each listed with a position of its game.

mod support;

use std::path::Path;
use std::process::Command;

use stackfish::record::RecordReader;
use stackfish::review::ReviewGame;
use support::temp_dir;

fn replayed(path: &Path) -> Vec<ReviewGame> {
    let file = std::fs::File::open(path).expect("readable");
    RecordReader::new(std::io::BufReader::new(file))
        .map(|item| {
            ReviewGame::from_record(&item.parse().expect("a record").record, None).expect("a game")
        })
        .collect()
}

#[test]
fn arena_analyse_lists_each_losers_decisive_mistake_with_its_position() {
    let dir = temp_dir("arena-analyse");
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/records/match.jsonl");
    let out = Command::new(support::arena_exe())
        .args([
            "analyse",
            path.to_str().unwrap(),
            "--engine",
            "name=sf",
            "cmd=stackfish",
            "nodes=3000",
        ])
        .current_dir(&dir)
        .output()
        .expect("arena runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let games = replayed(&path);
    assert!(
        text.starts_with(&format!(
            "arena analyse: {} games reviewed by sf (go nodes 3000 a position)\n",
            games.len()
        )),
        "{text}"
    );
    // The weak engine lost them all.
    assert!(
        text.contains(&format!("weak: lost {} games, ", games.len())),
        "{text}"
    );
    // Each position listed is one of its game's, before a move of the loser.
    let positions: Vec<&str> = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix("position "))
        .collect();
    assert!(!positions.is_empty(), "{text}");
    for fen in positions {
        let found = games.iter().any(|g| {
            g.fens.iter().position(|f| f == fen).is_some_and(|i| {
                let loser = g.result.and_then(|r| r.winner()).map(|w| w.opponent());
                i < g.moves.len() && Some(g.sides[i]) == loser
            })
        });
        assert!(found, "{fen}");
    }
    // A limit that is a clock is refused.
    let out = Command::new(support::arena_exe())
        .args([
            "analyse",
            path.to_str().unwrap(),
            "--engine",
            "cmd=stackfish",
            "tc=1+0.1",
        ])
        .output()
        .expect("arena runs");
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("a clock (tc=) is not a limit for one position"));
}
