//! Tournament ratings for N engines: maximum-likelihood logistic Elo with 95% intervals, and the cross table.
//!
//! The model is Bradley–Terry on the Elo scale, as Ordo uses it: engine i scores
//! 1 / (1 + 10^((r_j - r_i) / 400)) against j on average, a draw counts as half a win for each
//! side. Ratings maximize the likelihood of all games; intervals come from the observed Fisher
//! information, which is deterministic (no bootstrap seed to manage) and exact for this model
//! (its second derivative does not depend on the results).

use super::stats::{GameResult, Trinomial, Z_95};
use serde::{Deserialize, Serialize};
use std::f64::consts::LN_10;
use std::fmt;

/// When no maximum-likelihood solution exists (some group of players never dropped half a point
/// against the rest: the likelihood keeps growing as the gap does), every pair across such a
/// split gets this many virtual drawn games, which makes the gap finite (a 5-0 pair ends about
/// 530 Elo apart, 100-0 about 1040) while leaving pairs inside a group as they were.
pub const VIRTUAL_DRAWS: f64 = 0.5;

/// Newton steps larger than this are cut, so a far-off start cannot overshoot wildly.
const MAX_STEP: f64 = 400.0;

/// Convergence: no rating moves more than this many Elo in a step.
const TOLERANCE: f64 = 1e-9;

/// Newton converges in a handful of steps; the step cap adds a few for large gaps.
const MAX_ITERATIONS: usize = 200;

/// Tiny diagonal term that keeps the information matrix invertible along the free overall level
/// (and between disconnected groups), relative to its largest entry.
const RIDGE: f64 = 1e-12;

/// d(expected score)/d(rating difference) at equal ratings is C/4; C converts Elo to logits.
const C: f64 = LN_10 / 400.0;

/// One game between two players (indices into the name list); `result` is `first`'s.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameRecord {
    pub first: usize,
    pub second: usize,
    pub result: GameResult,
}

/// Fixes the free overall level of the ratings.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Anchor {
    /// The average rating of the players with games is this value.
    Average(f64),
    /// This player has exactly this rating.
    Player { index: usize, rating: f64 },
}

/// Why a list of games could not be rated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RatingsError {
    /// Game number `game` names a player index outside the name list.
    UnknownPlayer { game: usize, player: usize },
    /// Game number `game` pairs a player with itself.
    SelfPairing { game: usize },
    /// The anchor player index is outside the name list.
    UnknownAnchor { player: usize },
    /// The anchor player has played no games, so it cannot fix anyone's level.
    AnchorWithoutGames { player: usize },
    /// The anchor rating is not a finite number.
    AnchorNotFinite,
}

impl fmt::Display for RatingsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RatingsError::UnknownPlayer { game, player } => {
                write!(f, "game {game} names unknown player {player}")
            }
            RatingsError::SelfPairing { game } => {
                write!(f, "game {game} pairs a player with itself")
            }
            RatingsError::UnknownAnchor { player } => {
                write!(f, "anchor player {player} is unknown")
            }
            RatingsError::AnchorWithoutGames { player } => {
                write!(f, "anchor player {player} has no games")
            }
            RatingsError::AnchorNotFinite => write!(f, "anchor rating is not finite"),
        }
    }
}

impl std::error::Error for RatingsError {}

/// One player's line of the rating list.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RatingRow {
    pub name: String,
    pub rating: f64,
    /// Half-width of the 95% interval relative to the anchor; `None` when it does not exist: no
    /// games, no maximum-likelihood solution (see `Ratings::maximum_likelihood`), or players in
    /// separate groups that never met. The anchor player's own error is 0.
    pub error: Option<f64>,
    /// All games of the player, its wins, draws and losses.
    pub record: Trinomial,
}

/// Ratings of all players, in the order of the name list.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Ratings {
    pub rows: Vec<RatingRow>,
    pub anchor: Anchor,
    /// False when the players with games fall into groups that never met: ratings are then only
    /// comparable within a group.
    pub connected: bool,
    /// False when no maximum-likelihood solution exists: some group of players won or lost every
    /// game against the rest, or groups never met (`connected` is false). The ratings then
    /// include VIRTUAL_DRAWS across such splits and carry no intervals.
    pub maximum_likelihood: bool,
}

