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

use indicatif::ProgressBar;

use super::config::{EngineSpec, Limits, MatchConfig, Referee, Timeouts};
use super::fastchess;
use super::openings::{self, Opening, OpeningError};
use super::ratings::{CrossTable, Ratings};
use super::referee::GameSetup;
use super::report::{pair_sentences, EngineInfo, MatchInfo, PairReport};
use super::results::{
    check_writable, counts_for, final_verdict, pair_reports, pair_stats, print_tables,
    repeated_games, sprt_line, summarize_games, tournament_tables, write_json, write_report,
    SprtSummary, Summary,
};
use super::schedule::{schedule_tournament, Scheduled, Shard};
use super::seats::Seats;
use super::stats::SprtVerdict;
use super::ArenaError;
use stackfish_client::engine::{spawn_process, Engine, Logger, SearchError, Spawner, StartError};
use stackfish_client::transport::INTERRUPTED;
use stackfish_record::{pgn_game_numbers, read_jsonl, GameRecord, Sinks};

mod progress;

use progress::{fastchess_block, progress_bar, Shared};

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
    let limits = check_config(cfg)?;
    let names: Vec<String> = cfg.engines.iter().map(|e| e.name.clone()).collect();
    let suite = load_suite(cfg)?;
    let plan = plan_games(cfg, opts, suite.len(), out);
    let total = plan.len() as u32;
    let tables = open_tables(cfg, out)?;
    let mut done = if opts.resume {
        recorded_games(cfg, &plan, &names)?
    } else {
        Vec::new()
    };
    let pending: Vec<Scheduled> = plan
        .iter()
        .filter(|g| !done.iter().any(|d| d.game == g.game))
        .copied()
        .collect();
    let sinks = open_sinks(cfg, opts, &done, out)?;
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
    // A resumed match continues its charts from the recorded games (in game
    // order: their finishing order is not recorded), and one whose records
    // already cross a bound plays no more games.
    done.sort_by_key(|r| r.game);
    let crossed = cfg.sprt.as_ref().and_then(|s| {
        let counts = counts_for(&names[0], &names[1], &done);
        let verdict = counts.sprt_status(s).verdict;
        (verdict != SprtVerdict::Continue).then(|| (verdict, counts.trinomial.games()))
    });
    let abort = AtomicBool::new(false);
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
    conclude(cfg, opts, &names, shared, total, bar.as_ref())
}

/// Checks the config and the output paths before anything is played; the
/// limits of each engine.
fn check_config(cfg: &MatchConfig) -> Result<Vec<Limits>, ArenaError> {
    cfg.validate()?;
    // The summary and the report are written at the end: a path that
    // cannot take them fails now, not after the whole match.
    for (path, flag) in [(&cfg.json, "--json"), (&cfg.report, "--report")] {
        if let Some(path) = path {
            check_writable(path, flag)?;
        }
    }
    cfg.engines
        .iter()
        .map(|e| e.limits().map_err(ArenaError::from))
        .collect()
}

/// The opening suite: `--openings` (checked by the rules unless the
/// engines referee), or the start position.
fn load_suite(cfg: &MatchConfig) -> Result<Vec<Opening>, ArenaError> {
    Ok(match &cfg.openings {
        Some(p) if cfg.referee == Referee::Engines => {
            openings::load_with(p, &Opening::parse_unchecked)?
        }
        Some(p) => openings::load(&cfg.game, p)?,
        None => vec![Opening::startpos()],
    })
}

