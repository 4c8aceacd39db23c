//! A game as played: the start position, the moves, and every position's
//! repetition key, so the threefold-repetition house rule can be applied.
//! `AnyGame` is the same thing behind an object-safe, text-only interface for
//! code that picks the game at run time: the engine, the arena's referee,
//! the web board and the tools all hold a `Box<dyn AnyGame>`.

use std::any::Any;

use std::sync::atomic::AtomicBool;

use super::perft::perft_report_until;
use super::{find_legal, FenError, Game, MoveError, Outcome, Side};

#[derive(Clone, Debug)]
pub struct Line<G: Game> {
    variant: G::Variant,
    start: G,
    current: G,
    moves: Vec<G::Move>,
    /// Repetition keys of the start position and of every position after it.
    keys: Vec<u64>,
}

impl<G: Game> Line<G> {
    pub fn new(variant: G::Variant) -> Line<G> {
        let start = G::start(&variant);
        Line::from_position(variant, start)
    }

    pub fn from_fen(variant: G::Variant, fen: &str) -> Result<Line<G>, FenError> {
        let start = G::from_fen(&variant, fen)?;
        Ok(Line::from_position(variant, start))
    }

    pub fn from_position(variant: G::Variant, start: G) -> Line<G> {
        let keys = vec![start.repetition_key()];
        Line {
            variant,
            current: start.clone(),
            start,
            moves: Vec::new(),
            keys,
        }
    }

    pub fn variant(&self) -> &G::Variant {
        &self.variant
    }

    pub fn start(&self) -> &G {
        &self.start
    }

    pub fn position(&self) -> &G {
        &self.current
    }

    pub fn moves(&self) -> &[G::Move] {
        &self.moves
    }

    /// Repetition keys from the start to the current position inclusive.
    pub fn keys(&self) -> &[u64] {
        &self.keys
    }

    /// Checks the text against the legal moves and the game's end, then plays it.
    pub fn play_text(&mut self, text: &str) -> Result<G::Move, MoveError> {
        if let Outcome::Over { reason, .. } = self.outcome() {
            return Err(MoveError::illegal(
                text,
                format!("the game is over ({reason})"),
            ));
        }
        let mv = find_legal(&self.current, text)?;
        self.play(mv);
        Ok(mv)
    }

    /// Plays a move known to be legal.
    pub fn play(&mut self, mv: G::Move) {
        self.current.play(mv);
        self.moves.push(mv);
        self.keys.push(self.current.repetition_key());
    }

    /// Takes back the last move; false at the start.
    pub fn undo(&mut self) -> bool {
        if self.moves.pop().is_none() {
            return false;
        }
        self.keys.pop();
        let mut pos = self.start.clone();
        for &mv in &self.moves {
            pos.play(mv);
        }
        self.current = pos;
        true
    }

    /// How many times the current position has occurred so far.
    pub fn occurrences(&self) -> usize {
        let key = *self.keys.last().expect("at least the start key");
        self.keys.iter().filter(|&&k| k == key).count()
    }

    /// The position's own outcome, else a draw (or the game's equivalent) on
    /// the third occurrence of the same position.
    pub fn outcome(&self) -> Outcome {
        match self.current.outcome() {
            Outcome::Ongoing if self.occurrences() >= 3 => self.current.repetition_outcome(),
            outcome => outcome,
        }
    }
}

/// A position string and moves that could not be set up.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    #[error(transparent)]
    Fen(#[from] FenError),
    /// Move `number` (from 1) of the list could not be played.
    #[error("{error} (move {number} of the list)")]
    Move { number: usize, error: MoveError },
}

