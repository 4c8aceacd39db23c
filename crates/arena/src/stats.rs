//! Match statistics: W/D/L and pentanomial counts, Elo with its interval, LOS and the generalized SPRT.
//!
//! Every formula is written out in docs/arena.md ("The statistics"): the fastchess / fishtest /
//! OpenBench conventions, so our numbers can be compared with theirs line by line. All counts are
//! seen from the first engine of a pairing: a `Win` is a win of the first engine.

use serde::{Deserialize, Serialize};
use std::f64::consts::LN_10;
use std::fmt;

/// Two-sided 95% normal quantile, rounded to 1.96 as the other arenas print it.
pub const Z_95: f64 = 1.96;

/// One tail of the 95% interval, the chance an interval bound is wrong on its side.
const CONFIDENCE_TAIL: f64 = 0.025;

/// The chance the bound of a one-sided 95% interval is wrong: all of the 5% an interval
/// leaves out is on its one finite side.
const ONE_SIDED_TAIL: f64 = 0.05;

/// A perfect score has no finite Elo. Scores are clamped this far inside (0, 1) so output stays
/// finite and JSON-serializable: the limit is about ±2400 Elo, and reaching a real score that
/// close to perfect would take millions of games.
pub const SCORE_LIMIT: f64 = 1e-6;

/// One logistic unit of per-game deviation in normalized Elo: nElo = t * 800 / ln 10.
const NELO_PER_T: f64 = 800.0 / LN_10;

/// Zero counts are replaced by this before taking logs (docs/arena.md, as fastchess does).
const ZERO_COUNT: f64 = 1e-3;

/// The constrained maximum-likelihood iteration stops when no probability moves more than this.
const MLE_TOLERANCE: f64 = 1e-4;

/// Upper bound on MLE iterations; fishtest uses 10 and converges in 3–4 on real data.
const MLE_MAX_ITERATIONS: usize = 10;

/// Bisection steps for the secular equation; each halves a bracket narrower than 1 / |phi|.
const SECULAR_MAX_STEPS: usize = 200;

/// Below this |x| the erf series converges quickly without cancellation trouble.
const ERF_SERIES_LIMIT: f64 = 2.0;

/// Trinomial outcome scores (L, D, W).
const TRINOMIAL_SCORES: [f64; 3] = [0.0, 0.5, 1.0];

/// Pentanomial pair scores per game (LL, LD, WL+DD, WD, WW).
const PENTANOMIAL_SCORES: [f64; 5] = [0.0, 0.25, 0.5, 0.75, 1.0];

/// The result of one game from the first engine's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum GameResult {
    Loss,
    Draw,
    Win,
}

impl GameResult {
    /// Points in half-point units (0, 1, 2), so sums stay exact.
    pub fn half_points(self) -> u8 {
        match self {
            GameResult::Loss => 0,
            GameResult::Draw => 1,
            GameResult::Win => 2,
        }
    }

    /// Points scored: 0, 1/2 or 1.
    pub fn score(self) -> f64 {
        f64::from(self.half_points()) / 2.0
    }

    /// The same game seen from the other engine.
    pub fn reversed(self) -> Self {
        match self {
            GameResult::Loss => GameResult::Win,
            GameResult::Draw => GameResult::Draw,
            GameResult::Win => GameResult::Loss,
        }
    }
}

/// Win/draw/loss counts of the first engine.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Trinomial {
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
}

impl Trinomial {
    pub fn new(wins: u64, draws: u64, losses: u64) -> Self {
        Trinomial {
            wins,
            draws,
            losses,
        }
    }

    pub fn add(&mut self, result: GameResult) {
        // Saturating: counts come from outside and must never panic, however absurd.
        let count = match result {
            GameResult::Win => &mut self.wins,
            GameResult::Draw => &mut self.draws,
            GameResult::Loss => &mut self.losses,
        };
        *count = count.saturating_add(1);
    }

    /// Total games, saturating at u64::MAX.
    pub fn games(&self) -> u64 {
        self.wins
            .saturating_add(self.draws)
            .saturating_add(self.losses)
    }

    /// Points of the first engine (wins + draws / 2).
    pub fn points(&self) -> f64 {
        self.wins as f64 + self.draws as f64 / 2.0
    }

    /// Points per game; `None` without games.
    pub fn score(&self) -> Option<f64> {
        let games = self.games();
        (games > 0).then(|| self.points() / games as f64)
    }

    /// Fraction of drawn games; `None` without games.
    pub fn draw_ratio(&self) -> Option<f64> {
        let games = self.games();
        (games > 0).then(|| self.draws as f64 / games as f64)
    }

    /// The same counts from the second engine's side.
    pub fn reversed(&self) -> Self {
        Trinomial::new(self.losses, self.draws, self.wins)
    }

    /// Counts in ascending score order (L, D, W), the order of the formulas.
    pub fn counts(&self) -> [u64; 3] {
        [self.losses, self.draws, self.wins]
    }

    /// Elo estimate treating games as independent; `None` without games.
    pub fn estimate(&self) -> Option<EloEstimate> {
        estimate_from(&self.counts(), &TRINOMIAL_SCORES, false)
    }

    /// Generalized-SPRT log-likelihood ratio of the game results; 0 without games.
    pub fn llr(&self, sprt: &SprtConfig) -> f64 {
        let t0 = sprt.elo0 / NELO_PER_T;
        let t1 = sprt.elo1 / NELO_PER_T;
        llr_generalized(&self.counts(), &TRINOMIAL_SCORES, t0, t1)
    }
}

impl fmt::Display for Trinomial {
    /// `W-D-L`, the order match runners print.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}-{}", self.wins, self.draws, self.losses)
    }
}

/// Counts of game pairs (same opening, colours swapped) by the first engine's points in the
/// pair: `[LL, LD, WL+DD, WD, WW]`, i.e. 0, 1/2, 1, 3/2 and 2 points.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pentanomial(pub [u64; 5]);

impl Pentanomial {
    pub fn new(counts: [u64; 5]) -> Self {
        Pentanomial(counts)
    }

    /// Adds a pair; both results are from the first engine's point of view.
    pub fn add_pair(&mut self, first: GameResult, second: GameResult) {
        let index = usize::from(first.half_points() + second.half_points());
        self.0[index] = self.0[index].saturating_add(1);
    }

