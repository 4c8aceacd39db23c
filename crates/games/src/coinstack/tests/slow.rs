//! The rules written again the slow and obvious way, as the oracle of the
//! tests: a Vec per square, the board shape from the rules text, moves as
//! strings. Shares nothing with the fast code but the accessors it reads.

use super::super::{CoinStack, CoinStackVariant};
use crate::{Game, GameResult, Outcome, Side};

/// "Ranks 1 and 8 have squares c..f, ranks 2 and 7 b..g, ranks 3..6 a..h."
pub fn files_of_rank(rank: u8) -> &'static str {
    match rank {
        1 | 8 => "cdef",
        2 | 7 => "bcdefg",
        _ => "abcdefgh",
    }
}

fn on_board(file: i32, rank: i32) -> bool {
    (1..=8).contains(&rank)
        && (0..8).contains(&file)
        && files_of_rank(rank as u8).contains((b'a' + file as u8) as char)
}

fn name(file: i32, rank: i32) -> String {
    format!("{}{}", (b'a' + file as u8) as char, rank)
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slow {
    /// `[file][rank - 1]`, bottom coin first.
    stacks: Vec<Vec<Vec<Side>>>,
    reserves: [u8; 2],
    captured: [u8; 2],
    side: Side,
    diagonal: bool,
}

impl Slow {
    pub fn from_fast(pos: &CoinStack) -> Slow {
        let mut stacks = vec![vec![Vec::new(); 8]; 8];
        for (file, column) in stacks.iter_mut().enumerate() {
            for (rank, cell) in column.iter_mut().enumerate() {
                if on_board(file as i32, rank as i32 + 1) {
                    let square = super::sq(&name(file as i32, rank as i32 + 1));
                    *cell = pos.stack(square).pieces().collect();
                }
            }
        }
        Slow {
            stacks,
            reserves: [pos.reserve(Side::P1), pos.reserve(Side::P2)],
            captured: [pos.captured(Side::P1), pos.captured(Side::P2)],
            side: pos.side_to_move(),
            diagonal: pos.variant() == CoinStackVariant::CoinStack,
        }
    }

    /// Written with one `x` per empty square, never merged.
    pub fn to_fast(&self, v: CoinStackVariant) -> CoinStack {
        let mut ranks = Vec::new();
        for rank in (1..=8).rev() {
            let cells: Vec<String> = files_of_rank(rank as u8)
                .bytes()
                .map(|f| {
                    let cell = &self.stacks[(f - b'a') as usize][rank - 1];
                    if cell.is_empty() {
                        "x".to_string()
                    } else {
                        cell.iter().map(|s| s.digit()).collect()
                    }
                })
                .collect();
            ranks.push(cells.join(","));
        }
        let fen = format!(
            "{} {} {},{} {},{}",
            ranks.join("/"),
            self.side.digit(),
            self.reserves[0],
            self.reserves[1],
            self.captured[0],
            self.captured[1]
        );
        super::at(v, &fen)
    }

    fn steps(&self) -> [(i32, i32); 4] {
        if self.diagonal {
            [(1, 1), (1, -1), (-1, 1), (-1, -1)]
        } else {
            [(1, 0), (-1, 0), (0, 1), (0, -1)]
        }
    }

    pub fn moves(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.outcome().is_over() {
            return out;
        }
        for file in 0..8 {
            for rank in 1..=8 {
                if !on_board(file, rank) {
                    continue;
                }
                if self.reserves[self.side.index()] > 0 {
                    out.push(name(file, rank));
                }
                let stack = &self.stacks[file as usize][rank as usize - 1];
                if stack.last() != Some(&self.side) {
                    continue;
                }
                for n in 1..=stack.len() as i32 {
                    for (df, dr) in self.steps() {
                        let (f, r) = (file + n * df, rank + n * dr);
                        if on_board(f, r) {
                            out.push(format!("{}{}", name(file, rank), name(f, r)));
                        }
                    }
                }
            }
        }
        out
    }

    fn coords(text: &str) -> (i32, i32) {
        let b = text.as_bytes();
        ((b[0] - b'a') as i32, (b[1] - b'0') as i32)
    }

    fn cell(&mut self, (file, rank): (i32, i32)) -> &mut Vec<Side> {
        &mut self.stacks[file as usize][rank as usize - 1]
    }

    pub fn play(&mut self, text: &str) {
        let me = self.side;
        let to = if text.len() == 2 {
            self.reserves[me.index()] -= 1;
            let to = Slow::coords(text);
            self.cell(to).push(me);
            to
        } else {
            let (from, to) = (Slow::coords(&text[..2]), Slow::coords(&text[2..]));
            let n = (to.0 - from.0).abs().max((to.1 - from.1).abs()) as usize;
            let source = self.cell(from);
            let moved = source.split_off(source.len() - n);
            self.cell(to).extend(moved);
            to
        };
        while self.cell(to).len() > 5 {
            let bottom = self.cell(to).remove(0);
            if bottom == me {
                self.reserves[me.index()] += 1;
            } else {
                self.captured[me.index()] += 1;
            }
        }
        self.side = me.opponent();
    }

    pub fn outcome(&self) -> Outcome {
        if self.diagonal {
            for side in Side::BOTH {
                if self.captured[side.index()] >= 9 {
                    return Outcome::Over {
                        result: GameResult::win_for(side),
                        reason: "nine coins captured",
                    };
                }
            }
        }
        let controls = self
            .stacks
            .iter()
            .flatten()
            .any(|s| s.last() == Some(&self.side));
        if !controls && self.reserves[self.side.index()] == 0 {
            return Outcome::Over {
                result: GameResult::win_for(self.side.opponent()),
                reason: "no legal action",
            };
        }
        Outcome::Ongoing
    }

    pub fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        self.moves()
            .iter()
            .map(|m| {
                let mut child = self.clone();
                child.play(m);
                child.perft(depth - 1)
            })
            .sum()
    }

    /// Symmetry `sym` of the square (bit 0 mirrors files, bit 1 mirrors
    /// ranks, bit 2 transposes first), colours swapped if `swap`.
    pub fn transformed(&self, sym: u32, swap: bool) -> Slow {
        let mut out = self.clone();
        let recolour = |s: Side| if swap { s.opponent() } else { s };
        for column in out.stacks.iter_mut() {
            for cell in column.iter_mut() {
                cell.clear();
            }
        }
        for file in 0..8i32 {
            for rank in 0..8i32 {
                let (mut f, mut r) = (file, rank);
                if sym & 4 != 0 {
                    (f, r) = (r, f);
                }
                if sym & 1 != 0 {
                    f = 7 - f;
                }
                if sym & 2 != 0 {
                    r = 7 - r;
                }
                out.stacks[f as usize][r as usize] = self.stacks[file as usize][rank as usize]
                    .iter()
                    .map(|&s| recolour(s))
                    .collect();
            }
        }
        if swap {
            out.reserves.swap(0, 1);
            out.captured.swap(0, 1);
            out.side = self.side.opponent();
        }
        out
    }
}
