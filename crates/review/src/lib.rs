//! Reviewing a whole game, apart from any engine: what a score is worth
//! (`model`: the expected score per game), how bad a move was and how
//! accurate a player (`judge`: plain functions over a game's sequence of
//! expected scores, for the board's live marks too), the game replayed
//! into its positions (`game`), the searches a review needs in their
//! order and the review they make (`review`: a `Reviewer` its user feeds
//! with whatever engine it drives, or `review` over an `Evaluator`), and
//! the review written out (`output`: annotated PGN, JSON).
//!
//! The engine in this process (`stackfish analyse`, Python), an engine
//! as a child process (`arena analyse`) and the browser board's host all
//! drive the same `Reviewer`, so the order, the model, the classes and the
//! outputs are one code. The crate uses the rules and the record only,
//! and builds for `wasm32-unknown-unknown`.

pub mod error;
pub mod game;
pub mod judge;
pub mod model;
pub mod output;
pub mod review;

pub use error::ReviewError;
pub use game::{ReviewGame, Stopped};
pub use judge::{
    accuracy, class_of, classes, decisive_mistake, losses, move_accuracy, Accuracy, Class, BLUNDER,
    INACCURACY, LOST_BELOW, MISTAKE,
};
pub use model::{Model, FITTED_K};
pub use review::{
    review, Decisive, Evaluator, MoveReview, PositionReview, Review, Reviewer, Searched, Task,
};
