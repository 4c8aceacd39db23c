//! The fields of an engine's `info` line, read back: the other half of
//! `info_line`, for every program that shows what an engine says (the
//! engine client, the board natively and in WebAssembly).

/// A score as engines report it, from the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    Cp(i32),
    /// A forced win in n moves (negative: a forced loss).
    Mate(i32),
}

/// The fields of one `info` line that a GUI shows. Bad numbers are
/// ignored, never fatal; a line without `pv` has an empty one.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InfoLine {
    pub multipv: Option<u32>,
    pub depth: Option<u32>,
    pub score: Option<Score>,
    pub nodes: Option<u64>,
    pub time_ms: Option<u64>,
    pub pv: Vec<String>,
    /// An `info string` line: free text, no fields.
    pub string: bool,
}

impl InfoLine {
    pub fn parse(line: &str) -> InfoLine {
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let mut info = InfoLine::default();
        let number = |i: usize| tokens.get(i).and_then(|t| t.parse::<u64>().ok());
        let mut i = 1;
        while i < tokens.len() {
            match tokens[i] {
                "multipv" => info.multipv = number(i + 1).and_then(|n| u32::try_from(n).ok()),
                "depth" => info.depth = number(i + 1).and_then(|n| u32::try_from(n).ok()),
                "nodes" => info.nodes = number(i + 1),
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
mod tests {
    use super::*;

    #[test]
    fn info_lines_give_every_field_a_gui_shows() {
        let l = InfoLine::parse(
            "info multipv 2 depth 7 seldepth 9 score mate -3 nodes 1234 nps 5 time 56 pv a1b2 c3",
        );
        assert_eq!(
            l,
            InfoLine {
                multipv: Some(2),
                depth: Some(7),
                score: Some(Score::Mate(-3)),
                nodes: Some(1234),
                time_ms: Some(56),
                pv: vec!["a1b2".into(), "c3".into()],
                string: false,
            }
        );
        let l = InfoLine::parse("info string depth 3 score cp 5 pv c3");
        assert!(l.string && l.depth.is_none() && l.pv.is_empty());
        let l = InfoLine::parse("info depth x score cp lowerbound nodes 9");
        assert_eq!((l.depth, l.score, l.nodes), (None, None, Some(9)));
    }
}
