//! Mixtour as Abstract Play (AP) plays it: the standard 5 x 5 game without
//! the take-back rule and without a repetition rule, to 1, 2 or 3 points
//! with 20 pieces each. A variant of the rules, not a switch: the search
//! plans with these rules when it is given this type. The differences are
//! listed in `docs/rules/mixtour.md` ("Abstract Play's rules").

use std::fmt;

use super::{Mixtour, MixtourVariant, Move, MoveKind, Standard};
use crate::{FenError, Game, MoveError, Outcome, Side};

/// The points AP's Mixtour variants play to: none (1), `three` (2), `five` (3).
pub const AP_GOALS: [u8; 3] = [1, 2, 3];
/// AP always deals 20 pieces each, whatever the goal.
pub const AP_RESERVE: u8 = 20;

/// AP's variant with `goal` points to win (1, 2 or 3 on AP itself).
pub fn ap_variant(goal: u8) -> MixtourVariant {
    MixtourVariant {
        reserve: AP_RESERVE,
        goal,
    }
}

/// A Mixtour position under AP's rules. It holds a standard position whose
/// `last` move never constrains the next turn, so the standard generator
/// offers exactly AP's moves and the hash holds no take-back ban.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct ApMixtour(Mixtour);

impl ApMixtour {
    /// The standard position seen under AP's rules: its take-back ban, if
    /// any, is lifted (AP has none); everything else is kept.
    pub fn from_standard(pos: &Mixtour) -> ApMixtour {
        let mut inner = *pos;
        inner.lift_ban();
        ApMixtour(inner)
    }

    /// The position as a standard one (same board, reserves, scores, goal,
    /// side and passes; the `last` field is `-`, or `pass` after a pass).
    pub fn standard(&self) -> &Mixtour {
        &self.0
    }
}

impl Mixtour {
    /// Rule (AP): there is no take-back rule, so a stack move leaves nothing
    /// to remember. A pass stays recorded: AP ends the game on two passes
    /// in a row, which the pass counter decides, not `last`.
    fn lift_ban(&mut self) {
        if let Some(mv) = self.last {
            if matches!(mv.kind(), MoveKind::Stack { .. }) {
                self.set_last(None, self.passes);
            }
        }
    }
}

impl Game for ApMixtour {
    type Move = Move<Standard>;
    type Variant = MixtourVariant;

    fn start(variant: &MixtourVariant) -> ApMixtour {
        ApMixtour(Mixtour::start(variant))
    }

    /// A standard position string; its `last` field is read but bans
    /// nothing under AP's rules.
    fn from_fen(variant: &MixtourVariant, fen: &str) -> Result<ApMixtour, FenError> {
        Mixtour::from_fen(variant, fen).map(|p| ApMixtour::from_standard(&p))
    }

    fn fen(&self) -> String {
        self.0.fen()
    }

    fn side_to_move(&self) -> Side {
        self.0.side_to_move()
    }

    /// AP's moves (gameslib's Mixtour): enter onto an empty square from a
    /// non-empty hand; move the top n (1..=height) pieces of any stack along
    /// a rank, file or diagonal onto a stack exactly as many squares away as
    /// it is high, over empty squares only; pass only when nothing else is
    /// legal. Unlike the standard rules, the opponent's last stack move may
    /// be reversed at once: the position never holds a ban, so the standard
    /// generator filters nothing.
    fn generate_moves(&self, moves: &mut Vec<Self::Move>) {
        debug_assert!(self.0.forbidden().is_none(), "an AP position holds a ban");
        self.0.generate_moves(moves);
    }

    fn count_moves(&self) -> u64 {
        self.0.count_moves()
    }

    fn play(&mut self, mv: Self::Move) {
        self.0.play(mv);
        self.0.lift_ban();
        debug_assert_eq!(self.0.hash(), self.0.compute_hash());
    }

    fn hash(&self) -> u64 {
        self.0.hash()
    }

    fn repetition_key(&self) -> u64 {
        self.0.repetition_key()
    }

    /// Rule (AP): a goal reached wins; two passes in a row draw (AP's code
    /// has it, although AP's pass bug makes it unreachable in live games).
    fn outcome(&self) -> Outcome {
        self.0.outcome()
    }

    /// Rule (AP): there is no repetition rule; play goes on. The search
    /// still scores a cycle on its own path as 0 (it does so for every game
    /// whose repetition outcome is not a result): a line that only comes
    /// back to where it was gains nothing, so that is its value. The bot
    /// passes no game history to the search, so a position that occurred
    /// earlier in the game never cuts a line short.
    fn repetition_outcome(&self) -> Outcome {
        Outcome::Ongoing
    }

    fn parse_move(&self, text: &str) -> Result<Self::Move, MoveError> {
        self.0.parse_move(text)
    }

    fn move_bits(mv: Self::Move) -> u16 {
        Mixtour::move_bits(mv)
    }

    fn evaluate(&self) -> i32 {
        self.0.evaluate()
    }

    type Nets = super::nnue::Nets;

    fn nets(networks: &crate::Networks) -> Self::Nets {
        networks.mixtour()
    }

    type Eval = super::nnue::Accumulator;

    fn eval_refresh(&self, nets: &Self::Nets, state: &mut Self::Eval) {
        self.0.eval_refresh(nets, state);
    }

    /// Lifting the ban changes no stack: the standard update holds.
    #[inline]
    fn eval_update(
        &self,
        nets: &Self::Nets,
        mv: Self::Move,
        child: &Self,
        state: &Self::Eval,
        child_state: &mut Self::Eval,
    ) {
        self.0.eval_update(nets, mv, &child.0, state, child_state);
    }

    #[inline]
    fn evaluate_with(&self, nets: &Self::Nets, state: &Self::Eval) -> i32 {
        self.0.evaluate_with(nets, state)
    }

    fn is_noisy(&self, mv: Self::Move) -> bool {
        self.0.is_noisy(mv)
    }

    fn null_move(&self) -> Option<Self::Move> {
        self.0.null_move()
    }

    fn pretty(&self) -> String {
        self.0.pretty()
    }
}

impl fmt::Debug for ApMixtour {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ApMixtour({})", self.fen())
    }
}

#[cfg(test)]
mod tests;
