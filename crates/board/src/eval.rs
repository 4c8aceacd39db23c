//! The game's course in numbers: one evaluation per position (from player
//! 1's side), and the moves that cost their player expected score
//! (inaccuracies, mistakes and blunders), judged by the review crate's
//! model and classes, as a whole-game review judges them.

use serde::Serialize;

use stackfish_engine::protocol::Score;
use stackfish_games::Side;
pub use stackfish_review::Class as Mark;
use stackfish_review::Model;

/// What an engine said of a position, turned to player 1's side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Eval {
    /// Centi-units, positive when player 1 is better; absent with `mate`.
    pub cp: Option<i32>,
    /// A forced win in |mate| moves: positive for player 1.
    pub mate: Option<i32>,
    pub depth: u32,
}

impl Eval {
    /// `score` is from the side to move, as engines report it.
    pub fn new(score: Score, side_to_move: Side, depth: u32) -> Eval {
        let sign = if side_to_move == Side::P1 { 1 } else { -1 };
        match score {
            Score::Cp(v) => Eval {
                cp: Some(sign * v),
                mate: None,
                depth,
            },
            Score::Mate(n) => Eval {
                cp: None,
                // `mate 0` would be a side already mated: a loss for the mover.
                mate: Some(if n == 0 { -sign } else { sign * n }),
                depth,
            },
        }
    }

    /// Player 1's expected score under `model` (a forced win 1, a forced
    /// loss 0); `None` for an evaluation with no score.
    pub fn expected(&self, model: &Model) -> Option<f64> {
        match (self.cp, self.mate) {
            (_, Some(m)) => Some(model.expected(Score::Mate(m))),
            (Some(cp), None) => Some(model.expected(Score::Cp(cp))),
            (None, None) => None,
        }
    }
}

/// One mark per move of a game of `variant`: move `i` leads from position
/// `i` to `i + 1` and `movers[i]` played it. A move without both
/// evaluations is not judged.
pub fn marks(evals: &[Option<Eval>], movers: &[Side], variant: &str) -> Vec<Option<Mark>> {
    let model = Model::for_variant(variant);
    let expected: Vec<Option<f64>> = evals
        .iter()
        .map(|e| e.as_ref().and_then(|e| e.expected(&model)))
        .collect();
    let n = evals.len().saturating_sub(1).min(movers.len());
    stackfish_review::classes(&expected, &movers[..n])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cp(v: i32) -> Option<Eval> {
        Some(Eval {
            cp: Some(v),
            mate: None,
            depth: 5,
        })
    }

    #[test]
    fn scores_turn_to_player_ones_side() {
        assert_eq!(Eval::new(Score::Cp(40), Side::P2, 3).cp, Some(-40));
        assert_eq!(Eval::new(Score::Mate(2), Side::P2, 3).mate, Some(-2));
        assert_eq!(Eval::new(Score::Mate(-1), Side::P1, 3).mate, Some(-1));
        assert_eq!(Eval::new(Score::Mate(0), Side::P1, 0).mate, Some(-1));
    }

    fn mate(m: i32) -> Option<Eval> {
        Some(Eval {
            cp: None,
            mate: Some(m),
            depth: 9,
        })
    }

    fn alternating(n: usize, first: Side) -> Vec<Side> {
        (0..n)
            .map(|i| if i % 2 == 0 { first } else { first.opponent() })
            .collect()
    }

    #[test]
    fn marks_follow_the_expected_score_of_the_variants_model() {
        let k = Model::for_variant("focus").k;
        // Player 1 moves from level to a score worth 0.5 - 0.25 = 0.25 of
        // player 1's expected score: ln(0.25 / 0.75) * k below 0.
        let cp_at = |e: f64| ((e / (1.0 - e)).ln() * k).round() as i32;
        let marks_of = |evals: &[Option<Eval>], first| {
            marks(evals, &alternating(evals.len() - 1, first), "focus")
        };
        assert_eq!(
            marks_of(&[cp(0), cp(cp_at(0.25))], Side::P1),
            vec![Some(Mark::Mistake)]
        );
        assert_eq!(marks_of(&[cp(0), cp(cp_at(0.47))], Side::P1), vec![None]);
        // A rise for the mover is never marked; the second move is player
        // 2's, whose loss is player 1's rise.
        assert_eq!(marks_of(&[cp(0), cp(cp_at(0.6))], Side::P1), vec![None]);
        assert_eq!(
            marks_of(&[cp(0), cp(0), cp(cp_at(0.9))], Side::P1),
            vec![None, Some(Mark::Blunder)]
        );
        // Position 0 with player 2 to move (a loaded position).
        assert_eq!(
            marks_of(&[cp(0), cp(cp_at(0.9))], Side::P2),
            vec![Some(Mark::Blunder)]
        );
        // A forced win thrown away for a level game is a blunder; unknown
        // positions are not judged; the same points lost in another game
        // may weigh less.
        assert_eq!(
            marks_of(&[mate(3), cp(0)], Side::P1),
            vec![Some(Mark::Blunder)]
        );
        assert_eq!(
            marks_of(&[cp(900), None, cp(-900)], Side::P1),
            vec![None, None]
        );
        let fifty = [cp(0), cp(-50)];
        let strict = marks(&fifty, &[Side::P1], "mixtour");
        let lenient = marks(&fifty, &[Side::P1], "mixtour-5");
        assert!(strict[0] > lenient[0], "{strict:?} {lenient:?}");
    }
}