    /// Total pairs, saturating at u64::MAX.
    pub fn pairs(&self) -> u64 {
        self.0.iter().fold(0, |acc: u64, &n| acc.saturating_add(n))
    }

    /// Points per game over all pairs; `None` without pairs.
    pub fn score(&self) -> Option<f64> {
        let pairs = self.pairs();
        // In f64: exact for any realistic count, and no overflow for absurd ones.
        let half_points: f64 = self
            .0
            .iter()
            .zip(0..)
            .map(|(&n, h)| n as f64 * f64::from(h))
            .sum();
        (pairs > 0).then(|| half_points / (4.0 * pairs as f64))
    }

    /// The same counts from the second engine's side.
    pub fn reversed(&self) -> Self {
        let mut counts = self.0;
        counts.reverse();
        Pentanomial(counts)
    }

    /// Elo estimate with the variance of pair scores, which accounts for the correlation the
    /// shared opening creates between the two games; `None` without pairs.
    pub fn estimate(&self) -> Option<EloEstimate> {
        estimate_from(&self.0, &PENTANOMIAL_SCORES, true)
    }

    /// Generalized-SPRT log-likelihood ratio over pairs; 0 without pairs.
    pub fn llr(&self, sprt: &SprtConfig) -> f64 {
        // A pair's score deviation is sqrt(2) smaller than a game's, so the same normalized Elo
        // is a sqrt(2) larger t-value per pair.
        let t0 = sprt.elo0 / NELO_PER_T * std::f64::consts::SQRT_2;
        let t1 = sprt.elo1 / NELO_PER_T * std::f64::consts::SQRT_2;
        llr_generalized(&self.0, &PENTANOMIAL_SCORES, t0, t1)
    }
}

impl fmt::Display for Pentanomial {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [a, b, c, d, e] = self.0;
        write!(f, "[{a}, {b}, {c}, {d}, {e}]")
    }
}

/// The counts of one pairing: every game in the trinomial, complete pairs in the pentanomial.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MatchCounts {
    pub trinomial: Trinomial,
    pub pentanomial: Pentanomial,
}

impl MatchCounts {
    /// A game that is not part of a pair (no colour-swapped twin).
    pub fn add_single(&mut self, result: GameResult) {
        self.trinomial.add(result);
    }

    /// Both games of a pair, each from the first engine's point of view.
    pub fn add_pair(&mut self, first: GameResult, second: GameResult) {
        self.trinomial.add(first);
        self.trinomial.add(second);
        self.pentanomial.add_pair(first, second);
    }

    /// Whether the statistics come from pairs: true as soon as one pair is complete. Unpaired
    /// games are then left out of Elo and LLR (they still show in the W/D/L counts), because
    /// mixing the two models would count the shared-opening correlation wrongly.
    pub fn uses_pairs(&self) -> bool {
        self.pentanomial.pairs() > 0
    }

    /// Pentanomial estimate when there are pairs, trinomial otherwise; `None` without games.
    pub fn estimate(&self) -> Option<EloEstimate> {
        if self.uses_pairs() {
            self.pentanomial.estimate()
        } else {
            self.trinomial.estimate()
        }
    }

    /// LLR from pairs when there are any, from games otherwise; 0 without games.
    pub fn llr(&self, sprt: &SprtConfig) -> f64 {
        if self.uses_pairs() {
            self.pentanomial.llr(sprt)
        } else {
            self.trinomial.llr(sprt)
        }
    }

    /// LLR, bounds and verdict in one value for reports.
    pub fn sprt_status(&self, sprt: &SprtConfig) -> SprtStatus {
        sprt.status(self.llr(sprt))
    }
}

/// Elo difference of the first engine with its 95% interval, normalized Elo and LOS.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct EloEstimate {
    /// Points per game.
    pub score: f64,
    pub elo: f64,
    /// 95% interval of `elo`, not symmetric around it.
    pub lower: f64,
    pub upper: f64,
    /// `None` when every game (or pair) had the same result: the deviation is zero and the
    /// normalized Elo undefined.
    pub nelo: Option<f64>,
    /// Likelihood of superiority, in [0, 1].
    pub los: f64,
    /// Games, or pairs when `paired`.
    pub samples: u64,
    pub paired: bool,
}

impl EloEstimate {
    /// Half-width of the interval, the number printed after "±".
    pub fn error(&self) -> f64 {
        (self.upper - self.lower) / 2.0
    }

    /// What the games support: an Elo with its interval; at a 0% or 100% score (whose Elo
    /// is infinite: `elo` is only a clamped placeholder there) just the finite end of the
    /// interval; and likewise when the interval of a score short of 0% or 100% reaches past
    /// it (a few games, nearly all won): an end at the clamp is no bound at all, and printing
    /// it would read as "± 2400".
    pub fn reading(&self) -> EloReading {
        let lower = (!beyond_scores(self.lower)).then_some(self.lower);
        let upper = (!beyond_scores(self.upper)).then_some(self.upper);
        match (lower, upper) {
            (Some(lower), _) if self.score >= 1.0 => EloReading::AtLeast(lower),
            (_, Some(upper)) if self.score <= 0.0 => EloReading::AtMost(upper),
            (Some(_), Some(_)) => EloReading::Interval {
                elo: self.elo,
                error: self.error(),
            },
            (Some(lower), None) => EloReading::AtLeast(lower),
            (None, Some(upper)) => EloReading::AtMost(upper),
            (None, None) => EloReading::Unbounded { elo: self.elo },
        }
    }
}

/// Whether an end of an Elo interval is the clamp of [`elo_from_score`] (about ±2400): its
/// score bound reached 0 or 1, where the Elo is infinite.
fn beyond_scores(elo: f64) -> bool {
    elo.abs() >= elo_from_score(1.0)
}

/// An Elo estimate as it may be printed; see [`EloEstimate::reading`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum EloReading {
    /// Elo and the half-width of its 95% interval.
    Interval { elo: f64, error: f64 },
    /// Every game (or pair) won, or nearly: only the interval's lower end is finite.
    AtLeast(f64),
    /// Every game (or pair) lost, or nearly: only the interval's upper end is finite.
    AtMost(f64),
    /// Neither end is finite (a pair won and a pair lost, say): too few games for a bound.
    Unbounded { elo: f64 },
}

