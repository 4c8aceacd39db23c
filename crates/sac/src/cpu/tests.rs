//! A turn read from the app's getters, the moves mapped both ways, and the
//! simple rule, on boards written out as the app pads them.

use serde_json::{json, Value};

use super::testing::{at, padded, request};
use super::{AppMove, Cpu, Reply, Search, Searched};

/// Plays a turn with a fake engine that answers `answer` (or the first
/// search move), and returns what it was asked and the reply.
fn turn_with(cpu: &mut Cpu, request: &str, answer: Option<&str>) -> (Option<Search>, Reply) {
    let mut asked = None;
    let reply = cpu.turn(request, &mut |ask| {
        asked = Some(ask.clone());
        Ok(Searched {
            best: answer.map_or_else(|| ask.search_moves[0].clone(), str::to_string),
            detail: "test".into(),
        })
    });
    (asked, reply)
}

const EMPTY5: [&[&str]; 5] = [&["", "", "", "", ""]; 5];

#[test]
fn placements_map_to_squares_counted_from_the_bottom() {
    let legal = [
        [-1, 1, at(5, 0, 0)],
        [-1, 1, at(5, 4, 4)],
        [-1, 1, at(5, 2, 1)],
    ];
    let req = request(&EMPTY5, 1, [20, 20], [1, 1], json!([]), &legal);
    let (asked, reply) = turn_with(&mut Cpu::default(), &req, Some("e1"));
    let asked = asked.expect("the engine is asked");
    assert_eq!(asked.fen, "x5/x5/x5/x5/x5 1 20,20 0,0 1 -");
    assert_eq!(asked.search_moves, ["a5", "e1", "b3"]);
    assert!(asked.standard);
    assert_eq!(reply.mv, Some([-1, 1, 144]));
    assert_eq!(reply.log.len(), 1, "{:?}", reply.log);
    assert!(
        reply.log[0].starts_with("stackfish: e1 = [-1, 1, 144]"),
        "{:?}",
        reply.log
    );
}

#[test]
fn tower_moves_map_with_their_count_and_back() {
    // Player 2 to move; a stack of three on b2 (row 3, column 1 from the
    // top), two on b4 and on d2: b2 reaches b4 (two away), b4 reaches d2.
    let grid: [&[&str]; 5] = [
        &["", "", "", "", ""],
        &["", "12", "", "", ""],
        &["", "", "", "", ""],
        &["", "212", "", "22", ""],
        &["", "", "", "", ""],
    ];
    let legal = [
        [at(5, 3, 1), 2, at(5, 1, 1)],
        [at(5, 1, 1), 1, at(5, 3, 3)],
        [-1, 1, at(5, 0, 0)],
    ];
    let req = request(&grid, 2, [17, 18], [1, 1], json!([]), &legal);
    let (asked, reply) = turn_with(&mut Cpu::default(), &req, Some("b4d2"));
    let asked = asked.unwrap();
    assert_eq!(asked.fen, "x5/x,12,x3/x5/x,212,x,22,x/x5 2 17,18 0,0 1 -");
    assert_eq!(asked.search_moves, ["2b2b4", "b4d2", "a5"]);
    assert_eq!(reply.mv, Some(legal[1]));
}

#[test]
fn after_a_pass_the_take_back_stays_forbidden() {
    // Player 1 moved c3 onto c4 (count 1); player 2 had no move and passed.
    // The app keeps the last move, so c4 back to c3 stays forbidden for
    // player 1: the engine gets it as the position's last move (our rules
    // then forbid its take-back too) and never as a candidate.
    let grid: [&[&str]; 5] = [
        &["", "", "", "", ""],
        &["", "", "21", "", ""],
        &["", "", "1", "", ""],
        &["", "", "", "", ""],
        &["", "", "", "", ""],
    ];
    let c4 = at(5, 1, 2);
    let c3 = at(5, 2, 2);
    let last = json!([c3, 1, c4]);
    // c4 to c3 with one piece is the take-back; with two it is allowed.
    let legal = [[-1, 1, at(5, 0, 0)], [c4, 2, c3]];
    let req = request(&grid, 1, [10, 0], [1, 1], last, &legal);
    let (asked, reply) = turn_with(&mut Cpu::default(), &req, None);
    let asked = asked.unwrap();
    assert!(asked.fen.ends_with(" 1 10,0 0,0 1 c3c4"), "{}", asked.fen);
    assert!(!asked.search_moves.contains(&"c4c3".to_string()));
    assert_eq!(asked.search_moves, ["a5", "2c4c3"]);
    assert_eq!(reply.mv, Some([-1, 1, at(5, 0, 0)]));
}

