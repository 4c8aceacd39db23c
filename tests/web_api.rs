//! Black-box tests of `stackfish serve`'s JSON API: a server on an ephemeral
//! port in this process, spoken to over plain TCP by a tiny HTTP client, so
//! that malformed and hostile requests can be sent exactly as written.

mod web_support;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use stackfish::web::WebServer;
use web_support::{open_events, serve_process, temp_dir};

const START: &str = "x5/x5/x5/x5/x5 1 20,20 0,0 1 -";
/// Player 1 wins at once with a5a1: one piece onto a stack of height 4 four
/// squares away makes height 5, and player 1's piece is on top.
const WIN_IN_ONE: &str = "1,x4/x5/x5/x5/2121,x4 1 17,18 0,0 1 -";
/// One stack and nothing in hand: neither side can do anything but pass.
const ONLY_PASS: &str = "x5/x5/x2,12,x2/x5/x5 1 0,0 0,0 1 -";
/// Two pairs of stacks each side can shuttle a piece between.
const SHUTTLE: &str = "x5/x5/11,x3,22/x5/111,x3,222 1 15,15 0,0 1 -";

struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Reply {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {:?}", self.body))
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The error message of a refused request, checking its shape.
    fn error(&self) -> String {
        let v = self.json();
        let message = v["error"]
            .as_str()
            .unwrap_or_else(|| panic!("no error in {v}"));
        assert!(!message.is_empty());
        message.to_string()
    }
}

/// Sends `head` (request line and headers, without the blank line) and
/// `body` as written, then reads the answer. The request asks the server to
/// close the connection, so the answer ends at end of stream.
fn raw(addr: SocketAddr, head: &str, body: &[u8]) -> Reply {
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .expect("timeout");
    let mut bytes = format!("{head}\r\nConnection: close\r\n\r\n").into_bytes();
    bytes.extend_from_slice(body);
    stream.write_all(&bytes).expect("send");
    read_reply(&mut stream)
}

/// One `read`, retried when it is interrupted: on a socket with a read
/// timeout Linux does not restart a read cut short by a signal, or by the
/// process being stopped and continued (signal(7)), which a loaded CI
/// machine does; `read_to_end` retries by itself, a bare `read` does not.
fn read_some(stream: &mut TcpStream, buf: &mut [u8]) -> std::io::Result<usize> {
    loop {
        match stream.read(buf) {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            other => return other,
        }
    }
}

fn read_reply(stream: &mut TcpStream) -> Reply {
    let mut data = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match read_some(stream, &mut buf) {
            Ok(0) => break,
            Ok(n) => {
                data.extend_from_slice(&buf[..n]);
                // Stop once a body of the announced length is in, for the one
                // answer that leaves the connection open.
                if let Some(reply) = parse(&data) {
                    if reply.header("Content-Length").and_then(|l| l.parse().ok())
                        == Some(reply.body.len())
                        || reply.header("Connection") == Some("upgrade")
                            && reply.body.ends_with('}')
                    {
                        return reply;
                    }
                }
            }
            Err(e) => panic!(
                "reading the answer: {e}; got {:?}",
                String::from_utf8_lossy(&data)
            ),
        }
    }
    parse(&data).unwrap_or_else(|| panic!("no HTTP answer: {:?}", String::from_utf8_lossy(&data)))
}

fn parse(data: &[u8]) -> Option<Reply> {
    let text = String::from_utf8_lossy(data);
    let (head, body) = text.split_once("\r\n\r\n")?;
    let mut lines = head.lines();
    let status = lines.next()?.split_whitespace().nth(1)?.parse().ok()?;
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_string(), v.trim().to_string()))
        .collect();
    Some(Reply {
        status,
        headers,
        body: body.to_string(),
    })
}

fn get(addr: SocketAddr, path: &str) -> Reply {
    raw(
        addr,
        &format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1"),
        b"",
    )
}

fn post(addr: SocketAddr, path: &str, body: &str) -> Reply {
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {}",
        body.len()
    );
    raw(addr, &head, body.as_bytes())
}

/// A POST that must succeed; returns the state it answered.
fn ok(addr: SocketAddr, path: &str, body: Value) -> Value {
    let reply = post(addr, path, &body.to_string());
    assert_eq!(reply.status, 200, "{path} {body}: {}", reply.body);
    reply.json()
}

fn state(addr: SocketAddr) -> Value {
    let reply = get(addr, "/api/state");
    assert_eq!(reply.status, 200);
    reply.json()
}