impl fmt::Display for EloReading {
    /// `+35.2 ± 40.1`, `> +316.6`, `< -316.6` or `+0.0 ± ∞`, one decimal, never "-0.0".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            EloReading::Interval { elo, error } => {
                write!(f, "{} ± {error:.1}", signed(elo, 1))
            }
            EloReading::AtLeast(lower) => write!(f, "> {}", signed(lower, 1)),
            EloReading::AtMost(upper) => write!(f, "< {}", signed(upper, 1)),
            EloReading::Unbounded { elo } => write!(f, "{} ± ∞", signed(elo, 1)),
        }
    }
}

/// `x` with its sign and `decimals` decimals, where anything that rounds to zero prints as
/// `+0.0`, never `-0.0` (a `{:+.1}` of -0.04 would).
pub fn signed(x: f64, decimals: usize) -> String {
    let text = format!("{x:+.decimals$}");
    if text.starts_with('-') && text[1..].chars().all(|c| c == '0' || c == '.') {
        format!("+{}", &text[1..])
    } else {
        text
    }
}

/// Elo difference that gives an expected score `score`: -400 log10(1/score - 1). Scores outside
/// [SCORE_LIMIT, 1 - SCORE_LIMIT] (perfect scores included) are clamped to it, so the result is
/// always finite (at most about ±2400); NaN maps to 0.
pub fn elo_from_score(score: f64) -> f64 {
    if score.is_nan() {
        return 0.0;
    }
    let score = score.clamp(SCORE_LIMIT, 1.0 - SCORE_LIMIT);
    // `+ 0.0` turns the -0.0 of an even score into 0.0: nobody should read "-0.0".
    -400.0 * (1.0 / score - 1.0).log10() + 0.0
}

