//! Every engine option, declared once: name, type, default, range, and what
//! setting it does. The protocol prints the handshake from `OPTIONS` and
//! `setoption` is parsed against it; `Options::default` takes its numbers
//! from it too. A new option is one row here.

use stackfish_games::echo::echo;
use std::path::Path;

use stackfish_games::variant_names;
use stackfish_search::params::{self, Param, PARAMS};

use crate::error::OptionError;
use crate::{
    allocate_shared, new_session_with, Engine, SharedTables, DEFAULT_GAME, DEFAULT_HASH_MB,
    DEFAULT_MOVE_OVERHEAD_MS, MAX_HASH_MB, MAX_LEVEL, MAX_MOVE_OVERHEAD_MS, MAX_MULTIPV,
    MAX_THREADS,
};

/// The values of the options a search reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    pub hash_mb: usize,
    pub threads: usize,
    pub move_overhead_ms: u64,
    pub level: u8,
    /// Lines reported per iteration (the best, second best, ... root move).
    pub multipv: usize,
    /// Endgame tables (`SiloTablePath`): a position they cover is answered
    /// from them at once, at every level.
    pub tables: Option<SharedTables>,
}

impl Default for Options {
    /// Every number at the default its row of `OPTIONS` declares.
    fn default() -> Self {
        let mut options = Options {
            hash_mb: 0,
            threads: 0,
            move_overhead_ms: 0,
            level: 0,
            multipv: 0,
            tables: None,
        };
        for option in &OPTIONS {
            if let Kind::Spin { default, store, .. } = option.kind {
                store(&mut options, default);
            }
        }
        options
    }
}

/// An option's type in the UCI sense, with its default and range.
#[derive(Clone, Copy, Debug)]
pub enum Kind {
    /// A number from `min` to `max`, kept in `Options` by `store`.
    Spin {
        default: u64,
        min: u64,
        max: u64,
        store: fn(&mut Options, u64),
    },
    /// One of `choices()`.
    Combo {
        default: &'static str,
        choices: fn() -> &'static [&'static str],
    },
    /// An action without a value.
    Button,
    /// Free text.
    Text { default: &'static str },
}

/// A checked value for an option's `act`.
#[derive(Clone, Copy, Debug)]
pub enum Value<'a> {
    /// A spin option's number, in range.
    Number(u64),
    /// The value of any other option as sent (`None`: no `value` part).
    Text(Option<&'a str>),
}

