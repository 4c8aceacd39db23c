//! A game to review: its record replayed by the rules into the positions
//! the engine searches, up to the first move that cannot be played.

use serde::{Deserialize, Serialize};
use stackfish_games::{variants, AnyGame, GameResult, Outcome, Side};
use stackfish_record::{parse_result, GameRecord, MoveRecord};

use crate::error::ReviewError;

/// The first move of a record that could not be played: the review goes
/// up to the position before it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stopped {
    /// The move's number in plies, from 1.
    pub ply: usize,
    #[serde(rename = "move")]
    pub mv: String,
    /// Why the rules refused it.
    pub error: String,
}

/// A game replayed: every position and who is to move in it.
#[derive(Clone, Debug)]
pub struct ReviewGame {
    /// The variant's name (`mixtour`, `silo-8`, ...).
    pub variant: &'static str,
    pub start_fen: String,
    /// The moves played, as the rules write them.
    pub moves: Vec<String>,
    /// The position string of each position, `moves.len() + 1` of them.
    pub fens: Vec<String>,
    /// The side to move in each position.
    pub sides: Vec<Side>,
    /// How the last position stands by the rules.
    pub outcome: Outcome,
    /// The game's result: the rules' when its last position is over, else
    /// the record's (an adjudication, a loss on time), if it has one; none
    /// when the review stopped at a move that could not be played.
    pub result: Option<GameResult>,
    pub stopped: Option<Stopped>,
    /// The record it came from (its header: players, event, date), with
    /// the moves as replayed.
    pub record: GameRecord,
}

/// The variant a record is of: `""` is standard Mixtour, as the records
/// have always meant it.
fn variant_of(record: &GameRecord) -> &str {
    if record.variant.trim().is_empty() {
        "mixtour"
    } else {
        record.variant.trim()
    }
}

impl ReviewGame {
    /// The game of `record`, replayed from its start (`fen`: none or
    /// `startpos` is the variant's start) up to its first move that cannot
    /// be played ([`ReviewGame::stopped`]). `named`: the variant the
    /// caller expects (a record of another is an error). Errors: an
    /// unknown variant, another variant than named, a start position that
    /// does not read.
    pub fn from_record(
        record: &GameRecord,
        named: Option<&str>,
    ) -> Result<ReviewGame, ReviewError> {
        let name = variant_of(record);
        let mut game = variants::new_game(name).ok_or_else(|| ReviewError::UnknownVariant {
            name: name.to_string(),
            known: variants::variant_names().join(", "),
        })?;
        if let Some(named) = named {
            let want = variants::new_game(named).ok_or_else(|| ReviewError::UnknownVariant {
                name: named.to_string(),
                known: variants::variant_names().join(", "),
            })?;
            if want.variant_name() != game.variant_name() {
                return Err(ReviewError::OtherVariant {
                    named: want.variant_name().to_string(),
                    found: game.variant_name().to_string(),
                });
            }
        }
        let fen = record
            .fen
            .as_deref()
            .map(str::trim)
            .filter(|f| !f.is_empty() && *f != "startpos");
        if let Some(fen) = fen {
            game.set_position(Some(fen), &[])
                .map_err(|e| ReviewError::Fen {
                    fen: fen.to_string(),
                    why: e.to_string(),
                })?;
        }
        let start_fen = game.fen();
        let mut fens = vec![start_fen.clone()];
        let mut sides = vec![game.side_to_move()];
        let mut moves = Vec::new();
        let mut stopped = None;
        for (i, m) in record.moves.iter().enumerate() {
            if let Outcome::Over { reason, .. } = game.outcome() {
                stopped = Some(Stopped {
                    ply: i + 1,
                    mv: m.mv.clone(),
                    error: format!("the game was already over ({reason})"),
                });
                break;
            }
            match game.play_text(m.mv.trim()) {
                Ok(canonical) => moves.push(canonical),
                Err(e) => {
                    stopped = Some(Stopped {
                        ply: i + 1,
                        mv: m.mv.clone(),
                        error: e.to_string(),
                    });
                    break;
                }
            }
            fens.push(game.fen());
            sides.push(game.side_to_move());
        }
        let outcome = game.outcome();
        let result = match (outcome, &stopped) {
            (Outcome::Over { result, .. }, _) => Some(result),
            (Outcome::Ongoing, None) => parse_result(record.result.trim()),
            (Outcome::Ongoing, Some(_)) => None,
        };
        let mut record = record.clone();
        record.variant = game.variant_name().to_string();
        record.moves = record
            .moves
            .iter()
            .zip(&moves)
            .map(|(m, canonical)| MoveRecord {
                mv: canonical.clone(),
                ..m.clone()
            })
            .collect();
        Ok(ReviewGame {
            variant: game.variant_name(),
            start_fen,
            moves,
            fens,
            sides,
            outcome,
            result,
            stopped,
            record,
        })
    }