#[test]
fn the_goal_is_the_larger_need_and_the_other_player_has_scored_the_difference() {
    let legal = [[-1, 1, at(5, 0, 0)]];
    let req = request(&EMPTY5, 1, [20, 20], [1, 2], json!([]), &legal);
    let (asked, _) = turn_with(&mut Cpu::default(), &req, None);
    assert_eq!(asked.unwrap().fen, "x5/x5/x5/x5/x5 1 20,20 1,0 2 -");
    let req = request(&EMPTY5, 2, [20, 20], [3, 3], json!([]), &legal);
    let (asked, _) = turn_with(&mut Cpu::default(), &req, None);
    assert_eq!(asked.unwrap().fen, "x5/x5/x5/x5/x5 2 20,20 0,0 3 -");
}

#[test]
fn a_shaped_board_keeps_its_holes() {
    let grid: [&[&str]; 3] = [&["#", "", "#"], &["", "1", ""], &["#", "", "#"]];
    let legal = [[-1, 1, at(3, 0, 1)]];
    let req = request(&grid, 2, [19, 20], [1, 1], json!([]), &legal);
    let (asked, reply) = turn_with(&mut Cpu::default(), &req, None);
    let asked = asked.unwrap();
    assert_eq!(asked.fen, "#,x,#/x,1,x/#,x,# 2 19,20 0,0 1 -");
    assert!(!asked.standard);
    assert_eq!(reply.mv, Some(legal[0]));
}

#[test]
fn an_app_move_our_rules_refuse_is_left_out_and_said_once() {
    // A "tower move" onto an empty cell is no move in our rules.
    let legal = [[at(5, 0, 0), 1, at(5, 0, 1)], [-1, 1, at(5, 2, 2)]];
    let mut cpu = Cpu::default();
    for _ in 0..2 {
        let req = request(&EMPTY5, 1, [20, 20], [1, 1], json!([]), &legal);
        let (asked, reply) = turn_with(&mut cpu, &req, None);
        assert_eq!(asked.unwrap().search_moves, ["c3"]);
        assert_eq!(reply.mv, Some(legal[1]));
    }
}

/// A request of three players on the standard board.
fn three_players(grid: &[&[&str]], id: u8, legal: &[AppMove]) -> String {
    json!({
        "board": serde_json::to_string(&padded(grid)).unwrap(),
        "id": id, "players": 3, "height": 5, "towers": [1, 1, 1], "stones": [15, 15, 15],
        "last": [], "legal": serde_json::to_string(legal).unwrap(), "columns": 5, "rows": 5,
    })
    .to_string()
}

#[test]
fn three_players_take_the_simple_rule_and_say_so_once() {
    let legal = [[-1, 1, at(5, 0, 0)], [-1, 1, at(5, 1, 1)]];
    let mut cpu = Cpu::default();
    let mut said = 0;
    for _ in 0..3 {
        let mut asked = false;
        let reply = cpu.turn(&three_players(&EMPTY5, 3, &legal), &mut |_| {
            asked = true;
            Err("not asked".into())
        });
        assert!(!asked, "the engine plays two players only");
        assert_eq!(reply.mv, Some(legal[0]));
        said += reply.log.iter().filter(|l| l.contains("3 players")).count();
    }
    assert_eq!(said, 1);
}

