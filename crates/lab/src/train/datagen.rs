//! Self-play games for training the evaluations: `stackfish datagen`.
//! Any variant (`Settings::game`), from its start or a given position
//! (`Settings::fen`: Mixtour to 2 or 3 points, say).
//!
//! Each game starts with a few random plies (marked `book`, so training
//! skips them) and is then played by the engine against itself at a fixed
//! node count with one thread, so a game depends only on its seed. The
//! games are written as game records (`stackfish_record::GameRecord`: the
//! fields `train` reads, `variant`, `result`, `termination`, `moves` with
//! `cp` or `mate`, and the run's `nodes` and `seed`, none of a match's),
//! one line per finished game, flushed at once, so an interrupted run keeps
//! every game it finished. Several games run at once, one per thread.

use rand::{Rng, SeedableRng};
use stackfish_games::line::Line;
use stackfish_games::variants::{with_variant, VariantVisitor};
use stackfish_games::{FenError, Game, GameResult, Networks, Outcome};
use stackfish_record::{GameRecord, MoveRecord};
use stackfish_search::limits::Limits;
use stackfish_search::{mate_in, search, Heuristics, SearchParams, Shared, WIN_BOUND};
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Mutex};

/// What `run` plays.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The variant played (a name of `variants::variant_names`).
    pub game: String,
    /// The position every game starts from; `None`: the variant's start.
    pub fen: Option<String>,
    /// Games of this run: indices `first..first + games` (game k is record `game` k + 1).
    pub games: usize,
    /// The index of the first game: a shard of a larger run plays its own range.
    pub first: usize,
    /// Indices in the range already recorded (a resumed run): not played again.
    pub skip: std::collections::BTreeSet<usize>,
    /// Nodes per move.
    pub nodes: u64,
    /// Random plies at the start of each game, at least and at most.
    pub random_plies: (usize, usize),
    /// Games played at once.
    pub threads: usize,
    pub seed: u64,
    /// Plies after which a game is a draw.
    pub max_plies: usize,
    pub hash_mb: usize,
    /// The networks the searches play (each game its own).
    pub networks: Networks,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            game: "mixtour".to_string(),
            fen: None,
            games: 1000,
            first: 0,
            skip: Default::default(),
            nodes: 5000,
            random_plies: (6, 12),
            threads: 1,
            seed: 1,
            max_plies: 300,
            hash_mb: 8,
            networks: Networks::default(),
        }
    }
}

/// The game indices `run` plays: the range less the ones to skip.
pub fn planned(settings: &Settings) -> Vec<usize> {
    (settings.first..settings.first + settings.games)
        .filter(|i| !settings.skip.contains(i))
        .collect()
}

/// Why `run` cannot play `settings`.
#[derive(Debug, thiserror::Error)]
pub enum DatagenError {
    #[error("unknown game {0:?}")]
    UnknownGame(String),
    #[error("start position: {0}")]
    Fen(#[from] FenError),
    #[error("the start position is already over")]
    Over,
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// Checks that `settings` name a known game and a playable start, before
/// anything is written.
pub fn check(settings: &Settings) -> Result<(), DatagenError> {
    struct Check<'a>(&'a Settings);
    impl VariantVisitor for Check<'_> {
        type Output = Result<(), DatagenError>;
        fn visit<G: Game>(self, _: &'static str, variant: G::Variant) -> Self::Output {
            let line = start_line::<G>(&variant, self.0.fen.as_deref())?;
            if line.outcome().is_over() {
                return Err(DatagenError::Over);
            }
            Ok(())
        }
    }
    with_variant(&settings.game, Check(settings))
        .unwrap_or_else(|| Err(DatagenError::UnknownGame(settings.game.clone())))
}

fn start_line<G: Game>(variant: &G::Variant, fen: Option<&str>) -> Result<Line<G>, FenError> {
    match fen {
        None => Ok(Line::new(variant.clone())),
        Some(fen) => Line::from_fen(variant.clone(), fen),
    }
}

