//! The arena's command line as people type it: defaults in `--help`, a game
//! count that is rounded says so, repeated games get a warning, and the
//! JSON config takes numbers and strings alike (issue 23).

mod support;

use support::{arena, mock, temp_dir};

/// A mock engine whose moves depend only on the position: two of them
/// replay the same games from the same start.
fn deterministic(name: &str) -> Vec<String> {
    vec![
        "--engine".into(),
        format!("name={name}"),
        format!("cmd={}", mock()),
        "args=--per-position --seed 1".into(),
        "nodes=1".into(),
    ]
}

fn run(tag: &str, engines: &[&str], flags: &[&str]) -> support::Run {
    let dir = temp_dir(tag);
    let mut args: Vec<String> = engines.iter().flat_map(|n| deterministic(n)).collect();
    args.extend(flags.iter().map(|s| s.to_string()));
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    arena(&refs, &dir)
}

#[test]
fn help_shows_the_defaults() {
    let r = arena(&["--help"], &temp_dir("help"));
    assert_eq!(r.code, Some(0), "{}", r.output);
    for flag in [
        "--games",
        "--game ",
        "--concurrency",
        "--maxplies",
        "--ratinginterval",
        "--ping-timeout",
        "--tournament",
    ] {
        let line = r
            .output
            .lines()
            .find(|l| l.trim_start().starts_with(flag))
            .unwrap_or_else(|| panic!("{flag} missing in {}", r.output));
        assert!(line.contains("[default: "), "{line}");
    }
}

#[test]
fn a_rounded_game_count_says_so() {
    let r = run("round2", &["a", "b"], &["--games", "3"]);
    assert_eq!(r.code, Some(0), "{}", r.output);
    assert!(
        r.output.contains("Note: 3 games rounded up to 4"),
        "{}",
        r.output
    );
    let r = run("round3", &["a", "b", "c"], &["--games", "3"]);
    assert_eq!(r.code, Some(0), "{}", r.output);
    assert!(
        r.output.contains("Note: 3 games rounded up to 6") && r.output.contains("3 engine pairs"),
        "{}",
        r.output
    );
    let r = run("round0", &["a", "b"], &["--games", "4"]);
    assert!(!r.output.contains("rounded"), "{}", r.output);
}

