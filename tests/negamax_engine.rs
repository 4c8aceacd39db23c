//! The reference opponent `negamax-engine` (tests/support/negamax_engine.rs):
//! it speaks the protocol, plays only legal moves, takes a win in one, stops
//! a loss in one, refuses games it does not play, and passes the arena's
//! compliance check. Every move is judged with the rules library.

mod support;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

use stackfish::game::mixtour::{Mixtour, MixtourVariant};
use stackfish::game::{find_legal, Game, Line, Outcome};
use support::{arena, temp_dir};

const WAIT: Duration = Duration::from_secs(30);

fn exe() -> &'static str {
    env!("CARGO_BIN_EXE_negamax-engine")
}

/// A running engine: lines in, lines out, every read under a deadline.
struct Session {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Session {
    fn start() -> Session {
        let mut child = Command::new(exe())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("negamax-engine starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Session {
            child,
            stdin,
            lines,
        }
    }

    fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").expect("engine reads");
        self.stdin.flush().unwrap();
    }

    /// Lines up to and including the first that starts with `prefix`.
    fn until(&mut self, prefix: &str) -> Vec<String> {
        let mut seen = Vec::new();
        loop {
            match self.lines.recv_timeout(WAIT) {
                Ok(line) => {
                    let done = line.starts_with(prefix);
                    seen.push(line);
                    if done {
                        return seen;
                    }
                }
                Err(e) => panic!("no '{prefix}' line ({e}); saw {seen:?}"),
            }
        }
    }

    fn ready(&mut self) {
        self.send("isready");
        self.until("readyok");
    }

    /// `position fen <fen>` + `go`, the move of the `bestmove` line.
    fn best(&mut self, position: &str, go: &str) -> String {
        self.send(position);
        self.send(go);
        let lines = self.until("bestmove");
        let last = lines.last().unwrap();
        let tokens: Vec<&str> = last.split_whitespace().collect();
        assert_eq!(tokens.len(), 2, "one move after bestmove: {last}");
        assert!(
            lines.iter().any(|l| l.starts_with("info depth")),
            "an info line before the move: {lines:?}"
        );
        tokens[1].to_string()
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn position(fen: &str) -> Mixtour {
    Mixtour::from_fen(&MixtourVariant::STANDARD, fen).expect("test position")
}

/// Whether the side to move of `pos` has a move that wins on the spot.
fn has_win_in_one(pos: &Mixtour) -> bool {
    let mut moves = Vec::new();
    pos.generate_moves(&mut moves);
    moves.into_iter().any(|mv| {
        let mut next = *pos;
        next.play(mv);
        next.outcome().result().and_then(|r| r.winner()) == Some(pos.side_to_move())
    })
}

#[test]
fn handshake_in_both_dialects_and_pings() {
    let mut e = Session::start();
    e.send("ugi");
    let lines = e.until("ugiok");
    assert!(lines.iter().any(|l| l.starts_with("id name ")), "{lines:?}");
    for option in ["Depth", "Seed", "Game"] {
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with(&format!("option name {option} type"))),
            "{option} advertised: {lines:?}"
        );
    }
    e.ready();
    e.send("uci");
    e.until("uciok");
    e.send("ucinewgame");
    e.ready();
}

#[test]
fn plays_a_whole_game_of_legal_moves_against_itself() {
    let mut e = Session::start();
    e.send("setoption name Depth value 2");
    let mut line = Line::<Mixtour>::new(MixtourVariant::STANDARD);
    let mut moves: Vec<String> = Vec::new();
    while !line.outcome().is_over() && moves.len() < 120 {
        let cmd = format!("position startpos moves {}", moves.join(" "));
        let mv = e.best(&cmd, "go p1time 1000 p2time 1000");
        line.play_text(&mv)
            .unwrap_or_else(|err| panic!("after {moves:?}: {err}"));
        moves.push(mv);
    }
    assert!(moves.len() > 4, "{moves:?}");
}

