//! Unix: the engine leads a process group of its own; killing the group
//! ends the helpers it started, and a wake pipe stops the pipe readers.
//!
//! No engine outlives its user, however that ends. On Linux every engine
//! is started with `PR_SET_PDEATHSIG` (SIGKILL): the kernel kills it when
//! the thread that started it exits, which includes every way a process
//! dies (SIGKILL, the OOM killer, a panic, `_exit`). That thread is one
//! long-lived spawner thread (`spawn_on_spawner`), because a thread that
//! started an engine and then ended would take the engine with it (the
//! board server starts its engines from short-lived search threads, the
//! arena restarts engines on whichever worker needs them). Other Unixes
//! (macOS) have no such signal: there the user's own exit paths call
//! `kill_all` (the arena's second Ctrl-C and panics), and an engine of a
//! user killed by SIGKILL runs on. Either way, the helpers an engine starts
//! itself get no signal from the kernel: `kill_all` and the usual group
//! kill reach them, a SIGKILL of the user does not.

use std::io::Read;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Child, Command, ExitStatus};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Mutex, OnceLock};

/// Engines running at once that `kill_all` can reach; more still run, and
/// are killed by their users as usual (and on Linux by the kernel).
const LIVE_SLOTS: usize = 1024;

/// The process groups of the engines running now (0: a free slot). Atomics
/// only, so that `kill_all` may run in a signal handler.
static LIVE: [AtomicI32; LIVE_SLOTS] = [const { AtomicI32::new(0) }; LIVE_SLOTS];

/// The engine's process group: the engine's pid is its id.
pub(crate) struct Group {
    /// Its slot in `LIVE` while it runs.
    slot: Option<usize>,
}

impl Group {
    /// Starts `command` in a process group of its own, so Ctrl-C in the
    /// terminal reaches only the arena, and (on Linux) with a death signal
    /// tied to the spawner thread, which lives as long as the process.
    pub(crate) fn spawn(mut command: Command) -> std::io::Result<(Child, Group)> {
        command.process_group(0);
        die_with_parent(&mut command);
        let child = spawn_on_spawner(command)?;
        let slot = register(child.id() as libc::pid_t);
        Ok((child, Group { slot }))
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

    /// The child has been reaped: its id may be reused from now on, so
    /// `kill_all` must forget it.
    pub(crate) fn reaped(&mut self) {
        if let Some(slot) = self.slot.take() {
            LIVE[slot].store(0, Ordering::SeqCst);
        }
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        self.reaped();
    }
}

/// Takes a free slot of `LIVE` for the group `pgid`; `None` when all are taken.
fn register(pgid: libc::pid_t) -> Option<usize> {
    LIVE.iter().position(|slot| {
        slot.compare_exchange(0, pgid, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
    })
}

/// Kills the process group of every engine still running, at once. Only
/// atomics and kill(2): safe to call from a signal handler, and from a
/// panic hook whatever lock the panicking thread held. An engine reaped
/// between the look at its slot and the kill may have had its id reused;
/// the window is a few instructions on the way out of the process.
pub(crate) fn kill_all() {
    for slot in &LIVE {
        let pgid = slot.load(Ordering::SeqCst);
        if pgid > 0 {
            // Safety: kill(2) on a process group this process created and
            // has not reaped (its slot is cleared when it is reaped).
            unsafe {
                libc::kill(-pgid, libc::SIGKILL);
            }
        }
    }
}

/// On Linux: the child asks the kernel for SIGKILL when the thread that
/// forked it exits, then checks that its parent did not exit before the
/// request was in place (the classic race: it would then never come).
#[cfg(any(target_os = "linux", target_os = "android"))]
fn die_with_parent(command: &mut Command) {
    let parent = std::process::id() as libc::pid_t;
    // Safety: the closure runs in the forked child before exec and calls
    // only prctl(2), getppid(2) and _exit(2), which are async-signal-safe;
    // it allocates nothing (an OS error is a plain code).
    unsafe {
        command.pre_exec(move || {
            if libc::prctl(
                libc::PR_SET_PDEATHSIG,
                libc::SIGKILL as libc::c_ulong,
                0,
                0,
                0,
            ) != 0
            {
                return Err(std::io::Error::last_os_error());
            }
            if libc::getppid() != parent {
                libc::_exit(1);
            }
            Ok(())
        });
    }
}

/// Elsewhere there is no death signal: `kill_all` on the user's exit paths.
#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn die_with_parent(_command: &mut Command) {}

/// An engine to start and where its `Child` goes.
type SpawnRequest = (Command, Sender<std::io::Result<Child>>);

/// The spawner thread's inbox, started on first use.
static SPAWNER: OnceLock<Option<Mutex<Sender<SpawnRequest>>>> = OnceLock::new();

/// Starts `command` on the spawner thread: a thread that never exits, so a
/// death signal tied to it (`PR_SET_PDEATHSIG` follows the forking thread,
/// not the process) fires only when the whole process ends. If that thread
/// cannot be had, the calling thread starts the engine.
fn spawn_on_spawner(mut command: Command) -> std::io::Result<Child> {
    let inbox = SPAWNER.get_or_init(|| {
        let (tx, rx) = mpsc::channel::<SpawnRequest>();
        std::thread::Builder::new()
            .name("engine-spawner".into())
            .spawn(move || {
                for (mut command, reply) in rx {
                    let _ = reply.send(command.spawn());
                }
            })
            .ok()
            .map(|_| Mutex::new(tx))
    });
    let Some(inbox) = inbox else {
        return command.spawn();
    };
    let (reply, answer) = mpsc::channel();
    let sent = match inbox.lock() {
        Ok(tx) => tx.send((command, reply)).map_err(|e| e.0 .0),
        Err(_) => return command.spawn(),
    };
    match sent {
        Ok(()) => answer
            .recv()
            .unwrap_or_else(|_| Err(std::io::Error::other("the engine spawner thread is gone"))),
        Err(mut command) => command.spawn(),
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
