//! Training of the evaluation networks (`stackfish_nnue`: Mixtour's and
//! Focus's) on recorded games: `stackfish train <records.jsonl>... --out
//! net.bin`.
//!
//! Data: every quiet position (as `tune` defines it) after the first plies
//! of Mixtour games on the standard board to 1, 2 or 3 points in arena
//! records (the goal and the scores are inputs), or of Focus games, each
//! learnt every epoch through one of the board's eight symmetries, picked
//! at random (Mixtour's without them with `--no-symmetries`, as its
//! networks before 2026-12-06 were), with two labels from the side
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
use stackfish_games::coinstack::{self, CoinStack, CoinStackVariant};
use stackfish_games::mixtour::{self, Mixtour, MixtourVariant};
use stackfish_nnue::{Layout, Network, QA, QB};
use stackfish_record::GameRecord;

/// One position: its active inputs, its linear features, its labels.
#[derive(Clone, Debug)]
pub struct Position {
    pub inputs: Vec<u16>,
    pub features: Vec<i32>,
    pub result: f32,
    pub cp: Option<f32>,
    /// Which game it came from: the holdout is chosen by game, so positions
    /// of one game never sit on both sides.
    pub game: usize,
    /// The scope bit of its kind of game (for Mixtour, bit g - 1 of goal
    /// g): the network's scope byte is every one its positions have.
    pub scope: u8,
}

/// The fewest positions `train` learns from: fewer fit nothing.
pub const MIN_POSITIONS: usize = 50;

/// A game `train` makes networks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trained {
    /// Mixtour on the standard board to 1, 2 or 3 points.
    Mixtour,
    /// Focus (the `focus` variant of Coin Stack).
    Focus,
}

impl Trained {
    /// The records' variant name.
    pub fn name(self) -> &'static str {
        match self {
            Trained::Mixtour => "mixtour",
            Trained::Focus => "focus",
        }
    }

    /// The game of a record's `variant` field, if `train` knows it.
    pub fn of_variant(variant: &str) -> Option<Trained> {
        match variant {
            "" | "mixtour" => Some(Trained::Mixtour),
            "focus" => Some(Trained::Focus),
            _ => None,
        }
    }

    /// The game of the first record in `text` that `train` knows.
    pub fn of_records(text: &str) -> Option<Trained> {
        stackfish_record::records(text)
            .filter_map(|(_, r)| r.ok())
            .find_map(|r| Trained::of_variant(&r.variant))
    }

    /// The hidden units a network of this game gets without `--hidden`.
    pub fn hidden(self) -> usize {
        match self {
            Trained::Mixtour => mixtour::nnue::HIDDEN,
            Trained::Focus => coinstack::nnue::HIDDEN,
        }
    }
}

/// The variant of the first record in `text` that `train` does not know
/// (to say why no position could be used).
pub fn other_game(text: &str) -> Option<String> {
    stackfish_record::records(text)
        .filter_map(|(_, r)| r.ok())
        .map(|r| r.variant)
        .find(|v| Trained::of_variant(v).is_none())
}

/// Reads the records of `game`; other lines are counted and skipped.
pub fn positions_from_records(text: &str, game: Trained) -> (Vec<Position>, usize) {
    let mut out = Vec::new();
    let mut skipped = 0;
    for (n, (_, record)) in stackfish_record::records(text).enumerate() {
        let positions = record.ok().and_then(|r| replay(&r, n, game));
        match positions {
            Some(p) => out.extend(p),
            None => skipped += 1,
        }
    }
    (out, skipped)
}

