//! The board's review of a whole line behind its search seam: the
//! positions ordered last first at the budget asked for, the state's
//! progress, the evaluations and marks it fills, its cancel, and what
//! drops it.

mod common;

use std::sync::Arc;

use common::{board, call, state, FakeHost};
use serde_json::{json, Value};
use stackfish_board::{App, Finish, JobLimit, Report, SearchOrder};
use stackfish_engine::protocol::Score;

/// A game of three moves by two humans, each the first legal move; with
/// the legal moves of each position before them.
fn three_moves() -> (Arc<App>, FakeHost, Vec<String>, Vec<Vec<String>>) {
    let (app, host) = board();
    let (status, _) = call(&app, "POST", "/api/new", r#"{"engine":"none"}"#);
    assert_eq!(status, 200);
    let (mut moves, mut legal) = (Vec::new(), Vec::new());
    for _ in 0..3 {
        let all: Vec<String> = state(&app)["legal_moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap().to_string())
            .collect();
        let mv = all[0].clone();
        let (status, _) = call(&app, "POST", "/api/move", &format!(r#"{{"move":"{mv}"}}"#));
        assert_eq!(status, 200);
        moves.push(mv);
        legal.push(all);
    }
    (app, host, moves, legal)
}

/// The engine answers `order` with `score` (from the side to move) and
/// the line `pv`.
fn answer(app: &Arc<App>, order: &SearchOrder, score: Score, pv: &[&str]) {
    app.report(
        order.search,
        Report {
            multipv: 1,
            depth: 7,
            score,
            nodes: 2_000,
            time_ms: 5,
            pv: pv.iter().map(|m| m.to_string()).collect(),
        },
    );
    app.finish(
        order.search,
        Ok(Finish::Move {
            mv: pv.first().map_or("x", |m| m).to_string(),
        }),
    );
}

#[test]
fn a_review_searches_every_position_last_first_and_marks_the_blunder() {
    let (app, host, moves, legal) = three_moves();
    let (status, s) = call(&app, "POST", "/api/review/start", r#"{"nodes":2000}"#);
    assert_eq!(status, 200, "{s}");
    assert_eq!(s["review"]["state"], "running");
    assert_eq!(
        (s["review"]["done"].clone(), s["review"]["total"].clone()),
        (json!(0), json!(4))
    );
    let first = host.last_order();
    assert_eq!(first.slot, 2, "the analysis's engine");
    assert_eq!(first.job.limit, JobLimit::Nodes { nodes: 2000 });
    assert!(
        first.job.fresh,
        "the review's first search starts a new game"
    );
    assert_eq!(first.job.moves, moves, "the last position first");
    // Player 2 to move after three moves, lost by force.
    answer(&app, &first, Score::Mate(-2), &[]);
    let second = host.last_order();
    assert!(!second.job.fresh, "the table carries the end back");
    assert_eq!(second.job.moves, moves[..2]);
    let s = state(&app);
    assert_eq!(
        (s["review"]["done"].clone(), s["review"]["state"].clone()),
        (json!(1), json!("running"))
    );
    // After two moves, player 1 to move wins by force: player 2's second
    // move threw the game away...
    answer(&app, &second, Score::Mate(3), &[&legal[2][1]]);
    let third = host.last_order();
    assert_eq!(third.job.moves, moves[..1]);
    // ...where the engine would have played another, level.
    let better = legal[1][1].as_str();
    answer(&app, &third, Score::Cp(0), &[better, &legal[2][0]]);
    let fourth = host.last_order();
    assert!(fourth.job.moves.is_empty());
    answer(&app, &fourth, Score::Cp(0), &[&moves[0]]);
    assert_eq!(host.orders(), 4, "nothing searched after the last position");

    let s = state(&app);
    let review = &s["review"];
    assert_eq!(review["state"], "done", "{review}");
    assert_eq!(review["done"], 4);
    // The graph has every position, from player 1's side.
    assert_eq!(s["evals"][0]["cp"], 0);
    assert_eq!(s["evals"][1]["cp"], 0);
    assert_eq!(s["evals"][2]["mate"], 3);
    assert_eq!(s["evals"][3]["mate"], 2);
    // Only player 2's first move is marked, with the better move and line.
    assert_eq!(s["marks"], json!([null, "blunder", null]));
    assert_eq!(review["moves"][1]["class"], "blunder");
    assert_eq!(review["moves"][1]["best"], better);
    assert_eq!(review["moves"][1]["line"][0], better);
    assert_eq!(review["counts"]["p2"]["blunder"], 1);
    assert_eq!(review["counts"]["p1"]["blunder"], 0);
    // Player 1 lost nothing and is the more accurate.
    let (a1, a2) = (
        review["accuracy"]["p1"].as_f64().unwrap(),
        review["accuracy"]["p2"].as_f64().unwrap(),
    );
    assert!(a1 > a2, "{a1} {a2}");
    // The whole review as JSON and as annotated PGN.
    let (status, full) = call(&app, "GET", "/api/review", "");
    assert_eq!(status, 200);
    assert_eq!(full["positions"].as_array().unwrap().len(), 4);
    let pgn = app.call("GET", "/api/review/pgn", b"");
    assert_eq!(pgn.status, 200);
    assert!(pgn.body.contains("$4"), "the blunder's NAG: {}", pgn.body);
    assert!(
        pgn.body.contains(&format!("Better: {better}.")),
        "{}",
        pgn.body
    );
}

#[test]
fn a_cancelled_review_keeps_what_it_searched_and_drops_what_comes_late() {
    let (app, host, moves, _) = three_moves();
    call(&app, "POST", "/api/review/start", "");
    let first = host.last_order();
    assert_eq!(
        first.job.limit,
        JobLimit::Nodes {
            nodes: stackfish_board::DEFAULT_REVIEW_NODES
        }
    );
    answer(&app, &first, Score::Cp(40), &[]);
    let second = host.last_order();
    let (status, s) = call(&app, "POST", "/api/review/stop", "");
    assert_eq!(status, 200);
    assert!(host.stops().contains(&second.search));
    assert_eq!(s["review"]["state"], "cancelled");
    assert_eq!(s["review"]["done"], 1);
    // The search's late answer changes nothing.
    answer(&app, &second, Score::Cp(-300), &[]);
    let s = state(&app);
    assert_eq!(s["review"]["done"], 1);
    assert_eq!(s["evals"][3]["cp"], -40, "player 2 to move: +40 for them");
    assert_eq!(s["evals"][2], Value::Null);
    assert_eq!(host.orders(), 2);
    let (status, body) = call(&app, "POST", "/api/review/stop", "");
    assert_eq!(status, 409);
    assert_eq!(body["error"], "no review is running");
    let (status, body) = call(&app, "GET", "/api/review/pgn", "");
    assert_eq!(status, 409);
    assert!(
        body["error"].as_str().unwrap().contains("cancelled"),
        "{body}"
    );
    // A new review starts over.
    call(&app, "POST", "/api/review/start", r#"{"nodes":1000}"#);
    let again = host.last_order();
    assert!(again.job.fresh);
    assert_eq!(again.job.moves, moves);
    assert_eq!(state(&app)["review"]["done"], 0);
}

#[test]
fn stepping_through_the_line_keeps_the_review_and_a_new_move_drops_it() {
    let (app, host, moves, legal) = three_moves();
    call(&app, "POST", "/api/review/start", r#"{"nodes":1000}"#);
    let first = host.last_order();
    let (status, _) = call(&app, "POST", "/api/goto", r#"{"ply":1}"#);
    assert_eq!(status, 200);
    assert!(host.stops().is_empty(), "the review's search goes on");
    answer(&app, &first, Score::Cp(0), &[]);
    let second = host.last_order();
    assert_eq!(second.job.moves, moves[..2], "the line's, not the cursor's");
    let s = state(&app);
    assert_eq!(s["review"]["state"], "running");
    assert_eq!(s["review"]["done"], 1);
    // Another move than the line's after ply 1 is a new line.
    let other = &legal[1][1];
    let (status, s) = call(
        &app,
        "POST",
        "/api/move",
        &format!(r#"{{"move":"{other}"}}"#),
    );
    assert_eq!(status, 200);
    assert!(host.stops().contains(&second.search));
    assert_eq!(s["review"]["state"], "outdated");
    assert_eq!(s["review"]["moves"], json!([]));
    assert_eq!(s["marks"], json!([null, null]));
    let (status, _) = call(&app, "GET", "/api/review", "");
    assert_eq!(status, 409);
    // Another game has no review at all.
    call(&app, "POST", "/api/new", "");
    assert_eq!(state(&app)["review"], Value::Null);
}

#[test]
fn a_review_is_refused_clearly() {
    let (app, _) = board();
    call(&app, "POST", "/api/new", r#"{"engine":"none"}"#);
    let (status, body) = call(&app, "POST", "/api/review/start", "");
    assert_eq!(status, 409);
    assert_eq!(
        body["error"],
        "there is no move to review: play or load a game first"
    );
    let (app, host, _, _) = three_moves();
    for (budget, status) in [(999, 400), (10_000_001, 400)] {
        let (got, body) = call(
            &app,
            "POST",
            "/api/review/start",
            &format!(r#"{{"nodes":{budget}}}"#),
        );
        assert_eq!(got, status, "{body}");
        assert_eq!(
            body["error"],
            format!("nodes must be 1000 to 10000000, not {budget}")
        );
    }
    let (status, body) = call(&app, "POST", "/api/review/start", r#"{"engine":"nobody"}"#);
    assert_eq!(status, 400, "{body}");
    assert_eq!(host.orders(), 0);
    // The engine thinking on a player's move keeps the engine.
    call(&app, "POST", "/api/go", "");
    let (status, body) = call(&app, "POST", "/api/review/start", "");
    assert_eq!(status, 409);
    assert!(body["error"]
        .as_str()
        .unwrap()
        .starts_with("the engine is thinking"));
}

#[test]
fn a_loaded_record_is_shown_up_to_its_bad_move_and_reviewed_with_its_header() {
    let (app, host) = board();
    let (_, s) = call(&app, "GET", "/api/state", "");
    let first = s["legal_moves"][0].as_str().unwrap().to_string();
    let pgn = format!(
        "[Event \"club night\"]\n[White \"Ann\"]\n[Black \"Bob\"]\n[Variant \"mixtour\"]\n[Result \"1-0\"]\n\n1. {first} z9 1-0\n"
    );
    let body = json!({ "text": pgn, "name": "night.pgn" }).to_string();
    let (status, s) = call(&app, "POST", "/api/load", &body);
    assert_eq!(status, 200, "{s}");
    assert_eq!(s["moves"], json!([first]));
    assert_eq!(s["loaded"]["name"], "night.pgn");
    assert_eq!(s["loaded"]["stopped"]["ply"], 2);
    assert_eq!(s["loaded"]["stopped"]["move"], "z9");
    call(&app, "POST", "/api/review/start", r#"{"nodes":1000}"#);
    let order = host.last_order();
    answer(&app, &order, Score::Cp(0), &[]);
    let order = host.last_order();
    answer(&app, &order, Score::Cp(0), &[&first]);
    let s = state(&app);
    assert_eq!(s["review"]["state"], "done");
    assert_eq!(s["review"]["stopped"]["move"], "z9");
    let pgn = app.call("GET", "/api/review/pgn", b"").body;
    assert!(pgn.contains("[Player1 \"Ann\"]"), "{pgn}");
    // A record that is not one says so and leaves the board as it was.
    let body = json!({ "text": "no game here", "name": "x.pgn" }).to_string();
    let (status, err) = call(&app, "POST", "/api/load", &body);
    assert_eq!(status, 422, "{err}");
    assert!(
        err["error"].as_str().unwrap().starts_with("x.pgn: "),
        "{err}"
    );
    assert_eq!(state(&app)["moves"], json!([first]));
}