/// Plays the games of `settings` ([`planned`]) and writes each to `out` as
/// it ends; `progress` hears the number of games written so far. Returns
/// that number, or the first error (nothing is written when the settings
/// do not [`check`]).
pub fn run(
    settings: &Settings,
    out: &mut (dyn Write + Send),
    progress: &(dyn Fn(usize) + Sync),
) -> Result<usize, DatagenError> {
    check(settings)?;
    let plan = planned(settings);
    let next = AtomicUsize::new(0);
    let out = Mutex::new((out, 0usize, None::<DatagenError>));
    std::thread::scope(|scope| {
        for _ in 0..settings.threads.max(1) {
            scope.spawn(|| {
                let shared = Arc::new(Shared::new(settings.hash_mb));
                let mut heuristics = vec![Heuristics::default()];
                loop {
                    let Some(&i) = plan.get(next.fetch_add(1, Relaxed)) else {
                        return;
                    };
                    let record = play(settings, i as u64, &shared, &mut heuristics);
                    let mut guard = out.lock().unwrap_or_else(|e| e.into_inner());
                    let (w, written, error) = &mut *guard;
                    if error.is_some() {
                        return;
                    }
                    let Some(record) = record else {
                        // `check` passed, so the start reads: unreachable.
                        *error = Some(DatagenError::Over);
                        return;
                    };
                    let line = json_line(&record);
                    match line
                        .and_then(|l| writeln!(w, "{l}"))
                        .and_then(|_| w.flush())
                    {
                        Ok(()) => {
                            *written += 1;
                            progress(*written);
                        }
                        Err(e) => *error = Some(e.into()),
                    }
                }
            });
        }
    });
    let (_, written, error) = out.into_inner().unwrap_or_else(|e| e.into_inner());
    match error {
        Some(e) => Err(e),
        None => Ok(written),
    }
}

/// A record as one JSON line with its keys in alphabetical order, as
/// datagen has always written them (a JSON map), so that a seed gives the
/// same bytes as before records were typed.
fn json_line(record: &GameRecord) -> std::io::Result<String> {
    serde_json::to_value(record)
        .map(|v| v.to_string())
        .map_err(std::io::Error::other)
}

/// One game from seed `settings.seed` and game number `index`, as a
/// record; `None` for settings that do not [`check`].
pub fn play(
    settings: &Settings,
    index: u64,
    shared: &Arc<Shared>,
    heuristics: &mut [Heuristics],
) -> Option<GameRecord> {
    struct Play<'a> {
        settings: &'a Settings,
        index: u64,
        shared: &'a Arc<Shared>,
        heuristics: &'a mut [Heuristics],
    }
    impl VariantVisitor for Play<'_> {
        type Output = Option<GameRecord>;
        fn visit<G: Game>(self, name: &'static str, variant: G::Variant) -> Self::Output {
            let line = start_line::<G>(&variant, self.settings.fen.as_deref()).ok()?;
            Some(play_from(
                self.settings,
                name,
                line,
                self.index,
                self.shared,
                self.heuristics,
            ))
        }
        /// The fast type when the start is on its board (the standard
        /// Mixtour board), the general one otherwise.
        fn visit_shaped<F: Game, G: Game<Variant = F::Variant>>(
            self,
            name: &'static str,
            variant: G::Variant,
        ) -> Self::Output {
            match start_line::<F>(&variant, self.settings.fen.as_deref()) {
                Ok(line) => Some(play_from(
                    self.settings,
                    name,
                    line,
                    self.index,
                    self.shared,
                    self.heuristics,
                )),
                Err(_) => self.visit::<G>(name, variant),
            }
        }
    }
    let visitor = Play {
        settings,
        index,
        shared,
        heuristics,
    };
    with_variant(&settings.game, visitor).flatten()
}

