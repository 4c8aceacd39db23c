//! Runs a whole match: workers (one per `--concurrency`) take games from the
//! schedule, keep their own engine processes (restarting faulty ones), and
//! hand finished games to the records, the progress output and the summary.

use stackfish_tables::TableSet;
use std::collections::HashMap;
use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::config::{EngineSpec, Limits, MatchConfig, Referee, Timeouts};
use super::fastchess;
use super::openings::{self, Opening, OpeningError};
use super::referee::GameSetup;
use super::report::{format_pair_table, pair_sentences, samples_words, EngineInfo, MatchInfo};
use super::results::{
    check_writable, counts_for, final_verdict, fmt_elo, pair_reports, pair_stats, print_tables,
    repeated_games, sprt_line, stats_for, summarize_games, tournament_tables, write_json,
    write_report, SprtSummary, Summary,
};
use super::schedule::{schedule_tournament, Scheduled, Shard};
use super::seats::Seats;
use super::stats::SprtVerdict;
use super::ArenaError;
use stackfish_client::engine::{spawn_process, Engine, Logger, SearchError, Spawner, StartError};
use stackfish_client::transport::INTERRUPTED;
use stackfish_record::{pgn_game_numbers, read_jsonl, GameRecord, Sinks};

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

pub struct RunOptions {
    /// Continue from the games already in the JSONL file.
    pub resume: bool,
    /// Stdout is a terminal: draw a progress bar there, with the Started /
    /// Finished lines printed above it (to stdout, not to `out`, which the
    /// caller then also points at stdout).
    pub tty: bool,
    /// Play only this part of the schedule.
    pub shard: Option<Shard>,
    /// fastchess's results blocks instead of our progress lines and tables
    /// (`-output format=fastchess`).
    pub fastchess: bool,
}

struct Shared<'a> {
    queue: std::vec::IntoIter<Scheduled>,
    records: Vec<GameRecord>,
    sinks: Sinks,
    out: &'a mut (dyn Write + Send),
    error: Option<ArenaError>,
    finished_now: u32,
    started_at: Instant,
    /// The first SPRT bound crossed, with the pair's game count at that moment.
    crossed: Option<(SprtVerdict, u64)>,
}

/// Plays the match of `cfg`, writing progress to `out`. Returns the summary
/// (also written to `cfg.json`); `interrupted` is set when Ctrl-C stopped it.
pub fn run_match(
    cfg: &MatchConfig,
    opts: &RunOptions,
    out: &mut (dyn Write + Send),
) -> Result<Summary, ArenaError> {
    run_match_with(cfg, opts, out, &spawn_process)
}

