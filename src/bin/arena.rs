//! The match runner. With no arguments it plays `tournaments/default.json`.
//! Exit codes: without an SPRT 0 done, 1 compliance check failed; with
//! `--sprt` (a match or `arena merge`) 0 H1 accepted, 1 H0 accepted,
//! 2 inconclusive; `arena tune` 0 done; always 3 the run failed (bad flags or config, an engine
//! that cannot be started, i/o), 101 a panic (every engine killed first),
//! 130 stopped by Ctrl-C (every finished game is recorded).

#[path = "arena/args.rs"]
mod args;

use args::*;
use clap::{CommandFactory, FromArgMatches};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::Ordering;

use stackfish::arena::compliance;
use stackfish::arena::config::{
    parse_sprt, split_args, EngineSpec, MatchConfig, Proto, Referee, ScoreAdjudication, Timeouts,
    MAX_GAMES,
};
use stackfish::arena::fastchess;
use stackfish::arena::merge::{merge, MergeOptions};
use stackfish::arena::results::Summary;
use stackfish::arena::runner::{make_openings, run_match, RunOptions};
use stackfish::arena::schedule::{Shard, Tournament};
use stackfish::arena::shard;
use stackfish::arena::watch::{watch, WatchEnd, WatchOptions};
use stackfish::arena::ArenaError;
use stackfish::cli::{Failure, ARENA};
use stackfish::client::transport::{kill_all_engines, INTERRUPTED};
use stackfish::manual;

const EXIT_COMPLIANCE_FAILED: u8 = 1;
const EXIT_INTERRUPTED: u8 = 130;
/// A panic (a bug): the Rust runtime's own code for it.
const EXIT_PANIC: u8 = 101;
/// The engine binary of this package, built on demand for the demo.
const OWN_ENGINE: &str = "stackfish";

/// The engine's file name as cargo builds it (`stackfish.exe` on Windows).
fn own_engine_file() -> String {
    format!("{OWN_ENGINE}{}", std::env::consts::EXE_SUFFIX)
}

/// `arena tune`: the config from the flags, the run, its exit code.
/// `arena analyse`: the decisive mistakes of the records' games, per engine.
fn analyse(a: AnalyseArgs) -> Result<u8, ArenaError> {
    use stackfish::arena::analyse::{
        analyse_file, default_engine, format_findings, AnalyseConfig, Analysis,
    };
    let engine = match &a.engine {
        Some(tokens) => {
            let mut spec = engine_from_tokens(&[], tokens)?;
            if spec.name.is_empty() {
                spec.name = spec.cmd.clone();
            }
            spec
        }
        None => default_engine(),
    };
    engine.validate()?;
    let mut timeouts = Timeouts::default();
    if let Some(ms) = a.max_move_time {
        timeouts.max_move_ms = ms;
    }
    let cfg = AnalyseConfig { engine, timeouts };
    let go = cfg.go_line()?;
    let mut analysis = Analysis::default();
    // On stderr, drawn only on a terminal: stdout is the listing.
    let bar = indicatif::ProgressBar::new(0);
    if let Ok(style) =
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} positions {msg} [{elapsed}]")
    {
        bar.set_style(style);
    }
    for path in &a.records {
        let file = std::fs::File::open(path)
            .map_err(|e| ArenaError::Io(format!("cannot read {}: {e}", path.display())))?;
        let name = path.display().to_string();
        analyse_file(
            &name,
            std::io::BufReader::new(file),
            &cfg,
            &stackfish::client::engine::spawn_process,
            &mut analysis,
            &mut |file, game, done, total| {
                bar.set_message(format!("{file} game {game}"));
                bar.set_length(total as u64);
                bar.set_position(done as u64);
            },
        )?;
    }
    bar.finish_and_clear();
    if analysis.findings.is_empty() {
        return Err(ArenaError::Config(format!(
            "no game reviewed in {} ({} skipped)",
            a.records
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
            analysis.skipped.len()
        )));
    }
    println!(
        "arena analyse: {} games reviewed by {} ({go} a position)",
        analysis.findings.len(),
        cfg.engine.name
    );
    print!("{}", format_findings(&analysis));
    Ok(0)
}

