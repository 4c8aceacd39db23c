//! stackfish: rules, search, engine protocol and match runner for stacking
//! board games — Mixtour first, and its siblings.
//!
//! This crate holds the two binaries and re-exports the workspace's crates
//! under the names the binaries, the black-box tests and scripts use; each
//! layer is its own crate (docs/architecture.md).
//!
//! ```
//! use stackfish::game::{mixtour::{Mixtour, MixtourVariant}, perft, Game};
//! let start = Mixtour::start(&MixtourVariant::STANDARD);
//! assert_eq!(start.fen(), "x5/x5/x5/x5/x5 1 20,20 0,0 1 -");
//! assert_eq!(perft(&start, 2), 600);
//! ```

pub use stackfish_analyse as analyse;
pub use stackfish_apbot as apbot;
pub use stackfish_arena as arena;
pub use stackfish_client as client;
pub use stackfish_engine as engine;
pub use stackfish_games as game;
pub use stackfish_lab::{model as fit_model, tactics, train, tune};
pub use stackfish_nnue as nnue;
pub use stackfish_record as record;
pub use stackfish_review as review;
pub use stackfish_sac as stackandconquer;
pub use stackfish_search as search;
pub use stackfish_tables as tablebase;
pub use stackfish_web as web;

pub mod cli;
pub mod data;
pub mod manual;
pub mod protocol;
