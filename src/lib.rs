//! stackfish: rules, search, engine protocol and match runner for stacking
//! board games — Mixtour first, and its siblings.
//!
//! ```
//! use stackfish::game::{mixtour::{Mixtour, MixtourVariant}, perft, Game};
//! let start = Mixtour::start(&MixtourVariant::STANDARD);
//! assert_eq!(start.fen(), "x5/x5/x5/x5/x5 1 20,20 0,0 1 -");
//! assert_eq!(perft(&start, 2), 600);
//! ```

pub mod arena;
pub mod engine;
pub mod game;
pub mod manual;
pub mod protocol;
pub mod search;
pub mod stackandconquer;
pub mod tablebase;
pub mod tactics;
pub mod train;
pub mod tune;
pub mod web;