fn tune(t: TuneArgs) -> Result<u8, ArenaError> {
    use stackfish::arena::tune::{
        check_engine, params_from_options, parse_params, run_tune, Rounding, Schedule, TuneConfig,
    };
    let mut engine = EngineSpec {
        name: "tuned".into(),
        ..EngineSpec::default()
    };
    engine.apply_tokens(&t.engine)?;
    let mut timeouts = Timeouts::default();
    if let Some(v) = t.startup_timeout {
        timeouts.startup_ms = v;
    }
    if let Some(v) = t.max_move_time {
        timeouts.max_move_ms = v;
    }
    let exponents_ok = [t.a_share, t.alpha, t.gamma]
        .iter()
        .all(|v| v.is_finite() && *v >= 0.0);
    if !exponents_ok {
        return Err(ArenaError::Config(
            "--a-share, --alpha and --gamma must be numbers >= 0".into(),
        ));
    }
    let mut schedule = Schedule::new(t.iterations);
    schedule.alpha = t.alpha;
    schedule.gamma = t.gamma;
    schedule.big_a = t.a_share * t.iterations as f64;
    let mut cfg = TuneConfig {
        engine,
        game: t.game,
        params: Vec::new(),
        schedule,
        rounding: match t.rounding {
            RoundingArg::Random => Rounding::Random,
            RoundingArg::Nearest => Rounding::Nearest,
        },
        pairs: t.pairs,
        seed: t.seed,
        concurrency: t.concurrency,
        openings: t.openings,
        max_plies: t.maxplies,
        timeouts,
        trace: t.trace,
        resume: t.resume,
        report_every: t.report_every,
    };
    cfg.engine.validate()?;
    cfg.params = match (&t.params, &t.params_prefix) {
        (Some(file), _) => {
            let text = std::fs::read_to_string(file)
                .map_err(|e| ArenaError::Io(format!("cannot read {}: {e}", file.display())))?;
            parse_params(&text)?
        }
        (None, Some(prefix)) => {
            let lines = check_engine(&cfg, &stackfish::client::engine::spawn_process)?;
            let steps =
                |name: &str| stackfish::search::params::find(name).map(|(_, p)| (p.c_end, p.r_end));
            let params = params_from_options(&lines, prefix, &steps);
            if params.is_empty() {
                return Err(ArenaError::Config(format!(
                    "the engine has no spin option starting with '{prefix}' (a stackfish tuning build: cargo build --release --features tune)"
                )));
            }
            params
        }
        (None, None) => {
            return Err(ArenaError::Config(
                "--params or --params-prefix is needed".into(),
            ))
        }
    };
    let outcome = run_tune(
        &cfg,
        &mut std::io::stdout(),
        &stackfish::client::engine::spawn_process,
    )?;
    Ok(if outcome.interrupted {
        EXIT_INTERRUPTED
    } else {
        0
    })
}

/// A number of seconds from the flag `--{flag}` (only --settle may be 0).
fn seconds(flag: &str, v: f64) -> Result<std::time::Duration, ArenaError> {
    std::time::Duration::try_from_secs_f64(v)
        .ok()
        .filter(|d| !d.is_zero() || flag == "settle")
        .ok_or_else(|| {
            ArenaError::Config(format!(
                "--{flag} {v}: expected a positive number of seconds"
            ))
        })
}

fn adjudication(tokens: &[String], what: &str) -> Result<ScoreAdjudication, ArenaError> {
    let mut a = ScoreAdjudication {
        moves: 0,
        score: 0,
        movenumber: 0,
        twosided: true,
    };
    for t in tokens {
        let bad = || {
            let more = if what == "resign" {
                "[twosided=true|false]"
            } else {
                "[movenumber=M]"
            };
            ArenaError::Config(format!("--{what} {t}: expected moves=K score=CP {more}"))
        };
        let (k, v) = t.split_once('=').ok_or_else(bad)?;
        match k {
            "moves" => a.moves = v.parse().map_err(|_| bad())?,
            "score" => a.score = v.parse().map_err(|_| bad())?,
            "movenumber" if what == "draw" => a.movenumber = v.parse().map_err(|_| bad())?,
            "twosided" if what == "resign" => a.twosided = v.parse().map_err(|_| bad())?,
            _ => return Err(bad()),
        }
    }
    if a.moves == 0 {
        return Err(ArenaError::Config(format!(
            "--{what}: moves=K with K >= 1 is required"
        )));
    }
    Ok(a)
}

