//! Match configuration: engines (from `key=value` tokens or JSON), limits,
//! timeouts and adjudication, with every default named in one place.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::schedule::Tournament;
use super::stats::SprtConfig;
use super::ArenaError;

/// Error rates when `--sprt` leaves them out (what fishtest and fastchess use).
const DEFAULT_SPRT_ERROR_RATE: f64 = 0.05;

/// Reads `--sprt elo0=0 elo1=5 [alpha=0.05] [beta=0.05]` (normalized Elo).
pub fn parse_sprt<S: AsRef<str>>(tokens: &[S]) -> Result<SprtConfig, ArenaError> {
    let (mut elo0, mut elo1) = (None, None);
    let (mut alpha, mut beta) = (DEFAULT_SPRT_ERROR_RATE, DEFAULT_SPRT_ERROR_RATE);
    for t in tokens {
        let t = t.as_ref();
        let bad = || {
            ArenaError::Config(format!(
                "--sprt {t}: expected elo0=E0 elo1=E1 [alpha=A] [beta=B] with numbers"
            ))
        };
        let (k, v) = t.split_once('=').ok_or_else(bad)?;
        let x: f64 = v.trim().parse().map_err(|_| bad())?;
        match k {
            "elo0" => elo0 = Some(x),
            "elo1" => elo1 = Some(x),
            "alpha" => alpha = x,
            "beta" => beta = x,
            _ => return Err(bad()),
        }
    }
    let (Some(elo0), Some(elo1)) = (elo0, elo1) else {
        return Err(ArenaError::Config(
            "--sprt needs elo0= and elo1= (normalized Elo, e.g. elo0=0 elo1=5)".into(),
        ));
    };
    SprtConfig::new(elo0, elo1, alpha, beta).map_err(|e| ArenaError::Config(format!("--sprt: {e}")))
}

/// Plies after which a game is adjudicated a draw, unless configured.
pub const DEFAULT_MAX_PLIES: u32 = 400;
/// Time an engine may take beyond its clock before it loses on time.
pub const DEFAULT_TIME_MARGIN_MS: u64 = 100;
/// Waiting for `ugiok`/`uciok` after start.
pub const DEFAULT_STARTUP_TIMEOUT_MS: u64 = 10_000;
/// Waiting for `readyok` (after options, new game, and before every move).
pub const DEFAULT_PING_TIMEOUT_MS: u64 = 60_000;
/// Slack on top of the mover's time budget before the arena gives up waiting
/// for `bestmove` (pipe and scheduling latency, not the engine's to use).
pub const MOVE_GRACE_MS: u64 = 100;
/// Wall-clock cap on one search with no clock (depth/nodes limits): a silent
/// engine must still be detected.
pub const DEFAULT_MAX_MOVE_MS: u64 = 60_000;
/// How long `quit` may take before the process group is killed.
pub const QUIT_TIMEOUT_MS: u64 = 1_000;

/// The dialect an engine speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Proto {
    #[default]
    Ugi,
    Uci,
}

/// A clock: base time and increment per move, in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeControl {
    pub base_ms: u64,
    pub inc_ms: u64,
}

impl TimeControl {
    /// Reads `10+0.1` or `10` (seconds, decimals allowed) or `40/10+0.1`
    /// (moves-to-go is not supported and rejected by name).
    pub fn parse(text: &str) -> Result<TimeControl, String> {
        if text.contains('/') {
            return Err(format!(
                "tc '{text}': moves/time controls are not supported, use base+inc"
            ));
        }
        let (base, inc) = match text.split_once('+') {
            Some((b, i)) => (b, i),
            None => (text, "0"),
        };
        Ok(TimeControl {
            base_ms: seconds_to_ms(base).ok_or_else(|| format!("tc '{text}': bad base time"))?,
            inc_ms: seconds_to_ms(inc).ok_or_else(|| format!("tc '{text}': bad increment"))?,
        })
    }
}

impl std::fmt::Display for TimeControl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}+{}",
            self.base_ms as f64 / 1000.0,
            self.inc_ms as f64 / 1000.0
        )
    }
}

fn seconds_to_ms(text: &str) -> Option<u64> {
    let secs: f64 = text.trim().parse().ok()?;
    if !secs.is_finite() || !(0.0..=1.0e9).contains(&secs) {
        return None;
    }
    Some((secs * 1000.0).round() as u64)
}

