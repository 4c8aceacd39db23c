//! `arena tune`: SPSA (Spall's simultaneous perturbation stochastic
//! approximation) of an engine's spin options through game pairs, in the
//! form Fishtest and fastchess users run it.
//!
//! Iteration k (from 1) perturbs every parameter by `±c_k` at once (one
//! Bernoulli sign each), plays `pairs` game pairs of theta+ against theta-
//! (one opening each, colours swapped), and moves theta by
//! `a_k / c_k * result * sign`, where `result` is theta+'s wins minus
//! losses. `c_k = c / k^gamma` and `a_k = a / (A + k)^alpha` with c and a
//! chosen so that at the last iteration N `c_N = c_end` and
//! `a_N = r_end * c_end^2` (Fishtest's parameter lines). Workers run
//! iterations asynchronously, as Fishtest's workers do: each takes the
//! current theta, plays, and applies its update to the theta of that
//! moment.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};

use super::config::{EngineSpec, Limits, Referee, Timeouts};
use super::openings::{self, Opening};
use super::referee::GameSetup;
use super::seats::Seats;
use super::ArenaError;
use stackfish_client::engine::{Engine, Logger, Spawner, StartError};
use stackfish_client::transport::INTERRUPTED;
use stackfish_games::GameResult;

/// Spall's recommended decay of the perturbation.
pub const DEFAULT_GAMMA: f64 = 0.101;
/// Spall's recommended decay of the learning rate.
pub const DEFAULT_ALPHA: f64 = 0.602;
/// The stability constant A as a share of the iterations (Fishtest's default).
pub const DEFAULT_A_SHARE: f64 = 0.1;
/// With parameters from an engine's option list: the perturbation at the
/// end as a share of the range, and the learning rate (Fishtest's usual).
pub const DEFAULT_C_END_SHARE: f64 = 0.05;
pub const DEFAULT_R_END: f64 = 0.002;

/// One parameter under tuning.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TuneParam {
    pub name: String,
    /// Where theta starts.
    pub start: f64,
    pub min: f64,
    pub max: f64,
    pub c_end: f64,
    pub r_end: f64,
}

/// How the perturbed values, which are fractions, become the integers a
/// spin option takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Rounding {
    /// Down or up at random, in proportion to the fraction: unbiased, so a
    /// perturbation smaller than 1 still moves the engine on average.
    Random,
    /// To the nearest integer.
    Nearest,
}

/// The schedule's constants.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Schedule {
    /// N, the planned iterations: `c_end`/`r_end` hold at iteration N.
    pub iterations: u64,
    pub alpha: f64,
    pub gamma: f64,
    /// The stability constant A.
    pub big_a: f64,
}

impl Schedule {
    /// Fishtest's defaults for `iterations` iterations.
    pub fn new(iterations: u64) -> Schedule {
        Schedule {
            iterations,
            alpha: DEFAULT_ALPHA,
            gamma: DEFAULT_GAMMA,
            big_a: DEFAULT_A_SHARE * iterations as f64,
        }
    }

    /// `c_k` of `p` at iteration `k` (from 1).
    pub fn c_k(&self, p: &TuneParam, k: u64) -> f64 {
        let n = self.iterations.max(1) as f64;
        let c = p.c_end * n.powf(self.gamma);
        c / (k.max(1) as f64).powf(self.gamma)
    }

    /// `a_k` of `p` at iteration `k` (from 1).
    pub fn a_k(&self, p: &TuneParam, k: u64) -> f64 {
        let n = self.iterations.max(1) as f64;
        let a_end = p.r_end * p.c_end * p.c_end;
        let a = a_end * (self.big_a + n).powf(self.alpha);
        a / (self.big_a + k.max(1) as f64).powf(self.alpha)
    }
}

/// The two engines' values of one iteration.
#[derive(Clone, Debug, PartialEq)]
pub struct Perturbation {
    pub k: u64,
    /// +1 or -1 per parameter.
    pub signs: Vec<i8>,
    pub plus: Vec<i64>,
    pub minus: Vec<i64>,
}

