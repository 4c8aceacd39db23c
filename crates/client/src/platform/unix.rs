//! Unix: the engine leads a process group of its own; killing the group
//! ends the helpers it started, and a wake pipe stops the pipe readers.

use std::io::Read;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Child, Command, ExitStatus};
use std::sync::Arc;

/// The engine's process group: the engine's pid is its id.
pub(crate) struct Group;

impl Group {
    /// Starts `command` in a process group of its own, so Ctrl-C in the
    /// terminal reaches only the arena.
    pub(crate) fn spawn(command: &mut Command) -> std::io::Result<(Child, Group)> {
        let child = command.process_group(0).spawn()?;
        Ok((child, Group))
    }

    /// Kills every process in the group. The caller has not reaped `child`.
    pub(crate) fn kill(&self, child: &Child) {
        let pgid = child.id() as libc::pid_t;
        // Safety: kill(2) with a negative pid signals the process group we
        // created for this child (process_group(0) makes its pid the pgid);
        // the child is not reaped yet, so the id cannot have been reused.
        unsafe {
            libc::kill(-pgid, libc::SIGKILL);
        }
    }
}

/// Whether the process has exited, without reaping it.
pub(crate) fn has_exited(child: &Child) -> bool {
    // Safety: an all-zero siginfo_t is a valid value; waitid(2) with
    // WNOWAIT only looks at our own child and leaves it unreaped.
    unsafe {
        let mut info: libc::siginfo_t = std::mem::zeroed();
        let rc = libc::waitid(
            libc::P_PID,
            child.id() as libc::id_t,
            &mut info,
            libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
        );
        rc == 0 && info.si_pid() != 0
    }
}

/// `exit status 101` or `killed by signal 9`.
pub(crate) fn describe_exit(status: ExitStatus) -> String {
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exit status {code}"),
        (None, Some(sig)) => format!("killed by signal {sig}"),
        _ => "exited".to_string(),
    }
}

/// The read end of the wake pipe, shared by an engine's two readers.
pub(crate) type Wake = OwnedFd;
/// The write end: dropping it stops the readers.
pub(crate) type Stop = OwnedFd;

/// A pipe (read end, write end), both close-on-exec so engines started
/// later do not inherit them (std's pipe sets the flag as it creates them
/// where the system can: `pipe2` on Linux).
pub(crate) fn stop_switch() -> std::io::Result<(Wake, Stop)> {
    let (read, write) = std::io::pipe()?;
    Ok((read.into(), write.into()))
}

/// An engine's output pipe that reads as end of input once the write end of
/// `wake` is closed, whoever else still holds the pipe open (a helper that
/// left the group, in a session of its own).
pub(crate) struct Stoppable<R> {
    pipe: R,
    wake: Arc<Wake>,
}

impl<R> Stoppable<R> {
    pub(crate) fn new(pipe: R, wake: Arc<Wake>) -> Self {
        Stoppable { pipe, wake }
    }
}

impl<R: Read + AsRawFd> Read for Stoppable<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let mut fds = [
            libc::pollfd {
                fd: self.pipe.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            },
            libc::pollfd {
                fd: self.wake.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            },
        ];
        loop {
            // Safety: poll(2) on two descriptors this struct keeps open.
            let n = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, -1) };
            if n >= 0 {
                break;
            }
            let err = std::io::Error::last_os_error();
            if err.kind() != std::io::ErrorKind::Interrupted {
                return Err(err);
            }
        }
        if fds[1].revents != 0 {
            // The engine was killed: stop, even if a descendant keeps the
            // pipe open.
            return Ok(0);
        }
        self.pipe.read(buf)
    }
}
