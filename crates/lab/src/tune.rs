//! Texel tuning of an evaluation: fit the weights of a game's evaluation
//! (Mixtour's `game::mixtour::eval::WEIGHTS`, Coin Stack's and Focus's
//! `game::coinstack::eval::WEIGHTS_COINSTACK` / `WEIGHTS_FOCUS`, Castle's
//! `game::castle::eval::WEIGHTS`) to the
//! results of recorded games by minimising the squared error between the
//! game result and sigmoid(K * eval), over quiet positions.
//!
//! Quiet means the side to move has nothing that changes the score at once:
//! in Mixtour it cannot complete a tower for itself (a tower the opponent
//! tops can still be on the board: anyone may move any stack, so "no tower
//! move at all" would also drop every position with a threat); in Coin Stack
//! and Focus it has no capture (no noisy move: nothing it can do trims a
//! stack); in Castle no move takes a knight or the enemy key.
//!
//! Input: the arena's JSON-lines records. Each record's `variant` picks the
//! weights it trains (`mixtour` and `mixtour-5` share Mixtour's); with a
//! target game given, records of other games are skipped and counted.
//! Output: per target the fitted weights as a Rust array for the eval
//! module, with the error before and after.

use stackfish_games::castle::{self, Castle, CastleVariant};
use stackfish_games::coinstack::{self, CoinStack, CoinStackVariant};
use stackfish_games::mixtour::{self, Mixtour, MixtourVariant};
use stackfish_games::{find_legal, Game, GameResult, Side};
use stackfish_record::{GameRecord, MoveRecord};

/// What the tuner needs of a game: its evaluation as named features and
/// weights, and which positions are quiet.
pub trait Tunable: Game {
    /// Feature names, in the order of `features` and `weights`.
    fn names() -> &'static [&'static str];
    /// The shipped weights used for `variant`.
    fn weights(variant: &Self::Variant) -> &'static [i32];
    /// The array holding them, as "NAME in path".
    fn weights_array(variant: &Self::Variant) -> &'static str;
    /// The features of the position, from the side to move's view.
    fn features(&self) -> Vec<i32>;
    /// Whether the side to move has nothing that changes the score at once.
    fn is_quiet(&self, buffer: &mut Vec<Self::Move>) -> bool;
    /// The position a record's game starts from: its `fen`, or the start.
    fn start_of_record(variant: &Self::Variant, record: &GameRecord) -> Option<Self> {
        match record.fen.as_deref() {
            Some(fen) if fen != "startpos" => Self::from_fen(variant, fen).ok(),
            _ => Some(Self::start(variant)),
        }
    }
}

impl Tunable for Mixtour {
    fn names() -> &'static [&'static str] {
        &mixtour::eval::NAMES
    }

    fn weights(_: &MixtourVariant) -> &'static [i32] {
        &mixtour::eval::WEIGHTS
    }

    fn weights_array(_: &MixtourVariant) -> &'static str {
        "WEIGHTS in crates/games/src/mixtour/eval.rs"
    }

    fn features(&self) -> Vec<i32> {
        mixtour::eval::features(self).to_vec()
    }

    /// No move completes a tower for the side to move.
    fn is_quiet(&self, buffer: &mut Vec<mixtour::Move<mixtour::Standard>>) -> bool {
        buffer.clear();
        self.generate_moves(buffer);
        let us = self.side_to_move();
        !buffer.iter().any(|&m| {
            self.is_noisy(m) && {
                let mut child = *self;
                child.play(m);
                child.score(us) > self.score(us)
            }
        })
    }
}

impl Tunable for CoinStack {
    fn names() -> &'static [&'static str] {
        &coinstack::eval::NAMES
    }

    fn weights(variant: &CoinStackVariant) -> &'static [i32] {
        coinstack::eval::weights(*variant)
    }

    fn weights_array(variant: &CoinStackVariant) -> &'static str {
        match variant {
            CoinStackVariant::CoinStack => {
                "WEIGHTS_COINSTACK in crates/games/src/coinstack/eval.rs"
            }
            CoinStackVariant::Focus => "WEIGHTS_FOCUS in crates/games/src/coinstack/eval.rs",
        }
    }

    fn features(&self) -> Vec<i32> {
        coinstack::eval::features(self).to_vec()
    }

    /// No move or drop trims a stack (captures or refills the reserve).
    fn is_quiet(&self, buffer: &mut Vec<coinstack::Move>) -> bool {
        buffer.clear();
        self.generate_moves(buffer);
        !buffer.iter().any(|&m| self.is_noisy(m))
    }
}

