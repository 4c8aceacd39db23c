//! Whether a secret file is private to its owner, per operating system.

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
