//! The match's results as they come in: each finished game is recorded,
//! checked against the SPRT bounds and reported (the Finished line, the
//! progress line or bar, the periodic tables) here, where the records are
//! kept, not in the workers' game loop.

use std::io::Write;
use std::sync::atomic::Ordering;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::Ctx;
use crate::config::MatchConfig;
use crate::fastchess;
use crate::report::{format_pair_table, samples_words};
use crate::results::{counts_for, fmt_elo, pair_reports, stats_for};
use crate::schedule::Scheduled;
use crate::stats::SprtVerdict;
use crate::ArenaError;
use stackfish_record::{GameRecord, Sinks};

/// The progress line on a terminal: `[####....] 10/40 games, <status>`.
/// The bar is drawn by us into the message, with the game count and the
/// score: indicatif draws what each call gives it, so a bar of its own
/// filled at `set_position` a step before the message caught up with the
/// count. One text, one update: the fill, the count and the score always
/// agree.
const BAR_TEMPLATE: &str = "{msg}";
/// Characters of the bar between its brackets.
const BAR_WIDTH: usize = 16;
/// Columns the bar, its brackets and a space take before the status.
const BAR_COLUMNS: usize = BAR_WIDTH + 3;

pub(super) struct Shared<'a> {
    pub(super) queue: std::vec::IntoIter<Scheduled>,
    pub(super) records: Vec<GameRecord>,
    pub(super) sinks: Sinks,
    pub(super) out: &'a mut (dyn Write + Send),
    pub(super) error: Option<ArenaError>,
    pub(super) finished_now: u32,
    pub(super) started_at: Instant,
    /// The first SPRT bound crossed, with the pair's game count at that moment.
    pub(super) crossed: Option<(SprtVerdict, u64)>,
}

