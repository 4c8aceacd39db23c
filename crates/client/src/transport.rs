//! Moving lines to and from an engine with a deadline on every wait: a child
//! process in its own process group with reader and writer threads, or a
//! scripted fake for unit tests.

use std::io::{BufReader, Read, Write};

use crate::platform::{self, Group, Stoppable};
use stackfish_ugi::{read_line, Line};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Set by the SIGINT/SIGTERM handler: every wait returns `Interrupted`.
pub static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Longest line read from an engine; a longer one is dropped whole (and
/// reported as `Recv::TooLong`) so a runaway engine cannot exhaust memory.
pub use stackfish_ugi::MAX_LINE_BYTES;
/// Lines buffered from an engine before its reader thread waits for us.
const CHANNEL_LINES: usize = 4096;
/// How often a wait looks at the interrupt flag.
const POLL_SLICE: Duration = Duration::from_millis(25);
/// How long to wait for an exit status after the engine closed its output.
const EXIT_STATUS_WAIT: Duration = Duration::from_millis(300);

/// What a wait for the next engine line gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Recv {
    Line(String),
    /// A stdout line longer than `MAX_LINE_BYTES`, read to its end and
    /// dropped: a cut line is never passed on as a whole one.
    TooLong,
    /// A line the engine wrote to stderr (logged, otherwise ignored).
    Stderr(String),
    /// The deadline passed.
    Timeout,
    /// The engine closed its output; the text describes how it ended,
    /// e.g. `exit status 101` or `killed by signal 9`.
    Closed(String),
    /// The arena is being stopped (Ctrl-C).
    Interrupted,
}

/// The engine is gone: how it ended, e.g. `exit status 101` or `killed by
/// signal 9`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Gone(pub String);

/// A line-based connection to one engine.
pub trait Transport: Send {
    /// Queues a line (without newline). Never blocks; `Err` with the exit
    /// description when the engine is gone.
    fn send(&mut self, line: &str) -> Result<(), Gone>;
    /// The next line, or why there is none by `deadline`.
    fn recv(&mut self, deadline: Instant) -> Recv;
    /// Waits up to `grace` for the engine to exit by itself, then kills its
    /// whole process group. Idempotent.
    fn close(&mut self, grace: Duration);
}

enum Msg {
    Out(String),
    OutTooLong,
    Err(String),
    Eof,
}

/// An engine process. It runs in its own process group (a Job object on
/// Windows), so Ctrl-C in the terminal reaches only the arena, and killing
/// the group also ends any helper processes the engine started. A helper
/// that left the group (a session of its own) may keep the engine's output
/// pipes open after the kill: the reader threads then stop at the kill, not
/// at end of input.
pub struct ChildTransport {
    child: Child,
    group: Group,
    /// Dropping it (at the kill) makes both reader threads stop and close
    /// their ends of the pipes (on Unix the write end of a wake pipe).
    stop_readers: Option<platform::Stop>,
    to_writer: Option<mpsc::Sender<String>>,
    broken: Arc<AtomicBool>,
    rx: Receiver<Msg>,
    closed: Option<String>,
    reaped: bool,
    /// When a wait first saw the process exited with its output still open
    /// (a descendant holds it).
    exited_at: Option<Instant>,
}

impl ChildTransport {
    pub fn spawn(cmd: &Path, args: &[String], dir: Option<&Path>) -> std::io::Result<Self> {
        let mut command = Command::new(cmd);
        command
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(dir) = dir {
            command.current_dir(dir);
        }
        let (mut child, group) = Group::spawn(command)?;
        let (tx, rx) = mpsc::sync_channel(CHANNEL_LINES);
        let missing = || std::io::Error::other("child pipe missing");
        let stdout = child.stdout.take().ok_or_else(missing)?;
        let stderr = child.stderr.take().ok_or_else(missing)?;
        let stdin = child.stdin.take().ok_or_else(missing)?;
        let (wake, stop_readers) = platform::stop_switch()?;
        let wake = Arc::new(wake);
        let tx_err = tx.clone();
        let out = Stoppable::new(stdout, wake.clone());
        let err = Stoppable::new(stderr, wake);
        std::thread::spawn(move || read_lines(out, tx, stdout_msg, true));
        std::thread::spawn(move || read_lines(err, tx_err, stderr_msg, false));
        let broken = Arc::new(AtomicBool::new(false));
        let (to_writer, from_arena) = mpsc::channel::<String>();
        let broken_w = broken.clone();
        std::thread::spawn(move || write_lines(stdin, from_arena, broken_w));
        Ok(ChildTransport {
            child,
            group,
            stop_readers: Some(stop_readers),
            to_writer: Some(to_writer),
            broken,
            rx,
            closed: None,
            reaped: false,
            exited_at: None,
        })
    }