fn engine_from_tokens(each: &[String], tokens: &[String]) -> Result<EngineSpec, ArenaError> {
    let mut spec = EngineSpec::default();
    spec.apply_tokens(each)?;
    spec.apply_tokens(tokens)?;
    Ok(spec)
}

/// The demo config, found as every data file is (`stackfish::data`).
fn default_config() -> PathBuf {
    stackfish::data::file("tournaments/default.json")
}

/// Flags that are not part of the shared config file.
struct RunFlags {
    resume: bool,
    shard: Option<Shard>,
}

fn build_config(a: RunArgs) -> Result<(MatchConfig, RunFlags), ArenaError> {
    let config_path = match (&a.config, a.engine_groups.is_empty()) {
        (Some(p), _) => Some(p.clone()),
        (None, true) => Some(default_config()),
        (None, false) => None,
    };
    let mut cfg = match &config_path {
        Some(p) => MatchConfig::from_file(p)?,
        None => MatchConfig::default(),
    };
    if !a.engine_groups.is_empty() {
        cfg.engines = a
            .engine_groups
            .iter()
            .map(|t| engine_from_tokens(&a.each, t))
            .collect::<Result<_, _>>()?;
    } else if !a.each.is_empty() {
        for e in &mut cfg.engines {
            e.apply_tokens(&a.each)?;
        }
    }
    macro_rules! set {
        ($field:ident) => {
            if let Some(v) = a.$field {
                cfg.$field = v;
            }
        };
        (opt $field:ident) => {
            if let Some(v) = a.$field {
                cfg.$field = Some(v);
            }
        };
    }
    set!(games);
    set!(game);
    set!(concurrency);
    set!(maxplies);
    set!(event);
    set!(ratinginterval);
    set!(opt openings);
    set!(opt seed);
    set!(opt log);
    set!(opt pgn);
    set!(opt jsonl);
    set!(opt json);
    set!(opt report);
    set!(opt tb);
    if a.allow_bad_options {
        cfg.allow_bad_options = true;
    }
    if let Some(t) = &a.tournament {
        cfg.tournament = t.parse::<Tournament>()?;
    }
    if let Some(t) = &a.sprt {
        cfg.sprt = Some(parse_sprt(t)?);
    }
    // A shard is per process (per machine), so it is a flag only, never in
    // the config file all shards share.
    let shard = a.shard.as_deref().map(shard::resolve_env).transpose()?;
    if let Some(r) = a.referee {
        cfg.referee = match r {
            RefereeArg::Rules => Referee::Rules,
            RefereeArg::Engines => Referee::Engines,
        };
    }
    if let Some(t) = &a.resign {
        cfg.resign = Some(adjudication(t, "resign")?);
    }
    if let Some(t) = &a.draw {
        cfg.draw = Some(adjudication(t, "draw")?);
    }
    let t: &mut Timeouts = &mut cfg.timeouts;
    if let Some(v) = a.startup_timeout {
        t.startup_ms = v;
    }
    if let Some(v) = a.ping_timeout {
        t.ping_ms = v;
    }
    if let Some(v) = a.max_move_time {
        t.max_move_ms = v;
    }
    Ok((
        cfg,
        RunFlags {
            resume: a.resume,
            shard,
        },
    ))
}

/// 130 after Ctrl-C; with an SPRT its verdict's code; else 0.
fn exit_code(summary: &Summary) -> u8 {
    if summary.interrupted {
        return EXIT_INTERRUPTED;
    }
    summary.verdict.map_or(0, |v| v.exit_code())
}