impl Ratings {
    /// Player indices from the highest rating down; ties keep the name-list order.
    pub fn ranking(&self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.rows.len()).collect();
        order.sort_by(|&a, &b| self.rows[b].rating.total_cmp(&self.rows[a].rating));
        order
    }
}

/// Per pair of players, the record of the row player against the column player.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CrossTable {
    pub names: Vec<String>,
    /// `cells[i][j]` is i's W/D/L against j; the diagonal stays empty.
    pub cells: Vec<Vec<Trinomial>>,
}

impl CrossTable {
    /// Builds the table; fails on a game naming an unknown player or pairing one with itself.
    pub fn new(names: &[String], games: &[GameRecord]) -> Result<Self, RatingsError> {
        let n = names.len();
        let mut cells = vec![vec![Trinomial::default(); n]; n];
        for (index, game) in games.iter().enumerate() {
            check_game(index, game, n)?;
            cells[game.first][game.second].add(game.result);
            cells[game.second][game.first].add(game.result.reversed());
        }
        Ok(CrossTable {
            names: names.to_vec(),
            cells,
        })
    }
}

fn check_game(index: usize, game: &GameRecord, players: usize) -> Result<(), RatingsError> {
    for player in [game.first, game.second] {
        if player >= players {
            return Err(RatingsError::UnknownPlayer {
                game: index,
                player,
            });
        }
    }
    if game.first == game.second {
        return Err(RatingsError::SelfPairing { game: index });
    }
    Ok(())
}

/// Games and points of one unordered pair, for the likelihood.
struct PairTally {
    i: usize,
    j: usize,
    games: f64,
    /// Points of i against j.
    points: f64,
}

/// Maximum-likelihood ratings with 95% intervals. Fails on malformed games or anchor; any
/// well-formed input, including no games at all, gives finite ratings (players without games
/// sit at the anchor level with no error).
pub fn compute_ratings(
    names: &[String],
    games: &[GameRecord],
    anchor: Anchor,
) -> Result<Ratings, RatingsError> {
    let cross = CrossTable::new(names, games)?;
    let n = names.len();
    let records: Vec<Trinomial> = (0..n)
        .map(|i| {
            cross.cells[i].iter().fold(Trinomial::default(), |acc, t| {
                Trinomial::new(
                    acc.wins + t.wins,
                    acc.draws + t.draws,
                    acc.losses + t.losses,
                )
            })
        })
        .collect();
    let active: Vec<bool> = records.iter().map(|r| r.games() > 0).collect();
    let level = anchor_level(anchor, &active)?;

    let mut pairs = pair_tallies(&cross);

    let connected = is_connected(&pairs, &active);
    let groups = score_groups(&cross);
    let maximum_likelihood = connected && (0..n).all(|i| !active[i] || groups[i] == groups[0]);
    if !maximum_likelihood {
        for p in pairs.iter_mut().filter(|p| groups[p.i] != groups[p.j]) {
            p.games += VIRTUAL_DRAWS;
            p.points += VIRTUAL_DRAWS / 2.0;
        }
    }

    let ratings = fit(&pairs, &active);

    let errors = if maximum_likelihood {
        rating_errors(&ratings, &pairs, &active, anchor)
    } else {
        vec![None; n]
    };
    let offset = match anchor {
        Anchor::Average(level) => level,
        Anchor::Player { index, rating } => rating - ratings[index],
    };
    let rows = (0..n)
        .map(|i| RatingRow {
            name: names[i].clone(),
            rating: if active[i] {
                ratings[i] + offset
            } else {
                level
            },
            error: errors[i],
            record: records[i],
        })
        .collect();
    Ok(Ratings {
        rows,
        anchor,
        connected,
        maximum_likelihood,
    })
}

