//! The script's engine natively: the same moves as the engine behind the
//! protocol loop, the same bench count, levels kept in range.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use serde_json::{json, Value};
use stackfish_engine::levels::{level_play, LevelPlay};
use stackfish_engine::{bench_suite, new_session, BestMove, Engine, GoParams, Host, BENCH};
use stackfish_search::Shared;

use super::{bench_mixtour, node_limit, strength, Script, MAX_LEVEL, NODE_CAP};

// The app's turn written out, shared with the interface's own tests.
#[path = "../../sac/src/cpu/testing.rs"]
mod testing;
use testing::{at, request};

/// The move the engine of `stackfish` (the protocol loop's `Engine`) plays
/// at `level` from `fen` with `searchmoves`, after a new game.
fn native_move(fen: &str, level: u8, nodes: u64, search_moves: &[&str]) -> String {
    let mut engine = Engine::new(Host::default());
    engine
        .set_option("Level", Some(&level.to_string()))
        .expect("Level is an option");
    engine.new_game();
    engine
        .set_position(Some(fen), &[])
        .expect("a legal position");
    engine.shared().arm();
    let params = GoParams {
        nodes: Some(nodes),
        search_moves: search_moves.iter().map(|s| s.to_string()).collect(),
        ..GoParams::default()
    };
    match engine.go(&params, &mut |_| {}) {
        BestMove::Move { best, .. } => best,
        BestMove::GameOver(r) => panic!("no move: {r}"),
    }
}

/// A position on the 5 x 5 board written as the app pads it, and every
/// legal move of ours as the app lists it, with their texts.
struct AppTurn {
    request: String,
    moves: Vec<(String, [i64; 3])>,
}

fn square(cols: usize, rows: usize, text: &str) -> i64 {
    let file = (text.as_bytes()[0] - b'a') as usize;
    let rank: usize = text[1..].parse().unwrap();
    at(cols, rows - rank, file)
}

/// The app's view of a position (no last move): its padded board, and
/// `moves` (ours) as the app lists them.
fn app_turn(grid: &[&[&str]], towers: [u8; 2], stones: [u8; 2], id: u8, moves: &[&str]) -> AppTurn {
    let (rows, cols) = (grid.len(), grid[0].len());
    let app_moves: Vec<(String, [i64; 3])> = moves
        .iter()
        .map(|m| {
            let text = m.to_string();
            let (count, rest) = match m.as_bytes()[0] {
                b'2'..=b'4' => ((m.as_bytes()[0] - b'0') as i64, &m[1..]),
                _ => (1, &m[..]),
            };
            // A square is a letter and 1 or 2 digits.
            let split = rest[1..]
                .find(|c: char| c.is_ascii_alphabetic())
                .map(|i| i + 1);
            let mv = match split {
                None => [-1, 1, square(cols, rows, rest)],
                Some(i) => [
                    square(cols, rows, &rest[..i]),
                    count,
                    square(cols, rows, &rest[i..]),
                ],
            };
            (text, mv)
        })
        .collect();
    let legal: Vec<[i64; 3]> = app_moves.iter().map(|(_, m)| *m).collect();
    let request = request(grid, id, stones, towers, json!([]), &legal);
    AppTurn {
        request,
        moves: app_moves,
    }
}

/// Every legal move of `fen` in our notation.
fn our_moves(fen: &str) -> Vec<String> {
    let mut game = stackfish_games::variants::new_game("mixtour").unwrap();
    game.set_fen(fen).unwrap();
    game.legal_moves()
}

fn played(script: &mut Script, turn: &AppTurn) -> String {
    let reply: Value = serde_json::from_str(&script.turn(&turn.request)).unwrap();
    let mv: [i64; 3] = serde_json::from_value(reply["move"].clone()).expect("a move");
    turn.moves
        .iter()
        .find(|(_, m)| *m == mv)
        .map(|(t, _)| t.clone())
        .unwrap_or_else(|| panic!("{mv:?} is not one of the app's moves: {reply}"))
}

