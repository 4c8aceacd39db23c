//! Windows: the engine runs in a Job object of its own. Every process it
//! starts joins the job and cannot leave it (the job allows no breakaway),
//! so terminating the job ends the engine and all its helpers, and with
//! them every holder of the engine's pipes; the job is also killed when the
//! arena's handle to it closes, even if the arena itself crashes.

use std::io::Read;
use std::os::windows::io::{AsRawHandle, FromRawHandle, OwnedHandle};
use std::os::windows::process::CommandExt;
use std::process::{Child, Command, ExitStatus};
use std::sync::Arc;

use windows_sys::Win32::Foundation::{CloseHandle, INVALID_HANDLE_VALUE, WAIT_OBJECT_0};
use windows_sys::Win32::System::Diagnostics::ToolHelp::{
    CreateToolhelp32Snapshot, Thread32First, Thread32Next, TH32CS_SNAPTHREAD, THREADENTRY32,
};
use windows_sys::Win32::System::JobObjects::{
    AssignProcessToJobObject, CreateJobObjectW, JobObjectExtendedLimitInformation,
    SetInformationJobObject, TerminateJobObject, JOBOBJECT_EXTENDED_LIMIT_INFORMATION,
    JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
};
use windows_sys::Win32::System::Threading::{
    OpenThread, ResumeThread, WaitForSingleObject, CREATE_NEW_PROCESS_GROUP, CREATE_SUSPENDED,
    THREAD_SUSPEND_RESUME,
};

/// The exit code every process of a terminated job gets.
const KILLED_EXIT_CODE: u32 = 1;

/// The engine's Job object.
pub(crate) struct Group {
    job: OwnedHandle,
}

impl Group {
    /// Starts `command` suspended, puts it in a new job, then lets it run:
    /// nothing it starts can escape the job, not even in its first
    /// instructions. A new console process group keeps Ctrl-C in the
    /// arena's console from reaching the engine.
    pub(crate) fn spawn(mut command: Command) -> std::io::Result<(Child, Group)> {
        let job = new_job()?;
        let mut child = command
            .creation_flags(CREATE_SUSPENDED | CREATE_NEW_PROCESS_GROUP)
            .spawn()?;
        let started = assign(&job, &child).and_then(|()| resume(child.id()));
        if let Err(e) = started {
            let _ = child.kill();
            let _ = child.wait();
            return Err(e);
        }
        Ok((child, Group { job }))
    }

    /// Terminates every process in the job.
    pub(crate) fn kill(&self, _child: &Child) {
        // Safety: the handle is our open job handle. A failure (the job is
        // already empty) leaves nothing to do.
        unsafe {
            TerminateJobObject(self.job.as_raw_handle(), KILLED_EXIT_CODE);
        }
    }

    /// Nothing to forget: the job handle, not the process id, names the group.
    pub(crate) fn reaped(&mut self) {}
}

/// Nothing to do: every engine's job is killed when its last handle
/// closes, and the process's handles close however it ends.
pub(crate) fn kill_all() {}

/// A job whose processes all die when its last handle closes.
fn new_job() -> std::io::Result<OwnedHandle> {
    // Safety: no security attributes and no name: a new anonymous job.
    let raw = unsafe { CreateJobObjectW(std::ptr::null(), std::ptr::null()) };
    if raw.is_null() {
        return Err(std::io::Error::last_os_error());
    }
    // Safety: `raw` is a new handle that nothing else owns.
    let job = unsafe { OwnedHandle::from_raw_handle(raw) };
    // Safety: an all-zero JOBOBJECT_EXTENDED_LIMIT_INFORMATION is a valid
    // value (no limits); the call reads exactly that many bytes of it.
    let ok = unsafe {
        let mut limits: JOBOBJECT_EXTENDED_LIMIT_INFORMATION = std::mem::zeroed();
        limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
        SetInformationJobObject(
            job.as_raw_handle(),
            JobObjectExtendedLimitInformation,
            (&limits as *const JOBOBJECT_EXTENDED_LIMIT_INFORMATION).cast(),
            std::mem::size_of::<JOBOBJECT_EXTENDED_LIMIT_INFORMATION>() as u32,
        )
    };
    if ok == 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(job)
}