/// The rating level the anchor sets; an error for an anchor that is not a
/// player with games, or not finite.
fn anchor_level(anchor: Anchor, active: &[bool]) -> Result<f64, RatingsError> {
    let level = match anchor {
        Anchor::Average(level) => level,
        Anchor::Player { index, rating } => {
            if index >= active.len() {
                return Err(RatingsError::UnknownAnchor { player: index });
            }
            if !active[index] {
                return Err(RatingsError::AnchorWithoutGames { player: index });
            }
            rating
        }
    };
    if !level.is_finite() {
        return Err(RatingsError::AnchorNotFinite);
    }
    Ok(level)
}

/// The games and points of every pair that played, i before j.
fn pair_tallies(cross: &CrossTable) -> Vec<PairTally> {
    let n = cross.cells.len();
    let mut pairs = Vec::new();
    for i in 0..n {
        for j in i + 1..n {
            let t = cross.cells[i][j];
            if t.games() > 0 {
                pairs.push(PairTally {
                    i,
                    j,
                    games: t.games() as f64,
                    points: t.points(),
                });
            }
        }
    }
    pairs
}

/// The ratings by Newton's method, centred on the mean of the active
/// players (the anchor is applied by the caller).
fn fit(pairs: &[PairTally], active: &[bool]) -> Vec<f64> {
    let n = active.len();
    let mut ratings = vec![0.0; n];
    for _ in 0..MAX_ITERATIONS {
        let (gradient, information) = derivatives(&ratings, pairs);
        let step = solve(information, gradient).unwrap_or_else(|| vec![0.0; n]);
        let previous = ratings.clone();
        for (r, s) in ratings.iter_mut().zip(&step) {
            *r += s.clamp(-MAX_STEP, MAX_STEP);
        }
        centre(&mut ratings, active);
        let moved = ratings
            .iter()
            .zip(&previous)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        if moved < TOLERANCE {
            break;
        }
    }
    ratings
}

/// Gradient of the log-likelihood and the information matrix (its negated Hessian, plus the
/// ridge), both in Elo units.
fn derivatives(ratings: &[f64], pairs: &[PairTally]) -> (Vec<f64>, Vec<Vec<f64>>) {
    let n = ratings.len();
    let mut gradient = vec![0.0; n];
    let mut information = vec![vec![0.0; n]; n];
    for p in pairs {
        let expected = 1.0 / (1.0 + 10f64.powf((ratings[p.j] - ratings[p.i]) / 400.0));
        let g = C * (p.points - p.games * expected);
        gradient[p.i] += g;
        gradient[p.j] -= g;
        let w = C * C * p.games * expected * (1.0 - expected);
        information[p.i][p.i] += w;
        information[p.j][p.j] += w;
        information[p.i][p.j] -= w;
        information[p.j][p.i] -= w;
    }
    let largest = (0..n).map(|i| information[i][i]).fold(0.0, f64::max);
    let ridge = if largest > 0.0 { largest * RIDGE } else { 1.0 };
    for (i, row) in information.iter_mut().enumerate() {
        row[i] += ridge;
    }
    (gradient, information)
}

fn centre(ratings: &mut [f64], active: &[bool]) {
    let count = active.iter().filter(|&&a| a).count();
    if count == 0 {
        return;
    }
    let mean = ratings
        .iter()
        .zip(active)
        .filter(|(_, &a)| a)
        .map(|(r, _)| r)
        .sum::<f64>()
        / count as f64;
    ratings.iter_mut().for_each(|r| *r -= mean);
}

