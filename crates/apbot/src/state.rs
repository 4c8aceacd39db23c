//! The state directory: every accepted move notification is a file in
//! `pending/` before AP hears 202, and becomes a marker in `done/` once it
//! is settled (submitted, refused, or superseded), so that a restart
//! finishes what was pending and a duplicate is recognised. Markers are
//! pruned by the rule of `prune`, so the folder stays as small as the games
//! in progress.

use std::collections::{HashMap, HashSet};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// A settled notification can be delivered again only with its signature,
/// whose timestamp is at most 300 s old (`key::REPLAY_WINDOW_SECS`) and at
/// most 300 s ahead: after twice that since it was settled, no copy of it
/// can pass the signature check any more.
pub const REPLAY_RETENTION: Duration = Duration::from_secs(2 * crate::key::REPLAY_WINDOW_SECS);
/// The first line of a marker whose move ended the game.
const OVER: &str = "game over";

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

/// Cloned for the thread that syncs its writes (two paths).
#[derive(Clone)]
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
        let file = self.add_unsynced(key, body)?;
        self.sync(vec![file])
    }

    /// Writes the notification's raw body to a temporary file and renames
    /// it into place, without waiting for the disk: from then on it
    /// survives the bot's end however it ends (the kernel holds it), and a
    /// power cut once `sync` has run on the file handed back.
    pub fn add_unsynced(&self, key: &JobKey, body: &[u8]) -> Result<fs::File, StateError> {
        let path = self.pending_path(key);
        let tmp = self.pending.join(format!(".{}.tmp", key.file_name()));
        let write = || -> std::io::Result<fs::File> {
            let mut f = fs::File::create(&tmp)?;
            f.write_all(body)?;
            fs::rename(&tmp, &path)?;
            Ok(f)
        };
        write().map_err(io_error(&path))
    }

    /// Syncs files `add_unsynced` wrote, then `pending/` itself (their
    /// names) once for all of them.
    pub fn sync(&self, files: Vec<fs::File>) -> Result<(), StateError> {
        for f in files {
            f.sync_all().map_err(io_error(&self.pending))?;
        }
        fs::File::open(&self.pending)
            .and_then(|d| d.sync_all())
            .map_err(io_error(&self.pending))
    }

    /// Settles a notification: its pending file goes, a marker with `note`
    /// (what became of it) stays, and the game's older markers go (the
    /// newest one tells that anything older is superseded). `ends_game`:
    /// the bot's move ended the game, so no later notification will come.
    pub fn settle(&self, key: &JobKey, note: &str, ends_game: bool) -> Result<(), StateError> {
        let marker = self.done.join(key.file_name());
        let text = if ends_game {
            format!("{OVER}\n{note}")
        } else {
            note.to_string()
        };
        fs::write(&marker, text).map_err(io_error(&marker))?;
        let path = self.pending_path(key);
        match fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(io_error(&path)(e)),
            _ => {}
        }
        // Settles run in parallel: two of one game may each list `done/`
        // before the other's marker is there, and neither would remove the
        // older one. Each writes its marker before it lists, so at least
        // one sees the other; the older marker goes whichever settle it is.
        let mut superseded = false;
        for other in self.markers()? {
            if other.game_id == key.game_id {
                if other.plies < key.plies {
                    self.remove_marker(&other)?;
                } else if other.plies > key.plies {
                    superseded = true;
                }
            }
        }
        if superseded {
            self.remove_marker(key)?;
        }
        Ok(())
    }

    fn remove_marker(&self, key: &JobKey) -> Result<(), StateError> {
        let path = self.done.join(key.file_name());
        match fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(io_error(&path)(e)),
            _ => Ok(()),
        }
    }

    /// The markers of `done/`.
    fn markers(&self) -> Result<Vec<JobKey>, StateError> {
        let mut keys = Vec::new();
        for entry in fs::read_dir(&self.done).map_err(io_error(&self.done))? {
            let entry = entry.map_err(io_error(&self.done))?;
            if let Some(key) = entry.file_name().to_str().and_then(JobKey::parse) {
                keys.push(key);
            }
        }
        Ok(keys)
    }

    /// Whether the marker says the game is over.
    fn marker_over(&self, key: &JobKey) -> bool {
        fs::read_to_string(self.done.join(key.file_name()))
            .is_ok_and(|t| t.lines().next() == Some(OVER))
    }

    /// Removes the markers no notification can need any more, and the
    /// temporary files of writes a kill interrupted; says how many went.
    ///
    /// The rule: of a game's markers only the newest is ever kept (settle
    /// removes the others), since a notification older than it is
    /// superseded whether or not its own marker is there. The newest goes
    /// once `REPLAY_RETENTION` has passed since it was written if the bot's
    /// move ended the game, and after `keep` in any case: a copy of the
    /// notification can no longer pass the signature check, and a fresh
    /// notification of a game still going is a later position, which needs
    /// no marker. (What a marker gone too early could cost is one extra
    /// submission that AP refuses as not the bot's turn: never a second
    /// move.)
    pub fn prune(&self, now: SystemTime, keep: Duration) -> Result<usize, StateError> {
        let mut removed = 0;
        let mut newest: HashMap<String, JobKey> = HashMap::new();
        for key in self.markers()? {
            match newest.get(&key.game_id) {
                Some(n) if n.plies >= key.plies => {
                    self.remove_marker(&key)?;
                    removed += 1;
                }
                Some(n) => {
                    self.remove_marker(&n.clone())?;
                    removed += 1;
                    newest.insert(key.game_id.clone(), key);
                }
                None => {
                    newest.insert(key.game_id.clone(), key);
                }
            }
        }
        for key in newest.values() {
            let path = self.done.join(key.file_name());
            let Ok(age) = fs::metadata(&path)
                .and_then(|m| m.modified())
                .map(|t| now.duration_since(t).unwrap_or_default())
            else {
                continue;
            };
            if age >= keep || (age >= REPLAY_RETENTION && self.marker_over(key)) {
                self.remove_marker(key)?;
                removed += 1;
            }
        }
        // A write killed between its create and its rename leaves a
        // temporary file that nothing reads.
        for entry in fs::read_dir(&self.pending).map_err(io_error(&self.pending))? {
            let entry = entry.map_err(io_error(&self.pending))?;
            let name = entry.file_name();
            let is_tmp = name
                .to_str()
                .is_some_and(|n| n.starts_with('.') && n.ends_with(".tmp"));
            let old = entry
                .metadata()
                .and_then(|m| m.modified())
                .is_ok_and(|t| now.duration_since(t).unwrap_or_default() > Duration::from_secs(60));
            if is_tmp && old && fs::remove_file(entry.path()).is_ok() {
                removed += 1;
            }
        }
        Ok(removed)
    }

    /// The games in progress (with a notification pending, or a marker
    /// whose move did not end the game) and the notifications pending.
    pub fn summary(&self) -> (usize, usize) {
        let mut games = HashSet::new();
        let mut pending = 0;
        for entry in fs::read_dir(&self.pending).into_iter().flatten().flatten() {
            let name = entry.file_name();
            if let Some(key) = name
                .to_str()
                .filter(|n| n.ends_with(".json"))
                .and_then(JobKey::parse)
            {
                pending += 1;
                games.insert(key.game_id);
            }
        }
        for key in self.markers().unwrap_or_default() {
            if !self.marker_over(&key) {
                games.insert(key.game_id);
            }
        }
        (games.len(), pending)
    }

    /// Syncs both folders, so that every settle so far survives a power cut.
    pub fn flush(&self) -> Result<(), StateError> {
        for dir in [&self.pending, &self.done] {
            fs::File::open(dir)
                .and_then(|d| d.sync_all())
                .map_err(io_error(dir))?;
        }
        Ok(())
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
        state.settle(&key, "submitted", false).unwrap();
        assert!(state.known(&key));
        assert_eq!(state.pending().unwrap().len(), 1);
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn an_unsynced_write_is_in_place_at_once_and_syncs_later() {
        let dir = temp("unsynced");
        let state = StateDir::open(&dir).unwrap();
        let (a, b) = (JobKey::new("g", 2).unwrap(), JobKey::new("h", 3).unwrap());
        let files = vec![
            state.add_unsynced(&a, b"{\"a\":1}").unwrap(),
            state.add_unsynced(&b, b"{\"b\":2}").unwrap(),
        ];
        // Known (a duplicate is recognised) and resumable before the sync.
        assert!(state.known(&a) && state.known(&b));
        assert_eq!(
            state.pending().unwrap(),
            vec![
                (a.clone(), b"{\"a\":1}".to_vec()),
                (b, b"{\"b\":2}".to_vec())
            ]
        );
        // Settled before its sync: the sync of the file still succeeds.
        state.settle(&a, "submitted", false).unwrap();
        state.sync(files).unwrap();
        assert_eq!(state.pending().unwrap().len(), 1);
        let _ = fs::remove_dir_all(&dir);
    }

    fn temp(name: &str) -> PathBuf {
        // tmpfs where there is one: the fsyncs of 10,000 stores cost
        // nothing there, and the rule under test is the same.
        let shm = Path::new("/dev/shm");
        let base = if shm.is_dir() {
            shm.to_path_buf()
        } else {
            std::env::temp_dir()
        };
        let dir = base.join(format!("apbot-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        dir
    }

    fn files(dir: &Path) -> (usize, u64) {
        let mut n = 0;
        let mut bytes = 0;
        for sub in ["pending", "done"] {
            for e in fs::read_dir(dir.join(sub)).unwrap().flatten() {
                n += 1;
                bytes += e.metadata().unwrap().len();
            }
        }
        (n, bytes)
    }

    #[test]
    fn a_settle_that_finishes_after_a_newer_one_of_its_game_leaves_no_marker() {
        // Settles run on parallel threads: the older one can write its
        // marker after the newer one listed done/ (found by tests/apbot_load:
        // 201 markers for 200 games).
        let dir = temp("settle-late");
        let state = StateDir::open(&dir).unwrap();
        let key = |p| JobKey::new("a", p).unwrap();
        state.add(&key(2), b"{}").unwrap();
        state.add(&key(4), b"{}").unwrap();
        state.settle(&key(4), "submitted", false).unwrap();
        state.settle(&key(2), "submitted", false).unwrap();
        assert!(state.known(&key(4)));
        assert!(!state.known(&key(2)));
        assert!(state.superseded(&key(2)));
        assert_eq!(files(&dir).0, 1);
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_settled_notification_removes_the_older_markers_of_its_game_only() {
        let dir = temp("prune-older");
        let state = StateDir::open(&dir).unwrap();
        let key = |g: &str, p| JobKey::new(g, p).unwrap();
        for p in [0, 2, 4] {
            state.add(&key("a", p), b"{}").unwrap();
            state.settle(&key("a", p), "submitted", false).unwrap();
        }
        state.add(&key("b", 1), b"{}").unwrap();
        state.settle(&key("b", 1), "submitted", false).unwrap();
        // Only the newest of a stays, with b's.
        assert!(state.known(&key("a", 4)) && state.known(&key("b", 1)));
        assert!(!state.known(&key("a", 2)) && !state.known(&key("a", 0)));
        // An old duplicate is still recognised as superseded.
        assert!(state.superseded(&key("a", 2)));
        assert_eq!(files(&dir).0, 2);
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_newest_marker_goes_after_the_replay_window_when_the_game_ended_and_after_keep_anyway() {
        let dir = temp("prune-newest");
        let state = StateDir::open(&dir).unwrap();
        let key = |g: &str, p| JobKey::new(g, p).unwrap();
        state
            .settle(&key("ended", 9), "submitted c3", true)
            .unwrap();
        state
            .settle(&key("going", 8), "submitted b2", false)
            .unwrap();
        let keep = Duration::from_secs(3600);
        let now = SystemTime::now();
        // Within the replay window both stay: a copy could still arrive.
        assert_eq!(state.prune(now, keep).unwrap(), 0);
        assert_eq!(state.summary(), (1, 0));
        let later = now + REPLAY_RETENTION + Duration::from_secs(1);
        assert_eq!(state.prune(later, keep).unwrap(), 1);
        assert!(!state.known(&key("ended", 9)) && state.known(&key("going", 8)));
        assert_eq!(state.prune(now + keep, keep).unwrap(), 1);
        assert_eq!(files(&dir).0, 0);
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn ten_thousand_notifications_leave_a_folder_the_size_of_the_games_in_progress() {
        // 10,000 notifications over 100 games of 100 notifications each,
        // 20 games at a time, each batch of 20 ending before the next
        // starts, with a prune every 100 notifications as the bot's timer
        // does (the clock moved past the replay retention each time).
        let dir = temp("prune-run");
        let state = StateDir::open(&dir).unwrap();
        let keep = Duration::from_secs(30 * 24 * 3600);
        let body = vec![b'x'; 1500];
        let mut clock = SystemTime::now();
        let mut most = (0, 0);
        for n in 0..10_000usize {
            let game = n % 20 + 20 * (n / 2000);
            let ply = n / 20 % 100;
            let key = JobKey::new(&format!("game-{game}"), ply).unwrap();
            state.add(&key, &body).unwrap();
            state.settle(&key, "submitted d2-d3", ply == 99).unwrap();
            if n % 100 == 99 {
                clock += REPLAY_RETENTION + Duration::from_secs(1);
                state.prune(clock, keep).unwrap();
            }
            let now = files(&dir);
            most = (most.0.max(now.0), most.1.max(now.1));
        }
        eprintln!(
            "10,000 notifications: at most {} files, {} bytes in the state folder",
            most.0, most.1
        );
        // One marker per game in progress, and those of the batch that
        // ended until the next prune: never more than 2 x 20.
        assert!(most.0 <= 40, "{most:?}");
        assert!(most.1 <= 40 * 32, "{most:?}");
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
