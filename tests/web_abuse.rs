//! `stackfish serve` under abusive clients: 1,000 requests that announce a
//! huge body, trickle their body byte by byte, or never finish their head,
//! against a server process on 127.0.0.1. Each must be answered with a 4xx
//! or dropped within the server's timeouts, and afterwards the server must
//! hold as many threads and file descriptors as before and still answer.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Abusive requests in all.
const REQUESTS: usize = 1_000;
/// Open at once: below the server's connection limit (256), so every one
/// reaches the timeouts under test rather than the limit.
const BATCH: usize = 250;
/// Each abusive request must be over by then: the server's head and body
/// deadlines are 5 s.
const OVER_WITHIN: Duration = Duration::from_secs(12);

struct Server {
    child: Child,
    addr: SocketAddr,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve() -> Server {
    let mut child = Command::new(env!("CARGO_BIN_EXE_stackfish"))
        .args(["serve", "--port", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("stackfish runs");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("a line");
    let port: u16 = line
        .strip_prefix("stackfish: play at http://127.0.0.1:")
        .and_then(|rest| rest.split('/').next())
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no URL in {line:?}"));
    Server {
        child,
        addr: SocketAddr::from(([127, 0, 0, 1], port)),
    }
}

/// Threads and open file descriptors of a process.
fn counts(pid: u32) -> (usize, usize) {
    let n = |dir: String| std::fs::read_dir(&dir).map_or(0, |d| d.count());
    (n(format!("/proc/{pid}/task")), n(format!("/proc/{pid}/fd")))
}

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
    let server = serve();
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
