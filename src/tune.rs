//! Texel tuning of the Mixtour evaluation: fit the weights of
//! `game::mixtour::eval` to the results of recorded games by minimising the
//! squared error between the game result and sigmoid(K * eval), over quiet
//! positions (no tower can be completed on the move).
//!
//! Input: the arena's JSON-lines records. Output: the fitted weights as a
//! Rust array for `eval.rs`, with the error before and after.

use crate::game::mixtour::eval::{features, FEATURES, NAMES, WEIGHTS};
use crate::game::mixtour::{Mixtour, MixtourVariant};
use crate::game::{find_legal, Game, Side};

/// One training position: its features (side to move's view) and the game's
/// result from the side to move's view (1 win, 0.5 draw, 0 loss).
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    pub features: [i32; FEATURES],
    pub result: f64,
}

/// Positions in the first plies are mostly placements and say little.
pub const SKIP_PLIES: usize = 4;

/// Reads JSON-lines game records (the arena's `--jsonl`), replays each game
/// with the rules and keeps its quiet positions. Lines that are not a
/// finished Mixtour game are counted as skipped, not fatal.
pub fn samples_from_records(text: &str) -> (Vec<Sample>, usize) {
    let mut samples = Vec::new();
    let mut skipped = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        match game_samples(line) {
            Some(s) => samples.extend(s),
            None => skipped += 1,
        }
    }
    (samples, skipped)
}

fn game_samples(line: &str) -> Option<Vec<Sample>> {
    let record: serde_json::Value = serde_json::from_str(line).ok()?;
    let p1_score = match record.get("result")?.as_str()? {
        "1-0" => 1.0,
        "0-1" => 0.0,
        "1/2-1/2" => 0.5,
        _ => return None,
    };
    let variant = match record
        .get("variant")
        .and_then(|v| v.as_str())
        .unwrap_or("mixtour")
    {
        "mixtour" => MixtourVariant::STANDARD,
        "mixtour-5" => MixtourVariant::FIVE_POINTS,
        _ => return None,
    };
    let mut pos = match record.get("fen").and_then(|f| f.as_str()) {
        Some(fen) if fen != "startpos" => Mixtour::from_fen(&variant, fen).ok()?,
        _ => Mixtour::start(&variant),
    };
    let mut out = Vec::new();
    let mut moves = Vec::new();
    for (ply, m) in record.get("moves")?.as_array()?.iter().enumerate() {
        let text = m.get("move")?.as_str()?;
        let book = m.get("book").and_then(|b| b.as_bool()).unwrap_or(false);
        if ply >= SKIP_PLIES && !book && is_quiet(&pos, &mut moves) {
            let result = if pos.side_to_move() == Side::P1 {
                p1_score
            } else {
                1.0 - p1_score
            };
            out.push(Sample {
                features: features(&pos),
                result,
            });
        }
        let mv = find_legal(&pos, text).ok()?;
        pos.play(mv);
    }
    Some(out)
}

fn is_quiet(pos: &Mixtour, buffer: &mut Vec<crate::game::mixtour::Move>) -> bool {
    buffer.clear();
    pos.generate_moves(buffer);
    !buffer.iter().any(|&m| pos.is_noisy(m))
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

fn eval_with(weights: &[f64; FEATURES], f: &[i32; FEATURES]) -> f64 {
    weights
        .iter()
        .zip(f.iter())
        .map(|(w, &x)| w * x as f64)
        .sum()
}

/// Mean squared error of sigmoid(k * eval / 100) against the results.
pub fn error(samples: &[Sample], weights: &[f64; FEATURES], k: f64) -> f64 {
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
pub fn best_k(samples: &[Sample], weights: &[f64; FEATURES]) -> f64 {
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
    pub weights: [f64; FEATURES],
}

/// Gradient descent (Adam) on the weights with K fixed. The tempo weight is
/// tuned like the others; `epochs` full passes.
pub fn fit(samples: &[Sample], epochs: usize) -> Fit {
    let start: [f64; FEATURES] = WEIGHTS.map(|w| w as f64);
    let k = best_k(samples, &start);
    let error_before = error(samples, &start, k);
    let mut w = start;
    let (mut m, mut v) = ([0.0; FEATURES], [0.0; FEATURES]);
    let (beta1, beta2, rate, eps) = (0.9, 0.999, 1.0, 1e-8);
    let n = samples.len().max(1) as f64;
    for t in 1..=epochs {
        let mut grad = [0.0; FEATURES];
        for s in samples {
            let p = sigmoid(k * eval_with(&w, &s.features) / 100.0);
            // d/dw of (r - p)^2 = -2 (r - p) p (1 - p) k/100 * x
            let common = -2.0 * (s.result - p) * p * (1.0 - p) * k / 100.0;
            for (g, &x) in grad.iter_mut().zip(s.features.iter()) {
                *g += common * x as f64 / n;
            }
        }
        for i in 0..FEATURES {
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

/// The fitted weights as the Rust line for `eval.rs`, with names.
pub fn format_fit(fit: &Fit, samples: usize) -> String {
    let mut out = format!(
        "positions {samples}  K {:.4}  error before {:.6}  after {:.6}\n",
        fit.k, fit.error_before, fit.error_after
    );
    for (i, name) in NAMES.iter().enumerate() {
        out.push_str(&format!(
            "  {name:<22} {:>6} -> {:>6}\n",
            WEIGHTS[i],
            fit.weights[i].round() as i32
        ));
    }
    let ints: Vec<String> = fit
        .weights
        .iter()
        .map(|w| (w.round() as i32).to_string())
        .collect();
    out.push_str(&format!(
        "pub const WEIGHTS: [i32; FEATURES] = [{}];\n",
        ints.join(", ")
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_are_replayed_into_quiet_samples_from_the_movers_view() {
        // Player 1 won. Moves after the first SKIP_PLIES plies give samples.
        let line = r#"{"variant":"mixtour","fen":"x5/x5/x5/x5/x5 1 20,20 0,0 1 -","result":"1-0",
            "moves":[{"move":"c3"},{"move":"a1"},{"move":"e5"},{"move":"a5"},{"move":"e1"},{"move":"b3"}]}"#
            .replace('\n', "");
        let (samples, skipped) = samples_from_records(&line);
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
        let (samples, skipped) = samples_from_records(text);
        assert!(samples.is_empty());
        assert_eq!(skipped, 3);
    }

    #[test]
    fn fitting_recovers_a_planted_weight() {
        // Results generated from a known rule: the side with more reserve wins.
        // Fitting must make the reserve weight grow and lower the error.
        let mut samples = Vec::new();
        for r in -5..=5 {
            let mut f = [0; FEATURES];
            f[0] = 1;
            f[5] = r;
            let result = if r > 0 {
                1.0
            } else if r < 0 {
                0.0
            } else {
                0.5
            };
            for _ in 0..10 {
                samples.push(Sample {
                    features: f,
                    result,
                });
            }
        }
        let fit = fit(&samples, 300);
        assert!(fit.error_after < fit.error_before);
        assert!(fit.weights[5] > WEIGHTS[5] as f64, "{:?}", fit.weights);
    }
}
