//! A UGI engine for the arena's tests: plays random legal moves (through the
//! rules library) and misbehaves on purpose when asked to:
//!
//! `mock-engine [--fault KIND] [--at N] [--slow-ms MS] [--seed S] [--name NAME] [--score CP] [--mate N]`
//!
//! KIND, at the N-th `go` of the process (default 1):
//! `crash` (exit status 101 without a reply), `hang` (never answers again),
//! `illegal` (an illegal move), `garbage` (a line that is not UGI),
//! `extra` (`bestmove <move> extra`), `slow` (sleeps `--slow-ms` before the
//! reply), `exit` (answers, then exits with status 0), `noping` (stops
//! answering `isready`), `longline` (100 KB of `bestmove xxx...` on one
//! line before its real reply).
//! `silent` ignores everything from the start (no `ugiok`).
//! `--score CP` is the score of every `info` line (`cp CP`); `--mate N`
//! makes it `mate N`, written as given (`-0` too).
//! `--refuse-options` answers every `setoption` with `info string error`.
//! `--spins` also advertises two spin options, MockSpinA (0..10) and
//! MockSpinB (0..100), for `arena tune`'s tests; their values change nothing.
//! `--per-position` draws each move from a generator seeded by the seed and
//! the position, so a game's moves do not depend on what the process played
//! before (shards of a match then replay the unsharded games exactly).

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use std::io::{BufRead, Write};
use std::time::Duration;

use stackfish::game::variants::new_game;
use stackfish::game::{AnyGame, GameResult, Outcome, Side};

const USAGE: &str = "Usage: mock-engine [--fault KIND] [--at N] [--slow-ms MS] [--seed S] \
[--name NAME] [--score CP] [--mate N] [--per-position] [--refuse-options] [--spins]

A misbehaving UGI engine for the arena's tests; speaks UGI on stdin/stdout.
KIND, at the N-th `go` (default 1): crash, hang, illegal, garbage, extra, longline, slow,
exit, noping; silent ignores everything from the start.
";

struct Args {
    fault: Option<String>,
    at: u32,
    slow_ms: u64,
    seed: u64,
    name: String,
    /// The score every `info` line reports: `cp 0`, `cp -2147483648`,
    /// `mate -0`.
    score: String,
    per_position: bool,
    refuse_options: bool,
    spins: bool,
}

fn parse_args() -> Args {
    let mut a = Args {
        fault: None,
        at: 1,
        slow_ms: 1000,
        seed: 1,
        name: "mock".into(),
        score: "cp 0".into(),
        per_position: false,
        refuse_options: false,
        spins: false,
    };
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < argv.len() {
        let val = argv.get(i + 1).cloned().unwrap_or_default();
        match argv[i].as_str() {
            "--per-position" => {
                a.per_position = true;
                i += 1;
                continue;
            }
            "--refuse-options" => {
                a.refuse_options = true;
                i += 1;
                continue;
            }
            "--spins" => {
                a.spins = true;
                i += 1;
                continue;
            }
            "--help" | "-h" => {
                print!("{USAGE}");
                std::process::exit(0);
            }
            "--fault" => a.fault = Some(val),
            "--at" => a.at = val.parse().unwrap_or(1),
            "--slow-ms" => a.slow_ms = val.parse().unwrap_or(1000),
            "--seed" => a.seed = val.parse().unwrap_or(1),
            "--name" => a.name = val,
            "--score" => a.score = format!("cp {}", val.parse::<i32>().unwrap_or(0)),
            "--mate" => a.score = format!("mate {val}"),
            other => {
                eprintln!("mock-engine: unknown argument {other}");
                std::process::exit(2);
            }
        }
        i += 2;
    }
    a
}

/// A fixed hash (unlike std's seeded one), so runs are reproducible.
fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

fn hang() -> ! {
    loop {
        std::thread::sleep(Duration::from_secs(3600));
    }
}

fn set_position(game: &str, tokens: &[&str]) -> Option<Box<dyn AnyGame>> {
    let mut g = new_game(game)?;
    let moves_at = tokens
        .iter()
        .position(|&t| t == "moves")
        .unwrap_or(tokens.len());
    match tokens.get(1) {
        Some(&"startpos") => {}
        Some(&"fen") => g.set_fen(&tokens[2..moves_at].join(" ")).ok()?,
        _ => return None,
    }
    for m in tokens.iter().skip(moves_at + 1) {
        g.play_text(m).ok()?;
    }
    Some(g)
}

