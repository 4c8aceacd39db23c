//! Coin Stack / Focus notation: squares `a1`..`h8` (the 52 playable ones),
//! moves `c3e5` / `2c3e5`, drops `d4`, and the four-field position string.
//! Readers never panic and name the bad field.

use std::fmt;

use super::tables::{on_board, MAX_HEIGHT, RANK_FILES, SIZE, SQUARES};
use super::{CoinStack, CoinStackVariant, Move, MoveKind, Stack, COINS};
use crate::cells::{read_rank, write_rank};
use crate::echo::quote;
use crate::{fen_fields, fen_pair, fen_side, FenError, MoveError, Side};

pub fn square_name(square: u8) -> String {
    let file = (b'a' + square % SIZE as u8) as char;
    let rank = (b'1' + (square / SIZE as u8) % SIZE as u8) as char;
    format!("{file}{rank}")
}

/// `a1`..`h8` to `rank * 8 + file`; `None` for text that is not a square and
/// for the twelve cut corner squares.
pub fn parse_square(text: &str) -> Option<u8> {
    match text.as_bytes() {
        [f @ b'a'..=b'h', r @ b'1'..=b'8'] => {
            let (file, rank) = ((f - b'a') as i32, (r - b'1') as i32);
            on_board(file, rank).then_some((rank * SIZE as i32 + file) as u8)
        }
        _ => None,
    }
}

impl fmt::Display for Move {
    /// Rule: the count of a move is its distance, so it is never printed.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind() {
            MoveKind::Drop(sq) => f.write_str(&square_name(sq)),
            MoveKind::Step { from, to, .. } => {
                write!(f, "{}{}", square_name(from), square_name(to))
            }
        }
    }
}

const SQUARE_HINT: &str =
    "no such square (the board is a..h, 1..8 without the three squares of each corner)";

/// Reads a drop `d4`, a move `c3e5`, or `2c3e5` whose count must equal the
/// distance. A move must lie along a line (diagonal or orthogonal; whether
/// the variant allows that line is legality, checked against the moves).
pub fn parse_move(text: &str) -> Result<Move, MoveError> {
    let expected = "expected a drop like d4 or a move like c3e5 (or 2c3e5)";
    if !text.is_ascii() {
        return Err(MoveError::syntax(text, expected));
    }
    let (count, squares) = match text.as_bytes().first() {
        Some(c @ b'0'..=b'9') => (Some((c - b'0') as i32), &text[1..]),
        _ => (None, text),
    };
    match (count, squares.len()) {
        (None, 2) => parse_square(squares)
            .map(Move::drop)
            .ok_or_else(|| MoveError::syntax(text, SQUARE_HINT)),
        (_, 4) => {
            let (Some(from), Some(to)) = (parse_square(&squares[..2]), parse_square(&squares[2..]))
            else {
                return Err(MoveError::syntax(text, SQUARE_HINT));
            };
            let (df, dr) = (
                (to % 8) as i32 - (from % 8) as i32,
                (to / 8) as i32 - (from / 8) as i32,
            );
            let distance = df.abs().max(dr.abs());
            if distance == 0 {
                return Err(MoveError::syntax(
                    text,
                    "source and destination are the same square",
                ));
            }
            if df != 0 && dr != 0 && df.abs() != dr.abs() {
                return Err(MoveError::illegal(text, "not along a straight line"));
            }
            if distance > MAX_HEIGHT as i32 {
                return Err(MoveError::illegal(
                    text,
                    "farther than 5 squares (a move of n coins goes exactly n squares, at most 5)",
                ));
            }
            if let Some(n) = count {
                if n != distance {
                    return Err(MoveError::syntax(
                        text,
                        format!("{n} coins must move {n} squares, but this move goes {distance}"),
                    ));
                }
            }
            Ok(Move::step(distance as u8, from, to))
        }
        _ => Err(MoveError::syntax(text, expected)),
    }
}

/// The position string with runs of empty squares merged (`x`, `xN`).
pub fn write_fen(pos: &CoinStack) -> String {
    let ranks: Vec<String> = (0..SIZE)
        .rev()
        .map(|rank| {
            let (first, last) = RANK_FILES[rank];
            write_rank((first..=last).map(|file| {
                let stack = pos.stacks[rank * SIZE + file];
                (!stack.is_empty()).then(|| format!("{stack:?}"))
            }))
        })
        .collect();
    format!(
        "{} {} {},{} {},{}",
        ranks.join("/"),
        pos.side.digit(),
        pos.reserves[0],
        pos.reserves[1],
        pos.captured[0],
        pos.captured[1],
    )
}

