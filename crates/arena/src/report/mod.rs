//! Result tables as plain text and a self-contained HTML/SVG report; pure string building.
//!
//! The text layout follows the blocks fastchess and Ordo print, because people and scripts
//! already read those: one row per engine or pair, Elo with "±" half-width, LOS and pentanomial.

use super::ratings::{CrossTable, Ratings};
use super::stats::{
    signed, EloEstimate, EloReading, MatchCounts, RunVerdict, SprtConfig, SprtStatus,
};
use serde::{Deserialize, Serialize};
use stackfish_record::GameRecord;
use std::fmt::Write;

mod chart;
mod html;

pub use html::{render_html, CHART_POINTS, MOVES_KEPT};

/// Everything printed about one pairing, from the first engine's side.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairReport {
    pub first: String,
    pub second: String,
    pub counts: MatchCounts,
    /// `None` before the first game.
    pub estimate: Option<EloEstimate>,
    /// `None` when the match runs without SPRT.
    pub sprt: Option<SprtStatus>,
    /// The run's final SPRT verdict once it has one (the end of a run or a merge): the table's
    /// SPRT column then says `inconclusive` where the LLR alone would say `running`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<RunVerdict>,
}

impl PairReport {
    pub fn new(
        first: impl Into<String>,
        second: impl Into<String>,
        counts: MatchCounts,
        sprt: Option<&SprtConfig>,
    ) -> Self {
        PairReport {
            first: first.into(),
            second: second.into(),
            counts,
            estimate: counts.estimate(),
            sprt: sprt.map(|s| counts.sprt_status(s)),
            verdict: None,
        }
    }

    /// The same report with the run's final verdict (see `verdict`).
    pub fn with_verdict(self, verdict: Option<RunVerdict>) -> Self {
        PairReport { verdict, ..self }
    }
}

/// One sample of a match's progress for the charts.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProgressPoint {
    pub games: u64,
    pub elo: f64,
    pub lower: f64,
    pub upper: f64,
    pub llr: Option<f64>,
}

impl ProgressPoint {
    /// The current point of a match; `None` before the first game.
    pub fn from_counts(counts: &MatchCounts, sprt: Option<&SprtConfig>) -> Option<Self> {
        let e = counts.estimate()?;
        Some(ProgressPoint {
            games: counts.trinomial.games(),
            elo: e.elo,
            lower: e.lower,
            upper: e.upper,
            llr: sprt.map(|s| counts.llr(s)),
        })
    }
}

/// The Elo of one pair over its games, for the report's chart: one line (and band) per pair.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Series {
    /// `first vs second`, shown in the legend.
    pub label: String,
    /// In order of games; points with a non-finite Elo or bound are skipped, a non-finite LLR
    /// is treated as absent.
    pub points: Vec<ProgressPoint>,
}

/// One engine as the match ran it, for the report's settings.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EngineInfo {
    pub name: String,
    /// The command with its arguments, as the arena starts it.
    pub command: String,
    /// `setoption` values in the order sent.
    pub options: Vec<(String, String)>,
    /// Its limits per move: `10+0.1`, `st=0.1`, `depth=6`, ... (`Limits::describe`).
    pub limits: String,
}

/// What the report says of the match beyond its numbers; what a caller does not know (a
/// merge knows only the records) stays empty and the report says so.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MatchInfo {
    /// `mixtour`, `silo`, ...
    pub game: String,
    /// `roundrobin` or `gauntlet` (three or more engines).
    pub tournament: Option<String>,
    pub engines: Vec<EngineInfo>,
    /// The opening suite file; none: every game from the start position.
    pub openings: Option<String>,
}

/// Inputs of the HTML report; every part is optional except the title.
#[derive(Clone, Copy, Debug, Default)]
pub struct HtmlReport<'a> {
    pub title: &'a str,
    /// One series per pair, the candidate's pair first: its LLR is the one charted.
    pub series: &'a [Series],
    /// Draws the LLR bounds and names the hypotheses.
    pub sprt: Option<SprtConfig>,
    pub pairs: &'a [PairReport],
    pub ratings: Option<&'a Ratings>,
    pub cross: Option<&'a CrossTable>,
    pub info: Option<&'a MatchInfo>,
    /// Every game, listed with a link to its moves.
    pub games: &'a [GameRecord],
}

/// A table as strings, rendered either as aligned text or as HTML.
struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
    /// Per column: text columns are left-aligned, numbers right-aligned.
    left: Vec<bool>,
}

impl Table {
    fn new(columns: &[(&str, bool)]) -> Self {
        Table {
            header: columns.iter().map(|(h, _)| h.to_string()).collect(),
            rows: Vec::new(),
            left: columns.iter().map(|&(_, l)| l).collect(),
        }
    }

