//! A game as played: the start position, the moves, and every position's
//! repetition key, so the threefold-repetition house rule can be applied.
//! `AnyGame` is the same thing behind an object-safe, text-only interface for
//! code that picks the game at run time (the arena's referee, the web board).

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
    fn undo(&mut self) -> bool;
    fn pretty(&self) -> String;
    /// Starts over from this variant's start position.
    fn reset(&mut self);
    /// Starts over from a position string; on error nothing changes.
    fn set_fen(&mut self, fen: &str) -> Result<(), FenError>;
    fn box_clone(&self) -> Box<dyn AnyGame>;
    /// The current position as its concrete type, for code that knows the
    /// game (endgame tables probe Silo positions).
    fn position_any(&self) -> &dyn std::any::Any;
}

/// `Line` with its variant's name, the concrete type behind `AnyGame`.
#[derive(Clone)]
pub struct NamedLine<G: Game> {
    pub name: &'static str,
    pub line: Line<G>,
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

    fn undo(&mut self) -> bool {
        self.line.undo()
    }

    fn pretty(&self) -> String {
        self.line.position().pretty()
    }

    fn reset(&mut self) {
        self.line = Line::new(self.line.variant().clone());
    }

    fn set_fen(&mut self, fen: &str) -> Result<(), FenError> {
        self.line = Line::from_fen(self.line.variant().clone(), fen)?;
        Ok(())
    }

    fn box_clone(&self) -> Box<dyn AnyGame> {
        Box::new(self.clone())
    }

    fn position_any(&self) -> &dyn std::any::Any {
        self.line.position()
    }
}
