//! The expected-score model: what an engine's score is worth in results.
//! A logistic per game, E = 1 / (1 + exp(-score / k)), with `k` fitted by
//! maximum likelihood on self-play records of the engine (data/selfplay/,
//! `stackfish fit-model`): the expected score of the side the score is
//! for, a win 1, a draw 1/2, a loss 0. A forced win or loss (a mate score,
//! a Silo table or proof value) is a certain result: 1 or 0.

use stackfish_ugi::Score;

/// The fitted scale of each game, in centi-units: a score of `k` is worth
/// an expected score of 1 / (1 + e^-1) = 0.73. Fitted by `stackfish
/// fit-model data/selfplay/*.jsonl.zst` (docs/playing.md gives each fit);
/// a variant uses its game's (`silo-8` Silo's, `castle-2` Castle's).
pub const FITTED_K: [(&str, f64); 6] = [
    ("mixtour", 23.3),
    ("mixtour-5", 167.8),
    ("coinstack", 45.6),
    ("focus", 51.5),
    ("silo", 83.1),
    ("castle", 93.8),
];

/// The scale of a game the fits do not cover.
pub const DEFAULT_K: f64 = 100.0;

/// Scores are read within this (centi-units), so that an engine's huge
/// non-mate score does not overflow the exponential: far beyond any `k`.
const SCORE_CLAMP: f64 = 100_000.0;

/// The model of one game.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Model {
    /// Centi-units per unit of the logistic's argument.
    pub k: f64,
}

impl Model {
    /// The model of variant `variant` (any case; `""` is standard Mixtour,
    /// as in the records): its game's fitted `k`, else [`DEFAULT_K`].
    pub fn for_variant(variant: &str) -> Model {
        let name = variant.trim().to_ascii_lowercase();
        let name = if name.is_empty() { "mixtour" } else { &name };
        let exact = FITTED_K.iter().find(|(v, _)| *v == name);
        // `silo-8` is Silo's, `castle-3` Castle's: the name before the dash,
        // unless the whole name has a fit of its own (`mixtour-5`).
        let family = name.split('-').next().unwrap_or(name);
        let k = exact
            .or_else(|| FITTED_K.iter().find(|(v, _)| *v == family))
            .map_or(DEFAULT_K, |(_, k)| *k);
        Model { k }
    }

    /// The expected score of the side `score` is for: in 0..=1, 1 and 0
    /// exactly for a forced win and a forced loss (`mate 0`, a side already
    /// mated, a loss).
    pub fn expected(&self, score: Score) -> f64 {
        match score {
            Score::Mate(n) if n > 0 => 1.0,
            Score::Mate(_) => 0.0,
            Score::Cp(cp) => logistic(f64::from(cp), self.k),
        }
    }
}

/// 1 / (1 + exp(-x / k)), for any finite `x` and `k` > 0.
pub fn logistic(x: f64, k: f64) -> f64 {
    let x = x.clamp(-SCORE_CLAMP, SCORE_CLAMP);
    1.0 / (1.0 + (-x / k).exp())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_score_of_k_is_worth_seventy_three_percent_and_mates_are_certain() {
        let m = Model { k: 50.0 };
        assert_eq!(m.expected(Score::Cp(0)), 0.5);
        assert!((m.expected(Score::Cp(50)) - 0.731_058_6).abs() < 1e-6);
        assert!((m.expected(Score::Cp(-50)) - 0.268_941_4).abs() < 1e-6);
        assert_eq!(m.expected(Score::Mate(3)), 1.0);
        assert_eq!(m.expected(Score::Mate(-1)), 0.0);
        assert_eq!(m.expected(Score::Mate(0)), 0.0);
        // Far beyond k, a score is all but a win, never more.
        let big = m.expected(Score::Cp(i32::MAX));
        assert!(big <= 1.0 && big > 0.999_999, "{big}");
        assert!(m.expected(Score::Cp(i32::MIN)) >= 0.0);
    }

    #[test]
    fn variants_use_their_games_fit() {
        let k = |name: &str| FITTED_K.iter().find(|(v, _)| *v == name).unwrap().1;
        assert_eq!(Model::for_variant("").k, k("mixtour"));
        assert_eq!(Model::for_variant("MIXTOUR").k, k("mixtour"));
        assert_eq!(Model::for_variant("mixtour-5").k, k("mixtour-5"));
        assert_eq!(Model::for_variant("silo-8").k, k("silo"));
        assert_eq!(Model::for_variant("castle-3").k, k("castle"));
        assert_eq!(Model::for_variant("chess").k, DEFAULT_K);
    }
}