/// The tuner's state: the parameters and where theta is.
#[derive(Clone, Debug)]
pub struct Spsa {
    pub params: Vec<TuneParam>,
    pub theta: Vec<f64>,
    pub schedule: Schedule,
    pub rounding: Rounding,
    pub seed: u64,
}

/// A value rounded into an integer within `min..=max`.
fn to_integer(x: f64, p: &TuneParam, rounding: Rounding, rng: &mut StdRng) -> i64 {
    let x = x.clamp(p.min, p.max);
    let r = match rounding {
        Rounding::Nearest => x.round(),
        Rounding::Random => {
            let floor = x.floor();
            if rng.gen::<f64>() < x - floor {
                floor + 1.0
            } else {
                floor
            }
        }
    };
    // min and max are integers of a spin option, so this stays inside.
    r.clamp(p.min.ceil(), p.max.floor()) as i64
}

impl Spsa {
    pub fn new(params: Vec<TuneParam>, schedule: Schedule, rounding: Rounding, seed: u64) -> Spsa {
        let theta = params.iter().map(|p| p.start.clamp(p.min, p.max)).collect();
        Spsa {
            params,
            theta,
            schedule,
            rounding,
            seed,
        }
    }

    /// The random numbers of iteration `k`: the same for the same seed,
    /// whatever ran before (so a resumed run draws what it would have).
    fn rng(&self, k: u64) -> StdRng {
        StdRng::seed_from_u64(self.seed ^ k.wrapping_mul(0x9E37_79B9_7F4A_7C15))
    }

    /// theta ± c_k, a random sign per parameter, as integers in range.
    pub fn perturb(&self, k: u64) -> Perturbation {
        let mut rng = self.rng(k);
        let signs: Vec<i8> = self
            .params
            .iter()
            .map(|_| if rng.gen::<bool>() { 1 } else { -1 })
            .collect();
        let mut plus = Vec::with_capacity(self.params.len());
        let mut minus = Vec::with_capacity(self.params.len());
        for (i, p) in self.params.iter().enumerate() {
            let d = self.schedule.c_k(p, k) * f64::from(signs[i]);
            plus.push(to_integer(self.theta[i] + d, p, self.rounding, &mut rng));
            minus.push(to_integer(self.theta[i] - d, p, self.rounding, &mut rng));
        }
        Perturbation {
            k,
            signs,
            plus,
            minus,
        }
    }

    /// Moves theta by iteration `pert.k`'s result: theta+'s wins minus
    /// losses (a draw is 0), clipped to the ranges.
    pub fn update(&mut self, pert: &Perturbation, result: f64) {
        for (i, p) in self.params.iter().enumerate() {
            let step = self.schedule.a_k(p, pert.k) / self.schedule.c_k(p, pert.k)
                * result
                * f64::from(pert.signs[i]);
            self.theta[i] = (self.theta[i] + step).clamp(p.min, p.max);
        }
    }

    /// theta rounded to the nearest integers: the values to keep.
    pub fn rounded(&self) -> Vec<i64> {
        let mut rng = self.rng(0);
        self.params
            .iter()
            .zip(&self.theta)
            .map(|(p, &t)| to_integer(t, p, Rounding::Nearest, &mut rng))
            .collect()
    }
}

/// `option name X type spin default D min M max N`: (X, D, M, N).
pub fn parse_spin(line: &str) -> Option<(String, i64, i64, i64)> {
    let rest = line.trim().strip_prefix("option")?.trim_start();
    let rest = rest.strip_prefix("name")?;
    let (name, spec) = rest.split_once(" type ")?;
    let mut t = spec.split_whitespace();
    if t.next()? != "spin" {
        return None;
    }
    let (mut default, mut min, mut max) = (None, None, None);
    while let Some(key) = t.next() {
        let v = t.next()?.parse::<i64>().ok()?;
        match key {
            "default" => default = Some(v),
            "min" => min = Some(v),
            "max" => max = Some(v),
            _ => return None,
        }
    }
    Some((name.trim().to_string(), default?, min?, max?))
}

