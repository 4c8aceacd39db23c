//! Whether a process has ended, read from Linux's /proc: for the tests of
//! the transport's kills (`src/transport.rs` and `tests/kill_all.rs`
//! include this file by its path).

use std::time::{Duration, Instant};

/// Whether a process is gone (or a zombie nobody reaped yet).
pub fn gone(pid: &str) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        // `pid (comm) S ...`: the state follows the last ')'.
        Ok(stat) => stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z')),
    }
}

/// Whether a process is gone within `wait`: a kill lands at once, but the
/// process may take a moment to end.
pub fn gone_within(pid: &str, wait: Duration) -> bool {
    let until = Instant::now() + wait;
    while !gone(pid) && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(10));
    }
    gone(pid)
}
