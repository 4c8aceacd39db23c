//! What leaves the board as files: the game record, the shipped boards
//! offered, the position as StackAndConquer files.

use super::super::files::{self, BoardsView, Export};
use super::{lock, App, Player};
use crate::error::ApiError;
use stackfish_engine::protocol::Score;
use stackfish_games::Outcome;
use stackfish_record::{GameRecord, MoveRecord};

impl App {
    /// The shipped boards, for `GET /api/boards`.
    pub fn boards(&self) -> BoardsView {
        self.shipped.view()
    }

    /// The position shown as StackAndConquer files.
    pub fn export(&self) -> Result<Export, ApiError> {
        let st = lock(&self.state);
        files::export(
            &self.shipped,
            st.game.variant_name(),
            &st.game.fen(),
            st.ply(),
        )
    }

    /// The game record up to the position shown, in the arena's format.
    pub fn record(&self) -> String {
        let st = lock(&self.state);
        let name = |p: &Option<Player>| p.as_ref().map_or("Human".to_string(), Player::name);
        let outcome = st.game.outcome();
        let moves = st
            .game
            .moves()
            .into_iter()
            .enumerate()
            .map(|(i, mv)| {
                let note = st.notes.get(i).copied().flatten();
                let score = note.and_then(|n| n.score);
                MoveRecord {
                    mv,
                    book: false,
                    cp: match score {
                        Some(Score::Cp(v)) => Some(v),
                        _ => None,
                    },
                    mate: match score {
                        Some(Score::Mate(n)) => Some(n),
                        _ => None,
                    },
                    depth: note.map(|n| n.depth),
                    ms: note.map(|n| n.ms),
                }
            })
            .collect();
        let record = GameRecord {
            game: u32::try_from(st.round).unwrap_or(u32::MAX),
            round: Some(u32::try_from(st.round).unwrap_or(u32::MAX)),
            opening: Some(0),
            event: "stackfish web game".to_string(),
            date: Some(st.date.clone()),
            variant: st.game.variant_name().to_string(),
            player1: name(&st.players[0]),
            player2: name(&st.players[1]),
            fen: Some(st.game.start_fen()),
            moves,
            result: outcome.result().map_or("*", |r| r.pgn()).to_string(),
            termination: match outcome {
                Outcome::Over { reason, .. } => reason.to_string(),
                Outcome::Ongoing => "unterminated".to_string(),
            },
            time_control: Some(String::new()),
            duration_ms: Some(0),
            nodes: None,
            seed: None,
        };
        record.pgn_at("stackfish serve")
    }
}
