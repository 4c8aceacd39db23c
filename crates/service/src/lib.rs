//! What stackfish's long-running services (`apbot`, `serve`) share: the
//! stop signals they shut down gracefully on, and the Prometheus registry
//! behind their `GET /metrics` with the process's start time in it.

pub mod metrics;
mod platform;

pub use metrics::Registry;
pub use platform::Signals;
