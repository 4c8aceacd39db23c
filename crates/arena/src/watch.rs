//! `arena watch`: the SPRT of a match split over many machines, decided as
//! the shards' records land in one shared folder. The shards play without
//! `--sprt` (each sees only its own games); the watcher recomputes the
//! pentanomial SPRT from the complete pairs of all of them, and when a bound
//! is crossed it runs a stop command (for Slurm `scancel` of the array),
//! waits for the shards to go quiet and writes the figures of `arena merge`
//! over the folder, so its summary is the merge's by construction.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant, SystemTime};

use super::merge::{collect, engines_of, merge, MergeOptions};
use super::results::{check_writable, counts_for, Summary};
use super::stats::{SprtConfig, SprtVerdict};
use super::ArenaError;
use stackfish_client::transport::INTERRUPTED;
use stackfish_record::GameRecord;

#[derive(Clone, Debug)]
pub struct WatchOptions {
    pub sprt: SprtConfig,
    /// Candidate and base (more names are an error); from the records when empty.
    pub engines: Vec<String>,
    /// Games of the whole schedule: with all of them recorded the watch ends
    /// (inconclusive unless a bound was crossed).
    pub games: Option<u32>,
    /// Shell command run once when the test is decided (`scancel <job>`).
    pub stop: Option<String>,
    /// Shell command telling whether shards still run: it does while it
    /// exits 0 and prints something (`squeue --noheader --jobs <job>`).
    pub running: Option<String>,
    /// Time between two looks at the folder.
    pub interval: Duration,
    /// How long the folder must stay unchanged after the stop (or after the
    /// shards ended) before the final figures are taken.
    pub settle: Duration,
    /// Give up waiting after this long: the figures so far, inconclusive.
    pub timeout: Option<Duration>,
    pub json: Option<PathBuf>,
    pub report: Option<PathBuf>,
}

impl WatchOptions {
    pub fn new(sprt: SprtConfig) -> WatchOptions {
        WatchOptions {
            sprt,
            engines: Vec::new(),
            games: None,
            stop: None,
            running: None,
            interval: Duration::from_secs(1),
            settle: Duration::from_secs(3),
            timeout: None,
            json: None,
            report: None,
        }
    }

    /// The Slurm defaults for the array job `job`: `scancel` it when decided,
    /// and it runs while `squeue` lists it. Flags given keep their value.
    pub fn slurm_job(&mut self, job: &str) {
        self.stop.get_or_insert_with(|| format!("scancel {job}"));
        self.running
            .get_or_insert_with(|| format!("squeue --noheader --jobs {job}"));
    }
}

/// Why the watch ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WatchEnd {
    /// A bound was crossed (after this many games of the pair).
    Decided(SprtVerdict, u64),
    /// Every scheduled game is recorded.
    AllPlayed,
    /// The `running` command says no shard runs any more.
    ShardsEnded,
    TimedOut,
    /// SIGINT or SIGTERM.
    Interrupted,
}

pub struct Watched {
    pub summary: Summary,
    pub end: WatchEnd,
}

