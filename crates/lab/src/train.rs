//! Training of the Mixtour network (`game::mixtour::nnue`) on recorded
//! games: `stackfish train <records.jsonl>... --out net.bin`.
//!
//! Data: every quiet position (as `tune` defines it) after the first plies
//! of Mixtour games on the standard board to 1, 2 or 3 points in arena
//! records (the goal and the scores are inputs), with two labels from the side
//! to move's view: the game's result (1, 1/2, 0) and, when the record has
//! one, the engine's search score of that position (`cp` of the move played
//! from it), mapped to a winning chance by the same sigmoid.
//! Target: `lambda * result + (1 - lambda) * sigmoid(K * cp / 100)`.
//! Loss: squared error of `sigmoid(K * eval / 100)`, eval in centi-units,
//! with K fitted to the linear evaluation first so the network's units are
//! the linear evaluation's. Optimiser: Adam on mini-batches, in f32; one
//! position in `HOLDOUT` is kept out to show the error on unseen games.
//! The result is quantized as `nnue` reads it.

pub mod datagen;

use crate::tune::replay_quiet;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use stackfish_games::mixtour::eval::{features, weighted, FEATURES, WEIGHTS};
use stackfish_games::mixtour::nnue::{self, Network, HIDDEN, INPUTS, MAX_ACTIVE, QA, QB};
use stackfish_games::mixtour::{Mixtour, MixtourVariant};
use stackfish_record::GameRecord;

/// One position: its active inputs, its linear features, its labels.
#[derive(Clone, Debug)]
pub struct Position {
    pub inputs: Vec<u16>,
    pub features: [i32; FEATURES],
    pub result: f32,
    pub cp: Option<f32>,
    /// Which game it came from: the holdout is chosen by game, so positions
    /// of one game never sit on both sides.
    pub game: usize,
    /// The points the game is played to.
    pub goal: u8,
}

/// The fewest positions `train` learns from: fewer fit nothing.
pub const MIN_POSITIONS: usize = 50;

/// The variant of the first record in `text` that is not Mixtour (to say
/// why no position could be used).
pub fn other_game(text: &str) -> Option<String> {
    stackfish_record::records(text)
        .filter_map(|(_, r)| r.ok())
        .map(|r| r.variant)
        .find(|v| !matches!(v.as_str(), "" | "mixtour"))
}

/// Reads standard Mixtour records; other lines are counted and skipped.
pub fn positions_from_records(text: &str) -> (Vec<Position>, usize) {
    let mut out = Vec::new();
    let mut skipped = 0;
    for (game, (_, record)) in stackfish_record::records(text).enumerate() {
        match record.ok().and_then(|r| replay(&r, game)) {
            Some(p) => out.extend(p),
            None => skipped += 1,
        }
    }
    (out, skipped)
}

fn replay(record: &GameRecord, game: usize) -> Option<Vec<Position>> {
    if !matches!(record.variant.as_str(), "" | "mixtour") {
        return None;
    }
    replay_quiet::<Mixtour, _>(&MixtourVariant::STANDARD, record, |pos, m, result| {
        if !nnue::applies(pos) {
            return None;
        }
        let mut inputs = [0; MAX_ACTIVE];
        let n = nnue::active(pos, &mut inputs);
        Some(Position {
            inputs: inputs[..n].to_vec(),
            features: features(pos),
            result: result as f32,
            cp: m.cp.map(|c| c as f32),
            game,
            goal: pos.goal(),
        })
    })
}

/// Training settings.
#[derive(Clone, Debug)]
pub struct Settings {
    pub epochs: usize,
    pub batch: usize,
    pub learning_rate: f32,
    /// Weight of the game result against the search score in the target.
    pub lambda: f32,
    pub seed: u64,
    /// The sigmoid's scale; `None`: fitted to the linear evaluation.
    pub k: Option<f32>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            epochs: 30,
            batch: 256,
            learning_rate: 1e-3,
            lambda: 0.5,
            seed: 1,
            k: None,
        }
    }
}

/// Every this many games, one goes to the holdout.
pub const HOLDOUT: usize = 10;

/// The network in f32 while it learns.
struct Float {
    w1: Vec<f32>,
    b1: Vec<f32>,
    w2: Vec<f32>,
    b2: f32,
    linear: [f32; FEATURES],
}

/// Adam's moments, one pair per parameter, in the layout of `Float::flat`.
struct Adam {
    m: Vec<f32>,
    v: Vec<f32>,
    t: i32,
}

const N_PARAMS: usize = INPUTS * HIDDEN + HIDDEN + HIDDEN + 1 + FEATURES;

fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

impl Float {
    fn new(rng: &mut impl Rng) -> Float {
        Float {
            w1: (0..INPUTS * HIDDEN)
                .map(|_| rng.gen_range(-0.1..0.1))
                .collect(),
            b1: vec![0.1; HIDDEN],
            // Output weights in centi-units per unit of activation.
            w2: (0..HIDDEN).map(|_| rng.gen_range(-10.0..10.0)).collect(),
            b2: 0.0,
            linear: WEIGHTS.map(|w| w as f32),
        }
    }

