//! Fitting the expected-score model of the review (crates/review, `model`):
//! for each game, the `k` of E = 1 / (1 + exp(-score / k)) that makes the
//! engine's scores in self-play records most likely to have given the
//! games' results (maximum likelihood; a win 1, a draw 1/2, a loss 0 for
//! the side whose score it is), with the fit's log-loss, its calibration,
//! and `k` on the first quarter and half of the games, to show how it
//! settles with more data. `stackfish fit-model` prints it.

use std::collections::BTreeMap;
use std::io::BufRead;

use stackfish_games::{variants, GameResult};
use stackfish_record::{parse_result, RecordReader};

/// One searched position of a record: the mover's score and result.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    /// Centi-units, from the side to move (who then played the move).
    pub cp: i32,
    /// That side's result: 1, 0.5 or 0.
    pub result: f64,
}

/// The samples of one game (the review's family name: `silo` for `silo-8`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GameSamples {
    /// Per record, in the file's order, so that a fit can take the first
    /// games only.
    pub games: Vec<Vec<Sample>>,
    /// Forced wins and losses seen: certain by the model, not fitted.
    pub mates: usize,
}

impl GameSamples {
    pub fn positions(&self) -> usize {
        self.games.iter().map(Vec::len).sum()
    }
}

/// What reading the records found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Found {
    /// By the name the review's model uses for the game.
    pub by_game: BTreeMap<String, GameSamples>,
    /// Records that did not read, of an unknown variant, without a result
    /// or with a move the rules refuse.
    pub unusable: usize,
}

/// The name the model keeps the game's `k` under: `mixtour-5` apart (its
/// scores count other points), every other variant its game's.
pub fn model_name(variant: &str) -> String {
    let v = variant.trim().to_ascii_lowercase();
    if v.is_empty() {
        return "mixtour".into();
    }
    if v == "mixtour-5" {
        return v;
    }
    v.split('-').next().unwrap_or(&v).to_string()
}

/// Every searched move of the records of `input` (JSON lines or PGN): its
/// score (`cp`, the engine's report of the position it moved from) and the
/// game's result for the mover. Book moves and moves without a score are
/// skipped; a forced win (`mate`) is counted apart.
pub fn samples_from_records(input: impl BufRead) -> Found {
    let mut found = Found::default();
    for item in RecordReader::new(input) {
        let Ok(game) = item.parse() else {
            found.unusable += 1;
            continue;
        };
        let record = game.record;
        let variant = if record.variant.is_empty() {
            "mixtour"
        } else {
            record.variant.as_str()
        };
        let (Some(mut line), Some(result)) =
            (variants::new_game(variant), parse_result(&record.result))
        else {
            found.unusable += 1;
            continue;
        };
        let start = record.fen.as_deref().filter(|f| *f != "startpos");
        if start.is_some_and(|f| line.set_position(Some(f), &[]).is_err()) {
            found.unusable += 1;
            continue;
        }
        let mut samples = Vec::new();
        let mut mates = 0;
        let mut legal = true;
        for m in &record.moves {
            let mover = line.side_to_move();
            let value = match result {
                GameResult::Draw => 0.5,
                r if r.winner() == Some(mover) => 1.0,
                _ => 0.0,
            };
            match (m.book, m.cp, m.mate) {
                (false, Some(cp), None) => samples.push(Sample { cp, result: value }),
                (false, _, Some(_)) => mates += 1,
                _ => {}
            }
            if line.play_text(&m.mv).is_err() {
                legal = false;
                break;
            }
        }
        if !legal {
            found.unusable += 1;
            continue;
        }
        let entry = found.by_game.entry(model_name(variant)).or_default();
        entry.games.push(samples);
        entry.mates += mates;
    }
    found
}

/// The mean log-loss of the model with scale `k` over `samples`.
pub fn log_loss(samples: &[Sample], k: f64) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    let total: f64 = samples
        .iter()
        .map(|s| {
            let p = stackfish_review::model::logistic(f64::from(s.cp), k).clamp(1e-12, 1.0 - 1e-12);
            -(s.result * p.ln() + (1.0 - s.result) * (1.0 - p).ln())
        })
        .sum();
    total / samples.len() as f64
}

/// The largest `k` the fit returns: a game whose scores say nothing of
/// the result.
pub const MAX_K: f64 = 100_000.0;

/// The `k` of least log-loss: the likelihood is concave in 1/k (a logistic
/// regression on the score without intercept), so Newton's method on 1/k
/// finds the one maximum.
pub fn fit_k(samples: &[Sample]) -> f64 {
    let mut b = 1.0 / 100.0;
    for _ in 0..100 {
        let (mut grad, mut hess) = (0.0, 0.0);
        for s in samples {
            let x = f64::from(s.cp);
            let p = stackfish_review::model::logistic(x * b, 1.0);
            grad += (s.result - p) * x;
            hess += p * (1.0 - p) * x * x;
        }
        if hess <= 0.0 {
            break;
        }
        let next = (b + grad / hess).max(1.0 / MAX_K);
        let done = (next - b).abs() <= 1e-12 * b.abs().max(1e-9);
        b = next;
        if done {
            break;
        }
    }
    (1.0 / b).min(MAX_K)
}

/// Positions whose score falls in `lo..hi`: how they ended, what the model says.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bucket {
    pub lo: i32,
    pub hi: i32,
    pub n: usize,
    /// The mean result of the side with the score.
    pub scored: f64,
    /// The model's mean expected score over them.
    pub predicted: f64,
}

