//! The report's SVG line charts: Elo (with its interval) and LLR over games.

use std::fmt::Write;

use super::escape;
use crate::stats::signed;

/// Chart size in SVG user units, and the margin kept for tick labels.
const CHART_WIDTH: f64 = 720.0;
const CHART_HEIGHT: f64 = 280.0;
const CHART_MARGIN: f64 = 50.0;
/// Ticks per axis; five lines are enough to read values without clutter.
const CHART_TICKS: usize = 5;

/// One line of a chart: (x, y) points with an optional (x, low, high) band behind them.
pub(super) struct Line<'a> {
    pub(super) label: &'a str,
    pub(super) colour: &'a str,
    pub(super) points: Vec<(f64, f64)>,
    pub(super) band: Option<Vec<(f64, f64, f64)>>,
}

/// A line chart of `lines` on shared axes, with horizontal reference lines (value, colour).
/// All inputs are finite and some line has a point.
pub(super) fn chart(label: &str, lines: &[Line<'_>], references: &[(f64, &str)]) -> String {
    let scale = Scale::of(lines, references);
    let mut svg = String::new();
    axes(&mut svg, label, &scale);
    bands(&mut svg, lines, &scale);
    for &(value, colour) in references {
        let _ = writeln!(
            svg,
            "<line x1=\"{:.1}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"{colour}\" \
             stroke-dasharray=\"6 4\"/>",
            CHART_MARGIN,
            CHART_MARGIN + scale.plot_w,
            y = scale.sy(value)
        );
    }
    for l in lines {
        let path: Vec<String> = l
            .points
            .iter()
            .map(|&(x, y)| format!("{:.1},{:.1}", scale.sx(x), scale.sy(y)))
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

/// The axes' ranges and the plot's size: data to SVG coordinates.
struct Scale {
    x_min: f64,
    x_max: f64,
    y_min: f64,
    y_max: f64,
    plot_w: f64,
    plot_h: f64,
}

impl Scale {
    fn of(lines: &[Line<'_>], references: &[(f64, &str)]) -> Scale {
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
        Scale {
            x_min,
            x_max,
            y_min: y_min - pad,
            y_max: y_max + pad,
            plot_w: CHART_WIDTH - 2.0 * CHART_MARGIN,
            plot_h: CHART_HEIGHT - 2.0 * CHART_MARGIN,
        }
    }

    fn sx(&self, x: f64) -> f64 {
        CHART_MARGIN + (x - self.x_min) / (self.x_max - self.x_min) * self.plot_w
    }

    /// A value outside the axis is drawn at its edge.
    fn sy(&self, y: f64) -> f64 {
        CHART_MARGIN
            + (self.y_max - y.clamp(self.y_min, self.y_max)) / (self.y_max - self.y_min)
                * self.plot_h
    }
}

/// The SVG's opening, the plot's frame, the ticks with their labels and
/// grid lines, and the axes' names.
fn axes(svg: &mut String, label: &str, scale: &Scale) {
    let (plot_w, plot_h) = (scale.plot_w, scale.plot_h);
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
    for y in nice_ticks(scale.y_min, scale.y_max, false) {
        let _ = writeln!(
            svg,
            "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\" text-anchor=\"end\">{}</text>",
            CHART_MARGIN - 4.0,
            scale.sy(y) + 4.0,
            tick_text(y, scale.y_max - scale.y_min)
        );
        let _ = writeln!(
            svg,
            "<line x1=\"{CHART_MARGIN}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"#eee\"/>",
            CHART_MARGIN + plot_w,
            y = scale.sy(y)
        );
    }
    for x in nice_ticks(scale.x_min, scale.x_max, true) {
        let _ = writeln!(
            svg,
            "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\" text-anchor=\"middle\">{x:.0}</text>",
            scale.sx(x),
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
}

/// The shaded intervals behind the lines that have one.
fn bands(svg: &mut String, lines: &[Line<'_>], scale: &Scale) {
    for l in lines {
        let Some(band) = &l.band else { continue };
        let upper = band.iter().map(|b| (b.0, b.2));
        let lower = band.iter().rev().map(|b| (b.0, b.1));
        let outline: Vec<String> = upper
            .chain(lower)
            .map(|(x, y)| format!("{:.1},{:.1}", scale.sx(x), scale.sy(y)))
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
}

/// Tick values at a "nice" step (1, 2 or 5 times a power of ten) giving at
/// most about `CHART_TICKS` ticks inside [lo, hi]; whole numbers only for
/// `whole` (game counts), so no label repeats (`1 2 2 3 3 4`).
pub(super) fn nice_ticks(lo: f64, hi: f64, whole: bool) -> Vec<f64> {
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
pub(super) fn tick_text(value: f64, range: f64) -> String {
    let decimals = if range >= 50.0 {
        0
    } else if range >= 5.0 {
        1
    } else {
        2
    };
    signed(value, decimals).trim_start_matches('+').to_string()
}