#[test]
fn takes_a_win_in_one_for_either_side() {
    // Two pieces from d1 onto a1 make a tower of five with the mover's piece on
    // top; the colours are swapped in the second position.
    for fen in [
        "x5/x5/x5/x,2,x3/222,x2,21,x 1 19,15 0,0 1 -",
        "x5/x5/x5/x,1,x3/111,x2,12,x 2 15,19 0,0 1 -",
    ] {
        let pos = position(fen);
        assert!(has_win_in_one(&pos), "the test position has a win: {fen}");
        for depth in [1, 2, 3, 4] {
            let mut e = Session::start();
            let mv = e.best(&format!("position fen {fen}"), &format!("go depth {depth}"));
            let mut next = pos;
            next.play(find_legal(&pos, &mv).expect("legal"));
            assert_eq!(
                next.outcome().result().and_then(|r| r.winner()),
                Some(pos.side_to_move()),
                "depth {depth} played {mv} in {fen}"
            );
        }
    }
}

#[test]
fn avoids_a_loss_in_one_at_depth_two() {
    // Player 2 threatens 2d1a1 (a tower of five with a 2 on top); player 1
    // has no win of its own and must block, move or spoil one of the stacks.
    for fen in [
        "x5/x5/x5/x5/111,x2,12,x 1 16,19 0,0 1 -",
        "x5/x2,2,x2/x5/x,1,x3/222,x2,21,x 2 18,15 0,0 1 -",
        "x5/x5/x5/x5/222,x2,21,x 2 19,16 0,0 1 -",
    ] {
        let pos = position(fen);
        assert!(!has_win_in_one(&pos), "no win for the mover: {fen}");
        let mut threatened = pos;
        threatened.play(stackfish::game::mixtour::Move::PASS);
        assert!(has_win_in_one(&threatened), "a real threat: {fen}");
        for seed in 0..3 {
            let mut e = Session::start();
            e.send(&format!("setoption name Seed value {seed}"));
            e.send("setoption name Depth value 2");
            let mv = e.best(&format!("position fen {fen}"), "go movetime 100");
            let mut next = pos;
            next.play(find_legal(&pos, &mv).expect("legal"));
            assert!(
                !next.outcome().is_over() && !has_win_in_one(&next),
                "seed {seed}: {mv} leaves a win in one in {fen}"
            );
        }
    }
}

#[test]
fn refuses_an_unknown_game_and_keeps_playing() {
    let mut e = Session::start();
    e.send("setoption name Game value silo");
    let lines = e.until("info string");
    assert!(
        lines.last().unwrap().starts_with("info string error"),
        "{lines:?}"
    );
    e.ready();
    let mv = e.best("position startpos", "go depth 2");
    find_legal(&Mixtour::start(&MixtourVariant::STANDARD), &mv).expect("a Mixtour move");

    e.send("setoption name Game value mixtour-5");
    e.send("position startpos");
    e.send("d");
    let board = e.until("Fen:");
    let five = Mixtour::start(&MixtourVariant::FIVE_POINTS).fen();
    assert_eq!(board.last().unwrap(), &format!("Fen: {five}"), "{board:?}");
}

#[test]
fn a_bad_position_keeps_the_previous_one() {
    let mut e = Session::start();
    let fen = "x5/x5/x5/x,2,x3/222,x2,21,x 1 19,15 0,0 1 -";
    e.send(&format!("position fen {fen}"));
    for bad in [
        "position fen x5/x5 1 20,20 0,0 1 -",
        "position startpos moves c3 c3",
        "position",
    ] {
        e.send(bad);
        let lines = e.until("info string");
        assert!(
            lines.last().unwrap().starts_with("info string error"),
            "{bad}: {lines:?}"
        );
    }
    e.send("d");
    let board = e.until("Fen:");
    assert_eq!(board.last().unwrap(), &format!("Fen: {fen}"));
}