impl Tunable for Castle {
    fn names() -> &'static [&'static str] {
        &castle::eval::NAMES
    }

    fn weights(_: &CastleVariant) -> &'static [i32] {
        &castle::eval::WEIGHTS
    }

    fn weights_array(_: &CastleVariant) -> &'static str {
        "WEIGHTS in crates/games/src/castle/eval.rs"
    }

    fn features(&self) -> Vec<i32> {
        castle::eval::features(self).to_vec()
    }

    /// No move captures a knight or takes the enemy key.
    fn is_quiet(&self, buffer: &mut Vec<castle::Move>) -> bool {
        buffer.clear();
        self.generate_moves(buffer);
        !buffer.iter().any(|&m| self.is_noisy(m))
    }
}

/// A set of weights the tuner fits: one per evaluation weight array.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Target {
    /// `mixtour` and `mixtour-5` records.
    Mixtour,
    CoinStack,
    Focus,
    /// `castle`, `castle-2` and `castle-3` records (one set of weights).
    Castle,
}

impl Target {
    pub const ALL: [Target; 4] = [
        Target::Mixtour,
        Target::CoinStack,
        Target::Focus,
        Target::Castle,
    ];

    /// The `--game` name.
    pub fn name(self) -> &'static str {
        match self {
            Target::Mixtour => "mixtour",
            Target::CoinStack => "coinstack",
            Target::Focus => "focus",
            Target::Castle => "castle",
        }
    }

    /// From a `--game` name.
    pub fn parse(name: &str) -> Option<Target> {
        Target::ALL
            .into_iter()
            .find(|t| t.name().eq_ignore_ascii_case(name.trim()))
    }

    /// The target a record of variant `name` trains, if any.
    pub fn of_variant(name: &str) -> Option<Target> {
        match name {
            "mixtour" | "mixtour-5" => Some(Target::Mixtour),
            "coinstack" => Some(Target::CoinStack),
            "focus" => Some(Target::Focus),
            "castle" | "castle-2" | "castle-3" => Some(Target::Castle),
            _ => None,
        }
    }

    pub fn names(self) -> &'static [&'static str] {
        match self {
            Target::Mixtour => Mixtour::names(),
            Target::CoinStack | Target::Focus => CoinStack::names(),
            Target::Castle => Castle::names(),
        }
    }

    /// The shipped weights, where fitting starts.
    pub fn weights(self) -> &'static [i32] {
        match self {
            Target::Mixtour => Mixtour::weights(&MixtourVariant::STANDARD),
            Target::CoinStack => CoinStack::weights(&CoinStackVariant::CoinStack),
            Target::Focus => CoinStack::weights(&CoinStackVariant::Focus),
            Target::Castle => Castle::weights(&CastleVariant::LEVEL_1),
        }
    }

    /// The array the fitted weights replace, as "NAME in path".
    pub fn weights_array(self) -> &'static str {
        match self {
            Target::Mixtour => Mixtour::weights_array(&MixtourVariant::STANDARD),
            Target::CoinStack => CoinStack::weights_array(&CoinStackVariant::CoinStack),
            Target::Focus => CoinStack::weights_array(&CoinStackVariant::Focus),
            Target::Castle => Castle::weights_array(&CastleVariant::LEVEL_1),
        }
    }

    /// The quiet positions of a record of variant `variant` of this target.
    fn replay(self, variant: &str, record: &GameRecord) -> Option<Vec<Sample>> {
        match (self, variant) {
            (Target::Mixtour, "mixtour-5") => {
                replay::<Mixtour>(&MixtourVariant::FIVE_POINTS, record)
            }
            (Target::Mixtour, _) => replay::<Mixtour>(&MixtourVariant::STANDARD, record),
            (Target::CoinStack, _) => replay::<CoinStack>(&CoinStackVariant::CoinStack, record),
            (Target::Focus, _) => replay::<CoinStack>(&CoinStackVariant::Focus, record),
            (Target::Castle, "castle-2") => replay::<Castle>(&CastleVariant::LEVEL_2, record),
            (Target::Castle, "castle-3") => replay::<Castle>(&CastleVariant::LEVEL_3, record),
            (Target::Castle, _) => replay::<Castle>(&CastleVariant::LEVEL_1, record),
        }
    }
}

