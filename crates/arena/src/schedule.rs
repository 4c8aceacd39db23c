//! Which games a match plays: a pure function of the engine count, the game
//! budget, the number of openings and the seed, so a rerun (or a resumed
//! run) plays exactly the same games.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

use super::openings;

/// Who plays whom.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Tournament {
    /// Every engine against every other.
    #[default]
    Roundrobin,
    /// The first engine against every other; the others never meet, which
    /// saves games when only the first engine's strength is in question.
    Gauntlet,
}

impl Tournament {
    /// The engine pairs `(i, j)`, `i < j`, in schedule order.
    pub fn pairs(self, n_engines: usize) -> Vec<(usize, usize)> {
        match self {
            Tournament::Roundrobin => engine_pairs(n_engines),
            Tournament::Gauntlet => (1..n_engines).map(|j| (0, j)).collect(),
        }
    }
}

/// A `--tournament` or `--shard` value that does not read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ScheduleError {
    #[error("tournament '{0}': expected roundrobin or gauntlet")]
    Tournament(String),
    #[error("--shard {0}: expected K/N with 1 <= K <= N, e.g. 2/4")]
    Shard(String),
}

impl FromStr for Tournament {
    type Err = ScheduleError;
    fn from_str(s: &str) -> Result<Self, ScheduleError> {
        match s {
            "roundrobin" => Ok(Tournament::Roundrobin),
            "gauntlet" => Ok(Tournament::Gauntlet),
            _ => Err(ScheduleError::Tournament(s.to_string())),
        }
    }
}

/// `--shard K/N`: this process plays the K-th of N disjoint parts (1-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl FromStr for Shard {
    type Err = ScheduleError;
    fn from_str(s: &str) -> Result<Self, ScheduleError> {
        let bad = || ScheduleError::Shard(s.to_string());
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let index: u32 = k.trim().parse().map_err(|_| bad())?;
        let count: u32 = n.trim().parse().map_err(|_| bad())?;
        if index == 0 || count == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl Shard {
    /// Whether game `game` (1-based) belongs to this shard. The unit is the
    /// game pair (games 2p-1 and 2p: one opening, both colours), so every
    /// shard's records still form whole pairs for the pentanomial; pairs are
    /// dealt out in turn so every shard gets a fair share of the openings.
    pub fn owns(&self, game: u32) -> bool {
        let pair = (game.max(1) - 1) / 2;
        pair % self.count == self.index - 1
    }
}

/// One game of the schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Scheduled {
    /// 1-based, unique within the match: the key of a game in the records.
    pub game: u32,
    /// 1-based round: every engine pair plays one opening twice per round.
    pub round: u32,
    /// Index into the opening suite (0 when there is none).
    pub opening: usize,
    /// Engine indices (into the config's list) of player 1 and player 2.
    pub p1: usize,
    pub p2: usize,
}

/// The number of games actually played for a budget of `games`: rounded up
/// to whole rounds, where a round is every engine pair playing both colours.
pub fn total_games(n_engines: usize, games: u32) -> u32 {
    total_games_for(engine_pairs(n_engines).len(), games)
}

fn total_games_for(n_pairs: usize, games: u32) -> u32 {
    let per_round = (n_pairs as u32).max(1) * 2;
    games.div_ceil(per_round) * per_round
}

/// All engine pairs `(i, j)`, `i < j`, in order: (0,1), (0,2), ..., (1,2), ...
pub fn engine_pairs(n_engines: usize) -> Vec<(usize, usize)> {
    let mut v = Vec::new();
    for i in 0..n_engines {
        for j in i + 1..n_engines {
            v.push((i, j));
        }
    }
    v
}

/// The match: round by round, each engine pair plays the round's opening
/// first with the lower-numbered engine (the candidate) as player 1, then
/// with colours swapped. Openings are taken in file order, or in an order
/// shuffled by `seed`, and reused from the top when the suite runs out.
pub fn schedule(
    n_engines: usize,
    games: u32,
    n_openings: usize,
    seed: Option<u64>,
) -> Vec<Scheduled> {
    schedule_tournament(Tournament::Roundrobin, n_engines, games, n_openings, seed)
}

