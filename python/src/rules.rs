//! One game as Python holds it: the rules crate's `Line` of a concrete game
//! type, behind an object-safe trait so that `stackfish.Game` is one class
//! for every variant.

use std::any::Any;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use stackfish_games::castle::{Castle, CastleVariant};
use stackfish_games::coinstack::{CoinStack, CoinStackVariant};
use stackfish_games::mixtour::{Mixtour, MixtourGrid, MixtourVariant};
use stackfish_games::silo::{Silo, SiloVariant};
use stackfish_games::{
    find_legal, perft, variant_names, FenError, Game, GameResult, Line, MoveError, Outcome, Side,
    UnknownGame,
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
}

impl RulesError {
    /// The out-of-range message for a number given as text (too large
    /// for 64 bits).
    pub fn range_text(action: &str, count: usize) -> String {
        format!("action {action} is out of range (this game numbers its actions 0..{count})")
    }
}

/// What the Python `Game` calls, for any game type.
pub trait Rules: Send + Sync {
    fn variant(&self) -> &'static str;
    fn fen(&self) -> String;
    fn start_fen(&self) -> String;
    fn history(&self) -> Vec<String>;
    fn side_to_move(&self) -> Side;
    fn legal_moves(&self) -> Vec<String>;
    fn play(&mut self, text: &str) -> Result<String, MoveError>;
    fn outcome(&self) -> Outcome;
    fn undo(&mut self) -> bool;
    fn zobrist(&self) -> u64;
    fn perft(&self, depth: u32) -> u64;
    fn pretty(&self) -> String;
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
    fn box_clone(&self) -> Box<dyn Rules>;
    fn position_any(&self) -> &dyn Any;
}

/// A game of type `G` as played from its start.
#[derive(Clone)]
pub struct Played<G: Game> {
    name: &'static str,
    line: Line<G>,
}

impl<G: Encode> Played<G> {
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

impl<G: Encode> Rules for Played<G> {
    fn variant(&self) -> &'static str {
        self.name
    }

    fn fen(&self) -> String {
        self.line.position().fen()
    }

    fn start_fen(&self) -> String {
        self.line.start().fen()
    }

    fn history(&self) -> Vec<String> {
        self.line.moves().iter().map(|m| m.to_string()).collect()
    }

    fn side_to_move(&self) -> Side {
        self.line.position().side_to_move()
    }

    fn legal_moves(&self) -> Vec<String> {
        self.legal().iter().map(|m| m.to_string()).collect()
    }

    fn play(&mut self, text: &str) -> Result<String, MoveError> {
        self.line.play_text(text).map(|mv| mv.to_string())
    }

    fn outcome(&self) -> Outcome {
        self.line.outcome()
    }

    fn undo(&mut self) -> bool {
        self.line.undo()
    }

    fn zobrist(&self) -> u64 {
        self.line.position().hash()
    }

    fn perft(&self, depth: u32) -> u64 {
        perft(self.line.position(), depth)
    }

    fn pretty(&self) -> String {
        self.line.position().pretty()
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

    fn box_clone(&self) -> Box<dyn Rules> {
        Box::new(self.clone())
    }

    fn position_any(&self) -> &dyn Any {
        self.line.position()
    }
}

fn played<G: Encode>(
    name: &'static str,
    variant: G::Variant,
    fen: Option<&str>,
) -> Result<Box<dyn Rules>, FenError> {
    let line = match fen {
        Some(fen) => Line::<G>::from_fen(variant, fen)?,
        None => Line::<G>::new(variant),
    };
    Ok(Box::new(Played { name, line }))
}

/// Mixtour on its fast type on the standard board, on the general one on
/// any other (as the engine plays it).
fn shaped(
    name: &'static str,
    variant: MixtourVariant,
    fen: Option<&str>,
) -> Result<Box<dyn Rules>, FenError> {
    match fen {
        Some(text) if Mixtour::from_fen(&variant, text).is_err() => {
            played::<MixtourGrid>(name, variant, fen)
        }
        _ => played::<Mixtour>(name, variant, fen),
    }
}

/// A game of variant `name` (any case) from `fen`, or from its start.
pub fn new_rules(name: &str, fen: Option<&str>) -> Result<Box<dyn Rules>, RulesError> {
    let lower = name.trim().to_ascii_lowercase();
    let rules = match lower.as_str() {
        "mixtour" => shaped("mixtour", MixtourVariant::STANDARD, fen)?,
        "mixtour-5" => shaped("mixtour-5", MixtourVariant::FIVE_POINTS, fen)?,
        "silo" => played::<Silo>("silo", SiloVariant::STANDARD, fen)?,
        "silo-8" => played::<Silo>("silo-8", SiloVariant::EIGHT, fen)?,
        "coinstack" => played::<CoinStack>("coinstack", CoinStackVariant::CoinStack, fen)?,
        "focus" => played::<CoinStack>("focus", CoinStackVariant::Focus, fen)?,
        "castle" => played::<Castle>("castle", CastleVariant::LEVEL_1, fen)?,
        "castle-2" => played::<Castle>("castle-2", CastleVariant::LEVEL_2, fen)?,
        "castle-3" => played::<Castle>("castle-3", CastleVariant::LEVEL_3, fen)?,
        _ => return Err(UnknownGame::new(name).into()),
    };
    debug_assert!(variant_names().contains(&rules.variant()));
    Ok(rules)
}
