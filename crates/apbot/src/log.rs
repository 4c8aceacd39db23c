//! The bot's log lines on standard error: `apbot: <event> key=value …` as
//! text (the default), or one JSON object a line with the same fields for
//! log shippers (`--log-format json`).

use std::sync::OnceLock;
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Map, Value};

/// How log lines are written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// `apbot: event key=value … message`
    #[default]
    Text,
    /// `{"ts":"…","level":"…","event":"…","key":value,…,"message":"…"}`
    Json,
}

static FORMAT: OnceLock<LogFormat> = OnceLock::new();

/// Sets the format for the rest of the process (the first call wins).
pub fn set_format(format: LogFormat) {
    let _ = FORMAT.set(format);
}

fn format() -> LogFormat {
    FORMAT.get().copied().unwrap_or_default()
}

/// A field's value: text, or a number that JSON keeps a number.
#[derive(Clone, Debug)]
enum Field {
    Text(String),
    Int(i64),
    /// Milliseconds, written with one decimal.
    Ms(f64),
}

/// One log line being built.
#[derive(Clone, Debug)]
pub struct Line {
    event: &'static str,
    fields: Vec<(&'static str, Field)>,
    message: Option<String>,
    /// Fields JSON gets and the text line says in its message instead.
    extra: Vec<(&'static str, String)>,
}

/// Starts a line of `event` (`request`, `submit`, `think`, …).
pub fn line(event: &'static str) -> Line {
    Line {
        event,
        fields: Vec::new(),
        message: None,
        extra: Vec::new(),
    }
}

impl Line {
    pub fn text(mut self, key: &'static str, value: impl std::fmt::Display) -> Line {
        self.fields.push((key, Field::Text(value.to_string())));
        self
    }

    pub fn int(mut self, key: &'static str, value: impl TryInto<i64>) -> Line {
        let value = value.try_into().unwrap_or(i64::MAX);
        self.fields.push((key, Field::Int(value)));
        self
    }

    pub fn ms(mut self, key: &'static str, value: f64) -> Line {
        self.fields.push((key, Field::Ms(value)));
        self
    }

    /// Free text after the fields (the text line's end; JSON's `message`).
    pub fn message(mut self, text: impl std::fmt::Display) -> Line {
        self.message = Some(text.to_string());
        self
    }

    /// A field only JSON carries (the text line has it in its message).
    pub fn json_only(mut self, key: &'static str, value: impl std::fmt::Display) -> Line {
        self.extra.push((key, value.to_string()));
        self
    }

    /// The line as text, without the `apbot: ` prefix.
    pub fn to_text(&self) -> String {
        let mut out = self.event.to_string();
        for (key, value) in &self.fields {
            let value = match value {
                Field::Text(t) => t.clone(),
                Field::Int(n) => n.to_string(),
                Field::Ms(ms) => format!("{ms:.1}"),
            };
            out.push_str(&format!(" {key}={value}"));
        }
        if let Some(m) = &self.message {
            out.push(' ');
            out.push_str(m);
        }
        out
    }

    /// The line as one JSON object, stamped `now` (seconds since 1970).
    pub fn to_json(&self, now: f64) -> String {
        let mut map = Map::new();
        map.insert("ts".into(), Value::from(rfc3339(now)));
        map.insert("level".into(), Value::from(self.level()));
        map.insert("event".into(), Value::from(self.event));
        for (key, value) in &self.fields {
            let v = match value {
                Field::Text(t) => Value::from(t.as_str()),
                Field::Int(n) => Value::from(*n),
                Field::Ms(ms) => Value::from((ms * 10.0).round() / 10.0),
            };
            map.insert((*key).into(), v);
        }
        for (key, value) in &self.extra {
            map.insert((*key).into(), Value::from(value.as_str()));
        }
        if let Some(m) = &self.message {
            map.insert("message".into(), Value::from(m.as_str()));
        }
        Value::Object(map).to_string()
    }

    /// `error` for failures, `warn` for notifications given up on, `info`
    /// for the rest.
    fn level(&self) -> &'static str {
        match self.event {
            "error" | "stopped-with-pending" => "error",
            "drop" | "skip" => "warn",
            _ => "info",
        }
    }

    /// Writes the line to standard error in the process's format.
    pub fn log(self) {
        let text = match format() {
            LogFormat::Text => format!("apbot: {}", self.to_text()),
            LogFormat::Json => {
                let now = SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .map_or(0.0, |d| d.as_secs_f64());
                self.to_json(now)
            }
        };
        eprintln!("{text}");
    }
}

/// `secs` since 1970 as an RFC 3339 UTC time with milliseconds.
fn rfc3339(secs: f64) -> String {
    let millis = (secs * 1000.0).round() as i64;
    let (days, ms_of_day) = (millis.div_euclid(86_400_000), millis.rem_euclid(86_400_000));
    let (year, month, day) = stackfish_record::civil_from_days(days);
    let s = ms_of_day / 1000;
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        s / 3600,
        s / 60 % 60,
        s % 60,
        ms_of_day % 1000
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Line {
        line("submit")
            .text("game", "g-1")
            .text("move", "b2:2-c3")
            .int("status", 200)
            .ms("ms", 85.04)
            .message("refused: {\"message\":\"x\"}")
    }

    #[test]
    fn the_text_line_is_event_then_fields_then_message() {
        assert_eq!(
            sample().to_text(),
            "submit game=g-1 move=b2:2-c3 status=200 ms=85.0 refused: {\"message\":\"x\"}"
        );
    }

    #[test]
    fn the_json_line_has_the_same_fields_typed() {
        let v: Value = serde_json::from_str(&sample().to_json(0.0)).unwrap();
        assert_eq!(v["event"], "submit");
        assert_eq!(v["game"], "g-1");
        assert_eq!(v["move"], "b2:2-c3");
        assert_eq!(v["status"], 200);
        assert_eq!(v["ms"], 85.0);
        assert_eq!(v["message"], "refused: {\"message\":\"x\"}");
        assert_eq!(v["level"], "info");
        assert_eq!(v["ts"], "1970-01-01T00:00:00.000Z");
        assert!(!sample().to_json(0.0).contains('\n'));
    }

    #[test]
    fn timestamps_are_utc_calendar_times() {
        // 2000-03-01 is the day after a leap day of a century year.
        assert_eq!(rfc3339(951_868_800.0), "2000-03-01T00:00:00.000Z");
        assert_eq!(rfc3339(1_709_164_800.5), "2024-02-29T00:00:00.500Z");
        assert_eq!(rfc3339(86_399.999), "1970-01-01T23:59:59.999Z");
    }
}
