//! Self-play data at scale: `stackfish datagen --shard` plays a disjoint
//! range of the run's games (game k fixed by the seed and k), so the shards
//! together are exactly the unsharded run; a killed shard resumed plays
//! only its missing games; `stackfish train` reads the folder of shards.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn stackfish(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_stackfish"));
    cmd.args(args)
        .env_remove("SLURM_ARRAY_TASK_ID")
        .env_remove("JOB_COMPLETION_INDEX")
        .env_remove("PARALLEL_SEQ");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("stackfish starts")
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("datagen-shards")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

const RUN: [&str; 6] = ["--games", "6", "--nodes", "200", "--seed", "5"];

fn datagen(out: &Path, extra: &[&str], env: &[(&str, &str)]) -> Output {
    let mut args = vec!["datagen", "--out", out.to_str().unwrap()];
    args.extend(RUN);
    args.extend(extra);
    let o = stackfish(&args, env);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    o
}

fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(String::from)
        .collect()
}

fn game_numbers(path: &Path) -> Vec<u64> {
    lines(path)
        .iter()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["game"]
                .as_u64()
                .unwrap()
        })
        .collect()
}

#[test]
fn shards_together_are_the_whole_run_and_a_resumed_shard_adds_no_duplicate() {
    let dir = scratch("whole");
    let whole = dir.join("whole.jsonl");
    datagen(&whole, &[], &[]);
    let folder = dir.join("shards");
    std::fs::create_dir_all(&folder).unwrap();
    for k in 1..=3 {
        let out = folder.join(format!("shard-{k}.jsonl"));
        let o = datagen(&out, &["--shard", &format!("{k}/3")], &[]);
        let said = String::from_utf8_lossy(&o.stdout);
        assert!(
            said.contains(&format!(
                "shard {k}/3: games {}..={} of 6",
                2 * k - 1,
                2 * k
            )),
            "{said}"
        );
        assert_eq!(game_numbers(&out), [2 * k as u64 - 1, 2 * k as u64]);
    }
    let mut union: Vec<String> = (1..=3)
        .flat_map(|k| lines(&folder.join(format!("shard-{k}.jsonl"))))
        .collect();
    let mut all = lines(&whole);
    union.sort();
    all.sort();
    assert_eq!(union, all, "the shards hold exactly the unsharded games");
    // --shard auto under GNU parallel is the same part.
    let auto = dir.join("auto.jsonl");
    datagen(&auto, &["--shard", "auto/3"], &[("PARALLEL_SEQ", "2")]);
    assert_eq!(lines(&auto), lines(&folder.join("shard-2.jsonl")));

    // Shard 2 killed after its first game, mid-way through writing the next.
    let shard = folder.join("shard-2.jsonl");
    let full = lines(&shard);
    std::fs::write(&shard, format!("{}\n{}", full[0], &full[1][..20])).unwrap();
    let o = datagen(&shard, &["--shard", "2/3", "--resume"], &[]);
    let said = String::from_utf8_lossy(&o.stdout);
    assert!(said.contains("cut a torn last line (20 bytes"), "{said}");
    assert!(said.contains("resuming: 1 of 2 games already in"), "{said}");
    assert_eq!(lines(&shard), full, "the same games, none twice");
    // Resuming a complete shard plays nothing.
    datagen(&shard, &["--shard", "2/3", "--resume"], &[]);
    assert_eq!(lines(&shard), full);

    // train reads the folder: every shard file, in name order.
    let net = dir.join("net.bin");
    let o = stackfish(
        &[
            "train",
            folder.to_str().unwrap(),
            "--out",
            net.to_str().unwrap(),
            "--epochs",
            "1",
        ],
        &[],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    let read: BTreeSet<&str> = err
        .lines()
        .filter_map(|l| l.split(": ").next())
        .filter(|f| f.ends_with(".jsonl"))
        .collect();
    assert_eq!(read.len(), 3, "{err}");
    assert!(net.is_file());
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let o = stackfish(&["train", empty.to_str().unwrap()], &[]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("no *.jsonl record files"));
    // No scheduler: an error, no games.
    let none = dir.join("none.jsonl");
    let mut args = vec![
        "datagen",
        "--out",
        none.to_str().unwrap(),
        "--shard",
        "auto",
    ];
    args.extend(RUN);
    let o = stackfish(&args, &[]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("no scheduler"));
    assert!(!none.exists() || lines(&none).is_empty());
}