/// One engine as configured. The JSON form uses the same field names as the
/// command-line `key=value` form.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EngineSpec {
    pub name: String,
    pub cmd: String,
    #[serde(default)]
    pub args: Vec<String>,
    #[serde(default)]
    pub proto: Proto,
    /// `setoption` values, sent in this order after the handshake.
    #[serde(default)]
    pub options: BTreeMap<String, String>,
    /// Clock `base+inc` in seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tc: Option<String>,
    /// Fixed time per move in seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub st: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u64>,
    /// Milliseconds an engine may overrun its clock before losing on time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timemargin: Option<u64>,
    /// Working directory of the engine process.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dir: Option<String>,
}

/// The search limit of one engine, resolved from its spec.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limits {
    pub tc: Option<TimeControl>,
    pub movetime_ms: Option<u64>,
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    pub margin_ms: u64,
}

impl Limits {
    pub fn has_clock(&self) -> bool {
        self.tc.is_some() || self.movetime_ms.is_some()
    }

    /// The PGN `TimeControl` text: `10+0.1`, `st=0.1`, `depth=6`, ...
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(tc) = self.tc {
            parts.push(tc.to_string());
        }
        if let Some(ms) = self.movetime_ms {
            parts.push(format!("st={}", ms as f64 / 1000.0));
        }
        if let Some(d) = self.depth {
            parts.push(format!("depth={d}"));
        }
        if let Some(n) = self.nodes {
            parts.push(format!("nodes={n}"));
        }
        if parts.is_empty() {
            "-".to_string()
        } else {
            parts.join(",")
        }
    }
}

impl EngineSpec {
    /// Reads `name=A cmd=path args="-x 1" proto=uci option.Hash=64 tc=10+0.1
    /// st=0.1 depth=6 nodes=10000 timemargin=100 dir=/tmp`, on top of `self`
    /// (so `--each` settings can come first).
    pub fn apply_tokens<S: AsRef<str>>(&mut self, tokens: &[S]) -> Result<(), String> {
        for token in tokens {
            let token = token.as_ref();
            let (key, value) = token
                .split_once('=')
                .ok_or_else(|| format!("engine setting '{token}' is not key=value"))?;
            let bad = |what: &str| format!("engine setting '{token}': {what}");
            match key {
                "name" => self.name = value.to_string(),
                "cmd" => self.cmd = value.to_string(),
                "args" => self.args = split_args(value).map_err(|e| bad(&e))?,
                "proto" => {
                    self.proto = match value {
                        "ugi" => Proto::Ugi,
                        "uci" => Proto::Uci,
                        _ => return Err(bad("proto is ugi or uci")),
                    }
                }
                "tc" => {
                    TimeControl::parse(value)?;
                    self.tc = Some(value.to_string());
                }
                "st" => {
                    let st = value
                        .parse::<f64>()
                        .ok()
                        .filter(|s| s.is_finite() && *s > 0.0)
                        .ok_or_else(|| bad("st is seconds > 0"))?;
                    self.st = Some(st);
                }
                "depth" => self.depth = Some(value.parse().map_err(|_| bad("not a number"))?),
                "nodes" => self.nodes = Some(value.parse().map_err(|_| bad("not a number"))?),
                "timemargin" => {
                    self.timemargin = Some(value.parse().map_err(|_| bad("not a number"))?)
                }
                "dir" => self.dir = Some(value.to_string()),
                _ => match key.strip_prefix("option.") {
                    Some(name) if !name.is_empty() => {
                        self.options.insert(name.to_string(), value.to_string());
                    }
                    _ => return Err(bad("unknown key")),
                },
            }
        }
        Ok(())
    }

    pub fn validate(&self) -> Result<(), String> {
        if self.name.is_empty() {
            return Err("an engine has no name= (names label records and results)".into());
        }
        if self.cmd.is_empty() {
            return Err(format!("engine '{}' has no cmd=", self.name));
        }
        self.limits()?;
        Ok(())
    }