    /// Hidden sums, then the evaluation in centi-units.
    fn forward(&self, p: &Position, acc: &mut [f32; HIDDEN]) -> f32 {
        acc.copy_from_slice(&self.b1);
        for &i in &p.inputs {
            let row = &self.w1[i as usize * HIDDEN..(i as usize + 1) * HIDDEN];
            for (a, w) in acc.iter_mut().zip(row) {
                *a += w;
            }
        }
        let hidden: f32 = acc
            .iter()
            .zip(&self.w2)
            .map(|(a, w)| a.clamp(0.0, 1.0) * w)
            .sum();
        let linear: f32 = p
            .features
            .iter()
            .zip(&self.linear)
            .map(|(&f, w)| f as f32 * w)
            .sum();
        self.b2 + hidden + linear
    }

    fn quantize(&self, goals: u8) -> Network {
        let q16 = |x: f32| x.round().clamp(i16::MIN as f32, i16::MAX as f32) as i16;
        // First-layer weights and biases within a bound that keeps every
        // hidden sum (a bias and at most `MAX_ACTIVE` rows) in the 16 bits
        // the engine's accumulators have (`Network::check`): about 4.1 in
        // units of a full activation, far beyond what the clip at 1 uses.
        let most = (i16::MAX as usize / (MAX_ACTIVE + 1)) as f32;
        let q1 = |x: f32| (x * QA as f32).round().clamp(-most, most) as i16;
        Network {
            goals,
            w1: self.w1.iter().map(|&w| q1(w)).collect(),
            b1: self.b1.iter().map(|&w| q1(w)).collect(),
            w2: self.w2.iter().map(|w| q16(w * QB as f32)).collect(),
            b2: (self.b2 * (QA * QB) as f32).round() as i32,
            linear: self.linear.map(|w| w.round() as i32),
        }
    }
}

/// The squared error of the float network, the quantized one and the
/// shipped linear evaluation on `data`.
#[derive(Clone, Copy, Debug)]
pub struct Errors {
    pub network: f64,
    pub quantized: f64,
    pub linear: f64,
}

fn target(p: &Position, k: f32, lambda: f32) -> f32 {
    match p.cp {
        Some(cp) => lambda * p.result + (1.0 - lambda) * sigmoid(k * cp / 100.0),
        None => p.result,
    }
}

fn errors(net: &Float, q: &Network, data: &[&Position], k: f32, lambda: f32) -> Errors {
    let mut e = (0.0, 0.0, 0.0);
    let mut acc = [0.0; HIDDEN];
    for p in data {
        let t = target(p, k, lambda);
        let sq = |eval: f32| ((sigmoid(k * eval / 100.0) - t) as f64).powi(2);
        e.0 += sq(net.forward(p, &mut acc));
        e.1 += sq(q.evaluate(&p.inputs, &p.features) as f32);
        e.2 += sq(weighted(&p.features, &WEIGHTS) as f32);
    }
    let n = data.len().max(1) as f64;
    Errors {
        network: e.0 / n,
        quantized: e.1 / n,
        linear: e.2 / n,
    }
}