/// A `Line` of some game, known only at run time, spoken in text.
pub trait AnyGame: Send {
    /// The variant name this game was made for (`mixtour`, `silo-8`, ...).
    fn variant_name(&self) -> &'static str;
    fn fen(&self) -> String;
    fn start_fen(&self) -> String;
    fn side_to_move(&self) -> Side;
    /// Plays a legal move; returns its canonical text.
    fn play_text(&mut self, text: &str) -> Result<String, MoveError>;
    fn outcome(&self) -> Outcome;
    fn legal_moves(&self) -> Vec<String>;
    fn moves(&self) -> Vec<String>;
    /// Repetition keys from the start to the current position inclusive.
    fn keys(&self) -> &[u64];
    fn undo(&mut self) -> bool;
    fn pretty(&self) -> String;
    /// The board for the `d` command: `pretty`, and how the game ended.
    fn display(&self) -> String {
        let mut text = self.pretty();
        if let Outcome::Over { result, reason } = self.outcome() {
            text.push_str(&format!("Game over: {} ({reason})\n", result.pgn()));
        }
        text
    }
    /// The perft report of the current position (`perft::perft_report`).
    fn perft(&self, depth: u32, divide: bool) -> String {
        self.perft_until(depth, divide, &AtomicBool::new(false))
            .unwrap_or_default()
    }
    /// `perft`, given up (`None`) once `stop` is set.
    fn perft_until(&self, depth: u32, divide: bool, stop: &AtomicBool) -> Option<String>;
    /// Starts over from this variant's start position.
    fn reset(&mut self);
    /// Starts over from a position string; on error nothing changes.
    fn set_fen(&mut self, fen: &str) -> Result<(), FenError>;
    /// Starts over from a position string (`None`: the start position) and
    /// plays `moves`; on error nothing changes.
    fn set_position(&mut self, fen: Option<&str>, moves: &[&str]) -> Result<(), PositionError>;
    fn box_clone(&self) -> Box<dyn AnyGame>;
    /// The current position as its concrete type, for code that knows the
    /// game (endgame tables probe Silo positions, the engine's search
    /// driver finds its game type).
    fn position_any(&self) -> &dyn Any;
}

/// `Line` with its variant's name, the concrete type behind `AnyGame`.
#[derive(Clone)]
pub struct NamedLine<G: Game> {
    pub name: &'static str,
    pub line: Line<G>,
}

impl<G: Game> NamedLine<G> {
    /// The game from `fen` (`None`: the start) after `moves`.
    pub fn at(
        name: &'static str,
        variant: G::Variant,
        fen: Option<&str>,
        moves: &[&str],
    ) -> Result<NamedLine<G>, PositionError> {
        let mut line = match fen {
            Some(fen) => Line::from_fen(variant, fen)?,
            None => Line::new(variant),
        };
        for (i, text) in moves.iter().enumerate() {
            line.play_text(text).map_err(|error| PositionError::Move {
                number: i + 1,
                error,
            })?;
        }
        Ok(NamedLine { name, line })
    }
}

impl<G: Game> AnyGame for NamedLine<G> {
    fn variant_name(&self) -> &'static str {
        self.name
    }

    fn fen(&self) -> String {
        self.line.position().fen()
    }

    fn start_fen(&self) -> String {
        self.line.start().fen()
    }

    fn side_to_move(&self) -> Side {
        self.line.position().side_to_move()
    }

    fn play_text(&mut self, text: &str) -> Result<String, MoveError> {
        self.line.play_text(text).map(|mv| mv.to_string())
    }

    fn outcome(&self) -> Outcome {
        self.line.outcome()
    }

    fn legal_moves(&self) -> Vec<String> {
        if self.line.outcome().is_over() {
            return Vec::new();
        }
        let mut moves = Vec::new();
        self.line.position().generate_moves(&mut moves);
        moves.iter().map(|m| m.to_string()).collect()
    }

    fn moves(&self) -> Vec<String> {
        self.line.moves().iter().map(|m| m.to_string()).collect()
    }

    fn keys(&self) -> &[u64] {
        self.line.keys()
    }

    fn undo(&mut self) -> bool {
        self.line.undo()
    }

    fn pretty(&self) -> String {
        self.line.position().pretty()
    }

    fn perft_until(&self, depth: u32, divide: bool, stop: &AtomicBool) -> Option<String> {
        perft_report_until(self.line.position(), depth, divide, stop)
    }

    fn reset(&mut self) {
        self.line = Line::new(self.line.variant().clone());
    }

    fn set_fen(&mut self, fen: &str) -> Result<(), FenError> {
        self.line = Line::from_fen(self.line.variant().clone(), fen)?;
        Ok(())
    }

    fn set_position(&mut self, fen: Option<&str>, moves: &[&str]) -> Result<(), PositionError> {
        *self = NamedLine::at(self.name, self.line.variant().clone(), fen, moves)?;
        Ok(())
    }

    fn box_clone(&self) -> Box<dyn AnyGame> {
        Box::new(self.clone())
    }

    fn position_any(&self) -> &dyn Any {
        self.line.position()
    }
}

/// A game played on boards of many shapes (Mixtour): on the fast type `F`
/// while the position is on its standard board, on the general type `G` as
/// soon as a position string gives another board, and back on `F` when it
/// starts over. Both types play the standard board alike (same moves in the
/// same order, same texts), so only the speed tells them apart.
#[derive(Clone)]
pub enum ShapedLine<F: Game, G: Game<Variant = F::Variant>> {
    Fast(NamedLine<F>),
    General(NamedLine<G>),
}