impl Shared<'_> {
    /// Records a finished game and reports on it; `Err` when the record
    /// cannot be written (the match stops).
    pub(super) fn keep(&mut self, ctx: &Ctx, rec: GameRecord) -> Result<(), ArenaError> {
        self.sinks.write(&rec)?;
        let annotation = if ctx.fastchess {
            fastchess::annotation(&rec.termination, [&rec.player1, &rec.player2])
        } else {
            rec.termination.clone()
        };
        let line = format!(
            "Finished game {} ({} vs {}): {} {{{annotation}}}",
            rec.game, rec.player1, rec.player2, rec.result
        );
        self.say(ctx, &line);
        self.records.push(rec);
        self.finished_now += 1;
        self.check_sprt(ctx);
        self.progress(ctx);
        Ok(())
    }

    /// A line above the terminal's bar, or on `out`.
    pub(super) fn say(&mut self, ctx: &Ctx, line: &str) {
        match &ctx.bar {
            Some(bar) => bar.println(line),
            None => {
                let _ = writeln!(self.out, "{line}");
                let _ = self.out.flush();
            }
        }
    }

    /// Stops the match at the first SPRT bound crossed by the candidate's pair.
    fn check_sprt(&mut self, ctx: &Ctx) {
        let counts = counts_for(&ctx.names[0], &ctx.names[1], &self.records);
        let sprt = ctx.cfg.sprt.as_ref();
        let last = self.records.last();
        let candidate_game = last.is_some_and(|r| {
            [&r.player1, &r.player2].contains(&&ctx.names[0])
                && [&r.player1, &r.player2].contains(&&ctx.names[1])
        });
        if !candidate_game {
            return;
        }
        let Some(sprt) = sprt else { return };
        if self.crossed.is_some() {
            return;
        }
        let status = counts.sprt_status(sprt);
        if status.verdict == SprtVerdict::Continue {
            return;
        }
        let games = counts.trinomial.games();
        self.crossed = Some((status.verdict, games));
        ctx.sprt_done.store(true, Ordering::SeqCst);
        let d = status.decimals().max(3);
        let line = format!(
            "SPRT: LLR {:.d$} crossed {} bound {:.d$} after {games} games: {}; no new games start, games in flight are finished",
            status.llr,
            if status.verdict == SprtVerdict::H1Accepted { "the upper" } else { "the lower" },
            if status.verdict == SprtVerdict::H1Accepted { status.upper } else { status.lower },
            status.verdict.word(),
        );
        self.say(ctx, &line);
    }

    fn progress(&mut self, ctx: &Ctx) {
        let done = self.records.len() as u32;
        let minutes = self.started_at.elapsed().as_secs_f64() / 60.0;
        let rate = if minutes > 0.0 {
            self.finished_now as f64 / minutes
        } else {
            0.0
        };
        let left = ctx.total.saturating_sub(done);
        let eta = if rate > 0.0 {
            let secs = (left as f64 / rate * 60.0).round() as u64;
            format!("{}:{:02}", secs / 60, secs % 60)
        } else {
            "?".into()
        };
        let first = stats_for(&ctx.names[0], &ctx.names[1], &self.records);
        // What the Elo counts: complete pairs, or games before the first pair.
        let elo_from = counts_for(&ctx.names[0], &ctx.names[1], &self.records)
            .estimate()
            .map_or_else(String::new, |e| format!(" ({})", samples_words(&e)));
        let llr = match &ctx.cfg.sprt {
            Some(sprt) => {
                let st = counts_for(&ctx.names[0], &ctx.names[1], &self.records).sprt_status(sprt);
                let d = st.decimals();
                format!(", LLR {:.d$} [{:.d$}, {:.d$}]", st.llr, st.lower, st.upper)
            }
            None => String::new(),
        };
        let fields = [
            StatusField::new(format!("{done}/{} games", ctx.total), 0),
            StatusField::new(format!("{} vs {}:", first.engine, first.opponent), 2),
            StatusField::new(
                format!(
                    "{:.1}% W/D/L {}/{}/{}",
                    first.score * 100.0,
                    first.wins,
                    first.draws,
                    first.losses
                ),
                3,
            ),
            StatusField::new(format!("Elo {}{elo_from}", fmt_elo(&first)), 5),
            StatusField::new(llr.trim_start_matches(", ").to_string(), 0),
            StatusField::new(format!("{rate:.1} games/min"), 1),
            StatusField::new(format!("ETA {eta}"), 0),
        ];
        let status = fit_status(&fields, usize::MAX);
        // Without the game count, which the non-terminal line puts first itself.
        let status = status
            .split_once(", ")
            .map_or(status.clone(), |(_, rest)| rest.to_string());
        if ctx.fastchess {
            let interval = ctx.cfg.ratinginterval;
            if interval > 0 && done.is_multiple_of(interval) && done < ctx.total {
                let block = fastchess_block(ctx.cfg, ctx.names, &self.records);
                let _ = write!(self.out, "{block}");
            }
        } else if let Some(bar) = &ctx.bar {
            let width = console::Term::stdout()
                .size_checked()
                .map_or(80, |(_, cols)| usize::from(cols));
            let status = fit_status(&fields, width.saturating_sub(BAR_COLUMNS));
            bar.set_message(format!("{} {status}", bar_text(done, ctx.total)));
        } else {
            let status = format!("{done}/{} games, {status}", ctx.total);
            let interval = ctx.cfg.ratinginterval;
            // The full table follows at the end anyway.
            if interval > 0 && done.is_multiple_of(interval) && done < ctx.total {
                let _ = writeln!(self.out, "Progress: {status}");
                let table = format_pair_table(&pair_reports(
                    ctx.names,
                    &self.records,
                    ctx.cfg.sprt.as_ref(),
                ));
                let _ = write!(self.out, "{table}");
            } else if done == ctx.total {
                let _ = writeln!(self.out, "Progress: {status}");
            }
        }
    }
}

/// One field of the progress line, and how readily it is dropped when the
/// line is too wide for the terminal: the lowest `keep` goes first, and 0
/// is never dropped (the game count, LLR and ETA an SPRT user watches).
struct StatusField {
    text: String,
    keep: u8,
}

impl StatusField {
    fn new(text: String, keep: u8) -> Self {
        StatusField { text, keep }
    }
}

/// The fields that fit in `width` columns, joined by ", " (the pair's name
/// by a space): the least useful are dropped first, so an 80-column
/// terminal still shows the LLR and the ETA. Empty fields are skipped.
fn fit_status(fields: &[StatusField], width: usize) -> String {
    let join = |shown: &[&StatusField]| {
        let mut out = String::new();
        for f in shown {
            if !out.is_empty() {
                out.push_str(if out.ends_with(':') { " " } else { ", " });
            }
            out.push_str(&f.text);
        }
        out
    };
    let mut shown: Vec<&StatusField> = fields.iter().filter(|f| !f.text.is_empty()).collect();
    loop {
        let line = join(&shown);
        if line.chars().count() <= width {
            return line;
        }
        let droppable = shown
            .iter()
            .enumerate()
            .filter(|(_, f)| f.keep > 0)
            .min_by_key(|(_, f)| f.keep)
            .map(|(i, _)| i);
        match droppable {
            Some(i) => {
                shown.remove(i);
            }
            None => return line,
        }
    }
}

