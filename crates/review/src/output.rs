//! A review written out: the annotated PGN (through the record crate's
//! writer, so that its reader reads it back) and the JSON.

use stackfish_games::Side;
use stackfish_record::{GameRecord, MoveNote, MoveRecord};

use crate::judge::{Class, LOST_BELOW};
use crate::review::{PositionReview, Review};

/// The `Site` tag of an annotated game.
pub const SITE: &str = "stackfish analyse";

/// A position's evaluation as PGN's `[%eval]` writes it: pawns from player
/// 1's side (`0.35`), `#3` / `#-3` for a forced win, then the depth.
fn eval_command(p: &PositionReview) -> Option<String> {
    let value = match (p.cp, p.mate) {
        (_, Some(m)) => format!("#{m}"),
        (Some(cp), None) => format!("{:.2}", f64::from(cp) / 100.0),
        (None, None) => return None,
    };
    Some(match p.depth {
        Some(d) => format!("[%eval {value},{d}]"),
        None => format!("[%eval {value}]"),
    })
}

fn side_name(side: Side) -> &'static str {
    match side {
        Side::P1 => "player 1",
        Side::P2 => "player 2",
    }
}

impl Review {
    /// The game as annotated PGN: the record's tags, `Annotator` (`by`),
    /// each player's accuracy; each move with its position's `[%eval]`,
    /// and a classed move with its glyph (`$6` ?!, `$2` ?, `$4` ??), what
    /// it cost, the engine's better move and, as a variation, its line.
    pub fn pgn(&self, by: &str) -> String {
        let record = GameRecord {
            game: 1,
            round: None,
            opening: None,
            event: self.event.clone(),
            date: None,
            variant: self.variant.clone(),
            player1: self.player1.clone(),
            player2: self.player2.clone(),
            fen: Some(self.start_fen.clone()),
            moves: self
                .moves
                .iter()
                .map(|m| MoveRecord {
                    mv: m.mv.clone(),
                    ..MoveRecord::default()
                })
                .collect(),
            result: self.result.clone(),
            termination: match &self.stopped {
                Some(s) => format!("reviewed up to ply {}: {} ({})", s.ply, s.mv, s.error),
                None => self.termination.clone(),
            },
            time_control: None,
            duration_ms: None,
            nodes: None,
            seed: None,
        };
        let accuracy = |a: Option<f64>| a.map_or("?".to_string(), |a| format!("{a:.1}"));
        let tags = [
            ("Annotator", by.to_string()),
            ("Player1Accuracy", accuracy(self.accuracy.p1)),
            ("Player2Accuracy", accuracy(self.accuracy.p2)),
        ];
        let notes: Vec<MoveNote> = self.moves.iter().map(|m| self.move_note(m.ply)).collect();
        let first = self.positions.first().map_or(Side::P1, |p| p.side);
        record.pgn_annotated(SITE, &tags, &notes, first)
    }

    /// The note of move `ply` (from 1).
    fn move_note(&self, ply: usize) -> MoveNote {
        let m = &self.moves[ply - 1];
        let after = &self.positions[ply];
        let mut text: Vec<String> = eval_command(after).into_iter().collect();
        let mut note = MoveNote::default();
        if let Some(class) = m.class {
            note.nags.push(class.nag());
            let before = self.positions[ply - 1].expected;
            if let (Some(b), Some(a), Some(loss)) = (before, after.expected, m.loss) {
                let (b, a) = match m.side {
                    Side::P1 => (b, a),
                    Side::P2 => (1.0 - b, 1.0 - a),
                };
                text.push(format!(
                    "{}: {}'s expected score {b:.2} -> {a:.2} (-{loss:.2}).",
                    class.title(),
                    side_name(m.side)
                ));
            }
            if let Some(best) = &m.best {
                text.push(format!("Better: {best}."));
                note.variations.push(m.line.clone());
            }
        }
        if let Some(d) = self.decisive.as_ref().filter(|d| d.ply == ply) {
            text.push(format!(
                "Decisive mistake: {}'s expected score stays below {LOST_BELOW:.2} from here.",
                side_name(d.side)
            ));
        }
        if !text.is_empty() {
            note.comments.push(text.join(" "));
        }
        note
    }

