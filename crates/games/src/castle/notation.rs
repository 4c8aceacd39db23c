//! Castle notation: squares `a1`..`s19`, moves `<from><to>` like `j9j11`, and
//! the five-field position string. Readers never panic and name the bad field.

use std::fmt;

use super::tables::{
    file_of, rank_of, square, CHANNEL, COURTYARD, KEY, KEY_SQUARE, MAX_PLY, MIDDLE, MIDDLE_BASE,
    MIDDLE_SQUARES, SIZE, WALL,
};
use super::tables::{Bb, TERRAIN};
use super::{Castle, Move};
use crate::cells::{read_rank, write_rank};
use crate::echo::quote;
use crate::{fen_fields, fen_pair, fen_side, FenError, Game, MoveError, Side};

pub fn square_name(sq: usize) -> String {
    let file = (b'a' + file_of(sq) as u8) as char;
    format!("{file}{}", rank_of(sq) + 1)
}

/// `a1`..`s19` to 0..361 (files a..s left to right, ranks 1..19 bottom to
/// top). The rank is written without leading zeros.
pub fn parse_square(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let (&f, rank) = bytes.split_first()?;
    if !(b'a'..=b's').contains(&f) || rank.is_empty() || rank.len() > 2 || rank[0] == b'0' {
        return None;
    }
    if !rank.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let r = rank
        .iter()
        .fold(0usize, |n, d| n * 10 + (d - b'0') as usize);
    (1..=SIZE)
        .contains(&r)
        .then(|| square((f - b'a') as usize, r - 1))
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", square_name(self.from()), square_name(self.to()))
    }
}

/// Reads `<from><to>`, e.g. `j8j9` or `j9j11`: two squares on one rank or
/// one file. Whether the move is legal is checked against the generator.
pub fn parse_move(text: &str) -> Result<Move, MoveError> {
    const EXPECTED: &str = "expected two squares like j8j9 (files a-s, ranks 1-19)";
    if !text.is_ascii() || text.len() < 4 {
        return Err(MoveError::syntax(text, EXPECTED));
    }
    // The target starts at the second letter.
    let split = match text.bytes().skip(1).position(|b| b.is_ascii_alphabetic()) {
        Some(i) => i + 1,
        None => return Err(MoveError::syntax(text, EXPECTED)),
    };
    let (from, to) = match (parse_square(&text[..split]), parse_square(&text[split..])) {
        (Some(from), Some(to)) => (from, to),
        _ => return Err(MoveError::syntax(text, EXPECTED)),
    };
    let (ff, fr, tf, tr) = (file_of(from), rank_of(from), file_of(to), rank_of(to));
    let (dir, dist) = if from == to {
        return Err(MoveError::syntax(text, "from and to are the same square"));
    } else if ff == tf {
        if tr > fr {
            (0, tr - fr)
        } else {
            (2, fr - tr)
        }
    } else if fr == tr {
        if tf > ff {
            (1, tf - ff)
        } else {
            (3, ff - tf)
        }
    } else {
        return Err(MoveError::syntax(
            text,
            "a knight moves along one rank or one file",
        ));
    };
    Ok(Move::new(from, dir, dist))
}

pub fn write_fen(pos: &Castle) -> String {
    let ranks: Vec<String> = (0..SIZE)
        .rev()
        .map(|rank| {
            write_rank((0..SIZE).map(|file| {
                let sq = square(file, rank);
                Side::BOTH
                    .into_iter()
                    .find(|&s| pos.knights(s).has(sq))
                    .map(|side| side.digit().to_string())
            }))
        })
        .collect();
    let skulls: Vec<String> = pos.skull_squares().map(square_name).collect();
    let skulls = if skulls.is_empty() {
        "-".to_string()
    } else {
        skulls.join(",")
    };
    format!(
        "{} {} {},{} {} {}",
        ranks.join("/"),
        pos.side_to_move().digit(),
        pos.passes(Side::P1),
        pos.passes(Side::P2),
        skulls,
        pos.ply()
    )
}

const FIELDS: [&str; 5] = ["board", "side", "passes", "skulls", "ply"];

/// `<board> <side> <passes1>,<passes2> <skulls> <ply>`. Accepted beyond the
/// printed form: empty runs split any way (`x,x`, `x1`, `x3,x16`).
/// Rejected, each naming its field:
/// - board: not 19 ranks of 19 cells; more than 8 knights a side; no knights
///   at all; a knight on its own key (never entered, so unreachable); both
///   keys taken (the first one ends the game);
/// - passes: not two numbers 0..=255 (the level is not checked: the string
///   carries the passes, so a level-1 string may be loaded as level 3);
/// - skulls: a square outside ranks 9..11 (all ground there), or listed
///   twice. Interpretation: skulls in mirrored pairs are how a layout is
///   dealt, not a rule of the position string, so unpaired skulls are
///   accepted (test positions need them); their order is kept for printing;
/// - ply: not a number 0..=400 (the game is decided at 400). The side to move
///   is not checked against the ply's parity, so set-up positions load.
pub fn parse_fen(fen: &str) -> Result<Castle, FenError> {
    let fields = fen_fields(fen, &FIELDS)?;
    let knights = parse_board(fields[0])?;
    let side = fen_side(fields[1])?;
    let passes = fen_pair("passes", fields[2], u8::MAX)?;
    let skulls = parse_skulls(fields[3])?;
    let ply = match fields[4].parse::<u16>() {
        Ok(n) if n as usize <= MAX_PLY && !fields[4].starts_with('+') => n,
        _ => {
            return Err(FenError::new(
                "ply",
                format!("{} is not a number of plies 0-400", quote(fields[4])),
            ))
        }
    };
    let mut pos = Castle::with_layout(&[], &[], &skulls, passes);
    pos.knights = knights;
    pos.side = side;
    pos.ply = ply;
    pos.hash = pos.compute_hash();
    Ok(pos)
}