fn main() {
    let args = parse_args();
    let fault = args.fault.as_deref().unwrap_or("");
    let mut rng = StdRng::seed_from_u64(args.seed);
    let mut game_name = "mixtour".to_string();
    let mut pos = new_game(&game_name).expect("mixtour exists");
    let mut gos = 0u32;
    let mut pings_dead = false;
    let mut pending: Option<String> = None;
    let mut position_line = String::new();
    let stdin = std::io::stdin();
    let mut out = std::io::stdout();
    if fault == "silent" {
        hang();
    }
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let mut say = |s: &str| {
            let _ = writeln!(out, "{s}");
            let _ = out.flush();
        };
        match tokens.first().copied() {
            Some("ugi") | Some("uci") => {
                say(&format!("id name {}", args.name));
                say("id author stackfish tests");
                say("option name Game type combo default mixtour var mixtour var mixtour-5");
                if args.spins {
                    say("option name MockSpinA type spin default 5 min 0 max 10");
                    say("option name MockSpinB type spin default 50 min 0 max 100");
                }
                say(if tokens[0] == "ugi" { "ugiok" } else { "uciok" });
            }
            Some("isready") if !pings_dead => say("readyok"),
            Some("isready") => {}
            Some("setoption") if args.refuse_options => {
                let name = tokens.get(2).copied().unwrap_or_default();
                say(&format!("info string error: option {name} refused"));
            }
            Some("setoption") => {
                let is_game = tokens
                    .get(2)
                    .is_some_and(|t| t.eq_ignore_ascii_case("game"));
                match tokens.get(4).and_then(|v| new_game(v).map(|g| (v, g))) {
                    Some((v, g)) if is_game => {
                        game_name = v.to_string();
                        pos = g;
                    }
                    _ => say(&format!("info string ignored: {line}")),
                }
            }
            Some("uginewgame") | Some("ucinewgame") => {}
            Some("position") => match set_position(&game_name, &tokens) {
                Some(p) => {
                    pos = p;
                    position_line = line.clone();
                }
                None => say(&format!("info string error: bad position: {line}")),
            },
            Some("go") => {
                gos += 1;
                let now = gos == args.at;
                let legal = pos.legal_moves();
                if args.per_position {
                    rng = StdRng::seed_from_u64(args.seed ^ fnv1a(&position_line));
                }
                let mv = legal
                    .choose(&mut rng)
                    .cloned()
                    .unwrap_or_else(|| "pass".into());
                if now {
                    match fault {
                        "crash" => std::process::exit(101),
                        "hang" => hang(),
                        "illegal" => {
                            say("bestmove 3a1b2");
                            continue;
                        }
                        "garbage" => {
                            say("#$%& not a protocol line");
                            continue;
                        }
                        "extra" => {
                            say(&format!("bestmove {mv} extra"));
                            continue;
                        }
                        "longline" => say(&format!("bestmove {}", "x".repeat(100_000))),
                        "noping" => pings_dead = true,
                        _ => {}
                    }
                }
                if fault == "slow" && gos >= args.at {
                    std::thread::sleep(Duration::from_millis(args.slow_ms));
                }
                say(&format!(
                    "info depth 1 score {} nodes {} pv {mv}",
                    args.score,
                    legal.len()
                ));
                if tokens.contains(&"infinite") {
                    // Answered on `stop`, as the protocol says.
                    pending = Some(mv);
                    continue;
                }
                say(&format!("bestmove {mv}"));
                if now && fault == "exit" {
                    std::process::exit(0);
                }
            }
            Some("stop") => {
                if let Some(mv) = pending.take() {
                    say(&format!("bestmove {mv}"));
                }
            }
            Some("query") => {
                let outcome = pos.outcome();
                let answer = match tokens.get(1).copied() {
                    Some("gameover") => outcome.is_over().to_string(),
                    Some("p1turn") => (pos.side_to_move() == Side::P1).to_string(),
                    Some("result") => match outcome {
                        Outcome::Over { result, .. } => GameResult::ugi(result).to_string(),
                        Outcome::Ongoing => "none".into(),
                    },
                    _ => "unknown".into(),
                };
                say(&format!("response {answer}"));
            }
            Some("quit") => break,
            Some(_) => say(&format!("info string unknown command: {line}")),
            None => {}
        }
    }
}
