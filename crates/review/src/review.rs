//! The review of a whole game: which positions to search and in what
//! order ([`Reviewer`], a plan its user feeds the engine's answers into,
//! with whatever engine and transport it has), and the review they make
//! ([`Review`]: every position's evaluation, every move's loss, class and
//! the better move, each side's accuracy, the decisive mistake).
//!
//! The positions are searched from the last back to the first, as lichess
//! does, so that an engine keeping its transposition table between the
//! searches carries what it learnt of the end of the game back to its
//! beginning. A finished game's last position is not searched: its value
//! is the result.

use serde::{Deserialize, Serialize};
use stackfish_games::{GameResult, Side};
use stackfish_ugi::Score;

use crate::game::{ReviewGame, Stopped};
use crate::judge::{self, Accuracy, Class};
use crate::model::Model;

/// What an engine said of one position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Searched {
    /// From the side to move.
    pub score: Score,
    pub depth: u32,
    /// The best line, the best move first (checked against the rules when
    /// it is put in: it keeps its legal start only).
    pub pv: Vec<String>,
    pub nodes: u64,
}

/// One search the review needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Task<'a> {
    /// The position's index: after this many moves.
    pub index: usize,
    pub variant: &'static str,
    /// The game's start and the moves up to the position, so that an
    /// engine sees its history (repetitions).
    pub start_fen: &'a str,
    pub moves: &'a [String],
    /// The position itself.
    pub fen: &'a str,
    pub side: Side,
}

impl Task<'_> {
    /// `position fen <start> [moves ...]`, as UGI and UCI engines read it.
    pub fn position_line(&self) -> String {
        let mut line = format!("position fen {}", self.start_fen);
        if !self.moves.is_empty() {
            line.push_str(" moves ");
            line.push_str(&self.moves.join(" "));
        }
        line
    }
}

/// What searches the positions of a review: an engine in this process,
/// one spoken to as a child process, the browser's worker.
pub trait Evaluator {
    type Error;
    fn evaluate(&mut self, task: &Task) -> Result<Searched, Self::Error>;
}

/// The plan of a review and the answers so far.
#[derive(Clone, Debug)]
pub struct Reviewer {
    game: ReviewGame,
    evals: Vec<Option<Searched>>,
    /// Position indices to search, in order: the last first.
    order: Vec<usize>,
    done: usize,
}

impl Reviewer {
    pub fn new(game: ReviewGame) -> Reviewer {
        let order = (0..game.len())
            .rev()
            .filter(|&i| !game.is_over_at(i))
            .collect();
        Reviewer {
            evals: vec![None; game.len()],
            game,
            order,
            done: 0,
        }
    }

    pub fn game(&self) -> &ReviewGame {
        &self.game
    }

    /// Searches in all.
    pub fn total(&self) -> usize {
        self.order.len()
    }

    /// Searches answered.
    pub fn done(&self) -> usize {
        self.done
    }

    /// The next search, `None` when all are answered.
    pub fn next_task(&self) -> Option<Task<'_>> {
        let &index = self.order.get(self.done)?;
        Some(Task {
            index,
            variant: self.game.variant,
            start_fen: &self.game.start_fen,
            moves: &self.game.moves[..index],
            fen: &self.game.fens[index],
            side: self.game.sides[index],
        })
    }

    /// The answer to [`Reviewer::next_task`]; its line is cut at its first
    /// move the rules refuse (an engine's garbage never reaches the
    /// review). Nothing when every search is answered.
    pub fn put(&mut self, mut searched: Searched) {
        let Some(&index) = self.order.get(self.done) else {
            return;
        };
        if let Some(mut game) = self.game.position(index) {
            let legal = searched
                .pv
                .iter()
                .take_while(|mv| !game.outcome().is_over() && game.play_text(mv).is_ok())
                .count();
            searched.pv.truncate(legal);
        } else {
            searched.pv.clear();
        }
        self.evals[index] = Some(searched);
        self.done += 1;
    }

    /// The review of what was answered (all of it, or up to a cancel:
    /// positions not searched are unknown, their moves not judged).
    pub fn finish(self, model: Model) -> Review {
        Review::new(self.game, self.evals, model)
    }
}