#[test]
fn ties_are_broken_by_seed_and_position_reproducibly() {
    let mut choices = std::collections::HashSet::new();
    for seed in 0..8 {
        let mut moves = Vec::new();
        for _ in 0..2 {
            let mut e = Session::start();
            e.send(&format!("setoption name Seed value {seed}"));
            moves.push(e.best("position startpos", "go depth 2"));
        }
        assert_eq!(moves[0], moves[1], "seed {seed} replays");
        choices.insert(moves[0].clone());
    }
    assert!(
        choices.len() > 1,
        "the symmetric start has many equal moves: {choices:?}"
    );
}

#[test]
fn move_ordering_changes_no_score_and_no_move() {
    // Middlegame positions with tower moves about, searched with and without
    // ordering: the same score line and the same move, fewer nodes.
    let positions = [
        "x,1,x3/x4,22/x2,221,x2/2,2,x2,2211/11,x4 1 14,12 0,0 1 c1c3",
        "x2,22,x2/1,x2,21,x/x,2,x,2,21/1212,x4/x3,1,x 1 14,12 0,0 1 b3",
        "x,2,2,x2/x5/x2,1121,2221,x/2122,212,x,11,x/x2,11,x2 1 10,9 0,0 1 c2d2",
        "x3,12,x/x4,12/112,x4/x3,1,x/122,112,x2,21 1 11,13 0,0 1 d5e4",
    ];
    let nodes = |line: &str| -> u64 {
        let t: Vec<&str> = line.split_whitespace().collect();
        let i = t.iter().position(|&x| x == "nodes").unwrap();
        t[i + 1].parse().unwrap()
    };
    let without_counts = |line: &str| -> String {
        let t: Vec<&str> = line.split_whitespace().collect();
        let i = t.iter().position(|&x| x == "nodes").unwrap();
        [&t[..i], &t[i + 4..]].concat().join(" ")
    };
    let (mut plain_nodes, mut ordered_nodes) = (0, 0);
    for fen in positions {
        let mut runs = Vec::new();
        for ordering in ["false", "true"] {
            let mut e = Session::start();
            e.send(&format!("setoption name Ordering value {ordering}"));
            e.send(&format!("position fen {fen}"));
            e.send("go depth 4");
            let lines = e.until("bestmove");
            let info = lines.iter().find(|l| l.starts_with("info depth")).unwrap();
            runs.push((
                without_counts(info),
                lines.last().unwrap().clone(),
                nodes(info),
            ));
        }
        assert_eq!((&runs[0].0, &runs[0].1), (&runs[1].0, &runs[1].1), "{fen}");
        plain_nodes += runs[0].2;
        ordered_nodes += runs[1].2;
    }
    assert!(
        ordered_nodes < plain_nodes,
        "{ordered_nodes} >= {plain_nodes}"
    );
}

#[test]
fn infinite_waits_for_stop_and_answers_pings() {
    let mut e = Session::start();
    e.send("position startpos");
    e.send("go infinite");
    e.until("info depth");
    std::thread::sleep(Duration::from_millis(100));
    e.send("isready");
    let lines = e.until("readyok");
    assert!(
        !lines.iter().any(|l| l.starts_with("bestmove")),
        "{lines:?}"
    );
    e.send("stop");
    e.until("bestmove");
}

#[test]
fn passes_the_arena_compliance_check() {
    for game in ["mixtour", "mixtour-5"] {
        let dir = temp_dir(&format!("negamax-compliance-{game}"));
        let run = arena(&["compliance", "--game", game, exe()], &dir);
        assert_eq!(run.code, Some(0), "{game}: {}", run.output);
    }
}

#[test]
fn a_finished_game_gets_bestmove_none() {
    let mut e = Session::start();
    let fen = "x5/x5/x5/x5/x5 1 20,20 0,1 1 -";
    assert!(matches!(position(fen).outcome(), Outcome::Over { .. }));
    e.send(&format!("position fen {fen}"));
    e.send("go depth 3");
    let lines = e.until("bestmove");
    assert_eq!(lines.last().unwrap(), "bestmove none");
}