fn replay(record: &GameRecord, game: usize, kind: Trained) -> Option<Vec<Position>> {
    if Trained::of_variant(&record.variant) != Some(kind) {
        return None;
    }
    match kind {
        Trained::Mixtour => {
            replay_quiet::<Mixtour, _>(&MixtourVariant::STANDARD, record, |pos, m, result| {
                if !mixtour::nnue::applies(pos) {
                    return None;
                }
                let mut inputs = [0; mixtour::nnue::MAX_ACTIVE];
                let n = mixtour::nnue::active(pos, &mut inputs);
                Some(Position {
                    inputs: inputs[..n].to_vec(),
                    features: mixtour::eval::features(pos).to_vec(),
                    result: result as f32,
                    cp: m.cp.map(|c| c as f32),
                    game,
                    scope: 1u8.checked_shl(u32::from(pos.goal()) - 1).unwrap_or(0)
                        & mixtour::nnue::GOALS,
                })
            })
        }
        Trained::Focus => {
            replay_quiet::<CoinStack, _>(&CoinStackVariant::Focus, record, |pos, m, result| {
                let mut inputs = [0; coinstack::nnue::MAX_ACTIVE];
                let n = coinstack::nnue::active(pos, &mut inputs);
                Some(Position {
                    inputs: inputs[..n].to_vec(),
                    features: coinstack::eval::features(pos).to_vec(),
                    result: result as f32,
                    cp: m.cp.map(|c| c as f32),
                    game,
                    scope: coinstack::nnue::SCOPE,
                })
            })
        }
    }
}

/// What training needs of a game besides its `Layout`: the shipped
/// weights of its linear features (the start of the linear part, and the
/// error to beat), and the symmetries of its board, if positions may be
/// learnt through them.
pub struct Spec {
    pub linear: &'static [i32],
    /// How many symmetries `symmetric` knows (1: none but the identity).
    pub symmetries: usize,
    /// An input seen through symmetry `sym`.
    pub symmetric: fn(input: usize, sym: usize) -> usize,
}

/// Trains a network of `game` on `data` (its positions) and returns its
/// file.
pub fn train_game(
    game: Trained,
    data: &[Position],
    settings: &Settings,
    report: &mut dyn FnMut(&str),
) -> (Vec<u8>, Errors) {
    match game {
        Trained::Mixtour => {
            let spec = Spec {
                linear: &mixtour::eval::WEIGHTS,
                symmetries: if settings.symmetries { 8 } else { 1 },
                symmetric: mixtour::nnue::symmetric_input,
            };
            let (net, e) = train::<mixtour::nnue::MixtourNet>(data, settings, &spec, report);
            (net.to_bytes(), e)
        }
        Trained::Focus => {
            let spec = Spec {
                linear: &coinstack::eval::WEIGHTS_FOCUS,
                symmetries: 8,
                symmetric: coinstack::nnue::symmetric_input,
            };
            let (net, e) = train::<coinstack::nnue::FocusNet>(data, settings, &spec, report);
            (net.to_bytes(), e)
        }
    }
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
    /// Hidden units (a multiple of 16, at most 512).
    pub hidden: usize,
    /// Whether the linear features get weights (else they stay 0, and the
    /// engine skips computing them).
    pub linear: bool,
    /// Whether each position is learnt through one of the board's
    /// symmetries picked at random (Mixtour; Focus always is).
    pub symmetries: bool,
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
            hidden: mixtour::nnue::HIDDEN,
            linear: true,
            symmetries: true,
        }
    }
}

/// The share of the epochs after which the linear weights are rounded to
/// what the file holds at every step (the last 40%, the smaller steps).
const ROUND_LINEAR_AFTER: f32 = 0.6;

/// Every this many games, one goes to the holdout.
pub const HOLDOUT: usize = 10;

/// The network in f32 while it learns.
struct Float {
    hidden: usize,
    w1: Vec<f32>,
    b1: Vec<f32>,
    w2: Vec<f32>,
    b2: f32,
    linear: Vec<f32>,
}

/// Adam's moments, one pair per parameter, in the layout of `Float::flat`.
struct Adam {
    m: Vec<f32>,
    v: Vec<f32>,
    t: i32,
}

fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

impl Float {
    fn new(rng: &mut impl Rng, inputs: usize, hidden: usize, linear: &[i32]) -> Float {
        Float {
            hidden,
            w1: (0..inputs * hidden)
                .map(|_| rng.gen_range(-0.1..0.1))
                .collect(),
            b1: vec![0.1; hidden],
            // Output weights in centi-units per unit of activation.
            w2: (0..hidden).map(|_| rng.gen_range(-10.0..10.0)).collect(),
            b2: 0.0,
            linear: linear.iter().map(|&w| w as f32).collect(),
        }
    }

    /// The number of parameters, in the order `step` keeps them.
    fn params(&self) -> usize {
        self.w1.len() + 2 * self.hidden + 1 + self.linear.len()
    }