    fn text(&self) -> String {
        let widths: Vec<usize> = (0..self.header.len())
            .map(|c| {
                std::iter::once(&self.header)
                    .chain(&self.rows)
                    .map(|row| row.get(c).map_or(0, |s| s.chars().count()))
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let mut out = String::new();
        for row in std::iter::once(&self.header).chain(&self.rows) {
            let cells: Vec<String> = row
                .iter()
                .zip(&widths)
                .zip(&self.left)
                .map(|((cell, &w), &left)| {
                    if left {
                        format!("{cell:<w$}")
                    } else {
                        format!("{cell:>w$}")
                    }
                })
                .collect();
            out.push_str(cells.join("  ").trim_end());
            out.push('\n');
        }
        out
    }

    fn html(&self) -> String {
        let mut out = String::from("<table>\n<tr>");
        for h in &self.header {
            let _ = write!(out, "<th>{}</th>", escape(h));
        }
        out.push_str("</tr>\n");
        for row in &self.rows {
            out.push_str("<tr>");
            for (cell, &left) in row.iter().zip(&self.left) {
                let class = if left { "" } else { " class=\"num\"" };
                let _ = write!(out, "<td{class}>{}</td>", escape(cell));
            }
            out.push_str("</tr>\n");
        }
        out.push_str("</table>\n");
        out
    }
}

fn percent(x: Option<f64>) -> String {
    x.map_or_else(|| "-".to_string(), |v| format!("{:.1}%", 100.0 * v))
}

fn rating_table(ratings: &Ratings) -> Table {
    let mut table = Table::new(&[
        ("Rank", false),
        ("Name", true),
        ("Elo", false),
        ("±", false),
        ("Games", false),
        ("Score", false),
        ("Draw", false),
    ]);
    for (rank, &i) in ratings.ranking().iter().enumerate() {
        let row = &ratings.rows[i];
        table.rows.push(vec![
            (rank + 1).to_string(),
            row.name.clone(),
            signed(row.rating, 1),
            row.error
                .map_or_else(|| "-".to_string(), |e| format!("{e:.1}")),
            row.record.games().to_string(),
            percent(row.record.score()),
            percent(row.record.draw_ratio()),
        ]);
    }
    table
}

fn cross_table(cross: &CrossTable) -> Table {
    let n = cross.names.len();
    let numbers: Vec<String> = (1..=n).map(|i| i.to_string()).collect();
    let mut columns: Vec<(&str, bool)> = vec![("#", false), ("Name", true)];
    columns.extend(numbers.iter().map(|s| (s.as_str(), true)));
    columns.push(("Total", false));
    let mut table = Table::new(&columns);
    for (i, name) in cross.names.iter().enumerate() {
        let mut row = vec![(i + 1).to_string(), name.clone()];
        let mut total = super::stats::Trinomial::default();
        for (j, cell) in cross.cells[i].iter().enumerate() {
            row.push(if i == j {
                String::new()
            } else if cell.games() == 0 {
                "-".to_string()
            } else {
                format!("{cell} {}/{}", cell.points(), cell.games())
            });
            total = super::stats::Trinomial::new(
                total.wins + cell.wins,
                total.draws + cell.draws,
                total.losses + cell.losses,
            );
        }
        row.push(format!("{}/{}", total.points(), total.games()));
        table.rows.push(row);
    }
    table
}

fn pair_table(pairs: &[PairReport]) -> Table {
    let with_sprt = pairs.iter().any(|p| p.sprt.is_some());
    // Every game counts in the columns up to Draw; the Elo and what follows
    // it count the complete game pairs ("Elo from" says how many).
    let mut columns = vec![
        ("Engine", true),
        ("Opponent", true),
        ("Games", false),
        ("W-D-L", false),
        ("Score", false),
        ("Draw", false),
        ("Elo from", false),
        ("Elo", false),
        ("±", false),
        ("nElo", false),
        ("LOS", false),
        ("Pentanomial", false),
    ];
    if with_sprt {
        columns.extend([("LLR", false), ("Bounds", false), ("SPRT", true)]);
    }
    let mut table = Table::new(&columns);
    for p in pairs {
        let tri = p.counts.trinomial;
        let e = p.estimate;
        let mut row = vec![
            p.first.clone(),
            p.second.clone(),
            tri.games().to_string(),
            tri.to_string(),
            percent(tri.score()),
            percent(tri.draw_ratio()),
            e.map_or_else(|| "-".to_string(), |e| samples_words(&e)),
            e.map_or_else(|| "-".to_string(), |e| elo_cell(&e)),
            e.map_or_else(
                || "-".to_string(),
                |e| match e.reading() {
                    EloReading::Interval { error, .. } => format!("{error:.1}"),
                    EloReading::Unbounded { .. } => "∞".to_string(),
                    _ => "-".to_string(),
                },
            ),
            e.and_then(|e| e.nelo)
                .map_or_else(|| "-".to_string(), |n| signed(n, 1)),
            e.map_or_else(|| "-".to_string(), |e| percent(Some(e.los))),
            p.counts.pentanomial.to_string(),
        ];
        if with_sprt {
            match p.sprt {
                Some(s) => {
                    let d = s.decimals();
                    row.extend([
                        format!("{:.d$}", s.llr),
                        format!("({:.d$}, {:.d$})", s.lower, s.upper),
                        match p.verdict {
                            Some(v) => v.word().to_string(),
                            None => s.verdict.word().to_string(),
                        },
                    ])
                }
                None => row.extend(["-", "-", "-"].map(String::from)),
            }
        }
        table.rows.push(row);
    }
    table
}

/// What an estimate counts: `20 pairs` (complete game pairs, once there is
/// one) or `3 games` (before the first pair is complete).
pub fn samples_words(e: &EloEstimate) -> String {
    let what = if e.paired { "pair" } else { "game" };
    let n = e.samples;
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// The Elo column: the estimate, or at a 0% or 100% score (or an interval
/// reaching past it) the bound the games support (`> +316.6`): a perfect
/// score has no finite Elo.
fn elo_cell(e: &EloEstimate) -> String {
    match e.reading() {
        EloReading::Interval { elo, .. } | EloReading::Unbounded { elo } => signed(elo, 1),
        bound => bound.to_string(),
    }
}

/// One plain sentence per pair that played, for the last lines of a run:
/// its games in words and what the 95% interval says about who is
/// stronger, e.g. `stackfish won 40 of 40 games against stackfish-level3;
/// at 95% confidence it is at least 317 Elo stronger.`
pub fn pair_sentences(pairs: &[PairReport]) -> Vec<String> {
    pairs.iter().filter_map(pair_sentence).collect()
}

fn pair_sentence(p: &PairReport) -> Option<String> {
    let t = p.counts.trinomial;
    let e = p.estimate?;
    let games = t.games();
    let parts: Vec<String> = [(t.wins, "won"), (t.draws, "drew"), (t.losses, "lost")]
        .into_iter()
        .filter(|&(n, _)| n > 0)
        .map(|(n, verb)| format!("{verb} {n}"))
        .collect();
    let did = match parts.as_slice() {
        [] => return None,
        [one] => one.clone(),
        [first @ .., last] => format!("{} and {last}", first.join(", ")),
    };
    let plural = if games == 1 { "" } else { "s" };
    // The ends of the interval the games bound.
    let (lower, upper) = match e.reading() {
        EloReading::Interval { .. } => (Some(e.lower), Some(e.upper)),
        EloReading::AtLeast(l) => (Some(l), None),
        EloReading::AtMost(u) => (None, Some(u)),
        EloReading::Unbounded { .. } => (None, None),
    };
    let unclear = "it is not yet clear who is stronger";
    let verdict = match (lower, upper) {
        (Some(l), _) if l > 0.0 => {
            format!(
                "at 95% confidence it is at least {} Elo stronger",
                elo_words(l)
            )
        }
        (_, Some(u)) if u < 0.0 => {
            format!(
                "at 95% confidence it is at least {} Elo weaker",
                elo_words(u)
            )
        }
        (Some(l), Some(u)) => format!(
            "{unclear} (at 95% confidence its Elo is between {} and {})",
            signed(l, 0),
            signed(u, 0)
        ),
        (Some(l), None) => format!(
            "{unclear} (at 95% confidence its Elo is at least {})",
            signed(l, 0)
        ),
        (None, Some(u)) => format!(
            "{unclear} (at 95% confidence its Elo is at most {})",
            signed(u, 0)
        ),
        (None, None) => format!("{unclear} (too few games for a 95% bound)"),
    };
    // The bound counts complete pairs: say so when they are not every game.
    let basis = if e.paired && e.samples.saturating_mul(2) != games {
        format!(
            "; the Elo counts the {} of its {games} games that form complete pairs",
            2 * e.samples
        )
    } else {
        String::new()
    };
    Some(format!(
        "{} {did} of {games} game{plural} against {}; {verdict}{basis}.",
        p.first, p.second
    ))
}

/// `317` or `4.2`: the size of an Elo difference in words, without sign.
fn elo_words(elo: f64) -> String {
    let size = elo.abs();
    if size >= 9.95 {
        format!("{size:.0}")
    } else {
        format!("{size:.1}")
    }
}

/// Rating list, best first: rank, name, Elo, 95% half-width ("-" when none exists), games,
/// score and draw ratio.
pub fn format_rating_table(ratings: &Ratings) -> String {
    rating_table(ratings).text()
}

/// Cross table in name-list order; column k is player k. Each cell is the row player's
/// `W-D-L points/games` against the column player, "-" for pairs that never played.
pub fn format_cross_table(cross: &CrossTable) -> String {
    cross_table(cross).text()
}

/// One row per pairing: games, W-D-L, score, Elo ± half-width, nElo, LOS, draw ratio,
/// pentanomial and, when any pair runs an SPRT, LLR with its bounds and verdict. Undefined
/// values (no games yet, nElo of identical results) print as "-".
pub fn format_pair_table(pairs: &[PairReport]) -> String {
    pair_table(pairs).text()
}

/// Escapes text for HTML element content and attribute values.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::chart::*;
    use super::html::*;
    use super::*;
    use crate::ratings::{compute_ratings, Anchor, GameRecord};
    use crate::stats::{GameResult, Pentanomial, Trinomial};

    fn record(game: u32, p1: &str, p2: &str, moves: &[&str]) -> stackfish_record::GameRecord {
        stackfish_record::GameRecord {
            game,
            round: Some(game.div_ceil(2)),
            opening: None,
            event: "test".into(),
            date: None,
            variant: String::new(),
            player1: p1.into(),
            player2: p2.into(),
            fen: None,
            moves: moves
                .iter()
                .map(|m| stackfish_record::MoveRecord {
                    mv: m.to_string(),
                    book: false,
                    cp: None,
                    mate: None,
                    depth: None,
                    ms: None,
                })
                .collect(),
            result: "1-0".into(),
            termination: "normal".into(),
            time_control: None,
            duration_ms: None,
            nodes: None,
            seed: None,
        }
    }

    /// `n` games of 60 plies each, as a long SPRT writes them: scores, depths and times on
    /// every move; every 1000th game is lost on time.
    fn synthetic_games(n: u32) -> Vec<stackfish_record::GameRecord> {
        (1..=n)
            .map(|game| {
                let mut g = record(game, "stackfish-new", "stackfish-base", &[]);
                g.moves = (0..60)
                    .map(|ply| stackfish_record::MoveRecord {
                        mv: format!(
                            "{}{}-{}",
                            (b'a' + ply % 5) as char,
                            ply % 5 + 1,
                            ply % 3 + 1
                        ),
                        book: ply < 4,
                        cp: Some(i32::from(ply) * 7 - 150),
                        mate: None,
                        depth: Some(u32::from(ply % 9) + 6),
                        ms: Some(u64::from(ply) * 13 + 40),
                    })
                    .collect();
                if game % 1000 == 0 {
                    g.termination = "stackfish-base: timeout".into();
                }
                g
            })
            .collect()
    }

    /// The Elo series of `n` games, one point per pair, as the arena charts them.
    fn synthetic_series(n: u64) -> Series {
        Series {
            label: "new vs base".into(),
            points: (1..=n / 2)
                .map(|pair| ProgressPoint {
                    games: 2 * pair,
                    elo: 5.0 + 100.0 / pair as f64,
                    lower: -20.0,
                    upper: 30.0 + 1000.0 / pair as f64,
                    llr: Some(pair as f64 / 10_000.0),
                })
                .collect(),
        }
    }

    #[test]
    fn report_size_of_a_long_sprt() {
        let games = synthetic_games(40_000);
        let series = [synthetic_series(40_000)];
        let html = render_html(&HtmlReport {
            title: "long sprt",
            series: &series,
            sprt: Some(SprtConfig::new(0.0, 2.0, 0.05, 0.05).unwrap()),
            games: &games,
            ..HtmlReport::default()
        });
        println!("report of 40000 games: {} bytes", html.len());
        // 1,000 games' moves are about 3.3 MB, the list of 40,000 about 5.5 MB (measured:
        // 132 MB with every game's moves).
        assert!(html.len() < 12_000_000, "{} bytes", html.len());
        // Every game number in order in the list, linked where its moves are kept.
        let listed: Vec<u32> = html
            .lines()
            .filter_map(|l| l.strip_prefix("<tr><td class=\"num\">"))
            .map(|l| match l.strip_prefix("<a href=\"#game-") {
                Some(link) => link.split_once("\">").map_or(link, |(_, n)| n),
                None => l,
            })
            .filter_map(|l| l.split('<').next()?.parse().ok())
            .collect();
        assert_eq!(listed, (1..=40_000).collect::<Vec<u32>>());
        let summaries = html.matches("<details id=\"game-").count();
        assert_eq!(summaries, MOVES_KEPT);
        // Every faulted game (each 1000th), the first and the last keep their moves.
        for game in [1, 2, 1000, 17_000, 25_000, 40_000, 39_999] {
            assert!(
                html.contains(&format!("<summary>Game {game}: ")),
                "moves of game {game}"
            );
        }
        assert!(!html.contains("<summary>Game 20001: "));
        assert!(html.contains("The moves of 39000 of the 40000 games are left out"));
        assert!(html.contains("JSONL and PGN files"));
    }

    #[test]
    fn a_small_match_keeps_every_game_and_every_chart_point() {
        let games = synthetic_games(40);
        let series = [synthetic_series(40)];
        let html = render_html(&HtmlReport {
            title: "short",
            series: &series,
            games: &games,
            ..HtmlReport::default()
        });
        for game in 1..=40 {
            assert!(html.contains(&format!("<summary>Game {game}: ")), "{game}");
        }
        assert_eq!(html.matches("<details id=\"game-").count(), 40);
        assert!(!html.contains("left out"));
        // 60 plies with a comment each, for every game.
        assert_eq!(html.matches("<span class=\"note\">{").count(), 40 * 60);
    }

    #[test]
    fn downsampling_keeps_the_ends_and_the_bound() {
        let points: Vec<u32> = (0..10_001).collect();
        let kept = downsample(&points, CHART_POINTS);
        assert_eq!(kept.len(), CHART_POINTS);
        assert_eq!((kept[0], kept[CHART_POINTS - 1]), (0, 10_000));
        assert!(kept.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(downsample(&points[..5], CHART_POINTS), points[..5]);
    }

    #[test]
    fn faults_are_kept_up_to_half_the_budget() {
        let mut games = synthetic_games(5000);
        for g in &mut games {
            g.termination = "stackfish-base: crashed".into();
        }
        let sorted: Vec<&stackfish_record::GameRecord> = games.iter().collect();
        let kept = kept_moves(&sorted);
        assert_eq!(kept.iter().filter(|&&k| k).count(), MOVES_KEPT);
        // Half on the first faults, then the rest split between the two ends.
        assert!(kept[..MOVES_KEPT / 2 + MOVES_KEPT / 4].iter().all(|&k| k));
        assert!(kept[5000 - MOVES_KEPT / 4..].iter().all(|&k| k));
        assert!(!kept[MOVES_KEPT * 3 / 4]);
        assert!(!faulted(&record(1, "a", "b", &[])));
        let mut adjudicated = record(1, "a", "b", &[]);
        adjudicated.termination = "adjudication: max plies (6)".into();
        assert!(!faulted(&adjudicated));
    }

    fn counts(tri: Trinomial, penta: [u64; 5]) -> MatchCounts {
        MatchCounts {
            trinomial: tri,
            pentanomial: Pentanomial::new(penta),
        }
    }

    #[test]
    fn pair_table_shows_the_hand_computed_numbers() {
        // Pairs [0, 1, 1, 2, 0] = games 4-3-1: Elo 43.66 with interval (-100.44, 205.66), so
        // "±" is 153.05; nElo 74.07; LOS 72.7% (see the stats tests for the derivation).
        let sprt = SprtConfig::new(0.0, 2.0, 0.05, 0.05).unwrap();
        let pair = PairReport::new(
            "new",
            "base",
            counts(Trinomial::new(4, 3, 1), [0, 1, 1, 2, 0]),
            Some(&sprt),
        );
        let text = format_pair_table(&[pair]);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2);
        for expected in [
            "new",
            "base",
            "4-3-1",
            "68.8%",
            "+43.7",
            "153.0",
            "+74.1",
            "72.7%",
            "37.5%",
            "[0, 1, 1, 2, 0]",
            "(-2.94, 2.94)",
            "running",
        ] {
            assert!(
                lines[1].contains(expected),
                "{expected} missing in {}",
                lines[1]
            );
        }
        assert!(lines[0].starts_with("Engine") && lines[0].contains("LLR"));
    }

    #[test]
    fn perfect_scores_print_a_bound_and_the_final_verdict() {
        // 20 pairs all won: no finite Elo, only the 95% lower bound -400 log10(1/0.05^(1/20)
        // - 1) = +316.6 (one-sided: the other end is infinite), and no "±" (issue 23: it
        // printed "+2400.0  0.0").
        let sprt = SprtConfig::new(0.0, 5.0, 0.05, 0.05).unwrap();
        let pair = PairReport::new(
            "a",
            "b",
            counts(Trinomial::new(40, 0, 0), [0, 0, 0, 0, 20]),
            Some(&sprt),
        );
        let row = format_pair_table(std::slice::from_ref(&pair));
        let row = row.lines().nth(1).unwrap();
        assert!(row.contains("20 pairs  > +316.6"), "{row}");
        assert!(!row.contains("2400") && !row.contains(" 0.0 "), "{row}");
        assert!(row.contains("running"), "{row}");
        let done = pair.with_verdict(Some(RunVerdict::Inconclusive));
        let row = format_pair_table(&[done]);
        assert!(
            row.lines().nth(1).unwrap().ends_with("inconclusive"),
            "{row}"
        );
        // A split pair: Elo 0 with a real interval, never "-0.0 ± 0.0".
        let split = PairReport::new(
            "a",
            "b",
            counts(Trinomial::new(1, 0, 1), [0, 0, 1, 0, 0]),
            None,
        );
        let row = format_pair_table(&[split]);
        let row = row.lines().nth(1).unwrap();
        assert!(row.contains("+0.0") && !row.contains("-0.0"), "{row}");
        assert!(!row.contains(" 0.0 "), "{row}");
    }

    #[test]
    fn the_table_says_what_its_elo_counts_and_never_prints_the_clamp() {
        // Win, win, loss: Score counts the 3 games (66.7%), LOS and Elo the one complete
        // pair (WW: 100%, at least -400 log10(1/0.05^(1/1) - 1) = -511.5). The row says
        // "1 pair" beside them (issue 43).
        let mut c = MatchCounts::default();
        c.add_pair(GameResult::Win, GameResult::Win);
        c.add_single(GameResult::Loss);
        let row = format_pair_table(&[PairReport::new("a", "b", c, None)]);
        let header = row.lines().next().unwrap();
        let cells: Vec<&str> = row
            .lines()
            .nth(1)
            .unwrap()
            .split("  ")
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .collect();
        assert!(header.contains("Score  Draw  Elo from"), "{row}");
        assert_eq!(
            cells[4..8],
            ["66.7%", "0.0%", "1 pair", "> -511.5"],
            "{row}"
        );
        assert!(cells.contains(&"100.0%"), "{row}");
        // A pair won and a pair lost: no bound on either side, "± ∞", not "± 2400.0".
        let row = format_pair_table(&[PairReport::new(
            "a",
            "b",
            counts(Trinomial::new(2, 0, 2), [1, 0, 0, 0, 1]),
            None,
        )]);
        assert!(row.contains("2 pairs  +0.0  ∞"), "{row}");
        assert!(!row.contains("2400"), "{row}");
        // Before the first pair is complete the Elo counts games.
        let mut one = MatchCounts::default();
        one.add_single(GameResult::Draw);
        let row = format_pair_table(&[PairReport::new("a", "b", one, None)]);
        assert!(row.contains(" 1 game "), "{row}");
    }

    #[test]
    fn each_pair_gets_a_plain_sentence() {
        let sentence = |t: Trinomial, p: [u64; 5]| {
            pair_sentences(&[PairReport::new("new", "old", counts(t, p), None)]).join("\n")
        };
        // The demo: 20 pairs all won, at least +316.6 (see above).
        assert_eq!(
            sentence(Trinomial::new(40, 0, 0), [0, 0, 0, 0, 20]),
            "new won 40 of 40 games against old; at 95% confidence it is at least 317 Elo stronger."
        );
        // 10 straight wins, 5 pairs: +34.4, no longer "> -15.2".
        assert_eq!(
            sentence(Trinomial::new(10, 0, 0), [0, 0, 0, 0, 5]),
            "new won 10 of 10 games against old; at 95% confidence it is at least 34 Elo stronger."
        );
        assert_eq!(
            sentence(Trinomial::new(0, 0, 40), [20, 0, 0, 0, 0]),
            "new lost 40 of 40 games against old; at 95% confidence it is at least 317 Elo weaker."
        );
        // Pairs [0, 1, 1, 2, 0]: Elo 43.7 in (-100.4, 205.7) (the hand-computed table test).
        assert_eq!(
            sentence(Trinomial::new(4, 3, 1), [0, 1, 1, 2, 0]),
            "new won 4, drew 3 and lost 1 of 8 games against old; it is not yet clear who is \
             stronger (at 95% confidence its Elo is between -100 and +206)."
        );
        assert_eq!(
            sentence(Trinomial::new(2, 0, 2), [1, 0, 0, 0, 1]),
            "new won 2 and lost 2 of 4 games against old; it is not yet clear who is stronger \
             (too few games for a 95% bound)."
        );
        // A lone game beside the pairs: the sentence says what the Elo counts. One draw:
        // 0.5 -+ 0.975 / 2, Elo -+759.05 (docs/arena.md).
        let mut c = MatchCounts::default();
        c.add_pair(GameResult::Win, GameResult::Win);
        c.add_single(GameResult::Loss);
        let text = pair_sentences(&[PairReport::new("new", "old", c, None)]).join("\n");
        assert_eq!(
            text,
            "new won 2 and lost 1 of 3 games against old; it is not yet clear who is stronger \
             (at 95% confidence its Elo is at least -512); the Elo counts the 2 of its 3 games \
             that form complete pairs."
        );
        assert_eq!(
            sentence(Trinomial::new(0, 1, 0), [0, 0, 0, 0, 0]),
            "new drew 1 of 1 game against old; it is not yet clear who is stronger (at 95% \
             confidence its Elo is between -759 and +759)."
        );
        // No games, no sentence.
        assert!(
            pair_sentences(&[PairReport::new("a", "b", MatchCounts::default(), None)]).is_empty()
        );
    }

    #[test]
    fn pair_table_without_games_or_sprt() {
        let text = format_pair_table(&[PairReport::new("a", "b", MatchCounts::default(), None)]);
        assert!(!text.contains("LLR"));
        assert!(!text.contains("NaN") && !text.contains("inf"));
        assert_eq!(format_pair_table(&[]).lines().count(), 1);
    }

    #[test]
    fn rating_and_cross_tables() {
        let names: Vec<String> = ["alpha", "beta"].map(String::from).to_vec();
        let games: Vec<GameRecord> = [GameResult::Win, GameResult::Win, GameResult::Loss]
            .into_iter()
            .chain([GameResult::Win])
            .map(|result| GameRecord {
                first: 0,
                second: 1,
                result,
            })
            .collect();
        let ratings = compute_ratings(&names, &games, Anchor::Average(0.0)).unwrap();
        let text = format_rating_table(&ratings);
        // 3-1: ±95.4 around the mean, 95% half-width 196.6 (derived in the ratings tests).
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[1].contains("alpha") && lines[1].contains("95.4"));
        assert!(lines[1].contains("196.6") && lines[1].contains("75.0%"));
        assert!(lines[2].contains("beta") && lines[2].contains("-95.4"));

        let cross = CrossTable::new(&names, &games).unwrap();
        let text = format_cross_table(&cross);
        assert!(text.contains("3-0-1 3/4"), "{text}");
        assert!(text.contains("1-0-3 1/4"), "{text}");
    }

    #[test]
    fn html_is_self_contained_and_escaped() {
        let sprt = SprtConfig::new(0.0, 2.0, 0.05, 0.05).unwrap();
        let mut m = MatchCounts::default();
        let mut progress = Vec::new();
        for (a, b) in [
            (GameResult::Win, GameResult::Draw),
            (GameResult::Loss, GameResult::Win),
            (GameResult::Draw, GameResult::Draw),
        ] {
            m.add_pair(a, b);
            progress.extend(ProgressPoint::from_counts(&m, Some(&sprt)));
        }
        progress.push(ProgressPoint {
            games: 7,
            elo: f64::NAN,
            lower: 0.0,
            upper: 0.0,
            llr: None,
        });
        let pairs = [PairReport::new("<b>new</b>", "base & co", m, Some(&sprt))];
        let series = [Series {
            label: "<b>new</b> vs base & co".into(),
            points: progress,
        }];
        let hostile = "<img src=x onerror=alert(1)>\"'&";
        let info = MatchInfo {
            game: hostile.into(),
            tournament: Some(hostile.into()),
            engines: vec![EngineInfo {
                name: hostile.into(),
                command: format!("./engine {hostile}"),
                options: vec![(hostile.into(), hostile.into())],
                limits: hostile.into(),
            }],
            openings: Some(hostile.into()),
        };
        let mut game = record(1, hostile, hostile, &["a1b2", "c3d4"]);
        game.termination = hostile.into();
        game.result = hostile.into();
        game.fen = Some(hostile.into());
        game.time_control = Some(hostile.into());
        game.date = Some(hostile.into());
        game.moves[0].mv = hostile.into();
        let html = render_html(&HtmlReport {
            title: "new vs base",
            series: &series,
            sprt: Some(sprt),
            pairs: &pairs,
            info: Some(&info),
            games: std::slice::from_ref(&game),
            ..HtmlReport::default()
        });
        assert!(html.starts_with("<!DOCTYPE html>") && html.ends_with("</html>\n"));
        assert_eq!(html.matches("<svg").count(), 2, "Elo and LLR charts");
        assert!(html.contains("<polygon"), "the interval band");
        assert!(html.contains("&lt;b&gt;new&lt;/b&gt;") && html.contains("base &amp; co"));
        assert!(!html.contains("<b>new"));
        // Every engine- or config-given string is escaped wherever it lands.
        assert!(!html.contains("<img") && !html.contains("\"'&"), "{html}");
        assert!(html.contains("&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;"));
        for banned in ["<script", "src=\"", "url(", "NaN", "inf"] {
            assert!(!html.contains(banned), "{banned}");
        }
        // The only links are to the report's own game list.
        assert_eq!(
            html.matches("href=").count(),
            html.matches("href=\"#game-").count()
        );
        // The only URLs are the SVG namespace names, which are never fetched.
        assert_eq!(html.matches("http").count(), html.matches("<svg").count());
        // Both SPRT bounds drawn as reference lines.
        assert_eq!(html.matches("stroke-dasharray").count(), 3);
    }

    #[test]
    fn chart_axes_follow_the_later_games_and_ticks_never_repeat() {
        // Issue 23: the first pair's ±2400 band set the axis, so a final -35 ± 123 was flat.
        let mut line = vec![(2.0, 0.0)];
        let mut band = vec![(2.0, -2400.0, 2400.0)];
        for g in 2..=40 {
            let x = 2.0 * g as f64;
            line.push((x, -35.0));
            band.push((x, -158.0, 88.0));
        }
        let line = Line {
            label: "a vs b",
            colour: "#000",
            points: line,
            band: Some(band),
        };
        let svg = chart("Elo", &[line], &[(0.0, "#888")]);
        assert!(!svg.contains(">2400<") && !svg.contains(">-2400<"), "{svg}");
        assert!(svg.contains(">-100<") || svg.contains(">-150<"), "{svg}");
        for (lo, hi, whole) in [(1.0, 4.0, true), (-158.0, 88.0, false), (0.0, 0.3, false)] {
            let ticks = nice_ticks(lo, hi, whole);
            assert!(ticks.len() >= 2, "{ticks:?}");
            assert!(ticks.windows(2).all(|w| w[0] < w[1]), "{ticks:?}");
            let labels: Vec<String> = ticks.iter().map(|&t| tick_text(t, hi - lo)).collect();
            let mut unique = labels.clone();
            unique.dedup();
            assert_eq!(labels, unique, "labels repeat");
        }
        assert_eq!(nice_ticks(1.0, 4.0, true), vec![1.0, 2.0, 3.0, 4.0]);
    }

    #[test]
    fn html_states_the_match_settings() {
        // Issue 23: the report said nothing of the match it describes.
        let sprt = SprtConfig::new(0.0, 2.0, 0.05, 0.05).unwrap();
        let pair = PairReport::new(
            "new",
            "base",
            counts(Trinomial::new(4, 3, 1), [0, 1, 1, 2, 0]),
            Some(&sprt),
        )
        .with_verdict(Some(RunVerdict::Inconclusive));
        let info = MatchInfo {
            game: "silo".into(),
            tournament: None,
            engines: vec![
                EngineInfo {
                    name: "new".into(),
                    command: "./stackfish --quiet".into(),
                    options: vec![("Hash".into(), "64".into()), ("Level".into(), "3".into())],
                    limits: "st=0.1".into(),
                },
                EngineInfo {
                    name: "base".into(),
                    command: "/opt/base".into(),
                    options: vec![],
                    limits: "depth=6".into(),
                },
            ],
            openings: Some("openings-silo.txt".into()),
        };
        let mut games: Vec<_> = (1..=8)
            .map(|g| {
                let mut r = record(g, "new", "base", &["a1", "b2", "c3"]);
                r.opening = Some((g as usize - 1) / 2);
                r.date = Some(if g < 5 { "2026.12.01" } else { "2026.12.02" }.into());
                r.time_control = Some("st=0.1".into());
                r
            })
            .collect();
        games[3].termination = "adjudication: table".into();
        games[3].moves[0].book = true;
        games[3].moves[1].cp = Some(35);
        games[3].moves[1].depth = Some(8);
        games[3].moves[1].ms = Some(102);
        let html = render_html(&HtmlReport {
            title: "t",
            sprt: Some(sprt),
            pairs: std::slice::from_ref(&pair),
            info: Some(&info),
            games: &games,
            ..HtmlReport::default()
        });
        let row = |key: &str| {
            let start = html
                .find(&format!("<th class=\"key\">{key}</th>"))
                .unwrap_or_else(|| panic!("no {key} row in {html}"));
            html[start..].lines().next().unwrap().to_string()
        };
        assert!(row("Date").contains("2026.12.01 to 2026.12.02"));
        assert!(row("Game").contains("silo"));
        assert!(row("Time control").contains("st=0.1"));
        assert!(row("Openings").contains("openings-silo.txt; 4 distinct played"));
        assert!(row("Games").contains("<td>8</td>"));
        let sprt_row = row("SPRT");
        for part in [
            "nElo [0, 2]",
            "alpha 0.05",
            "(-2.944, 2.944)",
            "inconclusive",
        ] {
            assert!(sprt_row.contains(part), "{part} in {sprt_row}");
        }
        // 4-3-1 in pairs [0, 1, 1, 2, 0]: +43.7 ± 153.0 (the pair table's numbers).
        assert!(row("Elo").contains("new vs base: +43.7 ± 153.0 (95%)"));
        for cell in [
            "./stackfish --quiet",
            "Hash=64 Level=3",
            "<td>st=0.1</td>",
            "/opt/base",
            "<td>depth=6</td>",
        ] {
            assert!(html.contains(cell), "{cell}");
        }
        // The game list: number, players, opening, result, reason; each linked to its moves.
        assert!(html.contains(
            "<a href=\"#game-3\">4</a></td><td>new</td><td>base</td><td>#1</td>\
             <td>1-0</td><td>adjudication: table</td><td class=\"num\">3</td>"
        ));
        let moves = html.split("<details id=\"game-3\">").nth(1).unwrap();
        let moves = &moves[..moves.find("</details>").unwrap()];
        assert!(moves.contains("Game 4: new vs base, 1-0 (adjudication: table)"));
        assert!(moves.contains("1. a1 <span class=\"note\">{book}</span> b2"));
        assert!(moves.contains("{+0.35/8 0.102s}") && moves.contains("2. c3"));
        // A merge knows no engines and says so rather than printing an empty table.
        let merged = render_html(&HtmlReport {
            title: "t",
            games: &games,
            ..HtmlReport::default()
        });
        assert!(merged.contains("Engines: not recorded"));
        assert!(merged.contains("not recorded; 4 distinct played"));
    }

    #[test]
    fn html_without_data() {
        let html = render_html(&HtmlReport {
            title: "empty",
            ..HtmlReport::default()
        });
        assert!(html.contains("No games yet."));
        assert!(!html.contains("<svg"));
        // A single point still scales without dividing by zero.
        let one = [ProgressPoint {
            games: 2,
            elo: 0.0,
            lower: 0.0,
            upper: 0.0,
            llr: Some(0.0),
        }];
        let series = [Series {
            label: "a vs b".into(),
            points: one.to_vec(),
        }];
        let html = render_html(&HtmlReport {
            title: "one",
            series: &series,
            ..HtmlReport::default()
        });
        assert_eq!(html.matches("<svg").count(), 2);
        assert!(!html.contains("NaN") && !html.contains("inf"));
    }
}