#[test]
fn the_simple_rule_takes_a_win_at_once() {
    // Player 3 can move its 3 onto the 2-stack two cells away: 5 high, its
    // own tower, and it needs one.
    let grid: [&[&str]; 5] = [
        &["", "", "", "", ""],
        &["123", "", "12", "", ""],
        &["", "", "", "", ""],
        &["", "", "", "", ""],
        &["", "", "", "", ""],
    ];
    let win = [at(5, 1, 0), 3, at(5, 1, 2)];
    let legal = [[-1, 1, at(5, 0, 0)], [at(5, 1, 0), 1, at(5, 1, 2)], win];
    let reply = Cpu::default().turn(&three_players(&grid, 3, &legal), &mut |_| Err("no".into()));
    assert_eq!(reply.mv, Some(win));
}

#[test]
fn the_simple_rule_leaves_the_next_player_no_tower() {
    // Player 1 to move, player 2 next. Placing on b5 next to player 2's
    // 4-stack on c5 would let player 2 move the 4 onto it... no: onto a
    // 1-stack one cell away: 4 + 1 = 5, player 2's tower. Placing on e1,
    // far away, leaves player 2 nothing.
    let grid: [&[&str]; 5] = [
        &["", "", "1112", "", ""],
        &["", "", "", "", ""],
        &["", "", "", "", ""],
        &["", "", "", "", ""],
        &["", "", "", "", ""],
    ];
    let unsafe_first = [-1, 1, at(5, 0, 1)];
    let safe = [-1, 1, at(5, 4, 4)];
    let legal = [unsafe_first, safe];
    let req = json!({
        "board": serde_json::to_string(&padded(&grid)).unwrap(),
        "id": 1, "players": 3, "height": 5, "towers": [1, 1, 1], "stones": [15, 15, 15],
        "last": [], "legal": serde_json::to_string(&legal).unwrap(), "columns": 5, "rows": 5,
    });
    // Three players: player 2 is next after 1.
    let reply = Cpu::default().turn(&req.to_string(), &mut |_| Err("no".into()));
    assert_eq!(reply.mv, Some(safe));
    // With every move unsafe, the first.
    let legal = [unsafe_first, [-1, 1, at(5, 1, 2)]];
    let mut req = req;
    req["legal"] = json!(serde_json::to_string(&legal).unwrap());
    let reply = Cpu::default().turn(&req.to_string(), &mut |_| Err("no".into()));
    assert_eq!(reply.mv, Some(unsafe_first));
}

#[test]
fn a_board_past_ten_by_ten_takes_the_simple_rule() {
    let row: &[&str] = &[""; 11];
    let grid = vec![row; 11];
    let legal = [[-1, 1, at(11, 0, 0)], [-1, 1, at(11, 10, 10)]];
    let req = request(&grid, 1, [20, 20], [1, 1], json!([]), &legal);
    let mut asked = false;
    let reply = Cpu::default().turn(&req, &mut |_| {
        asked = true;
        Err("no".into())
    });
    assert!(!asked);
    assert_eq!(reply.mv, Some(legal[0]));
    assert!(reply.log[0].contains("11 x 11"), "{:?}", reply.log);
}

#[test]
fn a_board_that_cannot_be_read_gives_the_first_legal_move_and_says_why() {
    let legal = [[-1, 1, at(5, 3, 3)], [-1, 1, at(5, 0, 0)]];
    let good = request(&EMPTY5, 1, [20, 20], [1, 1], json!([]), &legal);
    let bad_boards = [
        (json!("not json"), "not JSON"),
        (json!("[\"-\", \"-\"]"), "entries"),
        (json!(42), "not a list"),
    ];
    for (board, why) in bad_boards {
        let mut req: Value = serde_json::from_str(&good).unwrap();
        req["board"] = board;
        let reply = Cpu::default().turn(&req.to_string(), &mut |_| Err("no".into()));
        assert_eq!(reply.mv, Some(legal[0]));
        assert!(
            reply.log[0].contains("cannot read the board") && reply.log[0].contains(why),
            "{:?}",
            reply.log
        );
    }
    // A stack in the padding, a digit past the players, an unknown cell.
    let mut cells = padded(&EMPTY5);
    cells[0] = "1".into();
    let mut three = padded(&EMPTY5);
    three[at(5, 2, 2) as usize] = "13".into();
    let mut odd = padded(&EMPTY5);
    odd[at(5, 2, 2) as usize] = "x".into();
    for (cells, why) in [
        (cells, "padding"),
        (three, "players 1 to 2"),
        (odd, "\"x\""),
    ] {
        let mut req: Value = serde_json::from_str(&good).unwrap();
        req["board"] = json!(serde_json::to_string(&cells).unwrap());
        let reply = Cpu::default().turn(&req.to_string(), &mut |_| Err("no".into()));
        assert_eq!(reply.mv, Some(legal[0]));
        assert!(reply.log[0].contains(why), "{why}: {:?}", reply.log);
    }
}

