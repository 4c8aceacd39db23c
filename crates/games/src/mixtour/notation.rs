//! Mixtour notation: squares `a1`..`j10`, moves `c3` / `[n]a1b2` / `pass`, and
//! the six-field position string, whose board field gives the board's shape.
//! Readers never panic and name the bad field.

use std::fmt;

use super::board::{Board, GRID_MAX};
use super::tables::KEYS;
use super::{MixtourVariant, Move, MoveKind, Position, Stack};
use crate::cells::{read_cells, write_cells, RankCell};
use crate::echo::quote;
use crate::{fen_fields, fen_pair, fen_side, FenError, MoveError, Side};

/// The name of a cell: file letter a..j, rank number 1..10 from the bottom.
pub fn square_name<B: Board>(cell: u8) -> String {
    let (file, rank) = (cell as usize % B::STRIDE, cell as usize / B::STRIDE);
    format!("{}{}", (b'a' + file as u8) as char, rank + 1)
}

/// `a1` to the cell index, for any square of the largest board of this kind
/// (whether the position's board has that cell is a question of legality).
pub fn parse_square<B: Board>(text: &str) -> Option<u8> {
    let (file, rank) = text.split_at_checked(1)?;
    let file = (file.as_bytes()[0] as usize).checked_sub(b'a' as usize)?;
    // Digits only and no leading zero: `a01` is not a square.
    if rank.starts_with('0') || !rank.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let rank = rank.parse::<usize>().ok()?.checked_sub(1)?;
    (file < B::MAX_FILES && rank < B::MAX_RANKS).then(|| (rank * B::STRIDE + file) as u8)
}

fn no_such_square<B: Board>(text: &str) -> MoveError {
    let last_file = (b'a' + B::MAX_FILES as u8 - 1) as char;
    MoveError::syntax(
        text,
        format!(
            "no such square (files a-{last_file}, ranks 1-{})",
            B::MAX_RANKS
        ),
    )
}

impl<B: Board> fmt::Display for Move<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind() {
            MoveKind::Place(sq) => f.write_str(&square_name::<B>(sq)),
            MoveKind::Stack { count: 1, from, to } => {
                write!(f, "{}{}", square_name::<B>(from), square_name::<B>(to))
            }
            MoveKind::Stack { count, from, to } => {
                write!(
                    f,
                    "{count}{}{}",
                    square_name::<B>(from),
                    square_name::<B>(to)
                )
            }
            MoveKind::Pass => f.write_str("pass"),
        }
    }
}

/// Reads `c3`, `a1b2`, `1a1b2`, `3a1c3`, `a10`, `2a10a7` or `pass`.
pub fn parse_move<B: Board>(text: &str) -> Result<Move<B>, MoveError> {
    if text == "pass" {
        return Ok(Move::PASS);
    }
    let malformed = || {
        MoveError::syntax(
            text,
            "expected a square like c3, a move like 2a1b2, or pass",
        )
    };
    if !text.is_ascii() {
        return Err(malformed());
    }
    let (count, squares) = match text.as_bytes().first() {
        Some(c @ b'0'..=b'9') => (Some(c - b'0'), &text[1..]),
        _ => (None, text),
    };
    // A square is a letter and its digits; the second square starts at the
    // next letter.
    let split = squares
        .char_indices()
        .skip(1)
        .find(|(_, c)| c.is_ascii_alphabetic())
        .map_or(squares.len(), |(i, _)| i);
    let (first, second) = squares.split_at(split);
    let square = |t: &str| {
        if t.len() < 2 || !t.as_bytes()[0].is_ascii_lowercase() {
            Err(malformed())
        } else {
            parse_square::<B>(t).ok_or_else(|| no_such_square::<B>(text))
        }
    };
    if second.is_empty() {
        if count.is_some() {
            return Err(malformed());
        }
        return square(first).map(Move::place);
    }
    let count = count.unwrap_or(1);
    if !(1..=4).contains(&count) {
        return Err(MoveError::syntax(text, "a stack move takes 1 to 4 pieces"));
    }
    let (from, to) = (square(first)?, square(second)?);
    if from == to {
        return Err(MoveError::syntax(
            text,
            "source and target are the same square",
        ));
    }
    Ok(Move::stack(count, from, to))
}

/// One cell of a board field: a hole, an empty cell, or a stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cell {
    Hole,
    Empty,
    Stack(Stack),
}