/// Solves `matrix * x = rhs` by Gaussian elimination with partial pivoting; `None` if singular
/// or the result is not finite.
fn solve(mut matrix: Vec<Vec<f64>>, mut rhs: Vec<f64>) -> Option<Vec<f64>> {
    let n = rhs.len();
    for col in 0..n {
        let pivot =
            (col..n).max_by(|&a, &b| matrix[a][col].abs().total_cmp(&matrix[b][col].abs()))?;
        if matrix[pivot][col].abs() <= f64::MIN_POSITIVE {
            return None;
        }
        matrix.swap(col, pivot);
        rhs.swap(col, pivot);
        let (upper, lower) = matrix.split_at_mut(col + 1);
        let pivot_row = &upper[col];
        for (offset, target) in lower.iter_mut().enumerate() {
            let factor = target[col] / pivot_row[col];
            for (t, p) in target[col..].iter_mut().zip(&pivot_row[col..]) {
                *t -= factor * p;
            }
            rhs[col + 1 + offset] -= factor * rhs[col];
        }
    }
    let mut x = vec![0.0; n];
    for row in (0..n).rev() {
        let tail: f64 = (row + 1..n).map(|k| matrix[row][k] * x[k]).sum();
        x[row] = (rhs[row] - tail) / matrix[row][row];
    }
    x.iter().all(|v| v.is_finite()).then_some(x)
}

/// Whether all active players are linked by games, directly or through others.
fn is_connected(pairs: &[PairTally], active: &[bool]) -> bool {
    let n = active.len();
    let Some(start) = (0..n).find(|&i| active[i]) else {
        return true;
    };
    let mut seen = vec![false; n];
    let mut stack = vec![start];
    seen[start] = true;
    while let Some(i) = stack.pop() {
        for p in pairs {
            let other = if p.i == i {
                p.j
            } else if p.j == i {
                p.i
            } else {
                continue;
            };
            if !seen[other] {
                seen[other] = true;
                stack.push(other);
            }
        }
    }
    (0..n).all(|i| !active[i] || seen[i])
}

/// Labels players by groups in which everyone can be reached from everyone through "scored at
/// least a draw against" (the strongly connected components of that relation). The likelihood
/// has a finite maximum exactly when all players with games share one label (Zermelo, Ford).
fn score_groups(cross: &CrossTable) -> Vec<usize> {
    let n = cross.names.len();
    let mut reach: Vec<Vec<bool>> = (0..n)
        .map(|i| {
            (0..n)
                .map(|j| i == j || cross.cells[i][j].points() > 0.0)
                .collect()
        })
        .collect();
    // Transitive closure (Warshall); tournaments have a handful of engines, n^3 is nothing.
    for k in 0..n {
        let via = reach[k].clone();
        for row in reach.iter_mut().filter(|row| row[k]) {
            row.iter_mut().zip(&via).for_each(|(r, &v)| *r |= v);
        }
    }
    (0..n)
        .map(|i| (0..n).find(|&j| reach[i][j] && reach[j][i]).unwrap_or(i))
        .collect()
}

/// 95% half-widths from the inverse information. The anchor removes one degree of freedom:
/// with a player anchor, that player's row and column are dropped; with an average anchor, the
/// covariance of r - mean(r) follows from the player-anchored one by projection.
fn rating_errors(
    ratings: &[f64],
    pairs: &[PairTally],
    active: &[bool],
    anchor: Anchor,
) -> Vec<Option<f64>> {
    let n = ratings.len();
    let mut errors = vec![None; n];
    let members: Vec<usize> = (0..n).filter(|&i| active[i]).collect();
    if members.is_empty() {
        return errors;
    }
    let reference = match anchor {
        Anchor::Player { index, .. } => index,
        Anchor::Average(_) => members[0],
    };
    let (_, full) = derivatives(ratings, pairs);
    let free: Vec<usize> = members
        .iter()
        .copied()
        .filter(|&i| i != reference)
        .collect();
    // Covariance with `reference` fixed: the inverse of the information without its row/column.
    let m = free.len();
    let mut covariance = vec![vec![0.0; n]; n];
    for (col, &j) in free.iter().enumerate() {
        let reduced: Vec<Vec<f64>> = free
            .iter()
            .map(|&a| free.iter().map(|&b| full[a][b]).collect())
            .collect();
        let mut unit = vec![0.0; m];
        unit[col] = 1.0;
        let Some(column) = solve(reduced, unit) else {
            return errors;
        };
        for (row, &i) in free.iter().enumerate() {
            covariance[i][j] = column[row];
        }
    }
    let variance = |i: usize| -> f64 {
        match anchor {
            Anchor::Player { .. } => covariance[i][i],
            Anchor::Average(_) => {
                // Var(r_i - mean) = C_ii - 2/k sum_j C_ij + 1/k^2 sum_jl C_jl over members.
                let k = members.len() as f64;
                let row: f64 = members.iter().map(|&j| covariance[i][j]).sum();
                let all: f64 = members
                    .iter()
                    .flat_map(|&a| members.iter().map(move |&b| (a, b)))
                    .map(|(a, b)| covariance[a][b])
                    .sum();
                covariance[i][i] - 2.0 * row / k + all / (k * k)
            }
        }
    };
    for &i in &members {
        // Rounding can leave a tiny negative variance for the anchor itself.
        let error = Z_95 * variance(i).max(0.0).sqrt();
        if error.is_finite() {
            errors[i] = Some(error);
        }
    }
    errors
}