#[test]
fn positions_our_rules_refuse_take_the_simple_rule() {
    let legal = [[-1, 1, at(5, 0, 0)]];
    // A stack of five (a hand-edited board), no tower needed, a third
    // player's number, a negative stone count.
    let mut five = padded(&EMPTY5);
    five[at(5, 2, 2) as usize] = "11111".into();
    let good: Value =
        serde_json::from_str(&request(&EMPTY5, 1, [20, 20], [1, 1], json!([]), &legal)).unwrap();
    let cases = [
        (
            "board",
            json!(serde_json::to_string(&five).unwrap()),
            "refuse",
        ),
        ("towers", json!([0, 1]), "towers still needed"),
        ("id", json!(3), "player to move"),
        ("stones", json!([-1, 20]), "stones in hand"),
        ("height", json!(4), "height 4"),
        ("rows", json!(4), "cannot read the board"),
    ];
    for (key, value, why) in cases {
        let mut req = good.clone();
        req[key] = value;
        let mut asked = false;
        let reply = Cpu::default().turn(&req.to_string(), &mut |_| {
            asked = true;
            Err("no".into())
        });
        assert!(!asked, "{key}");
        assert_eq!(reply.mv, Some(legal[0]), "{key}");
        assert!(reply.log[0].contains(why), "{key}: {:?}", reply.log);
    }
}

#[test]
fn an_unreadable_or_empty_legal_list_gives_no_move_and_says_so() {
    for (legal, why) in [
        (json!("nonsense"), "not JSON"),
        (json!("[[1, 2]]"), "not [from, count, to]"),
        (json!("[]"), "no legal move"),
        (Value::Null, "not a list"),
    ] {
        let mut req: Value =
            serde_json::from_str(&request(&EMPTY5, 1, [20, 20], [1, 1], json!([]), &[])).unwrap();
        req["legal"] = legal;
        let reply = Cpu::default().turn(&req.to_string(), &mut |_| Err("no".into()));
        assert_eq!(reply.mv, None);
        assert!(reply.log[0].contains(why), "{why}: {:?}", reply.log);
    }
    let reply = Cpu::default().turn("{\"board\": ", &mut |_| Err("no".into()));
    assert_eq!(reply.mv, None);
    assert!(reply.log[0].contains("not JSON"), "{:?}", reply.log);
}

#[test]
fn an_engine_that_fails_or_strays_leaves_the_turn_to_the_simple_rule() {
    let legal = [[-1, 1, at(5, 0, 0)], [-1, 1, at(5, 1, 1)]];
    let req = request(&EMPTY5, 1, [20, 20], [1, 1], json!([]), &legal);
    let (_, reply) = turn_with(&mut Cpu::default(), &req, Some("e1"));
    assert_eq!(reply.mv, Some(legal[0]));
    assert!(
        reply.log[0].contains("not one of the app's moves"),
        "{:?}",
        reply.log
    );
    let reply = Cpu::default().turn(&req, &mut |_| Err("out of memory".into()));
    assert_eq!(reply.mv, Some(legal[0]));
    assert!(reply.log[0].contains("out of memory"), "{:?}", reply.log);
}

#[test]
fn the_reply_is_json_for_the_shim() {
    let reply = Reply {
        mv: Some([-1, 1, 80]),
        log: vec!["a \"line\"".into()],
    };
    let v: Value = serde_json::from_str(&reply.to_json()).unwrap();
    assert_eq!(v, json!({"move": [-1, 1, 80], "log": ["a \"line\""]}));
    let none = Reply {
        mv: None,
        log: vec![],
    };
    assert_eq!(none.to_json(), "{\"log\":[],\"move\":null}");
}