pub fn run_match_with(
    cfg: &MatchConfig,
    opts: &RunOptions,
    out: &mut (dyn Write + Send),
    spawn: Spawner,
) -> Result<Summary, ArenaError> {
    cfg.validate()?;
    // The summary and the report are written at the end: a path that
    // cannot take them fails now, not after the whole match.
    for (path, flag) in [(&cfg.json, "--json"), (&cfg.report, "--report")] {
        if let Some(path) = path {
            check_writable(path, flag)?;
        }
    }
    let limits: Vec<Limits> = cfg
        .engines
        .iter()
        .map(|e| e.limits().map_err(ArenaError::from))
        .collect::<Result<_, _>>()?;
    let names: Vec<String> = cfg.engines.iter().map(|e| e.name.clone()).collect();
    let suite = match &cfg.openings {
        Some(p) if cfg.referee == Referee::Engines => {
            openings::load_with(p, &Opening::parse_unchecked)?
        }
        Some(p) => openings::load(&cfg.game, p)?,
        None => vec![Opening::startpos()],
    };
    let mut plan = schedule_tournament(
        cfg.tournament,
        cfg.engines.len(),
        cfg.games,
        suite.len(),
        cfg.seed,
    );
    let scheduled = plan.len() as u32;
    if scheduled != cfg.games {
        let pairs = cfg.tournament.pairs(cfg.engines.len()).len();
        let _ = writeln!(
            out,
            "Note: {} games rounded up to {scheduled}: every opening is played twice with colours swapped, by each of the {pairs} engine pair{}",
            cfg.games,
            if pairs == 1 { "" } else { "s" }
        );
    }
    if cfg.openings.is_none() && plan.iter().any(|g| g.round > 1) {
        let _ = writeln!(
            out,
            "Warning: no --openings: every game starts from the start position, so engines that play the same move in the same position (depth= or nodes= limits) replay the same games; `arena openings` writes a suite"
        );
    }
    if let Some(shard) = opts.shard {
        plan.retain(|g| shard.owns(g.game));
    }
    let total = plan.len() as u32;
    let tables = match &cfg.tb {
        Some(folder) => {
            let (set, notes) =
                TableSet::open_folder(folder).map_err(|e| ArenaError::Config(e.to_string()))?;
            for note in notes {
                let _ = writeln!(out, "Tables: {note}");
            }
            let found: Vec<String> = set
                .tables()
                .iter()
                .map(|t| t.config().to_string())
                .collect();
            let _ = writeln!(
                out,
                "Tables: {} in {} ({})",
                found.len(),
                folder.display(),
                found.join("; ")
            );
            Some(set)
        }
        None => None,
    };

    let mut done: Vec<GameRecord> = Vec::new();
    if opts.resume {
        let Some(path) = &cfg.jsonl else {
            return Err(ArenaError::Config(
                "--resume needs the --jsonl file of the match".into(),
            ));
        };
        let by_game: HashMap<u32, &Scheduled> = plan.iter().map(|g| (g.game, g)).collect();
        for r in read_jsonl(path)? {
            let fits = by_game.get(&r.game).is_some_and(|g| {
                names[g.p1] == r.player1 && names[g.p2] == r.player2 && Some(g.round) == r.round
            });
            if !fits {
                return Err(ArenaError::Config(format!(
                    "{}: game {} ({} vs {}) is not part of this match's schedule (other engines, games or seed?)",
                    path.display(),
                    r.game,
                    r.player1,
                    r.player2
                )));
            }
            if !done.iter().any(|d| d.game == r.game) {
                done.push(r);
            }
        }
    }
    let pending: Vec<Scheduled> = plan
        .iter()
        .filter(|g| !done.iter().any(|d| d.game == g.game))
        .copied()
        .collect();
    let mut sinks = Sinks::open(cfg.pgn.as_deref(), cfg.jsonl.as_deref(), opts.resume)?;
    if let (Some(path), n @ 1..) = (&cfg.jsonl, sinks.torn_cut()) {
        let _ = writeln!(
            out,
            "Resuming: cut a torn last line ({n} bytes, a game that never finished) off {}",
            path.display()
        );
    }
    if let (Some(path), true) = (&cfg.pgn, opts.resume) {
        if let n @ 1.. = sinks.torn_pgn() {
            let _ = writeln!(
                out,
                "Resuming: cut a torn last game ({n} bytes, a write that never finished) off {}",
                path.display()
            );
        }
        // The JSONL line of a game is written before its PGN block: a game
        // whose block was torn, or failed on a full disk, is whole in the
        // JSONL file and written again from there.
        let have = pgn_game_numbers(path)?;
        let mut missing: Vec<&GameRecord> =
            done.iter().filter(|r| !have.contains(&r.game)).collect();
        missing.sort_by_key(|r| r.game);
        for rec in &missing {
            sinks.write_pgn(rec)?;
        }
        if !missing.is_empty() {
            let _ = writeln!(
                out,
                "Resuming: wrote {} recorded game{} missing from {} again, from {}",
                missing.len(),
                if missing.len() == 1 { "" } else { "s" },
                path.display(),
                cfg.jsonl
                    .as_deref()
                    .unwrap_or(Path::new("the JSONL file"))
                    .display()
            );
        }
    }
    let log = match &cfg.log {
        Some(p) => Logger::to_file(p, opts.resume)?,
        None => Logger::default(),
    };
    check_options(cfg, &log, spawn, out)?;
    if let Some(e) = log.failed() {
        return Err(ArenaError::Io(e));
    }
    if !done.is_empty() {
        let _ = writeln!(
            out,
            "Resuming: {} of {} games already recorded",
            done.len(),
            total
        );
    }
    if let Some(shard) = opts.shard {
        let _ = writeln!(out, "Shard {shard}: {total} games of the schedule");
    }
    let abort = AtomicBool::new(false);
    // A resumed match continues its charts from the recorded games (in game
    // order: their finishing order is not recorded), and one whose records
    // already cross a bound plays no more games.
    done.sort_by_key(|r| r.game);
    let crossed = cfg.sprt.as_ref().and_then(|s| {
        let counts = counts_for(&names[0], &names[1], &done);
        let verdict = counts.sprt_status(s).verdict;
        (verdict != SprtVerdict::Continue).then(|| (verdict, counts.trinomial.games()))
    });
    let sprt_done = AtomicBool::new(crossed.is_some());
    let bar = opts.tty.then(|| progress_bar(total, done.len()));
    let shared = Mutex::new(Shared {
        queue: pending.into_iter(),
        records: done,
        sinks,
        out,
        error: None,
        finished_now: 0,
        started_at: Instant::now(),
        crossed,
    });
    let ctx = Ctx {
        cfg,
        limits: &limits,
        names: &names,
        suite: &suite,
        tables: tables.as_ref(),
        total,
        fastchess: opts.fastchess,
        bar: bar.clone(),
        log: log.clone(),
        spawn,
        abort: &abort,
        sprt_done: &sprt_done,
        shared: &shared,
    };
    std::thread::scope(|scope| {
        for _ in 0..cfg.concurrency {
            scope.spawn(|| worker(&ctx));
        }
    });
    let mut shared = shared
        .into_inner()
        .map_err(|_| ArenaError::Io("a worker thread panicked".into()))?;
    if let Some(e) = shared.error.take() {
        return Err(e);
    }
    // A log cut off stops the match as a record that cannot be written does.
    if let Some(e) = log.failed() {
        return Err(ArenaError::Io(e));
    }
    let interrupted = INTERRUPTED.load(Ordering::SeqCst);
    let pairs = pair_stats(&names, &shared.records);
    let sprt = cfg.sprt.as_ref();
    let mut reports = pair_reports(&names, &shared.records, sprt);
    let tables = tournament_tables(&names, &shared.records)?;
    let counts = counts_for(&names[0], &names[1], &shared.records);
    let all_played = shared.records.len() as u32 >= total;
    // Ctrl-C before any crossing leaves the test undecided ("running").
    let verdict = sprt.and_then(|s| {
        if interrupted && shared.crossed.is_none() {
            return None;
        }
        let now = counts.sprt_status(s).verdict;
        final_verdict(shared.crossed.map(|c| c.0), now, all_played)
    });
    let sprt_summary = sprt.map(|s| {
        let stopped_at = shared.crossed.map(|c| c.1);
        SprtSummary::new(&names[0], &names[1], s, &counts, verdict, stopped_at)
    });
    // The table's SPRT column says what the line below it says.
    if let Some(first) = reports.first_mut().filter(|r| r.sprt.is_some()) {
        *first = first.clone().with_verdict(verdict);
    }
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    let out = &mut shared.out;
    if interrupted {
        let _ = writeln!(
            out,
            "Interrupted: {} of {} games recorded",
            shared.records.len(),
            total
        );
    }
    let repeated = repeated_games(&shared.records);
    if repeated > 0 {
        let _ = writeln!(
            out,
            "Warning: {repeated} of {} games repeat an earlier game move for move; the statistics count them as independent games{}",
            shared.records.len(),
            if cfg.openings.is_none() { " (no --openings)" } else { " (too few openings?)" }
        );
    }
    if opts.fastchess {
        let block = fastchess_block(cfg, &names, &shared.records);
        let _ = write!(out, "{}", fastchess::end_of_run(&block, cfg.sprt.as_ref()));
    } else {
        print_tables(&mut **out, &reports, tables.as_ref());
        if let Some(s) = &sprt_summary {
            let _ = writeln!(out, "{}", sprt_line(s));
        }
        for line in pair_sentences(&reports) {
            let _ = writeln!(out, "{line}");
        }
    }
    let summary = Summary {
        event: cfg.event.clone(),
        variant: cfg.game.clone(),
        engines: names.clone(),
        scheduled: total,
        finished: shared.records.len() as u32,
        interrupted,
        games: summarize_games(&shared.records),
        pairs,
        sprt: sprt_summary,
        ratings: tables.as_ref().map(|t| t.0.clone()),
        shard: opts.shard.map(|s| s.to_string()),
        duplicates: None,
        verdict,
    };
    if let Some(path) = &cfg.json {
        write_json(path, &summary)?;
    }
    if let Some(path) = &cfg.report {
        write_report(
            path,
            &cfg.event,
            &shared.records,
            Some(&match_info(cfg)),
            cfg.sprt,
            &reports,
            tables.as_ref(),
        )?;
    }
    let _ = out.flush();
    Ok(summary)
}