/// One training position: its features (side to move's view) and the game's
/// result from the side to move's view (1 win, 0.5 draw, 0 loss).
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    pub features: Vec<i32>,
    pub result: f64,
}

/// Positions in the first plies are mostly placements and say little.
pub const SKIP_PLIES: usize = 4;

/// What the records gave.
#[derive(Clone, Debug, Default)]
pub struct Records {
    /// The samples of each target met, in the order of `Target`.
    pub samples: Vec<(Target, Vec<Sample>)>,
    /// Records of another game than the one asked for, or of a game the
    /// tuner does not know.
    pub other_game: usize,
    /// Lines that are not a finished game replayable by the rules.
    pub unusable: usize,
}

impl Records {
    /// The samples of `target` (empty if none).
    pub fn of(&self, target: Target) -> &[Sample] {
        self.samples
            .iter()
            .find(|(t, _)| *t == target)
            .map_or(&[], |(_, s)| s.as_slice())
    }

    pub fn skipped(&self) -> usize {
        self.other_game + self.unusable
    }
}

/// Reads JSON-lines game records (the arena's `--jsonl`), replays each game
/// with the rules and keeps its quiet positions. With `game`, only records
/// of that target are used; without, each record's `variant` (`mixtour` when
/// absent) decides. Lines that are not a finished game are counted, not
/// fatal.
pub fn samples_from_records(text: &str, game: Option<Target>) -> Records {
    let mut records = Records::default();
    let mut by_target = std::collections::BTreeMap::new();
    for (_, record) in stackfish_record::records(text) {
        let Ok(record) = record else {
            records.unusable += 1;
            continue;
        };
        let variant = match record.variant.as_str() {
            "" => "mixtour".to_string(),
            v => v.to_ascii_lowercase(),
        };
        let target = match Target::of_variant(&variant) {
            Some(t) if game.is_none_or(|g| g == t) => t,
            _ => {
                records.other_game += 1;
                continue;
            }
        };
        match target.replay(&variant, &record) {
            Some(s) => by_target.entry(target).or_insert_with(Vec::new).extend(s),
            None => records.unusable += 1,
        }
    }
    records.samples = by_target.into_iter().collect();
    records
}

fn replay<G: Tunable>(variant: &G::Variant, record: &GameRecord) -> Option<Vec<Sample>> {
    replay_quiet::<G, _>(variant, record, |pos, _, result| {
        Some(Sample {
            features: pos.features(),
            result,
        })
    })
}

/// Replays one finished game record with the rules and calls `keep` with
/// each quiet position after the first `SKIP_PLIES` plies and outside the
/// book, the record's entry of the move played from it, and the game's
/// result from the side to move's view (1, 1/2, 0); collects what `keep`
/// returns. `None`: the record is not a finished game of legal moves.
pub fn replay_quiet<G: Tunable, T>(
    variant: &G::Variant,
    record: &GameRecord,
    mut keep: impl FnMut(&G, &MoveRecord, f64) -> Option<T>,
) -> Option<Vec<T>> {
    let p1_score = match record.game_result()? {
        GameResult::P1Win => 1.0,
        GameResult::P2Win => 0.0,
        GameResult::Draw => 0.5,
    };
    let mut pos = G::start_of_record(variant, record)?;
    let mut out = Vec::new();
    let mut moves = Vec::new();
    for (ply, m) in record.moves.iter().enumerate() {
        if ply >= SKIP_PLIES && !m.book && pos.is_quiet(&mut moves) {
            let result = if pos.side_to_move() == Side::P1 {
                p1_score
            } else {
                1.0 - p1_score
            };
            out.extend(keep(&pos, m, result));
        }
        let mv = find_legal(&pos, &m.mv).ok()?;
        pos.play(mv);
    }
    Some(out)
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

fn eval_with(weights: &[f64], f: &[i32]) -> f64 {
    weights
        .iter()
        .zip(f.iter())
        .map(|(w, &x)| w * x as f64)
        .sum()
}

/// Mean squared error of sigmoid(k * eval / 100) against the results.
pub fn error(samples: &[Sample], weights: &[f64], k: f64) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    let total: f64 = samples
        .iter()
        .map(|s| {
            let p = sigmoid(k * eval_with(weights, &s.features) / 100.0);
            (s.result - p).powi(2)
        })
        .sum();
    total / samples.len() as f64
}