    /// Hidden sums, then the evaluation in centi-units.
    fn forward(&self, inputs: &[u16], features: &[i32], acc: &mut [f32]) -> f32 {
        let hidden = self.hidden;
        acc.copy_from_slice(&self.b1);
        for &i in inputs {
            let row = &self.w1[i as usize * hidden..(i as usize + 1) * hidden];
            for (a, w) in acc.iter_mut().zip(row) {
                *a += w;
            }
        }
        let out: f32 = acc
            .iter()
            .zip(&self.w2)
            .map(|(a, w)| a.clamp(0.0, 1.0) * w)
            .sum();
        let linear: f32 = features
            .iter()
            .zip(&self.linear)
            .map(|(&f, w)| f as f32 * w)
            .sum();
        self.b2 + out + linear
    }

    fn quantize<L: Layout>(&self, scope: u8) -> Network<L> {
        let q16 = |x: f32| x.round().clamp(i16::MIN as f32, i16::MAX as f32) as i16;
        // First-layer weights and biases within a bound that keeps every
        // hidden sum (a bias and at most one row per group of inputs) in
        // the 16 bits the engine's accumulators have (`Network::check`):
        // for Mixtour about 4.1 in units of a full activation, for Focus
        // 2.3, far beyond what the clip at 1 uses.
        let most = (i16::MAX as usize / (L::groups().len() + 1)) as f32;
        let q1 = |x: f32| (x * QA as f32).round().clamp(-most, most) as i16;
        Network::new(
            scope,
            self.w1.iter().map(|&w| q1(w)).collect(),
            self.b1.iter().map(|&w| q1(w)).collect(),
            self.w2.iter().map(|w| q16(w * QB as f32)).collect(),
            (self.b2 * (QA * QB) as f32).round() as i32,
            self.linear.iter().map(|w| w.round() as i32).collect(),
        )
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

fn errors<L: Layout>(
    net: &Float,
    q: &Network<L>,
    data: &[&Position],
    linear: &[i32],
    k: f32,
    lambda: f32,
) -> Errors {
    let mut e = (0.0, 0.0, 0.0);
    let mut acc = vec![0.0; net.hidden];
    for p in data {
        let t = target(p, k, lambda);
        let sq = |eval: f32| ((sigmoid(k * eval / 100.0) - t) as f64).powi(2);
        e.0 += sq(net.forward(&p.inputs, &p.features, &mut acc));
        e.1 += sq(q.evaluate(&p.inputs, &p.features) as f32);
        let weighted: i32 = p.features.iter().zip(linear).map(|(f, w)| f * w).sum();
        e.2 += sq(weighted as f32);
    }
    let n = data.len().max(1) as f64;
    Errors {
        network: e.0 / n,
        quantized: e.1 / n,
        linear: e.2 / n,
    }
}

/// Trains a network of layout `L` on `data`; `report` hears one line per
/// epoch. With symmetries, each position is learnt each epoch through
/// one picked at random (the holdout is measured as it is).
pub fn train<L: Layout>(
    data: &[Position],
    settings: &Settings,
    spec: &Spec,
    report: &mut dyn FnMut(&str),
) -> (Network<L>, Errors) {
    let hidden = settings.hidden;
    let mut rng = rand::rngs::StdRng::seed_from_u64(settings.seed);
    let (train, holdout): (Vec<&Position>, Vec<&Position>) =
        data.iter().partition(|p| p.game % HOLDOUT != HOLDOUT - 1);
    // K of the shipped linear evaluation against the results.
    let samples: Vec<crate::tune::Sample> = train
        .iter()
        .map(|p| crate::tune::Sample {
            features: p.features.clone(),
            result: p.result as f64,
        })
        .collect();
    let weights: Vec<f64> = spec.linear.iter().map(|&w| w as f64).collect();
    let k = settings
        .k
        .unwrap_or_else(|| crate::tune::best_k(&samples, &weights) as f32);
    report(&format!(
        "{} training positions, {} held out, K {k:.3}",
        train.len(),
        holdout.len()
    ));
    let scope = data.iter().fold(0u8, |g, p| g | p.scope) & L::SCOPE_BITS;
    let zeros = vec![0; spec.linear.len()];
    let start = if settings.linear { spec.linear } else { &zeros };
    let mut net = Float::new(&mut rng, L::INPUTS, hidden, start);
    let n_params = net.params();
    let mut adam = Adam {
        m: vec![0.0; n_params],
        v: vec![0.0; n_params],
        t: 0,
    };
    let mut order: Vec<&Position> = train.clone();
    let mut grad = vec![0.0f32; n_params];
    let mut touched: Vec<usize> = Vec::new();
    let mut acc = vec![0.0f32; hidden];
    let mut seen: Vec<u16> = Vec::new();
    let lambda = settings.lambda;
    // The best network on the holdout so far: training past it only fits
    // the training games more closely.
    let mut best: Option<(Network<L>, Errors)> = None;
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
                let inputs: &[u16] = if spec.symmetries > 1 {
                    let sym = rng.gen_range(0..spec.symmetries);
                    seen.clear();
                    seen.extend(
                        p.inputs
                            .iter()
                            .map(|&i| (spec.symmetric)(i as usize, sym) as u16),
                    );
                    &seen
                } else {
                    &p.inputs
                };
                let eval = net.forward(inputs, &p.features, &mut acc);
                let s = sigmoid(k * eval / 100.0);
                // d(loss)/d(eval) for (s - t)^2.
                let d = 2.0 * (s - target(p, k, lambda)) * s * (1.0 - s) * k / 100.0;
                let (g1, rest) = grad.split_at_mut(L::INPUTS * hidden);
                let (gb1, rest) = rest.split_at_mut(hidden);
                let (gw2, rest) = rest.split_at_mut(hidden);
                let (gb2, glin) = rest.split_at_mut(1);
                gb2[0] += d;
                for (j, &a) in acc.iter().enumerate() {
                    let h = a.clamp(0.0, 1.0);
                    gw2[j] += d * h;
                    if a > 0.0 && a < 1.0 {
                        let dh = d * net.w2[j];
                        gb1[j] += dh;
                        for &i in inputs {
                            g1[i as usize * hidden + j] += dh;
                        }
                    }
                }
                for (g, &f) in glin.iter_mut().zip(&p.features) {
                    *g += d * f as f32;
                }
                touched.extend(inputs.iter().map(|&i| i as usize));
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
            if !settings.linear {
                net.linear.fill(0.0);
            } else if progress > ROUND_LINEAR_AFTER {
                // The file keeps whole centi-units: rounded from here on,
                // so that the layers learn around the weights the engine
                // will have (rounding them only at the end cost as much
                // held-out error as all the other quantization together).
                net.linear.iter_mut().for_each(|w| *w = w.round());
            }
        }
        let q = net.quantize::<L>(scope);
        let e = errors(&net, &q, &holdout, spec.linear, k, lambda);
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
            let q = net.quantize::<L>(scope);
            let e = errors(&net, &q, &holdout, spec.linear, k, lambda);
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
    let hidden = net.hidden;
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
        for j in 0..hidden {
            let idx = r * hidden + j;
            update(idx, &mut net.w1[idx], lr);
        }
    }
    let base = net.w1.len();
    for j in 0..hidden {
        update(base + j, &mut net.b1[j], lr);
        // Output weights live in centi-units: a larger step.
        update(base + hidden + j, &mut net.w2[j], lr * 100.0);
    }
    update(base + 2 * hidden, &mut net.b2, lr * 100.0);
    for (f, w) in net.linear.iter_mut().enumerate() {
        update(base + 2 * hidden + 1 + f, w, lr * 100.0);
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
                features: vec![0; mixtour::eval::FEATURES],
                result: if win { 1.0 } else { 0.0 },
                cp: None,
                game,
                scope: 1,
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
        let spec = Spec {
            linear: &mixtour::eval::WEIGHTS,
            symmetries: 1,
            symmetric: |i, _| i,
        };
        let (net, e) = train::<mixtour::nnue::MixtourNet>(&data, &settings, &spec, &mut |_| {});
        assert_eq!(net.check(), Ok(()), "the engine loads what train writes");
        assert!(e.network < 0.05, "{e:?}");
        assert!((e.quantized - e.network).abs() < 0.01, "{e:?}");
    }
}