impl<F: Game, G: Game<Variant = F::Variant>> ShapedLine<F, G> {
    /// A new game at the start position, on the fast type.
    pub fn new(name: &'static str, variant: F::Variant) -> ShapedLine<F, G> {
        ShapedLine::Fast(NamedLine {
            name,
            line: Line::new(variant),
        })
    }

    fn active(&self) -> &dyn AnyGame {
        match self {
            ShapedLine::Fast(g) => g,
            ShapedLine::General(g) => g,
        }
    }

    fn active_mut(&mut self) -> &mut dyn AnyGame {
        match self {
            ShapedLine::Fast(g) => g,
            ShapedLine::General(g) => g,
        }
    }

    fn name_and_variant(&self) -> (&'static str, F::Variant) {
        match self {
            ShapedLine::Fast(g) => (g.name, g.line.variant().clone()),
            ShapedLine::General(g) => (g.name, g.line.variant().clone()),
        }
    }
}

impl<F: Game, G: Game<Variant = F::Variant>> AnyGame for ShapedLine<F, G> {
    fn variant_name(&self) -> &'static str {
        self.active().variant_name()
    }

    fn fen(&self) -> String {
        self.active().fen()
    }

    fn start_fen(&self) -> String {
        self.active().start_fen()
    }

    fn side_to_move(&self) -> Side {
        self.active().side_to_move()
    }

    fn play_text(&mut self, text: &str) -> Result<String, MoveError> {
        self.active_mut().play_text(text)
    }

    fn outcome(&self) -> Outcome {
        self.active().outcome()
    }

    fn legal_moves(&self) -> Vec<String> {
        self.active().legal_moves()
    }

    fn moves(&self) -> Vec<String> {
        self.active().moves()
    }

    fn keys(&self) -> &[u64] {
        self.active().keys()
    }

    fn undo(&mut self) -> bool {
        self.active_mut().undo()
    }

    fn pretty(&self) -> String {
        self.active().pretty()
    }

    fn perft_until(&self, depth: u32, divide: bool, stop: &AtomicBool) -> Option<String> {
        self.active().perft_until(depth, divide, stop)
    }

    fn reset(&mut self) {
        let (name, variant) = self.name_and_variant();
        *self = ShapedLine::new(name, variant);
    }

    fn set_fen(&mut self, fen: &str) -> Result<(), FenError> {
        let (name, variant) = self.name_and_variant();
        *self = match F::from_fen(&variant, fen) {
            Ok(start) => ShapedLine::Fast(NamedLine {
                name,
                line: Line::from_position(variant, start),
            }),
            Err(_) => ShapedLine::General(NamedLine {
                name,
                line: Line::from_fen(variant, fen)?,
            }),
        };
        Ok(())
    }

    fn set_position(&mut self, fen: Option<&str>, moves: &[&str]) -> Result<(), PositionError> {
        let (name, variant) = self.name_and_variant();
        *self = if fen.is_none_or(|fen| F::from_fen(&variant, fen).is_ok()) {
            ShapedLine::Fast(NamedLine::at(name, variant, fen, moves)?)
        } else {
            ShapedLine::General(NamedLine::at(name, variant, fen, moves)?)
        };
        Ok(())
    }

    fn box_clone(&self) -> Box<dyn AnyGame> {
        Box::new(self.clone())
    }

    fn position_any(&self) -> &dyn Any {
        self.active().position_any()
    }
}

#[cfg(test)]
mod tests {
    use crate::mixtour::{Mixtour, MixtourGrid};
    use crate::variants::new_game;

    #[test]
    fn a_shaped_game_is_on_the_fast_type_exactly_while_on_the_standard_board() {
        let mut game = new_game("mixtour").unwrap();
        assert!(game.position_any().is::<Mixtour>());
        let six = "x6/x6/x6/x6/x6/x6 1 20,20 0,0 1 -";
        game.set_position(Some(six), &["c3"]).unwrap();
        assert!(game.position_any().is::<MixtourGrid>());
        assert_eq!(game.moves(), ["c3"]);
        assert_eq!(game.keys().len(), 2);
        // A bad move or shape changes nothing.
        let e = game.set_position(None, &["c3", "zz9"]).unwrap_err();
        assert!(e.to_string().ends_with("(move 2 of the list)"), "{e}");
        assert!(game.set_fen("x5/x4 1 20,20 0,0 1 -").is_err());
        assert_eq!(game.start_fen(), six);
        game.set_fen("x5/x5/x5/x5/x5 1 20,20 0,0 1 -").unwrap();
        assert!(game.position_any().is::<Mixtour>());
        game.set_fen(six).unwrap();
        game.reset();
        assert!(game.position_any().is::<Mixtour>());
        assert_eq!(game.variant_name(), "mixtour");
        assert!(game.box_clone().position_any().is::<Mixtour>());
    }
}
