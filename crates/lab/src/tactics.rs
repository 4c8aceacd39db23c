//! The Mixtour tactics suite: positions from real games with a forced win
//! or a single saving move, each proven by exact full-width search
//! (`search::proof`), and the benchmark that counts how many the engine
//! solves under a time or node limit.
//!
//! Suite file: one position per line, `#` comments and blank lines ignored:
//! ```text
//! <fen> ; win <plies> ; <move> <move> ... ; <where it came from>
//! <fen> ; save <plies> ; <move> ; <where it came from>
//! ```
//! `win n`: the side to move forces a win within n plies (n odd, 3 or
//! more: a win in one is not a test) and the moves listed are all the moves
//! that do. `save n`: every move but the one listed loses within n plies
//! (its own ply counted), and that one does not.

use std::fmt;
use std::sync::Arc;

use stackfish_engine::{self as engine, BestMove, GoParams, Networks, Options};
use stackfish_games::mixtour::{Mixtour, MixtourVariant};
use stackfish_games::{find_legal, Game};
use stackfish_search::proof::{surviving_moves, winning_moves, wins_within};
use stackfish_search::Shared;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Win,
    Save,
}

/// One test position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tactic {
    pub fen: String,
    pub kind: Kind,
    pub plies: u32,
    /// Every move that solves it, in the engine's notation.
    pub solutions: Vec<String>,
    pub source: String,
}

impl fmt::Display for Tactic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.kind {
            Kind::Win => "win",
            Kind::Save => "save",
        };
        write!(
            f,
            "{} ; {kind} {} ; {} ; {}",
            self.fen,
            self.plies,
            self.solutions.join(" "),
            self.source
        )
    }
}

/// A suite line that does not read: its number (from 1) and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {fault}")]
pub struct SuiteError {
    pub line: usize,
    pub fault: SuiteFault,
}

/// What is wrong with a suite line.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SuiteFault {
    #[error("expected 4 fields separated by ';'")]
    Fields,
    /// The position string does not read (the rules' words).
    #[error("{0}")]
    Position(String),
    #[error("expected 'win <plies>' or 'save <plies>'")]
    Kind,
    #[error("'{0}' is not a number of plies")]
    Plies(String),
    #[error("no solution move")]
    NoSolution,
    /// A solution is not a legal move there (the rules' words).
    #[error("{0}")]
    Move(String),
}

/// Reads a suite; an error names the line and what is wrong with it.
pub fn parse_suite(text: &str) -> Result<Vec<Tactic>, SuiteError> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = |fault: SuiteFault| SuiteError { line: n + 1, fault };
        let fields: Vec<&str> = line.split(';').map(str::trim).collect();
        let [fen, kind, solutions, source] = fields[..] else {
            return Err(bad(SuiteFault::Fields));
        };
        let pos = Mixtour::from_fen(&MixtourVariant::STANDARD, fen)
            .map_err(|e| bad(SuiteFault::Position(e.to_string())))?;
        let (kind, plies) = match kind.split_whitespace().collect::<Vec<_>>()[..] {
            ["win", n] => (Kind::Win, n),
            ["save", n] => (Kind::Save, n),
            _ => return Err(bad(SuiteFault::Kind)),
        };
        let plies = plies
            .parse()
            .map_err(|_| bad(SuiteFault::Plies(plies.to_string())))?;
        let solutions: Vec<String> = solutions.split_whitespace().map(String::from).collect();
        if solutions.is_empty() {
            return Err(bad(SuiteFault::NoSolution));
        }
        for m in &solutions {
            find_legal(&pos, m).map_err(|e| bad(SuiteFault::Move(e.to_string())))?;
        }
        out.push(Tactic {
            fen: fen.to_string(),
            kind,
            plies,
            solutions,
            source: source.to_string(),
        });
    }
    Ok(out)
}