/// What setting an option does to the engine besides storing a spin's
/// number (run first: on error nothing changes). Returns notes for the user.
pub type Act = fn(&mut Engine, Value<'_>) -> Result<Vec<String>, OptionError>;

/// One engine option.
#[derive(Clone, Copy, Debug)]
pub struct EngineOption {
    /// As the handshake spells it; `setoption` matches it in any case with
    /// spaces ignored (`Clear Hash`, `clearhash`).
    pub name: &'static str,
    pub kind: Kind,
    act: Option<Act>,
}

/// Every option, in the order the handshake lists them.
pub const OPTIONS: [EngineOption; 8] = [
    EngineOption {
        name: "Hash",
        kind: Kind::Spin {
            default: DEFAULT_HASH_MB as u64,
            min: 1,
            max: MAX_HASH_MB as u64,
            store: |o, n| o.hash_mb = n as usize,
        },
        act: Some(set_hash),
    },
    EngineOption {
        name: "Threads",
        kind: Kind::Spin {
            default: 1,
            min: 1,
            max: MAX_THREADS as u64,
            store: |o, n| o.threads = n as usize,
        },
        act: None,
    },
    EngineOption {
        name: "MoveOverhead",
        kind: Kind::Spin {
            default: DEFAULT_MOVE_OVERHEAD_MS,
            min: 0,
            max: MAX_MOVE_OVERHEAD_MS,
            store: |o, n| o.move_overhead_ms = n,
        },
        act: None,
    },
    EngineOption {
        name: "Game",
        kind: Kind::Combo {
            default: DEFAULT_GAME,
            choices: variant_names,
        },
        act: Some(set_game),
    },
    EngineOption {
        name: "Level",
        kind: Kind::Spin {
            default: MAX_LEVEL as u64,
            min: 1,
            max: MAX_LEVEL as u64,
            store: |o, n| o.level = n as u8,
        },
        act: None,
    },
    EngineOption {
        name: "MultiPV",
        kind: Kind::Spin {
            default: 1,
            min: 1,
            max: MAX_MULTIPV as u64,
            store: |o, n| o.multipv = n as usize,
        },
        act: None,
    },
    EngineOption {
        name: "Clear Hash",
        kind: Kind::Button,
        act: Some(|engine, _| {
            engine.shared.tt.clear();
            Ok(Vec::new())
        }),
    },
    EngineOption {
        name: "SiloTablePath",
        kind: Kind::Text { default: "<empty>" },
        act: Some(set_table_path),
    },
];

/// An option name as `setoption` matches it: spaces dropped, lower case.
fn key(name: &str) -> String {
    name.chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_ascii_lowercase()
}

/// `setoption name <name> [value <value>]` on `engine`.
pub(crate) fn set(
    engine: &mut Engine,
    name: &str,
    value: Option<&str>,
) -> Result<Vec<String>, OptionError> {
    let wanted = key(name);
    let Some(option) = OPTIONS.iter().find(|o| key(o.name) == wanted) else {
        return set_tunable(&wanted, name, value);
    };
    match option.kind {
        Kind::Spin {
            min, max, store, ..
        } => {
            let v = value.ok_or_else(|| OptionError::NeedsValue { name: echo(name) })?;
            let n = match v.trim().parse::<u64>() {
                Ok(n) if (min..=max).contains(&n) => n,
                _ => {
                    return Err(OptionError::NotANumber {
                        name: echo(name),
                        value: echo(v),
                        min,
                        max,
                    })
                }
            };
            let notes = match option.act {
                Some(act) => act(engine, Value::Number(n))?,
                None => Vec::new(),
            };
            store(&mut engine.options, n);
            Ok(notes)
        }
        Kind::Combo { .. } | Kind::Button | Kind::Text { .. } => match option.act {
            Some(act) => act(engine, Value::Text(value)),
            None => Ok(Vec::new()),
        },
    }
}

/// The spin options of a tuning build (`--features tune`): one per row of
/// the search's `params`, listed after `OPTIONS`; none in a normal build.
pub fn tunable_options() -> impl Iterator<Item = &'static Param> {
    PARAMS.iter().filter(|_| params::TUNABLE)
}

/// `setoption` of a search parameter in a tuning build; in a normal build
/// every name that reaches here is unknown.
fn set_tunable(wanted: &str, name: &str, value: Option<&str>) -> Result<Vec<String>, OptionError> {
    let param = tunable_options()
        .find(|p| key(p.name) == wanted)
        .ok_or_else(|| OptionError::Unknown { name: echo(name) })?;
    let v = value.ok_or_else(|| OptionError::NeedsValue { name: echo(name) })?;
    let bad = || OptionError::NotANumber {
        name: echo(name),
        value: echo(v),
        min: param.min.unsigned_abs().into(),
        max: param.max.unsigned_abs().into(),
    };
    let n = v.trim().parse::<i64>().map_err(|_| bad())?;
    params::set(param.name, n).map_err(|_| bad())?;
    Ok(Vec::new())
}

/// `Hash`: reallocated now, so the next `readyok` finds it ready.
fn set_hash(engine: &mut Engine, value: Value<'_>) -> Result<Vec<String>, OptionError> {
    if let Value::Number(mb) = value {
        engine.shared = allocate_shared(mb as usize)?;
    }
    Ok(Vec::new())
}

