//! Results per engine pair (W/D/L, pentanomial pairs, Elo with a 95%
//! interval), the results table and the JSON summary. A small stand-in for
//! the statistics module: the formulas are those of `arena-notes.md`.

use serde::Serialize;
use std::collections::BTreeMap;

use super::record::GameRecord;
use crate::game::GameResult;

/// Two-sided 95% normal quantile.
const Z95: f64 = 1.959_963_984_540_054;

/// Results of engine `a` (the earlier in the config: the candidate) against `b`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct PairStats {
    pub engine: String,
    pub opponent: String,
    pub games: u32,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    /// Points of `engine` per game, 0..1.
    pub score: f64,
    /// `None` while the score is 0 or 1 (Elo is infinite there).
    pub elo: Option<f64>,
    /// Half-width of the 95% interval, when it is finite.
    pub elo_error: Option<f64>,
    /// Pairs of games on one opening by points of `engine`: [0, 1/2, 1, 3/2, 2].
    pub pentanomial: [u32; 5],
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

/// Tallies every engine pair `(i, j)`, `i < j`, from `i`'s side.
pub fn pair_stats(engines: &[String], records: &[GameRecord]) -> Vec<PairStats> {
    let mut out = Vec::new();
    for i in 0..engines.len() {
        for j in i + 1..engines.len() {
            out.push(stats_for(&engines[i], &engines[j], records));
        }
    }
    out
}

fn points_for(name: &str, r: &GameRecord) -> Option<f64> {
    let res = r.game_result()?;
    let p1 = match res {
        GameResult::P1Win => 1.0,
        GameResult::P2Win => 0.0,
        GameResult::Draw => 0.5,
    };
    if r.player1 == name {
        Some(p1)
    } else if r.player2 == name {
        Some(1.0 - p1)
    } else {
        None
    }
}

pub fn stats_for(a: &str, b: &str, records: &[GameRecord]) -> PairStats {
    let mut s = PairStats {
        engine: a.to_string(),
        opponent: b.to_string(),
        ..Default::default()
    };
    let mut by_round: BTreeMap<u32, Vec<f64>> = BTreeMap::new();
    for r in records {
        let players = (r.player1.as_str(), r.player2.as_str());
        if players != (a, b) && players != (b, a) {
            continue;
        }
        let Some(p) = points_for(a, r) else { continue };
        s.games += 1;
        match p {
            x if x > 0.75 => s.wins += 1,
            x if x < 0.25 => s.losses += 1,
            _ => s.draws += 1,
        }
        by_round.entry(r.round).or_default().push(p);
    }
    let mut complete_pairs = 0;
    for pts in by_round.values() {
        if pts.len() == 2 {
            let idx = ((pts[0] + pts[1]) * 2.0).round() as usize;
            s.pentanomial[idx.min(4)] += 1;
            complete_pairs += 2;
        }
    }
    if s.games > 0 {
        s.score = (s.wins as f64 + 0.5 * s.draws as f64) / s.games as f64;
        let (mu, var, n) = if complete_pairs == s.games && s.games > 0 {
            // Pentanomial: per-pair scores 0, 1/4, ..., 1; variance per pair.
            let n: u32 = s.pentanomial.iter().sum();
            moments(&s.pentanomial, &[0.0, 0.25, 0.5, 0.75, 1.0], n)
        } else {
            moments(&[s.losses, s.draws, s.wins], &[0.0, 0.5, 1.0], s.games)
        };
        s.elo = elo(mu);
        if s.elo.is_some() {
            let dev = Z95 * (var / n as f64).sqrt();
            if let (Some(lo), Some(hi)) = (elo(mu - dev), elo(mu + dev)) {
                s.elo_error = Some((hi - lo) / 2.0);
            }
        }
    }
    s
}