/// Trains a network on `data`; `report` hears one line per epoch.
pub fn train(
    data: &[Position],
    settings: &Settings,
    report: &mut dyn FnMut(&str),
) -> (Network, Errors) {
    let mut rng = rand::rngs::StdRng::seed_from_u64(settings.seed);
    let (train, holdout): (Vec<&Position>, Vec<&Position>) =
        data.iter().partition(|p| p.game % HOLDOUT != HOLDOUT - 1);
    // K of the shipped linear evaluation against the results.
    let samples: Vec<crate::tune::Sample> = train
        .iter()
        .map(|p| crate::tune::Sample {
            features: p.features.to_vec(),
            result: p.result as f64,
        })
        .collect();
    let weights: Vec<f64> = WEIGHTS.iter().map(|&w| w as f64).collect();
    let k = settings
        .k
        .unwrap_or_else(|| crate::tune::best_k(&samples, &weights) as f32);
    report(&format!(
        "{} training positions, {} held out, K {k:.3}",
        train.len(),
        holdout.len()
    ));
    let goals = data.iter().fold(0u8, |g, p| {
        g | 1u8.checked_shl(u32::from(p.goal) - 1).unwrap_or(0)
    }) & nnue::GOALS;
    let mut net = Float::new(&mut rng);
    let mut adam = Adam {
        m: vec![0.0; N_PARAMS],
        v: vec![0.0; N_PARAMS],
        t: 0,
    };
    let mut order: Vec<&Position> = train.clone();
    let mut grad = vec![0.0f32; N_PARAMS];
    let mut touched: Vec<usize> = Vec::new();
    let mut acc = [0.0f32; HIDDEN];
    let lambda = settings.lambda;
    // The best network on the holdout so far: training past it only fits
    // the training games more closely.
    let mut best: Option<(Network, Errors)> = None;
    for epoch in 1..=settings.epochs {
        // Smaller steps for the last 40% and the last 15% of the epochs.
        let progress = epoch as f32 / settings.epochs as f32;
        let rate = if progress > 0.85 {
            0.1
        } else if progress > 0.6 {
            0.3
        } else {
            1.0
        };
        order.shuffle(&mut rng);
        for batch in order.chunks(settings.batch) {
            touched.clear();
            for p in batch {
                let eval = net.forward(p, &mut acc);
                let s = sigmoid(k * eval / 100.0);
                // d(loss)/d(eval) for (s - t)^2.
                let d = 2.0 * (s - target(p, k, lambda)) * s * (1.0 - s) * k / 100.0;
                let (g1, rest) = grad.split_at_mut(INPUTS * HIDDEN);
                let (gb1, rest) = rest.split_at_mut(HIDDEN);
                let (gw2, rest) = rest.split_at_mut(HIDDEN);
                let (gb2, glin) = rest.split_at_mut(1);
                gb2[0] += d;
                for (j, &a) in acc.iter().enumerate() {
                    let h = a.clamp(0.0, 1.0);
                    gw2[j] += d * h;
                    if a > 0.0 && a < 1.0 {
                        let dh = d * net.w2[j];
                        gb1[j] += dh;
                        for &i in &p.inputs {
                            g1[i as usize * HIDDEN + j] += dh;
                        }
                    }
                }
                for (g, &f) in glin.iter_mut().zip(&p.features) {
                    *g += d * f as f32;
                }
                touched.extend(p.inputs.iter().map(|&i| i as usize));
            }
            touched.sort_unstable();
            touched.dedup();
            adam.t += 1;
            step(
                &mut net,
                &mut adam,
                &mut grad,
                &touched,
                settings.learning_rate * rate,
                batch.len(),
            );
        }
        let q = net.quantize(goals);
        let e = errors(&net, &q, &holdout, k, lambda);
        report(&format!(
            "epoch {epoch:3}: holdout error {:.5} (quantized {:.5}; linear evaluation {:.5})",
            e.network, e.quantized, e.linear
        ));
        if best.as_ref().is_none_or(|(_, b)| e.quantized < b.quantized) {
            best = Some((q, e));
        }
    }
    match best {
        Some(b) => b,
        None => {
            let q = net.quantize(goals);
            let e = errors(&net, &q, &holdout, k, lambda);
            (q, e)
        }
    }
}

/// One Adam step over the parameters a batch touched (rows of the first
/// layer of inputs it used, and every dense parameter); clears their
/// gradients.
fn step(net: &mut Float, adam: &mut Adam, grad: &mut [f32], rows: &[usize], rate: f32, n: usize) {
    const B1: f32 = 0.9;
    const B2: f32 = 0.999;
    const EPS: f32 = 1e-8;
    let t = adam.t;
    let lr = rate * (1.0 - B2.powi(t)).sqrt() / (1.0 - B1.powi(t));
    let scale = 1.0 / n as f32;
    let mut update = |idx: usize, param: &mut f32, lr: f32| {
        let g = grad[idx] * scale;
        grad[idx] = 0.0;
        let m = &mut adam.m[idx];
        let v = &mut adam.v[idx];
        *m = B1 * *m + (1.0 - B1) * g;
        *v = B2 * *v + (1.0 - B2) * g * g;
        *param -= lr * *m / (v.sqrt() + EPS);
    };
    for &r in rows {
        for j in 0..HIDDEN {
            let idx = r * HIDDEN + j;
            update(idx, &mut net.w1[idx], lr);
        }
    }
    let base = INPUTS * HIDDEN;
    for j in 0..HIDDEN {
        update(base + j, &mut net.b1[j], lr);
        // Output weights live in centi-units: a larger step.
        update(base + HIDDEN + j, &mut net.w2[j], lr * 100.0);
    }
    update(base + 2 * HIDDEN, &mut net.b2, lr * 100.0);
    for (f, w) in net.linear.iter_mut().enumerate() {
        update(base + 2 * HIDDEN + 1 + f, w, lr * 100.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Positions whose result is decided by one input: the network learns
    /// it, and the quantized network agrees with the float one.
    #[test]
    fn learns_a_planted_rule_and_quantizes_faithfully() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(3);
        let mut data = Vec::new();
        for game in 0..4000 {
            let mut inputs: Vec<u16> = (0..5).map(|_| rng.gen_range(0..750)).collect();
            inputs.sort_unstable();
            inputs.dedup();
            let win = inputs.iter().any(|&i| i < 100);
            data.push(Position {
                inputs,
                features: [0; FEATURES],
                result: if win { 1.0 } else { 0.0 },
                cp: None,
                game,
                goal: 1,
            });
        }
        // A few hundred steps, where real training takes tens of thousands:
        // a larger step size.
        let settings = Settings {
            epochs: 15,
            learning_rate: 1e-2,
            k: Some(2.0),
            ..Settings::default()
        };
        let (net, e) = train(&data, &settings, &mut |_| {});
        assert_eq!(net.check(), Ok(()), "the engine loads what train writes");
        assert!(e.network < 0.05, "{e:?}");
        assert!((e.quantized - e.network).abs() < 0.01, "{e:?}");
    }
}