#[cfg(test)]
mod tests {
    use super::*;
    use GameResult::{Draw, Loss, Win};

    fn close(actual: f64, expected: f64, tolerance: f64) {
        assert!(
            (actual - expected).abs() <= tolerance,
            "{actual} differs from {expected} by more than {tolerance}"
        );
    }

    fn names(k: usize) -> Vec<String> {
        ["alpha", "beta", "gamma", "delta"][..k]
            .iter()
            .map(|s| s.to_string())
            .collect()
    }

    fn games(first: usize, second: usize, results: &[GameResult]) -> Vec<GameRecord> {
        results
            .iter()
            .map(|&result| GameRecord {
                first,
                second,
                result,
            })
            .collect()
    }

    #[test]
    fn two_players_three_to_one() {
        // 75% gives a difference of 400 log10 3 = 190.8485, split evenly around the average.
        // Fisher information of the difference d: C^2 n E(1-E) = C^2 * 4 * 3/16, so
        // se(d) = 1 / (C sqrt(0.75)); each rating is d/2 from the mean: 1.96 se(d) / 2 = 196.580.
        let list = games(0, 1, &[Win, Win, Loss, Win]);
        let r = compute_ratings(&names(2), &list, Anchor::Average(0.0)).unwrap();
        close(r.rows[0].rating, 95.4243, 1e-3);
        close(r.rows[1].rating, -95.4243, 1e-3);
        close(r.rows[0].error.unwrap(), 196.580, 1e-2);
        close(r.rows[1].error.unwrap(), 196.580, 1e-2);
        assert_eq!(r.rows[0].record, Trinomial::new(3, 0, 1));
        assert_eq!(r.ranking(), vec![0, 1]);
        assert!(r.connected);
    }

    #[test]
    fn consistent_three_player_results_are_reproduced() {
        // 75% between neighbours and 90% across: 1/(1 + (1/3)^2) = 0.9, so ratings
        // 190.8485 apart fit every pair exactly and are the maximum-likelihood solution.
        let mut list = games(0, 1, &[Win, Win, Win, Loss]);
        list.extend(games(2, 1, &[Loss, Win, Loss, Loss])); // beta scores 3/4 against gamma
        list.extend(games(0, 2, &[Win; 9]));
        list.extend(games(2, 0, &[Win]));
        let r = compute_ratings(&names(3), &list, Anchor::Average(0.0)).unwrap();
        close(r.rows[0].rating, 190.8485, 1e-3);
        close(r.rows[1].rating, 0.0, 1e-3);
        close(r.rows[2].rating, -190.8485, 1e-3);
        assert_eq!(r.ranking(), vec![0, 1, 2]);

        let anchored = compute_ratings(
            &names(3),
            &list,
            Anchor::Player {
                index: 1,
                rating: 1500.0,
            },
        )
        .unwrap();
        close(anchored.rows[0].rating, 1690.8485, 1e-3);
        close(anchored.rows[1].rating, 1500.0, 1e-9);
        assert_eq!(anchored.rows[1].error, Some(0.0));
        // Measured against one fixed player rather than the mean of three, a rating is less
        // certain.
        assert!(anchored.rows[0].error.unwrap() > r.rows[0].error.unwrap());
    }