#[test]
fn an_absurd_game_count_is_refused_with_its_bound() {
    // 4,000,000,000 games aborted on a 128 GB allocation (exit 134).
    let r = run("games-flag", &["a", "b"], &["--games", "4000000000"]);
    assert_eq!(r.code, Some(3), "{}", r.output);
    assert!(
        r.output.contains("--games") && r.output.contains("4000000000 is not in 1..=1000000"),
        "{}",
        r.output
    );
    // The same count from a config file, and from fastchess's -rounds x -games.
    let dir = temp_dir("games-config");
    let config = dir.join("match.json");
    let engine = |name: &str| format!(r#"{{"name": "{name}", "cmd": "{}", "depth": 1}}"#, mock());
    std::fs::write(
        &config,
        format!(
            r#"{{"engines": [{}, {}], "games": 4000000000}}"#,
            engine("a"),
            engine("b")
        ),
    )
    .unwrap();
    let r = arena(&["--config", config.to_str().unwrap()], &dir);
    assert_eq!(r.code, Some(3), "{}", r.output);
    assert!(
        r.output
            .contains("config error: --games 4000000000: at most 1000000 games in one run"),
        "{}",
        r.output
    );
    let cmd = format!("cmd={}", mock());
    let r = arena(
        &[
            "-engine",
            "name=a",
            &cmd,
            "-engine",
            "name=b",
            &cmd,
            "-each",
            "depth=1",
            "-rounds",
            "4000000000",
            "-games",
            "2",
        ],
        &dir,
    );
    assert_eq!(r.code, Some(3), "{}", r.output);
    assert!(r.output.contains("8000000000"), "{}", r.output);
}

#[test]
fn repeated_games_are_warned_about() {
    let r = run("repeat", &["a", "b"], &["--games", "6"]);
    assert_eq!(r.code, Some(0), "{}", r.output);
    assert!(r.output.contains("Warning: no --openings"), "{}", r.output);
    // Deterministic engines from one start: games 3-6 replay games 1 and 2.
    assert!(
        r.output
            .contains("Warning: 4 of 6 games repeat an earlier game move for move"),
        "{}",
        r.output
    );
    // One pair from the start position repeats nothing: no warning.
    let r = run("single", &["a", "b"], &["--games", "2"]);
    assert!(!r.output.contains("Warning"), "{}", r.output);
}

#[test]
fn the_json_config_takes_numbers_as_strings() {
    let dir = temp_dir("lenient");
    let config = format!(
        r#"{{"engines": [
            {{"name": "a", "cmd": "{m}", "args": ["--per-position"], "nodes": "1"}},
            {{"name": "b", "cmd": "{m}", "depth": "1"}}],
          "games": "2", "maxplies": "40", "ratinginterval": "0"}}"#,
        m = mock()
    );
    std::fs::write(dir.join("match.json"), config).unwrap();
    let r = arena(&["--config", "match.json"], &dir);
    assert_eq!(r.code, Some(0), "{}", r.output);
    assert!(r.output.contains("Finished game 2"), "{}", r.output);
    std::fs::write(
        dir.join("bad.json"),
        r#"{"engines": [{"name": "a", "cmd": "x", "st": "fast"}]}"#,
    )
    .unwrap();
    let r = arena(&["--config", "bad.json"], &dir);
    assert_eq!(r.code, Some(3), "{}", r.output);
    assert!(
        r.output.contains("expected a number, found \"fast\""),
        "{}",
        r.output
    );
}

/// The fields of a record that do not depend on when it was played.
fn game_facts(jsonl: &std::path::Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(jsonl).expect("records written");
    text.lines()
        .map(|l| {
            let r: serde_json::Value = serde_json::from_str(l).expect("a record");
            let moves: Vec<&serde_json::Value> = r["moves"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| &m["move"])
                .collect();
            serde_json::json!({
                "game": r["game"], "round": r["round"], "opening": r["opening"],
                "player1": r["player1"], "player2": r["player2"], "fen": r["fen"],
                "result": r["result"], "termination": r["termination"],
                "time_control": r["time_control"], "moves": moves,
            })
        })
        .collect()
}