/// The settings the HTML report shows: the engines as started, with their
/// options and limits, the opening suite and the tournament kind.
fn match_info(cfg: &MatchConfig) -> MatchInfo {
    let engines = cfg
        .engines
        .iter()
        .map(|e| EngineInfo {
            name: e.name.clone(),
            command: std::iter::once(e.cmd.as_str())
                .chain(e.args.iter().map(String::as_str))
                .collect::<Vec<_>>()
                .join(" "),
            options: e
                .options
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            limits: e
                .limits()
                .map_or_else(|err| err.to_string(), |l| l.describe()),
        })
        .collect();
    MatchInfo {
        game: cfg.game.clone(),
        tournament: (cfg.engines.len() > 2).then(|| format!("{:?}", cfg.tournament).to_lowercase()),
        engines,
        openings: cfg.openings.as_ref().map(|p| p.display().to_string()),
    }
}

/// Starts every engine that has options set once, before the first game:
/// an option it refuses or never advertised would otherwise be played
/// through without a word. A config error, or with `allow_bad_options` a
/// warning. An engine that fails its handshake here is left to forfeit its
/// games as it would have.
fn check_options(
    cfg: &MatchConfig,
    log: &Logger,
    spawn: Spawner,
    out: &mut (dyn Write + Send),
) -> Result<(), ArenaError> {
    for spec in cfg.engines.iter().filter(|e| !e.options.is_empty()) {
        let engine = match Engine::start(spec, &cfg.game, cfg.timeouts, log.clone(), 0, spawn) {
            Ok(e) => e,
            Err(StartError::Spawn(e)) => return Err(e.into()),
            Err(StartError::Fault(_)) => continue,
        };
        let refused = engine.refused.clone();
        engine.quit();
        for r in &refused {
            if !cfg.allow_bad_options {
                return Err(ArenaError::Config(format!(
                    "{r} (--allow-bad-options warns and plays on)"
                )));
            }
            let _ = writeln!(out, "Warning: {r}");
        }
    }
    Ok(())
}

