//! Mixtour notation: squares `a1`..`e5`, moves `c3` / `[n]a1b2` / `pass`, and
//! the six-field position string. Readers never panic and name the bad field.

use std::fmt;

use super::tables::SIZE;
use super::{Mixtour, Move, MoveKind, Stack};
use crate::game::cells::{read_rank, write_rank};
use crate::game::{fen_fields, fen_pair, fen_side, FenError, MoveError, Side};

pub fn square_name(square: u8) -> String {
    let file = (b'a' + square % SIZE as u8) as char;
    let rank = (b'1' + square / SIZE as u8) as char;
    format!("{file}{rank}")
}

/// `a1`..`e5` to 0..25 (files a..e left to right, ranks 1..5 bottom to top).
pub fn parse_square(text: &str) -> Option<u8> {
    match text.as_bytes() {
        [f @ b'a'..=b'e', r @ b'1'..=b'5'] => Some((r - b'1') * SIZE as u8 + (f - b'a')),
        _ => None,
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind() {
            MoveKind::Place(sq) => f.write_str(&square_name(sq)),
            MoveKind::Stack { count: 1, from, to } => {
                write!(f, "{}{}", square_name(from), square_name(to))
            }
            MoveKind::Stack { count, from, to } => {
                write!(f, "{count}{}{}", square_name(from), square_name(to))
            }
            MoveKind::Pass => f.write_str("pass"),
        }
    }
}

/// Reads `c3`, `a1b2`, `1a1b2`, `3a1c3` or `pass`.
pub fn parse_move(text: &str) -> Result<Move, MoveError> {
    if text == "pass" {
        return Ok(Move::PASS);
    }
    if !text.is_ascii() {
        return Err(MoveError::syntax(
            text,
            "expected a square like c3, a move like 2a1b2, or pass",
        ));
    }
    let (count, squares) = match text.as_bytes().first() {
        Some(c @ b'0'..=b'9') => (c - b'0', &text[1..]),
        _ => (1, text),
    };
    match squares.len() {
        2 if count == 1 && squares.len() == text.len() => parse_square(squares)
            .map(Move::place)
            .ok_or_else(|| MoveError::syntax(text, "no such square (files a-e, ranks 1-5)")),
        4 => {
            if !(1..=4).contains(&count) {
                return Err(MoveError::syntax(text, "a stack move takes 1 to 4 pieces"));
            }
            let from = parse_square(&squares[..2]);
            let to = parse_square(&squares[2..]);
            match (from, to) {
                (Some(from), Some(to)) if from != to => Ok(Move::stack(count, from, to)),
                (Some(_), Some(_)) => Err(MoveError::syntax(
                    text,
                    "source and target are the same square",
                )),
                _ => Err(MoveError::syntax(
                    text,
                    "no such square (files a-e, ranks 1-5)",
                )),
            }
        }
        _ => Err(MoveError::syntax(
            text,
            "expected a square like c3, a move like 2a1b2, or pass",
        )),
    }
}

pub fn write_fen(pos: &Mixtour) -> String {
    let ranks: Vec<String> = (0..SIZE)
        .rev()
        .map(|rank| {
            write_rank((0..SIZE).map(|file| {
                let stack = pos.stacks[rank * SIZE + file];
                (!stack.is_empty()).then(|| format!("{stack:?}"))
            }))
        })
        .collect();
    let last = pos.last.map_or("-".to_string(), |m| m.to_string());
    format!(
        "{} {} {},{} {},{} {} {}",
        ranks.join("/"),
        pos.side.digit(),
        pos.reserves[0],
        pos.reserves[1],
        pos.scores[0],
        pos.scores[1],
        pos.goal,
        last
    )
}

