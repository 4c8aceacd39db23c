//! `stackfish serve` under abusive clients: 1,000 requests that announce a
//! huge body, trickle their body byte by byte, or never finish their head,
//! against a server process on 127.0.0.1. Each must be answered with a 4xx
//! or dropped within the server's timeouts, and afterwards the server must
//! hold as many threads and file descriptors as before and still answer.

mod web_support;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use web_support::{counts, post_raw, serve_process};

/// Abusive requests in all.
const REQUESTS: usize = 1_000;
/// Open at once: below the server's connection limit (256), so every one
/// reaches the timeouts under test rather than the limit.
const BATCH: usize = 250;
/// Each abusive request must be over by then: the server's head and body
/// deadlines are 5 s.
const OVER_WITHIN: Duration = Duration::from_secs(12);

/// The status of a plain GET, or why there is none.
fn get_status(addr: SocketAddr, path: &str) -> Result<u16, String> {
    let mut s = TcpStream::connect(addr).map_err(|e| e.to_string())?;
    s.set_read_timeout(Some(Duration::from_secs(10)))
        .map_err(|e| e.to_string())?;
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    )
    .map_err(|e| e.to_string())?;
    let mut answer = String::new();
    s.read_to_string(&mut answer).map_err(|e| e.to_string())?;
    answer
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .ok_or_else(|| format!("no status in {answer:?}"))
}

#[derive(Clone, Copy, Debug)]
enum Abuse {
    /// `Content-Length: 10^15` and a few bytes of it.
    HugeBody,
    /// A body of 100 bytes, one byte every 300 ms.
    Trickle,
    /// Half a request head, then nothing.
    UnfinishedHead,
}

/// How an abusive request ended: the status the server answered (if any)
/// and how long until the server closed the connection.
#[derive(Debug)]
struct Ending {
    abuse: Abuse,
    status: Option<u16>,
    closed_after: Option<Duration>,
}

fn abuse(addr: SocketAddr, kind: Abuse) -> Ending {
    let start = Instant::now();
    let mut ending = Ending {
        abuse: kind,
        status: None,
        closed_after: None,
    };
    let Ok(mut s) = TcpStream::connect(addr) else {
        return ending;
    };
    let _ = s.set_read_timeout(Some(Duration::from_millis(300)));
    let head = match kind {
        Abuse::HugeBody => "POST /api/move HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000000000000000\r\n\r\n{\"move\":".to_string(),
        Abuse::Trickle => "POST /api/move HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n".to_string(),
        Abuse::UnfinishedHead => "GET /api/state HTTP/1.1\r\nHost: 127.0".to_string(),
    };
    let _ = s.write_all(head.as_bytes());
    let mut answer = Vec::new();
    let mut buf = [0u8; 1024];
    while start.elapsed() < OVER_WITHIN + Duration::from_secs(3) {
        match s.read(&mut buf) {
            Ok(0) => {
                ending.closed_after = Some(start.elapsed());
                break;
            }
            Ok(n) => answer.extend_from_slice(&buf[..n]),
            // A signal, or a stop and continue, cuts a read on a socket with
            // a timeout short (signal(7)); that is no ending.
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                if let Abuse::Trickle = kind {
                    // The next byte; the write fails once the server is gone.
                    let _ = s.write_all(b" ");
                }
            }
            Err(_) => {
                ending.closed_after = Some(start.elapsed());
                break;
            }
        }
    }
    let text = String::from_utf8_lossy(&answer);
    ending.status = text
        .strip_prefix("HTTP/1.1 ")
        .and_then(|rest| rest.get(..3))
        .and_then(|c| c.parse().ok());
    ending
}

