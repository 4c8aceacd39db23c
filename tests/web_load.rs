//! `stackfish serve` under load, in this process: 50 boards analysing at
//! once, each followed by an event stream. Every stream gets the engine's
//! lines, every stream ends when its server shuts down, and afterwards the
//! process has the threads and file descriptors it had before (Linux: read
//! from /proc/self). Behaviour with generous bounds; the figures are printed.

mod web_support;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use serde_json::Value;
use stackfish::web::WebServer;
use web_support::{counts, open_events, post_raw};

const BOARDS: usize = 50;

fn post(addr: SocketAddr, path: &str, body: &str) -> u16 {
    post_raw(addr, path, "", body).0
}

/// The body of `GET path`.
fn get(addr: SocketAddr, path: &str) -> String {
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    )
    .expect("send");
    let mut answer = String::new();
    let _ = s.read_to_string(&mut answer);
    assert!(answer.starts_with("HTTP/1.1 200"), "{path}: {answer}");
    answer
        .split_once("\r\n\r\n")
        .map_or(String::new(), |(_, b)| b.to_string())
}

/// Threads and open file descriptors of this process.
fn own_counts() -> (usize, usize) {
    counts(std::process::id())
}

/// Reads the stream until a state whose analysis has a line (a depth and a
/// principal variation); false if the stream ends or `until` passes first.
fn analysis_line(stream: &mut TcpStream, until: Instant) -> bool {
    let mut seen = String::new();
    let mut buf = [0u8; 65536];
    while Instant::now() < until {
        while let Some(at) = seen.find("event: state\ndata: ") {
            let rest = &seen[at + "event: state\ndata: ".len()..];
            let Some(end) = rest.find("\n\n") else { break };
            let state: Value = serde_json::from_str(&rest[..end]).expect("a JSON state");
            seen = rest[end..].to_string();
            let a = &state["analysis"];
            if a["depth"].as_u64().is_some_and(|d| d >= 1)
                && a["pv"].as_array().is_some_and(|pv| !pv.is_empty())
            {
                return true;
            }
        }
        match stream.read(&mut buf) {
            Ok(0) => return false,
            Ok(n) => seen.push_str(&String::from_utf8_lossy(&buf[..n])),
            Err(e)
                if e.kind() == std::io::ErrorKind::WouldBlock
                    || e.kind() == std::io::ErrorKind::TimedOut => {}
            Err(_) => return false,
        }
    }
    false
}

/// Whether the stream ends (EOF or reset) before `until`.
fn ends(stream: &mut TcpStream, until: Instant) -> bool {
    let mut buf = [0u8; 65536];
    while Instant::now() < until {
        match stream.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => {}
            Err(e)
                if e.kind() == std::io::ErrorKind::WouldBlock
                    || e.kind() == std::io::ErrorKind::TimedOut => {}
            Err(_) => return true,
        }
    }
    false
}

#[test]
fn fifty_boards_analysing_at_once_stream_their_lines_and_leave_nothing_behind() {
    // One server up and down first, so that what stays for the process's
    // life (the allocator's arenas, the test harness's threads) is counted
    // in the baseline.
    WebServer::start("127.0.0.1", 0).expect("server").shutdown();
    let before = own_counts();
    let start = Instant::now();
    let servers: Vec<WebServer> = (0..BOARDS)
        .map(|_| WebServer::start("127.0.0.1", 0).expect("server starts"))
        .collect();
    let mut streams = Vec::new();
    for server in &servers {
        let a = server.addr();
        assert_eq!(post(a, "/api/new", r#"{"engine":"none"}"#), 200);
        let stream = open_events(a);
        // Short reads: the test goes round the 50 streams in turn.
        stream
            .set_read_timeout(Some(Duration::from_millis(200)))
            .unwrap();
        streams.push(stream);
    }
    let started = start.elapsed();
    for server in &servers {
        assert_eq!(post(server.addr(), "/api/analyse", r#"{"on":true}"#), 200);
    }
    let analysing = start.elapsed();
    let during = own_counts();
    let until = Instant::now() + Duration::from_secs(20);
    for (i, stream) in streams.iter_mut().enumerate() {
        assert!(
            analysis_line(stream, until),
            "board {i}: no analysis line on its stream"
        );
    }
    let lines_in = start.elapsed();
    // One board's metrics say what it is doing.
    let metrics = get(servers[0].addr(), "/metrics");
    for (name, least) in [
        ("serve_event_streams", 1.0),
        ("serve_searches_started_total", f64::INFINITY),
        (
            r#"serve_requests_total{method="POST",path="/api/analyse",status="200"}"#,
            1.0,
        ),
        (
            r#"serve_requests_total{method="GET",path="/api/events",status="200"}"#,
            1.0,
        ),
    ] {
        let value = metrics
            .lines()
            .find_map(|l| {
                l.strip_prefix(name)?
                    .strip_prefix(' ')?
                    .trim()
                    .parse::<f64>()
                    .ok()
            })
            .unwrap_or_else(|| panic!("no {name} in {metrics}"));
        // INFINITY: at least one (the analysis may have been restarted).
        let ok = if least.is_infinite() {
            value >= 1.0
        } else {
            value == least
        };
        assert!(ok, "{name} = {value}");
    }
    // Shut down side by side, as 50 processes stopped at once would.
    let stops: Vec<_> = servers
        .into_iter()
        .map(|server| std::thread::spawn(move || server.shutdown()))
        .collect();
    for stop in stops {
        stop.join().expect("a shutdown");
    }
    let shut_in = start.elapsed();
    let until = Instant::now() + Duration::from_secs(10);
    for (i, stream) in streams.iter_mut().enumerate() {
        assert!(
            ends(stream, until),
            "board {i}: the stream did not end at the shutdown"
        );
    }
    drop(streams);
    // The runtimes' blocking threads end within their keep-alive (1 s).
    let until = Instant::now() + Duration::from_secs(10);
    let mut after = own_counts();
    while after > before && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(100));
        after = own_counts();
    }
    eprintln!(
        "{BOARDS} boards: up with their streams after {:.1} s, all analysing after {:.1} s, every stream had an analysis line after {:.1} s, all shut down after {:.1} s; threads/fds before {before:?}, with {BOARDS} boards {during:?}, after {after:?}",
        started.as_secs_f64(),
        analysing.as_secs_f64(),
        lines_in.as_secs_f64(),
        shut_in.as_secs_f64()
    );
    if cfg!(target_os = "linux") {
        assert!(
            during.0 > before.0 + BOARDS,
            "the counts are not read: {during:?}"
        );
        assert!(after.0 <= before.0, "threads left: {before:?} -> {after:?}");
        assert!(
            after.1 <= before.1,
            "file descriptors left: {before:?} -> {after:?}"
        );
    }
}
