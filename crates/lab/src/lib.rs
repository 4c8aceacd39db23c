//! Tuning, training and testing the evaluation: Texel tuning of the linear
//! weights (`tune`), the Mixtour network's self-play data and trainer
//! (`train`), the tactics suite (`tactics`), and the fit of the review's
//! expected-score model (`model`). Library code over records
//! and writers; the binary opens the files.

pub mod model;
pub mod tactics;
pub mod train;
pub mod tune;