fn moments(counts: &[u32], scores: &[f64], n: u32) -> (f64, f64, u32) {
    let nf = n.max(1) as f64;
    let mu: f64 = counts
        .iter()
        .zip(scores)
        .map(|(&c, &a)| c as f64 / nf * a)
        .sum();
    let var: f64 = counts
        .iter()
        .zip(scores)
        .map(|(&c, &a)| c as f64 / nf * (a - mu).powi(2))
        .sum();
    (mu, var, n.max(1))
}

/// Elo difference of a score 0..1; `None` at 0 and 1.
pub fn elo(score: f64) -> Option<f64> {
    if score <= 0.0 || score >= 1.0 || !score.is_finite() {
        return None;
    }
    Some(-400.0 * (1.0 / score - 1.0).log10())
}

pub fn fmt_elo(s: &PairStats) -> String {
    match (s.elo, s.elo_error) {
        (Some(e), Some(err)) => format!("{e:+.1} +/- {err:.1}"),
        (Some(e), None) => format!("{e:+.1} +/- inf"),
        (None, _) if s.games == 0 => "-".into(),
        (None, _) if s.score >= 1.0 => "+inf".into(),
        (None, _) => "-inf".into(),
    }
}

/// The results table: one block per engine pair, fastchess-like.
pub fn results_table(pairs: &[PairStats]) -> String {
    let mut out = String::new();
    for s in pairs {
        out.push_str(&format!(
            "Results of {} vs {} ({} games):\n",
            s.engine, s.opponent, s.games
        ));
        out.push_str(&format!("Elo: {}\n", fmt_elo(s)));
        out.push_str(&format!(
            "Games: {}, Wins: {}, Losses: {}, Draws: {}, Points: {:.1} ({:.2} %)\n",
            s.games,
            s.wins,
            s.losses,
            s.draws,
            s.wins as f64 + s.draws as f64 / 2.0,
            s.score * 100.0
        ));
        let p = s.pentanomial;
        out.push_str(&format!(
            "Ptnml(0-2): [{}, {}, {}, {}, {}]\n",
            p[0], p[1], p[2], p[3], p[4]
        ));
    }
    out
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

    fn rec(round: u32, p1: &str, p2: &str, result: &str) -> GameRecord {
        GameRecord {
            game: 0,
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
            rec(1, "A", "B", "1-0"),
            rec(1, "B", "A", "1-0"),
            rec(2, "A", "B", "1/2-1/2"),
            rec(2, "B", "A", "0-1"),
            rec(3, "A", "B", "1-0"),
        ];
        let s = stats_for("A", "B", &r);
        assert_eq!((s.games, s.wins, s.draws, s.losses), (5, 3, 1, 1));
        assert_eq!(s.pentanomial, [0, 0, 1, 1, 0]);
        assert!((s.score - 0.7).abs() < 1e-12);
        assert!((s.elo.unwrap() - 147.19).abs() < 0.01);
        // The upper end of the interval passes a score of 1: no finite width.
        assert_eq!(fmt_elo(&s), "+147.2 +/- inf");
        let mut many = Vec::new();
        for round in 0..50 {
            many.push(rec(round, "A", "B", "1-0"));
            many.push(rec(
                round,
                "B",
                "A",
                if round % 2 == 0 { "1-0" } else { "1/2-1/2" },
            ));
        }
        let s = stats_for("A", "B", &many);
        assert_eq!(s.pentanomial, [0, 0, 25, 25, 0]);
        let err = s.elo_error.unwrap();
        assert!(err > 10.0 && err < 60.0, "{err}");
    }

    #[test]
    fn elo_values() {
        assert_eq!(elo(0.5), Some(0.0));
        assert!((elo(0.75).unwrap() - 190.85).abs() < 0.01);
        assert_eq!(elo(1.0), None);
        let all_wins = stats_for(
            "A",
            "B",
            &[rec(1, "A", "B", "1-0"), rec(1, "B", "A", "0-1")],
        );
        assert_eq!(fmt_elo(&all_wins), "+inf");
        assert_eq!(all_wins.pentanomial, [0, 0, 0, 0, 1]);
    }
}