/// The games this run plays (its shard of the schedule), with a note when
/// the count was rounded up and a warning when games would replay.
fn plan_games(
    cfg: &MatchConfig,
    opts: &RunOptions,
    openings: usize,
    out: &mut (dyn Write + Send),
) -> Vec<Scheduled> {
    let mut plan = schedule_tournament(
        cfg.tournament,
        cfg.engines.len(),
        cfg.games,
        openings,
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
    plan
}

/// The endgame tables of `--tb`, with what was found there.
fn open_tables(
    cfg: &MatchConfig,
    out: &mut (dyn Write + Send),
) -> Result<Option<TableSet>, ArenaError> {
    let Some(folder) = &cfg.tb else {
        return Ok(None);
    };
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
    Ok(Some(set))
}

/// The games a resumed match already recorded, each once; an error when
/// one is not part of this match's schedule.
fn recorded_games(
    cfg: &MatchConfig,
    plan: &[Scheduled],
    names: &[String],
) -> Result<Vec<GameRecord>, ArenaError> {
    let Some(path) = &cfg.jsonl else {
        return Err(ArenaError::Config(
            "--resume needs the --jsonl file of the match".into(),
        ));
    };
    let by_game: HashMap<u32, &Scheduled> = plan.iter().map(|g| (g.game, g)).collect();
    let mut done: Vec<GameRecord> = Vec::new();
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
    Ok(done)
}

/// The record files, opened for appending when resuming: a torn last line
/// or game is cut off, and games missing from the PGN file are written
/// again from the JSONL file.
fn open_sinks(
    cfg: &MatchConfig,
    opts: &RunOptions,
    done: &[GameRecord],
    out: &mut (dyn Write + Send),
) -> Result<Sinks, ArenaError> {
    let mut sinks = Sinks::open(cfg.pgn.as_deref(), cfg.jsonl.as_deref(), opts.resume)?;
    if let (Some(path), n @ 1..) = (&cfg.jsonl, sinks.torn_cut()) {
        let _ = writeln!(
            out,
            "Resuming: cut a torn last line ({n} bytes, a game that never finished) off {}",
            path.display()
        );
    }
    let (Some(path), true) = (&cfg.pgn, opts.resume) else {
        return Ok(sinks);
    };
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
    let mut missing: Vec<&GameRecord> = done.iter().filter(|r| !have.contains(&r.game)).collect();
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
    Ok(sinks)
}

/// The end of the match: the verdict, the tables or fastchess's block, the
/// summary (to `--json`) and the report (to `--report`).
fn conclude(
    cfg: &MatchConfig,
    opts: &RunOptions,
    names: &[String],
    mut shared: Shared,
    total: u32,
    bar: Option<&ProgressBar>,
) -> Result<Summary, ArenaError> {
    let interrupted = INTERRUPTED.load(Ordering::SeqCst);
    let records = &shared.records;
    let pairs = pair_stats(names, records);
    let sprt = cfg.sprt.as_ref();
    let mut reports = pair_reports(names, records, sprt);
    let tables = tournament_tables(names, records)?;
    let counts = counts_for(&names[0], &names[1], records);
    let all_played = records.len() as u32 >= total;
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
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let end = EndOfRun {
        interrupted,
        total,
        reports: &reports,
        tables: tables.as_ref(),
        sprt: sprt_summary.as_ref(),
    };
    print_end(cfg, opts, names, &mut shared, &end);
    let records = &shared.records;
    let summary = Summary {
        event: cfg.event.clone(),
        variant: cfg.game.clone(),
        engines: names.to_vec(),
        scheduled: total,
        finished: records.len() as u32,
        interrupted,
        games: summarize_games(records),
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
            records,
            Some(&match_info(cfg)),
            cfg.sprt,
            &reports,
            tables.as_ref(),
        )?;
    }
    let _ = shared.out.flush();
    Ok(summary)
}

/// What the end of the run prints.
struct EndOfRun<'a> {
    interrupted: bool,
    total: u32,
    reports: &'a [PairReport],
    tables: Option<&'a (Ratings, CrossTable)>,
    sprt: Option<&'a SprtSummary>,
}

/// The lines at the end of the run: interrupted, repeated games, and the
/// tables with the SPRT line (or fastchess's block).
fn print_end(
    cfg: &MatchConfig,
    opts: &RunOptions,
    names: &[String],
    shared: &mut Shared,
    end: &EndOfRun,
) {
    let records = &shared.records;
    let out = &mut shared.out;
    if end.interrupted {
        let _ = writeln!(
            out,
            "Interrupted: {} of {} games recorded",
            records.len(),
            end.total
        );
    }
    let repeated = repeated_games(records);
    if repeated > 0 {
        let _ = writeln!(
            out,
            "Warning: {repeated} of {} games repeat an earlier game move for move; the statistics count them as independent games{}",
            records.len(),
            if cfg.openings.is_none() { " (no --openings)" } else { " (too few openings?)" }
        );
    }
    if opts.fastchess {
        let block = fastchess_block(cfg, names, records);
        let _ = write!(out, "{}", fastchess::end_of_run(&block, cfg.sprt.as_ref()));
    } else {
        print_tables(&mut **out, end.reports, end.tables);
        if let Some(s) = end.sprt {
            let _ = writeln!(out, "{}", sprt_line(s));
        }
        for line in pair_sentences(end.reports) {
            let _ = writeln!(out, "{line}");
        }
    }
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
        let Ok(mut s) = ctx.shared.lock() else { break };
        if let Err(e) = s.keep(ctx, rec) {
            s.error.get_or_insert(e);
            ctx.abort.store(true, Ordering::SeqCst);
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
    s.say(ctx, &line);
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