struct Ctx<'a, 'o> {
    cfg: &'a MatchConfig,
    limits: &'a [Limits],
    names: &'a [String],
    suite: &'a [Opening],
    tables: Option<&'a TableSet>,
    total: u32,
    /// `RunOptions::fastchess`.
    fastchess: bool,
    /// The terminal's progress bar (`RunOptions::tty`).
    bar: Option<ProgressBar>,
    log: Logger,
    spawn: Spawner<'a>,
    abort: &'a AtomicBool,
    /// Set when the SPRT crossed a bound: no new games start, games in
    /// flight are finished and recorded.
    sprt_done: &'a AtomicBool,
    shared: &'a Mutex<Shared<'o>>,
}

impl Ctx<'_, '_> {
    /// Ctrl-C, a failure of the run, or a log that can no longer be
    /// written: no new game starts.
    fn stopping(&self) -> bool {
        INTERRUPTED.load(Ordering::SeqCst)
            || self.abort.load(Ordering::SeqCst)
            || self.log.failed().is_some()
    }

    fn say(&self, s: &mut Shared, line: &str) {
        match &self.bar {
            Some(bar) => bar.println(line),
            None => {
                let _ = writeln!(s.out, "{line}");
                let _ = s.out.flush();
            }
        }
    }
}

fn worker(ctx: &Ctx) {
    let cfg = ctx.cfg;
    let specs = cfg.engines.iter().collect();
    let mut seats = Seats::new(specs, &cfg.game, cfg.timeouts, ctx.log.clone(), ctx.spawn);
    while let Some(g) = next_game(ctx) {
        let opening = &ctx.suite[g.opening.min(ctx.suite.len() - 1)];
        let setup = game_setup(ctx, &g, opening);
        let seated = match seats.start([g.p1, g.p2], &setup, &mut |_, _| {}) {
            Ok(seated) => seated,
            Err(e) => {
                ctx.abort.store(true, Ordering::SeqCst);
                if let Ok(mut s) = ctx.shared.lock() {
                    s.error.get_or_insert(e);
                }
                break;
            }
        };
        if ctx.stopping() {
            break;
        }
        let record = match seated {
            Some(forfeit) => forfeit.record,
            None => {
                let played = seats.play([g.p1, g.p2], &setup);
                if played.restart.iter().any(|&r| r) && stop_follows() {
                    None
                } else {
                    played.record
                }
            }
        };
        let Some(rec) = record else { break };
        if !keep(ctx, rec) {
            break;
        }
    }
    seats.quit();
}

