//! The game's course in numbers: one evaluation per position (from player
//! 1's side), and the moves after which it fell sharply for the side that
//! played them (mistakes and blunders).

use serde::Serialize;

use stackfish_engine::protocol::Score;
use stackfish_games::Side;

/// Scores are compared clamped to this (centi-units): beyond it a game is
/// decided, and a forced win counts as exactly this much.
pub const DECIDED_CP: i32 = 1_000;
/// A move that loses at least this much for its player is a mistake...
pub const MISTAKE_CP: i32 = 100;
/// ...and at least this much, a blunder.
pub const BLUNDER_CP: i32 = 300;

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

    /// Player 1's score, clamped to `DECIDED_CP`.
    pub fn clamped(&self) -> i32 {
        match (self.cp, self.mate) {
            (_, Some(m)) if m > 0 => DECIDED_CP,
            (_, Some(_)) => -DECIDED_CP,
            (Some(cp), None) => cp.clamp(-DECIDED_CP, DECIDED_CP),
            (None, None) => 0,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mark {
    Mistake,
    Blunder,
}

/// How much a move from `before` to `after` cost the side that played it.
pub fn judge(before: &Eval, after: &Eval, mover: Side) -> Option<Mark> {
    let sign = if mover == Side::P1 { 1 } else { -1 };
    let lost = sign * (before.clamped() - after.clamped());
    if lost >= BLUNDER_CP {
        Some(Mark::Blunder)
    } else if lost >= MISTAKE_CP {
        Some(Mark::Mistake)
    } else {
        None
    }
}

/// One mark per move: move `i` leads from position `i` to `i + 1`;
/// `first` is the side to move at position 0 (sides alternate, a pass is
/// a move). A move without both evaluations is not judged.
pub fn marks(evals: &[Option<Eval>], first: Side) -> Vec<Option<Mark>> {
    (0..evals.len().saturating_sub(1))
        .map(|i| {
            let mover = if i.is_multiple_of(2) {
                first
            } else {
                first.opponent()
            };
            match (&evals[i], &evals[i + 1]) {
                (Some(b), Some(a)) => judge(b, a, mover),
                _ => None,
            }
        })
        .collect()
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
        assert_eq!(cp(5000).unwrap().clamped(), DECIDED_CP);
    }

    #[test]
    fn drops_for_the_mover_are_marked_at_the_thresholds() {
        // Player 1 moves from +50 to -49: lost 99, nothing; to -50: a
        // mistake; to -250: a blunder. A rise for the mover is never marked.
        assert_eq!(marks(&[cp(50), cp(-49)], Side::P1), vec![None]);
        assert_eq!(
            marks(&[cp(50), cp(-50)], Side::P1),
            vec![Some(Mark::Mistake)]
        );
        assert_eq!(
            marks(&[cp(50), cp(-250)], Side::P1),
            vec![Some(Mark::Blunder)]
        );
        assert_eq!(marks(&[cp(-250), cp(50)], Side::P1), vec![None]);
        // The second move is player 2's: a rise for player 1 is its loss.
        assert_eq!(
            marks(&[cp(0), cp(0), cp(150)], Side::P1),
            vec![None, Some(Mark::Mistake)]
        );
        // Position 0 with player 2 to move (a loaded position).
        assert_eq!(
            marks(&[cp(0), cp(400)], Side::P2),
            vec![Some(Mark::Blunder)]
        );
        // A forced win thrown away is a blunder; unknown positions are not judged.
        let win = Some(Eval {
            cp: None,
            mate: Some(3),
            depth: 9,
        });
        assert_eq!(marks(&[win, cp(200)], Side::P1), vec![Some(Mark::Blunder)]);
        assert_eq!(
            marks(&[cp(900), None, cp(-900)], Side::P1),
            vec![None, None]
        );
    }
}
