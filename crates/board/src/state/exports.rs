//! What leaves the board as files: the game record, the shipped boards
//! offered, the position as StackAndConquer files.

use super::super::files::{self, BoardsView, Export};
use super::{lock, App, Player, State};
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
        let outcome = st.game.outcome();
        self.game_record(&st, st.game.moves(), Some(outcome))
            .pgn_at("stackfish serve")
    }

    /// The record of the game from its start with `moves` (the line's,
    /// from its first), each with what its engine said; `outcome`: how the
    /// last position stands, if known (else unterminated).
    pub(super) fn game_record(
        &self,
        st: &State,
        moves: Vec<String>,
        outcome: Option<Outcome>,
    ) -> GameRecord {
        let name = |p: &Option<Player>| p.as_ref().map_or("Human".to_string(), Player::name);
        let moves = moves
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
        let round = u32::try_from(st.round).unwrap_or(u32::MAX);
        GameRecord {
            game: round,
            round: Some(round),
            opening: Some(0),
            event: "stackfish web game".to_string(),
            date: Some(st.date.clone()),
            variant: st.game.variant_name().to_string(),
            player1: name(&st.players[0]),
            player2: name(&st.players[1]),
            fen: Some(st.game.start_fen()),
            moves,
            result: outcome
                .and_then(|o| o.result())
                .map_or("*", |r| r.pgn())
                .to_string(),
            termination: match outcome {
                Some(Outcome::Over { reason, .. }) => reason.to_string(),
                _ => "unterminated".to_string(),
            },
            time_control: Some(String::new()),
            duration_ms: Some(0),
            nodes: None,
            seed: None,
        }
    }
}