/// The scaling K that makes the current weights fit best (golden-section
/// search on [0.01, 10]), as Texel's method fixes K before tuning weights.
pub fn best_k(samples: &[Sample], weights: &[f64]) -> f64 {
    let (mut lo, mut hi) = (0.01f64, 10.0f64);
    let ratio = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..60 {
        let a = hi - ratio * (hi - lo);
        let b = lo + ratio * (hi - lo);
        if error(samples, weights, a) < error(samples, weights, b) {
            hi = b;
        } else {
            lo = a;
        }
    }
    (lo + hi) / 2.0
}

#[derive(Clone, Debug)]
pub struct Fit {
    pub k: f64,
    pub error_before: f64,
    pub error_after: f64,
    pub weights: Vec<f64>,
}

/// Gradient descent (Adam) on the weights, starting from `start` with K
/// fixed for `start`. The tempo weight is tuned like the others; `epochs`
/// full passes. A feature that is always zero keeps its weight.
pub fn fit(samples: &[Sample], start: &[i32], epochs: usize) -> Fit {
    let n_features = start.len();
    let start: Vec<f64> = start.iter().map(|&w| w as f64).collect();
    let k = best_k(samples, &start);
    let error_before = error(samples, &start, k);
    let mut w = start;
    let (mut m, mut v) = (vec![0.0; n_features], vec![0.0; n_features]);
    let (beta1, beta2, rate, eps) = (0.9, 0.999, 1.0, 1e-8);
    let n = samples.len().max(1) as f64;
    let mut grad = vec![0.0; n_features];
    for t in 1..=epochs {
        grad.fill(0.0);
        for s in samples {
            let p = sigmoid(k * eval_with(&w, &s.features) / 100.0);
            // d/dw of (r - p)^2 = -2 (r - p) p (1 - p) k/100 * x
            let common = -2.0 * (s.result - p) * p * (1.0 - p) * k / 100.0;
            for (g, &x) in grad.iter_mut().zip(s.features.iter()) {
                *g += common * x as f64 / n;
            }
        }
        for i in 0..n_features {
            m[i] = beta1 * m[i] + (1.0 - beta1) * grad[i];
            v[i] = beta2 * v[i] + (1.0 - beta2) * grad[i] * grad[i];
            let m_hat = m[i] / (1.0 - beta1.powi(t as i32));
            let v_hat = v[i] / (1.0 - beta2.powi(t as i32));
            w[i] -= rate * m_hat / (v_hat.sqrt() + eps);
        }
    }
    Fit {
        k,
        error_before,
        error_after: error(samples, &w, k),
        weights: w,
    }
}

