//! The HTML report: the match's settings, the charts, the tables and the
//! game list, as one self-contained page.

use std::collections::BTreeSet;
use std::fmt::Write;

use super::chart::{chart, Line};
use super::{
    cross_table, escape, pair_table, rating_table, HtmlReport, MatchInfo, ProgressPoint, Series,
    Table,
};
use crate::referee::fault_of;
use crate::stats::{signed, EloReading, SprtConfig};
use stackfish_record::GameRecord;

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
    let series = chart_series(report.series);
    elo_chart(&mut out, &series);
    llr_chart(&mut out, &series, report.sprt);

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

/// The series to chart: points with a non-finite value left out (an LLR
/// that is not finite is dropped alone), at most `CHART_POINTS` each, and
/// series with no point left out.
fn chart_series(series: &[Series]) -> Vec<Series> {
    series
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
        .collect()
}

/// The Elo chart, with a legend when it has several pairs.
fn elo_chart(out: &mut String, series: &[Series]) {
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
            legend(out, &lines);
        }
        out.push_str("<p class=\"note\">Shaded: the 95% interval of each pair's Elo.</p>\n");
    }
}

/// The LLR chart of the first series, with the SPRT's bounds, when its
/// points carry an LLR.
fn llr_chart(out: &mut String, series: &[Series], sprt: Option<SprtConfig>) {
    let llr: Vec<(f64, f64)> = series
        .first()
        .into_iter()
        .flat_map(|s| &s.points)
        .filter_map(|p| p.llr.map(|l| (p.games as f64, l)))
        .collect();
    if !llr.is_empty() {
        out.push_str("<h2>LLR over games</h2>\n");
        let bounds: Vec<(f64, &str)> = sprt
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
}

/// The match section: date, game, engines with their commands, options and limits, time
/// control, openings, game count, the SPRT and its verdict, and the candidate's Elo.
pub(super) fn settings(out: &mut String, report: &HtmlReport<'_>) {
    let info = report.info.cloned().unwrap_or_default();
    let mut rows = match_rows(report, &info);
    rows.extend(result_rows(report));
    out.push_str("<h2>Match</h2>\n<table>\n");
    for (key, value) in rows {
        let _ = writeln!(
            out,
            "<tr><th class=\"key\">{key}</th><td>{}</td></tr>",
            escape(&value)
        );
    }
    out.push_str("</table>\n");
    engines_table(out, &info);
}

/// The match's rows: date, game, tournament, time control, openings and
/// the game count.
fn match_rows(report: &HtmlReport<'_>, info: &MatchInfo) -> Vec<(&'static str, String)> {
    let games = report.games;
    let mut rows: Vec<(&'static str, String)> = Vec::new();
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
    rows
}

/// The rows of the result: the SPRT with its verdict, the candidate's Elo.
fn result_rows(report: &HtmlReport<'_>) -> Vec<(&'static str, String)> {
    let mut rows = Vec::new();
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
    rows
}

/// The engines as started, with their commands, options and limits.
fn engines_table(out: &mut String, info: &MatchInfo) {
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
pub(super) fn legend(out: &mut String, lines: &[Line<'_>]) {
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
pub(super) fn downsample<T: Copy>(points: &[T], max: usize) -> Vec<T> {
    if points.len() <= max || max < 2 {
        return points.to_vec();
    }
    let last = points.len() - 1;
    (0..max).map(|k| points[k * last / (max - 1)]).collect()
}

/// A game that ended on an engine's fault (`NAME: crashed`, `NAME: illegal move ...`, as the
/// referee words them) or was voided: the games whose moves a reader of a report looks for.
pub(super) fn faulted(g: &GameRecord) -> bool {
    let t = g.termination.as_str();
    t.starts_with("voided") || fault_of(t, [&g.player1, &g.player2]).is_some()
}

/// Which games of `sorted` keep their moves: all up to `MOVES_KEPT`; beyond, the games that
/// ended on a fault (up to half the budget), then the first and the last games.
pub(super) fn kept_moves(sorted: &[&GameRecord]) -> Vec<bool> {
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
pub(super) fn game_list(out: &mut String, games: &[GameRecord]) {
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
pub(super) fn opening_text(g: &GameRecord) -> String {
    match (g.opening, g.fen.as_deref()) {
        (Some(i), Some(fen)) => format!("#{i} {fen}"),
        (Some(i), None) => format!("#{i}"),
        (None, Some(fen)) => fen.to_string(),
        (None, None) => "start".to_string(),
    }
}