/// The next game of the schedule, announced; `None` when the match stops
/// (Ctrl-C, a failure, the SPRT decided) or every game is handed out.
fn next_game(ctx: &Ctx) -> Option<Scheduled> {
    if ctx.stopping() {
        return None;
    }
    let mut s = ctx.shared.lock().ok()?;
    // Checked under the lock that guards the crossing, so no game
    // starts after the SPRT has decided.
    if ctx.sprt_done.load(Ordering::SeqCst) {
        return None;
    }
    let g = s.queue.next()?;
    let line = format!(
        "Started game {} of {} ({} vs {})",
        g.game, ctx.total, ctx.names[g.p1], ctx.names[g.p2]
    );
    ctx.say(&mut s, &line);
    Some(g)
}

/// Everything about scheduled game `g` but the engines.
fn game_setup<'a>(ctx: &'a Ctx, g: &Scheduled, opening: &'a Opening) -> GameSetup<'a> {
    let cfg = ctx.cfg;
    GameSetup {
        game: g.game,
        round: g.round,
        opening_index: g.opening,
        opening,
        variant: &cfg.game,
        event: &cfg.event,
        names: [&ctx.names[g.p1], &ctx.names[g.p2]],
        limits: [ctx.limits[g.p1], ctx.limits[g.p2]],
        max_plies: cfg.maxplies,
        resign: cfg.resign,
        draw: cfg.draw,
        tables: ctx.tables,
        max_move_ms: cfg.timeouts.max_move_ms,
        referee: cfg.referee,
    }
}

/// Records a finished game and reports on it; `false` when the record
/// cannot be written (the match stops).
fn keep(ctx: &Ctx, rec: GameRecord) -> bool {
    let Ok(mut s) = ctx.shared.lock() else {
        return false;
    };
    if let Err(e) = s.sinks.write(&rec) {
        s.error.get_or_insert(e.into());
        ctx.abort.store(true, Ordering::SeqCst);
        return false;
    }
    let annotation = if ctx.fastchess {
        fastchess::annotation(&rec.termination, [&rec.player1, &rec.player2])
    } else {
        rec.termination.clone()
    };
    let line = format!(
        "Finished game {} ({} vs {}): {} {{{annotation}}}",
        rec.game, rec.player1, rec.player2, rec.result
    );
    ctx.say(&mut s, &line);
    s.records.push(rec);
    s.finished_now += 1;
    check_sprt(ctx, &mut s);
    progress(ctx, &mut s);
    true
}

