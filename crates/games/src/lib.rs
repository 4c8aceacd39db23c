//! The rules of our games behind one small trait, plus what every game shares:
//! sides, outcomes, typed notation errors, perft, and a game record with
//! repetition detection. No I/O, no threads, no clocks in here.
//!
//! Errors are typed (thiserror) and print as the one line a binary shows:
//! the shared ones are here (`FenError`, `MoveError`, `UnknownGame`); each
//! subject keeps its own next to it (`cells::CellError`,
//! `mixtour::ShapeError`, `stackfish_nnue::NetworkError`, `PerftError`,
//! `silo::solve::{SolveError, CommandError}`).

#![forbid(unsafe_code)]

pub mod ablate;
pub mod castle;
pub mod cells;
pub mod coinstack;
pub mod echo;
pub mod line;
pub mod mixtour;
pub mod nnue;
pub mod perft;
pub mod silo;
pub mod stack;
pub mod variants;
pub mod zobrist;

use std::fmt;
use std::sync::atomic::AtomicBool;

/// The run-time choice of the hot paths' x86-64-v3 copies (`cpu::fast!`,
/// `v3_fn!`), from the networks' crate, which holds every `unsafe`.
pub use stackfish_nnue::{cpu, v3_fn};

pub use line::{AnyGame, Line, NamedLine, PositionError, ShapedLine};
pub use nnue::Networks;
pub use perft::{perft, perft_divide, perft_with, PerftError};
pub use variants::{variant_names, with_variant, VariantVisitor};

/// One of the two players. Player 1 moves first in every game we play.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Side {
    P1,
    P2,
}

impl Side {
    pub const BOTH: [Side; 2] = [Side::P1, Side::P2];

    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }

    #[inline]
    pub fn opponent(self) -> Side {
        match self {
            Side::P1 => Side::P2,
            Side::P2 => Side::P1,
        }
    }

    /// The digit the position strings of all our games use: `1` or `2`.
    pub fn digit(self) -> char {
        match self {
            Side::P1 => '1',
            Side::P2 => '2',
        }
    }

    pub fn from_digit(text: &str) -> Option<Side> {
        match text {
            "1" => Some(Side::P1),
            "2" => Some(Side::P2),
            _ => None,
        }
    }
}

/// The result of a finished game, from player 1's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameResult {
    P1Win,
    P2Win,
    Draw,
}

impl GameResult {
    pub fn win_for(side: Side) -> GameResult {
        match side {
            Side::P1 => GameResult::P1Win,
            Side::P2 => GameResult::P2Win,
        }
    }

    pub fn winner(self) -> Option<Side> {
        match self {
            GameResult::P1Win => Some(Side::P1),
            GameResult::P2Win => Some(Side::P2),
            GameResult::Draw => None,
        }
    }

    /// PGN-style result text: `1-0`, `0-1`, `1/2-1/2`.
    pub fn pgn(self) -> &'static str {
        match self {
            GameResult::P1Win => "1-0",
            GameResult::P2Win => "0-1",
            GameResult::Draw => "1/2-1/2",
        }
    }

    /// The UGI `query result` token.
    pub fn ugi(self) -> &'static str {
        match self {
            GameResult::P1Win => "p1win",
            GameResult::P2Win => "p2win",
            GameResult::Draw => "draw",
        }
    }
}

/// Whether a position is still being played, and if not, how it ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    Ongoing,
    /// `reason` is a short human text ("goal reached", "double pass", ...)
    /// that records and GUIs show as the termination.
    Over {
        result: GameResult,
        reason: &'static str,
    },
}

impl Outcome {
    pub fn is_over(self) -> bool {
        matches!(self, Outcome::Over { .. })
    }

    pub fn result(self) -> Option<GameResult> {
        match self {
            Outcome::Ongoing => None,
            Outcome::Over { result, .. } => Some(result),
        }
    }
}

/// A position string that could not be read. Names the field and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad position string, field {field}: {message}")]
pub struct FenError {
    /// The field of the position string: "board", "side", "reserves", ...
    pub field: &'static str,
    pub message: String,
}

