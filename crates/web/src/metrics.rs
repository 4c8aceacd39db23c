//! The server's counters for `GET /metrics`, in the Prometheus text format
//! (prometheus-client); the names are listed in protocol.md.

use std::sync::atomic::AtomicU64;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::Registry;

/// The `Content-Type` of the answer to `GET /metrics`.
pub const CONTENT_TYPE: &str = prometheus_client::encoding::prometheus_text::CONTENT_TYPE;

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
        let mut registry = Registry::default();
        let requests = Family::<RequestLabels, Counter>::default();
        registry.register(
            "serve_requests",
            "HTTP requests answered, by method, path (other for unknown ones) and status",
            requests.clone(),
        );
        // 0.25 ms to about 8 s: the page's requests are answered in
        // milliseconds; an event stream counts until its first state.
        let latency = Histogram::new(exponential_buckets(0.000_25, 2.0, 16));
        registry.register(
            "serve_request_duration_seconds",
            "From a request's arrival to its answer's head",
            latency.clone(),
        );
        let streams = Gauge::default();
        registry.register(
            "serve_event_streams",
            "Event streams (open pages) at the moment",
            streams.clone(),
        );
        let searches_started = Counter::default();
        registry.register(
            "serve_searches_started",
            "Engine searches started (moves and analysis)",
            searches_started.clone(),
        );
        let searches_finished = Counter::default();
        registry.register(
            "serve_searches_finished",
            "Engine searches that ended with a move or a stop",
            searches_finished.clone(),
        );
        let searches_failed = Counter::default();
        registry.register(
            "serve_searches_failed",
            "Engine searches that failed (a crash, a fault, no answer in time)",
            searches_failed.clone(),
        );
        let start: Gauge<f64, AtomicU64> = Gauge::default();
        start.set(
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0.0, |d| d.as_secs_f64()),
        );
        registry.register(
            "process_start_time_seconds",
            "Start time of the process since unix epoch in seconds",
            start,
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
        let mut out = String::new();
        // Writing to a String cannot fail.
        let _ = prometheus_client::encoding::prometheus_text::encode(&mut out, &self.registry);
        out
    }
}