/// Wins within 3, 5, ... `max_win` plies (the shortest), or a single
/// saving move at a horizon of 2, 4, ... `max_save` plies (the shortest with
/// one survivor). A win in one and lost positions are no tests: `None`.
pub fn classify(pos: &Mixtour, max_win: u32, max_save: u32) -> Option<(Kind, u32, Vec<String>)> {
    if pos.outcome().is_over() || wins_within(pos, 1) {
        return None;
    }
    let names =
        |moves: Vec<stackfish_games::mixtour::Move<stackfish_games::mixtour::Standard>>| -> Vec<String> {
            moves.iter().map(|m| m.to_string()).collect()
        };
    for plies in (3..=max_win).step_by(2) {
        if wins_within(pos, plies) {
            return Some((Kind::Win, plies, names(winning_moves(pos, plies))));
        }
    }
    // Only a position under threat can have a single saving move; a free
    // move for the opponent (a pass) shows the threat cheaply. Positions
    // lost only by zugzwang are missed, which costs the suite nothing.
    let mut passed = *pos;
    passed.play(pos.null_move()?);
    if passed.outcome().is_over() {
        return None;
    }
    for plies in (2..=max_save).step_by(2) {
        if !wins_within(&passed, plies - 1) {
            continue;
        }
        let survivors = surviving_moves(pos, plies);
        match survivors.len() {
            0 => return None,
            1 => return Some((Kind::Save, plies, names(survivors))),
            _ => {}
        }
    }
    None
}

/// Every test position in arena records (JSON lines) of standard Mixtour
/// games, each position once, in the order met. `source` names the records.
pub fn find_in_records(text: &str, source: &str, max_win: u32, max_save: u32) -> Vec<Tactic> {
    let mut found = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (n, record) in stackfish_record::records(text) {
        let Ok(record) = record else {
            continue;
        };
        if !matches!(record.variant.as_str(), "" | "mixtour") {
            continue;
        }
        let start = match record.fen.as_deref() {
            Some(fen) if fen != "startpos" => {
                Mixtour::from_fen(&MixtourVariant::STANDARD, fen).ok()
            }
            _ => Some(Mixtour::start(&MixtourVariant::STANDARD)),
        };
        let Some(mut pos) = start else {
            continue;
        };
        for (ply, m) in record.moves.iter().enumerate() {
            if !m.book && seen.insert(pos.hash()) {
                if let Some((kind, plies, solutions)) = classify(&pos, max_win, max_save) {
                    found.push(Tactic {
                        fen: pos.fen(),
                        kind,
                        plies,
                        solutions,
                        source: format!("{source} line {n} ply {}", ply + 1),
                    });
                }
            }
            let Ok(mv) = find_legal(&pos, &m.mv) else {
                break;
            };
            pos.play(mv);
        }
    }
    found
}

/// The outcome of running the engine on a suite.
#[derive(Clone, Debug, Default)]
pub struct Score {
    pub solved: usize,
    pub total: usize,
    /// The positions missed: the tactic and the move played.
    pub missed: Vec<(Tactic, String)>,
}

/// Runs the engine (one thread, a fresh game and a 16 MB table per
/// position) on every tactic with `params` as the `go` limits, playing
/// Mixtour's networks of `networks`.
pub fn run(suite: &[Tactic], params: &GoParams, networks: &Networks) -> Score {
    let shared = Arc::new(Shared::new(engine::BENCH_HASH_MB));
    let options = Options::default();
    let mut score = Score::default();
    for t in suite {
        let Some(mut session) = engine::new_session_with("mixtour", networks) else {
            break;
        };
        shared.tt.clear();
        shared.arm();
        let played = match session.set_position(Some(&t.fen), &[]) {
            Ok(()) => match session.go(&shared, params, &options, &mut |_| {}) {
                BestMove::Move { best, .. } => best,
                BestMove::GameOver(r) => format!("none ({r})"),
            },
            Err(e) => format!("none ({e})"),
        };
        score.total += 1;
        if t.solutions.contains(&played) {
            score.solved += 1;
        } else {
            score.missed.push((t.clone(), played));
        }
    }
    score
}