/// fastchess's results block for the first two engines.
pub(super) fn fastchess_block(
    cfg: &MatchConfig,
    names: &[String],
    records: &[GameRecord],
) -> String {
    let (a, b) = (&names[0], &names[1]);
    fastchess::results_block(
        a,
        b,
        &fastchess::setting(cfg),
        &counts_for(a, b, records),
        fastchess::wl_dd(a, b, records),
        cfg.sprt.as_ref(),
    )
}

/// The terminal's progress line over the `total` games of the run, `done`
/// of them already recorded (a resumed match).
pub(super) fn progress_bar(total: u32, done: usize) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(total.into()), ProgressDrawTarget::stdout());
    // The template is a constant: it parses, or the tests fail.
    if let Ok(style) = ProgressStyle::with_template(BAR_TEMPLATE) {
        bar.set_style(style);
    }
    let done = u32::try_from(done).unwrap_or(u32::MAX);
    bar.set_message(format!("{} {done}/{total} games", bar_text(done, total)));
    bar
}

/// `[######..........] 6/16 games`'s bar: `#` for each whole sixteenth of
/// the games done.
fn bar_text(done: u32, total: u32) -> String {
    let filled = if total == 0 {
        BAR_WIDTH
    } else {
        (u64::from(done.min(total)) * BAR_WIDTH as u64 / u64::from(total)) as usize
    };
    format!("[{}{}]", "#".repeat(filled), ".".repeat(BAR_WIDTH - filled))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_progress_bar_template_parses() {
        assert!(ProgressStyle::with_template(BAR_TEMPLATE).is_ok());
    }

    #[test]
    fn the_bar_fills_with_its_count() {
        assert_eq!(bar_text(0, 40), "[................]");
        // 10 of 40 is 4 sixteenths; 2 of 40 (0.8 of one) is none yet.
        assert_eq!(bar_text(10, 40), "[####............]");
        assert_eq!(bar_text(2, 40), "[................]");
        assert_eq!(bar_text(3, 40), "[#...............]");
        assert_eq!(bar_text(40, 40), "[################]");
        assert_eq!(bar_text(0, 0), "[################]");
        assert_eq!(bar_text(7, 3), "[################]");
        assert_eq!(bar_text(1, 16).len(), BAR_COLUMNS - 1);
    }

    fn sample() -> Vec<StatusField> {
        [
            ("10/40 games", 0),
            ("stackfish vs stackfish-level3:", 2),
            ("75.0% W/D/L 7/1/2", 3),
            ("Elo +190.8 +/- 150.2", 5),
            ("LLR 0.52 [-2.94, 2.94]", 0),
            ("120.3 games/min", 1),
            ("ETA 0:15", 0),
        ]
        .into_iter()
        .map(|(t, k)| StatusField::new(t.to_string(), k))
        .collect()
    }

    #[test]
    fn the_progress_line_fits_an_80_column_terminal() {
        // Issue 23: at 80 columns the bar cut off the LLR and the ETA.
        let wide = fit_status(&sample(), usize::MAX);
        assert_eq!(
            wide,
            "10/40 games, stackfish vs stackfish-level3: 75.0% W/D/L 7/1/2, \
             Elo +190.8 +/- 150.2, LLR 0.52 [-2.94, 2.94], 120.3 games/min, ETA 0:15"
        );
        let narrow = fit_status(&sample(), 80 - BAR_COLUMNS);
        assert!(narrow.chars().count() <= 80 - BAR_COLUMNS, "{narrow}");
        for kept in ["10/40 games", "LLR 0.52 [-2.94, 2.94]", "ETA 0:15"] {
            assert!(narrow.contains(kept), "{kept} missing in {narrow}");
        }
        assert!(
            !narrow.contains("games/min"),
            "the rate goes first: {narrow}"
        );
        // At 100 columns the names give way before the Elo does.
        let medium = fit_status(&sample(), 100 - BAR_COLUMNS);
        assert!(medium.contains("Elo +190.8"), "{medium}");
        assert!(!medium.contains("stackfish vs"), "{medium}");
        // Too narrow for anything but the essentials: those stay whole.
        assert_eq!(
            fit_status(&sample(), 10),
            "10/40 games, LLR 0.52 [-2.94, 2.94], ETA 0:15"
        );
    }
}
