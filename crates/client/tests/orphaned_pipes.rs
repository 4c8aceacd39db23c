//! An engine that leaves a descendant in its own session holding its stdout
//! and stderr: killing and restarting it must not leak reader threads or
//! pipe descriptors (issue 23). Alone in its own test binary, because it
//! counts the threads and descriptors of the whole process.

use std::path::Path;
use std::time::{Duration, Instant};

use stackfish_client::transport::{ChildTransport, Recv, Transport};

fn count(dir: &str) -> usize {
    std::fs::read_dir(dir).map(|d| d.count()).unwrap_or(0)
}

#[test]
fn restarting_an_engine_whose_descendant_keeps_its_pipes_leaks_nothing() {
    const RESTARTS: usize = 12;
    // The first engine starts the one spawner thread every later engine
    // shares (it lives as long as the process): part of the baseline.
    let mut first = ChildTransport::spawn(Path::new("true"), &[], None).unwrap();
    first.close(Duration::from_secs(5));
    drop(first);
    let threads_before = count("/proc/self/task");
    let fds_before = count("/proc/self/fd");
    let mut helpers = Vec::new();
    for _ in 0..RESTARTS {
        // The "engine" starts a helper in a session of its own (out of reach
        // of the group kill) that inherits its stdout and stderr, then hangs.
        let mut engine = ChildTransport::spawn(
            Path::new("sh"),
            &["-c".into(), "setsid sleep 20 & echo $!; sleep 20".into()],
            None,
        )
        .unwrap();
        match engine.recv(Instant::now() + Duration::from_secs(10)) {
            Recv::Line(pid) => helpers.push(pid),
            other => panic!("no helper pid: {other:?}"),
        }
        engine.close(Duration::from_millis(10));
        drop(engine);
    }
    // The readers may take a moment to notice; give them a generous while.
    let until = Instant::now() + Duration::from_secs(5);
    let (mut threads, mut fds);
    loop {
        threads = count("/proc/self/task");
        fds = count("/proc/self/fd");
        if (threads <= threads_before && fds <= fds_before) || Instant::now() > until {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    for pid in &helpers {
        if let Ok(pid) = pid.parse::<libc::pid_t>() {
            // Safety: kill(2) on the helpers this test started.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
        }
    }
    assert!(
        threads <= threads_before,
        "threads {threads_before} -> {threads} after {RESTARTS} restarts"
    );
    assert!(
        fds <= fds_before,
        "descriptors {fds_before} -> {fds} after {RESTARTS} restarts"
    );
}
