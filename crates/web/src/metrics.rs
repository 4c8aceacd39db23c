//! The server's counters for `GET /metrics`, in the Prometheus text format
//! (prometheus-client); the names are listed in protocol.md.

use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use stackfish_service::Registry;

pub use stackfish_service::metrics::CONTENT_TYPE;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    method: String,
    /// A path the server has, or `other`: the label's values stay few.
    path: String,
    status: u16,
}

pub struct Metrics {
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    latency: Histogram,
    streams: Gauge,
    searches_started: Counter,
    searches_finished: Counter,
    searches_failed: Counter,
}

impl Default for Metrics {
    fn default() -> Metrics {
        Metrics::new()
    }
}

impl Metrics {
    pub fn new() -> Metrics {
        let mut registry = Registry::new();
        let requests = registry.add(
            "serve_requests",
            "HTTP requests answered, by method, path (other for unknown ones) and status",
            Family::<RequestLabels, Counter>::default(),
        );
        // 0.25 ms to about 8 s: the page's requests are answered in
        // milliseconds; an event stream counts until its first state.
        let latency = registry.add(
            "serve_request_duration_seconds",
            "From a request's arrival to its answer's head",
            Histogram::new(exponential_buckets(0.000_25, 2.0, 16)),
        );
        let streams = registry.add(
            "serve_event_streams",
            "Event streams (open pages) at the moment",
            Gauge::default(),
        );
        let searches_started = registry.add(
            "serve_searches_started",
            "Engine searches started (moves and analysis)",
            Counter::default(),
        );
        let searches_finished = registry.add(
            "serve_searches_finished",
            "Engine searches that ended with a move or a stop",
            Counter::default(),
        );
        let searches_failed = registry.add(
            "serve_searches_failed",
            "Engine searches that failed (a crash, a fault, no answer in time)",
            Counter::default(),
        );
        Metrics {
            registry,
            requests,
            latency,
            streams,
            searches_started,
            searches_finished,
            searches_failed,
        }
    }

    pub fn request(&self, method: &str, path: &str, status: u16, took: Duration) {
        self.requests
            .get_or_create(&RequestLabels {
                method: method.to_string(),
                path: path.to_string(),
                status,
            })
            .inc();
        self.latency.observe(took.as_secs_f64());
    }

    pub fn stream_opened(&self) {
        self.streams.inc();
    }

    pub fn stream_closed(&self) {
        self.streams.dec();
    }

    pub fn search_started(&self) {
        self.searches_started.inc();
    }

    pub fn search_ended(&self, failed: bool) {
        if failed {
            self.searches_failed.inc();
        } else {
            self.searches_finished.inc();
        }
    }

    pub fn encode(&self) -> String {
        self.registry.encode()
    }
}