pub fn write_fen<B: Board>(pos: &Position<B>) -> String {
    let board = pos.board();
    let ranks: Vec<String> = (0..board.ranks())
        .rev()
        .map(|rank| {
            write_cells((0..board.files()).map(|file| match pos.cell(file, rank) {
                None => RankCell::Hole,
                Some(cell) if pos.stack(cell).is_empty() => RankCell::Empty,
                Some(cell) => RankCell::Text(format!("{:?}", pos.stack(cell))),
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
pub fn parse_fen<B: Board>(fen: &str) -> Result<Position<B>, FenError> {
    const NAMES: [&str; 6] = ["board", "side", "reserves", "scores", "goal", "last"];
    let fields = fen_fields(fen, &NAMES)?;
    let (files, ranks, cells) = parse_board(fields[0])?;
    let holes: Vec<bool> = cells.iter().map(|&c| c == Cell::Hole).collect();
    let board =
        B::from_shape(files, ranks, &holes).map_err(|e| FenError::new("board", e.to_string()))?;
    let side = fen_side(fields[1])?;
    let reserves = fen_pair("reserves", fields[2], u8::MAX)?;
    let scores = fen_pair("scores", fields[3], u8::MAX)?;
    let goal = match fields[4].parse::<u8>() {
        Ok(g) if g >= 1 => g,
        _ => {
            return Err(FenError::new(
                "goal",
                format!("{} is not a number from 1 to 255", quote(fields[4])),
            ))
        }
    };
    if scores.iter().any(|&s| s > goal) {
        return Err(FenError::new(
            "scores",
            format!("{} exceeds the goal {goal}", quote(fields[3])),
        ));
    }
    if scores.iter().all(|&s| s == goal) {
        return Err(FenError::new(
            "scores",
            "both players cannot have reached the goal",
        ));
    }
    let mut pos = Position::empty_on(board, MixtourVariant { reserve: 0, goal });
    for (i, cell) in cells.iter().enumerate() {
        if let Cell::Stack(stack) = *cell {
            let (file, rank) = (i % files, i / files);
            let cell = pos.cell(file, rank).expect("a stack is on a playable cell");
            pos.set(cell, stack);
        }
    }
    for side in Side::BOTH {
        pos.set_reserve(side, reserves[side.index()]);
        pos.set_score(side, scores[side.index()]);
    }
    if side == Side::P2 {
        pos.side = side;
        pos.hash ^= KEYS.side;
    }
    let last = match fields[5] {
        "-" => None,
        text => {
            let mv = parse_move::<B>(text).map_err(|e| FenError::new("last", e.to_string()))?;
            Some(mv)
        }
    };
    pos.set_last(last, u8::from(last == Some(Move::PASS)));
    debug_assert_eq!(pos.hash, pos.compute_hash());
    Ok(pos)
}

/// The board field: ranks from the top separated by `/`, each the same
/// number of cells. Returns files, ranks and the cells from a1 rank by rank.
fn parse_board(text: &str) -> Result<(usize, usize, Vec<Cell>), FenError> {
    let rows: Vec<&str> = text.split('/').collect();
    let ranks = rows.len();
    if ranks > GRID_MAX {
        return Err(FenError::new(
            "board",
            format!("{ranks} ranks, at most {GRID_MAX}"),
        ));
    }
    let mut files = 0;
    let mut cells = Vec::with_capacity(GRID_MAX * GRID_MAX);
    // Read top to bottom; the cells are stored from rank 1 up.
    let mut by_rank: Vec<Vec<Cell>> = Vec::with_capacity(ranks);
    for (i, row) in rows.iter().enumerate() {
        let rank = ranks - i;
        let bad = |msg: String| FenError::new("board", format!("rank {rank}: {msg}"));
        let row_cells = read_cells(row, GRID_MAX).map_err(|e| bad(e.to_string()))?;
        if i == 0 {
            files = row_cells.len();
        } else if row_cells.len() != files {
            return Err(bad(format!(
                "{} cells, but rank {ranks} (the first) has {files}",
                row_cells.len()
            )));
        }
        by_rank.push(
            row_cells
                .into_iter()
                .map(|cell| match cell {
                    RankCell::Hole => Ok(Cell::Hole),
                    RankCell::Empty => Ok(Cell::Empty),
                    RankCell::Text(t) => parse_stack(t).map(Cell::Stack).map_err(bad),
                })
                .collect::<Result<Vec<Cell>, FenError>>()?,
        );
    }
    for row in by_rank.into_iter().rev() {
        cells.extend(row);
    }
    Ok((files, ranks, cells))
}

fn parse_stack(cell: &str) -> Result<Stack, String> {
    Stack::parse(cell).ok_or_else(|| {
        format!(
            "{} is not a stack of 1 to {} pieces written with 1 and 2, nor x/xN, nor #/#N",
            quote(cell),
            Stack::MAX_HEIGHT
        )
    })
}

/// The board for people: each cell shows its stack bottom to top, a hole
/// shows `#`.
pub fn pretty<B: Board>(pos: &Position<B>) -> String {
    use crate::Game;
    let board = pos.board();
    let files = board.files();
    let rule = format!("   +{}\n", "------+".repeat(files));
    let mut out = rule.clone();
    for rank in (0..board.ranks()).rev() {
        out.push_str(&format!("{:>2} |", rank + 1));
        for file in 0..files {
            let text = match pos.cell(file, rank) {
                None => "#".to_string(),
                Some(cell) if pos.stack(cell).is_empty() => ".".to_string(),
                Some(cell) => format!("{:?}", pos.stack(cell)),
            };
            out.push_str(&format!(" {text:<4} |"));
        }
        out.push('\n');
        out.push_str(&rule);
    }
    let letters: Vec<String> = (0..files)
        .map(|file| ((b'a' + file as u8) as char).to_string())
        .collect();
    out.push_str(&format!("     {}\n", letters.join("      ")));
    out.push_str("   (stacks are written bottom to top; 1 = player 1, 2 = player 2");
    let holes = (0..board.ranks()).any(|r| (0..files).any(|f| pos.cell(f, r).is_none()));
    out.push_str(if !holes {
        ")\n\n"
    } else {
        "; # = not on the board)\n\n"
    });
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