/// `Game`: a new session of the named game at its start, a clear table.
fn set_game(engine: &mut Engine, value: Value<'_>) -> Result<Vec<String>, OptionError> {
    let Value::Text(Some(name)) = value else {
        return Err(OptionError::NeedsValue {
            name: "Game".to_string(),
        });
    };
    let session =
        new_session_with(name, &engine.host.networks).ok_or_else(|| OptionError::UnknownGame {
            value: name.to_string(),
        })?;
    engine.session = session;
    engine.shared.tt.clear();
    Ok(Vec::new())
}

/// `SiloTablePath`: reads the tables of a folder through the host (empty
/// or `<empty>`: none). Says what it loaded, and names each file skipped.
fn set_table_path(engine: &mut Engine, value: Value<'_>) -> Result<Vec<String>, OptionError> {
    let folder = match value {
        Value::Text(text) => text.map(str::trim).unwrap_or(""),
        Value::Number(_) => "",
    };
    if folder.is_empty() || folder == "<empty>" {
        engine.options.tables = None;
        return Ok(Vec::new());
    }
    let load = engine.host.table_loader.ok_or(OptionError::NoTableReader)?;
    let (tables, skipped) =
        SharedTables::open(Path::new(folder), load).map_err(OptionError::Tables)?;
    let mut notes: Vec<String> = skipped
        .into_iter()
        .map(|note| format!("SiloTablePath: {note}"))
        .collect();
    let found = tables.set.describe();
    notes.push(match found.len() {
        0 => format!("SiloTablePath: no table in {folder}"),
        n => format!("SiloTablePath: {n} table(s): {}", found.join("; ")),
    });
    engine.options.tables = Some(tables);
    Ok(notes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_are_the_table_s() {
        let o = Options::default();
        assert_eq!(
            (o.hash_mb, o.threads, o.move_overhead_ms, o.level, o.multipv),
            (DEFAULT_HASH_MB, 1, DEFAULT_MOVE_OVERHEAD_MS, MAX_LEVEL, 1)
        );
        assert!(o.tables.is_none());
    }

    #[test]
    fn names_match_in_any_case_without_spaces_and_every_name_once() {
        let mut engine = Engine::new(crate::Host::default());
        assert!(engine.set_option("clearhash", None).is_ok());
        assert!(engine.set_option("Move Overhead", Some("30")).is_ok());
        assert_eq!(engine.options().move_overhead_ms, 30);
        let e = engine.set_option("Level", Some("21")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "option Level: '21' is not a number from 1 to 20"
        );
        let keys: std::collections::HashSet<String> = OPTIONS
            .iter()
            .map(|o| key(o.name))
            .chain(PARAMS.iter().map(|p| key(p.name)))
            .collect();
        assert_eq!(keys.len(), OPTIONS.len() + PARAMS.len());
    }

    #[cfg(not(feature = "tune"))]
    #[test]
    fn a_normal_build_has_no_search_parameters() {
        let mut engine = Engine::new(crate::Host::default());
        assert_eq!(tunable_options().count(), 0);
        let e = engine.set_option("SearchLmpBase", Some("7")).unwrap_err();
        assert_eq!(e.to_string(), "unknown option 'SearchLmpBase'");
    }

    #[cfg(feature = "tune")]
    #[test]
    fn a_tuning_build_sets_search_parameters_in_range() {
        let mut engine = Engine::new(crate::Host::default());
        assert_eq!(tunable_options().count(), PARAMS.len());
        // Only this test touches this parameter (the values are global).
        let (i, p) = params::find("SearchAspirationMinDepth").unwrap();
        engine
            .set_option("Search Aspiration Min Depth", Some("7"))
            .unwrap();
        assert_eq!(params::value(i), 7);
        let too_big = (p.max + 1).to_string();
        let e = engine
            .set_option(p.name, Some(&too_big))
            .unwrap_err()
            .to_string();
        assert!(e.contains(&format!("from {} to {}", p.min, p.max)), "{e}");
        assert!(engine.set_option(p.name, Some("x")).is_err());
        assert!(engine.set_option(p.name, None).is_err());
        assert_eq!(params::value(i), 7);
        engine
            .set_option(p.name, Some(&p.default.to_string()))
            .unwrap();
    }
}