/// Expected score of an Elo difference, the inverse of [`elo_from_score`]; NaN maps to 1/2.
pub fn score_from_elo(elo: f64) -> f64 {
    if elo.is_nan() {
        return 0.5;
    }
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// Error function (std has none). Below |x| = 2 the Maclaurin series, exact to rounding and odd
/// by construction (erf(0) = 0, so even results give a LOS of exactly 1/2); beyond it the
/// Chebyshev fit of Numerical Recipes (`erfcc`, relative error 1.2e-7 on erfc < 0.005, so below
/// 1e-9 absolute). NaN maps to 0.
pub fn erf(x: f64) -> f64 {
    if x.is_nan() {
        return 0.0;
    }
    let z = x.abs();
    let magnitude = if z < ERF_SERIES_LIMIT {
        // erf(z) = 2/sqrt(pi) sum (-1)^n z^(2n+1) / (n! (2n+1)).
        let mut power = z; // (-1)^n z^(2n+1) / n!
        let mut sum = z;
        for n in 1..100 {
            power *= -z * z / n as f64;
            let term = power / (2 * n + 1) as f64;
            sum += term;
            if term.abs() < 1e-17 {
                break;
            }
        }
        sum * std::f64::consts::FRAC_2_SQRT_PI
    } else {
        let t = 1.0 / (1.0 + 0.5 * z);
        let poly = -z * z - 1.265_512_23
            + t * (1.000_023_68
                + t * (0.374_091_96
                    + t * (0.096_784_18
                        + t * (-0.186_288_06
                            + t * (0.278_868_07
                                + t * (-1.135_203_98
                                    + t * (1.488_515_87
                                        + t * (-0.822_152_23 + t * 0.170_872_77))))))));
        1.0 - t * poly.exp()
    };
    magnitude.copysign(x)
}

/// Sample size, mean and variance of a count vector over the given outcome scores.
struct Moments {
    n: f64,
    mu: f64,
    var: f64,
}

fn moments(counts: &[u64], scores: &[f64]) -> Option<Moments> {
    let n: f64 = counts.iter().map(|&c| c as f64).sum();
    if n == 0.0 {
        return None;
    }
    let mu = counts
        .iter()
        .zip(scores)
        .map(|(&c, &a)| c as f64 / n * a)
        .sum::<f64>();
    let var = counts
        .iter()
        .zip(scores)
        .map(|(&c, &a)| c as f64 / n * (a - mu) * (a - mu))
        .sum::<f64>();
    Some(Moments { n, mu, var })
}

fn estimate_from(counts: &[u64], scores: &[f64], paired: bool) -> Option<EloEstimate> {
    let Moments { n, mu, var } = moments(counts, scores)?;
    let standard_error = (var / n).sqrt();
    // The variance of a pair's mean is half a game's; nElo is defined per game.
    let per_game_deviation = if paired {
        (2.0 * var).sqrt()
    } else {
        var.sqrt()
    };
    let excess = mu - 0.5;
    let nelo = (per_game_deviation > 0.0).then(|| excess / per_game_deviation * NELO_PER_T);
    let los = if standard_error > 0.0 {
        0.5 * (1.0 - erf(-excess / (2.0 * var / n).sqrt()))
    } else {
        // Identical results every time: certain superiority, inferiority, or a coin toss.
        match excess.partial_cmp(&0.0) {
            Some(std::cmp::Ordering::Greater) => 1.0,
            Some(std::cmp::Ordering::Less) => 0.0,
            _ => 0.5,
        }
    };
    let (low_score, high_score) = if standard_error > 0.0 {
        (mu - Z_95 * standard_error, mu + Z_95 * standard_error)
    } else {
        identical_results_interval(mu, n)
    };
    Some(EloEstimate {
        score: mu,
        elo: elo_from_score(mu),
        lower: elo_from_score(low_score),
        upper: elo_from_score(high_score),
        nelo,
        los,
        samples: n as u64,
        paired,
    })
}

/// The 95% interval of the mean score when all `n` samples scored `mu`. The normal interval
/// collapses to a point there (a zero deviation), which would print "± 0" after a handful of
/// games. Instead: if every one of n samples came out the same, a Clopper-Pearson bound puts the
/// chance of any other outcome below q = 1 - tail^(1/n). Any other outcome moves the mean towards
/// 0 by at most `mu` and towards 1 by at most `1 - mu`, so the mean lies in
/// [mu - q mu, mu + q (1 - mu)]. With both ends finite (all draws) each end may be wrong with
/// 2.5%, tail = 0.025 (the "rule of three" for n large: about 3.7 / n). At a perfect (or nil)
/// score the far end is 1 (or 0), infinite Elo, always right: the one finite end takes all of the
/// 5%, tail = 0.05 (10 wins in 5 pairs: at least +34.4 Elo; with 0.025 it was a 97.5% bound
/// printed as 95%, and below zero).
fn identical_results_interval(mu: f64, n: f64) -> (f64, f64) {
    let tail = if mu <= 0.0 || mu >= 1.0 {
        ONE_SIDED_TAIL
    } else {
        CONFIDENCE_TAIL
    };
    let q = 1.0 - tail.powf(1.0 / n.max(1.0));
    (mu - q * mu, mu + q * (1.0 - mu))
}

/// Generalized LLR: N * sum p^_i (ln p1_i - ln p0_i), where p_k is the most likely distribution
/// whose t-value (mu - 1/2) / sigma equals t_k. Zero counts become ZERO_COUNT first so every log
/// is finite; no counts at all give 0.
fn llr_generalized<const K: usize>(counts: &[u64; K], scores: &[f64; K], t0: f64, t1: f64) -> f64 {
    if counts.iter().all(|&c| c == 0) || !t0.is_finite() || !t1.is_finite() {
        return 0.0;
    }
    let regularized = counts.map(|c| if c == 0 { ZERO_COUNT } else { c as f64 });
    let n: f64 = regularized.iter().sum();
    let p_hat = regularized.map(|c| c / n);
    let p0 = mle_with_t(&p_hat, scores, t0);
    let p1 = mle_with_t(&p_hat, scores, t1);
    let llr = n
        * (0..K)
            .map(|i| p_hat[i] * (p1[i].ln() - p0[i].ln()))
            .sum::<f64>();
    // p0 and p1 stay strictly positive by construction; this only guards against surprises.
    if llr.is_finite() {
        llr
    } else {
        0.0
    }
}

/// Maximum-likelihood distribution over `scores`, given the sample frequencies `p_hat`, under the
/// constraint (mu - 1/2) / sigma = t (Van den Bergh's iteration, as in fishtest and fastchess).
fn mle_with_t<const K: usize>(p_hat: &[f64; K], scores: &[f64; K], t: f64) -> [f64; K] {
    let mut p = [1.0 / K as f64; K];
    for _ in 0..MLE_MAX_ITERATIONS {
        let mu: f64 = (0..K).map(|i| p[i] * scores[i]).sum();
        let var: f64 = (0..K).map(|i| p[i] * (scores[i] - mu).powi(2)).sum();
        let sigma = var.sqrt();
        if sigma <= 0.0 {
            break;
        }
        let phi: [f64; K] = std::array::from_fn(|i| {
            let z = (scores[i] - mu) / sigma;
            scores[i] - 0.5 - 0.5 * t * sigma * (1.0 + z * z)
        });
        let Some(theta) = solve_secular(p_hat, &phi) else {
            break;
        };
        let mut next: [f64; K] = std::array::from_fn(|i| p_hat[i] / (1.0 + theta * phi[i]));
        // Exact roots sum to 1; renormalizing absorbs the bisection residue.
        let total: f64 = next.iter().sum();
        if !(total.is_finite() && total > 0.0) {
            break;
        }
        next.iter_mut().for_each(|q| *q /= total);
        let change = (0..K).map(|i| (next[i] - p[i]).abs()).fold(0.0, f64::max);
        p = next;
        if change < MLE_TOLERANCE {
            break;
        }
    }
    p
}

/// Root theta of sum p_i phi_i / (1 + theta phi_i) = 0 with every 1 + theta phi_i > 0. The sum
/// decreases strictly in theta and runs from +inf to -inf across the admissible bracket, so
/// bisection always finds it; `None` when phi does not change sign (no admissible root).
fn solve_secular<const K: usize>(p: &[f64; K], phi: &[f64; K]) -> Option<f64> {
    let min = phi.iter().copied().fold(f64::INFINITY, f64::min);
    let max = phi.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !(min < 0.0 && max > 0.0) {
        return None;
    }
    let f = |theta: f64| -> f64 { (0..K).map(|i| p[i] * phi[i] / (1.0 + theta * phi[i])).sum() };
    let (mut lo, mut hi) = (-1.0 / max, -1.0 / min);
    let mut mid = 0.5 * (lo + hi);
    for _ in 0..SECULAR_MAX_STEPS {
        mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some(mid)
}

/// Why an SPRT configuration was rejected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SprtConfigError {
    /// elo0 and elo1 must be finite with elo0 < elo1.
    EloBounds,
    /// alpha and beta must lie in (0, 1) with alpha + beta < 1.
    ErrorRates,
}

impl fmt::Display for SprtConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SprtConfigError::EloBounds => write!(f, "SPRT needs finite elo0 < elo1"),
            SprtConfigError::ErrorRates => {
                write!(
                    f,
                    "SPRT needs alpha and beta in (0, 1) with alpha + beta < 1"
                )
            }
        }
    }
}

impl std::error::Error for SprtConfigError {}

/// Generalized SPRT with normalized-Elo hypotheses H0: nElo = elo0, H1: nElo = elo1 and error
/// rates alpha (false H1) and beta (false H0). Validated on construction and on deserialization.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "SprtConfigFields", into = "SprtConfigFields")]
pub struct SprtConfig {
    elo0: f64,
    elo1: f64,
    alpha: f64,
    beta: f64,
}

#[derive(Serialize, Deserialize)]
struct SprtConfigFields {
    elo0: f64,
    elo1: f64,
    alpha: f64,
    beta: f64,
}

impl TryFrom<SprtConfigFields> for SprtConfig {
    type Error = SprtConfigError;
    fn try_from(f: SprtConfigFields) -> Result<Self, Self::Error> {
        SprtConfig::new(f.elo0, f.elo1, f.alpha, f.beta)
    }
}

impl From<SprtConfig> for SprtConfigFields {
    fn from(c: SprtConfig) -> Self {
        SprtConfigFields {
            elo0: c.elo0,
            elo1: c.elo1,
            alpha: c.alpha,
            beta: c.beta,
        }
    }
}

