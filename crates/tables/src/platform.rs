//! The one positioned read the prober needs, per operating system.

use std::fs::File;

/// Reads into `buf` from `offset` without moving any shared cursor, so
/// threads sharing one `File` never see each other's position.
#[cfg(unix)]
pub(crate) fn read_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
    use std::os::unix::fs::FileExt;
    file.read_at(buf, offset)
}

/// Reads into `buf` from `offset`. Windows' positioned read also moves the
/// file's cursor, which the prober never uses: every read names its offset.
/// A read at or past the end gives `Ok(0)` as on Unix.
#[cfg(windows)]
pub(crate) fn read_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
    use std::os::windows::fs::FileExt;
    file.seek_read(buf, offset)
}