/// Searches every position of `game` with `evaluator`, calling `progress`
/// with (done, total) after each, and reviews it; the evaluator's first
/// error ends it.
pub fn review<E: Evaluator>(
    game: ReviewGame,
    model: Model,
    evaluator: &mut E,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Review, E::Error> {
    let mut reviewer = Reviewer::new(game);
    progress(0, reviewer.total());
    while let Some(task) = reviewer.next_task() {
        let searched = evaluator.evaluate(&task)?;
        reviewer.put(searched);
        progress(reviewer.done(), reviewer.total());
    }
    Ok(reviewer.finish(model))
}

/// `p1` / `p2` in the review's JSON.
mod side_name {
    use serde::{Deserialize, Deserializer, Serializer};
    use stackfish_games::Side;

    pub fn serialize<S: Serializer>(side: &Side, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(match side {
            Side::P1 => "p1",
            Side::P2 => "p2",
        })
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Side, D::Error> {
        match String::deserialize(d)?.as_str() {
            "p1" => Ok(Side::P1),
            "p2" => Ok(Side::P2),
            other => Err(serde::de::Error::custom(format!(
                "side {other:?}: p1 or p2"
            ))),
        }
    }
}

/// One position of the reviewed game. Scores are player 1's, as on the
/// board's graph.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PositionReview {
    /// Moves played before it.
    pub ply: usize,
    pub fen: String,
    /// The side to move.
    #[serde(with = "side_name")]
    pub side: Side,
    /// Centi-units, positive when player 1 is better; none with `mate`.
    pub cp: Option<i32>,
    /// A forced win in so many moves, positive for player 1.
    pub mate: Option<i32>,
    /// Player 1's expected score (0 to 1); none for a position not searched.
    pub expected: Option<f64>,
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    /// The engine's best line from here, its best move first.
    pub pv: Vec<String>,
    /// The game is over here: its result (`1-0`, `0-1`, `1/2-1/2`).
    pub over: Option<String>,
}

/// One move of the reviewed game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MoveReview {
    /// The move's number in plies, from 1: it leads from position `ply -
    /// 1` to position `ply`.
    pub ply: usize,
    #[serde(rename = "move")]
    pub mv: String,
    #[serde(with = "side_name")]
    pub side: Side,
    /// The expected score it cost its player (0 to 1).
    pub loss: Option<f64>,
    pub class: Option<Class>,
    /// Its accuracy (0 to 100).
    pub accuracy: Option<f64>,
    /// The engine's best move in the position before, when it is not the
    /// move played, and its line from that position.
    pub best: Option<String>,
    pub line: Vec<String>,
}

/// The move after which the loser never recovered (`judge::decisive_mistake`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Decisive {
    /// The move's number in plies, from 1.
    pub ply: usize,
    #[serde(rename = "move")]
    pub mv: String,
    #[serde(with = "side_name")]
    pub side: Side,
    /// The position it was played in, to reproduce it.
    pub fen: String,
    /// The loser's expected score before and after it.
    pub before: Option<f64>,
    pub after: Option<f64>,
    pub class: Option<Class>,
    /// The engine's better move there, if it named another.
    pub best: Option<String>,
}

/// A reviewed game (the JSON of `stackfish analyse --json`, protocol.md).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Review {
    pub variant: String,
    pub start_fen: String,
    /// The model's scale for the game (centi-units).
    pub k: f64,
    pub event: String,
    pub player1: String,
    pub player2: String,
    /// The game's result: `1-0`, `0-1`, `1/2-1/2`, `*` (unfinished, or
    /// reviewed only up to a move that could not be played).
    pub result: String,
    pub termination: String,
    pub positions: Vec<PositionReview>,
    pub moves: Vec<MoveReview>,
    pub accuracy: Accuracy,
    pub decisive: Option<Decisive>,
    /// The first move of the record that could not be played.
    pub stopped: Option<Stopped>,
}