/// Ctrl-C (SIGINT) and SIGTERM set `INTERRUPTED`, which every wait of the
/// match polls: running games stop unrecorded, the finished ones are on
/// disk already, and the tables, summary and report are still written. A
/// second signal kills every engine and exits at once with 130. (SIGPIPE
/// needs nothing: the Rust runtime ignores it, so a dead engine shows up as
/// a write error.)
fn install_signal_handlers() -> std::io::Result<()> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    for signal in [SIGINT, SIGTERM] {
        // Safety: the action only swaps an atomic flag, kills process
        // groups (`kill_all_engines`: atomics and kill(2)) and calls
        // _exit(2), all async-signal-safe.
        unsafe {
            signal_hook::low_level::register(signal, || {
                if INTERRUPTED.swap(true, Ordering::SeqCst) {
                    kill_all_engines();
                    signal_hook::low_level::exit(EXIT_INTERRUPTED.into());
                }
            })?;
        }
    }
    Ok(())
}

/// A panic is a bug of the arena: after the usual message it kills every
/// engine and exits at once with 101, rather than let the other games go
/// on against engines that the unwinding may be killing (their forfeits
/// would be recorded). Finished games are on disk already.
fn install_panic_hook() {
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        report(info);
        kill_all_engines();
        std::process::exit(EXIT_PANIC.into());
    }));
}

/// `cargo run --bin arena` builds only the arena. When it was started that
/// way (cargo sets `CARGO`) and a config names our own engine `stackfish`
/// that is not next to the arena yet, build it with the same cargo and
/// profile first, so the demo works as the first command of a fresh clone.
fn build_missing_engines(cfg: &MatchConfig) {
    let Ok(cargo) = std::env::var("CARGO") else {
        return;
    };
    let Ok(exe) = std::env::current_exe() else {
        return;
    };
    let Some(dir) = exe.parent() else { return };
    let missing = cfg
        .engines
        .iter()
        .any(|e| e.cmd == OWN_ENGINE && !dir.join(own_engine_file()).is_file());
    if !missing {
        return;
    }
    let manifest = stackfish::data::source_tree().join("Cargo.toml");
    let mut cmd = std::process::Command::new(cargo);
    cmd.args(["build", "--bin", OWN_ENGINE, "--manifest-path"])
        .arg(&manifest);
    // What `cargo run` told the arena about itself is not the user's
    // environment: a build script that tracks one of these variables (ring's
    // does) would see a change, so the nested build, and then the user's
    // next `cargo run`, would rebuild crates already built.
    for (name, _) in std::env::vars_os() {
        if name.to_str().is_some_and(set_by_cargo_run) {
            cmd.env_remove(&name);
        }
    }
    if dir.file_name().is_some_and(|n| n == "release") {
        cmd.arg("--release");
    }
    eprintln!("arena: {OWN_ENGINE} is not built next to the arena yet; building it");
    if let Err(e) = cmd.status() {
        eprintln!("arena: cannot run cargo: {e}");
    }
}

/// Whether `cargo run` sets this variable for the program it runs (the
/// package's own facts), as opposed to one the user set (CARGO_HOME,
/// CARGO_TARGET_DIR, CARGO_PROFILE_*, ...), which the nested build keeps.
fn set_by_cargo_run(name: &str) -> bool {
    name.starts_with("CARGO_PKG_")
        || name.starts_with("CARGO_MANIFEST_")
        || matches!(
            name,
            "CARGO_CRATE_NAME"
                | "CARGO_BIN_NAME"
                | "CARGO_PRIMARY_PACKAGE"
                | "CARGO_TARGET_TMPDIR"
                | "CARGO_RUSTC_CURRENT_DIR"
        )
}

/// The command line with each run flag's default in its help (`[default:
/// 2]`). The run flags are options, not clap defaults, because a flag
/// overrides the --config file only when given; the defaults shown are the
/// ones a match without a config file uses, read from the code that applies
/// them.
fn command() -> clap::Command {
    let cfg = MatchConfig::default();
    let t = cfg.timeouts;
    let defaults: [(&str, String); 11] = [
        ("games", cfg.games.to_string()),
        ("game", cfg.game.clone()),
        ("concurrency", cfg.concurrency.to_string()),
        ("maxplies", cfg.maxplies.to_string()),
        ("event", cfg.event.clone()),
        ("ratinginterval", cfg.ratinginterval.to_string()),
        ("startup_timeout", t.startup_ms.to_string()),
        ("ping_timeout", t.ping_ms.to_string()),
        ("max_move_time", t.max_move_ms.to_string()),
        ("tournament", format!("{:?}", cfg.tournament).to_lowercase()),
        ("referee", format!("{:?}", cfg.referee).to_lowercase()),
    ];
    let mut cmd = Cli::command().mut_arg("games", |a| {
        let help = a.get_help().map(|h| h.to_string()).unwrap_or_default();
        a.help(format!("{help}; at most {MAX_GAMES}"))
    });
    for (id, value) in defaults {
        cmd = cmd.mut_arg(id, |a| {
            let help = a.get_help().map(|h| h.to_string()).unwrap_or_default();
            a.help(format!("{help} [default: {value}]"))
        });
    }
    cmd
}