#[test]
fn the_script_plays_what_the_native_engine_plays_at_its_level() {
    let fen = "x5/x,2,x3/x2,1,x2/x3,1,x/x5 2 18,19 0,0 1 -";
    let grid: [&[&str]; 5] = [
        &["", "", "", "", ""],
        &["", "2", "", "", ""],
        &["", "", "1", "", ""],
        &["", "", "", "1", ""],
        &["", "", "", "", ""],
    ];
    let all = our_moves(fen);
    let all: Vec<&str> = all.iter().map(String::as_str).collect();
    for level in [6, 14] {
        let turn = app_turn(&grid, [1, 1], [18, 19], 2, &all);
        let mut script = Script::new(level);
        assert_eq!(
            played(&mut script, &turn),
            native_move(fen, level, NODE_CAP, &all),
            "level {level}"
        );
        // The root limited to a few moves: still the native choice among them.
        let few = [all[3], all[7], all[11]];
        let turn = app_turn(&grid, [1, 1], [18, 19], 2, &few);
        let mine = played(&mut script, &turn);
        assert!(few.contains(&mine.as_str()));
        assert_eq!(
            mine,
            native_move(fen, level, NODE_CAP, &few),
            "level {level}, searchmoves"
        );
    }
}

#[test]
fn the_script_plays_shaped_boards_as_the_native_engine() {
    let fen = "#,x3,#/x,1,x3/x2,2,x2/x5/#,x3,# 1 19,19 0,0 1 -";
    let grid: [&[&str]; 5] = [
        &["#", "", "", "", "#"],
        &["", "1", "", "", ""],
        &["", "", "2", "", ""],
        &["", "", "", "", ""],
        &["#", "", "", "", "#"],
    ];
    let all = our_moves(fen);
    let all: Vec<&str> = all.iter().map(String::as_str).collect();
    let turn = app_turn(&grid, [1, 1], [19, 19], 1, &all);
    // A third of level 10's budget on this board.
    let Some(LevelPlay::Nodes(budget)) = level_play(10) else {
        panic!("level 10 is a node budget")
    };
    assert_eq!(node_limit(10, false), budget / 3);
    assert_eq!(
        played(&mut Script::new(10), &turn),
        native_move(fen, 10, budget / 3, &all)
    );
}

#[test]
fn the_script_takes_a_tower_that_wins() {
    // The whole 3-stack on d4 onto the 2-stack on b4, two cells away: a
    // tower of 5 with player 1 on top, the one tower needed (d4b4 with
    // one piece builds nothing).
    let fen = "x5/x,12,x,221,x/x5/x5/x5 1 15,17 0,0 1 -";
    let grid: [&[&str]; 5] = [
        &["", "", "", "", ""],
        &["", "12", "", "221", ""],
        &["", "", "", "", ""],
        &["", "", "", "", ""],
        &["", "", "", "", ""],
    ];
    let all = our_moves(fen);
    assert!(all.contains(&"d4b4".to_string()) && all.contains(&"3d4b4".to_string()));
    let all: Vec<&str> = all.iter().map(String::as_str).collect();
    let turn = app_turn(&grid, [1, 1], [15, 17], 1, &all);
    assert_eq!(played(&mut Script::new(6), &turn), "3d4b4");
}

#[test]
fn the_mixtour_bench_counts_the_native_nodes() {
    let shared = Arc::new(Shared::new(stackfish_engine::BENCH_HASH_MB));
    let never = AtomicBool::new(false);
    let native = bench_suite(
        &BENCH[0],
        None,
        &shared,
        &never,
        &|| new_session("mixtour"),
        &mut |_| {},
    )
    .expect("not stopped");
    let mut lines = Vec::new();
    let nodes = bench_mixtour(None, &mut |l| lines.push(l.to_string()));
    assert_eq!(nodes, native);
    assert_eq!(
        lines.last().map(String::as_str),
        Some(format!("info string bench mixtour depth 7: {native} nodes").as_str())
    );
}

#[test]
fn levels_stay_where_a_search_ends_by_nodes() {
    assert_eq!(Script::new(20).level(), MAX_LEVEL);
    assert_eq!(Script::new(0).level(), 1);
    // The default file's level, as docs/stackandconquer.md gives it.
    assert!(
        strength(16).contains("level 16 of 20, 22484 nodes a move (7494 on other boards"),
        "{}",
        strength(16)
    );
    assert!(strength(2).contains("noise 200"), "{}", strength(2));
    assert!(strength(20).contains("level 19"), "{}", strength(20));
}
