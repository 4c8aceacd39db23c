//! The server's counters for `GET /metrics`, in the Prometheus text format
//! (prometheus-client); the names are listed in protocol.md.

use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use stackfish_service::metrics::{Requests, SearchHelp, Searches};
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
    requests: Requests<RequestLabels>,
    latency: Histogram,
    streams: Gauge,
    searches: Searches,
}

impl Default for Metrics {
    fn default() -> Metrics {
        Metrics::new()
    }
}

impl Metrics {
    pub fn new() -> Metrics {
        let mut registry = Registry::new();
        let requests = Requests::register(
            &mut registry,
            "serve",
            "HTTP requests answered, by method, path (other for unknown ones) and status",
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
        let searches = Searches::register(
            &mut registry,
            "serve",
            SearchHelp {
                started: "Engine searches started (moves and analysis)",
                finished: "Engine searches that ended with a move or a stop",
                failed: "Engine searches that failed (a crash, a fault, no answer in time)",
            },
        );
        Metrics {
            registry,
            requests,
            latency,
            streams,
            searches,
        }
    }

    pub fn request(&self, method: &str, path: &str, status: u16, took: Duration) {
        self.requests.count(&RequestLabels {
            method: method.to_string(),
            path: path.to_string(),
            status,
        });
        self.latency.observe(took.as_secs_f64());
    }

    pub fn stream_opened(&self) {
        self.streams.inc();
    }

    pub fn stream_closed(&self) {
        self.streams.dec();
    }

    pub fn search_started(&self) {
        self.searches.started();
    }

    pub fn search_ended(&self, failed: bool) {
        if failed {
            self.searches.failed();
        } else {
            self.searches.finished();
        }
    }

    pub fn encode(&self) -> String {
        self.registry.encode()
    }
}