/// The parameters from the spin options whose names start with `prefix`,
/// starting at their defaults; steps from `steps` (name -> c_end, r_end)
/// where it knows the name, else `DEFAULT_C_END_SHARE` of the range and
/// `DEFAULT_R_END`.
pub fn params_from_options(
    option_lines: &[String],
    prefix: &str,
    steps: &dyn Fn(&str) -> Option<(f64, f64)>,
) -> Vec<TuneParam> {
    option_lines
        .iter()
        .filter_map(|l| parse_spin(l))
        .filter(|(name, ..)| name.starts_with(prefix))
        .map(|(name, default, min, max)| {
            let (c_end, r_end) = steps(&name).unwrap_or((
                ((max - min) as f64 * DEFAULT_C_END_SHARE).max(0.5),
                DEFAULT_R_END,
            ));
            TuneParam {
                name,
                start: default as f64,
                min: min as f64,
                max: max as f64,
                c_end,
                r_end,
            }
        })
        .collect()
}

/// A parameter file: one `name,value,min,max,c_end,r_end` line per
/// parameter (Fishtest's format), `#` comments and blank lines skipped.
pub fn parse_params(text: &str) -> Result<Vec<TuneParam>, ArenaError> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let bad =
            |why: &str| ArenaError::Config(format!("parameter line {}: {why}: {line}", i + 1));
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        let [name, value, min, max, c_end, r_end] = fields[..] else {
            return Err(bad("expected name,value,min,max,c_end,r_end"));
        };
        let num = |s: &str| {
            s.parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| bad(&format!("'{s}' is not a number")))
        };
        let p = TuneParam {
            name: name.to_string(),
            start: num(value)?,
            min: num(min)?,
            max: num(max)?,
            c_end: num(c_end)?,
            r_end: num(r_end)?,
        };
        if name.is_empty() {
            return Err(bad("no name"));
        }
        if !(p.min <= p.start && p.start <= p.max) {
            return Err(bad("value outside min..max"));
        }
        if p.c_end <= 0.0 || p.r_end <= 0.0 {
            return Err(bad("c_end and r_end must be positive"));
        }
        out.push(p);
    }
    Ok(out)
}

/// The first line of a trace file: what was tuned and how.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TraceHeader {
    pub spsa: Vec<TuneParam>,
    pub schedule: Schedule,
    pub pairs: u32,
    pub seed: u64,
    pub rounding: Rounding,
}

/// One line per finished iteration, in the order they finished.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TraceLine {
    pub k: u64,
    /// theta+'s wins minus losses over the iteration's games.
    pub result: f64,
    pub plus: Vec<i64>,
    pub minus: Vec<i64>,
    /// theta after this update, in the header's parameter order.
    pub theta: Vec<f64>,
}

/// Everything `run_tune` needs.
pub struct TuneConfig {
    /// The engine as a match's `--engine` gives it: cmd, args, limits,
    /// fixed options.
    pub engine: EngineSpec,
    pub game: String,
    pub params: Vec<TuneParam>,
    pub schedule: Schedule,
    pub rounding: Rounding,
    /// Game pairs per iteration.
    pub pairs: u32,
    pub seed: u64,
    pub concurrency: u32,
    pub openings: Option<PathBuf>,
    pub max_plies: u32,
    pub timeouts: Timeouts,
    /// The JSONL trace: written as iterations finish; read by `resume`.
    pub trace: PathBuf,
    pub resume: bool,
    /// Print a progress line every this many iterations (0: only the end).
    pub report_every: u64,
}

/// How a tuning run ended.
#[derive(Clone, Debug)]
pub struct TuneOutcome {
    pub params: Vec<TuneParam>,
    pub theta: Vec<f64>,
    pub rounded: Vec<i64>,
    /// Iterations in the trace at the end (resumed ones included).
    pub iterations_done: u64,
    pub interrupted: bool,
}

