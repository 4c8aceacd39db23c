//! Match configuration: engines (from `key=value` tokens or JSON), limits,
//! timeouts and adjudication, with every default named in one place.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

use super::schedule::Tournament;
use super::stats::SprtConfig;
use super::ArenaError;
pub use stackfish_client::spec::*;

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

/// Most games one run plays. The schedule of every game is made before the
/// first one, and every finished game is kept for the statistics, so a
/// count far beyond any real match (4,000,000,000) would abort on its first
/// allocation; a longer match is several runs (other `--seed`s) whose
/// records `arena merge` adds up.
pub const MAX_GAMES: u32 = 1_000_000;
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
    /// Resign: `true` (the default), both engines must agree (the loser
    /// <= -score and the winner >= score); `false`, the loser's own scores
    /// alone decide, as fastchess's default `twosided=false`. Draw
    /// adjudication always needs both.
    #[serde(default = "d_true")]
    pub twosided: bool,
}

fn d_true() -> bool {
    true
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
    #[serde(default = "d_games", deserialize_with = "lenient::number")]
    pub games: u32,
    #[serde(default = "d_one", deserialize_with = "lenient::number")]
    pub concurrency: u32,
    #[serde(default)]
    pub openings: Option<PathBuf>,
    /// Shuffles the openings with this seed; sequential order without one.
    #[serde(default, deserialize_with = "lenient::number_opt")]
    pub seed: Option<u64>,
    #[serde(default = "d_max_plies", deserialize_with = "lenient::number")]
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
    #[serde(default = "d_rating_interval", deserialize_with = "lenient::number")]
    pub ratinginterval: u32,
    /// An option an engine refuses (`info string error`) or never
    /// advertised is a warning, not a config error that stops the match.
    #[serde(default)]
    pub allow_bad_options: bool,
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
            allow_bad_options: false,
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
            e.validate()?;
        }
        let mut names: Vec<&str> = self.engines.iter().map(|e| e.name.as_str()).collect();
        names.sort_unstable();
        if names.windows(2).any(|w| w[0] == w[1]) {
            return Err(ArenaError::Config("engine names must be distinct".into()));
        }
        if self.game.trim().is_empty() {
            return Err(ArenaError::Config("--game is empty".into()));
        }
        if self.referee == Referee::Rules
            && stackfish_games::variants::new_game(&self.game).is_none()
        {
            return Err(ArenaError::Config(format!(
                "unknown game '{}' (known: {}; --referee engines lets the engines judge other games)",
                self.game,
                stackfish_games::variant_names().join(", ")
            )));
        }
        if self.games == 0 {
            return Err(ArenaError::Config("--games must be at least 1".into()));
        }
        if self.games > MAX_GAMES {
            return Err(ArenaError::Config(format!(
                "--games {}: at most {MAX_GAMES} games in one run (play a longer match as several runs with other --seed values and add their records up with `arena merge`)",
                self.games
            )));
        }
        if self.concurrency == 0 {
            return Err(ArenaError::Config(
                "--concurrency must be at least 1".into(),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn json_numbers_may_be_strings_and_option_values_numbers() {
        // Issue 23: each of these was refused with a raw serde message.
        let cfg: MatchConfig = serde_json::from_str(
            r#"{"engines":[{"name":"a","cmd":"x","st":"0.01","options":{"Level":3,"Ponder":false}},
                           {"name":"b","cmd":"y","depth":"3","nodes":"500","tc":10,"timemargin":"50"}],
                "games":"6","concurrency":"2","seed":"7","maxplies":"100","ratinginterval":"0",
                "timeouts":{"ping_ms":"500"}}"#,
        )
        .unwrap();
        let (a, b) = (&cfg.engines[0], &cfg.engines[1]);
        assert_eq!(a.st, Some(0.01));
        assert_eq!(a.options.get("Level").map(String::as_str), Some("3"));
        assert_eq!(a.options.get("Ponder").map(String::as_str), Some("false"));
        assert_eq!(
            (b.depth, b.nodes, b.timemargin),
            (Some(3), Some(500), Some(50))
        );
        assert_eq!(b.tc.as_deref(), Some("10"));
        assert_eq!((cfg.games, cfg.concurrency, cfg.seed), (6, 2, Some(7)));
        assert_eq!((cfg.maxplies, cfg.ratinginterval), (100, 0));
        assert_eq!(cfg.timeouts.ping_ms, 500);
        // What is not a number still fails, in words a person reads.
        let err = serde_json::from_str::<MatchConfig>(
            r#"{"engines":[{"name":"a","cmd":"x","depth":"three"}]}"#,
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("expected a whole number, found \"three\""),
            "{err}"
        );
        let err = serde_json::from_str::<MatchConfig>(r#"{"engines":[],"games":-2}"#)
            .unwrap_err()
            .to_string();
        assert!(err.contains("whole number"), "{err}");
    }
}