fn parse_skulls(text: &str) -> Result<Vec<usize>, FenError> {
    if text == "-" {
        return Ok(Vec::new());
    }
    let mut skulls = Vec::new();
    for name in text.split(',') {
        let sq = parse_square(name).ok_or_else(|| {
            FenError::new(
                "skulls",
                format!(
                    "{} is not a square like d9 (or the list is not '-')",
                    quote(name)
                ),
            )
        })?;
        if TERRAIN[sq] & MIDDLE == 0 {
            return Err(FenError::new(
                "skulls",
                format!("{name} is outside the middle zone, ranks 9-11"),
            ));
        }
        if skulls.contains(&sq) {
            return Err(FenError::new("skulls", format!("{name} is listed twice")));
        }
        skulls.push(sq);
    }
    debug_assert!(skulls.len() <= MIDDLE_SQUARES && skulls.iter().all(|&s| s >= MIDDLE_BASE));
    Ok(skulls)
}

fn parse_board(text: &str) -> Result<[Bb; 2], FenError> {
    let ranks: Vec<&str> = text.split('/').collect();
    if ranks.len() != SIZE {
        return Err(FenError::new(
            "board",
            format!("{} ranks, expected 19 separated by '/'", ranks.len()),
        ));
    }
    let mut knights = [Bb::EMPTY; 2];
    for (i, rank_text) in ranks.iter().enumerate() {
        let rank = SIZE - 1 - i;
        let bad = |msg: String| FenError::new("board", format!("rank {}: {msg}", rank + 1));
        let cells = read_rank(rank_text, SIZE).map_err(|e| bad(e.to_string()))?;
        for (file, cell) in cells.into_iter().enumerate() {
            let Some(cell) = cell else { continue };
            let side = Side::from_digit(cell)
                .ok_or_else(|| bad(format!("{} is not 1, 2, x or xN", quote(cell))))?;
            knights[side.index()].set(square(file, rank));
        }
    }
    for side in Side::BOTH {
        let i = side.index();
        if knights[i].count() > 8 {
            return Err(FenError::new(
                "board",
                format!(
                    "{} knights for player {}, at most 8",
                    knights[i].count(),
                    side.digit()
                ),
            ));
        }
        if knights[i].has(KEY_SQUARE[i]) {
            return Err(FenError::new(
                "board",
                format!(
                    "a knight of player {} on its own key {}, which it never enters",
                    side.digit(),
                    square_name(KEY_SQUARE[i])
                ),
            ));
        }
    }
    if knights[0].has(KEY_SQUARE[1]) && knights[1].has(KEY_SQUARE[0]) {
        return Err(FenError::new(
            "board",
            "both keys taken; the first one taken ends the game",
        ));
    }
    if knights[0].is_empty() && knights[1].is_empty() {
        return Err(FenError::new("board", "no knights on the board"));
    }
    Ok(knights)
}

/// The fixed terrain of square `sq` in the symbols of docs/rules/castle.md: `#` wall,
/// `C` channel, `K` key, `:` courtyard, `,` middle-zone ground, `.` ground.
pub fn terrain_symbol(sq: usize) -> char {
    let t = TERRAIN[sq];
    if t & WALL != 0 {
        '#'
    } else if t & CHANNEL != 0 {
        'C'
    } else if t & KEY != 0 {
        'K'
    } else if t & COURTYARD != 0 {
        ':'
    } else if t & MIDDLE != 0 {
        ','
    } else {
        '.'
    }
}

/// The terrain as text, one string per rank from rank 19 down to rank 1,
/// one `terrain_symbol` per file a..s (skulls are not terrain: they are in
/// the position string).
pub fn terrain_rows() -> Vec<String> {
    (0..SIZE)
        .rev()
        .map(|rank| {
            (0..SIZE)
                .map(|file| terrain_symbol(square(file, rank)))
                .collect()
        })
        .collect()
}

/// The board for people, in the symbols of docs/rules/castle.md: `Y` / `B` knights,
/// `#` wall, `C` channel, `:` courtyard, `K` key, `*` skull, `.` / `,` ground.
pub fn pretty(pos: &Castle) -> String {
    let mut out = String::new();
    for rank in (0..SIZE).rev() {
        out.push_str(&format!("{:>2} ", rank + 1));
        for file in 0..SIZE {
            let sq = square(file, rank);
            let c = if pos.knights(Side::P1).has(sq) {
                'Y'
            } else if pos.knights(Side::P2).has(sq) {
                'B'
            } else if pos.is_skull(sq) {
                '*'
            } else {
                terrain_symbol(sq)
            };
            out.push(c);
            out.push(' ');
        }
        out.push('\n');
    }
    out.push_str("   a b c d e f g h i j k l m n o p q r s\n\n");
    out.push_str(&format!(
        "Side to move: {}\nKnights: {} / {}   Passes: {} / {}   Ply: {}\n",
        match pos.side_to_move() {
            Side::P1 => "Yellow (1)",
            Side::P2 => "Blue (2)",
        },
        pos.knight_count(Side::P1),
        pos.knight_count(Side::P2),
        pos.passes(Side::P1),
        pos.passes(Side::P2),
        pos.ply()
    ));
    out.push_str(&format!("Fen: {}\nKey: {:016X}\n", pos.fen(), pos.hash()));
    out
}