fn run(cli: Cli, fastchess_output: bool) -> Result<u8, ArenaError> {
    match cli.command {
        Some(Command::Openings(o)) => openings(o),
        Some(Command::Compliance(c)) => compliance_check(c),
        Some(Command::Merge(m)) => merge_records(m),
        Some(Command::Watch(w)) => watch_shards(w),
        Some(Command::Analyse(a)) => analyse(a),
        Some(Command::Tune(t)) => tune(t),
        Some(Command::Completions { shell }) => {
            manual::write_completions(command(), shell, &mut std::io::stdout());
            Ok(0)
        }
        Some(Command::Man { dir }) => {
            manual::write_man_pages_with(command(), &dir, EXIT_STATUS, EXAMPLES).map_err(|e| {
                ArenaError::Io(format!("cannot write man pages to {}: {e}", dir.display()))
            })?;
            Ok(0)
        }
        None => play_match(cli.run, fastchess_output),
    }
}

/// `arena openings`: a suite of random openings, to a file or stdout.
fn openings(o: OpeningsArgs) -> Result<u8, ArenaError> {
    let spec = match &o.engine {
        Some(tokens) if o.balanced => Some(engine_from_tokens(&[], tokens)?),
        _ => None,
    };
    let start = o
        .board
        .as_deref()
        .map(|b| stackfish::stackandconquer::board_start(b, o.goal))
        .transpose()
        .map_err(|e| ArenaError::Config(e.to_string()))?;
    let suite = make_openings(
        &o.game,
        start.as_deref(),
        o.plies,
        o.count,
        o.seed,
        spec.as_ref().map(|s| (s, o.maxcp)),
        Timeouts::default(),
    )?;
    let mut text = format!(
        "# {} random openings of {} plies for {}{}, seed {}{}\n",
        suite.len(),
        o.plies,
        o.game,
        match &o.board {
            Some(b) => format!(" on board {b}"),
            None => String::new(),
        },
        o.seed,
        match &o.engine {
            Some(tokens) if o.balanced => format!(
                ", balanced: |score| <= {} cp by engine {}",
                o.maxcp,
                tokens.join(" ")
            ),
            _ => String::new(),
        }
    );
    for op in &suite {
        text.push_str(&op.to_line());
        text.push('\n');
    }
    match &o.out {
        Some(p) => std::fs::write(p, text)
            .map_err(|e| ArenaError::Io(format!("cannot write {}: {e}", p.display())))?,
        None => print!("{text}"),
    }
    if suite.len() < o.count {
        eprintln!(
            "only {} distinct openings found (asked for {})",
            suite.len(),
            o.count
        );
    }
    Ok(0)
}

/// `arena compliance`: the protocol check of one engine.
fn compliance_check(c: ComplianceArgs) -> Result<u8, ArenaError> {
    let proto = match c.proto {
        ProtoArg::Ugi => Proto::Ugi,
        ProtoArg::Uci => Proto::Uci,
    };
    let (cmd, args) = match c.cmd.split_first() {
        // One argument with spaces is a command line (`arena
        // compliance "engine --flag"`), unless it names a file: a
        // path with spaces in it.
        Some((cmd, args)) if args.is_empty() && cmd.contains(' ') && !Path::new(cmd).exists() => {
            let mut words = split_args(cmd)?;
            if words.is_empty() {
                return Err(ArenaError::Config("empty engine command".into()));
            }
            let first = words.remove(0);
            (first, words)
        }
        Some((cmd, args)) => (cmd.clone(), args.to_vec()),
        None => return Err(ArenaError::Config("no engine command".into())),
    };
    let passed = compliance::run(&cmd, &args, proto, &c.game, &mut std::io::stdout())?;
    Ok(if passed { 0 } else { EXIT_COMPLIANCE_FAILED })
}

