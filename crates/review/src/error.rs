//! Why a game cannot be reviewed.

/// A record that cannot be reviewed at all (a bad move is not one: the
/// review goes up to it, `ReviewGame::stopped`).
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ReviewError {
    #[error("unknown variant {name:?}; known: {known}")]
    UnknownVariant { name: String, known: String },
    #[error("the game is {found}, not {named} as named")]
    OtherVariant { named: String, found: String },
    #[error("start position {fen:?}: {why}")]
    Fen { fen: String, why: String },
}