#[test]
fn a_fastchess_command_line_plays_the_same_match() {
    let book = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tournaments/openings-mixtour.txt"
    );
    let engine = |dash: &str, name: &str, seed: u32| -> Vec<String> {
        vec![
            format!("{dash}engine"),
            format!("name={name}"),
            format!("cmd={}", mock()),
            format!("args=--per-position --seed {seed}"),
            "nodes=1".into(),
        ]
    };
    let run_with = |tag: &str, mut args: Vec<String>| {
        let dir = temp_dir(tag);
        args.extend(["--jsonl".into(), "games.jsonl".into()]);
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let r = arena(&refs, &dir);
        assert_eq!(r.code, Some(0), "{}", r.output);
        r
    };
    let mut ours: Vec<String> = [engine("--", "a", 1), engine("--", "b", 2)].concat();
    ours.extend(
        [
            "--games",
            "6",
            "--openings",
            book,
            "--seed",
            "3",
            "--maxplies",
            "60",
            "--ratinginterval",
            "0",
        ]
        .map(String::from),
    );
    let mut theirs: Vec<String> = [engine("-", "a", 1), engine("-", "b", 2)].concat();
    theirs.extend(
        [
            "-rounds",
            "3",
            "-games",
            "2",
            "-openings",
            &format!("file={book}"),
            "format=epd",
            "order=random",
            "-srand",
            "3",
            "-maxmoves",
            "30",
            "-concurrency",
            "1",
            "-recover",
            "-variant",
            "standard",
            "-ratinginterval",
            "2",
            "-output",
            "format=fastchess",
            "-testEnv",
        ]
        .map(String::from),
    );
    let a = run_with("fc-ours", ours);
    let b = run_with("fc-theirs", theirs);
    let (ra, rb) = (
        game_facts(&a.dir.join("games.jsonl")),
        game_facts(&b.dir.join("games.jsonl")),
    );
    assert_eq!(ra.len(), 6);
    assert_eq!(ra, rb, "the same match both ways");
    // fastchess's own output: a line per game and its results block.
    for n in 1..=6 {
        assert!(
            b.output.contains(&format!("Finished game {n} (")),
            "{}",
            b.output
        );
    }
    assert!(
        b.output
            .contains("Results of a vs b (1 nodes, NULL, NULL, openings-mixtour.txt):"),
        "{}",
        b.output
    );
    assert!(b.output.contains("Ptnml(0-2): ["), "{}", b.output);
    assert!(b.output.contains("Games: 6, Wins: "), "{}", b.output);
    // Blocks every 2 games and at the end.
    assert_eq!(
        b.output.matches("Results of a vs b").count(),
        3,
        "{}",
        b.output
    );
    assert!(!b.output.contains("Progress:"), "{}", b.output);
    let v = arena(&["-version"], &temp_dir("fc-version"));
    assert_eq!(v.code, Some(0), "{}", v.output);
    assert!(v.output.starts_with("arena "), "{}", v.output);
    let bad = arena(
        &["-openings", "file=x.pgn", "format=pgn"],
        &temp_dir("fc-bad"),
    );
    assert_eq!(bad.code, Some(3), "{}", bad.output);
    assert!(bad.output.contains("format=epd"), "{}", bad.output);
}

/// What OpenBench's worker reads of a match runner's output
/// (AndyGrant/OpenBench, Client/worker.py: `run_and_parse_cutechess` and
/// `Cutechess.update_results`), re-expressed without a regex engine:
///
/// ```python
/// if 'Finished game' in line: update_results(results, line)
/// tokens = line.split(); game, result = int(tokens[2]), tokens[6]
/// reason = line.split(':')[1]
/// results['crashes'   ] += 'disconnect' in reason or 'stalls' in reason
/// results['timelosses'] += 'on time' in reason
/// results['illegals'  ] += 'illegal' in reason
/// game_to_pair(g) = (g, g+1) if g % 2 else (g-1, g)
/// pair_to_penta(r1, r2) = lookup[r1] + 2 - lookup[r2]
///     with lookup = { '0-1' : 0, '1/2-1/2' : 1, '1-0' : 2 }
/// ```
#[derive(Debug, Default)]
struct OpenBenchCounts {
    pentanomial: [u32; 5],
    crashes: u32,
    timelosses: u32,
    illegals: u32,
    games: u32,
}

fn openbench_parse(output: &str) -> OpenBenchCounts {
    let lookup = |r: &str| match r {
        "0-1" => 0,
        "1/2-1/2" => 1,
        "1-0" => 2,
        other => panic!("OpenBench's lookup has no result {other:?}"),
    };
    let mut counts = OpenBenchCounts::default();
    let mut results = std::collections::BTreeMap::new();
    for line in output.lines().filter(|l| l.contains("Finished game")) {
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let game: u32 = tokens[2].parse().expect("tokens[2] is the game number");
        let reason = line.split(':').nth(1).expect("a ':' after the players");
        counts.crashes += u32::from(reason.contains("disconnect") || reason.contains("stalls"));
        counts.timelosses += u32::from(reason.contains("on time"));
        counts.illegals += u32::from(reason.contains("illegal"));
        counts.games += 1;
        results.insert(game, lookup(tokens[6]));
        let (first, second) = if game % 2 == 1 {
            (game, game + 1)
        } else {
            (game - 1, game)
        };
        if let (Some(r1), Some(r2)) = (results.get(&first), results.get(&second)) {
            counts.pentanomial[r1 + 2 - r2] += 1;
        }
    }
    counts
}

