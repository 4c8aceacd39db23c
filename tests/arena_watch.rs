//! A match split into shards that write into one folder, decided by `arena
//! watch` as the records land: the watcher stops the shards early (by its
//! stop command), the shards stop cleanly on SIGTERM, and the watcher's
//! figures equal `arena merge` of the folder. Also `--shard auto` and the
//! failure cases: a torn shard file, a restarted watcher, a record of
//! another test.

mod support;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use support::{arena, arena_exe, mock, temp_dir};

/// Games of the whole schedule: far more than the test needs, so only an
/// early stop ends the shards in time.
const SCHEDULE: &str = "2000";

/// A mock engine reporting `score` on every move, `slow_ms` per move: with
/// `--resign moves=1` the side reporting -2000 resigns at once.
fn engine(name: &str, score: i32, slow_ms: u32) -> Vec<String> {
    vec![
        "--engine".into(),
        format!("name={name}"),
        format!("cmd={}", mock()),
        format!("args=--score {score} --fault slow --at 1 --slow-ms {slow_ms}"),
        "nodes=1".into(),
    ]
}

fn shard_args(k: u32, folder: &Path, games: &str, shard: &str) -> Vec<String> {
    let mut a: Vec<String> = engine("strong", 2000, 15)
        .into_iter()
        .chain(engine("weak", -2000, 15))
        .collect();
    a.extend(
        [
            "--resign",
            "moves=1",
            "score=1000",
            "--ratinginterval",
            "0",
            "--games",
            games,
            "--event",
            "gate",
            "--shard",
            shard,
        ]
        .map(String::from),
    );
    a.push("--jsonl".into());
    a.push(
        folder
            .join(format!("shard-{k}.jsonl"))
            .display()
            .to_string(),
    );
    a
}

/// Starts shard `k` of 4 the way GNU parallel would (`PARALLEL_SEQ`).
fn start_shard(k: u32, dir: &Path, folder: &Path, resume: bool) -> Child {
    let mut args = shard_args(k, folder, SCHEDULE, "auto/4");
    if resume {
        args.push("--resume".into());
    }
    Command::new(arena_exe())
        .args(&args)
        .env("PARALLEL_SEQ", k.to_string())
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(dir.join(format!("shard-{k}.out"))).unwrap())
        .stderr(Stdio::null())
        .spawn()
        .expect("shard starts")
}

/// Waits for `child` (a watchdog turns a hang into a failure); its exit code.
fn wait(child: &mut Child, what: &str) -> Option<i32> {
    let start = Instant::now();
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return s.code();
        }
        if start.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            panic!("{what} still running after 120 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn watch_args<'a>(folder: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut a = vec![
        "watch",
        folder,
        "--sprt",
        "elo0=0",
        "elo1=5",
        "--interval",
        "0.2",
        "--settle",
        "1",
    ];
    a.extend(extra);
    a
}

fn read_json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn records_in(folder: &Path) -> Vec<serde_json::Value> {
    let mut all = Vec::new();
    for entry in std::fs::read_dir(folder).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        assert!(
            text.is_empty() || text.ends_with('\n'),
            "a torn line: {text}"
        );
        for line in text.lines() {
            all.push(serde_json::from_str(line).expect("a complete record"));
        }
    }
    all
}