#[test]
fn a_thousand_abusive_requests_leave_nothing_behind() {
    let server = serve_process(&[], None, false);
    let (addr, pid) = (server.addr, server.child.id());
    assert_eq!(get_status(addr, "/api/state"), Ok(200));
    // Idle helper threads of the runtime end after a second.
    std::thread::sleep(Duration::from_millis(1500));
    let before = counts(pid);

    let kinds = [Abuse::HugeBody, Abuse::Trickle, Abuse::UnfinishedHead];
    let mut endings = Vec::with_capacity(REQUESTS);
    let mut peak = before;
    for batch in 0..REQUESTS.div_ceil(BATCH) {
        let n = BATCH.min(REQUESTS - batch * BATCH);
        let handles: Vec<_> = (0..n)
            .map(|i| {
                let kind = kinds[(batch * BATCH + i) % kinds.len()];
                std::thread::spawn(move || abuse(addr, kind))
            })
            .collect();
        std::thread::sleep(Duration::from_secs(2));
        let now = counts(pid);
        peak = (peak.0.max(now.0), peak.1.max(now.1));
        endings.extend(handles.into_iter().map(|h| h.join().expect("client")));
        // Other clients are served meanwhile.
        assert_eq!(get_status(addr, "/api/state"), Ok(200), "batch {batch}");
    }

    let late: Vec<&Ending> = endings
        .iter()
        .filter(|e| e.closed_after.is_none_or(|t| t > OVER_WITHIN))
        .collect();
    assert!(
        late.is_empty(),
        "{} of {REQUESTS} not over within {OVER_WITHIN:?}, e.g. {:?}",
        late.len(),
        late.first()
    );
    for e in &endings {
        match e.abuse {
            Abuse::HugeBody => assert_eq!(e.status, Some(413), "{e:?}"),
            Abuse::Trickle => assert_eq!(e.status, Some(408), "{e:?}"),
            // hyper closes a connection whose head is late without a word.
            Abuse::UnfinishedHead => assert!(e.status.is_none_or(|s| s == 408), "{e:?}"),
        }
    }
    let slowest = endings.iter().filter_map(|e| e.closed_after).max();

    // Sockets close and idle helper threads end within a few seconds.
    let mut after = counts(pid);
    let until = Instant::now() + Duration::from_secs(10);
    while after != before && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(200));
        after = counts(pid);
    }
    eprintln!(
        "web abuse: {REQUESTS} requests; threads/fds before {before:?}, peak {peak:?}, after {after:?}; slowest ended after {slowest:?}"
    );
    assert_eq!(after, before, "(threads, fds) before and after the abuse");
    assert_eq!(get_status(addr, "/"), Ok(200), "the page still answers");
    assert_eq!(get_status(addr, "/api/state"), Ok(200));
}

/// Stalled connections held by a local client: more than the server's
/// connection limit (256), each with half a request head.
const STALLED: usize = 270;
/// Normal requests made while they are held.
const NORMAL: usize = 184;

#[test]
fn stalled_connections_give_way_to_new_ones() {
    // Issue 23: 270 stalled connections made 170 of 184 normal requests
    // fail, because the server refused the new connections, not the stalled.
    let server = serve_process(&[], None, false);
    let addr = server.addr;
    let stalled: Vec<TcpStream> = (0..STALLED)
        .filter_map(|_| {
            let mut s = TcpStream::connect(addr).ok()?;
            s.write_all(b"GET /api/state HTTP/1.1\r\nHost: 127.0")
                .ok()?;
            Some(s)
        })
        .collect();
    assert_eq!(stalled.len(), STALLED, "the stalled clients connect");
    // Well inside the server's 5 s head deadline, which would free them too.
    let start = Instant::now();
    let failed: Vec<String> = (0..NORMAL)
        .filter_map(|_| match get_status(addr, "/api/state") {
            Ok(200) => None,
            Ok(other) => Some(format!("status {other}")),
            Err(e) => Some(e),
        })
        .collect();
    let took = start.elapsed();
    assert!(
        failed.is_empty(),
        "{} of {NORMAL} normal requests failed beside {STALLED} stalled connections in {took:?}, e.g. {:?}",
        failed.len(),
        failed.first()
    );
    drop(stalled);
}

/// The status of a POST of `{}` with extra header lines.
fn post_status(addr: SocketAddr, path: &str, extra: &str) -> u16 {
    post_raw(addr, path, extra, "{}").0
}

#[test]
fn only_the_page_itself_may_change_the_board() {
    let server = serve_process(&[], None, false);
    let addr = server.addr;
    let own = format!("Origin: http://127.0.0.1:{}\r\n", addr.port());
    // A tool sends neither header; the page sends its own origin. (With
    // no search running, a stop is answered 409: judged, not refused.)
    let same = format!("{own}Sec-Fetch-Site: same-origin\r\n");
    for allowed in ["", own.as_str(), same.as_str()] {
        assert_eq!(post_status(addr, "/api/stop", allowed), 409, "{allowed}");
        assert_eq!(post_status(addr, "/api/new", allowed), 200, "{allowed}");
    }
    for foreign in [
        "Origin: http://evil.example\r\n".to_string(),
        "Origin: null\r\n".to_string(),
        format!("Origin: http://127.0.0.1:{}\r\n", addr.port() ^ 1),
        "Sec-Fetch-Site: cross-site\r\n".to_string(),
        "Sec-Fetch-Site: same-site\r\n".to_string(),
        format!("{own}Sec-Fetch-Site: cross-site\r\n"),
    ] {
        assert_eq!(post_status(addr, "/api/stop", &foreign), 403, "{foreign}");
        assert_eq!(post_status(addr, "/api/new", &foreign), 403, "{foreign}");
    }
    // Reading stays open to every origin's GET (the page's own fetches).
    assert_eq!(get_status(addr, "/api/state"), Ok(200));
}
