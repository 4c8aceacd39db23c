//! One game as Python holds it: the rules crate's game of a variant
//! (`NamedLine`, made through the one variant registry, `with_variant`),
//! with what Python adds to `AnyGame` (action numbers, observations, random
//! play) behind an object-safe trait, so that `stackfish.Game` is one class
//! for every variant.

use std::any::Any;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use stackfish_games::castle::Castle;
use stackfish_games::coinstack::CoinStack;
use stackfish_games::mixtour::{Mixtour, MixtourGrid};
use stackfish_games::silo::Silo;
use stackfish_games::{
    find_legal, perft, with_variant, AnyGame, FenError, Game, GameResult, Line, MoveError,
    NamedLine, Outcome, Side, UnknownGame, VariantVisitor,
};

use crate::encode::Encode;

/// Why a game could not be made or changed. The rules' own errors print as
/// the engine's message for the same input; the action errors are ours
/// (the engine has no action numbers).
#[derive(Debug, thiserror::Error)]
pub enum RulesError {
    #[error(transparent)]
    Unknown(#[from] UnknownGame),
    #[error(transparent)]
    Fen(#[from] FenError),
    #[error(transparent)]
    Move(#[from] MoveError),
    #[error("{}", RulesError::range_text(&action.to_string(), *count))]
    ActionRange { action: i64, count: usize },
    #[error("action {action} is not a legal move in this position")]
    ActionIllegal { action: usize },
    /// A game type with no `Encode` (a new game not yet numbered here).
    #[error("{0} has no action numbering")]
    NoActions(&'static str),
}

impl RulesError {
    /// The out-of-range message for a number given as text (too large
    /// for 64 bits).
    pub fn range_text(action: &str, count: usize) -> String {
        format!("action {action} is out of range (this game numbers its actions 0..{count})")
    }
}

/// What the Python `Game` calls beyond `AnyGame`, for any game type.
pub trait Rules: AnyGame + Sync {
    fn zobrist(&self) -> u64;
    fn perft_count(&self, depth: u32) -> u64;
    fn evaluate(&self) -> i32;
    fn num_actions(&self) -> usize;
    fn legal_actions(&self) -> Vec<usize>;
    fn action_to_move(&self, action: i64) -> Result<String, RulesError>;
    fn move_to_action(&self, text: &str) -> Result<usize, RulesError>;
    fn play_action(&mut self, action: i64) -> Result<String, RulesError>;
    fn shape(&self) -> [usize; 3];
    fn observe(&self, me: Side, out: &mut [f32]);
    /// `n` games from here with uniformly random moves, at most `max_plies`
    /// each: the wins of player 1, of player 2, the draws, the games cut
    /// at `max_plies`, and the plies played in all.
    fn play_random(&self, n: u64, seed: u64, max_plies: u64) -> [u64; 5];
    fn clone_rules(&self) -> Box<dyn Rules>;
}

/// The legal moves of the position (none once the game is over), and the
/// legal move of an action number.
trait Actions<G: Encode> {
    fn legal(&self) -> Vec<G::Move>;
    fn find_action(&self, action: i64) -> Result<G::Move, RulesError>;
}

impl<G: Encode> Actions<G> for NamedLine<G> {
    fn legal(&self) -> Vec<G::Move> {
        let mut moves = Vec::new();
        if !self.line.outcome().is_over() {
            self.line.position().generate_moves(&mut moves);
        }
        moves
    }

    fn find_action(&self, action: i64) -> Result<G::Move, RulesError> {
        let count = self.line.position().num_actions();
        let index = usize::try_from(action)
            .ok()
            .filter(|&a| a < count)
            .ok_or(RulesError::ActionRange { action, count })?;
        let pos = self.line.position();
        self.legal()
            .into_iter()
            .find(|&mv| pos.action(mv) == index)
            .ok_or(RulesError::ActionIllegal { action: index })
    }
}

impl<G: Encode> Rules for NamedLine<G> {
    fn zobrist(&self) -> u64 {
        self.line.position().hash()
    }

    fn perft_count(&self, depth: u32) -> u64 {
        perft(self.line.position(), depth)
    }

    fn evaluate(&self) -> i32 {
        self.line.position().evaluate()
    }

    fn num_actions(&self) -> usize {
        self.line.position().num_actions()
    }

    fn legal_actions(&self) -> Vec<usize> {
        let pos = self.line.position();
        let mut actions: Vec<usize> = self.legal().into_iter().map(|m| pos.action(m)).collect();
        actions.sort_unstable();
        actions
    }

    fn action_to_move(&self, action: i64) -> Result<String, RulesError> {
        self.find_action(action).map(|mv| mv.to_string())
    }

    fn move_to_action(&self, text: &str) -> Result<usize, RulesError> {
        if let Outcome::Over { reason, .. } = self.line.outcome() {
            return Err(MoveError::illegal(text, format!("the game is over ({reason})")).into());
        }
        let mv = find_legal(self.line.position(), text)?;
        Ok(self.line.position().action(mv))
    }

    fn play_action(&mut self, action: i64) -> Result<String, RulesError> {
        let mv = self.find_action(action)?;
        self.line.play(mv);
        Ok(mv.to_string())
    }

    fn shape(&self) -> [usize; 3] {
        self.line.position().shape()
    }

    fn observe(&self, me: Side, out: &mut [f32]) {
        self.line.position().observe(me, out)
    }

    fn play_random(&self, n: u64, seed: u64, max_plies: u64) -> [u64; 5] {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut totals = [0u64; 5];
        let mut moves = Vec::new();
        for _ in 0..n {
            let mut line = self.line.clone();
            let mut plies = 0;
            let result = loop {
                if let Some(result) = line.outcome().result() {
                    break Some(result);
                }
                if plies == max_plies {
                    break None;
                }
                moves.clear();
                line.position().generate_moves(&mut moves);
                if moves.is_empty() {
                    break None;
                }
                line.play(moves[rng.gen_range(0..moves.len())]);
                plies += 1;
            };
            totals[4] += plies;
            match result {
                Some(GameResult::P1Win) => totals[0] += 1,
                Some(GameResult::P2Win) => totals[1] += 1,
                Some(GameResult::Draw) => totals[2] += 1,
                None => totals[3] += 1,
            }
        }
        totals
    }

    fn clone_rules(&self) -> Box<dyn Rules> {
        Box::new(self.clone())
    }
}

/// Makes the game of a variant from a position string (`None`: its start).
struct NewRules<'a>(Option<&'a str>);

impl VariantVisitor for NewRules<'_> {
    type Output = Result<Box<dyn Rules>, RulesError>;

    fn visit<G: Game>(self, name: &'static str, variant: G::Variant) -> Self::Output {
        let line = match self.0 {
            Some(fen) => Line::<G>::from_fen(variant, fen)?,
            None => Line::<G>::new(variant),
        };
        encoded(NamedLine { name, line })
    }

    /// The fast type on the standard board, the general one on any other
    /// (as the engine plays it).
    fn visit_shaped<F: Game, G: Game<Variant = F::Variant>>(
        self,
        name: &'static str,
        variant: G::Variant,
    ) -> Self::Output {
        match self.0 {
            Some(text) if F::from_fen(&variant, text).is_err() => self.visit::<G>(name, variant),
            _ => self.visit::<F>(name, variant),
        }
    }
}

/// `game` as `Rules`, if its type has an action numbering (`Encode`): the
/// registry hands over any `Game`; the types numbered are listed here.
fn encoded<G: Game>(game: NamedLine<G>) -> Result<Box<dyn Rules>, RulesError> {
    type Convert = fn(Box<dyn Any>) -> Result<Box<dyn Rules>, Box<dyn Any>>;
    fn to<E: Encode>(game: Box<dyn Any>) -> Result<Box<dyn Rules>, Box<dyn Any>> {
        game.downcast::<NamedLine<E>>().map(|g| g as Box<dyn Rules>)
    }
    const NUMBERED: [Convert; 5] = [
        to::<Mixtour>,
        to::<MixtourGrid>,
        to::<Silo>,
        to::<CoinStack>,
        to::<Castle>,
    ];
    let name = game.name;
    let mut game: Box<dyn Any> = Box::new(game);
    for convert in NUMBERED {
        match convert(game) {
            Ok(rules) => return Ok(rules),
            Err(back) => game = back,
        }
    }
    Err(RulesError::NoActions(name))
}

/// A game of variant `name` (any case) from `fen`, or from its start.
pub fn new_rules(name: &str, fen: Option<&str>) -> Result<Box<dyn Rules>, RulesError> {
    with_variant(name, NewRules(fen)).unwrap_or_else(|| Err(UnknownGame::new(name).into()))
}