/// `<board> <side> <reserve1>,<reserve2> <score1>,<score2> <goal> <last>`.
pub fn parse_fen(fen: &str) -> Result<Mixtour, FenError> {
    const NAMES: [&str; 6] = ["board", "side", "reserves", "scores", "goal", "last"];
    let fields = fen_fields(fen, &NAMES)?;
    let stacks = parse_board(fields[0])?;
    let side = fen_side(fields[1])?;
    let reserves = fen_pair("reserves", fields[2], u8::MAX)?;
    let scores = fen_pair("scores", fields[3], u8::MAX)?;
    let goal = match fields[4].parse::<u8>() {
        Ok(g) if g >= 1 => g,
        _ => {
            return Err(FenError::new(
                "goal",
                format!("'{}' is not a number from 1 to 255", fields[4]),
            ))
        }
    };
    if scores.iter().any(|&s| s > goal) {
        return Err(FenError::new(
            "scores",
            format!("'{}' exceeds the goal {goal}", fields[3]),
        ));
    }
    if scores.iter().all(|&s| s == goal) {
        return Err(FenError::new(
            "scores",
            "both players cannot have reached the goal",
        ));
    }
    let (last, passes) = match fields[5] {
        "-" => (None, 0),
        text => {
            let mv = parse_move(text).map_err(|e| FenError::new("last", e.to_string()))?;
            (Some(mv), u8::from(mv == Move::PASS))
        }
    };
    let mut pos = Mixtour {
        stacks,
        at_least: [0; 4],
        p2_top: 0,
        reserves,
        scores,
        goal,
        side,
        passes,
        last,
        hash: 0,
    };
    for sq in 0..SIZE * SIZE {
        let stack = pos.stacks[sq];
        pos.stacks[sq] = Stack::EMPTY;
        pos.set(sq as u8, stack);
    }
    pos.hash = pos.compute_hash();
    Ok(pos)
}

fn parse_board(text: &str) -> Result<[Stack; SIZE * SIZE], FenError> {
    let ranks: Vec<&str> = text.split('/').collect();
    if ranks.len() != SIZE {
        return Err(FenError::new(
            "board",
            format!("{} ranks, expected 5 separated by '/'", ranks.len()),
        ));
    }
    let mut stacks = [Stack::EMPTY; SIZE * SIZE];
    for (i, rank_text) in ranks.iter().enumerate() {
        let rank = SIZE - 1 - i;
        let bad = |msg: String| FenError::new("board", format!("rank {}: {msg}", rank + 1));
        let cells = read_rank(rank_text, SIZE).map_err(bad)?;
        for (file, cell) in cells.into_iter().enumerate() {
            let Some(cell) = cell else { continue };
            if cell.is_empty() || cell.len() > 4 || !cell.bytes().all(|b| b == b'1' || b == b'2') {
                return Err(bad(format!(
                    "'{cell}' is not a stack of 1 to 4 pieces written with 1 and 2, nor x/xN"
                )));
            }
            let pieces: Vec<Side> = cell
                .bytes()
                .map(|b| if b == b'1' { Side::P1 } else { Side::P2 })
                .collect();
            stacks[rank * SIZE + file] = Stack::from_pieces(&pieces);
        }
    }
    Ok(stacks)
}

/// The board for people: each cell shows its stack bottom to top.
pub fn pretty(pos: &Mixtour) -> String {
    use crate::game::Game;
    let mut out = String::new();
    out.push_str("   +------+------+------+------+------+\n");
    for rank in (0..SIZE).rev() {
        out.push_str(&format!(" {} |", rank + 1));
        for file in 0..SIZE {
            let stack = pos.stacks[rank * SIZE + file];
            let text = if stack.is_empty() {
                ".".to_string()
            } else {
                format!("{stack:?}")
            };
            out.push_str(&format!(" {text:<4} |"));
        }
        out.push_str("\n   +------+------+------+------+------+\n");
    }
    out.push_str("     a      b      c      d      e\n");
    out.push_str("   (stacks are written bottom to top; 1 = player 1, 2 = player 2)\n\n");
    out.push_str(&format!(
        "Side to move: player {}\nReserves: {} / {}   Scores: {} / {}   Goal: {}\n",
        pos.side.digit(),
        pos.reserves[0],
        pos.reserves[1],
        pos.scores[0],
        pos.scores[1],
        pos.goal
    ));
    if let Some(f) = pos.forbidden() {
        out.push_str(&format!("Forbidden take-back: {f}\n"));
    }
    out.push_str(&format!("Fen: {}\nKey: {:016X}\n", pos.fen(), pos.hash()));
    out
}