    pub fn limits(&self) -> Result<Limits, String> {
        let tc = self.tc.as_deref().map(TimeControl::parse).transpose()?;
        let limits = Limits {
            tc,
            movetime_ms: self.st.map(|s| (s * 1000.0).round().max(1.0) as u64),
            depth: self.depth,
            nodes: self.nodes,
            margin_ms: self.timemargin.unwrap_or(DEFAULT_TIME_MARGIN_MS),
        };
        if limits.tc.is_some() && limits.movetime_ms.is_some() {
            return Err(format!("engine '{}': give tc= or st=, not both", self.name));
        }
        if limits.tc.is_none()
            && limits.movetime_ms.is_none()
            && limits.depth.is_none()
            && limits.nodes.is_none()
        {
            return Err(format!(
                "engine '{}' has no limit: give tc=, st=, depth= or nodes=",
                self.name
            ));
        }
        Ok(limits)
    }
}

/// Splits `args="-a 1 'b c'"` the way a shell would for simple quoting.
pub fn split_args(text: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut in_token = false;
    let mut quote: Option<char> = None;
    for c in text.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => cur.push(c),
            None if c == '"' || c == '\'' => {
                quote = Some(c);
                in_token = true;
            }
            None if c.is_whitespace() => {
                if in_token {
                    out.push(std::mem::take(&mut cur));
                    in_token = false;
                }
            }
            None => {
                cur.push(c);
                in_token = true;
            }
        }
    }
    if quote.is_some() {
        return Err("unterminated quote in args".into());
    }
    if in_token {
        out.push(cur);
    }
    Ok(out)
}

/// Who decides legality and the end of a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Referee {
    /// Our rules library: every move checked (the default).
    #[default]
    Rules,
    /// For games the library does not know: the engines answer `query
    /// gameover/p1turn/result`; moves are not checked; a disagreement voids
    /// the game.
    Engines,
}

/// Resign and draw adjudication by the engines' own scores.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScoreAdjudication {
    /// Consecutive moves of each engine that must agree.
    pub moves: u32,
    /// Threshold in centi-units: resign when the loser reports <= -score and
    /// the winner >= score; draw when both report |s| <= score.
    pub score: i32,
    /// Draw adjudication only from this full move number on.
    #[serde(default)]
    pub movenumber: u32,
}

/// Waits the arena allows, in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Timeouts {
    #[serde(default = "d_startup")]
    pub startup_ms: u64,
    #[serde(default = "d_ping")]
    pub ping_ms: u64,
    /// Cap on one search without a clock (depth/nodes only).
    #[serde(default = "d_max_move")]
    pub max_move_ms: u64,
}

fn d_startup() -> u64 {
    DEFAULT_STARTUP_TIMEOUT_MS
}
fn d_ping() -> u64 {
    DEFAULT_PING_TIMEOUT_MS
}
fn d_max_move() -> u64 {
    DEFAULT_MAX_MOVE_MS
}

impl Default for Timeouts {
    fn default() -> Timeouts {
        Timeouts {
            startup_ms: DEFAULT_STARTUP_TIMEOUT_MS,
            ping_ms: DEFAULT_PING_TIMEOUT_MS,
            max_move_ms: DEFAULT_MAX_MOVE_MS,
        }
    }
}

impl Timeouts {
    pub fn startup(&self) -> Duration {
        Duration::from_millis(self.startup_ms)
    }
    pub fn ping(&self) -> Duration {
        Duration::from_millis(self.ping_ms)
    }
}