    /// The review as one JSON value (protocol.md, `stackfish analyse --json`).
    pub fn json(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or_else(|e| {
            // Only non-finite numbers could fail, and the review makes none.
            serde_json::json!({ "error": format!("cannot encode the review: {e}") })
        })
    }

    /// How many moves of each class each side made: `[p1, p2]`, each
    /// `[inaccuracies, mistakes, blunders]`.
    pub fn counts(&self) -> [[usize; 3]; 2] {
        let mut counts = [[0; 3]; 2];
        for m in &self.moves {
            if let Some(c) = m.class {
                let k = match c {
                    Class::Inaccuracy => 0,
                    Class::Mistake => 1,
                    Class::Blunder => 2,
                };
                counts[m.side.index()][k] += 1;
            }
        }
        counts
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::ReviewGame;
    use crate::model::Model;
    use crate::review::{Reviewer, Searched};
    use stackfish_record::parse_pgn;
    use stackfish_ugi::Score;

    /// A Castle game of 12 plies that player 2 won by taking player 1's key.
    const CASTLE_WIN: &str = "g7h7 g12g11 j8j7 j18g18 g8g5 g11i11 i8j8 k12l12 j2k2 l12l5 k2k3 l5j5";

    fn reviewed() -> Review {
        let moves: Vec<&str> = CASTLE_WIN.split(' ').collect();
        let mut reviewer = Reviewer::new(ReviewGame::from_moves("castle", None, &moves).unwrap());
        while let Some(task) = reviewer.next_task() {
            let (score, pv) = match task.index {
                11 => (Score::Mate(1), vec!["l5j5"]),
                10 => (Score::Cp(15), vec!["g5g4", "l5j5"]),
                i if i % 2 == 0 => (Score::Cp(15), vec![]),
                _ => (Score::Cp(-15), vec![]),
            };
            reviewer.put(Searched {
                score,
                depth: 4,
                pv: pv.into_iter().map(str::to_string).collect(),
                nodes: 1,
            });
        }
        reviewer.finish(Model { k: 100.0 })
    }

    #[test]
    fn the_annotated_game_reads_back_to_the_same_positions() {
        let review = reviewed();
        let pgn = review.pgn("test");
        let back = parse_pgn(&pgn).unwrap();
        let replayed = ReviewGame::from_record(&back.record, Some("castle")).unwrap();
        let original: Vec<&str> = review.positions.iter().map(|p| p.fen.as_str()).collect();
        assert_eq!(replayed.fens, original);
        assert_eq!(back.record.result, "0-1");
        // Player 1 was +15 in every position it moved from, player 2 -15
        // for itself: player 1's +0.15 after each of player 2's moves.
        assert_eq!(back.notes[1].comments[0], "[%eval 0.15,4]");
        assert_eq!(back.notes[0].comments[0], "[%eval 0.15,4]");
        // The blunder: its glyph, what it cost, the better move's line.
        let blunder = &back.notes[10];
        assert_eq!(blunder.nags, [4]);
        assert!(
            blunder.comments[0].starts_with("[%eval #-1,4] Blunder: player 1's expected score 0.54 -> 0.00 (-0.54). Better: g5g4. Decisive mistake"),
            "{}",
            blunder.comments[0]
        );
        assert_eq!(
            blunder.variations,
            [vec!["g5g4".to_string(), "l5j5".to_string()]]
        );
        // The last position is the result: no evaluation after the winning move.
        assert!(back.notes[11].comments.is_empty());
        let tag = |name: &str| {
            back.tags
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
        };
        assert_eq!(tag("Annotator").as_deref(), Some("test"));
        assert_eq!(tag("Player2Accuracy").as_deref(), Some("100.0"));
    }

    #[test]
    fn the_json_reads_back_as_the_review() {
        let review = reviewed();
        let text = review.json().to_string();
        let back: Review = serde_json::from_str(&text).unwrap();
        assert_eq!(back, review);
        assert_eq!(review.counts(), [[0, 0, 1], [0, 0, 0]]);
    }
}
