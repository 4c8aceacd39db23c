//! Tuning, training and testing the evaluation: Texel tuning of the linear
//! weights (`tune`), the Mixtour network's self-play data and trainer
//! (`train`), and the tactics suite (`tactics`). Library code over records
//! and writers; the binary opens the files.

pub mod tactics;
pub mod train;
pub mod tune;