/// A whole match. The JSON config file has exactly these fields; paths in it
/// are relative to the file's folder.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MatchConfig {
    #[serde(default = "d_event")]
    pub event: String,
    pub engines: Vec<EngineSpec>,
    #[serde(default = "d_game")]
    pub game: String,
    /// Number of games; rounded up to whole pairs per engine pair.
    #[serde(default = "d_games")]
    pub games: u32,
    #[serde(default = "d_one")]
    pub concurrency: u32,
    #[serde(default)]
    pub openings: Option<PathBuf>,
    /// Shuffles the openings with this seed; sequential order without one.
    #[serde(default)]
    pub seed: Option<u64>,
    #[serde(default = "d_max_plies")]
    pub maxplies: u32,
    #[serde(default)]
    pub referee: Referee,
    #[serde(default)]
    pub resign: Option<ScoreAdjudication>,
    #[serde(default)]
    pub draw: Option<ScoreAdjudication>,
    /// Folder of Silo table files: a game is adjudicated as soon as its
    /// position is in one of them.
    #[serde(default)]
    pub tb: Option<PathBuf>,
    #[serde(default)]
    pub timeouts: Timeouts,
    #[serde(default)]
    pub log: Option<PathBuf>,
    #[serde(default)]
    pub pgn: Option<PathBuf>,
    #[serde(default)]
    pub jsonl: Option<PathBuf>,
    #[serde(default)]
    pub json: Option<PathBuf>,
    /// Self-contained HTML/SVG report written at the end.
    #[serde(default)]
    pub report: Option<PathBuf>,
    /// Round robin or gauntlet among the engines.
    #[serde(default)]
    pub tournament: Tournament,
    /// SPRT of the first engine (candidate) against the second (base); the
    /// match stops when a bound is crossed.
    #[serde(default)]
    pub sprt: Option<SprtConfig>,
    /// Print the rating block every this many finished games (0 = never).
    #[serde(default = "d_rating_interval")]
    pub ratinginterval: u32,
}

fn d_event() -> String {
    "stackfish arena".into()
}
fn d_game() -> String {
    "mixtour".into()
}
fn d_games() -> u32 {
    2
}
fn d_one() -> u32 {
    1
}
fn d_max_plies() -> u32 {
    DEFAULT_MAX_PLIES
}
fn d_rating_interval() -> u32 {
    10
}

impl Default for MatchConfig {
    fn default() -> MatchConfig {
        MatchConfig {
            event: d_event(),
            engines: Vec::new(),
            game: d_game(),
            games: d_games(),
            concurrency: 1,
            openings: None,
            seed: None,
            maxplies: DEFAULT_MAX_PLIES,
            referee: Referee::Rules,
            resign: None,
            draw: None,
            tb: None,
            timeouts: Timeouts::default(),
            log: None,
            pgn: None,
            jsonl: None,
            json: None,
            report: None,
            tournament: Tournament::Roundrobin,
            sprt: None,
            ratinginterval: d_rating_interval(),
        }
    }
}

impl MatchConfig {
    /// Reads a JSON config; relative paths (openings, records, engine
    /// commands containing a `/`) are taken relative to the file's folder.
    pub fn from_file(path: &Path) -> Result<MatchConfig, ArenaError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| ArenaError::Config(format!("cannot read {}: {e}", path.display())))?;
        let mut cfg: MatchConfig = serde_json::from_str(&text)
            .map_err(|e| ArenaError::Config(format!("{}: {e}", path.display())))?;
        let base = path.parent().unwrap_or(Path::new("."));
        let fix = |p: &mut Option<PathBuf>| {
            if let Some(x) = p {
                if x.is_relative() {
                    *x = base.join(&*x);
                }
            }
        };
        fix(&mut cfg.openings);
        fix(&mut cfg.log);
        fix(&mut cfg.pgn);
        fix(&mut cfg.jsonl);
        fix(&mut cfg.json);
        fix(&mut cfg.report);
        fix(&mut cfg.tb);
        for e in &mut cfg.engines {
            if e.cmd.contains('/') && Path::new(&e.cmd).is_relative() {
                e.cmd = base.join(&e.cmd).to_string_lossy().into_owned();
            }
        }
        Ok(cfg)
    }

    pub fn validate(&self) -> Result<(), ArenaError> {
        if self.engines.len() < 2 {
            return Err(ArenaError::Config(
                "a match needs at least two engines (--engine ... twice)".into(),
            ));
        }
        for e in &self.engines {
            e.validate().map_err(ArenaError::Config)?;
        }
        let mut names: Vec<&str> = self.engines.iter().map(|e| e.name.as_str()).collect();
        names.sort_unstable();
        if names.windows(2).any(|w| w[0] == w[1]) {
            return Err(ArenaError::Config("engine names must be distinct".into()));
        }
        if self.game.trim().is_empty() {
            return Err(ArenaError::Config("--game is empty".into()));
        }
        if self.referee == Referee::Rules && crate::game::variants::new_game(&self.game).is_none() {
            return Err(ArenaError::Config(format!(
                "unknown game '{}' (known: {}; --referee engines lets the engines judge other games)",
                self.game,
                crate::game::variant_names().join(", ")
            )));
        }
        if self.games == 0 {
            return Err(ArenaError::Config("--games must be at least 1".into()));
        }
        if self.concurrency == 0 {
            return Err(ArenaError::Config(
                "--concurrency must be at least 1".into(),
            ));
        }
        Ok(())
    }
}

