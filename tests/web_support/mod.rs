//! What the tests of `stackfish serve` (tests/web_*.rs) share: the server
//! as a child process with its address, raw HTTP requests, the event
//! stream, a scratch folder, and a process's threads and descriptors.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// An empty folder of this test process's own.
pub fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("stackfish-web-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// `stackfish serve --port 0` as a child process, killed when dropped.
pub struct ServeProcess {
    pub child: Child,
    pub addr: SocketAddr,
}

impl Drop for ServeProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The port of the URL in the server's first line, `stackfish: play at
/// http://127.0.0.1:<port>/`.
pub fn port_of(line: &str) -> Option<u16> {
    line.strip_prefix("stackfish: play at http://127.0.0.1:")
        .and_then(|rest| rest.split('/').next())
        .and_then(|p| p.parse().ok())
}

/// Starts `stackfish serve --port 0 ARGS` in `dir` (or here), with its
/// stderr piped when `keep_stderr` (else dropped), and waits for its URL.
pub fn serve_process(args: &[&str], dir: Option<&Path>, keep_stderr: bool) -> ServeProcess {
    let mut command = Command::new(env!("CARGO_BIN_EXE_stackfish"));
    command
        .args(["serve", "--port", "0"])
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(if keep_stderr {
            Stdio::piped()
        } else {
            Stdio::null()
        });
    if let Some(dir) = dir {
        command.current_dir(dir);
    }
    let mut child = command.spawn().expect("stackfish runs");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("a line");
    let port = port_of(&line).unwrap_or_else(|| {
        let _ = child.kill();
        panic!("no URL in {line:?}")
    });
    ServeProcess {
        child,
        addr: SocketAddr::from(([127, 0, 0, 1], port)),
    }
}

/// A POST of `body` as JSON with `extra` header lines (each ending in
/// `\r\n`); the status (0 when none came) and the whole answer.
pub fn post_raw(addr: SocketAddr, path: &str, extra: &str, body: &str) -> (u16, String) {
    let mut s = TcpStream::connect(addr).expect("connects");
    s.set_read_timeout(Some(Duration::from_secs(20)))
        .expect("timeout");
    write!(
        s,
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n{extra}\r\n{body}",
        addr.port(),
        body.len()
    )
    .expect("sends");
    let mut answer = String::new();
    let _ = s.read_to_string(&mut answer);
    let status = answer
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    (status, answer)
}

/// Opens `GET /api/events` (reads time out after 10 s); the stream is left
/// for the caller to read.
pub fn open_events(addr: SocketAddr) -> TcpStream {
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    write!(
        stream,
        "GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    )
    .expect("send");
    stream
}

/// Threads and open file descriptors of process `pid` (Linux, from /proc;
/// zeros elsewhere).
pub fn counts(pid: u32) -> (usize, usize) {
    let n = |dir: String| std::fs::read_dir(&dir).map_or(0, |d| d.count());
    (n(format!("/proc/{pid}/task")), n(format!("/proc/{pid}/fd")))
}
