//! The state directory: every accepted move notification is a file in
//! `pending/` before AP hears 202, and becomes a marker in `done/` once it
//! is settled (submitted, refused, or superseded), so that a restart
//! finishes what was pending and a duplicate is recognised.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
#[error("state directory {path}: {source}")]
pub struct StateError {
    pub path: PathBuf,
    #[source]
    pub source: std::io::Error,
}

/// One notification's name: the game and the number of moves it had.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct JobKey {
    pub game_id: String,
    pub plies: usize,
}

impl JobKey {
    /// A game id AP could send: 1 to 100 letters, digits, `-` and `_` (AP's
    /// ids are uuids). Anything else is refused before it names a file.
    pub fn new(game_id: &str, plies: usize) -> Option<JobKey> {
        let ok = !game_id.is_empty()
            && game_id.len() <= 100
            && game_id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        ok.then(|| JobKey {
            game_id: game_id.to_string(),
            plies,
        })
    }

    fn file_name(&self) -> String {
        format!("{}.{}", self.game_id, self.plies)
    }

    fn parse(name: &str) -> Option<JobKey> {
        let name = name.strip_suffix(".json").unwrap_or(name);
        let (game, plies) = name.rsplit_once('.')?;
        JobKey::new(game, plies.parse().ok()?)
    }
}

pub struct StateDir {
    pending: PathBuf,
    done: PathBuf,
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> StateError + '_ {
    move |source| StateError {
        path: path.to_path_buf(),
        source,
    }
}

impl StateDir {
    /// Opens (and creates) `dir` with its `pending/` and `done/`, and checks
    /// that it can be written.
    pub fn open(dir: &Path) -> Result<StateDir, StateError> {
        let state = StateDir {
            pending: dir.join("pending"),
            done: dir.join("done"),
        };
        for d in [&state.pending, &state.done] {
            fs::create_dir_all(d).map_err(io_error(d))?;
        }
        let probe = dir.join(".write-check");
        fs::write(&probe, b"ok").map_err(io_error(&probe))?;
        fs::remove_file(&probe).map_err(io_error(&probe))?;
        Ok(state)
    }

    /// Whether this notification was seen before (pending or settled).
    pub fn known(&self, key: &JobKey) -> bool {
        self.pending_path(key).exists() || self.done.join(key.file_name()).exists()
    }

    fn pending_path(&self, key: &JobKey) -> PathBuf {
        self.pending.join(format!("{}.json", key.file_name()))
    }

    /// Writes the notification's raw body durably (a temporary file,
    /// synced, renamed, and the directory synced).
    pub fn add(&self, key: &JobKey, body: &[u8]) -> Result<(), StateError> {
        let path = self.pending_path(key);
        let tmp = self.pending.join(format!(".{}.tmp", key.file_name()));
        let write = || -> std::io::Result<()> {
            let mut f = fs::File::create(&tmp)?;
            f.write_all(body)?;
            f.sync_all()?;
            fs::rename(&tmp, &path)?;
            fs::File::open(&self.pending)?.sync_all()
        };
        write().map_err(io_error(&path))
    }

    /// Settles a notification: its pending file goes, a marker with `note`
    /// (what became of it) stays.
    pub fn settle(&self, key: &JobKey, note: &str) -> Result<(), StateError> {
        let marker = self.done.join(key.file_name());
        fs::write(&marker, note).map_err(io_error(&marker))?;
        let path = self.pending_path(key);
        match fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(io_error(&path)(e)),
            _ => Ok(()),
        }
    }

    /// Whether a later notification of the same game is known: then this
    /// one was played or overtaken, and must not be submitted.
    pub fn superseded(&self, key: &JobKey) -> bool {
        [&self.pending, &self.done].iter().any(|dir| {
            fs::read_dir(dir)
                .into_iter()
                .flatten()
                .flatten()
                .any(|entry| {
                    entry
                        .file_name()
                        .to_str()
                        .and_then(JobKey::parse)
                        .is_some_and(|k| k.game_id == key.game_id && k.plies > key.plies)
                })
        })
    }

    /// The pending notifications with their bodies, oldest game state first.
    pub fn pending(&self) -> Result<Vec<(JobKey, Vec<u8>)>, StateError> {
        let mut jobs = Vec::new();
        for entry in fs::read_dir(&self.pending).map_err(io_error(&self.pending))? {
            let entry = entry.map_err(io_error(&self.pending))?;
            let name = entry.file_name();
            let Some(key) = name
                .to_str()
                .filter(|n| n.ends_with(".json"))
                .and_then(JobKey::parse)
            else {
                continue;
            };
            let body = fs::read(entry.path()).map_err(io_error(&entry.path()))?;
            jobs.push((key, body));
        }
        jobs.sort_by(|a, b| (a.0.plies, &a.0.game_id).cmp(&(b.0.plies, &b.0.game_id)));
        Ok(jobs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_notification_is_pending_until_settled_and_known_after() {
        let dir = std::env::temp_dir().join(format!("apbot-state-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let state = StateDir::open(&dir).unwrap();
        let key = JobKey::new("g-1", 4).unwrap();
        assert!(!state.known(&key));
        state.add(&key, b"{\"verb\":\"move\"}").unwrap();
        assert!(state.known(&key));
        assert_eq!(
            state.pending().unwrap(),
            vec![(key.clone(), b"{\"verb\":\"move\"}".to_vec())]
        );
        assert!(!state.superseded(&key));
        state.add(&JobKey::new("g-1", 6).unwrap(), b"{}").unwrap();
        assert!(state.superseded(&key));
        state.settle(&key, "submitted").unwrap();
        assert!(state.known(&key));
        assert_eq!(state.pending().unwrap().len(), 1);
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn game_ids_that_could_name_other_files_are_refused() {
        for id in ["", "../x", "a/b", "a.b", &"x".repeat(101)] {
            assert!(JobKey::new(id, 1).is_none(), "{id}");
        }
        assert!(JobKey::new("0f3e-AB_9", 1).is_some());
    }
}
