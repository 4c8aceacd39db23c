//! Result tables as plain text and a self-contained HTML/SVG report; pure string building.
//!
//! The text layout follows the blocks fastchess and Ordo print, because people and scripts
//! already read those: one row per engine or pair, Elo with "±" half-width, LOS and pentanomial.

use super::ratings::{CrossTable, Ratings};
use super::referee::fault_of;
use super::stats::{
    signed, EloEstimate, EloReading, MatchCounts, RunVerdict, SprtConfig, SprtStatus,
};
use serde::{Deserialize, Serialize};
use stackfish_record::GameRecord;
use std::collections::BTreeSet;
use std::fmt::Write;

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

/// Games whose moves the report prints at most: 1,000 games of 60 plies are about 3.3 MB;
/// the moves of every game of a 40,000-game SPRT would be 130 MB, too much for a browser tab.
pub const MOVES_KEPT: usize = 1000;
/// Points per chart series at most: more than the chart is wide in pixels adds bytes, not detail.
pub const CHART_POINTS: usize = 1000;

/// Line colours of the Elo chart's series, in pair order (repeating after the last).
const SERIES_COLOURS: [&str; 8] = [
    "#036", "#c60", "#393", "#c33", "#639", "#099", "#963", "#c39",
];

/// The HTML document: inline CSS and SVG, no scripts and no external assets, so it can be
/// archived or mailed as one file; its only links are to its own game list. Charts are omitted
/// (with a note) when there is nothing to draw; the LLR chart appears when some point of the
/// first series carries an LLR.
pub fn render_html(report: &HtmlReport<'_>) -> String {
    let mut out = String::new();
    let title = escape(report.title);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{title}</title>\n\
         <style>\nbody {{ font-family: sans-serif; margin: 2em; color: #222; }}\n\
         table {{ border-collapse: collapse; margin: 1em 0; }}\n\
         th, td {{ border: 1px solid #ccc; padding: 0.2em 0.6em; }}\n\
         th.key {{ text-align: left; }}\n\
         td.num {{ text-align: right; font-variant-numeric: tabular-nums; }}\n\
         code, .moves {{ font-family: monospace; }}\n\
         .moves {{ max-width: 60em; line-height: 1.5; }}\n\
         .note {{ color: #777; font-size: 0.85em; }}\n\
         svg {{ display: block; margin: 1em 0; }}\n</style>\n</head>\n<body>\n<h1>{title}</h1>\n"
    );
    settings(&mut out, report);

    let series: Vec<Series> = report
        .series
        .iter()
        .map(|s| Series {
            label: s.label.clone(),
            points: s
                .points
                .iter()
                .filter(|p| p.elo.is_finite() && p.lower.is_finite() && p.upper.is_finite())
                .map(|p| ProgressPoint {
                    llr: p.llr.filter(|l| l.is_finite()),
                    ..*p
                })
                .collect(),
        })
        .map(|s| Series {
            points: downsample(&s.points, CHART_POINTS),
            ..s
        })
        .filter(|s| !s.points.is_empty())
        .collect();
    out.push_str("<h2>Elo over games</h2>\n");
    if series.is_empty() {
        out.push_str("<p>No games yet.</p>\n");
    } else {
        let lines: Vec<Line> = series
            .iter()
            .zip(SERIES_COLOURS.iter().cycle())
            .map(|(s, &colour)| Line {
                label: &s.label,
                colour,
                points: s.points.iter().map(|p| (p.games as f64, p.elo)).collect(),
                band: Some(
                    s.points
                        .iter()
                        .map(|p| (p.games as f64, p.lower, p.upper))
                        .collect(),
                ),
            })
            .collect();
        out.push_str(&chart("Elo", &lines, &[(0.0, "#888")]));
        if lines.len() > 1 {
            legend(&mut out, &lines);
        }
        out.push_str("<p class=\"note\">Shaded: the 95% interval of each pair's Elo.</p>\n");
    }
    let llr: Vec<(f64, f64)> = series
        .first()
        .into_iter()
        .flat_map(|s| &s.points)
        .filter_map(|p| p.llr.map(|l| (p.games as f64, l)))
        .collect();
    if !llr.is_empty() {
        out.push_str("<h2>LLR over games</h2>\n");
        let bounds: Vec<(f64, &str)> = report
            .sprt
            .map(|s| vec![(s.lower_bound(), "#c33"), (s.upper_bound(), "#393")])
            .unwrap_or_default();
        let line = Line {
            label: series.first().map_or("", |s| s.label.as_str()),
            colour: SERIES_COLOURS[0],
            points: llr,
            band: None,
        };
        out.push_str(&chart("LLR", &[line], &bounds));
    }

    if !report.pairs.is_empty() {
        out.push_str("<h2>Results</h2>\n");
        out.push_str(&pair_table(report.pairs).html());
    }
    if let Some(r) = report.ratings {
        out.push_str("<h2>Ratings</h2>\n");
        out.push_str(&rating_table(r).html());
    }
    if let Some(c) = report.cross {
        out.push_str("<h2>Cross table</h2>\n");
        out.push_str(&cross_table(c).html());
    }
    game_list(&mut out, report.games);
    out.push_str("</body>\n</html>\n");
    out
}

/// The match section: date, game, engines with their commands, options and limits, time
/// control, openings, game count, the SPRT and its verdict, and the candidate's Elo.
fn settings(out: &mut String, report: &HtmlReport<'_>) {
    let info = report.info.cloned().unwrap_or_default();
    let games = report.games;
    let mut rows: Vec<(&str, String)> = Vec::new();
    let dates: BTreeSet<&str> = games.iter().filter_map(|g| g.date.as_deref()).collect();
    rows.push((
        "Date",
        match (dates.first(), dates.last()) {
            (Some(a), Some(b)) if a == b => a.to_string(),
            (Some(a), Some(b)) => format!("{a} to {b}"),
            _ => "-".to_string(),
        },
    ));
    let variants: BTreeSet<&str> = games.iter().map(|g| g.variant.as_str()).collect();
    let game = if !info.game.is_empty() {
        info.game.clone()
    } else {
        variants
            .iter()
            .map(|v| if v.is_empty() { "mixtour" } else { v })
            .collect::<Vec<_>>()
            .join(", ")
    };
    rows.push(("Game", if game.is_empty() { "-".into() } else { game }));
    if let Some(t) = &info.tournament {
        rows.push(("Tournament", t.clone()));
    }
    let controls: BTreeSet<&str> = games
        .iter()
        .filter_map(|g| g.time_control.as_deref())
        .filter(|t| !t.is_empty())
        .collect();
    rows.push((
        "Time control",
        if controls.is_empty() {
            "-".to_string()
        } else {
            controls.into_iter().collect::<Vec<_>>().join(", ")
        },
    ));
    let openings: BTreeSet<(Option<usize>, Option<&str>)> = games
        .iter()
        .map(|g| (g.opening, g.fen.as_deref()))
        .collect();
    let file = info
        .openings
        .as_deref()
        .unwrap_or(if report.info.is_some() {
            "none (the start position)"
        } else {
            "not recorded"
        });
    rows.push((
        "Openings",
        format!("{file}; {} distinct played", openings.len()),
    ));
    rows.push(("Games", games.len().to_string()));
    if let Some(s) = report.sprt {
        let verdict = report
            .pairs
            .iter()
            .find_map(|p| {
                p.sprt.map(|st| {
                    p.verdict
                        .map_or(st.verdict.word(), |v| v.word())
                        .to_string()
                })
            })
            .unwrap_or_else(|| "-".to_string());
        rows.push(("SPRT", format!("{}: {verdict}", s.describe())));
    }
    if let Some(p) = report.pairs.first() {
        let elo = p.estimate.map_or_else(
            || "-".to_string(),
            |e| match e.reading() {
                EloReading::Interval { elo, error } => {
                    format!("{} ± {error:.1} (95%)", signed(elo, 1))
                }
                bound => bound.to_string(),
            },
        );
        rows.push(("Elo", format!("{} vs {}: {elo}", p.first, p.second)));
    }
    out.push_str("<h2>Match</h2>\n<table>\n");
    for (key, value) in rows {
        let _ = writeln!(
            out,
            "<tr><th class=\"key\">{key}</th><td>{}</td></tr>",
            escape(&value)
        );
    }
    out.push_str("</table>\n");
    if info.engines.is_empty() {
        out.push_str(
            "<p class=\"note\">Engines: not recorded (a merge knows only the games).</p>\n",
        );
        return;
    }
    let mut table = Table::new(&[
        ("Engine", true),
        ("Command", true),
        ("Options", true),
        ("Limits", true),
    ]);
    for e in &info.engines {
        let options: Vec<String> = e.options.iter().map(|(k, v)| format!("{k}={v}")).collect();
        table.rows.push(vec![
            e.name.clone(),
            e.command.clone(),
            if options.is_empty() {
                "-".to_string()
            } else {
                options.join(" ")
            },
            e.limits.clone(),
        ]);
    }
    out.push_str("<h2>Engines</h2>\n");
    out.push_str(&table.html());
}

/// The Elo chart's legend: one colour swatch and label per pair.
fn legend(out: &mut String, lines: &[Line<'_>]) {
    out.push_str("<p>");
    for l in lines {
        let _ = write!(
            out,
            "<span style=\"color: {}\">&#9632;</span> {} &nbsp; ",
            l.colour,
            escape(l.label)
        );
    }
    out.push_str("</p>\n");
}

/// At most `max` of `points`, evenly spread over them; the first and the last are kept exact.
fn downsample<T: Copy>(points: &[T], max: usize) -> Vec<T> {
    if points.len() <= max || max < 2 {
        return points.to_vec();
    }
    let last = points.len() - 1;
    (0..max).map(|k| points[k * last / (max - 1)]).collect()
}

/// A game that ended on an engine's fault (`NAME: crashed`, `NAME: illegal move ...`, as the
/// referee words them) or was voided: the games whose moves a reader of a report looks for.
fn faulted(g: &GameRecord) -> bool {
    let t = g.termination.as_str();
    t.starts_with("voided") || fault_of(t, [&g.player1, &g.player2]).is_some()
}

/// Which games of `sorted` keep their moves: all up to `MOVES_KEPT`; beyond, the games that
/// ended on a fault (up to half the budget), then the first and the last games.
fn kept_moves(sorted: &[&GameRecord]) -> Vec<bool> {
    let n = sorted.len();
    if n <= MOVES_KEPT {
        return vec![true; n];
    }
    let mut kept = vec![false; n];
    let mut left = MOVES_KEPT;
    for (k, g) in sorted.iter().enumerate() {
        if left > MOVES_KEPT / 2 && faulted(g) {
            kept[k] = true;
            left -= 1;
        }
    }
    let (mut front, mut back) = (0, n);
    while left > 0 {
        while kept[front] {
            front += 1;
        }
        kept[front] = true;
        left -= 1;
        if left == 0 {
            break;
        }
        while kept[back - 1] {
            back -= 1;
        }
        kept[back - 1] = true;
        left -= 1;
    }
    kept
}

/// Every game in number order, each row linked to its moves further down (the moves of at
/// most `MOVES_KEPT` games, see `kept_moves`; the report says what it left out).
fn game_list(out: &mut String, games: &[GameRecord]) {
    if games.is_empty() {
        return;
    }
    let mut sorted: Vec<&GameRecord> = games.iter().collect();
    sorted.sort_by_key(|g| g.game);
    let kept = kept_moves(&sorted);
    out.push_str(
        "<h2>Games</h2>\n<table>\n<tr><th>#</th><th>Player 1</th><th>Player 2</th>\
         <th>Opening</th><th>Result</th><th>Reason</th><th>Plies</th></tr>\n",
    );
    for (i, g) in sorted.iter().enumerate() {
        let number = if kept[i] {
            format!("<a href=\"#game-{i}\">{}</a>", g.game)
        } else {
            g.game.to_string()
        };
        let _ = writeln!(
            out,
            "<tr><td class=\"num\">{number}</td><td>{}</td><td>{}</td>\
             <td>{}</td><td>{}</td><td>{}</td><td class=\"num\">{}</td></tr>",
            escape(&g.player1),
            escape(&g.player2),
            escape(&opening_text(g)),
            escape(&g.result),
            escape(&g.termination),
            g.moves.len()
        );
    }
    out.push_str("</table>\n");
    let omitted = kept.iter().filter(|&&k| !k).count();
    if omitted > 0 {
        let _ = writeln!(
            out,
            "<p>The moves of {omitted} of the {} games are left out to keep this file small: \
             below are the moves of {} games: those that ended on an engine's fault or were \
             voided (at most {}), then the first and the last games. Every game's moves are in \
             the match's JSONL and PGN files.</p>",
            sorted.len(),
            sorted.len() - omitted,
            MOVES_KEPT / 2
        );
    }
    for (i, g) in sorted.iter().enumerate() {
        if !kept[i] {
            continue;
        }
        let _ = write!(
            out,
            "<details id=\"game-{i}\"><summary>Game {}: {} vs {}, {} ({})</summary>\n\
             <p class=\"moves\">",
            g.game,
            escape(&g.player1),
            escape(&g.player2),
            escape(&g.result),
            escape(&g.termination)
        );
        if let Some(fen) = &g.fen {
            let _ = write!(out, "[{}] ", escape(fen));
        }
        for (ply, m) in g.moves.iter().enumerate() {
            if ply % 2 == 0 {
                let _ = write!(out, "{}. ", ply / 2 + 1);
            }
            let _ = write!(
                out,
                "{} <span class=\"note\">{{{}}}</span> ",
                escape(&m.mv),
                escape(&stackfish_record::move_comment(m))
            );
        }
        out.push_str("</p></details>\n");
    }
}

/// `#3` (the suite's index, 0-based as in the records) and the start position when recorded.
fn opening_text(g: &GameRecord) -> String {
    match (g.opening, g.fen.as_deref()) {
        (Some(i), Some(fen)) => format!("#{i} {fen}"),
        (Some(i), None) => format!("#{i}"),
        (None, Some(fen)) => fen.to_string(),
        (None, None) => "start".to_string(),
    }
}

/// Chart size in SVG user units, and the margin kept for tick labels.
const CHART_WIDTH: f64 = 720.0;
const CHART_HEIGHT: f64 = 280.0;
const CHART_MARGIN: f64 = 50.0;
/// Ticks per axis; five lines are enough to read values without clutter.
const CHART_TICKS: usize = 5;

/// One line of a chart: (x, y) points with an optional (x, low, high) band behind them.
struct Line<'a> {
    label: &'a str,
    colour: &'a str,
    points: Vec<(f64, f64)>,
    band: Option<Vec<(f64, f64, f64)>>,
}

/// A line chart of `lines` on shared axes, with horizontal reference lines (value, colour).
/// All inputs are finite and some line has a point.
fn chart(label: &str, lines: &[Line<'_>], references: &[(f64, &str)]) -> String {
    let xs = lines.iter().flat_map(|l| l.points.iter().map(|p| p.0));
    let (mut x_min, mut x_max) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
        (a.min(x), b.max(x))
    });
    // The first games' intervals are hundreds of Elo wide (±2400 after one
    // pair): scaled by them, a final -35 ± 123 is a flat line. The axis
    // covers the later three quarters of each series (everything of a short
    // one), and what lies outside is drawn at the edge.
    let mut ys: Vec<f64> = Vec::new();
    for l in lines {
        let skip = if l.points.len() >= 8 {
            l.points.len() / 4
        } else {
            0
        };
        ys.extend(l.points.iter().skip(skip).map(|p| p.1));
        if let Some(band) = &l.band {
            ys.extend(band.iter().skip(skip).flat_map(|b| [b.1, b.2]));
        }
    }
    ys.extend(references.iter().map(|r| r.0));
    let (mut y_min, mut y_max) = ys
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &y| {
            (a.min(y), b.max(y))
        });
    // A single point or a flat series still needs a non-empty range to scale.
    if x_max - x_min <= 0.0 {
        x_min -= 1.0;
        x_max += 1.0;
    }
    if y_max - y_min <= 0.0 {
        y_min -= 1.0;
        y_max += 1.0;
    }
    let pad = 0.05 * (y_max - y_min);
    let (y_min, y_max) = (y_min - pad, y_max + pad);
    let plot_w = CHART_WIDTH - 2.0 * CHART_MARGIN;
    let plot_h = CHART_HEIGHT - 2.0 * CHART_MARGIN;
    let sx = |x: f64| CHART_MARGIN + (x - x_min) / (x_max - x_min) * plot_w;
    let sy = |y: f64| CHART_MARGIN + (y_max - y.clamp(y_min, y_max)) / (y_max - y_min) * plot_h;

    let mut svg = String::new();
    let _ = writeln!(
        svg,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{CHART_WIDTH}\" height=\"{CHART_HEIGHT}\" \
         viewBox=\"0 0 {CHART_WIDTH} {CHART_HEIGHT}\" role=\"img\" aria-label=\"{} over games\">",
        escape(label)
    );
    let _ = writeln!(
        svg,
        "<rect x=\"{CHART_MARGIN}\" y=\"{CHART_MARGIN}\" width=\"{plot_w}\" height=\"{plot_h}\" \
         fill=\"none\" stroke=\"#999\"/>"
    );
    for y in nice_ticks(y_min, y_max, false) {
        let _ = writeln!(
            svg,
            "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\" text-anchor=\"end\">{}</text>",
            CHART_MARGIN - 4.0,
            sy(y) + 4.0,
            tick_text(y, y_max - y_min)
        );
        let _ = writeln!(
            svg,
            "<line x1=\"{CHART_MARGIN}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"#eee\"/>",
            CHART_MARGIN + plot_w,
            y = sy(y)
        );
    }
    for x in nice_ticks(x_min, x_max, true) {
        let _ = writeln!(
            svg,
            "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\" text-anchor=\"middle\">{x:.0}</text>",
            sx(x),
            CHART_HEIGHT - CHART_MARGIN + 16.0
        );
    }
    let _ = writeln!(
        svg,
        "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"12\" text-anchor=\"middle\">games</text>",
        CHART_MARGIN + plot_w / 2.0,
        CHART_HEIGHT - 8.0
    );
    let _ = writeln!(
        svg,
        "<text x=\"12\" y=\"{:.1}\" font-size=\"12\" transform=\"rotate(-90 12 {:.1})\" \
         text-anchor=\"middle\">{}</text>",
        CHART_HEIGHT / 2.0,
        CHART_HEIGHT / 2.0,
        escape(label)
    );
    for l in lines {
        let Some(band) = &l.band else { continue };
        let upper = band.iter().map(|b| (b.0, b.2));
        let lower = band.iter().rev().map(|b| (b.0, b.1));
        let outline: Vec<String> = upper
            .chain(lower)
            .map(|(x, y)| format!("{:.1},{:.1}", sx(x), sy(y)))
            .collect();
        let opacity = if lines.len() > 1 { 0.15 } else { 0.3 };
        let _ = writeln!(
            svg,
            "<polygon points=\"{}\" fill=\"{}\" fill-opacity=\"{opacity}\" stroke=\"none\">\
             <title>{} 95%</title></polygon>",
            outline.join(" "),
            l.colour,
            escape(l.label)
        );
    }
    for &(value, colour) in references {
        let _ = writeln!(
            svg,
            "<line x1=\"{:.1}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"{colour}\" \
             stroke-dasharray=\"6 4\"/>",
            CHART_MARGIN,
            CHART_MARGIN + plot_w,
            y = sy(value)
        );
    }
    for l in lines {
        let path: Vec<String> = l
            .points
            .iter()
            .map(|&(x, y)| format!("{:.1},{:.1}", sx(x), sy(y)))
            .collect();
        let _ = writeln!(
            svg,
            "<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\">\
             <title>{}</title></polyline>",
            path.join(" "),
            l.colour,
            escape(l.label)
        );
    }
    svg.push_str("</svg>\n");
    svg
}

/// Tick values at a "nice" step (1, 2 or 5 times a power of ten) giving at
/// most about `CHART_TICKS` ticks inside [lo, hi]; whole numbers only for
/// `whole` (game counts), so no label repeats (`1 2 2 3 3 4`).
fn nice_ticks(lo: f64, hi: f64, whole: bool) -> Vec<f64> {
    let raw = (hi - lo) / CHART_TICKS as f64;
    if !(raw.is_finite() && raw > 0.0) {
        return vec![lo];
    }
    let power = 10f64.powf(raw.log10().floor());
    let mut step = [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * power)
        .find(|&s| s >= raw)
        .unwrap_or(10.0 * power);
    if whole {
        step = step.max(1.0).round();
    }
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last).map(|k| k as f64 * step).collect()
}

/// A tick label with as many decimals as the axis' range needs.
fn tick_text(value: f64, range: f64) -> String {
    let decimals = if range >= 50.0 {
        0
    } else if range >= 5.0 {
        1
    } else {
        2
    };
    signed(value, decimals).trim_start_matches('+').to_string()
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
