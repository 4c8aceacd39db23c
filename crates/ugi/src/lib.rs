//! The text of the UGI/UCI lines that both sides speak: the `info` line as
//! the engine writes it (`info_line`) and as its users read it
//! (`InfoLine::parse`), and the bounded line reader both sides read with
//! (`read_line`). Its own crate so that the client, and the arena
//! through it, read engines without depending on the engine they test.

mod line;
pub use line::{read_line, Line, MAX_LINE_BYTES};

use std::fmt;

/// A score as engines report it, from the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    Cp(i32),
    /// A forced win in n moves (negative: a forced loss).
    Mate(i32),
}

/// As the line writes it: `cp 35`, `mate -3`.
impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Score::Cp(v) => write!(f, "cp {v}"),
            Score::Mate(n) => write!(f, "mate {n}"),
        }
    }
}

/// One principal variation of a search, with every field stackfish's
/// `info` line carries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchLine<'a> {
    /// 1 for the best line, 2 for the second... (`MultiPV`).
    pub multipv: u32,
    pub depth: u32,
    pub seldepth: u32,
    pub score: Score,
    pub nodes: u64,
    pub time_ms: u64,
    /// Permille of the hash table in use.
    pub hashfull: u32,
    pub pv: &'a [String],
}

/// The `info` line of one line of a search. `nps` is derived from nodes and
/// time (a time of 0 counts as 1 ms).
pub fn info_line(line: &SearchLine) -> String {
    let nps = line.nodes.saturating_mul(1000) / line.time_ms.max(1);
    format!(
        "info depth {} seldepth {} multipv {} score {} nodes {} nps {} time {} hashfull {} pv {}",
        line.depth,
        line.seldepth,
        line.multipv,
        line.score,
        line.nodes,
        nps,
        line.time_ms,
        line.hashfull,
        line.pv.join(" ")
    )
}

/// The fields of one `info` line that a GUI shows. Bad numbers are
/// ignored, never fatal; a line without `pv` has an empty one. A bound
/// (`score cp 5 lowerbound`) is read as its score.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InfoLine {
    pub multipv: Option<u32>,
    pub depth: Option<u32>,
    pub seldepth: Option<u32>,
    pub score: Option<Score>,
    pub nodes: Option<u64>,
    pub nps: Option<u64>,
    pub time_ms: Option<u64>,
    pub hashfull: Option<u32>,
    pub pv: Vec<String>,
    /// An `info string` line: free text, no fields.
    pub string: bool,
}

impl InfoLine {
    pub fn parse(line: &str) -> InfoLine {
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let mut info = InfoLine::default();
        let number = |i: usize| tokens.get(i).and_then(|t| t.parse::<u64>().ok());
        let small = |i: usize| number(i).and_then(|n| u32::try_from(n).ok());
        let mut i = 1;
        while i < tokens.len() {
            match tokens[i] {
                "multipv" => info.multipv = small(i + 1),
                "depth" => info.depth = small(i + 1),
                "seldepth" => info.seldepth = small(i + 1),
                "hashfull" => info.hashfull = small(i + 1),
                "nodes" => info.nodes = number(i + 1),
                "nps" => info.nps = number(i + 1),
                "time" => info.time_ms = number(i + 1),
                "score" => {
                    let value = tokens.get(i + 2).and_then(|t| t.parse::<i32>().ok());
                    match (tokens.get(i + 1), value) {
                        (Some(&"cp"), Some(v)) => info.score = Some(Score::Cp(v)),
                        (Some(&"mate"), Some(v)) => info.score = Some(Score::Mate(v)),
                        _ => {}
                    }
                    i += 3;
                    continue;
                }
                // Free text: nothing after it is a field.
                "string" => {
                    info.string = true;
                    break;
                }
                "pv" => {
                    info.pv = tokens[i + 1..].iter().map(|t| t.to_string()).collect();
                    break;
                }
                _ => {
                    i += 1;
                    continue;
                }
            }
            i += 2;
        }
        info
    }
}

#[cfg(test)]
mod tests;