    /// Describes how the process ended, waiting briefly for it to exit.
    fn exit_text(&mut self) -> String {
        let until = Instant::now() + EXIT_STATUS_WAIT;
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => {
                    self.mark_reaped();
                    return describe_exit(status);
                }
                Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(5)),
                Ok(None) => return "closed its output".to_string(),
                Err(e) => return format!("lost ({e})"),
            }
        }
    }

    /// How the process ended, once it has exited and its output stayed
    /// quiet for `EXIT_STATUS_WAIT`: a descendant may hold the pipes open
    /// for ever, so their end of input is not waited for.
    fn exited_quietly(&mut self) -> Option<String> {
        if !self.reaped && !self.has_exited() {
            return None;
        }
        let since = *self.exited_at.get_or_insert_with(Instant::now);
        if since.elapsed() < EXIT_STATUS_WAIT {
            return None;
        }
        // The zombie still holds its pid, so the group kill cannot hit a
        // stranger; it ends the helpers left in the group, then reaps.
        self.kill_group();
        match self.child.try_wait() {
            Ok(Some(status)) => Some(describe_exit(status)),
            _ => Some("exited".to_string()),
        }
    }

    /// The process is reaped: its id is free for the system to reuse.
    fn mark_reaped(&mut self) {
        self.reaped = true;
        self.group.reaped();
    }

    /// Whether the process has exited, without reaping it.
    fn has_exited(&self) -> bool {
        platform::has_exited(&self.child)
    }

    fn kill_group(&mut self) {
        // Nothing more is read from an engine being killed or already gone.
        self.stop_readers = None;
        if self.reaped {
            return;
        }
        self.group.kill(&self.child);
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.mark_reaped();
    }
}

/// Kills every engine this process started that still runs, with the
/// helpers in its process group (on Windows nothing: each engine's Job
/// object dies with the process). For the last moments of a process that
/// exits at once (a second Ctrl-C, a panic): on Unix it uses only atomics
/// and kill(2), so a signal handler may call it. On Linux the kernel kills
/// the engines anyway when the process dies, however it dies.
pub fn kill_all_engines() {
    platform::kill_all();
}

/// How an engine ended: `exit status 101`, `killed by signal 9` (Unix),
/// `exit status 0xC0000005` (a Windows crash code).
pub fn describe_exit(status: ExitStatus) -> String {
    platform::describe_exit(status)
}

fn stdout_msg(line: Line) -> Msg {
    match line {
        Line::Text(text) => Msg::Out(text),
        Line::TooLong => Msg::OutTooLong,
    }
}

/// Stderr is only logged: an over-long line there is logged as dropped.
fn stderr_msg(line: Line) -> Msg {
    match line {
        Line::Text(text) => Msg::Err(text),
        Line::TooLong => Msg::Err(format!(
            "<stderr line of more than {MAX_LINE_BYTES} bytes dropped>"
        )),
    }
}

fn read_lines<R: Read>(pipe: R, tx: SyncSender<Msg>, wrap: fn(Line) -> Msg, eof: bool) {
    let mut reader = BufReader::new(pipe);
    let mut buf = Vec::new();
    while let Some(line) = read_line(&mut reader, &mut buf) {
        if tx.send(wrap(line)).is_err() {
            return;
        }
    }
    if eof {
        let _ = tx.send(Msg::Eof);
    }
}