/// The fit of one game.
#[derive(Clone, Debug, PartialEq)]
pub struct Fit {
    pub k: f64,
    pub games: usize,
    pub positions: usize,
    pub mates: usize,
    pub log_loss: f64,
    /// `k` on the first quarter and the first half of the games.
    pub k_quarter: f64,
    pub k_half: f64,
    pub buckets: Vec<Bucket>,
}

/// The calibration buckets' edges (centi-units, the mover's score).
const EDGES: [i32; 12] = [
    -400, -200, -125, -75, -25, 25, 75, 125, 200, 400, 1000, 100_000,
];

/// Fits `k` to `samples`, with its figures.
pub fn fit(samples: &GameSamples) -> Fit {
    let all: Vec<Sample> = samples.games.iter().flatten().copied().collect();
    let first = |part: usize| -> Vec<Sample> {
        let n = samples.games.len().div_ceil(part);
        samples.games[..n].iter().flatten().copied().collect()
    };
    let k = fit_k(&all);
    let mut buckets = Vec::new();
    let mut lo = -100_000;
    for &hi in &EDGES {
        let inside: Vec<&Sample> = all.iter().filter(|s| s.cp >= lo && s.cp < hi).collect();
        if !inside.is_empty() {
            let n = inside.len();
            buckets.push(Bucket {
                lo,
                hi,
                n,
                scored: inside.iter().map(|s| s.result).sum::<f64>() / n as f64,
                predicted: inside
                    .iter()
                    .map(|s| stackfish_review::model::logistic(f64::from(s.cp), k))
                    .sum::<f64>()
                    / n as f64,
            });
        }
        lo = hi;
    }
    Fit {
        k,
        games: samples.games.len(),
        positions: all.len(),
        mates: samples.mates,
        log_loss: log_loss(&all, k),
        k_quarter: fit_k(&first(4)),
        k_half: fit_k(&first(2)),
        buckets,
    }
}

/// The report `stackfish fit-model` prints for one game.
pub fn format_fit(game: &str, fit: &Fit) -> String {
    let mut s = format!(
        "{game}: k = {:.1} ({} games, {} positions, {} forced results not fitted)\n",
        fit.k, fit.games, fit.positions, fit.mates
    );
    s.push_str(&format!(
        "  log-loss {:.4} (a coin: {:.4}); k on the first quarter / half of the games: {:.1} / {:.1}\n",
        fit.log_loss,
        std::f64::consts::LN_2,
        fit.k_quarter,
        fit.k_half
    ));
    s.push_str("  score (the mover's)   positions   scored   model\n");
    for b in &fit.buckets {
        let range = match (b.lo, b.hi) {
            (-100_000, hi) => format!("below {hi}"),
            (lo, 100_000) => format!("{lo} and above"),
            (lo, hi) => format!("{lo} to {}", hi - 1),
        };
        s.push_str(&format!(
            "  {range:<20} {:>10}   {:>6.3}   {:>5.3}\n",
            b.n, b.scored, b.predicted
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Samples drawn from a known model: the fit finds its k back.
    #[test]
    fn the_fit_finds_the_scale_that_made_the_results() {
        let true_k = 80.0;
        // A fixed, spread set of scores, each with its exact expected
        // result split into a win and a loss of the right weights: the
        // likelihood's maximum is at the true k.
        let mut samples = Vec::new();
        for cp in (-400..=400).step_by(10) {
            let p = stackfish_review::model::logistic(f64::from(cp), true_k);
            // 1000 games per score, wins in proportion.
            let wins = (p * 1000.0).round() as usize;
            samples.extend(std::iter::repeat_n(Sample { cp, result: 1.0 }, wins));
            samples.extend(std::iter::repeat_n(Sample { cp, result: 0.0 }, 1000 - wins));
        }
        let k = fit_k(&samples);
        assert!((k - true_k).abs() < 0.5, "{k}");
        // The fitted k is the least log-loss: either side of it is worse.
        let at = log_loss(&samples, k);
        assert!(at < log_loss(&samples, k * 1.1) && at < log_loss(&samples, k / 1.1));
        // Scores that say nothing: k as large as the fit allows.
        let noise = vec![
            Sample {
                cp: 100,
                result: 1.0,
            },
            Sample {
                cp: 100,
                result: 0.0,
            },
        ];
        assert!(fit_k(&noise) > 1_000.0);
    }

    #[test]
    fn records_give_the_movers_score_and_result() {
        // Player 1 (c3, +20) and player 2 (d4, -15) moved, then a book
        // move and a mate; player 2 won.
        let text = r#"{"variant":"mixtour","result":"0-1","moves":[{"move":"c3","cp":20},{"move":"d4","cp":-15},{"move":"b2","book":true},{"move":"c3d4","mate":-3}]}
{"variant":"silo-8","result":"*","moves":[]}
{"variant":"mixtour","result":"1-0","moves":[{"move":"zz","cp":5}]}
not a record
"#;
        let found = samples_from_records(text.as_bytes());
        assert_eq!(found.unusable, 3);
        let m = &found.by_game["mixtour"];
        assert_eq!(
            m.games,
            [vec![
                Sample {
                    cp: 20,
                    result: 0.0
                },
                Sample {
                    cp: -15,
                    result: 1.0
                }
            ]]
        );
        assert_eq!(m.mates, 1);
        assert_eq!(model_name("silo-8"), "silo");
        assert_eq!(model_name("mixtour-5"), "mixtour-5");
        assert_eq!(model_name(""), "mixtour");
    }
}
