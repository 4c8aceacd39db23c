//! `kill_all_engines`, the last word of a process that exits at once (the
//! arena's second Ctrl-C, a panic), in a test binary of its own: it kills
//! every engine of the process, so no other test may run beside it.
#![cfg(unix)]

use std::path::Path;
use std::time::{Duration, Instant};

use stackfish_client::transport::{kill_all_engines, ChildTransport, Recv, Transport};

#[cfg(target_os = "linux")]
#[path = "support/process.rs"]
mod process;

#[test]
#[cfg(target_os = "linux")]
fn kill_all_engines_kills_every_running_engine_and_its_helpers() {
    let far = Instant::now() + Duration::from_secs(10);
    let mut engines: Vec<(ChildTransport, String)> = (0..3)
        .map(|_| {
            // A wrapper that starts a helper, says its pid, and ignores
            // end of input and SIGTERM alike.
            let mut t = ChildTransport::spawn(
                Path::new("sh"),
                &[
                    "-c".into(),
                    "trap '' TERM; sleep 60 & echo $!; while :; do sleep 1; done".into(),
                ],
                None,
            )
            .unwrap();
            let Recv::Line(helper) = t.recv(far) else {
                panic!("no helper pid")
            };
            (t, helper)
        })
        .collect();
    // One of them already ended and was reaped: it is not killed again.
    let mut done =
        ChildTransport::spawn(Path::new("sh"), &["-c".into(), "exit 3".into()], None).unwrap();
    assert_eq!(done.recv(far), Recv::Closed("exit status 3".into()));
    kill_all_engines();
    for (t, helper) in &mut engines {
        assert_eq!(t.recv(far), Recv::Closed("killed by signal 9".into()));
        let gone = process::gone_within(helper, Duration::from_secs(5));
        assert!(gone, "helper {helper} survived");
    }
}
