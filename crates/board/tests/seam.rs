//! The board behind its search seam, with a fake host: the tests see the
//! orders the board gives, feed reports and finishes by hand, and read the
//! state the page would.

mod common;

use std::sync::Arc;

use common::{board, call, legal, report, state, FakeHost, WALL_MS};
use serde_json::Value;
use stackfish_board::{App, Finish, JobLimit};

/// A new game with an engine for player 2 and player 1's first move: the
/// board has ordered player 2's search.
fn engine_to_answer() -> (Arc<App>, FakeHost, String) {
    let (app, host) = board();
    let (status, _) = call(
        &app,
        "POST",
        "/api/new",
        r#"{"engine":"p2","level":3,"movetime_ms":100}"#,
    );
    assert_eq!(status, 200);
    assert_eq!(host.orders(), 0, "player 1 is human: nothing searches");
    let first = legal(&app, 0);
    let (status, _) = call(
        &app,
        "POST",
        "/api/move",
        &format!(r#"{{"move":"{first}"}}"#),
    );
    assert_eq!(status, 200);
    (app, host, first)
}

#[test]
fn a_players_engine_move_is_played_when_its_finish_arrives() {
    let (app, host, first) = engine_to_answer();
    let order = host.last_order();
    assert_eq!(order.slot, 1, "player 2's engine");
    assert_eq!(order.job.moves, vec![first.clone()]);
    assert_eq!(
        order.job.limit,
        JobLimit::Move {
            movetime_ms: 100,
            depth: None
        }
    );
    assert_eq!(order.job.level, 3);
    assert_eq!(state(&app)["thinking"], true);
    let reply = legal(&app, 0);
    host.advance(42.0);
    app.report(order.search, report(6, 35, &reply));
    let s = state(&app);
    assert_eq!(s["reports"]["p2"]["lines"][0]["depth"], 6);
    // Player 2's +35 is player 1's -35; the line arrived at the host's wall time.
    assert_eq!(s["reports"]["p2"]["lines"][0]["cp"], -35);
    assert_eq!(s["reports"]["p2"]["lines"][0]["at_ms"], WALL_MS);
    app.finish(order.search, Ok(Finish::Move { mv: reply.clone() }));
    let s = state(&app);
    assert_eq!(s["moves"], serde_json::json!([first, reply]));
    assert_eq!(s["thinking"], false);
    assert_eq!(s["reports"]["p2"]["running"], false);
    // The engine's score of its move is its view of the position it led to.
    assert_eq!(s["evals"][2]["cp"], -35);
    let record = app.call("GET", "/api/record", b"").body;
    assert!(record.contains("[Date \"2026.04.13\"]"), "{record}");
    // The note of the move: the mover's score, its depth, the host's time.
    assert!(record.contains("{+0.35/6 0.042s}"), "{record}");
}

#[test]
fn a_finish_of_a_cancelled_search_is_dropped() {
    let (app, host, first) = engine_to_answer();
    let order = host.last_order();
    // Taking the move back cancels the search...
    let (status, s) = call(&app, "POST", "/api/undo", r#"{"plies":1}"#);
    assert_eq!(status, 200);
    assert_eq!(s["thinking"], false);
    assert_eq!(host.stops(), vec![order.search]);
    // ...so what it sends afterwards changes nothing.
    app.report(order.search, report(9, 500, &first));
    app.finish(order.search, Ok(Finish::Move { mv: first.clone() }));
    let s = state(&app);
    assert_eq!(s["moves"], serde_json::json!([]));
    assert_eq!(s["future"], serde_json::json!([first]));
    assert_eq!(s["engine_error"], Value::Null);
    assert_eq!(s["evals"][0], Value::Null);
    // Nor once another search runs: only the new one's move is played.
    let (status, _) = call(&app, "POST", "/api/go", "");
    assert_eq!(status, 200);
    let go = host.last_order();
    assert_ne!(go.search, order.search);
    app.finish(order.search, Ok(Finish::Move { mv: first.clone() }));
    assert_eq!(state(&app)["moves"], serde_json::json!([]));
    assert_eq!(state(&app)["thinking"], true);
    let own = legal(&app, 2);
    app.finish(go.search, Ok(Finish::Move { mv: own.clone() }));
    assert_eq!(state(&app)["moves"], serde_json::json!([own]));
}

#[test]
fn a_stale_finish_after_a_new_move_is_dropped_and_the_new_search_plays() {
    let (app, host) = board();
    call(&app, "POST", "/api/new", r#"{"engine":"none"}"#);
    call(&app, "POST", "/api/analyse", r#"{"on":true}"#);
    let old = host.last_order();
    let mv = legal(&app, 0);
    call(&app, "POST", "/api/move", &format!(r#"{{"move":"{mv}"}}"#));
    let new = host.last_order();
    assert_ne!(new.search, old.search);
    // The old search's line is not the new position's.
    app.report(old.search, report(12, 999, "x"));
    app.finish(old.search, Ok(Finish::Move { mv: "x".into() }));
    let s = state(&app);
    assert_eq!(s["analysing"], true);
    assert_eq!(s["reports"]["analysis"]["lines"], serde_json::json!([]));
    assert_eq!(s["moves"].as_array().unwrap().len(), 1);
}

#[test]
fn analysis_restarts_on_every_position_change() {
    let (app, host) = board();
    call(&app, "POST", "/api/new", r#"{"engine":"none"}"#);
    let (status, s) = call(&app, "POST", "/api/analyse", r#"{"on":true,"multipv":3}"#);
    assert_eq!(status, 200);
    assert_eq!(s["analysing"], true);
    let first = host.last_order();
    assert_eq!((first.slot, first.job.multipv), (2, 3));
    assert_eq!(first.job.limit, JobLimit::Infinite);
    assert!(first.job.moves.is_empty());
    let mv = legal(&app, 0);
    call(&app, "POST", "/api/move", &format!(r#"{{"move":"{mv}"}}"#));
    let second = host.last_order();
    assert!(
        host.stops().contains(&first.search),
        "the old search is stopped"
    );
    assert_eq!(second.job.moves, vec![mv]);
    assert_eq!(second.job.multipv, 3);
    call(&app, "POST", "/api/goto", r#"{"ply":0}"#);
    let third = host.last_order();
    assert!(host.stops().contains(&second.search));
    assert!(third.job.moves.is_empty());
    // Analysis off stops it and orders nothing more.
    let orders = host.orders();
    let (_, s) = call(&app, "POST", "/api/analyse", r#"{"on":false}"#);
    assert_eq!(s["analysing"], false);
    assert!(host.stops().contains(&third.search));
    assert_eq!(host.orders(), orders);
}

#[test]
fn an_engine_failure_is_shown_and_ends_the_search() {
    let (app, host, _) = engine_to_answer();
    let order = host.last_order();
    app.engine_failing(order.search, "stackfish crashed; restarting it".into());
    let s = state(&app);
    assert_eq!(s["engine_error"], "stackfish crashed; restarting it");
    assert_eq!(s["thinking"], true, "still running until its finish");
    app.finish(order.search, Err("stackfish crashed; restarted it".into()));
    let s = state(&app);
    assert_eq!(s["engine_error"], "stackfish crashed; restarted it");
    assert_eq!(s["thinking"], false);
    assert_eq!(
        s["moves"].as_array().unwrap().len(),
        1,
        "no move was played"
    );
    // An illegal move from the engine is refereed, not played.
    let (status, _) = call(&app, "POST", "/api/go", "");
    assert_eq!(status, 200);
    let again = host.last_order();
    app.finish(again.search, Ok(Finish::Move { mv: "z9".into() }));
    let s = state(&app);
    assert!(
        s["engine_error"]
            .as_str()
            .is_some_and(|e| e.starts_with("stackfish played ")),
        "{s}"
    );
    assert_eq!(s["moves"].as_array().unwrap().len(), 1);
}

#[test]
fn stop_asks_the_host_to_stop_and_the_move_still_counts() {
    let (app, host, _) = engine_to_answer();
    let order = host.last_order();
    let (status, _) = call(&app, "POST", "/api/stop", "");
    assert_eq!(status, 200);
    assert_eq!(host.stops(), vec![order.search]);
    let reply = legal(&app, 1);
    app.finish(order.search, Ok(Finish::Move { mv: reply.clone() }));
    assert_eq!(state(&app)["moves"][1], reply.as_str());
    let (status, body) = call(&app, "POST", "/api/stop", "");
    assert_eq!(status, 409);
    assert_eq!(body["error"], "the engine is not thinking");
}

#[test]
fn routes_answer_as_the_server_does() {
    let (app, _) = board();
    let (status, body) = call(&app, "POST", "/api/state", "");
    assert_eq!(status, 405);
    assert_eq!(body["error"], "/api/state takes GET, not POST");
    let (status, body) = call(&app, "GET", "/api/nothing", "");
    assert_eq!(status, 404);
    assert_eq!(body["error"], "no such path: /api/nothing");
    let (status, body) = call(&app, "POST", "/api/move", "[1]");
    assert_eq!(status, 400);
    assert_eq!(body["error"], "bad JSON body: expected an object");
    let download = app.call("GET", "/api/stacksav", b"");
    assert_eq!(download.status, 200);
    assert_eq!(download.content_type, "application/octet-stream");
    assert_eq!(
        download.attachment.as_deref(),
        Some("stackfish-mixtour-0.stacksav")
    );
}