impl SprtConfig {
    pub fn new(elo0: f64, elo1: f64, alpha: f64, beta: f64) -> Result<Self, SprtConfigError> {
        if !(elo0.is_finite() && elo1.is_finite() && elo0 < elo1) {
            return Err(SprtConfigError::EloBounds);
        }
        let rate_ok = |r: f64| r > 0.0 && r < 1.0;
        if !(rate_ok(alpha) && rate_ok(beta) && alpha + beta < 1.0) {
            return Err(SprtConfigError::ErrorRates);
        }
        Ok(SprtConfig {
            elo0,
            elo1,
            alpha,
            beta,
        })
    }

    pub fn elo0(&self) -> f64 {
        self.elo0
    }
    pub fn elo1(&self) -> f64 {
        self.elo1
    }
    pub fn alpha(&self) -> f64 {
        self.alpha
    }
    pub fn beta(&self) -> f64 {
        self.beta
    }

    /// A = ln(beta / (1 - alpha)): at or below it H0 is accepted (negative).
    pub fn lower_bound(&self) -> f64 {
        (self.beta / (1.0 - self.alpha)).ln()
    }

    /// B = ln((1 - beta) / alpha): at or above it H1 is accepted (positive).
    pub fn upper_bound(&self) -> f64 {
        ((1.0 - self.beta) / self.alpha).ln()
    }

    /// The test's settings as the report and `arena watch` print them:
    /// `nElo [0, 5], alpha 0.05, beta 0.05, LLR bounds (-2.944, 2.944)`.
    pub fn describe(&self) -> String {
        format!(
            "nElo [{}, {}], alpha {}, beta {}, LLR bounds ({:.3}, {:.3})",
            self.elo0,
            self.elo1,
            self.alpha,
            self.beta,
            self.lower_bound(),
            self.upper_bound()
        )
    }

    /// Verdict for an LLR; NaN (never produced here) counts as not crossing.
    pub fn verdict(&self, llr: f64) -> SprtVerdict {
        if llr >= self.upper_bound() {
            SprtVerdict::H1Accepted
        } else if llr <= self.lower_bound() {
            SprtVerdict::H0Accepted
        } else {
            SprtVerdict::Continue
        }
    }

    pub fn status(&self, llr: f64) -> SprtStatus {
        SprtStatus {
            llr,
            lower: self.lower_bound(),
            upper: self.upper_bound(),
            verdict: self.verdict(llr),
        }
    }
}

/// Where the SPRT stands after the games played so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SprtVerdict {
    H0Accepted,
    H1Accepted,
    Continue,
}

impl SprtVerdict {
    /// The word every table and line prints: `H1 was accepted`, `H0 was accepted`, or
    /// `running` while no bound is crossed (the run's end may then make it `inconclusive`,
    /// see [`RunVerdict::word`]).
    pub fn word(self) -> &'static str {
        match self {
            SprtVerdict::H1Accepted => "H1 was accepted",
            SprtVerdict::H0Accepted => "H0 was accepted",
            SprtVerdict::Continue => "running",
        }
    }
}

/// Decimals an LLR and its bounds are printed with at least; more when needed to see which side
/// of a bound the LLR is (`SprtStatus::decimals`).
const LLR_DECIMALS: usize = 2;
/// More decimals than this never decide anything a person would act on.
const LLR_MAX_DECIMALS: usize = 6;

/// LLR with its bounds and verdict, as printed and stored.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SprtStatus {
    pub llr: f64,
    pub lower: f64,
    pub upper: f64,
    pub verdict: SprtVerdict,
}

impl SprtStatus {
    /// Decimals to print the LLR and its bounds with: 2, or more while the LLR would print the
    /// same as a bound it has not reached (`LLR 2.94 [-2.94, 2.94]` with the match still
    /// running), up to 6.
    pub fn decimals(&self) -> usize {
        let looks_reached = |d: usize| {
            let llr = format!("{:.d$}", self.llr);
            (llr == format!("{:.d$}", self.upper) && self.llr < self.upper)
                || (llr == format!("{:.d$}", self.lower) && self.llr > self.lower)
        };
        (LLR_DECIMALS..LLR_MAX_DECIMALS)
            .find(|&d| !looks_reached(d))
            .unwrap_or(LLR_MAX_DECIMALS)
    }
}

/// How a whole run ended, with its process exit code for CI.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum RunVerdict {
    /// Exit code 0: the change is accepted.
    H1Accepted,
    /// Exit code 1: the change is rejected.
    H0Accepted,
    /// Exit code 2: the game budget ran out before the LLR crossed a bound.
    Inconclusive,
    /// Exit code 3: the run itself failed (engine, configuration, I/O), no statistical verdict.
    Failed,
}

impl RunVerdict {
    /// The final verdict, or `None` while the test should go on. Running out of games without
    /// crossing a bound is `Inconclusive`, never H1 (fastchess reports H1 there; we do not).
    pub fn from_sprt(verdict: SprtVerdict, budget_exhausted: bool) -> Option<Self> {
        match verdict {
            SprtVerdict::H1Accepted => Some(RunVerdict::H1Accepted),
            SprtVerdict::H0Accepted => Some(RunVerdict::H0Accepted),
            SprtVerdict::Continue if budget_exhausted => Some(RunVerdict::Inconclusive),
            SprtVerdict::Continue => None,
        }
    }

    /// Process exit code: 0 H1, 1 H0, 2 inconclusive, 3 failed.
    pub fn exit_code(self) -> u8 {
        match self {
            RunVerdict::H1Accepted => 0,
            RunVerdict::H0Accepted => 1,
            RunVerdict::Inconclusive => 2,
            RunVerdict::Failed => 3,
        }
    }
}

impl RunVerdict {
    /// The word tables and lines print, the same as [`SprtVerdict::word`] for a crossed bound.
    pub fn word(self) -> &'static str {
        match self {
            RunVerdict::H1Accepted => SprtVerdict::H1Accepted.word(),
            RunVerdict::H0Accepted => SprtVerdict::H0Accepted.word(),
            RunVerdict::Inconclusive => "inconclusive",
            RunVerdict::Failed => "run failed",
        }
    }
}

