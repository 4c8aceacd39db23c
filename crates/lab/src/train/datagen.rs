//! Self-play games for training the Mixtour network: `stackfish datagen`.
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
use stackfish_games::mixtour::{Mixtour, MixtourVariant};
use stackfish_games::{Game, GameResult, Outcome};
use stackfish_record::{GameRecord, MoveRecord};
use stackfish_search::limits::Limits;
use stackfish_search::{mate_in, search, Heuristics, SearchParams, Shared, WIN_BOUND};
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Mutex};

/// What `run` plays.
#[derive(Clone, Debug)]
pub struct Settings {
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
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            games: 1000,
            first: 0,
            skip: Default::default(),
            nodes: 5000,
            random_plies: (6, 12),
            threads: 1,
            seed: 1,
            max_plies: 300,
            hash_mb: 8,
        }
    }
}

/// The game indices `run` plays: the range less the ones to skip.
pub fn planned(settings: &Settings) -> Vec<usize> {
    (settings.first..settings.first + settings.games)
        .filter(|i| !settings.skip.contains(i))
        .collect()
}

/// Plays the games of `settings` ([`planned`]) and writes each to `out` as
/// it ends; `progress` hears the number of games written so far. Returns
/// that number, or the first write error.
pub fn run(
    settings: &Settings,
    out: &mut (dyn Write + Send),
    progress: &(dyn Fn(usize) + Sync),
) -> std::io::Result<usize> {
    let plan = planned(settings);
    let next = AtomicUsize::new(0);
    let out = Mutex::new((out, 0usize, None::<std::io::Error>));
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
                    let line = json_line(&record);
                    match line
                        .and_then(|l| writeln!(w, "{l}"))
                        .and_then(|_| w.flush())
                    {
                        Ok(()) => {
                            *written += 1;
                            progress(*written);
                        }
                        Err(e) => *error = Some(e),
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

/// One game from seed `settings.seed` and game number `index`, as a record.
pub fn play(
    settings: &Settings,
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
    let mut line = Line::<Mixtour>::new(MixtourVariant::STANDARD);
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
        variant: "mixtour".to_string(),
        player1: "stackfish".to_string(),
        player2: "stackfish".to_string(),
        fen: None,
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
        let (positions, skipped) = positions_from_records(&text);
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
        let played: Vec<GameRecord> = (0..2).map(|i| play(&s, i, &shared, &mut h)).collect();
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
        let a = play(&s, 3, &shared, &mut h);
        let _ = play(&s, 0, &shared, &mut h);
        let b = play(
            &s,
            3,
            &Arc::new(Shared::new(1)),
            &mut [Heuristics::default()],
        );
        assert_eq!(a, b);
        let c = play(&s, 2, &shared, &mut h);
        assert_ne!(a.moves, c.moves);
    }
}
