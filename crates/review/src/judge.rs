//! Judging the moves of a game from the expected scores of its positions:
//! plain functions over a sequence, for the full review and the board's
//! live marks alike.
//!
//! `expected[i]` is player 1's expected score in position `i` (`None`
//! where nothing is known); move `i` leads from position `i` to `i + 1`
//! and `movers[i]` played it. A move's *loss* is what it cost its player:
//! their expected score before it less after it, never below 0.

use serde::{Deserialize, Serialize};
use stackfish_games::Side;

/// An inaccuracy costs its player at least this much expected score...
pub const INACCURACY: f64 = 0.10;
/// ...a mistake at least this much...
pub const MISTAKE: f64 = 0.20;
/// ...and a blunder at least this much. (docs/playing.md says why these:
/// the engine's own moves at four times the review's budget lose up to
/// about a quarter in its eyes, a win in one allowed loses half or more.)
pub const BLUNDER: f64 = 0.30;

/// The decisive mistake's threshold: a player whose expected score stays
/// below this to the end of the game has lost it from there.
pub const LOST_BELOW: f64 = 0.20;

/// How bad a move was.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Class {
    Inaccuracy,
    Mistake,
    Blunder,
}

impl Class {
    /// The numeric annotation glyph of PGN: `$6` (?!), `$2` (?), `$4` (??).
    pub fn nag(self) -> u16 {
        match self {
            Class::Inaccuracy => 6,
            Class::Mistake => 2,
            Class::Blunder => 4,
        }
    }

    /// The suffix shown after the move.
    pub fn symbol(self) -> &'static str {
        match self {
            Class::Inaccuracy => "?!",
            Class::Mistake => "?",
            Class::Blunder => "??",
        }
    }

    /// The word, capitalised, for a comment.
    pub fn title(self) -> &'static str {
        match self {
            Class::Inaccuracy => "Inaccuracy",
            Class::Mistake => "Mistake",
            Class::Blunder => "Blunder",
        }
    }
}

/// The class of a move that lost `loss` expected score.
pub fn class_of(loss: f64) -> Option<Class> {
    if loss >= BLUNDER {
        Some(Class::Blunder)
    } else if loss >= MISTAKE {
        Some(Class::Mistake)
    } else if loss >= INACCURACY {
        Some(Class::Inaccuracy)
    } else {
        None
    }
}

/// `expected` (player 1's) as `side`'s.
pub fn for_side(expected: f64, side: Side) -> f64 {
    match side {
        Side::P1 => expected,
        Side::P2 => 1.0 - expected,
    }
}

/// Each move's loss for its player; `None` where a position around it is
/// not known. `movers` has one side per move (`expected.len() - 1`; extra
/// entries of either are ignored).
pub fn losses(expected: &[Option<f64>], movers: &[Side]) -> Vec<Option<f64>> {
    movers
        .iter()
        .enumerate()
        .map(|(i, &side)| {
            let before = (*expected.get(i)?)?;
            let after = (*expected.get(i + 1)?)?;
            Some((for_side(before, side) - for_side(after, side)).max(0.0))
        })
        .collect()
}

/// Each move's class ([`class_of`] its loss); `None` for a good move and
/// for one not judged.
pub fn classes(expected: &[Option<f64>], movers: &[Side]) -> Vec<Option<Class>> {
    losses(expected, movers)
        .into_iter()
        .map(|loss| loss.and_then(class_of))
        .collect()
}

/// The accuracy (0 to 100) of a move that lost `loss` expected score, as
/// lichess measures it: with `d` the loss in percentage points,
/// 103.1668 · e^(−0.04354 · d) − 3.1669, plus 1 for the analysis's own
/// uncertainty, within 0..=100; a move that lost nothing is 100.
pub fn move_accuracy(loss: f64) -> f64 {
    if loss <= 0.0 {
        return 100.0;
    }
    let d = 100.0 * loss;
    (103.166_810_071_164_9 * (-0.043_544_153_867_539_51 * d).exp() - 3.166_924_740_191_411 + 1.0)
        .clamp(0.0, 100.0)
}

/// Each player's accuracy over a game (0 to 100; `None` for a side with
/// no judged move).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Accuracy {
    pub p1: Option<f64>,
    pub p2: Option<f64>,
}

impl Accuracy {
    pub fn of(&self, side: Side) -> Option<f64> {
        match side {
            Side::P1 => self.p1,
            Side::P2 => self.p2,
        }
    }
}