fn write_lines(mut stdin: ChildStdin, rx: Receiver<String>, broken: Arc<AtomicBool>) {
    for line in rx {
        let ok = stdin
            .write_all(line.as_bytes())
            .and_then(|_| stdin.write_all(b"\n"))
            .and_then(|_| stdin.flush());
        if ok.is_err() {
            broken.store(true, Ordering::SeqCst);
            return;
        }
    }
}

impl Transport for ChildTransport {
    fn send(&mut self, line: &str) -> Result<(), Gone> {
        if let Some(text) = &self.closed {
            return Err(Gone(text.clone()));
        }
        let sent = match &self.to_writer {
            Some(w) => w.send(line.to_string()).is_ok(),
            None => false,
        };
        if !sent || self.broken.load(Ordering::SeqCst) {
            let text = self.exit_text();
            self.closed = Some(text.clone());
            return Err(Gone(text));
        }
        Ok(())
    }

    fn recv(&mut self, deadline: Instant) -> Recv {
        if let Some(text) = &self.closed {
            return Recv::Closed(text.clone());
        }
        loop {
            if INTERRUPTED.load(Ordering::SeqCst) {
                return Recv::Interrupted;
            }
            let now = Instant::now();
            if now >= deadline {
                return Recv::Timeout;
            }
            match self.rx.recv_timeout((deadline - now).min(POLL_SLICE)) {
                Ok(Msg::Out(line)) => return Recv::Line(line),
                Ok(Msg::OutTooLong) => return Recv::TooLong,
                Ok(Msg::Err(line)) => return Recv::Stderr(line),
                Ok(Msg::Eof) | Err(RecvTimeoutError::Disconnected) => {
                    let text = self.exit_text();
                    self.closed = Some(text.clone());
                    return Recv::Closed(text);
                }
                Err(RecvTimeoutError::Timeout) => {
                    if let Some(text) = self.exited_quietly() {
                        self.closed = Some(text.clone());
                        return Recv::Closed(text);
                    }
                }
            }
        }
    }

    fn close(&mut self, grace: Duration) {
        // Dropping the writer closes the engine's stdin: end of input.
        self.to_writer = None;
        let until = Instant::now() + grace;
        while !self.reaped && Instant::now() < until {
            match self.child.try_wait() {
                Ok(Some(_)) => {
                    // Reaped: `kill_all` forgets it; the group kill below
                    // still reaches helpers left in the group, which keep
                    // the group's id from being reused.
                    self.group.reaped();
                    break;
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(5)),
                Err(_) => break,
            }
        }
        // Even after a clean exit, helpers left in the group are killed.
        self.kill_group();
    }
}

impl Drop for ChildTransport {
    fn drop(&mut self) {
        self.kill_group();
    }
}

/// Answers of a fake engine to each line it is sent; `None`: it exits.
type Script = Box<dyn FnMut(&str) -> Option<Vec<String>> + Send>;

/// A scripted engine for unit tests: `script` answers every line sent with
/// the lines the engine would print; `None` means the engine has exited.
pub struct FakeTransport {
    script: Script,
    queue: std::collections::VecDeque<String>,
    exited: bool,
    /// Everything the arena sent, for assertions.
    pub sent: Arc<std::sync::Mutex<Vec<String>>>,
}

impl FakeTransport {
    pub fn new(script: impl FnMut(&str) -> Option<Vec<String>> + Send + 'static) -> Self {
        FakeTransport {
            script: Box::new(script),
            queue: Default::default(),
            exited: false,
            sent: Default::default(),
        }
    }
}

impl Transport for FakeTransport {
    fn send(&mut self, line: &str) -> Result<(), Gone> {
        if self.exited {
            return Err(Gone("exit status 1".into()));
        }
        if let Ok(mut s) = self.sent.lock() {
            s.push(line.to_string());
        }
        match (self.script)(line) {
            Some(out) => self.queue.extend(out),
            None => self.exited = true,
        }
        Ok(())
    }

    fn recv(&mut self, _deadline: Instant) -> Recv {
        match self.queue.pop_front() {
            Some(line) => Recv::Line(line),
            None if self.exited => Recv::Closed("exit status 1".into()),
            None => Recv::Timeout,
        }
    }