impl FenError {
    pub fn new(field: &'static str, message: impl Into<String>) -> FenError {
        FenError {
            field,
            message: message.into(),
        }
    }
}

/// Splits a position string into its `N` white-space separated fields,
/// named by `names` for the errors: a missing field is named, extra text is
/// refused as field `end`.
pub fn fen_fields<'a, const N: usize>(
    fen: &'a str,
    names: &[&'static str; N],
) -> Result<[&'a str; N], FenError> {
    let fields: Vec<&str> = fen.split_whitespace().collect();
    if fields.len() < N {
        let message = format!("missing (expected {N} fields, found {})", fields.len());
        return Err(FenError::new(names[fields.len()], message));
    }
    if fields.len() > N {
        let message = format!(
            "unexpected text after the {}: {}",
            names[N - 1],
            echo::quote(&fields[N..].join(" "))
        );
        return Err(FenError::new("end", message));
    }
    let mut out = [""; N];
    out.copy_from_slice(&fields);
    Ok(out)
}

/// The side-to-move field, `1` or `2`.
pub fn fen_side(text: &str) -> Result<Side, FenError> {
    Side::from_digit(text)
        .ok_or_else(|| FenError::new("side", format!("{} is not 1 or 2", echo::quote(text))))
}

/// A field of two counts `a,b` (reserves, scores, captures), each at most `max`.
pub fn fen_pair(field: &'static str, text: &str, max: u8) -> Result<[u8; 2], FenError> {
    let bad = || {
        FenError::new(
            field,
            format!("{} is not two counts 0-{max} like 0,0", echo::quote(text)),
        )
    };
    let (a, b) = text.split_once(',').ok_or_else(bad)?;
    // Digits only: `str::parse` would also take "+5".
    let count = |t: &str| {
        t.parse::<u8>()
            .ok()
            .filter(|&n| n <= max && t.bytes().all(|b| b.is_ascii_digit()))
            .ok_or_else(bad)
    };
    Ok([count(a)?, count(b)?])
}

/// A move text that could not be played, with the offending token.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MoveError {
    /// Not a move in this game's notation at all.
    #[error("malformed move {}: {reason}", echo::quote(token))]
    Syntax { token: String, reason: String },
    /// Well formed, but not legal in the position.
    #[error("illegal move {}: {reason}", echo::quote(token))]
    Illegal { token: String, reason: String },
}

impl MoveError {
    pub fn syntax(token: &str, reason: impl Into<String>) -> MoveError {
        MoveError::Syntax {
            token: token.to_string(),
            reason: reason.into(),
        }
    }

    pub fn illegal(token: &str, reason: impl Into<String>) -> MoveError {
        MoveError::Illegal {
            token: token.to_string(),
            reason: reason.into(),
        }
    }

    pub fn token(&self) -> &str {
        match self {
            MoveError::Syntax { token, .. } | MoveError::Illegal { token, .. } => token,
        }
    }
}

/// A game name the variant registry does not know (`perft`, `solve`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown game {} (known: {known})", echo::quote(name), known = variant_names().join(", "))]
pub struct UnknownGame {
    pub name: String,
}

impl UnknownGame {
    pub fn new(name: &str) -> UnknownGame {
        UnknownGame {
            name: name.to_string(),
        }
    }
}