/// The fit of `target` as text: where the weights go, the error, each
/// weight old -> new by name, and the new array to paste.
pub fn format_fit(target: Target, fit: &Fit, samples: usize) -> String {
    let array = target.weights_array();
    let mut out = format!(
        "game {}: {samples} positions  K {:.4}  error before {:.6}  after {:.6}\n",
        target.name(),
        fit.k,
        fit.error_before,
        fit.error_after
    );
    for (i, name) in target.names().iter().enumerate() {
        out.push_str(&format!(
            "  {name:<22} {:>6} -> {:>6}\n",
            target.weights()[i],
            fit.weights[i].round() as i32
        ));
    }
    let ints: Vec<String> = fit
        .weights
        .iter()
        .map(|w| (w.round() as i32).to_string())
        .collect();
    out.push_str(&format!(
        "replace the numbers of {array} with:\n[{}]\n",
        ints.join(", ")
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mixtour_samples(text: &str) -> (Vec<Sample>, usize) {
        let records = samples_from_records(text, None);
        (records.of(Target::Mixtour).to_vec(), records.skipped())
    }

    #[test]
    fn records_are_replayed_into_quiet_samples_from_the_movers_view() {
        // Player 1 won. Moves after the first SKIP_PLIES plies give samples.
        let line = r#"{"variant":"mixtour","fen":"x5/x5/x5/x5/x5 1 20,20 0,0 1 -","result":"1-0",
            "moves":[{"move":"c3"},{"move":"a1"},{"move":"e5"},{"move":"a5"},{"move":"e1"},{"move":"b3"}]}"#
            .replace('\n', "");
        let (samples, skipped) = mixtour_samples(&line);
        assert_eq!(skipped, 0);
        assert_eq!(samples.len(), 2, "plies 4 and 5 are quiet and sampled");
        assert_eq!(
            samples[0].result, 1.0,
            "player 1 to move at ply 4, and player 1 won"
        );
        assert_eq!(samples[1].result, 0.0, "player 2 to move at ply 5");
    }

    #[test]
    fn broken_and_illegal_records_are_skipped() {
        let text = "not json\n{\"result\":\"1-0\",\"moves\":[{\"move\":\"c3\"},{\"move\":\"c3\"}]}\n{\"result\":\"*\"}";
        let (samples, skipped) = mixtour_samples(text);
        assert!(samples.is_empty());
        assert_eq!(skipped, 3);
    }

    #[test]
    fn fitting_recovers_a_planted_weight() {
        // Results generated from a known rule: the side with more reserve wins.
        // Fitting must make the reserve weight grow and lower the error.
        let weights = Target::Mixtour.weights();
        let reserve = Target::Mixtour
            .names()
            .iter()
            .position(|&n| n == "reserve")
            .unwrap();
        let mut samples = Vec::new();
        for r in -5..=5 {
            let mut f = vec![0; weights.len()];
            f[0] = 1;
            f[reserve] = r;
            let result = if r > 0 {
                1.0
            } else if r < 0 {
                0.0
            } else {
                0.5
            };
            for _ in 0..10 {
                samples.push(Sample {
                    features: f.clone(),
                    result,
                });
            }
        }
        let fit = fit(&samples, weights, 300);
        assert!(fit.error_after < fit.error_before);
        assert!(
            fit.weights[reserve] > weights[reserve] as f64,
            "{:?}",
            fit.weights
        );
    }

    /// Games of `variant` (named `name` in the records) played out at
    /// random from the start for at most `plies` plies, as arena records:
    /// the moves as text and a made-up result.
    fn random_games<G: Game>(
        name: &str,
        variant: &G::Variant,
        games: usize,
        plies: usize,
        result: &str,
    ) -> String {
        let mut seed = 0x1234_5678u64;
        let mut text = String::new();
        for _ in 0..games {
            let mut pos = G::start(variant);
            let mut moves = Vec::new();
            let mut played = Vec::new();
            for _ in 0..plies {
                moves.clear();
                pos.generate_moves(&mut moves);
                if pos.outcome().is_over() || moves.is_empty() {
                    break;
                }
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let mv = moves[(seed >> 33) as usize % moves.len()];
                played.push(format!("{{\"move\":\"{mv}\"}}"));
                pos.play(mv);
            }
            text.push_str(&format!(
                "{{\"variant\":\"{name}\",\"fen\":\"startpos\",\"result\":\"{result}\",\"moves\":[{}]}}\n",
                played.join(",")
            ));
        }
        text
    }

    /// Coin Stack (`coinstack`) or Focus games of 20 random plies.
    fn random_records(variant: &str, games: usize, result: &str) -> String {
        let v = match variant {
            "coinstack" => CoinStackVariant::CoinStack,
            _ => CoinStackVariant::Focus,
        };
        random_games::<CoinStack>(variant, &v, games, 20, result)
    }

    #[test]
    fn coinstack_records_give_quiet_samples_and_other_games_are_counted() {
        let mut text = random_records("coinstack", 5, "1-0");
        text.push_str(&random_records("focus", 3, "0-1"));
        let all = samples_from_records(&text, None);
        assert_eq!(all.skipped(), 0);
        let coinstack = all.of(Target::CoinStack);
        assert!(!coinstack.is_empty() && !all.of(Target::Focus).is_empty());
        // Player 1 won every coinstack game: the result follows the mover.
        assert!(coinstack.iter().any(|s| s.result == 1.0));
        assert!(coinstack.iter().any(|s| s.result == 0.0));
        assert!(coinstack.iter().all(|s| s.result == 1.0 || s.result == 0.0));
        let only = samples_from_records(&text, Some(Target::Focus));
        assert_eq!(only.other_game, 5, "the coinstack records are counted");
        assert!(only.of(Target::CoinStack).is_empty());
        assert_eq!(only.of(Target::Focus), all.of(Target::Focus));
        for s in coinstack {
            assert_eq!(s.features.len(), Target::CoinStack.names().len());
        }
    }

    /// Castle records of each level (`castle`, `castle-3`) train the one
    /// Castle array, replayed with their own number of passes.
    #[test]
    fn castle_records_of_every_level_give_castle_samples() {
        let mut text = random_games::<Castle>("castle", &CastleVariant::LEVEL_1, 4, 30, "1-0");
        text.push_str(&random_games::<Castle>(
            "castle-3",
            &CastleVariant::LEVEL_3,
            4,
            30,
            "0-1",
        ));
        text.push_str(&random_records("coinstack", 2, "1-0"));
        let all = samples_from_records(&text, Some(Target::Castle));
        assert_eq!((all.unusable, all.other_game), (0, 2));
        let castle = all.of(Target::Castle);
        assert!(!castle.is_empty());
        for s in castle {
            assert_eq!(s.features.len(), castle::eval::NAMES.len());
            assert_eq!(s.features[0], 1, "tempo is the mover's");
        }
        // Both results were met: player 1 won the level 1 games and lost
        // the level 3 ones, seen from either mover.
        assert!(castle.iter().any(|s| s.result == 1.0) && castle.iter().any(|s| s.result == 0.0));
        assert_eq!(Target::of_variant("castle-3"), Some(Target::Castle));
        assert_eq!(Target::parse("castle"), Some(Target::Castle));
    }

    #[test]
    fn quiet_coinstack_positions_have_no_trimming_move() {
        let v = CoinStackVariant::CoinStack;
        let mut moves = Vec::new();
        // The start: every stack one high, no reserve, nothing trims.
        assert!(CoinStack::start(&v).is_quiet(&mut moves));
        // A reserve coin and a 5-high stack: the drop on it trims.
        let pos =
            CoinStack::from_fen(&v, "x4/x6/x8/x3,11111,x4/x4,2,x3/x8/x6/x4 1 1,0 0,0").unwrap();
        assert!(!pos.is_quiet(&mut moves));
    }

    #[test]
    fn fitting_recovers_a_planted_coinstack_weight() {
        // Results from a known rule: the side with more reserve coins wins,
        // whatever else the features say. Starting from all weights 10 (not
        // the shipped ones, which tuning moves), fitting must at least double
        // the reserve weight, keep the noise small and lower the error.
        let target = Target::CoinStack;
        let names = target.names();
        let start = vec![10; names.len()];
        let weights = &start[..];
        let index = |name: &str| names.iter().position(|&n| n == name).unwrap();
        let (reserve, mobility) = (index("reserve_coin"), index("mobility"));
        let mut samples = Vec::new();
        let mut seed = 7u64;
        for r in -4..=4 {
            for _ in 0..20 {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                // Mobility is noise here: uncorrelated with the result.
                let noise = ((seed >> 33) % 21) as i32 - 10;
                let mut f = vec![0; weights.len()];
                f[0] = 1;
                f[reserve] = r;
                f[mobility] = noise;
                let result = match r.cmp(&0) {
                    std::cmp::Ordering::Greater => 1.0,
                    std::cmp::Ordering::Less => 0.0,
                    std::cmp::Ordering::Equal => 0.5,
                };
                samples.push(Sample {
                    features: f,
                    result,
                });
            }
        }
        let fit = fit(&samples, weights, 500);
        assert!(fit.error_after < fit.error_before / 2.0, "{fit:?}");
        assert!(
            fit.weights[reserve] > 2.0 * weights[reserve] as f64,
            "{:?}",
            fit.weights
        );
        assert!(
            fit.weights[mobility].abs() < fit.weights[reserve] / 10.0,
            "noise gets little weight: {:?}",
            fit.weights
        );
    }
}
