//! Results of a match from its records: per engine pair the counts (fed to
//! `stats::MatchCounts`, colour-swapped pairs by round), and the `--json`
//! summary.

use serde::Serialize;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use super::ratings::{self, compute_ratings, Anchor, CrossTable, Ratings};
use super::report::{
    format_cross_table, format_pair_table, format_rating_table, render_html, HtmlReport, MatchInfo,
    PairReport, ProgressPoint, Series,
};
use super::stats::{
    signed, EloReading, GameResult as Score, MatchCounts, RunVerdict, SprtConfig, SprtStatus,
    SprtVerdict,
};
use super::ArenaError;
use stackfish_games::GameResult;
use stackfish_record::GameRecord;

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
    /// `None` without games. A 0% or 100% score has no finite Elo: `elo`,
    /// `elo_error` and the infinite end of the interval are then `None`,
    /// the other end is the bound the games support. An end of the interval
    /// past a 0% or 100% score is no bound either: `None`, with
    /// `elo_error` (and, when the other end is finite, `elo`).
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
    /// The SPRT of the first engine against the second, with `--sprt`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sprt: Option<SprtSummary>,
    /// Maximum-likelihood ratings (average 0), with three or more engines.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ratings: Option<Ratings>,
    /// `K/N` when this run played one shard of the schedule.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
    /// `arena merge`: records found more than once and counted once.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duplicates: Option<u32>,
    /// The SPRT's decision for the exit code (also in `sprt.verdict`).
    #[serde(skip)]
    pub verdict: Option<RunVerdict>,
}

/// The `sprt` block of the summary.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SprtSummary {
    pub engine: String,
    pub opponent: String,
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
    /// LLR over every recorded game of the pair, and its bounds.
    pub llr: f64,
    pub lower: f64,
    pub upper: f64,
    /// `H1`, `H0`, `inconclusive`, or `running` (interrupted before a verdict).
    pub verdict: String,
    /// Games of the pair recorded when a bound was first crossed (`null` if never).
    pub stopped_at: Option<u64>,
    /// Games of the pair counted in the LLR above.
    pub games: u64,
    /// Complete game pairs (the LLR is pentanomial as soon as there is one).
    pub pairs: u64,
}

impl SprtSummary {
    pub fn new(
        engine: &str,
        opponent: &str,
        sprt: &SprtConfig,
        counts: &MatchCounts,
        verdict: Option<RunVerdict>,
        stopped_at: Option<u64>,
    ) -> Self {
        let status = counts.sprt_status(sprt);
        SprtSummary {
            engine: engine.to_string(),
            opponent: opponent.to_string(),
            elo0: sprt.elo0(),
            elo1: sprt.elo1(),
            alpha: sprt.alpha(),
            beta: sprt.beta(),
            llr: status.llr,
            lower: status.lower,
            upper: status.upper,
            verdict: match verdict {
                Some(RunVerdict::H1Accepted) => "H1",
                Some(RunVerdict::H0Accepted) => "H0",
                Some(RunVerdict::Inconclusive) => "inconclusive",
                Some(RunVerdict::Failed) => "failed",
                None => "running",
            }
            .to_string(),
            stopped_at,
            games: counts.trinomial.games(),
            pairs: counts.pentanomial.pairs(),
        }
    }
}