/// The rules of one game. Positions are small values: the search copies a
/// position and plays a move on the copy (copy-make), so there is no unmake.
///
/// Everything that changes which moves are legal or how the game ends is part
/// of the position and of its hash.
pub trait Game: Clone + Send + Sync + fmt::Debug + 'static {
    /// A compact move. `bits` packs it into 16 bits for the transposition
    /// table; a stored move is only ever used after matching it against the
    /// freshly generated legal moves.
    type Move: Copy + Eq + fmt::Debug + fmt::Display + Send + Sync + 'static;

    /// What fixes the start position and the rules in use (reserve sizes,
    /// row length, move geometry, ...), chosen by name in `variants`.
    type Variant: Clone + fmt::Debug + Send + Sync + 'static;

    /// The variant's start position.
    fn start(variant: &Self::Variant) -> Self;

    /// A start position dealt at random, for a game whose start has a random
    /// element (Castle's skull layout); the same `seed` deals the same start.
    /// `None` (the default): the start is fixed, always `start`.
    fn dealt_start(variant: &Self::Variant, seed: u64) -> Option<Self> {
        let _ = (variant, seed);
        None
    }

    /// Reads a position string. Never panics, whatever the input.
    fn from_fen(variant: &Self::Variant, fen: &str) -> Result<Self, FenError>;

    /// The position string; `from_fen(v, &p.fen())` gives back `p`.
    fn fen(&self) -> String;

    fn side_to_move(&self) -> Side;

    /// Appends every legal move to `moves` (which the caller clears and owns,
    /// so the search allocates nothing). A forced pass is a move. A finished
    /// game may still generate moves; callers check `outcome` first.
    fn generate_moves(&self, moves: &mut Vec<Self::Move>);

    /// The number of legal moves, for the last ply of perft. Games override
    /// it with a count straight from their bitboards.
    fn count_moves(&self) -> u64 {
        let mut moves = Vec::new();
        self.generate_moves(&mut moves);
        moves.len() as u64
    }

    /// Plays a legal move. Behaviour for an illegal move is unspecified (but
    /// memory safe); use `Line::play_text` for anything from outside.
    fn play(&mut self, mv: Self::Move);

    /// Zobrist hash of everything that decides the future of the game.
    fn hash(&self) -> u64;

    /// The key under which repetitions are counted: by default the hash. A game
    /// whose rules define "same position" more loosely than its hash overrides it.
    fn repetition_key(&self) -> u64 {
        self.hash()
    }

    /// The outcome decided by this position alone (no history).
    fn outcome(&self) -> Outcome;

    /// The outcome when this position occurs for the third time.
    fn repetition_outcome(&self) -> Outcome {
        Outcome::Over {
            result: GameResult::Draw,
            reason: "threefold repetition",
        }
    }

    /// Reads move text in this position. Checks notation only; legality is
    /// checked by `Line::play_text` / `find_legal`.
    fn parse_move(&self, text: &str) -> Result<Self::Move, MoveError>;

    /// 16-bit packing of a move for the transposition table (never 0).
    fn move_bits(mv: Self::Move) -> u16;

    /// Static evaluation from the side to move's point of view, in centi-units
    /// where 100 is roughly "a clear advantage"; far below the search's win
    /// score. With the built-in networks (`Nets::default()`); the search
    /// evaluates with the networks it is given (`evaluate_with`).
    fn evaluate(&self) -> i32;

    /// What an evaluation reads besides the position: the networks it
    /// plays. Owned by whoever evaluates (the search is given them, the
    /// engine's session holds them) and passed down by reference, never a
    /// process global. `Default`: the built-in ones; cheap to clone (a
    /// shared list). `()` for a game without networks.
    type Nets: Clone + Default + Send + Sync + 'static;

    /// This game's networks of the set a host holds (`()` for a game
    /// without networks).
    fn nets(networks: &nnue::Networks) -> Self::Nets;

    /// What an evaluation keeps from a position for the positions after it
    /// (a network's accumulators), so that the search, which holds one per
    /// ply, pays only for what a move changes. `()` for a game evaluated
    /// from scratch.
    type Eval: Clone + Default + Send + 'static;

    /// Sets `state` for this position from scratch, for `nets`.
    fn eval_refresh(&self, nets: &Self::Nets, state: &mut Self::Eval) {
        let _ = (nets, state);
    }

    /// Sets `child_state` for `child`, which is this position after `mv`,
    /// from `state`, this position's (both for `nets`).
    fn eval_update(
        &self,
        nets: &Self::Nets,
        mv: Self::Move,
        child: &Self,
        state: &Self::Eval,
        child_state: &mut Self::Eval,
    ) {
        let _ = (nets, mv, child, state, child_state);
    }

    /// The evaluation with `nets`, with the help of `state`, kept for this
    /// position by `eval_refresh` and `eval_update` with the same `nets`:
    /// always the very same value as from scratch. With the built-in
    /// networks, `evaluate`'s value; by default (a game without networks)
    /// `evaluate`.
    fn evaluate_with(&self, nets: &Self::Nets, state: &Self::Eval) -> i32 {
        let _ = (nets, state);
        self.evaluate()
    }

    /// A move that changes the material balance or the score (a tower
    /// completed, a capture). Searched first and in quiescence.
    fn is_noisy(&self, mv: Self::Move) -> bool;

    /// A move that wins the game at once for the side to move, if there is
    /// one (Mixtour: a tower topped by us that reaches the goal). The
    /// search scores such a position a win in one without playing the
    /// move; `None` (the default) leaves it to find such moves itself.
    /// Never a move that is not legal.
    fn winning_move(&self) -> Option<Self::Move> {
        None
    }

    /// Whether the opponent would have a move that wins at once if it were
    /// their turn now: a threat the side to move must parry. Games that
    /// give `winning_move` give this too; false by default.
    fn threatened(&self) -> bool {
        false
    }

    /// Appends the legal moves that might stop the opponent's win in one
    /// (when `threatened`): every move that does is among them. By default
    /// every legal move.
    fn parry_candidates(&self, moves: &mut Vec<Self::Move>) {
        self.generate_moves(moves);
    }

    /// Appends the noisy moves quiescence searches: every legal noisy move
    /// but those that lose the game at once (by default, every legal
    /// noisy move).
    fn noisy_moves(&self, moves: &mut Vec<Self::Move>) {
        let start = moves.len();
        self.generate_moves(moves);
        let mut i = 0;
        moves.retain(|&m| {
            i += 1;
            i <= start || self.is_noisy(m)
        });
    }

    /// A move that only hands the turn to the opponent (Mixtour's pass),
    /// for null-move pruning: the search plays it where it need not be
    /// legal, to ask whether the opponent could hurt us even with a free
    /// move. `None` (the default): the game has no such move.
    fn null_move(&self) -> Option<Self::Move> {
        None
    }

    /// A human-readable board for the `d` command.
    fn pretty(&self) -> String;

    /// The game-theoretic best move, for a game that can prove values
    /// (Silo), within `max_positions` positions and until `stop` is set:
    /// the move and its value in `Proof::best`, and in `Proof::positions`
    /// what the attempt explored, found or not (the engine charges it to
    /// `go nodes`). A game that cannot prove values (the default) explores
    /// nothing.
    fn prove(&self, max_positions: usize, stop: &AtomicBool) -> Proof<Self::Move> {
        let _ = (max_positions, stop);
        Proof::default()
    }
}

/// What a proof (`Game::prove`) found, and what it cost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Proof<M> {
    /// The best move and the plies to the end of the game: positive when
    /// the side to move wins, negative when it loses, 0 for a draw. `None`
    /// when the proof gave up.
    pub best: Option<(M, i32)>,
    /// Positions the attempt explored: the proof's own positions, or the
    /// budget it used up before giving up; 0 when it explored nothing.
    pub positions: u64,
}

impl<M> Default for Proof<M> {
    fn default() -> Self {
        Proof {
            best: None,
            positions: 0,
        }
    }
}

/// Parses `text` and checks it against the legal moves of `pos`.
pub fn find_legal<G: Game>(pos: &G, text: &str) -> Result<G::Move, MoveError> {
    let mv = pos.parse_move(text)?;
    if let Outcome::Over { reason, .. } = pos.outcome() {
        return Err(MoveError::illegal(
            text,
            format!("the game is over ({reason})"),
        ));
    }
    let mut moves = Vec::new();
    pos.generate_moves(&mut moves);
    if moves.contains(&mv) {
        Ok(mv)
    } else {
        Err(MoveError::illegal(
            text,
            "not a legal move in this position",
        ))
    }
}

#[cfg(test)]
mod tests;