#[test]
fn four_shards_are_stopped_once_the_watcher_decides() {
    let dir = temp_dir("watch-gate");
    let folder = dir.join("shards");
    std::fs::create_dir_all(&folder).unwrap();
    let mut shards: Vec<Child> = (1..=4)
        .map(|k| start_shard(k, &dir, &folder, false))
        .collect();
    let pids: Vec<String> = shards.iter().map(|c| c.id().to_string()).collect();
    // The stop command signals the shards as a scheduler would.
    let stop = format!("kill -TERM {}", pids.join(" "));
    let running = format!("ps -o pid= -p {}", pids.join(","));
    let folder_arg = folder.display().to_string();
    let watcher = std::thread::spawn({
        let dir = dir.clone();
        let (stop, running, folder_arg) = (stop.clone(), running.clone(), folder_arg.clone());
        move || {
            let args = watch_args(
                &folder_arg,
                &[
                    "--stop",
                    &stop,
                    "--running",
                    &running,
                    "--json",
                    "watch.json",
                    "--report",
                    "watch.html",
                ],
            );
            arena(&args, &dir)
        }
    });
    // The shards must be reaped while the watcher waits for them to go.
    let codes: Vec<Option<i32>> = shards
        .iter_mut()
        .enumerate()
        .map(|(i, c)| wait(c, &format!("shard {}", i + 1)))
        .collect();
    let w = watcher.join().unwrap();
    assert_eq!(w.code, Some(0), "H1 exits 0: {}", w.output);
    assert!(
        w.output.contains("Decided: H1 was accepted"),
        "{}",
        w.output
    );
    assert!(w.output.contains("Stop: kill -TERM"), "{}", w.output);
    // Every shard was stopped by the signal (130), none ran to its end.
    assert_eq!(codes, vec![Some(130); 4], "{}", w.output);
    for k in 1..=4 {
        let out = std::fs::read_to_string(dir.join(format!("shard-{k}.out"))).unwrap();
        assert!(out.contains(&format!("Shard {k}/4")), "{out}");
        assert!(out.contains("Interrupted:"), "{out}");
    }
    let records = records_in(&folder);
    let total = records.len();
    assert!((294..1000).contains(&total), "stopped early: {total} games");
    // A stopped game is not recorded as an engine's fault.
    assert!(
        records
            .iter()
            .all(|r| r["result"] == "1-0" || r["result"] == "0-1"),
        "every game ended by resignation"
    );
    assert!(records.iter().all(|r| {
        let t = r["termination"].as_str().unwrap();
        !t.contains("disconnect") && !t.contains("stall")
    }));
    // The watcher's figures are those of a merge of the folder.
    let mut merge_args = vec!["merge".to_string()];
    for k in 1..=4 {
        merge_args.push(
            folder
                .join(format!("shard-{k}.jsonl"))
                .display()
                .to_string(),
        );
    }
    merge_args.extend(["--sprt", "elo0=0", "elo1=5", "--json", "merge.json"].map(String::from));
    let refs: Vec<&str> = merge_args.iter().map(String::as_str).collect();
    let m = arena(&refs, &dir);
    assert_eq!(m.code, Some(0), "{}", m.output);
    let (watched, merged) = (
        read_json(&dir.join("watch.json")),
        read_json(&dir.join("merge.json")),
    );
    assert_eq!(watched, merged);
    assert_eq!(merged["duplicates"], 0);
    assert_eq!(merged["finished"].as_u64().unwrap() as usize, total);
    assert_eq!(merged["sprt"]["verdict"], "H1");
    assert!(dir.join("watch.html").is_file());

    // Failure cases on the same folder. A shard killed mid-line: the torn
    // tail is reported, not counted; the verdict does not change.
    let line = std::fs::read_to_string(folder.join("shard-1.jsonl")).unwrap();
    let first = line.lines().next().unwrap();
    std::fs::write(folder.join("shard-9.jsonl"), &first[..first.len() / 2]).unwrap();
    // A restarted watcher (nothing runs any more) reaches the same figures
    // and verdict, counting no game twice.
    let again = arena(
        &watch_args(&folder_arg, &["--running", "false", "--json", "again.json"]),
        &dir,
    );
    assert_eq!(again.code, Some(0), "{}", again.output);
    assert!(
        again
            .output
            .contains("shard-9.jsonl: the last line is cut off"),
        "{}",
        again.output
    );
    assert_eq!(read_json(&dir.join("again.json")), merged);
    // The cut shard resumed: its torn tail is cut back, it plays on from there.
    std::fs::rename(folder.join("shard-9.jsonl"), dir.join("torn.jsonl")).unwrap();
    let mut shard1 = std::fs::OpenOptions::new()
        .append(true)
        .open(folder.join("shard-1.jsonl"))
        .unwrap();
    std::io::Write::write_all(&mut shard1, &first.as_bytes()[..10]).unwrap();
    drop(shard1);
    let mut resumed = start_shard(1, &dir, &folder, true);
    std::thread::sleep(Duration::from_millis(1500));
    let _ = Command::new("kill")
        .args(["-TERM", &resumed.id().to_string()])
        .status();
    assert_eq!(wait(&mut resumed, "resumed shard"), Some(130));
    let out = std::fs::read_to_string(dir.join("shard-1.out")).unwrap();
    assert!(out.contains("cut a torn last line (10 bytes"), "{out}");
    let after = records_in(&folder);
    assert!(after.len() > total, "the resumed shard played on");
    // A record of another test in the folder is refused, by name.
    let mut other = records[0].clone();
    other["event"] = "another gate".into();
    other["game"] = 5001.into();
    std::fs::write(folder.join("stray.jsonl"), format!("{other}\n")).unwrap();
    let refused = arena(&watch_args(&folder_arg, &["--running", "false"]), &dir);
    assert_eq!(refused.code, Some(3), "{}", refused.output);
    assert!(
        refused.output.contains("event 'another gate', not 'gate'"),
        "{}",
        refused.output
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_watcher_that_times_out_is_inconclusive_and_one_without_records_fails() {
    let dir = temp_dir("watch-empty");
    let folder = dir.join("shards");
    std::fs::create_dir_all(&folder).unwrap();
    let f = folder.display().to_string();
    let r = arena(&watch_args(&f, &["--timeout", "1"]), &dir);
    assert_eq!(r.code, Some(3), "{}", r.output);
    assert!(r.output.contains("no record files"), "{}", r.output);
    // One complete pair of an even match: undecided when the time is up.
    let mut shard = start_shard(1, &dir, &folder, false);
    let start = Instant::now();
    while records_in(&folder).len() < 2 && start.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = Command::new("kill")
        .args(["-TERM", &shard.id().to_string()])
        .status();
    wait(&mut shard, "shard");
    let r = arena(
        &watch_args(&f, &["--timeout", "1", "--json", "s.json"]),
        &dir,
    );
    assert_eq!(r.code, Some(2), "{}", r.output);
    assert!(r.output.contains("undecided after 1 s"), "{}", r.output);
    assert_eq!(
        read_json(&dir.join("s.json"))["sprt"]["verdict"],
        "inconclusive"
    );
    let missing = arena(&watch_args("no-such-folder", &[]), &dir);
    assert_eq!(missing.code, Some(3), "{}", missing.output);
    assert!(
        missing.output.contains("no-such-folder: no such folder"),
        "{}",
        missing.output
    );
    // A summary path no one can write (a folder that is a file, root too)
    // is refused at the start, not after a watch of hours.
    let unwritable = arena(
        &watch_args(&f, &["--timeout", "30", "--json", "s.json/summary.json"]),
        &dir,
    );
    assert_eq!(unwritable.code, Some(3), "{}", unwritable.output);
    assert!(
        unwritable
            .output
            .starts_with("arena: i/o error: cannot write s.json/summary.json (--json): "),
        "{}",
        unwritable.output
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn shard_auto_without_a_scheduler_is_an_error() {
    let dir = temp_dir("shard-auto");
    let args = shard_args(1, &dir, SCHEDULE, "auto/4");
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let slurm = shard_args(1, &dir, "8", "auto");
    // The test process may itself run under a scheduler: clear its variables.
    let out = Command::new(arena_exe())
        .args(&refs)
        .env_remove("SLURM_ARRAY_TASK_ID")
        .env_remove("JOB_COMPLETION_INDEX")
        .env_remove("PARALLEL_SEQ")
        .current_dir(&dir)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{text}");
    assert!(text.contains("--shard auto/4: no scheduler"), "{text}");
    assert!(!dir.join("shard-1.jsonl").exists(), "no game played");
    // A Slurm array task: its part and the count from the array.
    let out = Command::new(arena_exe())
        .args(&slurm)
        .env_remove("PARALLEL_SEQ")
        .env("SLURM_ARRAY_TASK_ID", "3")
        .env("SLURM_ARRAY_TASK_MIN", "0")
        .env("SLURM_ARRAY_TASK_COUNT", "4")
        .current_dir(&dir)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("Shard 4/4: 2 games of the schedule"),
        "{text}"
    );
    assert!(text.contains("Started game 7 of 2"), "{text}");
    std::fs::remove_dir_all(&dir).unwrap();
}