/// The state of a trace file: its header, its last line (if any) and the
/// iterations it holds (in the order they finished, which with several
/// workers is not quite their order). A last line cut short (the run was killed
/// while writing it) is left out: that iteration is played again.
fn read_trace(path: &Path) -> Result<(TraceHeader, Option<TraceLine>, Vec<u64>), ArenaError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| ArenaError::Io(format!("cannot read {}: {e}", path.display())))?;
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let first = lines
        .first()
        .ok_or_else(|| ArenaError::Config(format!("{}: empty trace", path.display())))?;
    let header: TraceHeader = serde_json::from_str(first).map_err(|e| {
        ArenaError::Config(format!(
            "{}: line 1 is not a trace header: {e}",
            path.display()
        ))
    })?;
    let mut last: Option<TraceLine> = None;
    let mut done = Vec::new();
    for (i, line) in lines.iter().enumerate().skip(1) {
        match serde_json::from_str::<TraceLine>(line) {
            Ok(t) if t.theta.len() == header.spsa.len() => {
                done.push(t.k);
                last = Some(t);
            }
            Err(_) if i + 1 == lines.len() && !text.ends_with('\n') => {}
            _ => {
                return Err(ArenaError::Config(format!(
                    "{}: line {} is not a trace line of this header",
                    path.display(),
                    i + 1
                )))
            }
        }
    }
    Ok((header, last, done))
}

/// Checks that the engine takes every parameter (at its start value) and
/// its fixed options; returns its option lines.
pub fn check_engine(cfg: &TuneConfig, spawn: Spawner) -> Result<Vec<String>, ArenaError> {
    let mut spec = cfg.engine.clone();
    for p in &cfg.params {
        spec.options
            .insert(p.name.clone(), format!("{}", p.start.round() as i64));
    }
    let engine = match Engine::start(&spec, &cfg.game, cfg.timeouts, Logger::default(), 0, spawn) {
        Ok(e) => e,
        Err(StartError::Spawn(e)) => return Err(e.into()),
        Err(StartError::Fault(f)) => {
            return Err(ArenaError::Spawn(format!("{}: {}", spec.name, f.text)))
        }
    };
    let lines = engine.options.iter().map(|o| o.line.clone()).collect();
    let refused = engine.refused.clone();
    engine.quit();
    if let Some(r) = refused.first() {
        return Err(ArenaError::Config(r.to_string()));
    }
    Ok(lines)
}

/// theta+'s score of one finished game: 1, 0 or -1; `None` when the game
/// was not finished (interrupted, voided).
fn score(record: &stackfish_record::GameRecord, plus_first: bool) -> Option<f64> {
    let p1 = match record.game_result()? {
        GameResult::P1Win => 1.0,
        GameResult::P2Win => -1.0,
        GameResult::Draw => 0.0,
    };
    Some(if plus_first { p1 } else { -p1 })
}

/// Plays iteration `pert`'s games on `seats` (seat 0 plays theta+, seat 1
/// theta-); theta+'s wins minus losses, or `None` when interrupted. An
/// engine that fails its handshake forfeits the game, as in a match.
fn play_iteration(
    cfg: &TuneConfig,
    limits: Limits,
    suite: &[Opening],
    order: &[usize],
    pert: &Perturbation,
    seats: &mut Seats,
) -> Result<Option<f64>, ArenaError> {
    let names = ["plus", "minus"];
    let values = [&pert.plus, &pert.minus];
    // Each game sets the seat's values of this iteration.
    let mut set_values = |seat: usize, e: &mut Engine| {
        for (p, v) in cfg.params.iter().zip(values[seat]) {
            if e.send(&format!("setoption name {} value {v}", p.name))
                .is_err()
            {
                // Found dead: the game forfeits and restarts it.
                break;
            }
        }
    };
    let mut total = 0.0;
    for j in 0..cfg.pairs {
        let n = (pert.k - 1) * u64::from(cfg.pairs) + u64::from(j);
        let opening_index = order[(n % order.len() as u64) as usize];
        let opening = &suite[opening_index];
        for plus_first in [true, false] {
            let game_no = u32::try_from(2 * n + u64::from(!plus_first) + 1).unwrap_or(u32::MAX);
            let order = if plus_first { [0, 1] } else { [1, 0] };
            let setup = GameSetup {
                game: game_no,
                round: u32::try_from(pert.k).unwrap_or(u32::MAX),
                opening_index,
                opening,
                variant: &cfg.game,
                event: "arena tune",
                names: order.map(|seat| names[seat]),
                limits: [limits, limits],
                max_plies: cfg.max_plies,
                resign: None,
                draw: None,
                tables: None,
                max_move_ms: cfg.timeouts.max_move_ms,
                referee: Referee::Rules,
            };
            let played = match seats.start(order, &setup, &mut set_values)? {
                Some(forfeit) => forfeit,
                None => seats.play(order, &setup),
            };
            let Some(record) = played.record else {
                return Ok(None);
            };
            total += score(&record, plus_first).unwrap_or(0.0);
        }
    }
    Ok(Some(total))
}