    /// The game of variant `variant` from `fen` (none: its start) with
    /// `moves`, as `--fen` and `--moves` give it.
    pub fn from_moves(
        variant: &str,
        fen: Option<&str>,
        moves: &[&str],
    ) -> Result<ReviewGame, ReviewError> {
        let record = GameRecord {
            game: 1,
            round: None,
            opening: None,
            event: String::new(),
            date: None,
            variant: variant.to_string(),
            player1: String::new(),
            player2: String::new(),
            fen: fen.map(str::to_string),
            moves: moves
                .iter()
                .map(|m| MoveRecord {
                    mv: m.to_string(),
                    ..MoveRecord::default()
                })
                .collect(),
            result: "*".to_string(),
            termination: String::new(),
            time_control: None,
            duration_ms: None,
            nodes: None,
            seed: None,
        };
        ReviewGame::from_record(&record, None)
    }

    /// Positions in the game.
    pub fn len(&self) -> usize {
        self.fens.len()
    }

    /// Never: a game has at least its start position.
    pub fn is_empty(&self) -> bool {
        self.fens.is_empty()
    }

    /// The game at position `index` (after `index` moves), for replaying an
    /// engine's line from it.
    pub fn position(&self, index: usize) -> Option<Box<dyn AnyGame>> {
        let mut game = variants::new_game(self.variant)?;
        let moves: Vec<&str> = self
            .moves
            .get(..index)?
            .iter()
            .map(String::as_str)
            .collect();
        game.set_position(Some(&self.start_fen), &moves).ok()?;
        Some(game)
    }

    /// Whether position `index` ends the game by the rules.
    pub fn is_over_at(&self, index: usize) -> bool {
        index + 1 == self.fens.len() && self.outcome.is_over()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_replays_up_to_its_first_bad_move() {
        let g = ReviewGame::from_moves("mixtour", None, &["c3", "d4", "zz", "e5"]).unwrap();
        assert_eq!(g.moves, ["c3", "d4"]);
        assert_eq!(g.fens.len(), 3);
        assert_eq!(g.sides, [Side::P1, Side::P2, Side::P1]);
        let stopped = g.stopped.unwrap();
        assert_eq!((stopped.ply, stopped.mv.as_str()), (3, "zz"));
        assert!(
            stopped.error.starts_with("malformed move"),
            "{}",
            stopped.error
        );
        assert_eq!(g.result, None);
        // A move that is well formed but illegal: said so.
        let g = ReviewGame::from_moves("mixtour", None, &["c3", "c3"]).unwrap();
        assert!(g.stopped.unwrap().error.starts_with("illegal move"));
    }

    #[test]
    fn the_start_variant_and_result_come_from_the_record() {
        let fen = "x5/x5/x5/x5/x5 2 20,20 0,0 1 -";
        let g = ReviewGame::from_moves("mixtour", Some(fen), &["c3"]).unwrap();
        assert_eq!(g.start_fen, fen);
        assert_eq!(g.sides, [Side::P2, Side::P1]);
        let mut record = g.record.clone();
        record.result = "0-1".into();
        record.variant = String::new();
        let g = ReviewGame::from_record(&record, Some("mixtour")).unwrap();
        assert_eq!(g.result, Some(GameResult::P2Win));
        let e = ReviewGame::from_record(&record, Some("silo")).unwrap_err();
        assert_eq!(e.to_string(), "the game is mixtour, not silo as named");
        record.variant = "chess".into();
        let e = ReviewGame::from_record(&record, None)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("unknown variant \"chess\"; known: mixtour, "),
            "{e}"
        );
        let e = ReviewGame::from_moves("silo", Some("nonsense"), &[])
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("start position \"nonsense\": "), "{e}");
    }
}
