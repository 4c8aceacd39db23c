//! What starting, watching and killing an engine process needs from the
//! operating system: a process group on Unix, a Job object on Windows.
//!
//! Each side offers the same few items: `Group` (spawn an engine so that it
//! and every helper it starts can be killed as one), `has_exited` (without
//! reaping), `describe_exit`, and `Stoppable` / `stop_switch` (readers of an
//! engine's pipes that stop when the engine is killed, whoever still holds
//! the pipes open). `Group::reaped` tells it the engine's id is free again;
//! `kill_all` kills every engine still running (the user's last word before
//! it exits at once: a second Ctrl-C, a panic).

#[cfg(unix)]
mod unix;
#[cfg(unix)]
pub(crate) use unix::*;

#[cfg(windows)]
mod windows;
#[cfg(windows)]
pub(crate) use windows::*;

#[cfg(not(any(unix, windows)))]
compile_error!("the engine client runs engines on Unix and Windows only");