/// Each player's accuracy, aggregated as lichess does: the mean of two
/// means of their moves' [`move_accuracy`]. One weights each move by how
/// much the game was swinging around it (the standard deviation, in
/// percentage points, of player 1's expected score over a window of
/// positions: `n / 10` positions, at least 2 and at most 8, for `n`
/// moves; the window ending 2 positions after the move, the first window
/// for the first moves; each weight within 0.5..=12), so that the calm
/// stretches of a game count less; the other is the harmonic mean (each
/// accuracy counted as at least 1), so that one blunder weighs heavily.
/// Moves not judged (a position unknown) are left out, and so are their
/// windows.
pub fn accuracy(expected: &[Option<f64>], movers: &[Side]) -> Accuracy {
    let moves = movers.len().min(expected.len().saturating_sub(1));
    let window = (moves / 10).clamp(2, 8);
    let mut sums = [(0.0f64, 0.0f64, 0.0f64, 0usize); 2];
    for (i, loss) in losses(expected, movers).into_iter().enumerate().take(moves) {
        let Some(loss) = loss else { continue };
        let start = (i + 2).saturating_sub(window);
        let end = (start + window).min(expected.len());
        let known: Vec<f64> = expected[start..end]
            .iter()
            .flatten()
            .map(|e| 100.0 * e)
            .collect();
        let weight = std_dev(&known).clamp(0.5, 12.0);
        let acc = move_accuracy(loss);
        let s = &mut sums[movers[i].index()];
        s.0 += weight * acc;
        s.1 += weight;
        s.2 += 1.0 / acc.max(1.0);
        s.3 += 1;
    }
    let side = |(weighted, weights, inverse, n): (f64, f64, f64, usize)| {
        (n > 0).then(|| (weighted / weights + n as f64 / inverse) / 2.0)
    };
    Accuracy {
        p1: side(sums[0]),
        p2: side(sums[1]),
    }
}

/// The population standard deviation (0 for fewer than two values).
fn std_dev(xs: &[f64]) -> f64 {
    if xs.len() < 2 {
        return 0.0;
    }
    let mean = xs.iter().sum::<f64>() / xs.len() as f64;
    (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / xs.len() as f64).sqrt()
}

/// The decisive mistake of a game `loser` lost: the move after which their
/// expected score fell below [`LOST_BELOW`] and never came back up to it
/// (positions not known are passed over). When the move that took it
/// below was the winner's (the engine saw the loss one ply late), the
/// loser's move before it is the mistake. `None` when the loser's score
/// never stayed below (a game lost on time, or adjudicated, from a
/// position that was not lost), when the game was lost from its first
/// position, or when the loser made no move before the fall.
pub fn decisive_mistake(expected: &[Option<f64>], movers: &[Side], loser: Side) -> Option<usize> {
    // The first position of the final run below the threshold.
    let mut first_below = None;
    for (i, e) in expected.iter().enumerate().rev() {
        match e {
            Some(e) if for_side(*e, loser) < LOST_BELOW => first_below = Some(i),
            Some(_) => break,
            None => {}
        }
    }
    let fell_at = first_below.filter(|&p| p > 0)?;
    (0..fell_at.min(movers.len()))
        .rev()
        .find(|&i| movers[i] == loser)
}

#[cfg(test)]
mod tests {
    use super::*;
    use Side::{P1, P2};

    fn alternating(n: usize, first: Side) -> Vec<Side> {
        (0..n)
            .map(|i| if i % 2 == 0 { first } else { first.opponent() })
            .collect()
    }

    #[test]
    fn classes_start_at_their_thresholds_for_the_side_that_moved() {
        assert_eq!(class_of(0.0), None);
        assert_eq!(class_of(INACCURACY - 1e-9), None);
        assert_eq!(class_of(INACCURACY), Some(Class::Inaccuracy));
        assert_eq!(class_of(MISTAKE - 1e-9), Some(Class::Inaccuracy));
        assert_eq!(class_of(MISTAKE), Some(Class::Mistake));
        assert_eq!(class_of(BLUNDER), Some(Class::Blunder));
        assert_eq!(class_of(1.0), Some(Class::Blunder));
        // Player 1 moves from 0.60 to 0.48 (lost 0.12): an inaccuracy;
        // player 2 then from player 1's 0.48 to 0.75 (player 2 lost 0.27):
        // a mistake; player 1 from 0.75 to 0.99: a gain, nothing.
        let e = [Some(0.60), Some(0.48), Some(0.75), Some(0.99)];
        assert_eq!(
            classes(&e, &alternating(3, P1)),
            [Some(Class::Inaccuracy), Some(Class::Mistake), None]
        );
        // The same positions with player 2 moving first: player 2 gained,
        // then player 1 lost nothing (their score rose), then player 2 lost 0.24.
        assert_eq!(
            classes(&e, &alternating(3, P2)),
            [None, None, Some(Class::Mistake)]
        );
        // A side that moves twice running (a game where it may).
        assert_eq!(
            classes(&[Some(0.9), Some(0.55), Some(0.2)], &[P1, P1]),
            [Some(Class::Blunder), Some(Class::Blunder)]
        );
        // A move beside an unknown position is not judged.
        assert_eq!(
            classes(&[Some(0.9), None, Some(0.1)], &[P1, P2]),
            [None, None]
        );
    }