/// `<board> <side> <reserve1>,<reserve2> <captured1>,<captured2>`.
///
/// Interpretations: empty runs may be split or merged any way (`x,x` = `x2`)
/// but never cross a rank; a side may have fewer than 18 coins accounted for
/// (built test and study positions; the missing coins are out of the game)
/// but never more; in `coinstack` both players cannot have reached 9 captures.
pub fn parse_fen(variant: CoinStackVariant, fen: &str) -> Result<CoinStack, FenError> {
    const NAMES: [&str; 4] = ["board", "side", "reserves", "captured"];
    let fields = fen_fields(fen, &NAMES)?;
    let stacks = parse_board(fields[0])?;
    let side = fen_side(fields[1])?;
    let reserves = fen_pair("reserves", fields[2], COINS)?;
    let captured = fen_pair("captured", fields[3], COINS)?;
    let mut pos = CoinStack::empty(variant);
    pos.side = side;
    pos.reserves = reserves;
    pos.captured = captured;
    for (sq, &stack) in stacks.iter().enumerate() {
        pos.set(sq as u8, stack);
    }
    for s in Side::BOTH {
        let n = pos.coins_accounted(s);
        if n > COINS as u32 {
            return Err(FenError::new(
                "board",
                format!(
                    "player {} has {n} coins on the board, in reserve and captured by the \
                     opponent; at most {COINS}",
                    s.digit()
                ),
            ));
        }
    }
    if let Some(goal) = variant.capture_goal() {
        if captured.iter().all(|&c| c >= goal) {
            return Err(FenError::new(
                "captured",
                format!("both players cannot have captured {goal} or more"),
            ));
        }
    }
    pos.hash = pos.compute_hash();
    Ok(pos)
}

fn parse_board(text: &str) -> Result<[Stack; SQUARES], FenError> {
    let ranks: Vec<&str> = text.split('/').collect();
    if ranks.len() != SIZE {
        return Err(FenError::new(
            "board",
            format!("{} ranks, expected 8 separated by '/'", ranks.len()),
        ));
    }
    let mut stacks = [Stack::EMPTY; SQUARES];
    for (i, rank_text) in ranks.iter().enumerate() {
        let rank = SIZE - 1 - i;
        let (first, last) = RANK_FILES[rank];
        let width = last - first + 1;
        let bad = |msg: String| FenError::new("board", format!("rank {}: {msg}", rank + 1));
        let cells = read_rank(rank_text, width).map_err(|e| bad(e.to_string()))?;
        for (i, cell) in cells.into_iter().enumerate() {
            let Some(cell) = cell else { continue };
            let Some(stack) = Stack::parse(cell) else {
                return Err(bad(format!(
                    "{} is not a stack of 1 to 5 coins written with 1 and 2, nor x/xN",
                    quote(cell)
                )));
            };
            stacks[rank * SIZE + first + i] = stack;
        }
    }
    Ok(stacks)
}

/// The board for people: each square shows its stack bottom to top.
pub fn pretty(pos: &CoinStack) -> String {
    use crate::Game;
    let mut out = String::new();
    for rank in (0..SIZE).rev() {
        out.push_str(&format!(" {} ", rank + 1));
        for file in 0..SIZE {
            let text = if !on_board(file as i32, rank as i32) {
                " ".to_string()
            } else {
                let stack = pos.stacks[rank * SIZE + file];
                if stack.is_empty() {
                    ".".to_string()
                } else {
                    format!("{stack:?}")
                }
            };
            out.push_str(&format!(" {text:<5}"));
        }
        out.push('\n');
    }
    out.push_str("    a     b     c     d     e     f     g     h\n");
    out.push_str("   (stacks are written bottom to top; 1 = Red, 2 = Green)\n\n");
    let game = match pos.variant {
        CoinStackVariant::CoinStack => "coinstack",
        CoinStackVariant::Focus => "focus",
    };
    out.push_str(&format!(
        "Game: {game}\nSide to move: player {}\nReserves: {} / {}   Captured: {} / {}\n",
        pos.side.digit(),
        pos.reserves[0],
        pos.reserves[1],
        pos.captured[0],
        pos.captured[1],
    ));
    out.push_str(&format!("Fen: {}\nKey: {:016X}\n", pos.fen(), pos.hash()));
    out
}
