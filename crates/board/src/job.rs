//! One search as the board asks for it, what comes back of it, and the
//! protocol lines both meet as: the lines that start a job on a UGI/UCI
//! engine (the external engines natively, stackfish in the browser's
//! worker) and the reading of the engine's `info` and `bestmove` lines.

use stackfish_engine::protocol::{info_score, InfoLine, Score};
use stackfish_search::Info;

/// One search as the board asks for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Job {
    pub variant: &'static str,
    pub start_fen: String,
    pub moves: Vec<String>,
    /// A new game for the engine when this changes.
    pub round: u64,
    pub limit: JobLimit,
    /// stackfish's `Level` (external engines play at their own strength).
    pub level: u8,
    pub multipv: u8,
    /// A new game for the engine before this search, whatever the round
    /// (its table cleared): a review's first search, so that a review
    /// depends on its game alone.
    pub fresh: bool,
    /// stackfish answers from the host's endgame tables where they cover
    /// the position (a review: exact values); a player's engine and the
    /// analysis search without them.
    pub tables: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JobLimit {
    Move {
        movetime_ms: u64,
        depth: Option<i32>,
    },
    /// Until stopped: analysis.
    Infinite,
    /// This many nodes: one position of a review.
    Nodes { nodes: u64 },
}

impl Job {
    /// `position fen <start> [moves ...]`.
    pub fn position_line(&self) -> String {
        let mut position = format!("position fen {}", self.start_fen);
        if !self.moves.is_empty() {
            position.push_str(" moves ");
            position.push_str(&self.moves.join(" "));
        }
        position
    }

    /// `go movetime T [depth D]`, `go infinite` or `go nodes N`.
    pub fn go_line(&self) -> String {
        match self.limit {
            JobLimit::Move { movetime_ms, depth } => {
                let mut go = format!("go movetime {movetime_ms}");
                if let Some(d) = depth {
                    go.push_str(&format!(" depth {d}"));
                }
                go
            }
            JobLimit::Infinite => "go infinite".to_string(),
            JobLimit::Nodes { nodes } => format!("go nodes {nodes}"),
        }
    }

    /// Sets the number of lines, under the name the engine gave its option.
    pub fn multipv_line(&self, option: &str) -> String {
        format!("setoption name {option} value {}", self.multipv)
    }

    /// Everything stackfish needs to run this job, in order: a new game
    /// when `new_round` or the job is `fresh`, its level and lines (sent
    /// every time: an engine stopped in the browser is a fresh instance),
    /// the position and `go`.
    pub fn stackfish_lines(&self, new_round: bool) -> Vec<String> {
        let mut lines = Vec::new();
        if new_round || self.fresh {
            lines.push("ucinewgame".to_string());
        }
        lines.push(format!("setoption name Level value {}", self.level));
        lines.push(self.multipv_line("MultiPV"));
        lines.push(self.position_line());
        lines.push(self.go_line());
        lines
    }
}

/// One line of an engine's report, as the page shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// 1 for the best line.
    pub multipv: u32,
    pub depth: u32,
    /// From the side to move.
    pub score: Score,
    pub nodes: u64,
    pub time_ms: u64,
    pub pv: Vec<String>,
}

impl Report {
    /// One line of stackfish's own search.
    pub fn from_info(info: &Info) -> Report {
        Report {
            multipv: u32::try_from(info.multipv).unwrap_or(1).max(1),
            depth: info.depth.max(0) as u32,
            score: info_score(info.score),
            nodes: info.nodes,
            time_ms: info.time_ms,
            pv: info.pv.clone(),
        }
    }

    /// What a whole-game review keeps of a search's last best line (the
    /// review crate's `Reviewer::put` takes it).
    pub fn searched(&self) -> stackfish_review::Searched {
        stackfish_review::Searched {
            score: self.score,
            depth: self.depth,
            pv: self.pv.clone(),
            nodes: self.nodes,
        }
    }

    /// An engine's `info` line, if it carries a scored line.
    pub fn from_line(line: &str) -> Option<Report> {
        if line.split_whitespace().next() != Some("info") {
            return None;
        }
        let info = InfoLine::parse(line);
        if info.string {
            return None;
        }
        Some(Report {
            multipv: info.multipv.unwrap_or(1).max(1),
            depth: info.depth.unwrap_or(0),
            score: info.score?,
            nodes: info.nodes.unwrap_or(0),
            time_ms: info.time_ms.unwrap_or(0),
            pv: info.pv,
        })
    }
}