/// The run's state, shared by the workers: theta, the iterations handed
/// out and done, and the trace they are written to.
struct State {
    spsa: Spsa,
    /// Iterations below `next_k` that a resumed trace lacks (they were in
    /// flight when the run stopped): handed out first.
    missing: Vec<u64>,
    /// The next iteration to hand out.
    next_k: u64,
    done: u64,
    trace: std::io::BufWriter<std::fs::File>,
    /// The trace's path, for its errors.
    trace_path: PathBuf,
    error: Option<ArenaError>,
    started: std::time::Instant,
    done_at_start: u64,
}

impl State {
    /// The next iteration to play, perturbed; `None` when all are handed out.
    fn next(&mut self, iterations: u64) -> Option<Perturbation> {
        let k = match self.missing.pop() {
            Some(k) => k,
            None if self.next_k > iterations => return None,
            None => {
                self.next_k += 1;
                self.next_k - 1
            }
        };
        Some(self.spsa.perturb(k))
    }

    /// Applies a finished iteration to theta and writes its trace line;
    /// the progress line when one is due every `report_every` iterations.
    fn record(
        &mut self,
        pert: &Perturbation,
        result: f64,
        report_every: u64,
    ) -> Result<Option<String>, ArenaError> {
        self.spsa.update(pert, result);
        self.done += 1;
        let line = TraceLine {
            k: pert.k,
            result,
            plus: pert.plus.clone(),
            minus: pert.minus.clone(),
            theta: self.spsa.theta.clone(),
        };
        serde_json::to_string(&line)
            .map_err(|e| std::io::Error::other(e.to_string()))
            .and_then(|l| writeln!(self.trace, "{l}"))
            .and_then(|_| self.trace.flush())
            .map_err(|e| trace_error(&self.trace_path, e))?;
        Ok((report_every > 0 && self.done.is_multiple_of(report_every))
            .then(|| progress_line(self)))
    }
}

fn trace_error(path: &Path, e: std::io::Error) -> ArenaError {
    ArenaError::Io(format!("cannot write {}: {e}", path.display()))
}

/// One progress line: iteration count, rate and theta.
fn progress_line(s: &State) -> String {
    let secs = s.started.elapsed().as_secs_f64().max(1e-9);
    let rate = (s.done - s.done_at_start) as f64 / secs * 60.0;
    let theta: Vec<String> = s
        .spsa
        .params
        .iter()
        .zip(&s.spsa.theta)
        .map(|(p, t)| format!("{}={t:.2}", p.name))
        .collect();
    format!(
        "Iteration {}/{} ({rate:.0} per minute): {}",
        s.done,
        s.spsa.schedule.iterations,
        theta.join(" ")
    )
}