impl Review {
    fn new(game: ReviewGame, evals: Vec<Option<Searched>>, model: Model) -> Review {
        let over = |i: usize| game.is_over_at(i).then(|| game.outcome.result()).flatten();
        // Player 1's expected score in each position.
        let expected: Vec<Option<f64>> = (0..game.len())
            .map(|i| match (over(i), &evals[i]) {
                (Some(result), _) => Some(match result {
                    GameResult::P1Win => 1.0,
                    GameResult::P2Win => 0.0,
                    GameResult::Draw => 0.5,
                }),
                (None, Some(s)) => Some(judge::for_side(model.expected(s.score), game.sides[i])),
                (None, None) => None,
            })
            .collect();
        let movers = &game.sides[..game.moves.len()];
        let losses = judge::losses(&expected, movers);
        let positions = (0..game.len())
            .map(|i| {
                let sign = if game.sides[i] == Side::P1 { 1 } else { -1 };
                let s = evals[i].as_ref();
                let (cp, mate) = match s.map(|s| s.score) {
                    Some(Score::Cp(v)) => (Some(sign * v), None),
                    Some(Score::Mate(0)) => (None, Some(-sign)),
                    Some(Score::Mate(n)) => (None, Some(sign * n)),
                    None => (None, None),
                };
                PositionReview {
                    ply: i,
                    fen: game.fens[i].clone(),
                    side: game.sides[i],
                    cp,
                    mate,
                    expected: expected[i],
                    depth: s.map(|s| s.depth),
                    nodes: s.map(|s| s.nodes),
                    pv: s.map_or_else(Vec::new, |s| s.pv.clone()),
                    over: over(i).map(|r| r.pgn().to_string()),
                }
            })
            .collect::<Vec<_>>();
        let moves: Vec<MoveReview> = game
            .moves
            .iter()
            .enumerate()
            .map(|(i, mv)| {
                let line = evals[i].as_ref().map_or(&[][..], |s| &s.pv[..]);
                let best = line.first().filter(|b| *b != mv).cloned();
                // A move the engine itself names best is not its player's
                // mistake, whatever the next search says: the engine saw no
                // better, and a drop is its own horizon.
                let loss = losses[i];
                let class = loss.and_then(judge::class_of).filter(|_| best.is_some());
                MoveReview {
                    ply: i + 1,
                    mv: mv.clone(),
                    side: movers[i],
                    loss,
                    class,
                    accuracy: loss.map(judge::move_accuracy),
                    line: if best.is_some() {
                        line.to_vec()
                    } else {
                        Vec::new()
                    },
                    best,
                }
            })
            .collect();
        let accuracy = judge::accuracy(&expected, movers);
        let decisive = game
            .result
            .and_then(|r| r.winner())
            .map(Side::opponent)
            .and_then(|loser| {
                let i = judge::decisive_mistake(&expected, movers, loser)?;
                let m = &moves[i];
                Some(Decisive {
                    ply: m.ply,
                    mv: m.mv.clone(),
                    side: loser,
                    fen: game.fens[i].clone(),
                    before: expected[i].map(|e| judge::for_side(e, loser)),
                    after: expected[i + 1].map(|e| judge::for_side(e, loser)),
                    class: m.class,
                    best: m.best.clone(),
                })
            });
        let result = match (&game.stopped, game.result) {
            (Some(_), _) | (None, None) => "*".to_string(),
            (None, Some(r)) => r.pgn().to_string(),
        };
        Review {
            variant: game.variant.to_string(),
            start_fen: game.start_fen.clone(),
            k: model.k,
            event: game.record.event.clone(),
            player1: game.record.player1.clone(),
            player2: game.record.player2.clone(),
            result,
            termination: game.record.termination.clone(),
            positions,
            moves,
            accuracy,
            decisive,
            stopped: game.stopped,
        }
    }

