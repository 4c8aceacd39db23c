//! Match runner support; so far the pure statistics, ratings and report rendering.

pub mod ratings;
pub mod report;
pub mod stats;