    #[test]
    fn draws_count_half() {
        // Two draws and one win for each side: 50%, equal ratings.
        let list = games(0, 1, &[Draw, Draw, Win, Loss]);
        let r = compute_ratings(&names(2), &list, Anchor::Average(100.0)).unwrap();
        close(r.rows[0].rating, 100.0, 1e-9);
        close(r.rows[1].rating, 100.0, 1e-9);
    }

    #[test]
    fn degenerate_inputs_stay_finite() {
        let none = compute_ratings(&names(3), &[], Anchor::Average(0.0)).unwrap();
        assert!(none
            .rows
            .iter()
            .all(|row| row.rating == 0.0 && row.error.is_none()));

        // 5-0 has no maximum-likelihood gap; with half a virtual draw the score is
        // 5.25 / 5.5 and the gap 400 log10(5.25 / 0.25) = 528.89.
        let perfect =
            compute_ratings(&names(2), &games(0, 1, &[Win; 5]), Anchor::Average(0.0)).unwrap();
        assert!(!perfect.maximum_likelihood);
        close(
            perfect.rows[0].rating - perfect.rows[1].rating,
            528.89,
            1e-2,
        );
        assert_eq!(perfect.rows[0].error, None);

        // gamma loses everything but alpha and beta are tied: they stay level.
        let mut list = games(0, 1, &[Win, Loss, Draw]);
        list.extend(games(2, 0, &[Loss; 4]));
        list.extend(games(2, 1, &[Loss; 4]));
        let bottom = compute_ratings(&names(3), &list, Anchor::Average(0.0)).unwrap();
        assert!(!bottom.maximum_likelihood);
        close(bottom.rows[0].rating, bottom.rows[1].rating, 1e-6);
        assert!(bottom.rows[2].rating < bottom.rows[0].rating - 300.0);

        // alpha-beta and gamma-delta never meet: no common scale.
        let mut list = games(0, 1, &[Win, Loss]);
        list.extend(games(2, 3, &[Win, Draw]));
        let split = compute_ratings(&names(4), &list, Anchor::Average(0.0)).unwrap();
        assert!(!split.connected);
        assert!(split
            .rows
            .iter()
            .all(|row| row.rating.is_finite() && row.error.is_none()));
    }

    #[test]
    fn malformed_input_is_an_error() {
        let bad = [GameRecord {
            first: 0,
            second: 5,
            result: Win,
        }];
        assert_eq!(
            compute_ratings(&names(2), &bad, Anchor::Average(0.0)),
            Err(RatingsError::UnknownPlayer { game: 0, player: 5 })
        );
        let own = [GameRecord {
            first: 1,
            second: 1,
            result: Draw,
        }];
        assert_eq!(
            CrossTable::new(&names(2), &own),
            Err(RatingsError::SelfPairing { game: 0 })
        );
        let list = games(0, 1, &[Win]);
        let anchor = Anchor::Player {
            index: 2,
            rating: 0.0,
        };
        assert_eq!(
            compute_ratings(&names(3), &list, anchor),
            Err(RatingsError::AnchorWithoutGames { player: 2 })
        );
        assert_eq!(
            compute_ratings(&names(2), &list, Anchor::Average(f64::INFINITY)),
            Err(RatingsError::AnchorNotFinite)
        );
    }

    #[test]
    fn cross_table_sees_each_side() {
        let mut list = games(0, 1, &[Win, Draw]);
        list.extend(games(1, 0, &[Win]));
        list.extend(games(2, 0, &[Loss]));
        let table = CrossTable::new(&names(3), &list).unwrap();
        assert_eq!(table.cells[0][1], Trinomial::new(1, 1, 1));
        assert_eq!(table.cells[1][0], Trinomial::new(1, 1, 1));
        assert_eq!(table.cells[0][2], Trinomial::new(1, 0, 0));
        assert_eq!(table.cells[2][0], Trinomial::new(0, 0, 1));
        assert_eq!(table.cells[1][2], Trinomial::default());
    }
}
