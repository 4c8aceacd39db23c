//! Results of a match from its records: per engine pair the counts (fed to
//! `stats::MatchCounts`, colour-swapped pairs by round), and the `--json`
//! summary.

use serde::Serialize;
use std::collections::BTreeMap;

use super::record::GameRecord;
use super::report::PairReport;
use super::stats::{GameResult as Score, MatchCounts};
use crate::game::GameResult;

/// Results of `engine` (the earlier in the config: the candidate) against
/// `opponent`, as written to the summary.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct PairStats {
    pub engine: String,
    pub opponent: String,
    pub games: u64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    /// Points of `engine` per game, 0..1.
    pub score: f64,
    /// Elo difference and its 95% interval (from pairs when there are any);
    /// `None` without games. Perfect scores are clamped (about ±2400).
    pub elo: Option<f64>,
    pub elo_lower: Option<f64>,
    pub elo_upper: Option<f64>,
    /// Half-width of the interval, the number printed after "+/-".
    pub elo_error: Option<f64>,
    pub nelo: Option<f64>,
    pub los: Option<f64>,
    /// Game pairs by points of `engine`: [0, 1/2, 1, 3/2, 2].
    pub pentanomial: [u64; 5],
}

/// One game in the summary, keys as the issue asks.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GameSummary {
    pub game: u32,
    pub round: u32,
    pub player1: String,
    pub player2: String,
    pub result: String,
    pub termination: String,
    pub plies: usize,
}

/// The `--json` summary file.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    pub event: String,
    pub variant: String,
    pub engines: Vec<String>,
    /// Games the schedule holds, and games recorded (fewer when interrupted).
    pub scheduled: u32,
    pub finished: u32,
    pub interrupted: bool,
    pub games: Vec<GameSummary>,
    pub pairs: Vec<PairStats>,
}

/// The result of `r` for engine `name`, if it played in it.
fn score_for(name: &str, r: &GameRecord) -> Option<Score> {
    let p1 = match r.game_result()? {
        GameResult::P1Win => Score::Win,
        GameResult::P2Win => Score::Loss,
        GameResult::Draw => Score::Draw,
    };
    if r.player1 == name {
        Some(p1)
    } else if r.player2 == name {
        Some(p1.reversed())
    } else {
        None
    }
}

/// Counts of `a` against `b`: both games of a round form a pair.
pub fn counts_for(a: &str, b: &str, records: &[GameRecord]) -> MatchCounts {
    let mut by_round: BTreeMap<u32, Vec<(u32, Score)>> = BTreeMap::new();
    for r in records {
        let players = (r.player1.as_str(), r.player2.as_str());
        if players != (a, b) && players != (b, a) {
            continue;
        }
        if let Some(s) = score_for(a, r) {
            by_round.entry(r.round).or_default().push((r.game, s));
        }
    }
    let mut counts = MatchCounts::default();
    for mut games in by_round.into_values() {
        games.sort_by_key(|g| g.0);
        match games.as_slice() {
            [(_, x), (_, y)] => counts.add_pair(*x, *y),
            _ => games.iter().for_each(|g| counts.add_single(g.1)),
        }
    }
    counts
}

pub fn stats_for(a: &str, b: &str, records: &[GameRecord]) -> PairStats {
    let c = counts_for(a, b, records);
    let t = c.trinomial;
    let e = c.estimate();
    PairStats {
        engine: a.to_string(),
        opponent: b.to_string(),
        games: t.games(),
        wins: t.wins,
        draws: t.draws,
        losses: t.losses,
        score: t.score().unwrap_or(0.0),
        elo: e.map(|e| e.elo),
        elo_lower: e.map(|e| e.lower),
        elo_upper: e.map(|e| e.upper),
        elo_error: e.map(|e| e.error()),
        nelo: e.and_then(|e| e.nelo),
        los: e.map(|e| e.los),
        pentanomial: c.pentanomial.0,
    }
}

/// Every engine pair `(i, j)`, `i < j`, from `i`'s side.
pub fn pair_stats(engines: &[String], records: &[GameRecord]) -> Vec<PairStats> {
    let mut out = Vec::new();
    for i in 0..engines.len() {
        for j in i + 1..engines.len() {
            out.push(stats_for(&engines[i], &engines[j], records));
        }
    }
    out
}

/// The same pairs for the statistics module's tables.
pub fn pair_reports(engines: &[String], records: &[GameRecord]) -> Vec<PairReport> {
    let mut out = Vec::new();
    for i in 0..engines.len() {
        for j in i + 1..engines.len() {
            let c = counts_for(&engines[i], &engines[j], records);
            out.push(PairReport::new(&engines[i], &engines[j], c, None));
        }
    }
    out
}

/// `+35.2 +/- 40.1`, `+inf`/`-inf` for a perfect score (the statistics
/// clamp it to a finite number), or `-` before the first game.
pub fn fmt_elo(s: &PairStats) -> String {
    if s.games > 0 && s.wins == s.games {
        return "+inf".into();
    }
    if s.games > 0 && s.losses == s.games {
        return "-inf".into();
    }
    match (s.elo, s.elo_error) {
        // `+ 0.0` turns a negative zero into zero: no "-0.0".
        (Some(e), Some(err)) => format!("{:+.1} +/- {err:.1}", e + 0.0),
        _ => "-".into(),
    }
}

pub fn summarize_games(records: &[GameRecord]) -> Vec<GameSummary> {
    let mut v: Vec<GameSummary> = records
        .iter()
        .map(|r| GameSummary {
            game: r.game,
            round: r.round,
            player1: r.player1.clone(),
            player2: r.player2.clone(),
            result: r.result.clone(),
            termination: r.termination.clone(),
            plies: r.moves.len(),
        })
        .collect();
    v.sort_by_key(|g| g.game);
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(game: u32, round: u32, p1: &str, p2: &str, result: &str) -> GameRecord {
        GameRecord {
            game,
            round,
            opening: 0,
            event: String::new(),
            date: String::new(),
            variant: "mixtour".into(),
            player1: p1.into(),
            player2: p2.into(),
            fen: String::new(),
            moves: vec![],
            result: result.into(),
            termination: String::new(),
            time_control: String::new(),
            duration_ms: 0,
        }
    }

    #[test]
    fn wdl_and_pentanomial_from_a_side() {
        let r = vec![
            rec(1, 1, "A", "B", "1-0"),
            rec(2, 1, "B", "A", "1-0"),
            rec(3, 2, "A", "B", "1/2-1/2"),
            rec(4, 2, "B", "A", "0-1"),
            rec(5, 3, "A", "B", "1-0"),
            rec(6, 3, "C", "A", "1-0"),
        ];
        let s = stats_for("A", "B", &r);
        assert_eq!((s.games, s.wins, s.draws, s.losses), (5, 3, 1, 1));
        assert_eq!(s.pentanomial, [0, 0, 1, 1, 0]);
        assert!((s.score - 0.7).abs() < 1e-12);
        // From pairs only: 1.5 of 2 pairs' 2 points each -> 62.5%.
        let e = s.elo.unwrap();
        assert!((e - 88.7).abs() < 0.1, "{e}");
        let back = stats_for("B", "A", &r);
        assert_eq!(back.pentanomial, [0, 1, 1, 0, 0]);
        assert_eq!(
            pair_stats(&["A".into(), "B".into(), "C".into()], &r).len(),
            3
        );
    }

    #[test]
    fn no_games_no_elo() {
        let s = stats_for("A", "B", &[]);
        assert_eq!(s.elo, None);
        assert_eq!(fmt_elo(&s), "-");
    }
}
