//! The bot's counters for `GET /metrics`, in the Prometheus text format
//! (prometheus-client); the names are listed in protocol.md.

use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use stackfish_service::metrics::{Requests, SearchHelp, Searches};
use stackfish_service::Registry;

pub use stackfish_service::metrics::CONTENT_TYPE;

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
    requests: Requests<RequestLabels>,
    signature_failures: Counter,
    searches: Searches,
    submissions: Family<OutcomeLabels, Counter>,
    games: Gauge,
    pending: Gauge,
    waiting: Gauge,
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
        let mut registry = Registry::new();
        let requests = Requests::register(
            &mut registry,
            "apbot",
            "HTTP requests answered, by AP's verb (ping, challenge, move, metrics, - when unknown) and status",
        );
        let signature_failures = registry.add(
            "apbot_signature_failures",
            "POSTs refused with 401: a bad, stale or replayed signature",
            Counter::default(),
        );
        let searches = Searches::register(
            &mut registry,
            "apbot",
            SearchHelp {
                started: "Searches started (a retry of a failed one counts again)",
                finished: "Searches that chose a move or found the game over",
                failed: "Searches that panicked or answered a move AP's notation cannot write",
            },
        );
        let submissions = registry.add(
            "apbot_submissions",
            "Move submissions to AP's botQuery by outcome (accepted, refused, error: retried)",
            Family::<OutcomeLabels, Counter>::default(),
        );
        let games = registry.add(
            "apbot_games_in_progress",
            "Games with a notification pending or settled within the retention, not known to be over",
            Gauge::default(),
        );
        let pending = registry.add(
            "apbot_pending_notifications",
            "Move notifications stored and not yet settled",
            Gauge::default(),
        );
        let waiting = registry.add(
            "apbot_searches_waiting",
            "Searches queued for a free search thread (--searches of them run at once)",
            Gauge::default(),
        );
        let webhook = registry.add(
            "apbot_webhook_response_seconds",
            "From a move notification's arrival to its answer (202 when stored)",
            Histogram::new(webhook_buckets()),
        );
        let to_submission = registry.add(
            "apbot_notification_to_submission_seconds",
            "From a move notification's arrival (or the bot's start, for one resumed) to AP accepting the move",
            Histogram::new(submission_buckets()),
        );
        Metrics {
            registry,
            requests,
            signature_failures,
            searches,
            submissions,
            games,
            pending,
            waiting,
            webhook,
            to_submission,
        }
    }

    pub fn request(&self, verb: &str, status: u16) {
        self.requests.count(&RequestLabels {
            verb: verb.to_string(),
            status,
        });
    }

    pub fn signature_failure(&self) {
        self.signature_failures.inc();
    }

    pub fn search_started(&self) {
        self.searches.started();
    }

    pub fn search_finished(&self) {
        self.searches.finished();
    }

    pub fn search_failed(&self) {
        self.searches.failed();
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

    /// The text answer, with the gauges as of now: the state's games and
    /// notifications, and the searches waiting for a thread.
    pub fn encode(&self, games: usize, pending: usize, waiting: usize) -> String {
        self.games.set(games as i64);
        self.pending.set(pending as i64);
        self.waiting.set(waiting as i64);
        self.registry.encode()
    }
}
