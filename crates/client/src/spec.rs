//! One engine as configured: its command, dialect, options, limits and the
//! waits the runner allows it; from `key=value` tokens or JSON.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

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

/// An engine setting that does not make sense: a bad `key=value` token, a
/// time control that does not read, or a spec without a name, command or
/// limit.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    #[error("tc '{0}': moves/time controls are not supported, use base+inc")]
    MovesToGo(String),
    #[error("tc '{0}': bad base time")]
    BaseTime(String),
    #[error("tc '{0}': bad increment")]
    Increment(String),
    #[error("engine setting '{0}' is not key=value")]
    NotKeyValue(String),
    /// A token with a bad value or an unknown key: the token and why.
    #[error("engine setting '{token}': {why}")]
    Setting { token: String, why: String },
    #[error("an engine has no name= (names label records and results)")]
    NoName,
    #[error("engine '{0}' has no cmd=")]
    NoCommand(String),
    #[error("engine '{0}': give tc= or st=, not both")]
    TwoClocks(String),
    #[error("engine '{0}' has no limit: give tc=, st=, depth= or nodes=")]
    NoLimit(String),
    #[error("unterminated quote in args")]
    UnterminatedQuote,
}

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
    pub fn parse(text: &str) -> Result<TimeControl, SpecError> {
        if text.contains('/') {
            return Err(SpecError::MovesToGo(text.to_string()));
        }
        let (base, inc) = match text.split_once('+') {
            Some((b, i)) => (b, i),
            None => (text, "0"),
        };
        Ok(TimeControl {
            base_ms: seconds_to_ms(base).ok_or_else(|| SpecError::BaseTime(text.to_string()))?,
            inc_ms: seconds_to_ms(inc).ok_or_else(|| SpecError::Increment(text.to_string()))?,
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
    /// `setoption` values, sent in this order after the handshake. In JSON
    /// a value may be a string, a number or a boolean (`"Level": 3`).
    #[serde(default, deserialize_with = "lenient::option_map")]
    pub options: BTreeMap<String, String>,
    /// Clock `base+inc` in seconds.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient::text_opt"
    )]
    pub tc: Option<String>,
    /// Fixed time per move in seconds. Numbers in JSON may also be written
    /// as strings (`"st": "0.01"`, `"depth": "3"`).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient::number_opt"
    )]
    pub st: Option<f64>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient::number_opt"
    )]
    pub depth: Option<u32>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient::number_opt"
    )]
    pub nodes: Option<u64>,
    /// Milliseconds an engine may overrun its clock before losing on time.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient::number_opt"
    )]
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
    pub fn apply_tokens<S: AsRef<str>>(&mut self, tokens: &[S]) -> Result<(), SpecError> {
        for token in tokens {
            let token = token.as_ref();
            let (key, value) = token
                .split_once('=')
                .ok_or_else(|| SpecError::NotKeyValue(token.to_string()))?;
            let bad = |why: &str| SpecError::Setting {
                token: token.to_string(),
                why: why.to_string(),
            };
            match key {
                "name" => self.name = value.to_string(),
                "cmd" => self.cmd = value.to_string(),
                "args" => self.args = split_args(value).map_err(|e| bad(&e.to_string()))?,
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

    pub fn validate(&self) -> Result<(), SpecError> {
        if self.name.is_empty() {
            return Err(SpecError::NoName);
        }
        if self.cmd.is_empty() {
            return Err(SpecError::NoCommand(self.name.clone()));
        }
        self.limits()?;
        Ok(())
    }

    pub fn limits(&self) -> Result<Limits, SpecError> {
        let tc = self.tc.as_deref().map(TimeControl::parse).transpose()?;
        let limits = Limits {
            tc,
            movetime_ms: self.st.map(|s| (s * 1000.0).round().max(1.0) as u64),
            depth: self.depth,
            nodes: self.nodes,
            margin_ms: self.timemargin.unwrap_or(DEFAULT_TIME_MARGIN_MS),
        };
        if limits.tc.is_some() && limits.movetime_ms.is_some() {
            return Err(SpecError::TwoClocks(self.name.clone()));
        }
        if limits.tc.is_none()
            && limits.movetime_ms.is_none()
            && limits.depth.is_none()
            && limits.nodes.is_none()
        {
            return Err(SpecError::NoLimit(self.name.clone()));
        }
        Ok(limits)
    }
}

/// Splits `args="-a 1 'b c'"` the way a shell would for simple quoting.
pub fn split_args(text: &str) -> Result<Vec<String>, SpecError> {
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
        return Err(SpecError::UnterminatedQuote);
    }
    if in_token {
        out.push(cur);
    }
    Ok(out)
}

/// Waits the arena allows, in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Timeouts {
    #[serde(default = "d_startup", deserialize_with = "lenient::number")]
    pub startup_ms: u64,
    #[serde(default = "d_ping", deserialize_with = "lenient::number")]
    pub ping_ms: u64,
    /// Cap on one search without a clock (depth/nodes only).
    #[serde(default = "d_max_move", deserialize_with = "lenient::number")]
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

/// Resolves an engine command: a name without a path separator (`/`, also
/// `\` on Windows) is looked up first next to the running executable (so
/// `stackfish` is the one built alongside the arena; on Windows also with
/// `.exe` added, so the same config names `stackfish.exe`), then on `PATH`
/// by the OS.
pub fn resolve_cmd(cmd: &str) -> PathBuf {
    if !cmd.contains(std::path::is_separator) {
        if let Ok(exe) = std::env::current_exe() {
            if let Some(dir) = exe.parent() {
                let suffixed = format!("{cmd}{}", std::env::consts::EXE_SUFFIX);
                for name in [cmd, suffixed.as_str()] {
                    let beside = dir.join(name);
                    if beside.is_file() {
                        return beside;
                    }
                }
            }
        }
    }
    PathBuf::from(cmd)
}

/// JSON fields a person writes either way: a number as a number or a
/// string (`"depth": 3` or `"depth": "3"`), an option value as a string,
/// number or boolean. Errors name what was expected and what was found,
/// not serde's internal type names.
pub mod lenient {
    use serde::de::{self, Deserializer, MapAccess, Visitor};
    use std::collections::BTreeMap;
    use std::fmt;
    use std::marker::PhantomData;
    use std::str::FromStr;

    /// Any JSON scalar as the text a person would have typed; `None` for null.
    struct Scalar;

    impl<'de> Visitor<'de> for Scalar {
        type Value = Option<String>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a number or a string")
        }
        fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
            Ok(Some(v.to_string()))
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
            Ok(Some(v.to_string()))
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
            Ok(Some(v.to_string()))
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
            Ok(Some(v.to_string()))
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
            Ok(Some(v.to_string()))
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
    }

    fn parse<T: FromStr, E: de::Error>(text: &str) -> Result<T, E> {
        let what = match std::any::type_name::<T>() {
            "u8" | "u16" | "u32" | "u64" | "usize" => "a whole number",
            _ => "a number",
        };
        text.trim()
            .parse()
            .map_err(|_| E::custom(format!("expected {what}, found {text:?}")))
    }

    /// A number written as a JSON number or a string.
    pub fn number<'de, D: Deserializer<'de>, T: FromStr>(d: D) -> Result<T, D::Error> {
        match d.deserialize_any(Scalar)? {
            Some(text) => parse(&text),
            None => Err(de::Error::custom("expected a number, found null")),
        }
    }

    /// An optional number written as a JSON number or a string; null is none.
    pub fn number_opt<'de, D: Deserializer<'de>, T: FromStr>(d: D) -> Result<Option<T>, D::Error> {
        d.deserialize_any(Scalar)?
            .map(|text| parse(&text))
            .transpose()
    }

    /// Optional text that may be written as a number (`"tc": 10`).
    pub fn text_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
        d.deserialize_any(Scalar)
    }

    struct Options(PhantomData<()>);

    impl<'de> Visitor<'de> for Options {
        type Value = BTreeMap<String, String>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("an object of option names and values")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut out = BTreeMap::new();
            while let Some(name) = map.next_key::<String>()? {
                let value: OptionValue = map.next_value()?;
                out.insert(name, value.0);
            }
            Ok(out)
        }
    }

    struct OptionValue(String);

    impl<'de> de::Deserialize<'de> for OptionValue {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            match d.deserialize_any(Scalar)? {
                Some(text) => Ok(OptionValue(text)),
                None => Err(de::Error::custom(
                    "an option value is a string, a number or a boolean, not null",
                )),
            }
        }
    }

    /// Option values as strings, numbers or booleans (sent as typed).
    pub fn option_map<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<BTreeMap<String, String>, D::Error> {
        d.deserialize_map(Options(PhantomData))
    }
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
}