fn play_from<G: Game>(
    settings: &Settings,
    name: &str,
    mut line: Line<G>,
    index: u64,
    shared: &Arc<Shared>,
    heuristics: &mut [Heuristics],
) -> GameRecord {
    let mut rng = rand::rngs::StdRng::seed_from_u64(
        settings.seed ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15),
    );
    shared.tt.clear();
    for h in heuristics.iter_mut() {
        h.clear();
    }
    let mut moves = Vec::new();
    let mut legal = Vec::new();
    let (lo, hi) = settings.random_plies;
    for _ in 0..rng.gen_range(lo..=hi.max(lo)) {
        if line.outcome().is_over() {
            break;
        }
        legal.clear();
        line.position().generate_moves(&mut legal);
        let mv = legal[rng.gen_range(0..legal.len())];
        line.play(mv);
        moves.push(MoveRecord::book(&mv.to_string()));
    }
    let limits = Limits {
        nodes: Some(settings.nodes),
        ..Limits::default()
    };
    let params = SearchParams {
        limits: &limits,
        move_overhead_ms: 0,
        threads: 1,
        exact: false,
        multipv: 1,
        root_moves: &[],
        nets: &G::nets(&settings.networks),
    };
    let (result, reason) = loop {
        if let Outcome::Over { result, reason } = line.outcome() {
            break (result, reason);
        }
        if line.moves().len() >= settings.max_plies {
            break (GameResult::Draw, "move limit");
        }
        shared.arm();
        let found = search(
            line.position(),
            line.keys(),
            shared,
            heuristics,
            &params,
            &mut |_| {},
        );
        let Some(found) = found else {
            // No legal move in an ongoing game: the rules forbid it, and
            // the game counts as drawn rather than invented.
            break (GameResult::Draw, "no legal move");
        };
        let mut entry = MoveRecord {
            mv: found.best.to_string(),
            ..MoveRecord::default()
        };
        if found.score.abs() < WIN_BOUND {
            entry.cp = Some(found.score);
        } else {
            entry.mate = mate_in(found.score);
        }
        moves.push(entry);
        line.play(found.best);
    };
    GameRecord {
        game: u32::try_from(index + 1).unwrap_or(u32::MAX),
        round: None,
        opening: None,
        event: "stackfish datagen".to_string(),
        date: None,
        variant: name.to_string(),
        player1: "stackfish".to_string(),
        player2: "stackfish".to_string(),
        fen: settings.fen.clone(),
        moves,
        result: result.pgn().to_string(),
        termination: reason.to_string(),
        time_control: None,
        duration_ms: None,
        nodes: Some(settings.nodes),
        seed: Some(settings.seed),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::train::positions_from_records;
    use stackfish_games::mixtour::{Mixtour, MixtourVariant};

    fn small() -> Settings {
        Settings {
            games: 4,
            nodes: 300,
            threads: 2,
            seed: 7,
            ..Settings::default()
        }
    }

    /// Every record replays legally to the result it states, and the
    /// trainer reads positions with scores from it.
    #[test]
    fn records_replay_to_their_results_and_feed_the_trainer() {
        let mut out = Vec::new();
        let n = run(&small(), &mut out, &|_| {}).unwrap();
        assert_eq!(n, 4);
        let text = String::from_utf8(out).unwrap();
        assert_eq!(text.lines().count(), 4);
        for l in text.lines() {
            let r: serde_json::Value = serde_json::from_str(l).unwrap();
            let mut line = Line::<Mixtour>::new(MixtourVariant::STANDARD);
            for m in r["moves"].as_array().unwrap() {
                line.play_text(m["move"].as_str().unwrap()).unwrap();
            }
            let stated = r["result"].as_str().unwrap();
            match line.outcome() {
                Outcome::Over { result, .. } => assert_eq!(result.pgn(), stated),
                Outcome::Ongoing => assert_eq!(r["termination"], "move limit"),
            }
        }
        let (positions, skipped) = positions_from_records(&text, super::super::Trained::Mixtour);
        assert_eq!(skipped, 0);
        assert!(
            positions.iter().any(|p| p.cp.is_some()),
            "no scored positions"
        );
    }

    /// What is written reads back, through the record reader the tools
    /// use, as the records played.
    #[test]
    fn written_lines_read_back_as_the_records_played() {
        let s = Settings {
            games: 2,
            threads: 1,
            ..small()
        };
        let mut out = Vec::new();
        run(&s, &mut out, &|_| {}).unwrap();
        let text = String::from_utf8(out).unwrap();
        let read: Vec<GameRecord> = stackfish_record::records(&text)
            .map(|(_, r)| r.unwrap())
            .collect();
        let shared = Arc::new(Shared::new(s.hash_mb));
        let mut h = vec![Heuristics::default()];
        let played: Vec<GameRecord> = (0..2)
            .map(|i| play(&s, i, &shared, &mut h).unwrap())
            .collect();
        assert_eq!(read, played);
        assert_eq!(
            (read[0].nodes, read[0].seed, read[0].round),
            (Some(300), Some(7), None)
        );
    }

    /// A game depends on its seed and number only, not on the thread that
    /// played it or on the game before it.
    #[test]
    fn a_game_is_fixed_by_its_seed_and_number() {
        let s = small();
        let shared = Arc::new(Shared::new(1));
        let mut h = vec![Heuristics::default()];
        let a = play(&s, 3, &shared, &mut h).unwrap();
        let _ = play(&s, 0, &shared, &mut h);
        let b = play(
            &s,
            3,
            &Arc::new(Shared::new(1)),
            &mut [Heuristics::default()],
        )
        .unwrap();
        assert_eq!(a, b);
        let c = play(&s, 2, &shared, &mut h).unwrap();
        assert_ne!(a.moves, c.moves);
    }

    /// A given start (Mixtour to 2 points) is where every game begins,
    /// recorded as the record's `fen`; the games replay from it to their
    /// results, and a player wins only with 2 points.
    #[test]
    fn games_start_from_the_given_position() {
        let fen = "x5/x5/x5/x5/x5 1 20,20 0,0 2 -";
        let s = Settings {
            fen: Some(fen.to_string()),
            games: 3,
            ..small()
        };
        let mut out = Vec::new();
        assert_eq!(run(&s, &mut out, &|_| {}).unwrap(), 3);
        for l in String::from_utf8(out).unwrap().lines() {
            let r: GameRecord = serde_json::from_str(l).unwrap();
            assert_eq!(
                (r.variant.as_str(), r.fen.as_deref()),
                ("mixtour", Some(fen))
            );
            let mut line = Line::<Mixtour>::from_fen(MixtourVariant::STANDARD, fen).unwrap();
            for m in &r.moves {
                line.play_text(&m.mv).unwrap();
            }
            if let Outcome::Over { result, .. } = line.outcome() {
                assert_eq!(result.pgn(), r.result);
                if let Some(w) = result.winner() {
                    assert_eq!(line.position().score(w), 2, "{l}");
                }
            }
        }
    }

    /// Focus plays as well, recorded under its own name.
    #[test]
    fn another_game_plays_under_its_name() {
        let s = Settings {
            game: "focus".to_string(),
            games: 1,
            ..small()
        };
        let mut out = Vec::new();
        assert_eq!(run(&s, &mut out, &|_| {}).unwrap(), 1);
        let r: GameRecord =
            serde_json::from_str(std::str::from_utf8(&out).unwrap().trim()).unwrap();
        assert_eq!(r.variant, "focus");
        assert!(r.moves.len() > 12, "{} moves", r.moves.len());
    }

    /// A bad game or start is refused before anything is written.
    #[test]
    fn a_bad_game_or_start_writes_nothing() {
        for (game, fen, want) in [
            ("chess", None, "unknown game"),
            ("mixtour", Some("x5/x5 1"), "start position"),
            (
                "mixtour",
                Some("x5/x5/x5/x5/x5 1 20,20 1,0 1 -"),
                "already over",
            ),
        ] {
            let s = Settings {
                game: game.to_string(),
                fen: fen.map(str::to_string),
                ..small()
            };
            let mut out = Vec::new();
            let e = run(&s, &mut out, &|_| {}).unwrap_err().to_string();
            assert!(e.contains(want), "{game} {fen:?}: {e}");
            assert!(out.is_empty());
        }
    }
}