/// `arena merge`: the statistics of record files, together.
fn merge_records(m: MergeArgs) -> Result<u8, ArenaError> {
    let opts = MergeOptions {
        sprt: m.sprt.as_deref().map(parse_sprt).transpose()?,
        json: m.json,
        report: m.report,
        engines: m.engines,
        keep_collisions: m.keep_collisions,
    };
    let summary = merge(&m.records, &opts, &mut std::io::stdout())?;
    Ok(exit_code(&summary))
}

/// `arena watch`: the SPRT of a sharded match, from its records.
fn watch_shards(w: WatchArgs) -> Result<u8, ArenaError> {
    let mut opts = WatchOptions::new(parse_sprt(&w.sprt)?);
    opts.engines = w.engines;
    opts.games = w.games;
    opts.stop = w.stop;
    opts.running = w.running;
    if let Some(job) = &w.job {
        opts.slurm_job(job);
    }
    opts.interval = seconds("interval", w.interval)?;
    opts.settle = seconds("settle", w.settle)?;
    opts.timeout = w.timeout.map(|t| seconds("timeout", t)).transpose()?;
    opts.json = w.json;
    opts.report = w.report;
    let watched = watch(&w.folder, &opts, &mut std::io::stdout())?;
    if watched.end == WatchEnd::Interrupted {
        return Ok(EXIT_INTERRUPTED);
    }
    Ok(exit_code(&watched.summary))
}

/// A match (no subcommand).
fn play_match(run: RunArgs, fastchess_output: bool) -> Result<u8, ArenaError> {
    let (cfg, flags) = build_config(run)?;
    build_missing_engines(&cfg);
    let tty = std::io::stdout().is_terminal();
    let opts = RunOptions {
        resume: flags.resume,
        // fastchess's output is read by programs: no bar.
        tty: tty && !fastchess_output,
        shard: flags.shard,
        fastchess: fastchess_output,
    };
    let summary = run_match(&cfg, &opts, &mut std::io::stdout())?;
    Ok(exit_code(&summary))
}

fn main() -> ExitCode {
    if let Some(refused) = stackfish::cli::unsupported_cpu("arena") {
        return refused;
    }
    start()
}

/// Everything after the CPU check, out of line so that none of it is
/// scheduled before the check.
#[inline(never)]
fn start() -> ExitCode {
    install_panic_hook();
    if let Err(e) = install_signal_handlers() {
        eprintln!("arena: cannot handle Ctrl-C ({e}); a Ctrl-C will end the arena at once, finished games stay recorded");
    }
    // A fastchess command line (`-engine cmd=... -rounds 100 ...`) is
    // mapped onto ours first (docs/arena.md has the table).
    let mut argv: Vec<String> = std::env::args().collect();
    let mut fastchess_output = false;
    if fastchess::is_fastchess(&argv[1.min(argv.len())..]) {
        match fastchess::translate(&argv[1..]) {
            Ok(t) if t.version => {
                println!(
                    "arena {} (fastchess command line)",
                    env!("CARGO_PKG_VERSION")
                );
                return ExitCode::SUCCESS;
            }
            Ok(t) => {
                fastchess_output = t.fastchess_output;
                argv.truncate(1);
                argv.extend(t.args);
            }
            Err(e) => return ARENA.exit(Err(Failure::from(e))),
        }
    }
    let parsed = command().try_get_matches_from(argv).and_then(|m| {
        let mut cli = Cli::from_arg_matches(&m)?;
        if let Ok(Some(groups)) = m.try_get_occurrences::<String>("engine") {
            cli.run.engine_groups = groups.map(|g| g.cloned().collect()).collect();
        }
        Ok(cli)
    });
    let cli = match parsed {
        Ok(c) => c,
        Err(e) => return ARENA.usage(e),
    };
    ARENA.exit(run(cli, fastchess_output).map_err(Failure::from))
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_argument_has_help() {
        let missing = stackfish::manual::args_without_help(&super::command());
        assert!(missing.is_empty(), "no help text: {missing:?}");
    }
}
