//! A webhook's body once its signature has verified: AP's notification,
//! read and checked without I/O. The server answers with these checks, and
//! the fuzz target (fuzz/fuzz_targets/apbot_webhook.rs) calls them as the
//! server does.

use serde::Deserialize;

use crate::games::{replay, ApGame, PlayError, Replayed};
use crate::state::JobKey;

/// One notification as AP posts it (protocol.md, "stackfish apbot").
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Notification {
    pub verb: String,
    pub meta_game: Option<String>,
    #[serde(default)]
    pub variants: Vec<String>,
    pub gameid: Option<String>,
    pub clock_curr: Option<f64>,
    #[serde(default)]
    pub moves: Vec<Vec<String>>,
}

/// Why a move notification is refused (400), as the log line says it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MoveRefused {
    #[error(transparent)]
    Game(PlayError),
    #[error("missing or malformed gameid")]
    GameId,
    #[error("history refused: {0}")]
    History(PlayError),
}

impl Notification {
    /// The body's JSON as a notification.
    pub fn read(body: &[u8]) -> Result<Notification, serde_json::Error> {
        serde_json::from_slice(body)
    }

    /// The game the notification names (a challenge's, or a move's).
    pub fn game(&self) -> Result<ApGame, PlayError> {
        ApGame::from_challenge(
            self.meta_game.as_deref().unwrap_or_default(),
            &self.variants,
        )
    }

    /// AP's history, every player's moves in order.
    pub fn flat_moves(&self) -> Vec<String> {
        self.moves.iter().flatten().cloned().collect()
    }

    /// A move notification checked: the key it is stored under and the
    /// position its history reaches.
    pub fn check_move(&self) -> Result<(JobKey, Replayed), MoveRefused> {
        let game = self.game().map_err(MoveRefused::Game)?;
        let moves = self.flat_moves();
        let key = self
            .gameid
            .as_deref()
            .and_then(|g| JobKey::new(g, moves.len()))
            .ok_or(MoveRefused::GameId)?;
        let replayed = replay(game, &moves).map_err(MoveRefused::History)?;
        Ok((key, replayed))
    }
}