#[cfg(test)]
mod tests {
    use super::*;
    use stackfish_games::Side;

    #[test]
    fn a_suite_line_round_trips_and_bad_lines_are_named() {
        let line =
            "x,2,2,x,1221/x5/221,x2,1,2/11,x4/2,x3,11 1 0,0 0,0 1 2c5e5 ; win 3 ; 2a2a1 ; test";
        let suite = parse_suite(&format!("# comment\n\n{line}\n")).unwrap();
        assert_eq!(suite.len(), 1);
        assert_eq!(suite[0].to_string(), line);
        assert!(parse_suite("x5/x5/x5/x5/x5 1 20,20 0,0 1 - ; win 3 ; c3").is_err());
        let e = parse_suite("x5/x5/x5/x5/x5 1 20,20 0,0 1 - ; draw 3 ; c3 ; s")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("line 1:"), "{e}");
        assert!(parse_suite("x5/x5/x5/x5/x5 1 20,20 0,0 1 - ; win 3 ; 4a1b1 ; s").is_err());
    }

    /// Every shipped position still is what its line says: the same kind,
    /// the same shortest horizon and the same solving moves, by proof.
    #[test]
    fn the_shipped_suite_is_proven() {
        let suite = parse_suite(include_str!("../../../tournaments/tactics-mixtour.txt")).unwrap();
        assert!(suite.len() >= 200, "{} positions", suite.len());
        let (mut wins, mut saves) = (0, 0);
        for t in &suite {
            let pos = Mixtour::from_fen(&MixtourVariant::STANDARD, &t.fen).unwrap();
            let (kind, plies, mut proven) = classify(&pos, 5, 4).unwrap_or_else(|| {
                panic!("{}: no longer a test position", t.fen);
            });
            let mut listed = t.solutions.clone();
            listed.sort();
            proven.sort();
            assert_eq!(
                (kind, plies, proven),
                (t.kind, t.plies, listed),
                "{}",
                t.fen
            );
            match kind {
                Kind::Win => wins += 1,
                Kind::Save => saves += 1,
            }
        }
        assert!(wins >= 50 && saves >= 50, "{wins} wins, {saves} saves");
    }

    #[test]
    fn classify_finds_a_mate_in_two_and_a_single_parry() {
        let p = Mixtour::from_fen(
            &MixtourVariant::STANDARD,
            "x,2,2,x,1221/x5/221,x2,1,2/11,x4/2,x3,11 1 0,0 0,0 1 2c5e5",
        )
        .unwrap();
        let (kind, plies, solutions) = classify(&p, 5, 4).unwrap();
        assert_eq!((kind, plies), (Kind::Win, 3));
        for s in &solutions {
            let mut c = p;
            c.play(find_legal(&p, s).unwrap());
            assert!(stackfish_search::proof::loses_within(&c, 2), "{s}");
        }
        // From a game against the negamax engine: player 2 threatens a
        // tower and only d5 (a piece between the stacks) holds.
        let fen = "21,1222,x2,121/x2,12,x,21/x2,2,x2/x5/1,x,2,x,2 1 13,10 0,0 1 2d5b5";
        let p = Mixtour::from_fen(&MixtourVariant::STANDARD, fen).unwrap();
        assert_eq!(
            classify(&p, 5, 4),
            Some((Kind::Save, 2, vec!["d5".to_string()]))
        );
        let mut moves = Vec::new();
        p.generate_moves(&mut moves);
        for mv in moves {
            let m = mv.to_string();
            let mut c = p;
            c.play(mv);
            let lost = c
                .outcome()
                .result()
                .is_some_and(|r| r.winner() == Some(Side::P2))
                || wins_within(&c, 1);
            assert_eq!(!lost, m == "d5", "{m}");
        }
    }
}