    /// The expected scores of the positions (player 1's), for the graph.
    pub fn expected(&self) -> Vec<Option<f64>> {
        self.positions.iter().map(|p| p.expected).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An engine that answers from a table: position index -> (score from
    /// the side to move, its line).
    struct Table(Vec<(Score, Vec<&'static str>)>, Vec<usize>);

    impl Evaluator for Table {
        type Error = String;
        fn evaluate(&mut self, task: &Task) -> Result<Searched, String> {
            self.1.push(task.index);
            let (score, pv) = self.0.get(task.index).cloned().ok_or("no answer")?;
            Ok(Searched {
                score,
                depth: 5,
                pv: pv.iter().map(|m| m.to_string()).collect(),
                nodes: 100,
            })
        }
    }

    #[test]
    fn positions_are_searched_last_first_and_the_moves_judged() {
        let game = ReviewGame::from_moves("mixtour", None, &["c3", "d4", "b2"]).unwrap();
        let mut engine = Table(
            vec![
                (Score::Cp(0), vec!["c3", "d4"]),
                // Player 2 to move, 0 for them: the move c3 lost nothing.
                (Score::Cp(0), vec!["b4", "nonsense", "c2"]),
                // Player 1 to move: +200 for them after d4, a blunder of
                // player 2's, the better move b4 and its legal start.
                (Score::Cp(200), vec!["b2"]),
                (Score::Mate(-2), vec![]),
            ],
            Vec::new(),
        );
        let mut seen = Vec::new();
        let review = review(game, Model { k: 100.0 }, &mut engine, &mut |d, t| {
            seen.push((d, t))
        })
        .unwrap();
        assert_eq!(engine.1, [3, 2, 1, 0]);
        assert_eq!(seen, [(0, 4), (1, 4), (2, 4), (3, 4), (4, 4)]);
        let classes: Vec<Option<Class>> = review.moves.iter().map(|m| m.class).collect();
        // b2 was the engine's own best, and won.
        assert_eq!(classes, [None, Some(Class::Blunder), None]);
        assert_eq!(review.moves[1].best.as_deref(), Some("b4"));
        assert_eq!(review.moves[1].line, ["b4"]);
        assert_eq!(review.moves[2].best, None);
        assert_eq!(review.positions[3].mate, Some(2));
        assert_eq!(review.positions[3].expected, Some(1.0));
        assert_eq!(review.positions[2].cp, Some(200));
        assert_eq!(review.result, "*");
        assert_eq!(review.decisive, None);
    }

    /// A Castle game of 12 plies that player 2 won by taking player 1's key
    /// (a self-play game of `stackfish datagen`).
    const CASTLE_WIN: [&str; 12] = [
        "g7h7", "g12g11", "j8j7", "j18g18", "g8g5", "g11i11", "i8j8", "k12l12", "j2k2", "l12l5",
        "k2k3", "l5j5",
    ];

    #[test]
    fn a_finished_games_last_position_is_its_result_and_not_searched() {
        let game = ReviewGame::from_moves("castle", None, &CASTLE_WIN).unwrap();
        assert_eq!(game.result, Some(GameResult::P2Win));
        let mut reviewer = Reviewer::new(game);
        assert_eq!(reviewer.total(), 12);
        let first = reviewer.next_task().unwrap();
        assert_eq!(first.index, 11);
        assert_eq!(first.moves.len(), 11);
        assert!(first
            .position_line()
            .ends_with(" moves g7h7 g12g11 j8j7 j18g18 g8g5 g11i11 i8j8 k12l12 j2k2 l12l5 k2k3"));
        // Level all along until player 1's last move lets the key go: the
        // engine finds player 2's win in one after it, and names another
        // move for player 1 before it.
        while let Some(task) = reviewer.next_task() {
            let (score, best) = match task.index {
                11 => (Score::Mate(1), "l5j5"),
                10 => (Score::Cp(0), "g5g4"),
                _ => (Score::Cp(0), "not-a-move"),
            };
            reviewer.put(Searched {
                score,
                depth: 3,
                pv: vec![best.to_string()],
                nodes: 10,
            });
        }
        let review = reviewer.finish(Model { k: 100.0 });
        assert_eq!(review.positions[12].over.as_deref(), Some("0-1"));
        assert_eq!(review.positions[12].expected, Some(0.0));
        assert_eq!(review.positions[12].depth, None);
        // Player 2's winning move lost nothing; player 1's before it was
        // a blunder, the decisive one, with the better move the engine named.
        assert_eq!(review.moves[11].class, None);
        assert_eq!(review.moves[10].class, Some(Class::Blunder));
        assert_eq!(review.moves[10].best.as_deref(), Some("g5g4"));
        // The other lines did not read: no better move is named.
        assert!(review.moves[..10]
            .iter()
            .all(|m| m.best.is_none() && m.class.is_none()));
        let decisive = review.decisive.unwrap();
        assert_eq!(
            (decisive.ply, decisive.mv.as_str(), decisive.side),
            (11, "k2k3", Side::P1)
        );
        assert_eq!(decisive.before, Some(0.5));
        assert_eq!(review.result, "0-1");
        assert_eq!(review.accuracy.p2, Some(100.0));
        assert!(review.accuracy.p1.unwrap() < 90.0);
    }
}