/// Resolves an engine command: a name without `/` is looked up first next
/// to the running executable (so `stackfish` is the one built alongside the
/// arena), then on `PATH` by the OS.
pub fn resolve_cmd(cmd: &str) -> PathBuf {
    if !cmd.contains('/') {
        if let Ok(exe) = std::env::current_exe() {
            if let Some(dir) = exe.parent() {
                let beside = dir.join(cmd);
                if beside.is_file() {
                    return beside;
                }
            }
        }
    }
    PathBuf::from(cmd)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_tokens() {
        let mut e = EngineSpec::default();
        e.apply_tokens(&[
            "name=A",
            "cmd=./x",
            "args=-v 'a b' \"c\"",
            "proto=uci",
            "option.Hash=64",
            "tc=10+0.1",
            "timemargin=50",
        ])
        .unwrap();
        assert_eq!(e.args, vec!["-v", "a b", "c"]);
        assert_eq!(e.proto, Proto::Uci);
        assert_eq!(e.options.get("Hash").map(String::as_str), Some("64"));
        let l = e.limits().unwrap();
        assert_eq!(
            l.tc,
            Some(TimeControl {
                base_ms: 10_000,
                inc_ms: 100
            })
        );
        assert_eq!(l.margin_ms, 50);
        assert!(e.apply_tokens(&["bogus=1"]).is_err());
        assert!(e.apply_tokens(&["noequals"]).is_err());
        assert!(e.apply_tokens(&["tc=40/10"]).is_err());
        assert!(e.apply_tokens(&["st=-1"]).is_err());
    }

    #[test]
    fn engine_needs_a_limit() {
        let mut e = EngineSpec::default();
        e.apply_tokens(&["name=A", "cmd=x"]).unwrap();
        assert!(e.validate().is_err());
        e.apply_tokens(&["depth=3"]).unwrap();
        assert!(e.validate().is_ok());
    }

    #[test]
    fn sprt_tokens() {
        let s = parse_sprt(&["elo0=-5", "elo1=0"]).unwrap();
        assert_eq!(
            (s.elo0(), s.elo1(), s.alpha(), s.beta()),
            (-5.0, 0.0, 0.05, 0.05)
        );
        for bad in [
            &["elo0=0"][..],
            &["elo0=5", "elo1=0"],
            &["elo0=0", "elo1=5", "alpha=1.5"],
            &["elo0=x", "elo1=5"],
            &["elo0=0", "elo1=5", "gamma=1"],
            &["elo0", "elo1=5"],
            &["elo0=0", "elo1=inf"],
        ] {
            assert!(parse_sprt(bad).is_err(), "{bad:?}");
        }
        let cfg: MatchConfig = serde_json::from_str(
            r#"{"engines":[],"sprt":{"elo0":0,"elo1":5,"alpha":0.05,"beta":0.05},"tournament":"gauntlet"}"#,
        )
        .unwrap();
        assert_eq!(cfg.tournament, Tournament::Gauntlet);
        assert!(cfg.sprt.is_some());
        assert!(serde_json::from_str::<MatchConfig>(
            r#"{"engines":[],"sprt":{"elo0":5,"elo1":0,"alpha":0.05,"beta":0.05}}"#
        )
        .is_err());
    }

    #[test]
    fn json_config_uses_the_same_fields() {
        let cfg: MatchConfig = serde_json::from_str(
            r#"{"engines":[{"name":"a","cmd":"x","depth":2,"options":{"Level":"3"}},
                           {"name":"b","cmd":"y","tc":"1+0.01"}],"games":3}"#,
        )
        .unwrap();
        assert_eq!(cfg.games, 3);
        assert_eq!(cfg.maxplies, DEFAULT_MAX_PLIES);
        assert!(cfg.validate().is_ok());
        assert!(serde_json::from_str::<MatchConfig>(r#"{"engines":[],"typo":1}"#).is_err());
    }
}