    fn close(&mut self, _grace: Duration) {
        self.exited = true;
    }
}

// The tests start `sh` helpers and look at /proc: Linux only.
#[cfg(all(test, unix))]
#[path = "../tests/support/process.rs"]
mod process;

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    use process::{gone, gone_within};

    #[test]
    fn an_over_long_line_is_reported_and_dropped_not_cut() {
        // 100 KB of one line, then a normal reply.
        let mut t = ChildTransport::spawn(
            Path::new("sh"),
            &[
                "-c".into(),
                "head -c 100000 /dev/zero | tr '\\0' x; echo; echo bestmove a1".into(),
            ],
            None,
        )
        .unwrap();
        let far = Instant::now() + Duration::from_secs(10);
        assert_eq!(t.recv(far), Recv::TooLong);
        assert_eq!(t.recv(far), Recv::Line("bestmove a1".into()));
        t.close(Duration::from_millis(10));
    }

    #[test]
    fn an_engine_outlives_the_thread_that_started_it() {
        // Linux ties an engine's death signal to the thread that forked it:
        // an engine started by a thread that then ended (a seat restarted
        // by another worker, a search thread of the board) must live on.
        let mut t = std::thread::spawn(|| {
            ChildTransport::spawn(
                Path::new("sh"),
                &["-c".into(), "read x; echo got $x".into()],
                None,
            )
            .unwrap()
        })
        .join()
        .unwrap();
        // The death signal would have come at once; give it time to land.
        std::thread::sleep(Duration::from_millis(300));
        t.send("hello").unwrap();
        let far = Instant::now() + Duration::from_secs(10);
        assert_eq!(t.recv(far), Recv::Line("got hello".into()));
        t.close(Duration::from_millis(10));
    }

    #[test]
    fn close_kills_the_whole_process_group() {
        // The "engine" starts a helper and then hangs, like a wrapper script.
        let mut t = ChildTransport::spawn(
            Path::new("sh"),
            &["-c".into(), "sleep 30 & echo $!; sleep 30".into()],
            None,
        )
        .unwrap();
        let far = Instant::now() + Duration::from_secs(10);
        let Recv::Line(helper) = t.recv(far) else {
            panic!("no pid")
        };
        assert!(!gone(&helper), "helper runs");
        let t0 = Instant::now();
        t.close(Duration::from_millis(50));
        assert!(t0.elapsed() < Duration::from_secs(2));
        let gone = gone_within(&helper, Duration::from_secs(5));
        assert!(gone, "helper {helper} survived the group kill");
    }

    #[test]
    fn exit_is_reported_though_a_descendant_keeps_the_output_open() {
        let mut t = ChildTransport::spawn(
            Path::new("sh"),
            &["-c".into(), "setsid sleep 20 & echo $!; exit 5".into()],
            None,
        )
        .unwrap();
        let far = Instant::now() + Duration::from_secs(10);
        let Recv::Line(helper) = t.recv(far) else {
            panic!("no pid")
        };
        let got = t.recv(far);
        if let Ok(pid) = helper.parse::<libc::pid_t>() {
            // Safety: kill(2) on the helper this test started.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
        }
        assert_eq!(got, Recv::Closed("exit status 5".into()));
        t.close(Duration::from_millis(10));
    }

    #[test]
    fn child_exit_is_reported_and_waits_have_deadlines() {
        let mut t = ChildTransport::spawn(
            Path::new("sh"),
            &["-c".into(), "read x; echo got $x; exit 7".into()],
            None,
        )
        .unwrap();
        let start = Instant::now();
        assert_eq!(
            t.recv(Instant::now() + Duration::from_millis(50)),
            Recv::Timeout
        );
        assert!(start.elapsed() < Duration::from_secs(2));
        t.send("hello").unwrap();
        let far = Instant::now() + Duration::from_secs(10);
        assert_eq!(t.recv(far), Recv::Line("got hello".into()));
        assert_eq!(t.recv(far), Recv::Closed("exit status 7".into()));
        assert!(t.send("more").is_err());
        t.close(Duration::from_millis(10));
    }
}
