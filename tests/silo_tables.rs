//! Silo tables end to end through the real binaries: `stackfish solve
//! --write` on the small configurations (1 x 4 and 1 x 6 with stacks of two)
//! against the existing single-threaded solver, `--verify` on good and
//! corrupted files, the engine with `SiloTablePath`, and `arena --tb`.

mod support;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use support::{arena, read_summary, temp_dir};

const SMALL: &str = "11/22/11/22 1";
const MEDIUM: &str = "11/22/11/22/11/22 1";

fn stackfish() -> &'static str {
    env!("CARGO_BIN_EXE_stackfish")
}

fn run(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(stackfish())
        .args(args)
        .output()
        .expect("stackfish runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The number after `label` on its line of `text`.
fn number_after(text: &str, label: &str) -> u64 {
    let line = text
        .lines()
        .find(|l| l.starts_with(label))
        .unwrap_or_else(|| panic!("no line {label} in:\n{text}"));
    line[label.len()..]
        .split_whitespace()
        .next()
        .and_then(|w| w.parse().ok())
        .unwrap_or_else(|| panic!("no number in {line}"))
}

/// Builds the table of `fen` into `dir`; returns its path and the report.
fn write_table(dir: &Path, fen: &str, name: &str) -> (PathBuf, String) {
    let path = dir.join(name);
    let (code, out, err) = run(&[
        "solve",
        "--fen",
        fen,
        "--write",
        path.to_str().expect("utf-8 path"),
    ]);
    assert_eq!(code, Some(0), "{out}{err}");
    (path, out)
}

/// The old solver's census and root value for `fen`: it stores Red to move
/// only, so each of its counts is half the table's.
fn old_solver(fen: &str) -> (u64, u64, u64, String) {
    let (code, out, err) = run(&["solve", "--fen", fen, "--method", "full"]);
    assert_eq!(code, Some(0), "{out}{err}");
    let line = out
        .lines()
        .find(|l| l.starts_with("Positions: "))
        .expect("positions line");
    let nums: Vec<u64> = line
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|w| w.parse().ok())
        .collect();
    let value = out
        .lines()
        .find_map(|l| l.strip_prefix("Value: "))
        .expect("value line")
        .to_string();
    (nums[1], nums[2], nums[3], value)
}

#[test]
fn built_tables_match_the_existing_solver_and_verify() {
    let dir = temp_dir("tb-build");
    for (fen, name, entries) in [
        (SMALL, "silo-4x4.tbl", 11_550u64),
        (MEDIUM, "silo-6x6.tbl", 5_717_712),
    ] {
        let (path, report) = write_table(&dir, fen, name);
        let (wins, losses, draws, value) = old_solver(fen);
        assert_eq!(number_after(&report, "Positions: "), 2 * entries);
        assert_eq!(number_after(&report, "Wins: "), 2 * wins, "{report}");
        assert_eq!(number_after(&report, "Losses: "), 2 * losses, "{report}");
        assert_eq!(number_after(&report, "Draws: "), 2 * draws, "{report}");
        assert!(report.contains(&format!("Value: {value}")), "{report}");
        // Compressed (format version 2): smaller than a byte per entry.
        let size = std::fs::metadata(&path).expect("written").len();
        assert!(size < 128 + entries, "{size} bytes");
        assert!(report.contains(&format!("({size} bytes)")), "{report}");
        let (code, out, err) = run(&["solve", "--verify", path.to_str().expect("utf-8")]);
        assert_eq!(code, Some(0), "{out}{err}");
        assert!(
            out.contains(&format!("verified: {} positions", 2 * entries)),
            "{out}"
        );
    }
}

#[test]
fn a_corrupted_table_fails_verification_with_a_reason() {
    let dir = temp_dir("tb-corrupt");
    let (path, _) = write_table(&dir, SMALL, "silo-4x4.tbl");
    let good = std::fs::read(&path).expect("reads");
    let bad_path = dir.join("bad.tbl");
    let path_text = bad_path.to_str().expect("utf-8");
    // One byte changed in the middle of the compressed blocks: the
    // checksum no longer fits.
    let mut bad = good.clone();
    bad[(128 + good.len()) / 2] ^= 0x02;
    std::fs::write(&bad_path, &bad).expect("writes");
    let (code, out, err) = run(&["solve", "--verify", path_text]);
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(err.contains("checksum mismatch"), "{err}");
    // Not a table at all.
    std::fs::write(&bad_path, b"hello").expect("writes");
    let (code, _, err) = run(&["solve", "--verify", path_text]);
    assert_eq!(code, Some(1));
    assert!(err.contains("shorter than the 128-byte header"), "{err}");
    // A missing file.
    let (code, _, err) = run(&["solve", "--verify", "/nonexistent/silo.tbl"]);
    assert_eq!(code, Some(1));
    assert!(err.contains("/nonexistent/silo.tbl"), "{err}");
}

/// The engine as a child process, spoken to line by line.
struct EngineProcess {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    reader: BufReader<std::process::ChildStdout>,
}

impl EngineProcess {
    fn start() -> EngineProcess {
        let mut child = Command::new(stackfish())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("engine starts");
        let stdin = child.stdin.take().expect("stdin");
        let reader = BufReader::new(child.stdout.take().expect("stdout"));
        EngineProcess {
            child,
            stdin,
            reader,
        }
    }

    /// Sends `send`, then reads lines until one starts with `end`; returns
    /// the lines read.
    fn until(&mut self, send: &[String], end: &str) -> Vec<String> {
        for l in send {
            writeln!(self.stdin, "{l}").expect("writes");
        }
        let mut seen = Vec::new();
        loop {
            let mut line = String::new();
            let n = self.reader.read_line(&mut line).expect("reads");
            assert!(n > 0, "the engine ended; it said {seen:?}");
            let line = line.trim_end().to_string();
            let done = line.starts_with(end);
            seen.push(line);
            if done {
                return seen;
            }
        }
    }

    /// `quit`, and whether the engine then exits with status 0.
    fn quit(mut self) -> bool {
        writeln!(self.stdin, "quit").expect("writes");
        self.child.wait().is_ok_and(|s| s.success())
    }
}

/// The engine's answer in `fen` with the tables of `folder`: the last info
/// line and the bestmove line.
fn engine_answer(folder: Option<&Path>, fen: &str) -> (Vec<String>, String, String) {
    let mut engine = EngineProcess::start();
    let mut lines = vec!["uci".to_string(), "setoption name Game value silo".into()];
    if let Some(f) = folder {
        lines.push(format!(
            "setoption name SiloTablePath value {}",
            f.display()
        ));
    }
    lines.push(format!("position fen {fen}"));
    // A short search: without a table it would not prove a 1 x 6 position.
    lines.push("go movetime 50".into());
    let output = engine.until(&lines, "bestmove");
    let info = output
        .iter()
        .rfind(|l| l.starts_with("info depth"))
        .cloned()
        .unwrap_or_default();
    engine.quit();
    let best = output.last().cloned().unwrap_or_default();
    (output, info, best)
}

#[test]
fn the_engine_answers_from_the_table_with_the_whole_line() {
    let dir = temp_dir("tb-engine");
    write_table(&dir, MEDIUM, "silo-6x6.tbl");
    let (_, _, _, value) = old_solver(MEDIUM);
    // "win in 37 plies for player 1 to move"
    let plies: u64 = value
        .split_whitespace()
        .nth(2)
        .and_then(|w| w.parse().ok())
        .expect("plies");
    let (output, info, best) = engine_answer(Some(&dir), MEDIUM);
    assert!(
        output
            .iter()
            .any(|l| l == "option name SiloTablePath type string default <empty>"),
        "{output:?}"
    );
    assert!(
        output
            .iter()
            .any(|l| l.contains("SiloTablePath: 1 table(s): 1 x 6 row, 6 + 6 checkers")),
        "{output:?}"
    );
    let mate = (plies as i64 + 1) / 2;
    let mate = if value.starts_with("win") {
        mate
    } else {
        -(plies as i64 / 2)
    };
    assert!(info.contains(&format!("score mate {mate} ")), "{info}");
    let pv: Vec<&str> = info
        .split(" pv ")
        .nth(1)
        .expect("a pv")
        .split_whitespace()
        .collect();
    assert_eq!(pv.len() as u64, plies, "{info}");
    assert_eq!(best, format!("bestmove {}", pv[0]));
    // The line is legal and ends the game.
    let mut game = stackfish::game::silo::solve::root("silo", Some(MEDIUM)).expect("root");
    for mv in &pv {
        let m = stackfish::game::find_legal(&game, mv).expect("legal");
        stackfish::game::Game::play(&mut game, m);
    }
    assert!(stackfish::game::Game::outcome(&game).is_over());
    // Without the table the same short search gives no such line.
    let (_, info, best) = engine_answer(None, MEDIUM);
    assert!(best.starts_with("bestmove "));
    let searched = info
        .split(" pv ")
        .nth(1)
        .map_or(0, |p| p.split_whitespace().count());
    assert!(searched < pv.len(), "{info}");
    // A folder that does not exist is an error line, and the engine goes on.
    let (output, _, best) = engine_answer(Some(Path::new("/nonexistent-tables")), SMALL);
    assert!(
        output
            .iter()
            .any(|l| l
                .starts_with("info string error: option SiloTablePath: cannot read table folder")),
        "{output:?}"
    );
    assert!(best.starts_with("bestmove "));
}

#[test]
fn arena_adjudicates_from_the_table_and_records_the_value() {
    let dir = temp_dir("tb-arena");
    let tables = dir.join("tables");
    std::fs::create_dir_all(&tables).expect("folder");
    let (_, report) = write_table(&tables, SMALL, "silo-4x4.tbl");
    let plies = report
        .lines()
        .find_map(|l| l.strip_prefix("Value: win in "))
        .and_then(|rest| rest.split_whitespace().next())
        .expect("the first player wins 1 x 4")
        .to_string();
    std::fs::write(dir.join("openings.txt"), format!("{SMALL}\n")).expect("writes");
    let cmd = format!("cmd={}", stackfish());
    let engines = [
        "--engine", "name=a", &cmd, "st=0.05", "--engine", "name=b", &cmd, "st=0.05", "--game",
        "silo",
    ];
    let play = |extra: &[&str]| {
        let mut args = engines.to_vec();
        args.extend_from_slice(&[
            "--games",
            "2",
            "--openings",
            "openings.txt",
            "--json",
            "summary.json",
            "--jsonl",
            "games.jsonl",
        ]);
        args.extend_from_slice(extra);
        let run = arena(&args, &dir);
        assert_eq!(run.code, Some(0), "{}", run.output);
        (run.output, read_summary(&dir))
    };
    let (output, summary) = play(&["--tb", "tables"]);
    assert!(
        output.contains("Tables: 1 in tables (1 x 4 row, 4 + 4 checkers)"),
        "{output}"
    );
    let games = summary["games"].as_array().expect("games");
    assert_eq!(games.len(), 2);
    for g in games {
        assert_eq!(
            g["termination"],
            format!("table: player 1 wins in {plies} plies"),
            "{g}"
        );
        assert_eq!(g["result"], "1-0", "{g}");
        assert_eq!(g["plies"], 0, "{g}");
    }
    let records = std::fs::read_to_string(dir.join("games.jsonl")).expect("records");
    assert!(records.contains(&format!("table: player 1 wins in {plies} plies")));
    // Played out without the table, perfect engines reach the same result.
    std::fs::remove_file(dir.join("games.jsonl")).expect("removes");
    let (_, summary) = play(&[]);
    for g in summary["games"].as_array().expect("games") {
        assert_eq!(g["result"], "1-0", "{g}");
        assert_eq!(
            g["plies"].as_u64().map(|p| p.to_string()),
            Some(plies.clone()),
            "{g}"
        );
    }
    // A table folder that cannot be read stops the run before any game.
    let mut args = engines.to_vec();
    args.extend_from_slice(&["--tb", "no-such-folder"]);
    let run = arena(&args, &dir);
    assert_ne!(run.code, Some(0), "{}", run.output);
    assert!(
        run.output
            .contains("cannot read table folder no-such-folder"),
        "{}",
        run.output
    );
}

#[test]
fn a_table_truncated_under_the_engine_is_refused_with_a_message_and_the_engine_goes_on() {
    let dir = temp_dir("tb-truncated");
    let (path, _) = write_table(&dir, MEDIUM, "silo-6x6.tbl");
    let mut engine = EngineProcess::start();
    let loaded = engine.until(
        &[
            "uci".into(),
            "setoption name Game value silo".into(),
            format!("setoption name SiloTablePath value {}", dir.display()),
            "isready".into(),
        ],
        "readyok",
    );
    assert!(
        loaded.iter().any(|l| l.contains("1 table(s)")),
        "{loaded:?}"
    );
    let len = std::fs::metadata(&path).expect("exists").len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .expect("opens")
        .set_len(len / 3)
        .expect("truncates");
    // A memory-mapped table faults here (SIGBUS) and the engine dies.
    let answer = engine.until(
        &[format!("position fen {MEDIUM}"), "go depth 2".into()],
        "bestmove",
    );
    assert!(
        answer
            .iter()
            .any(|l| l.starts_with("info string error: table ") && l.contains("changed on disk")),
        "{answer:?}"
    );
    assert!(answer.last().expect("bestmove").len() > "bestmove ".len());
    // Said once; the engine still answers, from the search.
    let again = engine.until(&["go depth 2".into()], "bestmove");
    assert!(
        !again.iter().any(|l| l.contains("changed on disk")),
        "{again:?}"
    );
    assert_eq!(engine.until(&["isready".into()], "readyok"), ["readyok"]);
    assert!(engine.quit());
}
