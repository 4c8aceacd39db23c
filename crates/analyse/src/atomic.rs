//! An output file that appears whole or not at all: written under a
//! temporary name beside its target and renamed over it once complete, so
//! that an interrupted run leaves no partial file that looks complete.
//! Dropped before [`AtomicFile::commit`], the temporary file is removed.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

pub struct AtomicFile {
    target: PathBuf,
    temp: PathBuf,
    file: Option<BufWriter<File>>,
}

impl AtomicFile {
    /// Starts writing what becomes `target`: the temporary file is
    /// `.<name>.partial-<pid>` in the same folder (a rename within one
    /// folder is atomic).
    pub fn create(target: &Path) -> io::Result<AtomicFile> {
        let name = target
            .file_name()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "not a file name"))?;
        let mut temp_name = std::ffi::OsString::from(".");
        temp_name.push(name);
        temp_name.push(format!(".partial-{}", std::process::id()));
        let temp = target.with_file_name(temp_name);
        let file = File::create(&temp)?;
        Ok(AtomicFile {
            target: target.to_path_buf(),
            temp,
            file: Some(BufWriter::new(file)),
        })
    }

    /// The temporary file's path, while it is being written.
    pub fn temp_path(&self) -> &Path {
        &self.temp
    }

    /// Everything is written: the file takes its name (replacing what was
    /// there).
    pub fn commit(mut self) -> io::Result<()> {
        if let Some(file) = self.file.take() {
            let file = file.into_inner().map_err(|e| e.into_error())?;
            file.sync_all()?;
            drop(file);
            if let Err(e) = std::fs::rename(&self.temp, &self.target) {
                let _ = std::fs::remove_file(&self.temp);
                return Err(e);
            }
        }
        Ok(())
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.file {
            Some(f) => f.write(buf),
            None => Err(io::Error::other("the file is already committed")),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.file {
            Some(f) => f.flush(),
            None => Ok(()),
        }
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if self.file.take().is_some() {
            let _ = std::fs::remove_file(&self.temp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("analyse-atomic-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn the_file_appears_only_when_committed() {
        let d = dir("commit");
        let target = d.join("out.pgn");
        std::fs::write(&target, "old").unwrap();
        let mut f = AtomicFile::create(&target).unwrap();
        f.write_all(b"new games").unwrap();
        assert!(f.temp_path().exists());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "old");
        let temp = f.temp_path().to_path_buf();
        f.commit().unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new games");
        assert!(!temp.exists());
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn an_abandoned_file_leaves_nothing() {
        let d = dir("drop");
        let target = d.join("out.json");
        let mut f = AtomicFile::create(&target).unwrap();
        f.write_all(b"half").unwrap();
        drop(f);
        assert_eq!(std::fs::read_dir(&d).unwrap().count(), 0);
        std::fs::remove_dir_all(&d).unwrap();
    }
}
