//! The registry both services' `GET /metrics` answers from: their own
//! metrics plus `process_start_time_seconds`, in the Prometheus text format
//! (prometheus-client).

use std::sync::atomic::AtomicU64;
use std::time::{SystemTime, UNIX_EPOCH};

use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Metric;

/// The `Content-Type` of the answer to `GET /metrics`.
pub const CONTENT_TYPE: &str = prometheus_client::encoding::prometheus_text::CONTENT_TYPE;

/// A registry that already holds the process's start time: the time it was
/// made, which each service does as it starts.
pub struct Registry(prometheus_client::registry::Registry);

impl Default for Registry {
    fn default() -> Registry {
        Registry::new()
    }
}

impl Registry {
    pub fn new() -> Registry {
        let mut registry = prometheus_client::registry::Registry::default();
        let start: Gauge<f64, AtomicU64> = Gauge::default();
        start.set(
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0.0, |d| d.as_secs_f64()),
        );
        // The name and help of Prometheus's own process collectors.
        registry.register(
            "process_start_time_seconds",
            "Start time of the process since unix epoch in seconds",
            start,
        );
        Registry(registry)
    }

    /// Adds `metric` as `name` (prometheus-client appends `_total` to a
    /// counter's name) with its help text, and hands it back: the registry
    /// keeps a handle to the same values.
    pub fn add<M: Metric + Clone>(&mut self, name: &str, help: &str, metric: M) -> M {
        self.0.register(name, help, metric.clone());
        metric
    }

    /// The text answer to `GET /metrics`.
    pub fn encode(&self) -> String {
        let mut out = String::new();
        // Writing to a String cannot fail.
        let _ = prometheus_client::encoding::prometheus_text::encode(&mut out, &self.0);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use prometheus_client::metrics::counter::Counter;

    #[test]
    fn the_text_has_the_start_time_and_what_was_registered() {
        let before = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_secs_f64();
        let mut registry = Registry::new();
        let hits = registry.add("test_hits", "Hits", Counter::<u64>::default());
        hits.inc();
        hits.inc();
        let text = registry.encode();
        assert!(text.contains("# TYPE test_hits_total counter"), "{text}");
        assert!(text.contains("test_hits_total 2"), "{text}");
        let start: f64 = text
            .lines()
            .find_map(|l| l.strip_prefix("process_start_time_seconds "))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or_else(|| panic!("no start time in {text}"));
        assert!(start >= before.floor() && start < before + 60.0, "{start}");
    }
}
