//! The bot's counters for `GET /metrics`, in the Prometheus text format
//! (prometheus-client); the names are listed in protocol.md.

use std::sync::atomic::AtomicU64;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

/// The `Content-Type` of the answer to `GET /metrics`.
pub const CONTENT_TYPE: &str = prometheus_client::encoding::prometheus_text::CONTENT_TYPE;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    verb: String,
    status: u16,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct OutcomeLabels {
    outcome: &'static str,
}

/// What a submission to AP came to, as the metric's `outcome` label says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// AP took the move (200).
    Accepted,
    /// AP refused it for good (500 with its message).
    Refused,
    /// No answer or another status: retried.
    Error,
}

pub struct Metrics {
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    signature_failures: Counter,
    searches_started: Counter,
    searches_finished: Counter,
    searches_failed: Counter,
    submissions: Family<OutcomeLabels, Counter>,
    games: Gauge,
    pending: Gauge,
    webhook: Histogram,
    to_submission: Histogram,
}

/// Seconds buckets from 1 ms to about 16 s (webhook answers are
/// milliseconds; AP wants them within 100 ms).
fn webhook_buckets() -> impl Iterator<Item = f64> {
    prometheus_client::metrics::histogram::exponential_buckets(0.001, 2.0, 15)
}

/// Seconds buckets from 0.1 s to about 55 min (a search and its submission,
/// retries included).
fn submission_buckets() -> impl Iterator<Item = f64> {
    prometheus_client::metrics::histogram::exponential_buckets(0.1, 2.0, 16)
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
            "apbot_requests",
            "HTTP requests answered, by AP's verb (ping, challenge, move, metrics, - when unknown) and status",
            requests.clone(),
        );
        let signature_failures = Counter::default();
        registry.register(
            "apbot_signature_failures",
            "POSTs refused with 401: a bad, stale or replayed signature",
            signature_failures.clone(),
        );
        let searches_started = Counter::default();
        registry.register(
            "apbot_searches_started",
            "Searches started (a retry of a failed one counts again)",
            searches_started.clone(),
        );
        let searches_finished = Counter::default();
        registry.register(
            "apbot_searches_finished",
            "Searches that chose a move or found the game over",
            searches_finished.clone(),
        );
        let searches_failed = Counter::default();
        registry.register(
            "apbot_searches_failed",
            "Searches that panicked or answered a move AP's notation cannot write",
            searches_failed.clone(),
        );
        let submissions = Family::<OutcomeLabels, Counter>::default();
        registry.register(
            "apbot_submissions",
            "Move submissions to AP's botQuery by outcome (accepted, refused, error: retried)",
            submissions.clone(),
        );
        let games = Gauge::default();
        registry.register(
            "apbot_games_in_progress",
            "Games with a notification pending or settled within the retention, not known to be over",
            games.clone(),
        );
        let pending = Gauge::default();
        registry.register(
            "apbot_pending_notifications",
            "Move notifications stored and not yet settled",
            pending.clone(),
        );
        let webhook = Histogram::new(webhook_buckets());
        registry.register(
            "apbot_webhook_response_seconds",
            "From a move notification's arrival to its answer (202 when stored)",
            webhook.clone(),
        );
        let to_submission = Histogram::new(submission_buckets());
        registry.register(
            "apbot_notification_to_submission_seconds",
            "From a move notification's arrival (or the bot's start, for one resumed) to AP accepting the move",
            to_submission.clone(),
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
            signature_failures,
            searches_started,
            searches_finished,
            searches_failed,
            submissions,
            games,
            pending,
            webhook,
            to_submission,
        }
    }

    pub fn request(&self, verb: &str, status: u16) {
        self.requests
            .get_or_create(&RequestLabels {
                verb: verb.to_string(),
                status,
            })
            .inc();
    }

    pub fn signature_failure(&self) {
        self.signature_failures.inc();
    }

    pub fn search_started(&self) {
        self.searches_started.inc();
    }

    pub fn search_finished(&self) {
        self.searches_finished.inc();
    }

    pub fn search_failed(&self) {
        self.searches_failed.inc();
    }

    pub fn submission(&self, outcome: Outcome) {
        let outcome = match outcome {
            Outcome::Accepted => "accepted",
            Outcome::Refused => "refused",
            Outcome::Error => "error",
        };
        self.submissions
            .get_or_create(&OutcomeLabels { outcome })
            .inc();
    }

    pub fn webhook_answered(&self, took: Duration) {
        self.webhook.observe(took.as_secs_f64());
    }

    pub fn submitted_after(&self, took: Duration) {
        self.to_submission.observe(took.as_secs_f64());
    }

    /// The text answer, with the state's gauges as of now.
    pub fn encode(&self, games: usize, pending: usize) -> String {
        self.games.set(games as i64);
        self.pending.set(pending as i64);
        let mut out = String::new();
        // Writing to a String cannot fail.
        let _ = prometheus_client::encoding::prometheus_text::encode(&mut out, &self.registry);
        out
    }
}