/// The record files of `folder`: every `*.jsonl` in it, sorted by name.
pub fn shard_files(folder: &Path) -> Result<Vec<PathBuf>, ArenaError> {
    let entries = std::fs::read_dir(folder)
        .map_err(|e| ArenaError::Io(format!("cannot read folder {}: {e}", folder.display())))?;
    let mut files = Vec::new();
    for entry in entries {
        let path = entry
            .map_err(|e| ArenaError::Io(format!("{}: {e}", folder.display())))?
            .path();
        if path.extension().is_some_and(|x| x == "jsonl") && path.is_file() {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

/// Name, size and change time of every file: what tells a look from the last.
type Snapshot = Vec<(PathBuf, u64, Option<SystemTime>)>;

fn snapshot(files: &[PathBuf]) -> Snapshot {
    files
        .iter()
        .map(|p| {
            let meta = std::fs::metadata(p).ok();
            let len = meta.as_ref().map_or(0, |m| m.len());
            let modified = meta.and_then(|m| m.modified().ok());
            (p.clone(), len, modified)
        })
        .collect()
}

/// The two engines of the test; an error when the records hold a game of
/// another test (other players, event or game) than the first record's.
pub fn check_one_test(
    folder: &Path,
    engines: &[String],
    records: &[GameRecord],
) -> Result<Vec<String>, ArenaError> {
    let mut names = engines.to_vec();
    for n in engines_of(records) {
        if !names.contains(&n) {
            names.push(n);
        }
    }
    let Some(first) = records.first() else {
        return Ok(names);
    };
    let other = |r: &GameRecord, what: String| {
        ArenaError::Config(format!(
            "{}: game {} ({} vs {}, event '{}') is not part of this test ({}): {what}; \
             give each test a folder of its own",
            folder.display(),
            r.game,
            r.player1,
            r.player2,
            r.event,
            names
                .iter()
                .take(2)
                .cloned()
                .collect::<Vec<_>>()
                .join(" vs "),
        ))
    };
    if names.len() > 2 {
        let r = records
            .iter()
            .find(|r| !names[..2].contains(&r.player1) || !names[..2].contains(&r.player2))
            .unwrap_or(first);
        return Err(other(r, "other players".into()));
    }
    for r in records {
        if r.event != first.event {
            return Err(other(
                r,
                format!("event '{}', not '{}'", r.event, first.event),
            ));
        }
        if r.variant != first.variant {
            return Err(other(
                r,
                format!("game {}, not {}", r.variant, first.variant),
            ));
        }
    }
    Ok(names)
}

/// Runs `cmd` with `sh -c`: its exit status and what it printed.
fn shell(cmd: &str) -> std::io::Result<(Option<i32>, String)> {
    let out = Command::new("sh")
        .arg("-c")
        .arg(cmd)
        .stdin(Stdio::null())
        .output()?;
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&out.stderr));
    Ok((out.status.code(), text))
}

/// Whether the `running` command says a shard still runs (no command: unknown, so yes).
fn shards_running(running: Option<&str>) -> bool {
    let Some(cmd) = running else { return true };
    match Command::new("sh")
        .arg("-c")
        .arg(cmd)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
    {
        Ok(o) => o.status.success() && !String::from_utf8_lossy(&o.stdout).trim().is_empty(),
        Err(_) => false,
    }
}

fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// Where the test stands after one look at the folder.
struct Look {
    files: Vec<PathBuf>,
    games: usize,
    pairs: u64,
    pair_games: u64,
    llr: f64,
    verdict: SprtVerdict,
}

fn look(folder: &Path, opts: &WatchOptions) -> Result<Look, ArenaError> {
    let files = shard_files(folder)?;
    let (records, _) = if files.is_empty() {
        (Vec::new(), 0)
    } else {
        collect(&files, false)?
    };
    let names = check_one_test(folder, &opts.engines, &records)?;
    let (llr, verdict, pairs, pair_games) = match names.as_slice() {
        [a, b, ..] => {
            let counts = counts_for(a, b, &records);
            let status = counts.sprt_status(&opts.sprt);
            (
                status.llr,
                status.verdict,
                counts.pentanomial.pairs(),
                counts.trinomial.games(),
            )
        }
        _ => (0.0, SprtVerdict::Continue, 0, 0),
    };
    Ok(Look {
        files,
        games: records.len(),
        pairs,
        pair_games,
        llr,
        verdict,
    })
}

/// Waits until the folder has not changed for `opts.settle` and the
/// `running` command (if any) says nothing runs, or `limit` has passed.
fn settle(folder: &Path, opts: &WatchOptions, limit: Duration, out: &mut dyn Write) {
    let start = Instant::now();
    let mut last = shard_files(folder)
        .map(|f| snapshot(&f))
        .unwrap_or_default();
    let mut quiet_since = Instant::now();
    loop {
        if interrupted() {
            return;
        }
        std::thread::sleep(
            opts.interval
                .min(opts.settle)
                .max(Duration::from_millis(50)),
        );
        let now = shard_files(folder)
            .map(|f| snapshot(&f))
            .unwrap_or_default();
        if now != last {
            last = now;
            quiet_since = Instant::now();
        }
        if quiet_since.elapsed() >= opts.settle && !shards_running(opts.running.as_deref()) {
            return;
        }
        if opts.running.is_none() && quiet_since.elapsed() >= opts.settle {
            return;
        }
        if start.elapsed() >= limit {
            let _ = writeln!(
                out,
                "Watch: the shards still write or run after {} s; taking the figures as they are",
                limit.as_secs()
            );
            return;
        }
    }
}

/// Watches `folder` until the test is decided or over, then writes the
/// merge of the folder (tables, SPRT line, `--json`, `--report`) to `out`.
pub fn watch(
    folder: &Path,
    opts: &WatchOptions,
    out: &mut dyn Write,
) -> Result<Watched, ArenaError> {
    if !folder.is_dir() {
        return Err(ArenaError::Io(format!(
            "{}: no such folder (the shards' shared --jsonl folder)",
            folder.display()
        )));
    }
    for (path, flag) in [(&opts.json, "--json"), (&opts.report, "--report")] {
        if let Some(path) = path {
            check_writable(path, flag)?;
        }
    }
    let s = &opts.sprt;
    let _ = writeln!(out, "Watching {}: SPRT {}", folder.display(), s.describe());
    let _ = out.flush();
    let end = watch_until_the_end(folder, opts, out)?;
    report_end(folder, opts, end, out);
    let summary = merge_folder(folder, opts, out)?;
    if let (WatchEnd::Decided(v, _), Some(s)) = (end, &summary.sprt) {
        let want = if v == SprtVerdict::H1Accepted {
            "H1"
        } else {
            "H0"
        };
        if s.verdict != want {
            let _ = writeln!(
                out,
                "Watch: games finished after the crossing moved the LLR back inside the bounds: \
                 the folder's verdict is {}",
                s.verdict
            );
        }
    }
    Ok(Watched { summary, end })
}

/// Looks at the folder every `--interval` until the test is decided, all
/// games are in, no shard runs any more, `--timeout` or Ctrl-C.
fn watch_until_the_end(
    folder: &Path,
    opts: &WatchOptions,
    out: &mut dyn Write,
) -> Result<WatchEnd, ArenaError> {
    let start = Instant::now();
    let mut last_snapshot: Option<Snapshot> = None;
    let mut last_games = usize::MAX;
    loop {
        if interrupted() {
            return Ok(WatchEnd::Interrupted);
        }
        let files = shard_files(folder)?;
        let snap = snapshot(&files);
        let changed = last_snapshot.as_ref() != Some(&snap);
        if changed {
            let l = look(folder, opts)?;
            if l.games != last_games {
                last_games = l.games;
                let _ = writeln!(
                    out,
                    "Watch: {} games ({} pairs) in {} files: LLR {:.3}",
                    l.games,
                    l.pairs,
                    l.files.len(),
                    l.llr
                );
                let _ = out.flush();
            }
            if l.verdict != SprtVerdict::Continue {
                return Ok(WatchEnd::Decided(l.verdict, l.pair_games));
            }
            if opts.games.is_some_and(|g| l.games as u64 >= u64::from(g)) {
                return Ok(WatchEnd::AllPlayed);
            }
            last_snapshot = Some(snap);
        } else if !shards_running(opts.running.as_deref()) {
            // Nothing new since the last look and no shard left: only a
            // final look after the folder settled can change the figures.
            settle(folder, opts, Duration::from_secs(60), out);
            let l = look(folder, opts)?;
            return Ok(match l.verdict {
                SprtVerdict::Continue => WatchEnd::ShardsEnded,
                v => WatchEnd::Decided(v, l.pair_games),
            });
        }
        if opts.timeout.is_some_and(|t| start.elapsed() >= t) {
            return Ok(WatchEnd::TimedOut);
        }
        std::thread::sleep(opts.interval);
    }
}

/// Says how the watch ended; a decided test stops the shards (`--stop`)
/// and waits for the folder to settle.
fn report_end(folder: &Path, opts: &WatchOptions, end: WatchEnd, out: &mut dyn Write) {
    match end {
        WatchEnd::Decided(v, games) => {
            let _ = writeln!(
                out,
                "Decided: {} after {games} games of the pair",
                match v {
                    SprtVerdict::H1Accepted => "H1 was accepted",
                    _ => "H0 was accepted",
                }
            );
            stop_shards(opts, out);
            let _ = out.flush();
            settle(folder, opts, Duration::from_secs(120), out);
        }
        WatchEnd::AllPlayed => {
            let _ = writeln!(out, "Watch: all {} games recorded", opts.games.unwrap_or(0));
        }
        WatchEnd::ShardsEnded => {
            let _ = writeln!(out, "Watch: no shard runs any more");
        }
        WatchEnd::TimedOut => {
            let _ = writeln!(
                out,
                "Watch: undecided after {} s (--timeout)",
                opts.timeout.unwrap_or_default().as_secs()
            );
        }
        WatchEnd::Interrupted => {
            let _ = writeln!(out, "Watch: interrupted; the figures so far:");
        }
    }
}

/// Runs `--stop` (or says that nothing is stopped) and prints what it said.
fn stop_shards(opts: &WatchOptions, out: &mut dyn Write) {
    match &opts.stop {
        Some(cmd) => {
            let said = match shell(cmd) {
                Ok((Some(0), _)) => "exit status 0".to_string(),
                Ok((code, text)) => format!(
                    "exit status {}: {}",
                    code.map_or("none (killed)".into(), |c| c.to_string()),
                    text.trim()
                ),
                Err(e) => format!("cannot run it: {e}"),
            };
            let _ = writeln!(out, "Stop: {cmd} ({said})");
        }
        None => {
            let _ = writeln!(out, "Stop: no --stop or --job given, nothing stopped");
        }
    }
}

/// The merge of the folder's record files (tables, SPRT line, `--json`,
/// `--report`), once they are checked to be of one test.
fn merge_folder(
    folder: &Path,
    opts: &WatchOptions,
    out: &mut dyn Write,
) -> Result<Summary, ArenaError> {
    let files = shard_files(folder)?;
    if files.is_empty() {
        return Err(ArenaError::Io(format!(
            "{}: no record files (*.jsonl) arrived",
            folder.display()
        )));
    }
    let merge_opts = MergeOptions {
        sprt: Some(opts.sprt),
        json: opts.json.clone(),
        report: opts.report.clone(),
        engines: opts.engines.clone(),
        keep_collisions: false,
    };
    let (records, _) = collect(&files, false)?;
    check_one_test(folder, &opts.engines, &records)?;
    merge(&files, &merge_opts, out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use stackfish_record::MoveRecord;

    fn rec(game: u32, p1: &str, p2: &str, event: &str) -> GameRecord {
        GameRecord {
            game,
            round: Some(game.div_ceil(2)),
            opening: Some(0),
            event: event.into(),
            date: Some("2026.12.02".into()),
            variant: "mixtour".into(),
            player1: p1.into(),
            player2: p2.into(),
            fen: None,
            moves: vec![MoveRecord::book("c3")],
            result: "1-0".into(),
            termination: "t".into(),
            time_control: None,
            duration_ms: None,
            nodes: None,
            seed: None,
        }
    }

    #[test]
    fn a_record_of_another_test_is_refused() {
        let dir = Path::new("shards");
        let ok = [rec(1, "a", "b", "e"), rec(2, "b", "a", "e")];
        assert_eq!(check_one_test(dir, &[], &ok).unwrap(), ["a", "b"]);
        let mut third = ok.to_vec();
        third.push(rec(3, "a", "c", "e"));
        let e = check_one_test(dir, &[], &third).unwrap_err().to_string();
        assert!(
            e.contains("game 3 (a vs c") && e.contains("other players"),
            "{e}"
        );
        let mut event = ok.to_vec();
        event.push(rec(3, "a", "b", "f"));
        let e = check_one_test(dir, &[], &event).unwrap_err().to_string();
        assert!(e.contains("event 'f', not 'e'"), "{e}");
        let e = check_one_test(dir, &["x".into(), "a".into()], &ok).unwrap_err();
        assert!(e.to_string().contains("other players"), "{e}");
    }

    #[test]
    fn the_slurm_job_gives_the_default_commands_and_flags_win() {
        let sprt = SprtConfig::new(0.0, 5.0, 0.05, 0.05).unwrap();
        let mut o = WatchOptions::new(sprt);
        o.stop = Some("true".into());
        o.slurm_job("42");
        assert_eq!(o.stop.as_deref(), Some("true"));
        assert_eq!(o.running.as_deref(), Some("squeue --noheader --jobs 42"));
        let mut o = WatchOptions::new(sprt);
        o.slurm_job("42");
        assert_eq!(o.stop.as_deref(), Some("scancel 42"));
    }

    #[test]
    fn the_running_command_counts_only_with_output_and_success() {
        assert!(shards_running(None));
        assert!(shards_running(Some("echo 42")));
        assert!(!shards_running(Some("true")));
        assert!(!shards_running(Some("echo 42; exit 1")));
    }
}