/// Runs the tuning of `cfg`, writing progress to `out`.
pub fn run_tune(
    cfg: &TuneConfig,
    out: &mut (dyn Write + Send),
    spawn: Spawner,
) -> Result<TuneOutcome, ArenaError> {
    let (limits, suite) = check_tune(cfg)?;
    let order = openings::order(suite.len(), Some(cfg.seed));
    let start = resume_point(cfg)?;
    check_engine(cfg, spawn)?;
    let trace = open_trace(cfg, start.resuming)?;
    let done = start.done;
    let _ = writeln!(
        out,
        "SPSA of {} parameters, {} iterations of {} game pair(s){}",
        cfg.params.len(),
        cfg.schedule.iterations,
        cfg.pairs,
        if done > 0 {
            format!(", resuming after {done}")
        } else {
            String::new()
        }
    );
    let state = Mutex::new(State {
        spsa: start.spsa,
        missing: start.missing,
        next_k: start.next_k,
        done,
        trace,
        trace_path: cfg.trace.clone(),
        error: None,
        started: std::time::Instant::now(),
        done_at_start: done,
    });
    let abort = AtomicBool::new(false);
    let out = Mutex::new(out);
    let ctx = TuneCtx {
        cfg,
        limits,
        suite: &suite,
        order: &order,
        spawn,
        state: &state,
        abort: &abort,
        out: &out,
    };
    std::thread::scope(|scope| {
        for _ in 0..cfg.concurrency.max(1) {
            scope.spawn(|| tune_worker(&ctx));
        }
    });
    let s = state
        .into_inner()
        .map_err(|_| ArenaError::Io("a tuning worker panicked".into()))?;
    if let Some(e) = s.error {
        return Err(e);
    }
    let out = out
        .into_inner()
        .map_err(|_| ArenaError::Io("a tuning worker panicked".into()))?;
    let rounded = s.spsa.rounded();
    if cfg.report_every == 0 || s.done % cfg.report_every != 0 {
        let _ = writeln!(out, "{}", progress_line(&s));
    }
    print_final(out, &s.spsa.params, &rounded);
    Ok(TuneOutcome {
        params: s.spsa.params.clone(),
        theta: s.spsa.theta.clone(),
        rounded,
        iterations_done: s.done,
        interrupted: INTERRUPTED.load(Ordering::SeqCst) || s.done < s.spsa.schedule.iterations,
    })
}

/// Checks `cfg` before anything starts; the engine's limits and the
/// opening suite.
fn check_tune(cfg: &TuneConfig) -> Result<(Limits, Vec<Opening>), ArenaError> {
    if cfg.params.is_empty() {
        return Err(ArenaError::Config("no parameter to tune".into()));
    }
    if cfg.pairs == 0 || cfg.schedule.iterations == 0 {
        return Err(ArenaError::Config(
            "--pairs and --iterations must be at least 1".into(),
        ));
    }
    cfg.engine.validate()?;
    let limits = cfg.engine.limits()?;
    let suite = match &cfg.openings {
        Some(p) => openings::load(&cfg.game, p)?,
        None => vec![Opening::startpos()],
    };
    if suite.is_empty() {
        return Err(ArenaError::Config("the opening suite is empty".into()));
    }
    Ok((limits, suite))
}

/// Where the run starts: from scratch, or where a resumed trace stopped.
struct ResumePoint {
    resuming: bool,
    spsa: Spsa,
    done: u64,
    missing: Vec<u64>,
    next_k: u64,
}

/// The start of a new run, or with `--resume` and a trace, theta and the
/// iterations of that trace (an error when it is of another run).
fn resume_point(cfg: &TuneConfig) -> Result<ResumePoint, ArenaError> {
    let mut start = ResumePoint {
        resuming: cfg.resume && cfg.trace.exists(),
        spsa: Spsa::new(cfg.params.clone(), cfg.schedule, cfg.rounding, cfg.seed),
        done: 0,
        missing: Vec::new(),
        next_k: 1,
    };
    if !start.resuming {
        return Ok(start);
    }
    let (old, last, lines) = read_trace(&cfg.trace)?;
    let names = |v: &[TuneParam]| v.iter().map(|p| p.name.clone()).collect::<Vec<_>>();
    if names(&old.spsa) != names(&cfg.params)
        || old.schedule != cfg.schedule
        || old.pairs != cfg.pairs
        || old.seed != cfg.seed
    {
        return Err(ArenaError::Config(format!(
            "{}: the trace is of another run (parameters, iterations, pairs or seed differ)",
            cfg.trace.display()
        )));
    }
    start.spsa = Spsa::new(old.spsa, old.schedule, old.rounding, old.seed);
    if let Some(last) = last {
        start.spsa.theta = last.theta;
    }
    start.done = lines.len() as u64;
    start.next_k = lines.iter().max().map_or(1, |m| m + 1);
    let seen: std::collections::HashSet<u64> = lines.into_iter().collect();
    start.missing = (1..start.next_k)
        .rev()
        .filter(|k| !seen.contains(k))
        .collect();
    Ok(start)
}