/// What a search ended with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Finish {
    /// The move as the engine sent it: the board referees it.
    Move { mv: String },
    /// The engine saw nothing to play (stackfish on a finished game).
    NoMove(String),
}

/// UCI's word for "no move", which stackfish answers on a finished game.
pub const NO_MOVE: &str = "(none)";

impl Finish {
    /// An engine's `bestmove` line; `None` for any other line. `bestmove`
    /// without a move is read as no move, never as a move named "".
    pub fn from_bestmove(line: &str) -> Option<Finish> {
        let mut tokens = line.split_whitespace();
        if tokens.next() != Some("bestmove") {
            return None;
        }
        Some(match tokens.next() {
            Some(mv) if mv != NO_MOVE => Finish::Move { mv: mv.to_string() },
            _ => Finish::NoMove("the engine sent bestmove (none)".to_string()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use stackfish_engine::protocol::info_line;

    fn job(limit: JobLimit, moves: &[&str]) -> Job {
        Job {
            variant: "mixtour",
            start_fen: "x5/x5/x5/x5/x5 1 20,20 0,0 1 -".to_string(),
            moves: moves.iter().map(|m| m.to_string()).collect(),
            round: 3,
            limit,
            level: 7,
            multipv: 2,
            fresh: false,
            tables: false,
        }
    }

    #[test]
    fn a_job_becomes_the_lines_stackfish_reads() {
        let timed = job(
            JobLimit::Move {
                movetime_ms: 250,
                depth: Some(4),
            },
            &["c3", "d4"],
        );
        assert_eq!(
            timed.stackfish_lines(true),
            [
                "ucinewgame",
                "setoption name Level value 7",
                "setoption name MultiPV value 2",
                "position fen x5/x5/x5/x5/x5 1 20,20 0,0 1 - moves c3 d4",
                "go movetime 250 depth 4",
            ]
        );
        let analysis = job(JobLimit::Infinite, &[]);
        let lines = analysis.stackfish_lines(false);
        assert_eq!(lines[0], "setoption name Level value 7");
        assert_eq!(lines[2], "position fen x5/x5/x5/x5/x5 1 20,20 0,0 1 -");
        assert_eq!(lines[3], "go infinite");
        // A review's first position: a new game for the engine whatever
        // the round, then a bounded search.
        let mut review = job(JobLimit::Nodes { nodes: 50_000 }, &["c3"]);
        review.fresh = true;
        let lines = review.stackfish_lines(false);
        assert_eq!(lines[0], "ucinewgame");
        assert_eq!(lines[4], "go nodes 50000");
        review.fresh = false;
        assert_eq!(review.stackfish_lines(false)[3], "go nodes 50000");
    }

    #[test]
    fn the_lines_stackfish_writes_read_back_as_its_reports() {
        // What the engine formats natively is what the board reads from
        // the engine in the browser.
        let info = Info {
            depth: 9,
            seldepth: 12,
            multipv: 2,
            score: -35,
            nodes: 12_345,
            time_ms: 67,
            hashfull: 3,
            pv: vec!["c3".into(), "b2".into()],
        };
        let line = info_line(&info);
        assert_eq!(Report::from_line(&line), Some(Report::from_info(&info)));
        // What a review keeps of it: the score from the side to move.
        let searched = Report::from_info(&info).searched();
        assert_eq!(searched.score, Score::Cp(-35));
        assert_eq!((searched.depth, searched.nodes), (9, 12_345));
        assert_eq!(searched.pv, ["c3", "b2"]);
        assert_eq!(Report::from_line("info string depth 3 score cp 5"), None);
        assert_eq!(Report::from_line("info depth 3 nodes 9"), None);
        assert_eq!(Report::from_line("bestmove c3"), None);
    }

    #[test]
    fn bestmove_lines_are_moves_or_none() {
        assert_eq!(
            Finish::from_bestmove("bestmove c3 ponder d4"),
            Some(Finish::Move { mv: "c3".into() })
        );
        assert!(matches!(
            Finish::from_bestmove("bestmove (none)"),
            Some(Finish::NoMove(_))
        ));
        assert!(matches!(
            Finish::from_bestmove("bestmove"),
            Some(Finish::NoMove(_))
        ));
        assert_eq!(Finish::from_bestmove("info depth 1 score cp 0 pv c3"), None);
    }
}
