//! The registry both services' `GET /metrics` answers from: their own
//! metrics plus `process_start_time_seconds`, in the Prometheus text format
//! (prometheus-client); and the counters both keep, requests and searches,
//! each under its service's prefix.

use std::fmt::Debug;
use std::hash::Hash;
use std::sync::atomic::AtomicU64;
use std::time::{SystemTime, UNIX_EPOCH};

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
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

/// `<prefix>_requests_total`: the HTTP requests answered, counted by the
/// service's own labels (`L`, a struct deriving `EncodeLabelSet`).
pub struct Requests<L>(Family<L, Counter>);

impl<L> Requests<L>
where
    L: Clone + Hash + Eq + EncodeLabelSet + Debug + Send + Sync + 'static,
{
    pub fn register(registry: &mut Registry, prefix: &str, help: &str) -> Requests<L> {
        Requests(registry.add(&format!("{prefix}_requests"), help, Family::default()))
    }

    pub fn count(&self, labels: &L) {
        self.0.get_or_create(labels).inc();
    }
}

/// The help texts of the search counters: what a search is, finished and
/// failed, in the service's words.
pub struct SearchHelp {
    pub started: &'static str,
    pub finished: &'static str,
    pub failed: &'static str,
}

/// `<prefix>_searches_{started,finished,failed}_total`: every search
/// started, and how each ended.
pub struct Searches {
    started: Counter,
    finished: Counter,
    failed: Counter,
}

impl Searches {
    pub fn register(registry: &mut Registry, prefix: &str, help: SearchHelp) -> Searches {
        let mut counter = |what: &str, help: &str| {
            registry.add(
                &format!("{prefix}_searches_{what}"),
                help,
                Counter::default(),
            )
        };
        Searches {
            started: counter("started", help.started),
            finished: counter("finished", help.finished),
            failed: counter("failed", help.failed),
        }
    }

    pub fn started(&self) {
        self.started.inc();
    }

    pub fn finished(&self) {
        self.finished.inc();
    }

    pub fn failed(&self) {
        self.failed.inc();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
    struct Labels {
        verb: String,
    }

    #[test]
    fn requests_and_searches_are_named_by_the_prefix_and_counted_apart() {
        let mut registry = Registry::new();
        let requests = Requests::<Labels>::register(&mut registry, "test", "Requests");
        let searches = Searches::register(
            &mut registry,
            "test",
            SearchHelp {
                started: "Started",
                finished: "Finished",
                failed: "Failed",
            },
        );
        let ping = Labels {
            verb: "ping".into(),
        };
        requests.count(&ping);
        requests.count(&ping);
        requests.count(&Labels {
            verb: "move".into(),
        });
        searches.started();
        searches.started();
        searches.started();
        searches.finished();
        searches.failed();
        searches.failed();
        let text = registry.encode();
        for line in [
            "# HELP test_requests_total Requests.",
            "test_requests_total{verb=\"ping\"} 2",
            "test_requests_total{verb=\"move\"} 1",
            "# HELP test_searches_started_total Started.",
            "test_searches_started_total 3",
            "# HELP test_searches_finished_total Finished.",
            "test_searches_finished_total 1",
            "# HELP test_searches_failed_total Failed.",
            "test_searches_failed_total 2",
        ] {
            assert!(text.lines().any(|l| l == line), "no {line:?} in\n{text}");
        }
    }
}
