//! The machinery of the games' evaluation networks, with no game in it, as
//! Stockfish keeps `nnue/` apart from its position: the network file and
//! its checks, the quantized forward pass and the first layer's sums kept
//! per ply (`network.rs`), the integer kernels on the machine's widest
//! vectors (`simd`), and the run-time choice of the copies compiled for
//! x86-64-v3 (`cpu`). Every `unsafe` of the engine's evaluation and move
//! generation is here, so that the rules crate above forbids it.
//!
//! A game says what its network's inputs are: its `Layout` (name, inputs,
//! linear features, the groups that bound the sums) and the closures that
//! list a position's active inputs and a move's changed ones. Its weights
//! and inputs stay with the game (`stackfish-games`).

pub mod cpu;
mod network;
pub mod simd;

pub use network::{
    game_of, Accumulator, Delta, Layout, Network, NetworkError, HEADER_BYTES, MAX_ACTIVE,
    MAX_CHANGED, MAX_HIDDEN, QA, QB, VERSION,
};