/// Whether a stop signal arrives within a moment of an engine fault. A
/// scheduler stopping a job (Slurm's `scancel`, a pod's termination)
/// signals the arena and its engines at once, so an engine may die of it
/// just before the arena hears it: that game was stopped, not lost, and
/// must not be recorded as a forfeit.
fn stop_follows() -> bool {
    let start = Instant::now();
    while start.elapsed() < std::time::Duration::from_millis(300) {
        if INTERRUPTED.load(Ordering::SeqCst) {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    INTERRUPTED.load(Ordering::SeqCst)
}

/// Stops the match at the first SPRT bound crossed by the candidate's pair.
fn check_sprt(ctx: &Ctx, s: &mut Shared) {
    let counts = counts_for(&ctx.names[0], &ctx.names[1], &s.records);
    let sprt = ctx.cfg.sprt.as_ref();
    let last = s.records.last();
    let candidate_game = last.is_some_and(|r| {
        [&r.player1, &r.player2].contains(&&ctx.names[0])
            && [&r.player1, &r.player2].contains(&&ctx.names[1])
    });
    if !candidate_game {
        return;
    }
    let Some(sprt) = sprt else { return };
    if s.crossed.is_some() {
        return;
    }
    let status = counts.sprt_status(sprt);
    if status.verdict == SprtVerdict::Continue {
        return;
    }
    let games = counts.trinomial.games();
    s.crossed = Some((status.verdict, games));
    ctx.sprt_done.store(true, Ordering::SeqCst);
    let d = status.decimals().max(3);
    let line = format!(
        "SPRT: LLR {:.d$} crossed {} bound {:.d$} after {games} games: {}; no new games start, games in flight are finished",
        status.llr,
        if status.verdict == SprtVerdict::H1Accepted { "the upper" } else { "the lower" },
        if status.verdict == SprtVerdict::H1Accepted { status.upper } else { status.lower },
        status.verdict.word(),
    );
    ctx.say(s, &line);
}

fn progress(ctx: &Ctx, s: &mut Shared) {
    let done = s.records.len() as u32;
    let minutes = s.started_at.elapsed().as_secs_f64() / 60.0;
    let rate = if minutes > 0.0 {
        s.finished_now as f64 / minutes
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
    let first = stats_for(&ctx.names[0], &ctx.names[1], &s.records);
    // What the Elo counts: complete pairs, or games before the first pair.
    let elo_from = counts_for(&ctx.names[0], &ctx.names[1], &s.records)
        .estimate()
        .map_or_else(String::new, |e| format!(" ({})", samples_words(&e)));
    let llr = match &ctx.cfg.sprt {
        Some(sprt) => {
            let st = counts_for(&ctx.names[0], &ctx.names[1], &s.records).sprt_status(sprt);
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
            let block = fastchess_block(ctx.cfg, ctx.names, &s.records);
            let _ = write!(s.out, "{block}");
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
            let _ = writeln!(s.out, "Progress: {status}");
            let table =
                format_pair_table(&pair_reports(ctx.names, &s.records, ctx.cfg.sprt.as_ref()));
            let _ = write!(s.out, "{table}");
        } else if done == ctx.total {
            let _ = writeln!(s.out, "Progress: {status}");
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
fn fastchess_block(cfg: &MatchConfig, names: &[String], records: &[GameRecord]) -> String {
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
fn progress_bar(total: u32, done: usize) -> ProgressBar {
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

/// Writes a suite of random openings from the variant's start or from the
/// position string `start` (another board); with `balanced`, keeps only
/// those a short search by that engine scores within `max_cp` of even.
pub fn make_openings(
    game: &str,
    start: Option<&str>,
    plies: u32,
    count: usize,
    seed: u64,
    balanced: Option<(&EngineSpec, i32)>,
    timeouts: Timeouts,
) -> Result<Vec<Opening>, ArenaError> {
    let mut engine = match balanced {
        Some((spec, _)) => {
            spec.validate()?;
            match Engine::start(spec, game, timeouts, Logger::default(), 0, &spawn_process) {
                Ok(e) => Some(e),
                Err(StartError::Spawn(e)) => return Err(e.into()),
                Err(StartError::Fault(f)) => {
                    return Err(ArenaError::Spawn(format!("{}: {}", spec.name, f.text)))
                }
            }
        }
        None => None,
    };
    let max_cp = balanced.map_or(0, |b| b.1);
    let limits = match balanced {
        Some((spec, _)) => Some(spec.limits()?),
        None => None,
    };
    let mut keep = |o: &Opening| -> Result<bool, OpeningError> {
        let (Some(e), Some(l)) = (engine.as_mut(), limits) else {
            return Ok(true);
        };
        let go = match (l.depth, l.nodes, l.movetime_ms) {
            (Some(d), _, _) => format!("go depth {d}"),
            (_, Some(n), _) => format!("go nodes {n}"),
            (_, _, Some(ms)) => format!("go movetime {ms}"),
            _ => "go movetime 100".to_string(),
        };
        let deadline = Instant::now() + std::time::Duration::from_millis(timeouts.max_move_ms);
        match e.search(&o.position_command(), &go, deadline) {
            // In i64: `abs` of an engine's i32::MIN would overflow.
            Ok(r) => Ok(r.info.mate.is_none()
                && r.info
                    .cp
                    .is_some_and(|cp| i64::from(cp).abs() <= i64::from(max_cp))),
            Err(SearchError::NoReply { .. }) => {
                Err(OpeningError::Filter(format!("{}: no bestmove", e.name)))
            }
            Err(SearchError::Fault(f)) => {
                Err(OpeningError::Filter(format!("{}: {}", e.name, f.text)))
            }
        }
    };
    let suite = openings::generate_from(game, start, plies, count, seed, &mut keep)
        .map_err(ArenaError::from);
    if let Some(e) = engine {
        e.quit();
    }
    suite
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