    #[test]
    fn move_accuracy_follows_the_curve() {
        assert_eq!(move_accuracy(0.0), 100.0);
        assert_eq!(move_accuracy(-0.3), 100.0);
        // Values of 103.1668 e^(-0.04354 d) - 3.1669 + 1 worked by hand.
        for (loss, want) in [
            (0.05, 80.815),
            (0.10, 64.580),
            (0.20, 41.017),
            (0.50, 9.528),
        ] {
            let got = move_accuracy(loss);
            assert!((got - want).abs() < 0.01, "{loss}: {got}");
        }
        assert_eq!(move_accuracy(1.0), 0.0);
    }

    #[test]
    fn perfect_play_is_100_and_one_blunder_drags_its_side_down() {
        let flat = vec![Some(0.5); 21];
        let acc = accuracy(&flat, &alternating(20, P1));
        assert_eq!(
            acc,
            Accuracy {
                p1: Some(100.0),
                p2: Some(100.0)
            }
        );
        // Player 2's blunder at move 9 (index 9): 0.5 -> 0.9 for player 1.
        let mut e = flat.clone();
        for x in e.iter_mut().skip(10) {
            *x = Some(0.9);
        }
        let acc = accuracy(&e, &alternating(20, P1));
        assert_eq!(acc.p1, Some(100.0));
        let p2 = acc.p2.unwrap();
        // The blunder's accuracy is 15.9 (a 40-point loss); a plain mean
        // of ten moves would give 91.6; the harmonic mean and the weight
        // of the swinging window pull it well below that.
        let blunder = move_accuracy(0.4);
        assert!((blunder - 15.909).abs() < 0.01, "{blunder}");
        assert!(p2 < 80.0 && p2 > blunder, "{p2}");
        // Nothing known, nothing said.
        assert_eq!(accuracy(&[None, None], &[P1]), Accuracy::default());
        assert_eq!(accuracy(&[], &[]), Accuracy::default());
    }

    #[test]
    fn the_decisive_mistake_is_the_losers_move_after_which_they_never_recovered() {
        let movers = alternating(6, P1);
        // Player 2 loses: their score (1 - e) dips below 0.2 after their
        // move 1, comes back after player 1's move 2, and falls for good
        // after their move 3.
        let e = [0.5, 0.5, 0.85, 0.6, 0.9, 0.95, 1.0].map(Some);
        assert_eq!(decisive_mistake(&e, &movers, P2), Some(3));
        // The fall shows only after the winner's move 4: the loser's move 3
        // before it is the mistake.
        let e = [0.5, 0.5, 0.5, 0.5, 0.5, 0.9, 1.0].map(Some);
        assert_eq!(decisive_mistake(&e, &movers, P2), Some(3));
        // Unknown positions do not break the run.
        let e = [
            Some(0.5),
            Some(0.5),
            Some(0.5),
            Some(0.9),
            None,
            Some(0.95),
            Some(1.0),
        ];
        assert_eq!(decisive_mistake(&e, &movers, P2), Some(1));
        // Lost on time from a level position: no decisive mistake.
        let e = [0.5; 7].map(Some);
        assert_eq!(decisive_mistake(&e, &movers, P2), None);
        // Lost from the first position: none either.
        let e = [0.9; 7].map(Some);
        assert_eq!(decisive_mistake(&e, &movers, P2), None);
        // Player 1 falls after its own first move.
        let e = [0.5, 0.1, 0.1, 0.05, 0.0, 0.0, 0.0].map(Some);
        assert_eq!(decisive_mistake(&e, &movers, P1), Some(0));
    }
}
