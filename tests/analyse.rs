//! `stackfish analyse` end to end through the real binary, on the records
//! the repository ships (tests/records/): JSON
//! lines and PGN of the arena, the board's download, the annotated PGN
//! read back by the record reader, a Silo game judged against the exact
//! values of the old solver, and every kind of bad input.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use stackfish::record::{parse_pgn, RecordReader};
use stackfish::review::ReviewGame;
use support::temp_dir;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn records(name: &str) -> PathBuf {
    Path::new(ROOT).join("tests/records").join(name)
}

fn stackfish(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_stackfish"))
        .args(args)
        .output()
        .expect("stackfish runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Each game of a record file, replayed by the rules.
fn replayed(path: &Path) -> Vec<ReviewGame> {
    let file = std::fs::File::open(path).expect("readable");
    RecordReader::new(std::io::BufReader::new(file))
        .map(|item| {
            let record = item.parse().expect("a record").record;
            ReviewGame::from_record(&record, None).expect("a game")
        })
        .collect()
}

#[test]
fn the_arena_records_are_reviewed_as_json_one_line_a_game() {
    let path = records("match.jsonl");
    let (code, out, err) = stackfish(&[
        "analyse",
        path.to_str().unwrap(),
        "--nodes",
        "3000",
        "--json",
    ]);
    assert_eq!(code, Some(0), "{err}");
    let games = replayed(&path);
    let reviews: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    assert_eq!(reviews.len(), games.len());
    for (review, game) in reviews.iter().zip(&games) {
        assert_eq!(review["variant"], game.variant);
        let positions = review["positions"].as_array().unwrap();
        let moves = review["moves"].as_array().unwrap();
        assert_eq!(moves.len(), game.moves.len());
        assert_eq!(positions.len(), game.fens.len());
        for (p, fen) in positions.iter().zip(&game.fens) {
            assert_eq!(p["fen"], fen.as_str());
        }
        // Every position but a finished game's last was searched.
        let last = positions.last().unwrap();
        assert!(last["over"].is_string(), "the match games are finished");
        assert!(positions[..positions.len() - 1]
            .iter()
            .all(|p| p["expected"].is_number() && p["depth"].is_number()));
        for m in moves {
            let class = &m["class"];
            assert!(
                class.is_null()
                    || ["inaccuracy", "mistake", "blunder"].contains(&class.as_str().unwrap()),
                "{m}"
            );
            // A class comes with the better move and its line.
            if !class.is_null() {
                assert_eq!(m["line"][0], m["best"], "{m}");
                assert_ne!(m["best"], m["move"], "{m}");
            }
        }
        // The weak engine lost every game: it made the decisive mistake.
        let decisive = &review["decisive"];
        if !decisive.is_null() {
            let loser = if review["result"] == "1-0" {
                "p2"
            } else {
                "p1"
            };
            assert_eq!(decisive["side"], loser, "{review}");
        }
        assert!(review["accuracy"]["p1"].is_number() && review["accuracy"]["p2"].is_number());
    }
    // One line per game on standard error, with the accuracy of each side.
    assert_eq!(
        err.lines().filter(|l| l.starts_with("game ")).count(),
        games.len(),
        "{err}"
    );
}

#[test]
fn the_annotated_pgn_reads_back_and_replays_to_the_same_positions() {
    let dir = temp_dir("analyse-pgn");
    for name in ["match.pgn", "board.pgn"] {
        let out = dir.join(format!("reviewed-{name}"));
        let (code, stdout, err) = stackfish(&[
            "analyse",
            records(name).to_str().unwrap(),
            "--nodes",
            "3000",
            "-o",
            out.to_str().unwrap(),
        ]);
        assert_eq!(code, Some(0), "{err}");
        assert!(stdout.is_empty(), "the games go to the file: {stdout}");
        let original = replayed(&records(name));
        let back = replayed(&out);
        assert_eq!(back.len(), original.len());
        for (a, b) in original.iter().zip(&back) {
            assert_eq!(a.fens, b.fens, "{name}");
            assert_eq!(a.result, b.result, "{name}");
        }
        // Every move has its position's evaluation; glyphs are ?!, ?, ??
        // only, each with a comment saying what it cost.
        let text = std::fs::read_to_string(&out).unwrap();
        for item in RecordReader::new(text.as_bytes()) {
            let game = item.parse().unwrap();
            for (i, note) in game.notes.iter().enumerate() {
                let over = i + 1 == game.notes.len() && game.record.result != "*";
                assert!(
                    over || note
                        .comments
                        .first()
                        .is_some_and(|c| c.starts_with("[%eval ")),
                    "move {}: {note:?}",
                    i + 1
                );
                for nag in &note.nags {
                    assert!([2, 4, 6].contains(nag), "{nag}");
                    assert!(note.comments[0].contains("expected score"), "{note:?}");
                }
                for line in &note.variations {
                    assert!(!line.is_empty());
                }
            }
            assert!(game.tags.iter().any(|(k, _)| k == "Player1Accuracy"));
        }
        // Nothing else was left in the folder.
        let left: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(|e| e.ok())
            .map(|e| e.file_name())
            .collect();
        assert!(
            left.iter()
                .all(|n| n.to_string_lossy().starts_with("reviewed-")),
            "{left:?}"
        );
    }
}

#[test]
fn the_engines_own_moves_at_four_times_the_budget_are_no_blunders() {
    // Self-play of the engine at 400000 nodes a move, one game per game
    // (tests/records/README.md), reviewed at 100000.
    let path = records("best-moves.jsonl");
    let (code, out, err) = stackfish(&[
        "analyse",
        path.to_str().unwrap(),
        "--nodes",
        "100000",
        "--json",
    ]);
    assert_eq!(code, Some(0), "{err}");
    let reviews: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(reviews.len(), 6);
    for review in &reviews {
        let blunders: Vec<&Value> = review["moves"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["class"] == "blunder")
            .collect();
        assert!(blunders.is_empty(), "{}: {blunders:?}", review["variant"]);
    }
}

/// A "save 2" position of the tactics suite (proven by exact search): the
/// side to move must play c2e2; 2c2e2 instead lets player 1 win at once
/// with 4e2e1.
const SAVE: &str = "x,2212,x,1,x/x,21,x3/x5/x2,2121,x,22/x,12,x2,1 2 13,11 0,0 1 e1e2";

#[test]
fn a_move_that_allows_a_win_in_one_is_a_blunder_with_the_defence_as_better_move() {
    let (code, out, err) =
        stackfish(&["analyse", "--fen", SAVE, "--moves", "2c2e2 4e2e1", "--json"]);
    assert_eq!(code, Some(0), "{err}");
    let review: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(review["result"], "1-0");
    assert_eq!(review["moves"][0]["class"], "blunder");
    assert_eq!(review["moves"][0]["best"], "c2e2");
    assert_eq!(review["decisive"]["ply"], 1);
    assert_eq!(review["decisive"]["fen"], SAVE);
    // The same in PGN: the glyph $4 and the defence as a variation.
    let (code, pgn, _) = stackfish(&["analyse", "--fen", SAVE, "--moves", "2c2e2 4e2e1"]);
    assert_eq!(code, Some(0));
    let game = parse_pgn(&pgn).unwrap();
    assert_eq!(game.notes[0].nags, [4]);
    assert_eq!(game.notes[0].variations[0][0], "c2e2");
}

/// The exact value of a Silo position for the side to move, by the old
/// solver (`stackfish solve`): 1 a win, 0 a draw, -1 a loss.
fn exact_value(fen: &str) -> i32 {
    let (code, out, err) = stackfish(&["solve", "--game", "silo", "--fen", fen]);
    assert_eq!(code, Some(0), "{err}");
    let value = out
        .lines()
        .find_map(|l| l.strip_prefix("Value: "))
        .unwrap_or_else(|| panic!("no value: {out}"));
    match value.split_whitespace().next() {
        Some("win") => 1,
        Some("loss") => -1,
        _ => 0,
    }
}

#[test]
fn a_silo_game_with_tables_marks_exactly_the_moves_that_change_the_exact_value() {
    let dir = temp_dir("analyse-silo");
    let start = "11/22/11/22 1";
    let table = dir.join("silo-4x4.tbl");
    let (code, _, err) = stackfish(&["solve", "--fen", start, "--write", table.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{err}");
    // A game that throws its win away now and then: the first legal move,
    // then the last, in turn, to the end.
    let mut game = stackfish::game::variants::new_game("silo").unwrap();
    game.set_position(Some(start), &[]).unwrap();
    let mut moves = Vec::new();
    while !game.outcome().is_over() {
        let legal = game.legal_moves();
        let mv = if moves.len() % 3 == 1 {
            legal[legal.len() - 1].clone()
        } else {
            legal[0].clone()
        };
        moves.push(game.play_text(&mv).unwrap());
    }
    let replay = ReviewGame::from_moves(
        "silo",
        Some(start),
        &moves.iter().map(String::as_str).collect::<Vec<_>>(),
    )
    .unwrap();
    // The mover's exact value before each move and after it.
    let values: Vec<i32> = replay.fens[..moves.len()]
        .iter()
        .map(|f| exact_value(f))
        .collect();
    // After the last move, the result itself.
    let result = replay.result.expect("the game is over");
    let changed: Vec<bool> = (0..moves.len())
        .map(|i| {
            let after = match values.get(i + 1) {
                Some(v) => -v,
                None => match result.winner() {
                    Some(w) if w == replay.sides[i] => 1,
                    Some(_) => -1,
                    None => 0,
                },
            };
            after < values[i]
        })
        .collect();
    assert!(
        changed.iter().any(|&c| c),
        "the game changes the value somewhere"
    );
    assert!(
        changed.iter().zip(&values).any(|(&c, &v)| !c && v == 1),
        "and keeps a win somewhere"
    );
    let moves_arg = moves.join(" ");
    let (code, out, err) = stackfish(&[
        "analyse",
        "--game",
        "silo",
        "--fen",
        start,
        "--moves",
        &moves_arg,
        "--silo-tables",
        dir.to_str().unwrap(),
        "--nodes",
        "2000",
        "--json",
    ]);
    assert_eq!(code, Some(0), "{err}");
    let review: Value = serde_json::from_str(out.trim()).unwrap();
    let classes: Vec<Option<&str>> = review["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["class"].as_str())
        .collect();
    let want: Vec<Option<&str>> = changed.iter().map(|&c| c.then_some("blunder")).collect();
    assert_eq!(classes, want);
}

#[test]
fn bad_input_is_a_note_or_an_error_and_never_a_partial_file() {
    let dir = temp_dir("analyse-bad");
    let out = dir.join("out.pgn");
    let out_arg = out.to_str().unwrap();
    let run = |file: &Path, extra: &[&str]| {
        let mut args = vec![
            "analyse",
            file.to_str().unwrap(),
            "--nodes",
            "500",
            "-o",
            out_arg,
        ];
        args.extend_from_slice(extra);
        stackfish(&args)
    };
    // An empty file.
    let empty = dir.join("empty.jsonl");
    std::fs::write(&empty, "\n").unwrap();
    let (code, _, err) = run(&empty, &[]);
    assert_eq!(code, Some(2));
    assert!(err.contains("empty.jsonl: no game in it"), "{err}");
    assert!(!out.exists());
    // A line that is not a record, a game with an illegal move, a game
    // of another variant, one good game.
    let mixed = dir.join("mixed.jsonl");
    std::fs::write(
        &mixed,
        concat!(
            "{\"moves\": 3}\n",
            "{\"variant\":\"mixtour\",\"moves\":[{\"move\":\"c3\"},{\"move\":\"d4\"},{\"move\":\"c3\"},{\"move\":\"e5\"}]}\n",
            "{\"variant\":\"focus\",\"moves\":[]}\n",
            "{\"variant\":\"mixtour\",\"moves\":[{\"move\":\"c3\"}]}\n",
        ),
    )
    .unwrap();
    let (code, _, err) = run(&mixed, &["--game", "mixtour"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains("mixed.jsonl: game 1 (line 1): not a game record: invalid type"),
        "{err}"
    );
    assert!(
        err.contains("game 2 (line 2): ply 3: illegal move"),
        "{err}"
    );
    assert!(err.contains("reviewed up to it"), "{err}");
    assert!(
        err.contains("game 3 (line 3): the game is focus, not mixtour as named; skipped"),
        "{err}"
    );
    let back = replayed(&out);
    assert_eq!(
        back.iter().map(|g| g.moves.len()).collect::<Vec<_>>(),
        [2, 1]
    );
    // No game in the range, or none reviewable: an error, and the file
    // written before stays as it was.
    let before = std::fs::read(&out).unwrap();
    let (code, _, err) = run(&mixed, &["--games", "7..9"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("holds 4 games, none in --games 7..9"), "{err}");
    let (code, _, err) = run(&mixed, &["--games", "3", "--game", "mixtour"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("no game reviewed (1 skipped)"), "{err}");
    assert_eq!(std::fs::read(&out).unwrap(), before);
    // A move list with an illegal move: said, and the game reviewed up to it.
    let (code, json, err) = stackfish(&["analyse", "--moves", "c3 zz", "--nodes", "500", "--json"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("note: ply 2: malformed move"), "{err}");
    let review: Value = serde_json::from_str(json.trim()).unwrap();
    assert_eq!(review["stopped"]["ply"], 2);
    assert_eq!(review["moves"].as_array().unwrap().len(), 1);
    // A position string of another game, a file that is not there, no limit.
    let (code, _, err) = stackfish(&[
        "analyse",
        "--game",
        "silo",
        "--fen",
        "x5/x5/x5/x5/x5 1 20,20 0,0 1 -",
    ]);
    assert_eq!(code, Some(2));
    assert!(
        err.starts_with("error: start position \"x5/x5/x5/x5/x5 1 20,20 0,0 1 -\": "),
        "{err}"
    );
    let (code, _, err) = stackfish(&["analyse", "/nonexistent/games.pgn"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("cannot read /nonexistent/games.pgn"), "{err}");
    let (code, _, err) = stackfish(&["analyse", "--moves", "c3", "--nodes", "0"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("nodes must be at least 1"), "{err}");
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name())
        .collect();
    assert_eq!(left.len(), 3, "no temporary file left: {left:?}");
}

#[test]
fn a_file_is_read_only_up_to_the_last_game_asked_for() {
    use std::io::{Read, Write};
    use std::process::Stdio;
    // Standard input that never ends: the review of game 1 must not wait
    // for more.
    let mut child = Command::new(env!("CARGO_BIN_EXE_stackfish"))
        .args(["analyse", "-", "--games", "1", "--nodes", "500", "--json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("stackfish runs");
    let mut stdin = child.stdin.take().expect("stdin");
    writeln!(
        stdin,
        "{{\"moves\":[{{\"move\":\"c3\"}},{{\"move\":\"d4\"}}]}}"
    )
    .unwrap();
    stdin.flush().unwrap();
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > std::time::Duration::from_secs(120) {
            let _ = child.kill();
            panic!("analyse waited for the rest of an endless input");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    drop(stdin);
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    assert!(status.success());
    let review: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(review["moves"].as_array().unwrap().len(), 2);
}
