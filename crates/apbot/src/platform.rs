//! What differs per operating system in the bot: whether a secret file is
//! private to its owner, and how a search thread lowers its own priority
//! below the request handlers'. (The stop signals are stackfish-service's.)

use std::path::Path;

/// `Err` with the reason when others may read the file at `path`.
#[cfg(unix)]
pub(crate) fn check_private(path: &Path) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(path)
        .map_err(|e| e.to_string())?
        .permissions()
        .mode();
    if mode & 0o077 != 0 {
        return Err(format!(
            "readable by others (mode {:o}); chmod 600 it",
            mode & 0o777
        ));
    }
    Ok(())
}

/// Windows keeps who may read a file in its access list, which this bot
/// does not read: rather than trust a file it cannot check, it refuses it.
#[cfg(windows)]
pub(crate) fn check_private(_path: &Path) -> Result<(), String> {
    Err("cannot check on Windows that only its owner reads it; \
         give the secret in the environment variable instead"
        .to_string())
}

/// Whether the listeners set SO_REUSEADDR: on Unix it lets a restarted bot
/// bind while the old one's connections wait out TIME_WAIT (what the
/// standard library does there too); on Windows it would let another
/// process bind the same port.
pub(crate) const REUSE_ADDRESS: bool = cfg!(unix);

/// Lowers the calling thread's priority below the rest of the process, so
/// that a request handler that wakes up takes the CPU from a search at
/// once. `Err` with the reason when the system refused.
///
/// Linux keeps the nice value per thread: `setpriority(PRIO_PROCESS, 0)`
/// changes the calling thread alone (not POSIX, where it is the process).
/// Nice 19 is the lowest, so this never raises a priority. Against other
/// processes the bot competes as before: Linux schedules a session
/// (autogroup) or a systemd service (its cgroup) as one group, and nice
/// only divides the group's share among its own threads.
#[cfg(any(target_os = "linux", target_os = "android"))]
pub(crate) fn lower_this_thread() -> Result<&'static str, String> {
    // Safety: a plain system call on integers; it touches no memory.
    let r = unsafe { libc::setpriority(libc::PRIO_PROCESS, 0, 19) };
    if r != 0 {
        return Err(format!("setpriority: {}", std::io::Error::last_os_error()));
    }
    Ok("nice-19")
}

/// macOS: the "utility" quality of service, below the default class the
/// request handlers run in (setpriority there would lower the whole
/// process).
#[cfg(any(target_os = "macos", target_os = "ios"))]
pub(crate) fn lower_this_thread() -> Result<&'static str, String> {
    // Safety: sets the calling thread's own class; no memory is passed.
    let r = unsafe { libc::pthread_set_qos_class_self_np(libc::qos_class_t::QOS_CLASS_UTILITY, 0) };
    if r != 0 {
        return Err(format!(
            "pthread_set_qos_class_self_np: {}",
            std::io::Error::from_raw_os_error(r)
        ));
    }
    Ok("qos-utility")
}

/// Windows schedules by strict priority: a below-normal thread runs only
/// when no normal one of the process wants the CPU.
#[cfg(windows)]
pub(crate) fn lower_this_thread() -> Result<&'static str, String> {
    use windows_sys::Win32::System::Threading::{
        GetCurrentThread, SetThreadPriority, THREAD_PRIORITY_BELOW_NORMAL,
    };
    // Safety: GetCurrentThread returns a pseudo-handle to the calling
    // thread that needs no closing; SetThreadPriority only reads it.
    let ok = unsafe { SetThreadPriority(GetCurrentThread(), THREAD_PRIORITY_BELOW_NORMAL) };
    if ok == 0 {
        return Err(format!(
            "SetThreadPriority: {}",
            std::io::Error::last_os_error()
        ));
    }
    Ok("below-normal")
}

#[cfg(not(any(
    target_os = "linux",
    target_os = "android",
    target_os = "macos",
    target_os = "ios",
    windows
)))]
pub(crate) fn lower_this_thread() -> Result<&'static str, String> {
    Err("no per-thread priority on this system".to_string())
}

#[cfg(test)]
mod tests {
    #[cfg(target_os = "linux")]
    #[test]
    fn a_lowered_thread_has_nice_19_and_the_others_keep_theirs() {
        let before = std::fs::read_to_string("/proc/thread-self/stat").unwrap();
        let nice = |stat: &str| -> i64 {
            // Field 19 (nice), counted after the command's closing parenthesis.
            let rest = &stat[stat.rfind(')').unwrap() + 2..];
            rest.split(' ').nth(16).unwrap().parse().unwrap()
        };
        let mine = nice(&before);
        let lowered = std::thread::spawn(move || {
            super::lower_this_thread().unwrap();
            nice(&std::fs::read_to_string("/proc/thread-self/stat").unwrap())
        })
        .join()
        .unwrap();
        assert_eq!(lowered, 19);
        let after = nice(&std::fs::read_to_string("/proc/thread-self/stat").unwrap());
        assert_eq!(after, mine, "the calling thread's nice changed");
    }
}