/// Polls until the engine is done. Searches in these tests are limited by
/// depth, so this is quick; the bound only keeps a bug from hanging CI.
fn wait_idle(addr: SocketAddr) -> Value {
    for _ in 0..1_500 {
        let s = state(addr);
        if s["thinking"] == false {
            return s;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("the engine is still thinking after 30 s");
}

fn server() -> WebServer {
    WebServer::start("127.0.0.1", 0).expect("server starts")
}

fn moves(s: &Value) -> Vec<String> {
    s["moves"]
        .as_array()
        .expect("moves")
        .iter()
        .map(|m| m.as_str().expect("move text").to_string())
        .collect()
}

#[test]
fn the_page_is_served_from_the_binary() {
    let srv = server();
    let a = srv.addr();
    let page = get(a, "/");
    assert_eq!(page.status, 200);
    assert!(page
        .header("Content-Type")
        .unwrap()
        .starts_with("text/html"));
    assert!(page.body.contains(r#"<svg id="board""#));
    // Relative, so that the page works under any path (a proxy, the
    // static site on a project page host).
    assert!(page.body.contains("src='./page.js'"));
    assert!(page.body.contains(r#"href="page.css""#));
    assert!(!page.body.contains(r#"="/"#), "no absolute URL in the page");
    let js = get(a, "/page.js");
    assert_eq!(js.status, 200);
    assert!(js
        .header("Content-Type")
        .unwrap()
        .starts_with("text/javascript"));
    assert!(js.body.contains("/api/move"));
    // Every panel's script is served and loaded by the page.
    for panel in ["analysis", "graph", "moves", "game", "explorer"] {
        let path = format!("/panel-{panel}.js");
        assert!(page.body.contains(&format!("src='.{path}'")), "{path}");
        let js = get(a, &path);
        assert_eq!(js.status, 200, "{path}");
        assert!(js.body.contains("registerPanel("), "{path}");
    }
    let css = get(a, "/page.css");
    assert_eq!(css.status, 200);
    assert!(css.header("Content-Type").unwrap().starts_with("text/css"));
    let head = raw(a, "HEAD / HTTP/1.1\r\nHost: 127.0.0.1", b"");
    assert_eq!(head.status, 200);
    assert!(head.body.is_empty());
    // Nothing is read from disk, whatever the path.
    for path in [
        "/Cargo.toml",
        "/../Cargo.toml",
        "/src/web/page.js",
        "/%2e%2e/Cargo.toml",
    ] {
        let r = get(a, path);
        assert_eq!(r.status, 404, "{path}");
        assert!(r.error().contains("no such path"));
    }
}

#[test]
fn the_state_at_the_start() {
    let srv = server();
    let s = state(srv.addr());
    assert_eq!(s["fen"], START);
    assert_eq!(s["start_fen"], START);
    assert_eq!(s["variant"], "mixtour");
    assert_eq!(
        s["variants"],
        json!(stackfish::game::variant_names()),
        "every registered game is offered"
    );
    assert_eq!(s["side_to_move"], "p1");
    assert_eq!(s["legal_moves"].as_array().unwrap().len(), 25);
    assert_eq!(s["moves"], json!([]));
    assert_eq!(s["last_move"], Value::Null);
    assert_eq!(s["thinking"], false);
    assert_eq!(
        s["outcome"],
        json!({"over": false, "result": "*", "winner": null, "reason": null})
    );
    assert_eq!(
        s["engine"],
        json!({"side": "p2", "level": 20, "movetime_ms": 1000, "depth": null})
    );
    assert_eq!(s["analysis"], Value::Null);
    assert_eq!(s["board"], Value::Null, "Mixtour's string says it all");
}

/// The page parses no position string: the state carries every game's board
/// as drawn, read from the rules' own positions.
#[test]
fn the_state_carries_the_board_of_every_game() {
    let srv = server();
    let a = srv.addr();
    let s = state(a);
    let p = &s["position"];
    assert_eq!(p["game"], "mixtour");
    assert_eq!(
        (p["files"].as_u64(), p["ranks"].as_u64()),
        (Some(5), Some(5))
    );
    assert_eq!(p["squares"].as_array().unwrap().len(), 25);
    assert_eq!(
        p["squares"][0],
        json!({"name": "a1", "file": 0, "rank": 0, "stack": []})
    );
    assert_eq!(p["reserves"], json!([20, 20]));
    assert_eq!(p["scores"], json!([0, 0]));
    assert_eq!(p["goal"], 1);
    assert_eq!(p["holes"], json!([]));
    assert_eq!(p["last"], Value::Null);
    // One move per legal move, in the same order.
    let texts: Vec<&str> = p["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["text"].as_str().unwrap())
        .collect();
    let legal: Vec<&str> = s["legal_moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    assert_eq!(texts, legal);
    assert_eq!(
        p["moves"][0],
        json!({"text": "a1", "kind": "place", "from": null, "to": "a1", "count": 1})
    );

    // Stacks bottom to top, holes, and the last move by its squares.
    ok(a, "/api/new", json!({"engine": "none"}));
    let s = ok(
        a,
        "/api/fen",
        json!({"fen": "#,x3,#/x5/x2,12,1,x/x5/#,x3,# 1 17,19 0,0 1 -"}),
    );
    let p = &s["position"];
    assert_eq!(p["holes"], json!(["a1", "e1", "a5", "e5"]));
    assert_eq!(p["squares"].as_array().unwrap().len(), 21);
    let c3 = p["squares"]
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["name"] == "c3")
        .unwrap();
    assert_eq!(c3["stack"], json!(["p1", "p2"]));
    let two = s["legal_moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap().to_string())
        .find(|m| m.starts_with("2c3"))
        .expect("the stack of two moves");
    let s = ok(a, "/api/move", json!({ "move": two }));
    assert_eq!(
        s["position"]["last"],
        json!({"text": two, "kind": "move", "from": "c3", "to": &two[3..], "count": 2})
    );
    assert_eq!(s["position"]["reserves"], json!([17, 19]));

    // The other games.
    let s = ok(a, "/api/new", json!({"variant": "silo", "engine": "none"}));
    let p = &s["position"];
    assert_eq!(p["game"], "silo");
    assert_eq!(
        (p["files"].as_u64(), p["ranks"].as_u64()),
        (Some(6), Some(1))
    );
    assert_eq!(p["checkers"], json!([9, 9]));
    let s = ok(a, "/api/new", json!({"variant": "focus", "engine": "none"}));
    let p = &s["position"];
    assert_eq!(p["game"], "coinstack");
    assert_eq!(p["squares"].as_array().unwrap().len(), 52);
    assert_eq!(p["capture_goal"], Value::Null);
    let s = ok(
        a,
        "/api/new",
        json!({"variant": "castle", "engine": "none"}),
    );
    let p = &s["position"];
    assert_eq!(p["game"], "castle");
    assert_eq!(p["squares"].as_array().unwrap().len(), 361);
    let skulls = s["fen"].as_str().unwrap().split(' ').nth(3).unwrap();
    assert_eq!(
        p["skulls"].as_array().unwrap().len(),
        skulls.split(',').count()
    );
}

/// Castle's terrain is not in its position string: the state carries it for
/// the page, the same for every level and position; other games have none.
#[test]
fn the_board_view_carries_castles_terrain() {
    let srv = server();
    let a = srv.addr();
    for variant in ["silo", "silo-8", "coinstack", "focus", "mixtour-5"] {
        let s = ok(a, "/api/new", json!({"variant": variant, "engine": "none"}));
        assert_eq!(s["board"], Value::Null, "{variant}");
    }
    for variant in ["castle", "castle-2", "castle-3"] {
        let s = ok(a, "/api/new", json!({"variant": variant, "engine": "none"}));
        let board = &s["board"];
        assert_eq!(board["keys"], json!({"p1": "j5", "p2": "j15"}), "{variant}");
        let rows: Vec<&str> = board["terrain"]
            .as_array()
            .expect("terrain rows")
            .iter()
            .map(|r| r.as_str().expect("a row"))
            .collect();
        assert_eq!(rows.len(), 19);
        assert!(rows.iter().all(|r| r.len() == 19), "{rows:?}");
        // Rank r is rows[19 - r]; file f is byte f - 'a'.
        let at = |sq: &str| {
            let file = (sq.as_bytes()[0] - b'a') as usize;
            let rank: usize = sq[1..].parse().unwrap();
            rows[19 - rank].as_bytes()[file] as char
        };
        for (sq, symbol) in [
            ("j5", 'K'),
            ("j15", 'K'),
            ("j2", '#'),
            ("g8", '#'),
            ("h8", 'C'),
            ("g4", 'C'),
            ("m16", 'C'),
            ("i5", ':'),
            ("d9", ','),
            ("j10", ','),
            ("a1", '.'),
            ("s19", '.'),
        ] {
            assert_eq!(at(sq), symbol, "{sq} in {variant}");
        }
        // Point symmetry about j10.
        for (i, row) in rows.iter().enumerate() {
            let mirrored: String = rows[18 - i].chars().rev().collect();
            assert_eq!(*row, mirrored, "rank {}", 19 - i);
        }
    }
    // A loaded position keeps the terrain; skulls stay in the string.
    let fen = "x19/x9,2,x9/x19/x19/x19/x19/x19/x19/x19/x19/x19/x19/x19/x19/x19/x19/x19/x9,1,x9/x19 1 3,4 - 12";
    let s = ok(a, "/api/fen", json!({"fen": fen}));
    assert_eq!(s["fen"], fen);
    assert_eq!(
        s["board"]["terrain"][17].as_str().unwrap().as_bytes()[9],
        b'#'
    );
}

#[test]
fn the_engine_answers_a_move() {
    let srv = server();
    let a = srv.addr();
    ok(a, "/api/new", json!({"engine": "p2", "depth": 3}));
    let after = ok(a, "/api/move", json!({"move": "c3"}));
    // The reply is computed after the search started, in the same lock.
    assert_eq!(after["thinking"], true);
    assert_eq!(moves(&after), ["c3"]);
    let s = wait_idle(a);
    let m = moves(&s);
    assert_eq!(m.len(), 2);
    assert_eq!(m[0], "c3");
    assert_eq!(s["last_move"], json!(m[1]));
    assert_eq!(s["side_to_move"], "p1");
    assert!(s["fen"]
        .as_str()
        .unwrap()
        .ends_with(&format!(" 1 19,19 0,0 1 {}", m[1])));
    let analysis = &s["analysis"];
    assert_eq!(analysis["side"], "p2");
    assert_eq!(analysis["depth"], 3);
    assert_eq!(analysis["pv"][0], json!(m[1]));
    assert!(analysis["cp"].is_i64() && analysis["mate"].is_null());
    // The engine's move is in the record with the arena's comment.
    let record = get(a, "/api/record");
    assert!(
        record.body.contains(&format!("1. c3 {} {{", m[1])),
        "{}",
        record.body
    );
}

#[test]
fn the_engine_opens_when_it_plays_player_1() {
    let srv = server();
    let a = srv.addr();
    let s = ok(a, "/api/new", json!({"engine": "p1", "depth": 1}));
    assert_eq!(s["thinking"], true);
    let s = wait_idle(a);
    assert_eq!(moves(&s).len(), 1);
    assert_eq!(s["side_to_move"], "p2");
    assert_eq!(s["engine"]["side"], "p1");
}

#[test]
fn bad_moves_are_refused_with_a_reason() {
    let srv = server();
    let a = srv.addr();
    ok(a, "/api/new", json!({"engine": "none"}));
    let r = post(a, "/api/move", r#"{"move": "zz9"}"#);
    assert_eq!(r.status, 400);
    assert!(r.error().contains("malformed move 'zz9'"));
    ok(a, "/api/move", json!({"move": "c3"}));
    let r = post(a, "/api/move", r#"{"move": "c3"}"#);
    assert_eq!(r.status, 422);
    assert!(r.error().contains("illegal move 'c3'"));
    for (body, needle) in [
        ("", "needs a JSON body"),
        ("{", "bad JSON"),
        (r#"{"mv": "c4"}"#, "unknown field"),
        (r#"{"move": 3}"#, "invalid type"),
        (r#"["c4"]"#, "bad JSON"),
        ("\u{0}\u{1}garbage", "bad JSON"),
    ] {
        let r = post(a, "/api/move", body);
        assert_eq!(r.status, 400, "{body:?}");
        assert!(r.error().contains(needle), "{body:?}: {}", r.body);
    }
    // Nothing of that changed the game.
    assert_eq!(moves(&state(a)), ["c3"]);
}

#[test]
fn stop_makes_the_engine_move_now() {
    let srv = server();
    let a = srv.addr();
    ok(
        a,
        "/api/new",
        json!({"engine": "p2", "movetime_ms": 60000, "level": 20}),
    );
    ok(a, "/api/move", json!({"move": "c3"}));
    let r = post(a, "/api/move", r#"{"move": "c4"}"#);
    assert_eq!(r.status, 409);
    assert!(r.error().contains("thinking"));
    let r = post(a, "/api/go", "");
    assert_eq!(r.status, 409);
    assert!(r.error().contains("already thinking"));
    ok(a, "/api/stop", json!({}));
    let s = wait_idle(a);
    assert_eq!(
        moves(&s).len(),
        2,
        "the stopped engine played its best move"
    );
    let r = post(a, "/api/stop", "");
    assert_eq!(r.status, 409);
    assert!(r.error().contains("not thinking"));
}

#[test]
fn go_plays_for_the_side_to_move() {
    let srv = server();
    let a = srv.addr();
    ok(a, "/api/new", json!({"engine": "none", "depth": 2}));
    let s = ok(a, "/api/go", json!({}));
    assert_eq!(s["thinking"], true);
    let s = wait_idle(a);
    assert_eq!(moves(&s).len(), 1);
    assert_eq!(s["analysis"]["side"], "p1");
    let r = post(a, "/api/go", r#"{"depth": 3}"#);
    assert_eq!(r.status, 400);
    assert!(r.error().contains("no parameters"));
    let r = post(a, "/api/go", "{");
    assert_eq!(r.status, 400);
}

#[test]
fn undo_goes_back_to_the_players_turn() {
    let srv = server();
    let a = srv.addr();
    let r = post(a, "/api/undo", "");
    assert_eq!(r.status, 409);
    assert!(r.error().contains("no move to take back"));
    ok(a, "/api/new", json!({"engine": "p2", "depth": 1}));
    ok(a, "/api/move", json!({"move": "c3"}));
    assert_eq!(moves(&wait_idle(a)).len(), 2);
    // Both the engine's reply and the player's move.
    let s = ok(a, "/api/undo", json!({}));
    assert_eq!(moves(&s), Vec::<String>::new());
    assert_eq!(s["fen"], START);
    assert_eq!(s["analysis"], Value::Null);
    assert_eq!(
        s["thinking"], false,
        "a take-back does not start the engine"
    );

    ok(a, "/api/move", json!({"move": "a1"}));
    wait_idle(a);
    let r = post(a, "/api/undo", r#"{"plies": 0}"#);
    assert_eq!(r.status, 400);
    let r = post(a, "/api/undo", r#"{"plies": 3}"#);
    assert_eq!(r.status, 409);
    assert!(r.error().contains("only 2 moves"));
    let r = post(a, "/api/undo", r#"{"plies": "one"}"#);
    assert_eq!(r.status, 400);
    let s = ok(a, "/api/undo", json!({"plies": 1}));
    assert_eq!(moves(&s), ["a1"]);
    assert_eq!(s["side_to_move"], "p2");
}

/// Polls `GET /metrics` until one of `lines` is in it; `what` names the
/// wait in the failure.
fn wait_metric(addr: SocketAddr, lines: &[&str], what: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let metrics = get(addr, "/metrics");
        assert_eq!(metrics.status, 200);
        if metrics.body.lines().any(|l| lines.contains(&l)) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{what}: none of {lines:?} after 30 s in\n{}",
            metrics.body
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn undo_cancels_a_search() {
    let srv = server();
    let a = srv.addr();
    ok(a, "/api/new", json!({"engine": "p2", "movetime_ms": 60000}));
    assert_eq!(ok(a, "/api/move", json!({"move": "c3"}))["thinking"], true);
    // Undone once the search runs, so that it has an answer to drop.
    wait_metric(
        a,
        &["serve_searches_started_total 1"],
        "the search never started",
    );
    let s = ok(a, "/api/undo", json!({}));
    assert_eq!(s["thinking"], false);
    assert_eq!(moves(&s), Vec::<String>::new());
    // The undo stopped it, long before its 60 s, and its move was dropped.
    wait_metric(
        a,
        &[
            "serve_searches_finished_total 1",
            "serve_searches_failed_total 1",
        ],
        "the cancelled search did not end",
    );
    let s = state(a);
    assert_eq!(s["fen"], START);
    assert_eq!(moves(&s), Vec::<String>::new());
    assert_eq!(s["thinking"], false);
    // And the engine still works afterwards.
    ok(a, "/api/new", json!({"engine": "p2", "depth": 1}));
    ok(a, "/api/move", json!({"move": "c3"}));
    assert_eq!(moves(&wait_idle(a)).len(), 2);
}

#[test]
fn positions_load_from_fen() {
    let srv = server();
    let a = srv.addr();
    let fen = "x,2,x2,2122/x,1,x3/x,1121,x3/x5/x2,111,x,2 1 12,14 0,0 1 b5";
    let s = ok(a, "/api/fen", json!({"fen": fen}));
    assert_eq!(s["fen"], fen);
    assert_eq!(s["start_fen"], fen);
    assert_eq!(s["moves"], json!([]));
    assert_eq!(s["thinking"], false, "the engine waits for go after a FEN");
    let r = post(a, "/api/fen", r#"{"fen": "x5/x5/x5/x4 1 20,20 0,0 1 -"}"#);
    assert_eq!(r.status, 422);
    assert!(r.error().contains("field board"), "{}", r.body);
    let r = post(
        a,
        "/api/fen",
        r#"{"fen": "x5/x5/x5/x5/x5 3 20,20 0,0 1 -"}"#,
    );
    assert_eq!(r.status, 422);
    assert!(r.error().contains("field side"), "{}", r.body);
    let r = post(
        a,
        "/api/fen",
        &json!({"fen": START, "variant": "chess"}).to_string(),
    );
    assert_eq!(r.status, 400);
    assert!(r.error().contains("unknown variant"));
    let r = post(a, "/api/fen", "{}");
    assert_eq!(r.status, 400);
    assert!(r.error().contains("missing field `fen`"));
    assert_eq!(state(a)["fen"], fen, "a refused FEN changes nothing");
    let five = "x5/x5/x5/x5/x5 1 25,25 0,0 5 -";
    let s = ok(a, "/api/fen", json!({"fen": five, "variant": "mixtour-5"}));
    assert_eq!(s["variant"], "mixtour-5");
    assert_eq!(s["fen"], five);
}

#[test]
fn new_games_and_their_settings() {
    let srv = server();
    let a = srv.addr();
    let s = ok(
        a,
        "/api/new",
        json!({"variant": "mixtour-5", "engine": "none", "level": 7, "movetime_ms": 250}),
    );
    assert_eq!(s["fen"], "x5/x5/x5/x5/x5 1 25,25 0,0 5 -");
    assert_eq!(
        s["engine"],
        json!({"side": "none", "level": 7, "movetime_ms": 250, "depth": null})
    );
    // An empty body keeps the variant and settings.
    let s = ok(a, "/api/new", json!({}));
    assert_eq!(s["variant"], "mixtour-5");
    assert_eq!(s["engine"]["level"], 7);
    let empty = post(a, "/api/new", "");
    assert_eq!(empty.status, 200);
    for (body, needle) in [
        (json!({"level": 0}), "level must be 1 to 20"),
        (json!({"level": 21}), "level must be 1 to 20"),
        (json!({"level": 300}), "invalid value"),
        (json!({"movetime_ms": 5}), "movetime_ms must be"),
        (json!({"movetime_ms": 600001}), "movetime_ms must be"),
        (json!({"depth": 0}), "depth must be"),
        (json!({"engine": "white"}), "engine must be"),
        (json!({"variant": "chess"}), "unknown variant"),
        (json!({"movetime": 100}), "unknown field"),
    ] {
        let r = post(a, "/api/new", &body.to_string());
        assert_eq!(r.status, 400, "{body}");
        assert!(r.error().contains(needle), "{body}: {}", r.body);
    }
    assert_eq!(
        state(a)["engine"]["level"],
        7,
        "refused settings change nothing"
    );
}

#[test]
fn the_end_of_a_game_by_the_goal() {
    let srv = server();
    let a = srv.addr();
    ok(a, "/api/new", json!({"engine": "p2", "depth": 2}));
    ok(a, "/api/fen", json!({"fen": WIN_IN_ONE}));
    let s = ok(a, "/api/move", json!({"move": "a5a1"}));
    assert_eq!(s["thinking"], false, "no search on a finished game");
    assert_eq!(
        s["outcome"],
        json!({"over": true, "result": "1-0", "winner": "p1", "reason": "goal reached"})
    );
    assert_eq!(s["legal_moves"], json!([]));
    assert!(s["fen"].as_str().unwrap().contains(" 1,0 1 "));
    let r = post(a, "/api/move", r#"{"move": "c3"}"#);
    assert_eq!(r.status, 409);
    assert!(r.error().contains("the game is over (goal reached)"));
    let r = post(a, "/api/go", "");
    assert_eq!(r.status, 409);
    assert!(r.error().contains("game is over"));
    let record = get(a, "/api/record");
    assert_eq!(record.status, 200);
    assert!(record.body.contains("[Result \"1-0\"]"));
    assert!(record.body.contains("[Termination \"goal reached\"]"));
    assert!(record.body.contains(&format!("[FEN \"{WIN_IN_ONE}\"]")));
    assert!(record.body.contains("1. a5a1 1-0"));
    // Taking back reopens the game.
    let s = ok(a, "/api/undo", json!({"plies": 1}));
    assert_eq!(s["outcome"]["over"], false);
}

#[test]
fn the_end_of_a_game_by_a_double_pass() {
    let srv = server();
    let a = srv.addr();
    ok(a, "/api/new", json!({"engine": "none"}));
    let s = ok(a, "/api/fen", json!({"fen": ONLY_PASS}));
    assert_eq!(s["legal_moves"], json!(["pass"]));
    let s = ok(a, "/api/move", json!({"move": "pass"}));
    assert_eq!(s["legal_moves"], json!(["pass"]));
    assert_eq!(s["outcome"]["over"], false);
    let s = ok(a, "/api/move", json!({"move": "pass"}));
    assert_eq!(
        s["outcome"],
        json!({"over": true, "result": "1/2-1/2", "winner": null, "reason": "double pass"})
    );
}

#[test]
fn the_end_of_a_game_by_repetition() {
    let srv = server();
    let a = srv.addr();
    ok(a, "/api/new", json!({"engine": "none"}));
    ok(a, "/api/fen", json!({"fen": SHUTTLE}));
    // Each side shuttles one piece there and back: its own moves, so the
    // take-back rule (the opponent's last move only) never forbids them.
    let cycle = ["a1a3", "e1e3", "a3a1", "e3e1"];
    let mut played = 0;
    let mut s = state(a);
    while s["outcome"]["over"] == false {
        assert!(played < 16, "no repetition after {played} moves");
        s = ok(a, "/api/move", json!({"move": cycle[played % 4]}));
        played += 1;
    }
    assert_eq!(
        s["outcome"],
        json!({"over": true, "result": "1/2-1/2", "winner": null, "reason": "threefold repetition"})
    );
    // The position after move 1 is back after moves 5 and 9.
    assert_eq!(played, 9);
}

#[test]
fn the_record_has_the_arena_tags() {
    let srv = server();
    let a = srv.addr();
    ok(a, "/api/new", json!({"engine": "p2", "depth": 1}));
    ok(a, "/api/move", json!({"move": "c3"}));
    wait_idle(a);
    let r = get(a, "/api/record");
    assert_eq!(r.status, 200);
    assert!(r.header("Content-Type").unwrap().starts_with("text/plain"));
    assert!(r
        .header("Content-Disposition")
        .unwrap()
        .starts_with("attachment; filename=\"stackfish-mixtour-2.pgn\""));
    let tags: Vec<&str> = r
        .body
        .lines()
        .take_while(|l| l.starts_with('['))
        .map(|l| l[1..].split(' ').next().unwrap())
        .collect();
    for tag in [
        "Event",
        "Site",
        "Date",
        "Round",
        "Player1",
        "Player2",
        "FEN",
        "Result",
        "Termination",
    ] {
        assert!(tags.contains(&tag), "{tag} missing in {}", r.body);
    }
    assert!(r.body.contains("[Player1 \"Human\"]"));
    assert!(r
        .body
        .contains("[Player2 \"stackfish (level 20, depth 1)\"]"));
    assert!(r.body.contains("[Result \"*\"]"));
    assert!(r.body.contains("[Termination \"unterminated\"]"));
    let date = r.body.lines().find(|l| l.starts_with("[Date")).unwrap();
    assert_eq!(date.len(), "[Date \"2026.11.29\"]".len(), "{date}");
}

#[test]
fn unknown_paths_and_wrong_methods() {
    let srv = server();
    let a = srv.addr();
    let r = get(a, "/api/nothing");
    assert_eq!(r.status, 404);
    assert!(r
        .header("Content-Type")
        .unwrap()
        .starts_with("application/json"));
    assert!(r.error().contains("/api/nothing"));
    let r = get(a, "/api/move");
    assert_eq!(r.status, 405);
    assert_eq!(r.header("Allow"), Some("POST"));
    let r = post(a, "/api/state", "{}");
    assert_eq!(r.status, 405);
    assert_eq!(r.header("Allow"), Some("GET"));
    let r = raw(a, "DELETE /api/new HTTP/1.1\r\nHost: 127.0.0.1", b"");
    assert_eq!(r.status, 405);
    // Query strings are ignored, so a cache-busting page still works.
    assert_eq!(get(a, "/api/state?t=123").status, 200);
}

#[test]
fn posts_must_be_json_from_a_known_host() {
    let srv = server();
    let a = srv.addr();
    let body = r#"{"move": "c3"}"#;
    let head = format!(
        "POST /api/move HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\nContent-Length: {}",
        body.len()
    );
    let r = raw(a, &head, body.as_bytes());
    assert_eq!(r.status, 415);
    assert!(r.error().contains("application/json"));
    let r = raw(a, "GET /api/state HTTP/1.1\r\nHost: evil.example:8080", b"");
    assert_eq!(r.status, 403);
    assert!(r.error().contains("evil.example"));
    for host in ["localhost:8080", "127.0.0.1", "[::1]:80"] {
        let r = raw(a, &format!("GET /api/state HTTP/1.1\r\nHost: {host}"), b"");
        assert_eq!(r.status, 200, "{host}");
    }
    // JSON's media type exactly, parameters allowed.
    for (content_type, status) in [
        ("application/jsonx", 415),
        ("application/json-seq", 415),
        ("text/application/json", 415),
        ("application/json; charset=utf-8", 200),
        ("Application/JSON", 200),
    ] {
        let head = format!(
            "POST /api/new HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: {content_type}\r\nContent-Length: 2"
        );
        assert_eq!(raw(a, &head, b"{}").status, status, "{content_type}");
    }
    // HTTP/1.1 requires a Host; a request in absolute form names its host
    // in its target, which must be ours too.
    let r = raw(a, "GET /api/state HTTP/1.1\r\nX-None: 1", b"");
    assert_eq!(r.status, 400);
    assert!(r.error().contains("Host"), "{}", r.error());
    let r = raw(
        a,
        "GET http://evil.example/api/state HTTP/1.1\r\nHost: 127.0.0.1",
        b"",
    );
    assert_eq!(r.status, 403);
    assert!(r.error().contains("evil.example"));
    let r = raw(
        a,
        &format!("GET http://{a}/api/state HTTP/1.1\r\nHost: {a}"),
        b"",
    );
    assert_eq!(r.status, 200);
    assert_eq!(moves(&state(a)), Vec::<String>::new());
}

#[test]
fn huge_bodies_are_refused_and_the_server_lives_on() {
    let srv = server();
    let a = srv.addr();
    let big = vec![b' '; 100_000];
    let head = format!(
        "POST /api/move HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {}",
        big.len()
    );
    let r = raw(a, &head, &big);
    assert_eq!(r.status, 413);
    assert!(r.error().contains("larger than 65536 bytes"));
    // A length no machine could buffer: only the head of the body is sent.
    let head = "POST /api/move HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000000000000000";
    let r = raw(a, head, b"{\"move\":");
    assert_eq!(r.status, 413);
    assert!(r.error().contains("larger than"));
    // Chunked: no length announced, the limit is found while reading.
    let mut chunked = Vec::new();
    for _ in 0..20 {
        chunked.extend_from_slice(format!("{:x}\r\n", 8192).as_bytes());
        chunked.extend_from_slice(&[b' '; 8192]);
        chunked.extend_from_slice(b"\r\n");
    }
    chunked.extend_from_slice(b"0\r\n\r\n");
    let head = "POST /api/move HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked";
    let r = raw(a, head, &chunked);
    assert_eq!(r.status, 413);
    // A body just under the limit is read and judged on its content.
    let mut body = br#"{"move": "c3"}"#.to_vec();
    body.resize(65_536, b' ');
    let head = format!(
        "POST /api/move HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {}",
        body.len()
    );
    assert_eq!(raw(a, &head, &body).status, 200);
    assert_eq!(state(a)["moves"], json!(["c3"]));
}

#[test]
fn concurrent_moves_have_one_winner() {
    let srv = server();
    let a = srv.addr();
    ok(a, "/api/new", json!({"engine": "none"}));
    // Eight clients try the same placement at once: the first plays it, the
    // others find the square taken. Others poll meanwhile.
    let statuses: Vec<u16> = std::thread::scope(|s| {
        let movers: Vec<_> = (0..8)
            .map(|_| s.spawn(move || post(a, "/api/move", r#"{"move": "c3"}"#).status))
            .collect();
        let pollers: Vec<_> = (0..4)
            .map(|_| {
                s.spawn(move || {
                    for _ in 0..10 {
                        assert_eq!(get(a, "/api/state").status, 200);
                    }
                })
            })
            .collect();
        for p in pollers {
            p.join().expect("poller");
        }
        movers
            .into_iter()
            .map(|m| m.join().expect("mover"))
            .collect()
    });
    assert_eq!(
        statuses.iter().filter(|&&s| s == 200).count(),
        1,
        "{statuses:?}"
    );
    assert_eq!(
        statuses.iter().filter(|&&s| s == 422).count(),
        7,
        "{statuses:?}"
    );
    assert_eq!(moves(&state(a)), ["c3"]);
}

#[test]
fn garbage_on_the_socket_gets_an_answer_or_a_close() {
    let srv = server();
    let a = srv.addr();
    for junk in [
        &b"\x00\x01\x02 nonsense\r\n\r\n"[..],
        b"GET\r\n\r\n",
        b"GET / HTTP/9.9\r\n\r\n",
    ] {
        let mut stream = TcpStream::connect(a).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(5)))
            .expect("timeout");
        stream.write_all(junk).expect("send");
        let mut answer = Vec::new();
        let _ = stream.read_to_end(&mut answer);
        if !answer.is_empty() {
            let text = String::from_utf8_lossy(&answer);
            assert!(
                text.starts_with("HTTP/1.1 4") || text.starts_with("HTTP/1.1 5"),
                "{text}"
            );
        }
    }
    assert_eq!(get(a, "/api/state").status, 200);
}

#[test]
fn shutdown_ends_a_long_search() {
    let srv = server();
    let a = srv.addr();
    ok(a, "/api/new", json!({"engine": "p2", "movetime_ms": 60000}));
    ok(a, "/api/move", json!({"move": "c3"}));
    // Returns only once the search thread is joined: a hang here is the bug.
    srv.shutdown();
    let closed = (0..100).any(|_| {
        std::thread::sleep(Duration::from_millis(20));
        TcpStream::connect(a).is_err()
    });
    assert!(closed, "the port still accepts connections");
}

#[test]
fn the_serve_command_prints_its_url_and_serves() {
    // serve_process reads the URL the first line gives, or fails.
    let server = serve_process(&[], None, false);
    assert_ne!(server.addr.port(), 0);
    assert_eq!(get(server.addr, "/api/state").json()["fen"], START);
}

#[test]
fn serve_exits_2_when_the_port_is_taken() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = taken.local_addr().expect("addr").port().to_string();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_stackfish"))
        .args(["serve", "--port", &port])
        .output()
        .expect("stackfish runs");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with(&format!("error: cannot listen on 127.0.0.1:{port}")),
        "{stderr}"
    );
}

// ---- engines, analysis and the line ------------------------------------------

fn server_with(engines: &[&[&str]], startup_ms: u64) -> WebServer {
    let groups: Vec<Vec<String>> = engines
        .iter()
        .map(|g| g.iter().map(|t| t.to_string()).collect())
        .collect();
    let roster = stackfish::web::Roster::from_groups(&groups, startup_ms).expect("engines");
    let options = stackfish::web::ServeOptions {
        roster,
        ..Default::default()
    };
    WebServer::start_with("127.0.0.1", 0, options).expect("server starts")
}

fn mock_engine(name: &str, args: &str) -> Vec<String> {
    vec![
        format!("name={name}"),
        format!("cmd={}", env!("CARGO_BIN_EXE_mock-engine")),
        format!("args={args}"),
    ]
}

/// Waits until `done` holds for the state, within `secs`.
fn wait_for(addr: SocketAddr, secs: u64, what: &str, done: impl Fn(&Value) -> bool) -> Value {
    let until = std::time::Instant::now() + Duration::from_secs(secs);
    loop {
        let s = state(addr);
        if done(&s) {
            return s;
        }
        assert!(
            std::time::Instant::now() < until,
            "{what}: not within {secs} s: {s}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn an_external_engine_plays_a_game_to_the_end_against_stackfish() {
    let negamax = [
        "name=negamax".to_string(),
        format!("cmd={}", env!("CARGO_BIN_EXE_negamax-engine")),
        "option.Depth=2".to_string(),
    ];
    let negamax: Vec<&str> = negamax.iter().map(String::as_str).collect();
    let srv = server_with(&[&negamax], 10_000);
    let a = srv.addr();
    let s = ok(
        a,
        "/api/new",
        json!({"movetime_ms": 30, "p1": {"engine": "negamax"}, "p2": {"engine": "stackfish", "level": 1}}),
    );
    assert_eq!(s["engines"], json!(["stackfish", "negamax"]));
    assert_eq!(s["players"]["p1"]["engine"], "negamax");
    assert_eq!(s["engine"]["side"], "both");
    let end = wait_for(a, 240, "the game ends", |s| s["outcome"]["over"] == true);
    assert_eq!(end["engine_error"], Value::Null);
    assert_eq!(end["thinking"], false);
    // Every move was refereed: the line replays under the rules.
    let mut game = stackfish::game::variants::new_game("mixtour").expect("mixtour");
    for mv in moves(&end) {
        game.play_text(&mv).expect("a legal move");
    }
    assert!(game.outcome().is_over());
    // Both engines' reports and an evaluation for most positions.
    assert_eq!(end["reports"]["p1"]["engine"], "negamax");
    assert_eq!(end["reports"]["p2"]["engine"], "stackfish");
    let evals = end["evals"].as_array().expect("evals");
    assert_eq!(evals.len(), moves(&end).len() + 1);
    assert!(evals.iter().filter(|e| !e.is_null()).count() >= moves(&end).len() / 2);
    assert_eq!(
        end["marks"].as_array().map(Vec::len),
        Some(moves(&end).len())
    );
    let record = get(a, "/api/record").body;
    assert!(
        record.contains("[Player1 \"negamax (0.0 s/move)\"]"),
        "{record}"
    );
    assert!(record.contains("[Player2 \"stackfish (level 1, 0.0 s/move)\"]"));
}

#[test]
fn an_engine_that_cannot_start_is_reported_once() {
    // The library's roster does not start engines up front (the binary does):
    // the first search finds the command missing, and so does the restart.
    let ghost = ["name=ghost", "cmd=./no-such-engine"];
    let srv = server_with(&[&ghost], 10_000);
    let a = srv.addr();
    ok(
        a,
        "/api/new",
        json!({"engine": "p2", "opponent": "ghost", "movetime_ms": 100}),
    );
    ok(a, "/api/move", json!({"move": "c3"}));
    let s = wait_for(a, 20, "the failure is reported", |s| {
        s["thinking"] == false && !s["engine_error"].is_null()
    });
    let error = s["engine_error"].as_str().unwrap_or_default();
    assert!(
        error.starts_with("cannot start engine: ghost (./no-such-engine): "),
        "{error}"
    );
    assert_eq!(error.matches("cannot start").count(), 1, "{error}");
}

#[test]
fn a_crashing_engine_is_reported_restarted_and_the_board_goes_on() {
    let srv = server_with(
        &[&mock_engine("crasher", "--fault crash")
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>()],
        10_000,
    );
    let a = srv.addr();
    ok(
        a,
        "/api/new",
        json!({"engine": "p2", "opponent": "crasher", "movetime_ms": 100}),
    );
    ok(a, "/api/move", json!({"move": "c3"}));
    let s = wait_for(a, 20, "the crash is reported", |s| {
        s["engine_error"]
            .as_str()
            .is_some_and(|e| e.contains("restarted it"))
    });
    let error = s["engine_error"].as_str().unwrap_or_default();
    assert!(
        error.starts_with("crasher crashed (exit status 101)"),
        "{error}"
    );
    assert_eq!(s["thinking"], false);
    assert_eq!(moves(&s), ["c3"]);
    // The restarted engine answers the handshake, then crashes again on go.
    ok(a, "/api/go", json!({}));
    let s = wait_for(a, 20, "the second crash", |s| {
        s["thinking"] == false && !s["engine_error"].is_null()
    });
    assert!(s["engine_error"]
        .as_str()
        .unwrap_or_default()
        .contains("crashed"));
    // The player can still play for the engine's side.
    let s = ok(a, "/api/move", json!({"move": "b1"}));
    assert_eq!(moves(&s), ["c3", "b1"]);
}

#[test]
fn silent_hanging_garbage_and_illegal_engines_are_reported() {
    let cases = [
        ("silent", "--fault silent", "silent: no ugiok within 500 ms"),
        ("hang", "--fault hang", "hang sent no bestmove within"),
        ("garbage", "--fault garbage", "garbage garbage output"),
        (
            "illegal",
            "--fault illegal",
            "illegal played illegal move '3a1b2'",
        ),
    ];
    let specs: Vec<Vec<String>> = cases.iter().map(|(n, f, _)| mock_engine(n, f)).collect();
    let specs: Vec<Vec<&str>> = specs
        .iter()
        .map(|g| g.iter().map(String::as_str).collect())
        .collect();
    let refs: Vec<&[&str]> = specs.iter().map(Vec::as_slice).collect();
    let srv = server_with(&refs, 500);
    let a = srv.addr();
    for (name, _, want) in cases {
        ok(
            a,
            "/api/new",
            json!({"engine": "p2", "opponent": name, "movetime_ms": 100}),
        );
        ok(a, "/api/move", json!({"move": "c3"}));
        // While the engine misbehaves, the server answers at once.
        let t0 = std::time::Instant::now();
        state(a);
        assert!(
            t0.elapsed() < Duration::from_secs(2),
            "{name}: the state waited"
        );
        let s = wait_for(a, 20, name, |s| {
            s["thinking"] == false && !s["engine_error"].is_null()
        });
        let error = s["engine_error"].as_str().unwrap_or_default();
        assert!(error.starts_with(want), "{name}: {error}");
        assert_eq!(moves(&s), ["c3"], "{name}: nothing was played");
    }
}

#[test]
fn the_analysis_follows_the_position_shown_and_its_lines_play() {
    let srv = server();
    let a = srv.addr();
    ok(a, "/api/new", json!({"engine": "none"}));
    let r = post(a, "/api/analyse", r#"{"on": true, "multipv": 6}"#);
    assert_eq!(r.status, 400);
    assert!(r.error().contains("multipv must be 1 to 5"));
    let r = post(a, "/api/analyse", r#"{"on": true, "engine": "nothing"}"#);
    assert_eq!(r.status, 400);
    assert!(r.error().contains("unknown engine \"nothing\""));
    let s = ok(a, "/api/analyse", json!({"on": true, "multipv": 2}));
    assert_eq!(
        s["analysis_mode"],
        json!({"engine": "stackfish", "multipv": 2})
    );
    assert_eq!(s["analysing"], true);
    let s = wait_for(a, 20, "two analysis lines", |s| {
        s["reports"]["analysis"]["lines"][0]["pv"]
            .as_array()
            .is_some_and(|pv| pv.len() >= 2)
            && s["reports"]["analysis"]["lines"]
                .as_array()
                .is_some_and(|l| l.len() == 2)
    });
    let lines = &s["reports"]["analysis"]["lines"];
    assert_eq!(
        (lines[0]["multipv"].clone(), lines[1]["multipv"].clone()),
        (json!(1), json!(2))
    );
    assert_ne!(
        lines[0]["pv"][0], lines[1]["pv"][0],
        "two different first moves"
    );
    assert_eq!(s["reports"]["analysis"]["ply"], 0);
    assert!(!s["evals"][0].is_null(), "the start position is evaluated");
    let pv: Vec<String> = s["reports"]["analysis"]["lines"][0]["pv"]
        .as_array()
        .expect("pv")
        .iter()
        .take(2)
        .map(|m| m.as_str().expect("move").to_string())
        .collect();
    // A line is played all or nothing.
    let r = post(
        a,
        "/api/move",
        &json!({"moves": [pv[0], "zz9"]}).to_string(),
    );
    assert_eq!(r.status, 400);
    assert_eq!(moves(&state(a)), Vec::<String>::new());
    let s = ok(a, "/api/move", json!({"moves": pv}));
    assert_eq!(moves(&s), pv);
    assert_eq!(s["analysing"], true, "the analysis goes on after the line");
    let s = wait_for(a, 20, "lines of the new position", |s| {
        s["reports"]["analysis"]["ply"] == 2 && s["reports"]["analysis"]["lines"][0].is_object()
    });
    assert_eq!(s["analysing"], true);
    // Back to the start and forward again: the line stays.
    let s = ok(a, "/api/goto", json!({"ply": 0}));
    assert_eq!((moves(&s).len(), s["future"].clone()), (0, json!(pv)));
    assert_eq!(s["fen"], START);
    assert_eq!(s["analysing"], true);
    let s = ok(a, "/api/goto", json!({"ply": 2}));
    assert_eq!(moves(&s), pv);
    let r = post(a, "/api/goto", r#"{"ply": 3}"#);
    assert_eq!(r.status, 400);
    assert!(r.error().contains("ply must be 0 to 2, not 3"));
    // A take-back keeps the move as the future; a new move drops it.
    let s = ok(a, "/api/undo", json!({"plies": 1}));
    assert_eq!(s["future"], json!([pv[1]]));
    let other = s["legal_moves"]
        .as_array()
        .expect("moves")
        .iter()
        .map(|m| m.as_str().expect("move"))
        .find(|m| *m != pv[1])
        .expect("another move")
        .to_string();
    let s = ok(a, "/api/move", json!({"move": other}));
    assert_eq!(s["future"], json!([]));
    assert_eq!(s["evals"].as_array().map(Vec::len), Some(3));
    let s = ok(a, "/api/analyse", json!({"on": false}));
    assert_eq!(
        (s["analysing"].clone(), s["analysis_mode"].clone()),
        (json!(false), Value::Null)
    );
}

#[test]
fn the_event_stream_sends_the_state_after_every_change() {
    let srv = server();
    let a = srv.addr();
    ok(a, "/api/new", json!({"engine": "none"}));
    let mut stream = open_events(a);
    let mut seen = String::new();
    let mut buf = [0u8; 65536];
    let mut next_state = |seen: &mut String| -> Value {
        loop {
            if let Some(at) = seen.find("event: state\ndata: ") {
                let rest = &seen[at + "event: state\ndata: ".len()..];
                if let Some(end) = rest.find("\n\n") {
                    let v: Value = serde_json::from_str(&rest[..end]).expect("a JSON state");
                    *seen = rest[end..].to_string();
                    return v;
                }
            }
            let n = read_some(&mut stream, &mut buf).expect("the stream goes on");
            assert!(n > 0, "the stream ended");
            seen.push_str(&String::from_utf8_lossy(&buf[..n]));
        }
    };
    let first = next_state(&mut seen);
    assert!(seen.is_empty() || !seen.contains("c3"));
    assert!(first["moves"] == json!([]));
    ok(a, "/api/move", json!({"move": "c3"}));
    let next = next_state(&mut seen);
    assert_eq!(next["moves"], json!(["c3"]));
    assert!(next["version"].as_u64() > first["version"].as_u64());
}

#[test]
fn serve_refuses_bad_engine_settings() {
    for (args, want) in [
        (
            vec!["--engine", "name=a", "cmd=x", "st=1"],
            "the page sets the time",
        ),
        (vec!["--engine", "cmd=x"], "name= and cmd= are required"),
        (
            vec!["--engine", "name=stackfish", "cmd=x"],
            "two engines are named 'stackfish'",
        ),
        (
            vec!["--engine", "name=a", "cmd=x", "--engine", "name=a", "cmd=y"],
            "two engines are named 'a'",
        ),
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_stackfish"))
            .args(["serve", "--port", "0"])
            .args(&args)
            .output()
            .expect("stackfish runs");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(want), "{args:?}: {stderr}");
    }
}

#[test]
fn event_streams_are_limited_and_their_slots_come_back() {
    let srv = server();
    let a = srv.addr();
    let open = |a: SocketAddr| {
        let mut s = TcpStream::connect(a).expect("connect");
        s.set_read_timeout(Some(Duration::from_secs(10)))
            .expect("timeout");
        write!(s, "GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").expect("send");
        let mut buf = [0u8; 64];
        let n = read_some(&mut s, &mut buf).expect("an answer");
        let status = String::from_utf8_lossy(&buf[..n])
            .split_whitespace()
            .nth(1)
            .and_then(|c| c.parse::<u16>().ok());
        (s, status)
    };
    let streams: Vec<TcpStream> = (0..stackfish::web::MAX_EVENT_STREAMS)
        .map(|_| {
            let (s, status) = open(a);
            assert_eq!(status, Some(200));
            s
        })
        .collect();
    let (_, status) = open(a);
    assert_eq!(status, Some(503), "one stream too many");
    // The rest of the API is not held up.
    assert_eq!(get(a, "/api/state").status, 200);
    drop(streams);
    // A closed page frees its slot once the server notices (at its next
    // write: the next change).
    let until = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        ok(a, "/api/new", json!({"engine": "none"}));
        let (_, status) = open(a);
        if status == Some(200) {
            break;
        }
        assert!(std::time::Instant::now() < until, "slots did not come back");
        std::thread::sleep(Duration::from_millis(100));
    }
}

// ---- boards of any shape, StackAndConquer files, the Silo explorer ---------

/// `{"name": .., "base64": ..}`: a file as the page uploads it.
fn upload(name: &str, bytes: &[u8]) -> Value {
    use base64::Engine;
    json!({ "name": name, "base64": base64::engine::general_purpose::STANDARD.encode(bytes) })
}

/// `stackfish <args>`: exit code and standard output.
fn stackfish(args: &[&str]) -> (Option<i32>, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_stackfish"))
        .args(args)
        .output()
        .expect("stackfish runs");
    let err = String::from_utf8_lossy(&out.stderr);
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned() + &err,
    )
}

/// A position string without its last field (the last move, which a
/// StackAndConquer save does not hold).
fn without_last_move(fen: &str) -> &str {
    fen.rsplit_once(' ').expect("fields").0
}

#[test]
fn new_games_on_the_shipped_boards() {
    let srv = server();
    let a = srv.addr();
    let boards = get(a, "/api/boards").json();
    let names: Vec<&str> = boards["boards"]
        .as_array()
        .expect("boards")
        .iter()
        .map(|b| b["name"].as_str().expect("name"))
        .collect();
    assert_eq!(
        names,
        [
            "square_5x5",
            "square_5x5_no_corners",
            "ring_7x7",
            "square_6x6",
            "square_10x10"
        ]
    );
    // The corners of boards/square_5x5_no_corners.in are holes; 20 pieces
    // each; Mixtour's goal.
    let s = ok(
        a,
        "/api/new",
        json!({"variant": "mixtour", "engine": "none", "board": "square_5x5_no_corners"}),
    );
    assert_eq!(s["fen"], "#,x3,#/x5/x5/x5/#,x3,# 1 20,20 0,0 1 -");
    assert_eq!(s["start_fen"], s["fen"]);
    let legal = s["legal_moves"].as_array().expect("legal moves");
    assert_eq!(legal.len(), 21, "an entry on each cell, none on a hole");
    assert!(!legal.contains(&json!("a1")) && legal.contains(&json!("b1")));
    // Mixtour-5 plays the board to its own goal of 5.
    let s = ok(
        a,
        "/api/new",
        json!({"variant": "mixtour-5", "engine": "none", "board": "square_6x6"}),
    );
    assert_eq!(s["fen"], "x6/x6/x6/x6/x6/x6 1 20,20 0,0 5 -");
    // A click (a move) on the shaped board is played by its rules.
    let s = ok(a, "/api/move", json!({"move": "f6"}));
    assert_eq!(s["fen"], "x5,1/x6/x6/x6/x6/x6 2 19,20 0,0 5 f6");

    let r = post(a, "/api/new", &json!({"board": "hexagon"}).to_string());
    assert_eq!(r.status, 400);
    assert!(
        r.error()
            .contains("unknown board \"hexagon\"; shipped: square_5x5,"),
        "{}",
        r.body
    );
    let r = post(
        a,
        "/api/new",
        &json!({"variant": "silo", "board": "ring_7x7"}).to_string(),
    );
    assert_eq!(r.status, 400);
    assert!(r.error().contains("for Mixtour"), "{}", r.body);
    // The refused requests left the game as it was.
    assert_eq!(state(a)["fen"], "x5,1/x6/x6/x6/x6/x6 2 19,20 0,0 5 f6");
}

#[test]
fn an_uploaded_board_or_saved_game_starts_a_game() {
    let srv = server();
    let a = srv.addr();
    // A 4 x 3 board written by hand: a hole on each row; 6 pieces each.
    let board = b"6,4\n#, 0, 0, 0\n0, 0, #, 0\n0, 0, 0, #\n";
    let s = ok(
        a,
        "/api/new",
        json!({"engine": "none", "file": upload("holes.in", board)}),
    );
    assert_eq!(s["variant"], "mixtour");
    assert_eq!(s["fen"], "#,x3/x2,#,x/x3,# 1 6,6 0,0 1 -");
    // The same board as a .stackboard (JSON), with the game's goal of 5.
    let stackboard = br##"{"Board": ["#","0","0","0","0","0","#","0","0","0","0","#"], "Columns": 4, "Rows": 3, "PlayersStones": [6, 4]}"##;
    let s = ok(
        a,
        "/api/new",
        json!({"variant": "mixtour-5", "engine": "none", "file": upload("holes.stackboard", stackboard)}),
    );
    assert_eq!(s["fen"], "#,x3/x2,#,x/x3,# 1 6,6 0,0 5 -");
    // Line ends of another system, and reading stops at the first empty
    // line.
    let crlf = b"6,4\r\n#, 0\r\n0, 0\r\n\r\nanything";
    // The game left out: the current one, Mixtour-5.
    let s = ok(
        a,
        "/api/new",
        json!({"engine": "none", "file": upload("crlf.in", crlf)}),
    );
    assert_eq!(s["fen"], "#,x/x2 1 6,6 0,0 5 -");
    // The file's bytes reach the import code as they are: bytes that are
    // not UTF-8 are its error, not lost on the way.
    let r = post(
        a,
        "/api/new",
        &json!({"engine": "none", "file": upload("latin1.in", b"6,4\n\xe9, 0\n")}).to_string(),
    );
    assert_eq!(r.status, 422);
    assert_eq!(r.error(), "latin1.in: not UTF-8 text");
    assert_eq!(state(a)["fen"], "#,x/x2 1 6,6 0,0 5 -");
}

#[test]
fn bad_files_get_the_import_error_and_change_nothing() {
    let srv = server();
    let a = srv.addr();
    ok(a, "/api/new", json!({"engine": "none"}));
    ok(a, "/api/move", json!({"move": "c3"}));
    let before = state(a);
    let refused = |body: Value, status: u16, says: &str| {
        let r = post(a, "/api/new", &body.to_string());
        assert_eq!(r.status, status, "{body}: {}", r.body);
        let message = r.error();
        assert!(message.contains(says), "{message:?} should say {says:?}");
        assert!(!message.contains('\n'), "one line: {message:?}");
    };
    let file = |name: &str, bytes: &[u8]| json!({"engine": "none", "file": upload(name, bytes)});
    refused(
        file("game.stacksav", b"{\"Board\": []}"),
        422,
        "game.stacksav: the saved game is not valid base64 ('{' at byte 1: this looks like plain JSON)",
    );
    refused(file("game.stacksav", b"bm90IGpzb24="), 422, "not JSON");
    refused(file("wide.in", b"20,15\n0, 0, 0\n0, 0\n"), 422, "wide.in:");
    refused(
        file("b.stackboard", b"{\"Columns\": 2}"),
        422,
        "b.stackboard:",
    );
    refused(
        file("notes.txt", b"20,15\n0, 0\n"),
        422,
        "not a StackAndConquer file (expected .in, .stackboard or .stacksav)",
    );
    refused(
        json!({"file": {"name": "b.in", "base64": "@@@"}}),
        400,
        "not base64",
    );
    refused(json!({"file": {"name": "b.in"}}), 400, "base64");
    refused(
        json!({"file": upload("b.in", b"20,15\n0\n"), "board": "ring_7x7"}),
        400,
        "not both",
    );
    refused(
        json!({"variant": "coinstack", "file": upload("b.in", b"20,15\n0\n")}),
        400,
        "for Mixtour",
    );
    // A file over the limit, its request under the body limit...
    refused(
        file("big.in", &vec![b'0'; 40_000]),
        413,
        "big.in is 40000 bytes",
    );
    // ...and a request over the body limit.
    let r = post(
        a,
        "/api/new",
        &json!({"file": {"name": "huge.in", "base64": "A".repeat(70_000)}}).to_string(),
    );
    assert_eq!(r.status, 413);
    let after = state(a);
    assert_eq!(after["fen"], before["fen"]);
    assert_eq!(after["moves"], json!(["c3"]));
    // The server goes on.
    ok(a, "/api/move", json!({"move": "a1"}));
}

#[test]
fn saved_games_import_to_the_position_shown() {
    let srv = server();
    let a = srv.addr();
    let dir = temp_dir("stacksav");
    ok(
        a,
        "/api/new",
        json!({"variant": "mixtour", "engine": "none", "board": "ring_7x7"}),
    );
    for mv in ["a1", "b1", "a7", "b2"] {
        ok(a, "/api/move", json!({"move": mv}));
    }
    let s = ok(a, "/api/move", json!({"move": "b2b1"}));
    let fen = s["fen"].as_str().expect("fen").to_string();

    let save = get(a, "/api/stacksav");
    assert_eq!(save.status, 200);
    assert_eq!(
        save.header("Content-Disposition"),
        Some("attachment; filename=\"stackfish-mixtour-5.stacksav\"")
    );
    let board = get(a, "/api/stackboard");
    assert_eq!(board.status, 200);
    assert_eq!(
        board.header("Content-Disposition"),
        Some("attachment; filename=\"ring_7x7.stackboard\"")
    );
    let save_path = dir.join("game.stacksav");
    let board_path = dir.join("ring_7x7.stackboard");
    std::fs::write(&save_path, &save.body).expect("write");
    std::fs::write(&board_path, &board.body).expect("write");
    // `stackfish import` reads what the page saved: the position, but for
    // the last move, which a save does not hold.
    let (code, out) = stackfish(&["import", save_path.to_str().expect("utf-8")]);
    assert_eq!(code, Some(0), "{out}");
    assert_eq!(out.trim(), format!("{} -", without_last_move(&fen)));
    let (code, out) = stackfish(&["import", board_path.to_str().expect("utf-8")]);
    assert_eq!(code, Some(0), "{out}");
    assert_eq!(
        out.trim(),
        "x7/x7/x2,#3,x2/x2,#3,x2/x2,#3,x2/x7/x7 1 20,20 0,0 1 -"
    );
    // The save names its board file, by name (the page cannot know where
    // the browser puts it).
    use base64::Engine;
    let json_text = base64::engine::general_purpose::STANDARD
        .decode(save.body.trim())
        .expect("a .stacksav is base64");
    let saved: Value = serde_json::from_slice(&json_text).expect("of JSON");
    assert_eq!(saved["BoardFileRelative"], "ring_7x7.stackboard");

    // And the page opens it again.
    ok(a, "/api/new", json!({"engine": "none"}));
    let s = ok(
        a,
        "/api/new",
        json!({"engine": "none", "file": upload("game.stacksav", save.body.as_bytes())}),
    );
    assert_eq!(
        without_last_move(s["fen"].as_str().unwrap()),
        without_last_move(&fen)
    );

    // Only Mixtour games are StackAndConquer's.
    ok(a, "/api/new", json!({"variant": "silo", "engine": "none"}));
    let r = get(a, "/api/stacksav");
    assert_eq!(r.status, 409);
    assert!(r
        .error()
        .contains("StackAndConquer files hold Mixtour games"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// "win in 31 plies for player 1 to move" from the old solver, which knows
/// nothing of table files, as the explorer words it.
fn old_solver_value(fen: &str) -> String {
    let (code, out) = stackfish(&["solve", "--fen", fen, "--method", "full"]);
    assert_eq!(code, Some(0), "{out}");
    let value = out
        .lines()
        .find_map(|l| l.strip_prefix("Value: "))
        .expect("a value line");
    let (result, rest) = value.split_once(" in ").expect("win/loss in N");
    let (plies, side) = rest.split_once(" plies for player ").expect("plies");
    let colour = if side.starts_with('1') { "Red" } else { "Blue" };
    let verb = if result == "win" { "wins" } else { "loses" };
    format!("{colour} to move {verb} in {plies} plies")
}

#[test]
fn the_silo_explorer_shows_the_tables_values() {
    const SMALL: &str = "11/22/11/22 1";
    let dir = temp_dir("silo-tables");
    let table = dir.join("small.tbl");
    let (code, out) = stackfish(&["solve", "--fen", SMALL, "--write", table.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{out}");
    let (tables, notes) = stackfish::tablebase::TableSet::open_folder(&dir).expect("opens");
    assert!(notes.is_empty(), "{notes:?}");
    let srv = WebServer::start_with(
        "127.0.0.1",
        0,
        stackfish::web::ServeOptions {
            silo_tables: Some(tables),
            ..Default::default()
        },
    )
    .expect("server starts");
    let a = srv.addr();
    let s = ok(a, "/api/new", json!({"variant": "silo", "engine": "none"}));
    assert_eq!(s["silo_tables"], json!(["1 x 4 row, 4 + 4 checkers"]));
    // The standard 1 x 6 start: no table of it.
    assert_eq!(s["table"], Value::Null);
    let s = ok(a, "/api/fen", json!({"fen": SMALL}));
    let view = &s["table"];
    assert_eq!(view["value"], old_solver_value(SMALL));
    assert_eq!(view["config"], "1 x 4 row, 4 + 4 checkers");
    let mut listed: Vec<String> = view["moves"]
        .as_array()
        .expect("moves")
        .iter()
        .map(|m| m["move"].as_str().unwrap().to_string())
        .collect();
    // Every legal move, each with the old solver's value after it; the best
    // (the fastest win) first.
    let first = view["moves"][0].clone();
    for m in view["moves"].as_array().unwrap() {
        let after = ok(a, "/api/move", json!({"move": m["move"]}));
        let child = after["fen"].as_str().unwrap();
        assert_eq!(m["value"], old_solver_value(child), "after {}", m["move"]);
        assert_eq!(after["table"]["value"], m["value"]);
        ok(a, "/api/undo", json!({}));
        assert!(
            m["plies"].as_u64().unwrap() >= first["plies"].as_u64().unwrap()
                || m["result"] != "win"
        );
    }
    assert_eq!(first["result"], "win");
    assert_eq!(
        first["plies"].as_u64(),
        view["plies"].as_u64().map(|p| p - 1)
    );
    let mut legal: Vec<String> = s["legal_moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap().to_string())
        .collect();
    listed.sort();
    legal.sort();
    assert_eq!(listed, legal);
    // Other games: no explorer.
    let s = ok(
        a,
        "/api/new",
        json!({"variant": "mixtour", "engine": "none"}),
    );
    assert_eq!(s["table"], Value::Null);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn serve_refuses_a_silo_table_folder_it_cannot_read() {
    let (code, out) = stackfish(&[
        "serve",
        "--port",
        "0",
        "--silo-tables",
        "/nonexistent/stackfish-tables",
    ]);
    assert_eq!(code, Some(2), "{out}");
    assert!(
        out.contains("error: cannot read table folder /nonexistent/stackfish-tables"),
        "{out}"
    );
}

/// Player 2 to move with one saving move, c2e2; 2c2e2 instead lets player
/// 1 win at once (a "save 2" of the tactics suite).
const SAVE: &str = "x,2212,x,1,x/x,21,x3/x5/x2,2121,x,22/x,12,x2,1 2 13,11 0,0 1 e1e2";

#[test]
fn a_review_by_the_servers_engine_marks_the_blunder_and_loads_back() {
    let srv = server();
    let a = srv.addr();
    ok(a, "/api/new", json!({"engine": "none"}));
    let s = ok(a, "/api/fen", json!({"fen": SAVE, "moves": "2c2e2"}));
    assert_eq!(moves(&s), ["2c2e2"]);
    let s = ok(a, "/api/review/start", json!({"nodes": 50_000}));
    assert_eq!(s["review"]["total"], 2);
    let s = wait_for(a, 30, "the review", |s| s["review"]["state"] == "done");
    assert_eq!(s["marks"], json!(["blunder"]));
    assert_eq!(s["review"]["moves"][0]["best"], "c2e2");
    assert_eq!(s["evals"][1]["mate"], 1, "player 1 wins at once: {s}");
    let pgn = get(a, "/api/review/pgn");
    assert_eq!(pgn.status, 200);
    assert!(pgn
        .header("Content-Disposition")
        .unwrap()
        .starts_with("attachment; filename=\"stackfish-mixtour-1-review.pgn\""));
    assert!(pgn.body.contains("2c2e2 $4"), "{}", pgn.body);
    // The annotated game reads back as the same game.
    ok(a, "/api/new", json!({"engine": "none"}));
    let s = ok(a, "/api/load", json!({"text": pgn.body, "name": "r.pgn"}));
    assert_eq!(
        (s["start_fen"].as_str(), moves(&s)),
        (Some(SAVE), vec!["2c2e2".to_string()])
    );
    assert_eq!(s["review"], Value::Null);
    // A game the goal ended: its last position is the result, not searched.
    let s = ok(a, "/api/fen", json!({"fen": WIN_IN_ONE, "moves": "a5a1"}));
    assert_eq!(s["outcome"]["over"], true);
    ok(a, "/api/review/start", json!({"nodes": 1_000}));
    let s = wait_for(a, 30, "the review", |s| s["review"]["state"] == "done");
    assert_eq!(s["review"]["total"], 1);
    assert_eq!(s["evals"][1]["mate"], 1);
    let won = s["fen"].clone();
    // A move list with a bad move names it; the game stays.
    let r = post(
        a,
        "/api/fen",
        &json!({"fen": START, "moves": "c3 zz9"}).to_string(),
    );
    assert_eq!(r.status, 400);
    assert!(
        r.error().starts_with("move 2 of the moves, zz9: "),
        "{}",
        r.body
    );
    assert_eq!(state(a)["fen"], won);
}

#[test]
fn a_silo_review_takes_the_tables_exact_values() {
    const SMALL: &str = "11/22/11/22 1";
    let dir = temp_dir("silo-review-tables");
    let table = dir.join("small.tbl");
    let (code, out) = stackfish(&["solve", "--fen", SMALL, "--write", table.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{out}");
    let (tables, _) = stackfish::tablebase::TableSet::open_folder(&dir).expect("opens");
    let srv = WebServer::start_with(
        "127.0.0.1",
        0,
        stackfish::web::ServeOptions {
            silo_tables: Some(tables),
            ..Default::default()
        },
    )
    .expect("server starts");
    let a = srv.addr();
    ok(a, "/api/new", json!({"variant": "silo", "engine": "none"}));
    let mut s = ok(a, "/api/fen", json!({"fen": SMALL}));
    // Along the table's best line, the first position whose side to move
    // wins but has a move that throws the win away.
    let mut path: Vec<String> = Vec::new();
    let (best, thrown) = loop {
        let view = s["table"].clone();
        assert!(view.is_object(), "the table covers the line: {s}");
        let best = view["moves"][0]["move"].as_str().unwrap().to_string();
        let thrown = view["moves"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["result"] != "win")
            .map(|m| m["move"].as_str().unwrap().to_string());
        if let (true, Some(thrown)) = (view["result"] == "win", thrown) {
            break (best, thrown);
        }
        assert!(path.len() < 40, "no win to throw away along {path:?}");
        s = ok(a, "/api/move", json!({"move": best}));
        path.push(best);
    };
    // The best move keeps the win: nothing marked; the other throws it
    // away: a blunder, with the table's best move as the better one. The
    // values are the table's, forced wins and losses, at a budget far too
    // small to see them by search.
    for (mv, mark) in [(&best, Value::Null), (&thrown, json!("blunder"))] {
        let line = [path.clone(), vec![mv.clone()]].concat();
        ok(
            a,
            "/api/fen",
            json!({"fen": SMALL, "moves": line.join(" ")}),
        );
        ok(a, "/api/review/start", json!({"nodes": 1_000}));
        let s = wait_for(a, 30, "the review", |s| s["review"]["state"] == "done");
        let mut marks = vec![Value::Null; path.len()];
        marks.push(mark.clone());
        assert_eq!(s["marks"], json!(marks), "{line:?}: {s}");
        let n = path.len();
        let before = s["evals"][n]["mate"].as_i64().unwrap();
        assert_eq!(
            before > 0,
            n.is_multiple_of(2),
            "the winner's side, exact: {s}"
        );
        let after = &s["evals"][n + 1];
        if mark.is_null() {
            assert_eq!(
                after["mate"].as_i64().map(|m| m > 0),
                Some(before > 0),
                "{after}"
            );
        } else {
            assert_eq!(s["review"]["moves"][n]["best"], best.as_str());
            assert_ne!(
                after["mate"].as_i64().map(|m| m > 0),
                Some(before > 0),
                "{after}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn every_game_the_board_plays_is_reviewed() {
    let srv = server();
    let a = srv.addr();
    let games = [
        json!({"variant": "mixtour-5", "engine": "none", "board": "square_5x5_no_corners"}),
        json!({"variant": "silo", "engine": "none"}),
        json!({"variant": "coinstack", "engine": "none"}),
        json!({"variant": "focus", "engine": "none"}),
        json!({"variant": "castle", "engine": "none"}),
    ];
    for game in games {
        let mut s = ok(a, "/api/new", game.clone());
        for i in 0..4 {
            let legal = s["legal_moves"].as_array().unwrap();
            let mv = legal[(i * 5) % legal.len()].clone();
            s = ok(a, "/api/move", json!({"move": mv}));
        }
        ok(a, "/api/review/start", json!({"nodes": 1_000}));
        let s = wait_for(a, 60, "the review", |s| s["review"]["state"] != "running");
        assert_eq!(s["review"]["state"], "done", "{game}: {}", s["review"]);
        assert_eq!(s["review"]["total"], 5, "{game}");
        assert!(
            s["evals"].as_array().unwrap().iter().all(|e| e.is_object()),
            "{game}: every position evaluated: {}",
            s["evals"]
        );
        let accuracy = &s["review"]["accuracy"];
        assert!(
            accuracy["p1"].is_number() && accuracy["p2"].is_number(),
            "{game}: {accuracy}"
        );
        let pgn = get(a, "/api/review/pgn");
        assert_eq!(pgn.status, 200, "{game}: {}", pgn.body);
    }
}