#[test]
fn fastchess_output_reads_as_openbench_parses_it() {
    // a plays an illegal move at its third search; b crashes at the second
    // search of every process (it is restarted after each crash).
    let engine = |name: &str, args: &str| -> Vec<String> {
        vec![
            "-engine".into(),
            format!("name={name}"),
            format!("cmd={}", mock()),
            format!("args=--per-position {args}"),
            "nodes=1".into(),
        ]
    };
    let mut args = [
        engine("a", "--seed 1 --fault illegal --at 3"),
        engine("b", "--seed 2 --fault crash --at 2"),
    ]
    .concat();
    args.extend(
        [
            "-rounds",
            "3",
            "-games",
            "2",
            "-repeat",
            "-sprt",
            "elo0=0",
            "elo1=5",
            "alpha=0.05",
            "beta=0.05",
            "-ratinginterval",
            "0",
            "-output",
            "format=fastchess",
        ]
        .map(String::from),
    );
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let r = arena(&refs, &temp_dir("fc-openbench"));
    // Six games cross neither SPRT bound: inconclusive, exit status 2.
    assert_eq!(r.code, Some(2), "{}", r.output);
    let ob = openbench_parse(&r.output);
    assert_eq!(ob.games, 6, "{}", r.output);
    // OpenBench scores the first engine, which plays the odd games first.
    for line in r.output.lines().filter(|l| l.contains("Finished game")) {
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let game: u32 = tokens[2].parse().unwrap();
        let first = if game % 2 == 1 { "(a" } else { "(b" };
        assert_eq!(tokens[3], first, "{line}");
    }
    assert!(ob.crashes >= 1 && ob.illegals >= 1, "{ob:?}\n{}", r.output);
    let faults = r
        .output
        .lines()
        .filter(|l| l.contains("Finished game") && (l.contains("crashed") || l.contains("illegal")))
        .count() as u32;
    assert_eq!(
        ob.crashes + ob.illegals + ob.timelosses,
        faults,
        "{}",
        r.output
    );
    // The pentanomial OpenBench builds is the one our block prints.
    let ptnml = r
        .output
        .lines()
        .rfind(|l| l.starts_with("Ptnml(0-2): ["))
        .expect("a Ptnml line");
    let printed = ptnml["Ptnml(0-2): [".len()..]
        .split(']')
        .next()
        .unwrap()
        .split(", ")
        .map(|n| n.parse::<u32>().unwrap())
        .collect::<Vec<_>>();
    assert_eq!(printed, ob.pentanomial.to_vec(), "{}", r.output);
    // The end of the run as fastchess prints it (its output_fastchess.hpp,
    // roundrobin.cpp and main.cpp): the SPRT line, the block, two lines.
    let lines: Vec<&str> = r.output.lines().collect();
    let end = lines
        .iter()
        .rposition(|l| l.starts_with("SPRT test finished: "))
        .expect("the SPRT line");
    assert_eq!(lines[end], "SPRT test finished: (-2.94, 2.94) [0.00, 5.00]");
    let prefixes = [
        "--------------------------------------------------",
        "Results of a vs b (1 nodes, NULL, NULL):",
        "Elo: ",
        "LOS: ",
        "Games: 6, Wins: ",
        "Ptnml(0-2): [",
        "LLR: ",
        "--------------------------------------------------",
        "Tournament finished",
        "Finished match",
    ];
    assert_eq!(lines.len(), end + 1 + prefixes.len(), "{}", r.output);
    for (line, prefix) in lines[end + 1..].iter().zip(prefixes) {
        assert!(line.starts_with(prefix), "{line:?} should start {prefix:?}");
    }
    assert!(
        lines[end + 7].ends_with("(-2.94, 2.94) [0.00, 5.00]"),
        "{}",
        lines[end + 7]
    );
}