/// The final verdict of an SPRT from the first crossing (sticky: games that
/// were in flight at the crossing are recorded but do not undo it) or the
/// LLR now; with the budget spent and no crossing, inconclusive.
pub fn final_verdict(
    first_crossing: Option<SprtVerdict>,
    now: SprtVerdict,
    budget_exhausted: bool,
) -> Option<RunVerdict> {
    RunVerdict::from_sprt(first_crossing.unwrap_or(now), budget_exhausted)
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
/// W/D/L and pentanomial counts of `a` against `b`. A game pair is the
/// two games of one round on the same opening with colours swapped (each
/// game pairs with the earliest unpaired one of the other colour); anything else (a lone game, or records of separate runs
/// that share round numbers) counts as single games or forms its own pairs,
/// so merging independent runs never mixes their pairs.
pub fn counts_for(a: &str, b: &str, records: &[GameRecord]) -> MatchCounts {
    // (round, opening) -> (game number, `a` had player 1's side, a's score)
    type Games = Vec<(u32, bool, Score)>;
    let mut by_opening: BTreeMap<(Option<u32>, Option<usize>), Games> = BTreeMap::new();
    for r in records {
        let players = (r.player1.as_str(), r.player2.as_str());
        if players != (a, b) && players != (b, a) {
            continue;
        }
        if let Some(s) = score_for(a, r) {
            let a_first = r.player1 == a;
            by_opening
                .entry((r.round, r.opening))
                .or_default()
                .push((r.game, a_first, s));
        }
    }
    let mut counts = MatchCounts::default();
    for mut games in by_opening.into_values() {
        games.sort_by_key(|g| g.0);
        // Each game pairs with the earliest unpaired game of the other colour.
        let mut waiting: [std::collections::VecDeque<Score>; 2] = Default::default();
        for (_, a_first, score) in games {
            match waiting[usize::from(!a_first)].pop_front() {
                Some(first) => counts.add_pair(first, score),
                None => waiting[usize::from(a_first)].push_back(score),
            }
        }
        waiting.iter().flatten().for_each(|&s| counts.add_single(s));
    }
    counts
}

pub fn stats_for(a: &str, b: &str, records: &[GameRecord]) -> PairStats {
    let c = counts_for(a, b, records);
    let t = c.trinomial;
    let e = c.estimate();
    // A 0% or 100% score has no finite Elo: only the bound on the other side is written.
    let reading = e.map(|e| e.reading());
    let interval = matches!(reading, Some(EloReading::Interval { .. }));
    let some_elo = matches!(
        reading,
        Some(EloReading::Interval { .. } | EloReading::Unbounded { .. })
    );
    PairStats {
        engine: a.to_string(),
        opponent: b.to_string(),
        games: t.games(),
        wins: t.wins,
        draws: t.draws,
        losses: t.losses,
        score: t.score().unwrap_or(0.0),
        elo: e.filter(|_| some_elo).map(|e| e.elo),
        elo_lower: match reading {
            Some(EloReading::AtLeast(lower)) => Some(lower),
            Some(EloReading::Interval { .. }) => e.map(|e| e.lower),
            _ => None,
        },
        elo_upper: match reading {
            Some(EloReading::AtMost(upper)) => Some(upper),
            Some(EloReading::Interval { .. }) => e.map(|e| e.upper),
            _ => None,
        },
        elo_error: e.filter(|_| interval).map(|e| e.error()),
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

/// The same pairs for the statistics module's tables; the SPRT, when there
/// is one, belongs to the first pair (candidate against base). Pairs that
/// never played (the others of a gauntlet) are left out.
pub fn pair_reports(
    engines: &[String],
    records: &[GameRecord],
    sprt: Option<&SprtConfig>,
) -> Vec<PairReport> {
    let mut out = Vec::new();
    for i in 0..engines.len() {
        for j in i + 1..engines.len() {
            let c = counts_for(&engines[i], &engines[j], records);
            let first = i == 0 && j == 1;
            if c.trinomial.games() == 0 && !first {
                continue;
            }
            out.push(PairReport::new(
                &engines[i],
                &engines[j],
                c,
                sprt.filter(|_| first),
            ));
        }
    }
    out
}

/// Ratings and cross table of a tournament (three or more engines);
/// `None` for a two-engine match, whose pair table says it all.
pub fn tournament_tables(
    engines: &[String],
    records: &[GameRecord],
) -> Result<Option<(Ratings, CrossTable)>, ArenaError> {
    if engines.len() < 3 {
        return Ok(None);
    }
    let games: Vec<ratings::GameRecord> = records
        .iter()
        .filter_map(|r| {
            let first = engines.iter().position(|n| *n == r.player1)?;
            let second = engines.iter().position(|n| *n == r.player2)?;
            Some(ratings::GameRecord {
                first,
                second,
                result: score_for(&r.player1, r)?,
            })
        })
        .collect();
    let rated = compute_ratings(engines, &games, Anchor::Average(0.0))
        .map_err(|e| ArenaError::Config(format!("ratings: {e}")))?;
    let cross = CrossTable::new(engines, &games)
        .map_err(|e| ArenaError::Config(format!("cross table: {e}")))?;
    Ok(Some((rated, cross)))
}

/// One chart series per pair of `pairs` (the SPRT's LLR on the first only,
/// as the pair table has it), from the records in the order given.
pub fn report_series(
    pairs: &[PairReport],
    records_in_order: &[GameRecord],
    sprt: Option<&SprtConfig>,
) -> Vec<Series> {
    pairs
        .iter()
        .map(|p| Series {
            label: format!("{} vs {}", p.first, p.second),
            points: pair_progress(
                &p.first,
                &p.second,
                records_in_order,
                sprt.filter(|_| p.sprt.is_some()),
            ),
        })
        .collect()
}

/// The Elo (and LLR) of `a` against `b` after each of their games.
fn pair_progress(
    a: &str,
    b: &str,
    records_in_order: &[GameRecord],
    sprt: Option<&SprtConfig>,
) -> Vec<ProgressPoint> {
    let mut out = Vec::new();
    // Incremental, so a merge of many thousands of games stays linear: the
    // pairs complete so far, plus the games still waiting for their twin
    // (counted in W/D/L only, as `counts_for` does).
    let mut paired = MatchCounts::default();
    let mut waiting: BTreeMap<Option<u32>, Score> = BTreeMap::new();
    for r in records_in_order {
        let players = (r.player1.as_str(), r.player2.as_str());
        if players != (a, b) && players != (b, a) {
            continue;
        }
        let Some(s) = score_for(a, r) else { continue };
        match waiting.remove(&r.round) {
            Some(first) => paired.add_pair(first, s),
            None => {
                waiting.insert(r.round, s);
            }
        }
        let mut now = paired;
        for s in waiting.values() {
            now.add_single(*s);
        }
        if let Some(p) = ProgressPoint::from_counts(&now, sprt) {
            out.push(p);
        }
    }
    out
}

/// The closing tables of a run or a merge: pairs (with the SPRT), then for
/// a tournament the rating and cross tables.
pub fn print_tables(
    out: &mut dyn Write,
    pairs: &[PairReport],
    tables: Option<&(Ratings, CrossTable)>,
) {
    let _ = write!(out, "{}", format_pair_table(pairs));
    if let Some((r, c)) = tables {
        let _ = write!(out, "\nRatings\n{}", format_rating_table(r));
        let _ = write!(out, "\nCross table\n{}", format_cross_table(c));
    }
}

/// One line on the SPRT for logs and CI output, in the words of the tables
/// (`H1 was accepted`, `H0 was accepted`, `inconclusive`, `running`), the
/// LLR with enough decimals to see which side of a bound it is.
pub fn sprt_line(s: &SprtSummary) -> String {
    let outcome = match s.verdict.as_str() {
        "H1" => RunVerdict::H1Accepted.word().to_string(),
        "H0" => RunVerdict::H0Accepted.word().to_string(),
        "inconclusive" => format!(
            "{}: no bound crossed in {} games",
            RunVerdict::Inconclusive.word(),
            s.games
        ),
        other => other.to_string(),
    };
    let status = SprtStatus {
        llr: s.llr,
        lower: s.lower,
        upper: s.upper,
        verdict: SprtVerdict::Continue,
    };
    let d = status.decimals().max(3);
    format!(
        "SPRT ({} vs {}, nElo [{}, {}], alpha {}, beta {}): LLR {:.d$} [{:.d$}, {:.d$}] after {} games: {outcome}",
        s.engine, s.opponent, s.elo0, s.elo1, s.alpha, s.beta, s.llr, s.lower, s.upper, s.games
    )
}

/// Writes the HTML report file: the charts of every pair from `records`
/// (in the order they finished), the settings of `info` (none: a merge,
/// which knows only the records) and the game list.
pub fn write_report(
    path: &Path,
    title: &str,
    records: &[GameRecord],
    info: Option<&MatchInfo>,
    sprt: Option<SprtConfig>,
    pairs: &[PairReport],
    tables: Option<&(Ratings, CrossTable)>,
) -> Result<(), ArenaError> {
    let series = report_series(pairs, records, sprt.as_ref());
    let html = render_html(&HtmlReport {
        title,
        series: &series,
        sprt,
        pairs,
        ratings: tables.map(|t| &t.0),
        cross: tables.map(|t| &t.1),
        info,
        games: records,
    });
    std::fs::write(path, html)
        .map_err(|e| ArenaError::Io(format!("cannot write {}: {e}", path.display())))
}

/// `+35.2 +/- 40.1`; at a 0% or 100% score, which has no finite Elo, the
/// bound the games support (`> +316.6`, `< -316.6`); `+0.0 +/- inf` when
/// the games bound neither side yet; `-` before the first game. Never
/// `-0.0`.
pub fn fmt_elo(s: &PairStats) -> String {
    match (s.elo, s.elo_error, s.elo_lower, s.elo_upper) {
        (Some(e), Some(err), _, _) => format!("{} +/- {err:.1}", signed(e, 1)),
        (_, None, Some(lower), None) => format!("> {}", signed(lower, 1)),
        (_, None, None, Some(upper)) => format!("< {}", signed(upper, 1)),
        (Some(e), None, None, None) => format!("{} +/- inf", signed(e, 1)),
        _ => "-".into(),
    }
}

/// Games that repeat an earlier game move for move (same players with the
/// same colours, same start position and moves): what deterministic engines
/// do without an opening suite. Such games add no information, yet every
/// statistic counts them as independent.
pub fn repeated_games(records: &[GameRecord]) -> usize {
    let mut seen = std::collections::HashSet::new();
    records
        .iter()
        .filter(|r| {
            let moves: Vec<&str> = r.moves.iter().map(|m| m.mv.as_str()).collect();
            !seen.insert((&r.player1, &r.player2, &r.fen, moves))
        })
        .count()
}

pub fn summarize_games(records: &[GameRecord]) -> Vec<GameSummary> {
    let mut v: Vec<GameSummary> = records
        .iter()
        .map(|r| GameSummary {
            game: r.game,
            // Every record the arena reads has its round (`parse_jsonl`).
            round: r.round.unwrap_or_default(),
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

/// Fails unless `path` (the file of `flag`) can be opened for writing: a
/// file written at the end of a run is checked before its first game. An
/// existing file is left as it is; one the check created is removed again.
/// A full disk is found only by the write itself.
pub fn check_writable(path: &Path, flag: &str) -> Result<(), ArenaError> {
    let existed = path.symlink_metadata().is_ok();
    std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .map_err(|e| ArenaError::Io(format!("cannot write {} ({flag}): {e}", path.display())))?;
    if !existed {
        let _ = std::fs::remove_file(path);
    }
    Ok(())
}

/// Writes the `--json` summary.
pub fn write_json(path: &Path, summary: &Summary) -> Result<(), ArenaError> {
    let text = serde_json::to_string_pretty(summary)
        .map_err(|e| ArenaError::Io(format!("cannot encode summary: {e}")))?;
    std::fs::write(path, text + "\n")
        .map_err(|e| ArenaError::Io(format!("cannot write {}: {e}", path.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(game: u32, round: u32, p1: &str, p2: &str, result: &str) -> GameRecord {
        GameRecord {
            game,
            round: Some(round),
            opening: Some(0),
            event: String::new(),
            date: Some(String::new()),
            variant: "mixtour".into(),
            player1: p1.into(),
            player2: p2.into(),
            fen: Some(String::new()),
            moves: vec![],
            result: result.into(),
            termination: String::new(),
            time_control: Some(String::new()),
            duration_ms: Some(0),
            nodes: None,
            seed: None,
        }
    }

    #[test]
    fn separate_runs_with_the_same_round_numbers_keep_their_own_pairs() {
        // Two runs, each one round of two games on its own opening: A wins
        // both games of run 1 (pair WW) and loses both of run 2 (pair LL).
        let mut r = vec![
            rec(1, 1, "A", "B", "1-0"),
            rec(2, 1, "B", "A", "0-1"),
            rec(1, 1, "A", "B", "0-1"),
            rec(2, 1, "B", "A", "1-0"),
        ];
        r[2].opening = Some(7);
        r[3].opening = Some(7);
        assert_eq!(stats_for("A", "B", &r).pentanomial, [1, 0, 0, 0, 1]);
        // On the same opening too: consecutive games with colours swapped pair up.
        let same: Vec<GameRecord> = r
            .iter()
            .cloned()
            .map(|mut g| {
                g.opening = Some(0);
                g
            })
            .collect();
        assert_eq!(
            stats_for("A", "B", &same).pentanomial.iter().sum::<u64>(),
            2
        );
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
    fn a_tournament_report_charts_every_pair() {
        // Issue 23: a three-engine round robin charted only its first pair (A vs B).
        let names: Vec<String> = ["A", "B", "C"].map(String::from).to_vec();
        let mut r = Vec::new();
        let mut game = 0;
        for (round, (x, y)) in [("A", "B"), ("A", "C"), ("B", "C"), ("A", "C"), ("B", "C")]
            .into_iter()
            .enumerate()
        {
            for (p1, p2) in [(x, y), (y, x)] {
                game += 1;
                r.push(rec(game, round as u32 + 1, p1, p2, "1-0"));
            }
        }
        r[0].result = "1/2-1/2".into();
        let pairs = pair_reports(&names, &r, None);
        let series = report_series(&pairs, &r, None);
        let labels: Vec<&str> = series.iter().map(|s| s.label.as_str()).collect();
        assert_eq!(labels, ["A vs B", "A vs C", "B vs C"]);
        // A point after each of the pair's games: 2, 4 and 4 of them.
        let lengths: Vec<usize> = series.iter().map(|s| s.points.len()).collect();
        assert_eq!(lengths, [2, 4, 4]);
        assert_eq!(series[2].points.last().unwrap().games, 4);

        let dir = std::env::temp_dir().join(format!("arena-report-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("report.html");
        let tables = tournament_tables(&names, &r).unwrap();
        write_report(&path, "rr", &r, None, None, &pairs, tables.as_ref()).unwrap();
        let html = std::fs::read_to_string(&path).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        let elo_chart = html.split("<svg").nth(1).unwrap();
        assert_eq!(elo_chart.matches("<polyline").count(), 3, "{html}");
        for label in labels {
            assert!(
                html.contains(&format!("&#9632;</span> {label}")),
                "legend {label}"
            );
        }
        // The game list: every game, linked to its moves.
        assert_eq!(html.matches("<details id=\"game-").count(), 10);
        assert_eq!(html.matches("href=\"#game-").count(), 10);
    }

    #[test]
    fn no_games_no_elo() {
        let s = stats_for("A", "B", &[]);
        assert_eq!(s.elo, None);
        assert_eq!(fmt_elo(&s), "-");
    }
}