/// The trace file: appended to when resuming, else new with its header.
fn open_trace(
    cfg: &TuneConfig,
    resuming: bool,
) -> Result<std::io::BufWriter<std::fs::File>, ArenaError> {
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(resuming)
        .write(true)
        .truncate(!resuming)
        .open(&cfg.trace)
        .map_err(|e| trace_error(&cfg.trace, e))?;
    let mut trace = std::io::BufWriter::new(file);
    if !resuming {
        let header = TraceHeader {
            spsa: cfg.params.clone(),
            schedule: cfg.schedule,
            pairs: cfg.pairs,
            seed: cfg.seed,
            rounding: cfg.rounding,
        };
        let line = serde_json::to_string(&header).map_err(|e| ArenaError::Io(e.to_string()))?;
        writeln!(trace, "{line}").map_err(|e| trace_error(&cfg.trace, e))?;
        trace.flush().map_err(|e| trace_error(&cfg.trace, e))?;
    }
    Ok(trace)
}

/// What the tuning workers share.
struct TuneCtx<'a, 'o> {
    cfg: &'a TuneConfig,
    limits: Limits,
    suite: &'a [Opening],
    order: &'a [usize],
    spawn: Spawner<'a>,
    state: &'a Mutex<State>,
    abort: &'a AtomicBool,
    out: &'a Mutex<&'o mut (dyn Write + Send)>,
}

/// One worker: takes iterations until none is left or the run stops, plays
/// them on its own two seats and hands the results to the state.
fn tune_worker(ctx: &TuneCtx) {
    let cfg = ctx.cfg;
    let stopping = || INTERRUPTED.load(Ordering::SeqCst) || ctx.abort.load(Ordering::SeqCst);
    let specs = vec![&cfg.engine, &cfg.engine];
    let mut seats = Seats::new(specs, &cfg.game, cfg.timeouts, Logger::default(), ctx.spawn);
    while !stopping() {
        let pert = {
            let Ok(mut s) = ctx.state.lock() else { break };
            let Some(pert) = s.next(cfg.schedule.iterations) else {
                break;
            };
            pert
        };
        let result = play_iteration(cfg, ctx.limits, ctx.suite, ctx.order, &pert, &mut seats);
        let Ok(mut s) = ctx.state.lock() else { break };
        let recorded = match result {
            Ok(Some(r)) => s.record(&pert, r, cfg.report_every),
            Ok(None) => break,
            Err(e) => Err(e),
        };
        match recorded {
            Ok(Some(text)) => {
                if let Ok(mut o) = ctx.out.lock() {
                    let _ = writeln!(o, "{text}");
                    let _ = o.flush();
                }
            }
            Ok(None) => {}
            Err(e) => {
                s.error.get_or_insert(e);
                ctx.abort.store(true, Ordering::SeqCst);
                break;
            }
        }
    }
    seats.quit();
}

/// The final values, as a parameter file's lines and as engine options.
fn print_final(out: &mut (dyn Write + Send), params: &[TuneParam], rounded: &[i64]) {
    let _ = writeln!(out, "Final values (name,value,min,max,c_end,r_end):");
    for (p, v) in params.iter().zip(rounded) {
        let _ = writeln!(
            out,
            "{},{v},{},{},{},{}",
            p.name, p.min, p.max, p.c_end, p.r_end
        );
    }
    let _ = writeln!(
        out,
        "As engine options: {}",
        option_tokens(params, rounded).join(" ")
    );
}

/// Names of the parameters with their values as `option.NAME=V` tokens,
/// for a match's `--engine`.
pub fn option_tokens(params: &[TuneParam], values: &[i64]) -> Vec<String> {
    params
        .iter()
        .zip(values)
        .map(|(p, v)| format!("option.{}={v}", p.name))
        .collect()
}

#[cfg(test)]
mod tests;