fn assign(job: &OwnedHandle, child: &Child) -> std::io::Result<()> {
    // Safety: both handles are open: our job and our (unreaped) child.
    if unsafe { AssignProcessToJobObject(job.as_raw_handle(), child.as_raw_handle()) } == 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Resumes the one thread of the suspended process `pid`. std keeps the
/// thread handle of a spawned child to itself, so the thread is found by
/// its owner in a snapshot of the system's threads.
fn resume(pid: u32) -> std::io::Result<()> {
    // Safety: a snapshot of all threads; the handle is ours to close.
    let snapshot = unsafe { CreateToolhelp32Snapshot(TH32CS_SNAPTHREAD, 0) };
    if snapshot == INVALID_HANDLE_VALUE {
        return Err(std::io::Error::last_os_error());
    }
    // Safety: `snapshot` is a new handle that nothing else owns.
    let snapshot = unsafe { OwnedHandle::from_raw_handle(snapshot) };
    // Safety: an all-zero THREADENTRY32 with its size set is what
    // Thread32First expects; it writes only into that struct.
    let mut entry: THREADENTRY32 = unsafe { std::mem::zeroed() };
    entry.dwSize = std::mem::size_of::<THREADENTRY32>() as u32;
    let mut more = unsafe { Thread32First(snapshot.as_raw_handle(), &mut entry) } != 0;
    while more {
        if entry.th32OwnerProcessID == pid {
            // Safety: opens the thread by the id the snapshot gave; the
            // handle is closed below.
            let thread = unsafe { OpenThread(THREAD_SUSPEND_RESUME, 0, entry.th32ThreadID) };
            if thread.is_null() {
                return Err(std::io::Error::last_os_error());
            }
            // Safety: `thread` is the open handle from OpenThread.
            let count = unsafe { ResumeThread(thread) };
            let resumed = if count == u32::MAX {
                Err(std::io::Error::last_os_error())
            } else {
                Ok(())
            };
            // Safety: closes the handle opened above, once.
            unsafe { CloseHandle(thread) };
            return resumed;
        }
        // Safety: as Thread32First.
        more = unsafe { Thread32Next(snapshot.as_raw_handle(), &mut entry) } != 0;
    }
    Err(std::io::Error::other(
        "the engine process started with no thread to resume",
    ))
}

/// Whether the process has exited (its handle, which we hold, is signalled).
pub(crate) fn has_exited(child: &Child) -> bool {
    // Safety: a zero-timeout wait on our own open process handle.
    unsafe { WaitForSingleObject(child.as_raw_handle(), 0) == WAIT_OBJECT_0 }
}

/// `exit status 101`; an NTSTATUS crash code in hex, as Windows writes it:
/// `exit status 0xC0000005` (access violation).
pub(crate) fn describe_exit(status: ExitStatus) -> String {
    match status.code() {
        Some(code) if (code as u32) >= 0xC000_0000 => {
            format!("exit status 0x{:08X}", code as u32)
        }
        Some(code) => format!("exit status {code}"),
        None => "exited".to_string(),
    }
}

/// Nothing to share: terminating the job closes the pipes (see `Stoppable`).
pub(crate) type Wake = ();
/// Nothing to drop.
pub(crate) type Stop = ();

pub(crate) fn stop_switch() -> std::io::Result<(Wake, Stop)> {
    Ok(((), ()))
}

/// An engine's output pipe. It needs no wake-up of its own on Windows:
/// every process that can hold the pipe is in the engine's job, so
/// terminating the job ends them all and the read sees end of input.
pub(crate) struct Stoppable<R> {
    pipe: R,
}

impl<R> Stoppable<R> {
    pub(crate) fn new(pipe: R, _wake: Arc<Wake>) -> Self {
        Stoppable { pipe }
    }
}

impl<R: Read> Read for Stoppable<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.pipe.read(buf)
    }
}
