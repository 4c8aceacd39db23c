//! Silo notation: squares `a`..`p`, moves by source square or `pass`, and the
//! two-field position string `<stacks> <side>`. Readers never panic and name
//! the bad field.

use std::fmt;

use super::{Move, Silo, MAX_CHECKERS, MAX_SQUARES};
use crate::echo::quote;
use crate::{fen_fields, fen_side, FenError, Game, MoveError, Side};

pub fn square_name(square: u8) -> char {
    (b'a' + square) as char
}

/// `a`..`p` to 0..16 on a row of `squares`.
pub fn parse_square(text: &str, squares: usize) -> Option<u8> {
    match text.as_bytes() {
        [f @ b'a'..=b'z'] if ((f - b'a') as usize) < squares.min(MAX_SQUARES) => Some(f - b'a'),
        _ => None,
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.square() {
            Some(sq) => write!(f, "{}", square_name(sq)),
            None => f.write_str("pass"),
        }
    }
}

/// Reads a source square (`c`) or `pass` on a row of `squares`.
pub fn parse_move(text: &str, squares: usize) -> Result<Move, MoveError> {
    if text == "pass" {
        return Ok(Move::PASS);
    }
    parse_square(text, squares)
        .map(Move::from_square)
        .ok_or_else(|| {
            let last = square_name(squares.clamp(1, MAX_SQUARES) as u8 - 1);
            MoveError::syntax(text, format!("expected a source square a-{last} or pass"))
        })
}

pub fn write_fen(pos: &Silo) -> String {
    let stacks: Vec<String> = (0..pos.squares())
        .map(|sq| {
            let stack = pos.stack(sq);
            if stack.is_empty() {
                "x".to_string()
            } else {
                stack.iter().map(|s| s.digit()).collect()
            }
        })
        .collect();
    format!("{} {}", stacks.join("/"), pos.side_to_move().digit())
}

/// `<stacks> <side>`: stacks from square a upwards separated by `/`, each
/// bottom to top with `1` (Red) and `2` (Blue), `x` for an empty square.
pub fn parse_fen(fen: &str) -> Result<Silo, FenError> {
    const NAMES: [&str; 2] = ["stacks", "side"];
    let fields = fen_fields(fen, &NAMES)?;
    let stacks = parse_stacks(fields[0])?;
    let side = fen_side(fields[1])?;
    Ok(Silo::from_stacks(&stacks, side))
}

fn parse_stacks(text: &str) -> Result<Vec<Vec<Side>>, FenError> {
    let cells: Vec<&str> = text.split('/').collect();
    // Rule: the row length is the number of squares written; it must be
    // even (the players' halves mirror each other) and at least 2.
    if cells.len() % 2 == 1 || cells.len() > MAX_SQUARES {
        return Err(FenError::new(
            "stacks",
            format!(
                "{} squares; a row has an even number from 2 to {MAX_SQUARES}",
                cells.len()
            ),
        ));
    }
    let mut stacks = Vec::with_capacity(cells.len());
    let mut total = 0;
    for (sq, cell) in cells.iter().enumerate() {
        let name = square_name(sq as u8);
        if *cell == "x" {
            stacks.push(Vec::new());
            continue;
        }
        if cell.is_empty() || !cell.bytes().all(|b| b == b'1' || b == b'2') {
            return Err(FenError::new(
                "stacks",
                format!(
                    "square {name}: {} is not x or a stack written with 1 and 2",
                    quote(cell)
                ),
            ));
        }
        total += cell.len();
        if total > MAX_CHECKERS {
            return Err(FenError::new(
                "stacks",
                format!("more than {MAX_CHECKERS} checkers in all"),
            ));
        }
        stacks.push(
            cell.bytes()
                .map(|b| if b == b'1' { Side::P1 } else { Side::P2 })
                .collect(),
        );
    }
    // Rule: each player has at least one checker (a player without any
    // could neither move nor win).
    for side in Side::BOTH {
        if !stacks.iter().flatten().any(|&c| c == side) {
            return Err(FenError::new(
                "stacks",
                format!("player {} has no checker", side.digit()),
            ));
        }
    }
    Ok(stacks)
}

/// The row for people: stacks drawn upwards, Red `R`, Blue `B`.
pub fn pretty(pos: &Silo) -> String {
    let n = pos.squares();
    let stacks: Vec<Vec<Side>> = (0..n).map(|sq| pos.stack(sq)).collect();
    let top = stacks.iter().map(Vec::len).max().unwrap_or(0);
    let mut out = String::new();
    for level in (0..top).rev() {
        out.push_str("   ");
        for stack in &stacks {
            let c = match stack.get(level) {
                Some(Side::P1) => 'R',
                Some(Side::P2) => 'B',
                None => ' ',
            };
            out.push_str(&format!(" {c} "));
        }
        out.push('\n');
    }
    out.push_str("   ");
    out.push_str(&"---".repeat(n));
    out.push_str("\n   ");
    for sq in 0..n {
        out.push_str(&format!(" {} ", square_name(sq as u8)));
    }
    out.push_str("\n   (Red = player 1 moves towards higher files, Blue = player 2 towards a)\n\n");
    out.push_str(&format!(
        "Side to move: player {}\nFen: {}\nKey: {:016X}\n",
        pos.side_to_move().digit(),
        pos.fen(),
        pos.hash()
    ));
    out
}