/// [`schedule`] for either kind of tournament: the same rounds over the
/// tournament's engine pairs.
pub fn schedule_tournament(
    kind: Tournament,
    n_engines: usize,
    games: u32,
    n_openings: usize,
    seed: Option<u64>,
) -> Vec<Scheduled> {
    let pairs = kind.pairs(n_engines);
    if pairs.is_empty() {
        return Vec::new();
    }
    let total = total_games_for(pairs.len(), games);
    let rounds = total / (pairs.len() as u32 * 2);
    let order = openings::order(n_openings.max(1), seed);
    let mut out = Vec::with_capacity(total as usize);
    for r in 0..rounds {
        let opening = order[r as usize % order.len()];
        for &(i, j) in &pairs {
            for (p1, p2) in [(i, j), (j, i)] {
                out.push(Scheduled {
                    game: out.len() as u32 + 1,
                    round: r + 1,
                    opening,
                    p1,
                    p2,
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn pairs_swap_colours_on_the_same_opening() {
        let s = schedule(2, 7, 5, Some(1));
        assert_eq!(s.len(), 8, "7 games round up to 4 pairs");
        for pair in s.chunks(2) {
            assert_eq!(pair[0].opening, pair[1].opening);
            assert_eq!(pair[0].round, pair[1].round);
            assert_eq!((pair[0].p1, pair[0].p2), (0, 1));
            assert_eq!((pair[1].p1, pair[1].p2), (1, 0));
        }
        let games: Vec<u32> = s.iter().map(|g| g.game).collect();
        assert_eq!(games, (1..=8).collect::<Vec<_>>());
    }

    #[test]
    fn same_seed_same_schedule_other_seed_other_order() {
        assert_eq!(schedule(2, 40, 20, Some(9)), schedule(2, 40, 20, Some(9)));
        assert_ne!(schedule(2, 40, 20, Some(9)), schedule(2, 40, 20, Some(10)));
        let seq: Vec<usize> = schedule(2, 6, 10, None).iter().map(|g| g.opening).collect();
        assert_eq!(seq, vec![0, 0, 1, 1, 2, 2]);
    }

    #[test]
    fn openings_distinct_until_the_suite_runs_out() {
        let s = schedule(2, 40, 20, Some(3));
        let first: HashSet<usize> = s[..40].iter().map(|g| g.opening).collect();
        assert_eq!(first.len(), 20);
        let s = schedule(2, 60, 20, Some(3));
        assert_eq!(
            s[40].opening, s[0].opening,
            "wraps around in the same order"
        );
        // A bigger budget only appends games: `--resume --games more` extends a match.
        assert_eq!(
            schedule(2, 60, 20, Some(3))[..40],
            schedule(2, 40, 20, Some(3))[..]
        );
    }

    #[test]
    fn round_robin_of_three() {
        let s = schedule(3, 1, 4, None);
        assert_eq!(s.len(), 6);
        let matchups: Vec<(usize, usize)> = s.iter().map(|g| (g.p1, g.p2)).collect();
        assert_eq!(
            matchups,
            vec![(0, 1), (1, 0), (0, 2), (2, 0), (1, 2), (2, 1)]
        );
        assert_eq!(total_games(3, 7), 12);
        assert!(schedule(1, 10, 1, None).is_empty());
    }

    #[test]
    fn gauntlet_pairs_the_first_engine_with_each_other() {
        let s = schedule_tournament(Tournament::Gauntlet, 4, 1, 4, None);
        let matchups: Vec<(usize, usize)> = s.iter().map(|g| (g.p1, g.p2)).collect();
        assert_eq!(
            matchups,
            vec![(0, 1), (1, 0), (0, 2), (2, 0), (0, 3), (3, 0)]
        );
    }

    #[test]
    fn shards_split_whole_pairs_disjointly() {
        let plan = schedule(3, 60, 10, Some(5));
        let shards: Vec<Shard> = (1..=4).map(|k| format!("{k}/4").parse().unwrap()).collect();
        for g in &plan {
            let owners = shards.iter().filter(|s| s.owns(g.game)).count();
            assert_eq!(owners, 1, "game {} has exactly one shard", g.game);
        }
        for pair in plan.chunks(2) {
            for s in &shards {
                assert_eq!(s.owns(pair[0].game), s.owns(pair[1].game));
            }
        }
        for bad in ["0/2", "3/2", "1/0", "x/2", "1", "1/2/3", "-1/2", ""] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }
}