impl fmt::Display for RunVerdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.word())
    }
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

    fn sprt(elo0: f64, elo1: f64) -> SprtConfig {
        SprtConfig::new(elo0, elo1, 0.05, 0.05).unwrap()
    }

    #[test]
    fn published_pentanomial_llr() {
        // docs/arena.md: fastchess prints 2.94598 for these counts and bounds [0, 2].
        let penta = Pentanomial::new([379, 10170, 21828, 10640, 343]);
        let llr = penta.llr(&sprt(0.0, 2.0));
        close(llr, 2.946, 0.01);
        // An independent implementation of the same iteration gives 2.9455.
        close(llr, 2.9455, 1e-3);
    }

    #[test]
    fn bounds_at_five_percent() {
        // ln(0.05 / 0.95) = -ln 19 = -2.944439.
        let s = sprt(0.0, 2.0);
        close(s.lower_bound(), -2.944439, 1e-6);
        close(s.upper_bound(), 2.944439, 1e-6);
        assert_eq!(s.verdict(2.95), SprtVerdict::H1Accepted);
        assert_eq!(s.verdict(-2.95), SprtVerdict::H0Accepted);
        assert_eq!(s.verdict(2.94), SprtVerdict::Continue);
        // alpha 0.05, beta 0.1: A = ln(0.1/0.95) = -2.251292, B = ln(0.9/0.05) = 2.890372.
        let s = SprtConfig::new(0.0, 5.0, 0.05, 0.1).unwrap();
        close(s.lower_bound(), -2.251292, 1e-6);
        close(s.upper_bound(), 2.890372, 1e-6);
    }

    #[test]
    fn trinomial_llr_matches_closed_form() {
        // W 30, D 40, L 10. Under nElo = 0 the most likely distribution keeps the draws and
        // splits the decisive games evenly (solve the secular equation by hand with phi =
        // (-1/2, 0, 1/2)): p0 = (1/4, 1/2, 1/4). The sample itself has nElo = 0.125 /
        // sqrt(0.109375) * 800 / ln 10 = 131.318308, so with that as elo1 p1 = p^ and
        // LLR = 80 (1/8 ln(1/2) + 3/8 ln(3/2)) = 5.232481.
        let tri = Trinomial::new(30, 40, 10);
        close(tri.llr(&sprt(0.0, 131.318_307_986_7)), 5.232_481, 1e-3);
    }

    #[test]
    fn llr_is_antisymmetric_and_additive() {
        let penta = Pentanomial::new([20, 150, 300, 180, 30]);
        let forward = penta.llr(&sprt(0.0, 5.0));
        // Swapping the engines mirrors the distribution: the H1 of one side is the mirror of
        // the other's, so LLR(-5, 0) on the reversed counts equals -LLR(0, 5).
        let mirrored = penta.reversed().llr(&sprt(-5.0, 0.0));
        close(mirrored, -forward, 1e-6);
        // LLR(0,5) = LLR(0,2) + LLR(2,5): both are differences of the same log-likelihoods.
        let split = penta.llr(&sprt(0.0, 2.0)) + penta.llr(&sprt(2.0, 5.0));
        close(split, forward, 1e-6);
        assert!(forward > 0.0, "a clearly winning sample favours H1");
    }

    #[test]
    fn constrained_mle_meets_its_constraint() {
        // The distribution found for nElo = 3 must have nElo 3 (per-pair t = 3 sqrt 2 / 347.4).
        let counts = [379.0, 10170.0, 21828.0, 10640.0, 343.0];
        let n: f64 = counts.iter().sum();
        let p_hat = counts.map(|c| c / n);
        let t = 3.0 / NELO_PER_T * std::f64::consts::SQRT_2;
        let p = mle_with_t(&p_hat, &PENTANOMIAL_SCORES, t);
        let mu: f64 = (0..5).map(|i| p[i] * PENTANOMIAL_SCORES[i]).sum();
        let var: f64 = (0..5)
            .map(|i| p[i] * (PENTANOMIAL_SCORES[i] - mu).powi(2))
            .sum();
        close((mu - 0.5) / var.sqrt(), t, 1e-4);
        close(p.iter().sum(), 1.0, 1e-12);
    }

    #[test]
    fn llr_of_empty_and_one_sided_counts_is_finite() {
        let s = sprt(0.0, 2.0);
        assert_eq!(Pentanomial::default().llr(&s), 0.0);
        assert_eq!(Trinomial::default().llr(&s), 0.0);
        let all_wins = Pentanomial::new([0, 0, 0, 0, 50]).llr(&s);
        let all_losses = Pentanomial::new([50, 0, 0, 0, 0]).llr(&s);
        assert!(all_wins.is_finite() && all_wins > 0.0, "{all_wins}");
        assert!(all_losses.is_finite() && all_losses < 0.0, "{all_losses}");
        assert!(Trinomial::new(0, 7, 0).llr(&s).is_finite());
    }

    #[test]
    fn llr_grows_when_a_loss_becomes_a_win() {
        let s = sprt(0.0, 5.0);
        let before = Trinomial::new(100, 200, 100).llr(&s);
        let after = Trinomial::new(101, 200, 99).llr(&s);
        assert!(after > before);
    }

    #[test]
    fn elo_of_known_scores() {
        // -400 log10(1/0.75 - 1) = 400 log10 3 = 190.8485.
        close(elo_from_score(0.75), 190.8485, 1e-4);
        close(elo_from_score(0.25), -190.8485, 1e-4);
        close(elo_from_score(0.5), 0.0, 1e-12);
        close(score_from_elo(190.8485), 0.75, 1e-6);
        // Perfect scores clamp to 400 log10(1e6 - 1) instead of infinity.
        close(elo_from_score(1.0), 2399.9998, 1e-3);
        close(elo_from_score(0.0), -2399.9998, 1e-3);
        assert_eq!(elo_from_score(f64::NAN), 0.0);
    }

    #[test]
    fn erf_matches_tables() {
        assert_eq!(erf(0.0), 0.0);
        close(erf(0.5), 0.520_499_877_8, 1e-9);
        close(erf(1.0), 0.842_700_792_9, 1e-9);
        close(erf(1.99), 0.995_111_413_2, 1e-9);
        close(erf(2.0), 0.995_322_265_0, 1e-9);
        close(erf(-1.0), -0.842_700_792_9, 1e-9);
        close(erf(3.0), 0.999_977_909_5, 1e-9);
        close(erf(10.0), 1.0, 1e-9);
    }

    #[test]
    fn trinomial_estimate_by_hand() {
        // W 30, D 40, L 10: mu = 50/80 = 0.625, var = 0.109375, se = sqrt(var/80).
        // Elo = 400 log10(0.625/0.375) = 88.7395; interval maps 0.625 -+ 1.96 se:
        // 36.6354 and 145.1045; LOS = Phi(0.125 / se) = 0.999638; nElo = 131.3183.
        let e = Trinomial::new(30, 40, 10).estimate().unwrap();
        close(e.score, 0.625, 1e-12);
        close(e.elo, 88.7395, 1e-3);
        close(e.lower, 36.6354, 1e-3);
        close(e.upper, 145.1045, 1e-3);
        close(e.los, 0.999_638, 1e-5);
        close(e.nelo.unwrap(), 131.3183, 1e-3);
        assert_eq!((e.samples, e.paired), (80, false));
    }

    #[test]
    fn pentanomial_estimate_by_hand() {
        // Pairs [0, 1, 1, 2, 0]: per-game scores 1/4, 1/2, 3/4, 3/4; mu = 0.5625,
        // var = (0.3125^2 + 0.0625^2 + 2 * 0.1875^2) / 4 = 0.04296875.
        // Elo = -400 log10(1/0.5625 - 1) = 43.6578; interval 0.5625 -+ 1.96 sqrt(var/4)
        // gives -100.4362 and 205.6596; LOS = Phi(0.0625 / 0.103645) = 0.726753;
        // nElo = 0.0625 / sqrt(2 var) * 347.4355 = 74.0735.
        let e = Pentanomial::new([0, 1, 1, 2, 0]).estimate().unwrap();
        close(e.score, 0.5625, 1e-12);
        close(e.elo, 43.6578, 1e-3);
        close(e.lower, -100.4362, 1e-3);
        close(e.upper, 205.6596, 1e-3);
        close(e.los, 0.726_753, 1e-5);
        close(e.nelo.unwrap(), 74.0735, 1e-3);
        assert_eq!((e.samples, e.paired), (4, true));
    }

    #[test]
    fn symmetric_results_are_even() {
        for e in [
            Trinomial::new(17, 9, 17).estimate().unwrap(),
            Pentanomial::new([3, 8, 20, 8, 3]).estimate().unwrap(),
        ] {
            close(e.elo, 0.0, 1e-9);
            close(e.los, 0.5, 1e-9);
            close(e.nelo.unwrap(), 0.0, 1e-9);
            close(e.lower, -e.upper, 1e-9);
        }
    }

    #[test]
    fn degenerate_counts_stay_finite() {
        assert_eq!(Trinomial::default().estimate(), None);
        assert_eq!(Pentanomial::default().estimate(), None);
        assert_eq!(Trinomial::default().score(), None);
        assert_eq!(Trinomial::default().draw_ratio(), None);
        let wins = Trinomial::new(5, 0, 0).estimate().unwrap();
        assert_eq!((wins.nelo, wins.los), (None, 1.0));
        assert!(wins.elo.is_finite() && wins.elo > 2000.0);
        assert!(
            wins.lower < wins.upper,
            "five games never give a zero-width interval"
        );
        let draws = Pentanomial::new([0, 0, 9, 0, 0]).estimate().unwrap();
        assert_eq!((draws.elo, draws.los, draws.nelo), (0.0, 0.5, None));
        let losses = Pentanomial::new([4, 0, 0, 0, 0]).estimate().unwrap();
        assert_eq!(losses.los, 0.0);
    }

    #[test]
    fn identical_results_have_an_honest_interval() {
        // 40 wins: the far end (a score of 1) is infinite Elo and never wrong, so the lower end
        // takes all of the 5%: Clopper-Pearson puts the chance of anything else below
        // q = 1 - 0.05^(1/40) = 0.0721575, so the score is at least 0.9278425:
        // -400 log10(1/0.9278425 - 1) = 443.68.
        let wins = Trinomial::new(40, 0, 0).estimate().unwrap();
        close(wins.lower, 443.677, 1e-2);
        assert_eq!(wins.reading(), EloReading::AtLeast(wins.lower));
        assert_eq!(wins.reading().to_string(), "> +443.7");
        let losses = Trinomial::new(0, 0, 40).estimate().unwrap();
        assert_eq!(losses.reading().to_string(), "< -443.7");
        // The demo's 10 straight wins, 5 pairs: 0.05^(1/5) = 0.5492803, at least +34.35 Elo
        // (with 2.5% it was 0.4781762, "> -15.2", which reads as a weaker engine).
        let ten = Pentanomial::new([0, 0, 0, 0, 5]).estimate().unwrap();
        close(ten.lower, 34.355, 1e-2);
        assert_eq!(ten.reading().to_string(), "> +34.4");
        // Four draws: q = 0.6023646, the score lies in 0.5 -+ q / 2: Elo -+242.11.
        let draws = Trinomial::new(0, 4, 0).estimate().unwrap();
        close(draws.upper, 242.111, 1e-2);
        close(draws.lower, -242.111, 1e-2);
        assert_eq!(draws.reading().to_string(), "+0.0 ± 242.1");
        // One split pair (a win and a loss): n = 1, q = 0.975, Elo -+759.05, not "-0.0 ± 0.0".
        let split = Pentanomial::new([0, 0, 1, 0, 0]).estimate().unwrap();
        assert_eq!(split.reading().to_string(), "+0.0 ± 759.1");
        assert!(split.elo.is_sign_positive());
    }

    #[test]
    fn an_interval_past_a_perfect_score_is_read_as_the_bound_it_has() {
        // A pair won and a pair lost: mu = 1/2, sigma^2 = 1/4, the score interval
        // 0.5 -+ 1.96 sqrt(0.25 / 2) = [-0.193, 1.193] leaves [0, 1] on both sides: no bound
        // (it printed "+0.0 ± 2400.0").
        let both = Pentanomial::new([1, 0, 0, 0, 1]).estimate().unwrap();
        assert_eq!(both.reading(), EloReading::Unbounded { elo: 0.0 });
        assert_eq!(both.reading().to_string(), "+0.0 ± ∞");
        // Pairs WL, WW, WW: mu = 5/6, sigma^2 = 1/18, mu + 1.96 sqrt(1/54) = 1.100 (no upper
        // end), mu - 1.96 sqrt(1/54) = 0.566617: at least -400 log10(1/0.566617 - 1) = +46.56.
        let most = Pentanomial::new([0, 0, 1, 0, 2]).estimate().unwrap();
        let EloReading::AtLeast(lower) = most.reading() else {
            panic!("{:?}", most.reading())
        };
        close(lower, 46.563, 1e-2);
        assert_eq!(most.reading().to_string(), "> +46.6");
        let least = Pentanomial::new([2, 0, 1, 0, 0]).estimate().unwrap();
        assert_eq!(least.reading().to_string(), "< -46.6");
    }

    #[test]
    fn signed_never_prints_negative_zero() {
        assert_eq!(signed(-0.04, 1), "+0.0");
        assert_eq!(signed(-0.0, 1), "+0.0");
        assert_eq!(signed(-0.06, 1), "-0.1");
        assert_eq!(signed(35.25, 1), "+35.2");
    }

    #[test]
    fn llr_decimals_show_the_side_of_a_bound() {
        let s = sprt(0.0, 2.0); // bounds -+2.944439
        let status = |llr: f64| s.status(llr);
        assert_eq!(status(1.0).decimals(), 2);
        // 2.944 rounds like the bound at 2 and 3 decimals: 4 tell them apart.
        assert_eq!(status(2.944).decimals(), 4);
        assert_eq!(status(-2.9441).decimals(), 4);
        // At or past the bound it is accepted: equal digits are then true.
        assert_eq!(status(2.9445).verdict, SprtVerdict::H1Accepted);
        assert_eq!(status(2.9445).decimals(), 2);
        assert_eq!(status(2.944_438_9).decimals(), 6);
    }

    #[test]
    fn one_vocabulary_for_verdicts() {
        assert_eq!(SprtVerdict::Continue.word(), "running");
        assert_eq!(RunVerdict::Inconclusive.to_string(), "inconclusive");
        assert_eq!(
            RunVerdict::H1Accepted.word(),
            SprtVerdict::H1Accepted.word()
        );
        assert_eq!(
            RunVerdict::H0Accepted.word(),
            SprtVerdict::H0Accepted.word()
        );
    }

    #[test]
    fn counting_games_and_pairs() {
        let mut m = MatchCounts::default();
        assert!(!m.uses_pairs());
        m.add_pair(Win, Loss);
        m.add_pair(Win, Draw);
        m.add_pair(Draw, Draw);
        m.add_pair(Loss, Loss);
        m.add_single(Win);
        assert_eq!(m.trinomial, Trinomial::new(3, 3, 3));
        assert_eq!(m.pentanomial, Pentanomial::new([1, 0, 2, 1, 0]));
        assert!(m.uses_pairs());
        // The unpaired win is left out of the paired score: (0 + 2 * 2 + 3) / 16.
        close(m.estimate().unwrap().score, 7.0 / 16.0, 1e-12);
        assert_eq!(m.trinomial.draw_ratio(), Some(1.0 / 3.0));
        assert_eq!(m.trinomial.reversed(), Trinomial::new(3, 3, 3));
        assert_eq!(m.pentanomial.reversed(), Pentanomial::new([0, 1, 2, 0, 1]));
        assert_eq!(m.pentanomial.to_string(), "[1, 0, 2, 1, 0]");
        assert_eq!(Trinomial::new(5, 2, 1).to_string(), "5-2-1");
        assert_eq!(Pentanomial::new([0, 0, 0, 1, 1]).score(), Some(0.875));
        let mut full = Trinomial::new(u64::MAX, 1, 0);
        full.add(Win);
        assert_eq!(full.games(), u64::MAX);
        assert!(full.estimate().unwrap().elo.is_finite());
    }

    #[test]
    fn verdicts_and_exit_codes() {
        use RunVerdict as R;
        use SprtVerdict as V;
        assert_eq!(R::from_sprt(V::Continue, false), None);
        // The point of the mapping: an exhausted budget is never H1.
        assert_eq!(R::from_sprt(V::Continue, true), Some(R::Inconclusive));
        assert_eq!(R::from_sprt(V::H1Accepted, true), Some(R::H1Accepted));
        assert_eq!(R::from_sprt(V::H0Accepted, false), Some(R::H0Accepted));
        let codes = [R::H1Accepted, R::H0Accepted, R::Inconclusive, R::Failed].map(R::exit_code);
        assert_eq!(codes, [0, 1, 2, 3]);
    }

    #[test]
    fn sprt_settings_read_the_same_everywhere() {
        // ln(0.05 / 0.95) = -2.944, ln(0.95 / 0.05) = 2.944.
        let s = SprtConfig::new(0.0, 5.0, 0.05, 0.05).unwrap();
        assert_eq!(
            s.describe(),
            "nElo [0, 5], alpha 0.05, beta 0.05, LLR bounds (-2.944, 2.944)"
        );
    }

    #[test]
    fn sprt_config_is_validated() {
        assert_eq!(
            SprtConfig::new(2.0, 0.0, 0.05, 0.05),
            Err(SprtConfigError::EloBounds)
        );
        assert_eq!(
            SprtConfig::new(0.0, f64::NAN, 0.05, 0.05),
            Err(SprtConfigError::EloBounds)
        );
        assert_eq!(
            SprtConfig::new(0.0, 2.0, 0.0, 0.05),
            Err(SprtConfigError::ErrorRates)
        );
        assert_eq!(
            SprtConfig::new(0.0, 2.0, 0.6, 0.5),
            Err(SprtConfigError::ErrorRates)
        );
        let json = r#"{"elo0":2.0,"elo1":0.0,"alpha":0.05,"beta":0.05}"#;
        assert!(serde_json::from_str::<SprtConfig>(json).is_err());
        let good = sprt(0.0, 2.0);
        let text = serde_json::to_string(&good).unwrap();
        assert_eq!(serde_json::from_str::<SprtConfig>(&text).unwrap(), good);
    }
}
