//! A move notification's way to a submitted move, once the HTTP side
//! (`server.rs`) has stored it: replay AP's history, choose a move on a
//! search thread, submit it (retrying while AP does not answer), and settle
//! the notification in the state.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::watch;

use crate::client::{ApClient, Submitted};
use crate::games::{replay, Choice, PlayError, Replayed, Think};
use crate::log::line;
use crate::metrics::{self, Metrics};
use crate::pool::{RunError, SearchPool};
use crate::state::{JobKey, StateDir};
use crate::webhook::Notification;
use stackfish_games::Networks;
use stackfish_search::Shared as Table;

/// The bot's remaining time is planned as if this many moves were left.
pub const MOVES_LEFT: u64 = 30;
/// AP rounds the clock to whole hours: 0 means under half an hour, planned
/// as this much.
pub const CLOCK_UNDER_HALF_HOUR_MS: u64 = 10 * 60 * 1000;
/// Submission retries wait at most this long between two tries.
pub const MAX_RETRY_WAIT: Duration = Duration::from_secs(60);

/// What playing a move needs, shared by every job and the HTTP side.
pub(crate) struct Player {
    pub state: StateDir,
    pub client: Arc<ApClient>,
    /// The search threads; a search waits in its queue for a free one.
    pub pool: SearchPool,
    pub metrics: Arc<Metrics>,
    /// Set by a stop signal: new requests get 503, no new search starts,
    /// and a submission that fails is left pending instead of retried.
    pub stopping: watch::Sender<bool>,
    pub max_move_ms: u64,
    pub depth: Option<i32>,
    /// The networks the searches play.
    pub networks: Networks,
    /// The first wait before a submission is tried again.
    pub retry: Duration,
}

impl Player {
    pub fn is_stopping(&self) -> bool {
        *self.stopping.borrow()
    }
}

/// A stored notification to play.
pub(crate) struct Job {
    pub key: JobKey,
    pub note: Notification,
    /// When it came in (or when the bot started, for one resumed).
    pub received: Instant,
}

/// The time for one move: the bot's clock spread over `MOVES_LEFT` moves,
/// at most `--max-move-ms`.
fn budget_ms(clock_hours: Option<f64>, max_ms: u64) -> u64 {
    let clock_ms = match clock_hours {
        Some(h) if h >= 0.5 => (h * 3.6e6) as u64,
        _ => CLOCK_UNDER_HALF_HOUR_MS,
    };
    (clock_ms / MOVES_LEFT).clamp(1, max_ms.max(1))
}

/// What became of a search (`search_retrying`).
#[derive(Debug, PartialEq)]
enum Searched {
    /// Its answer: a move, or why there is none (the game is over).
    Answer(Result<Choice, PlayError>),
    /// It failed twice (the reason): left pending, nothing submitted.
    GaveUp(String),
    /// It never started: the bot is stopping. Left pending.
    Stopped,
}

/// Why a search produced no move it can stand by: a panic, or a move
/// AP's notation cannot write. Tried once more, then left pending.
fn failure(result: &Result<Result<Choice, PlayError>, String>) -> Option<String> {
    match result {
        Err(panic) => Some(format!("the search panicked: {panic}")),
        Ok(Err(e @ PlayError::Illegal { .. })) => Some(format!("the search's answer: {e}")),
        Ok(_) => None,
    }
}

/// Runs `search` on a search thread, after `announce` there (when a thread
/// is free, so that the log's `think` is when it starts); a failure is
/// logged with the game and tried once more.
async fn search_retrying<F>(
    pool: &SearchPool,
    game: &str,
    plies: usize,
    metrics: &Arc<Metrics>,
    announce: impl Fn() + Send + Sync + 'static,
    search: F,
) -> Searched
where
    F: Fn(&Arc<Table>) -> Result<Choice, PlayError> + Send + Sync + 'static,
{
    let search = Arc::new(search);
    let announce = Arc::new(announce);
    for attempt in 1..=2 {
        let (s, a, m, g) = (
            search.clone(),
            announce.clone(),
            metrics.clone(),
            game.to_string(),
        );
        let result = pool
            .run(move |table| {
                m.search_started();
                a();
                let started = Instant::now();
                let result = s(table);
                line("thought")
                    .text("game", &g)
                    .ms("ms", started.elapsed().as_secs_f64() * 1000.0)
                    .log();
                result
            })
            .await;
        let result = match result {
            Ok(r) => Ok(r),
            Err(RunError::Panicked(message)) => Err(message),
            Err(RunError::Closed) => return Searched::Stopped,
        };
        let Some(why) = failure(&result) else {
            metrics.search_finished();
            return match result {
                Ok(answer) => Searched::Answer(answer),
                Err(why) => Searched::GaveUp(why),
            };
        };
        metrics.search_failed();
        if attempt == 1 {
            line("error")
                .text("game", game)
                .int("plies", plies)
                .message(format!("search failed: {why}; trying once more"))
                .log();
        } else {
            line("error")
                .text("game", game)
                .int("plies", plies)
                .message(format!(
                    "search failed again: {why}; left pending (tried again at the next start), nothing submitted"
                ))
                .log();
            return Searched::GaveUp(why);
        }
    }
    Searched::GaveUp("unreachable".to_string())
}

/// Plays the move `job` asks for: each step logs and settles what ends
/// its way; a job left unsettled stays pending for the next start.
pub(crate) async fn process(player: Arc<Player>, job: Job) {
    let turn = Turn {
        game: job.key.game_id.clone(),
        player,
        job,
    };
    if turn.superseded().await {
        line("drop")
            .text("game", &turn.game)
            .int("plies", turn.job.key.plies)
            .message("superseded by a later notification")
            .log();
        return turn.settle("superseded", false).await;
    }
    let Some(replayed) = turn.replay().await else {
        return;
    };
    if turn.player.is_stopping() {
        // Stays pending: the next start searches it.
        return;
    }
    let Some(chosen) = turn.choose(&replayed).await else {
        return;
    };
    let ends_game = replayed.ends_game(&chosen.text);
    turn.submit(&chosen, ends_game).await
}

/// One job on its way, with the steps of `process`.
struct Turn {
    player: Arc<Player>,
    job: Job,
    /// The job's game id.
    game: String,
}

/// The move a search chose, with its depth and nodes for the log.
struct Chosen {
    text: String,
    depth: i32,
    nodes: u64,
}

/// What one submission came to.
enum Attempt {
    /// Done: the notification is settled with this note.
    Settle(String, bool),
    /// No answer or a failure: tried again after a wait.
    Retry,
}

impl Turn {
    /// Marks the job done with `what`. The state's calls run on a blocking
    /// thread: a busy disk must not hold the async workers, which answer
    /// the webhooks.
    async fn settle(&self, what: &str, ends_game: bool) {
        let (p, k, what) = (self.player.clone(), self.job.key.clone(), what.to_string());
        let settled =
            tokio::task::spawn_blocking(move || p.state.settle(&k, &what, ends_game)).await;
        let why = match settled {
            Ok(Ok(())) => return,
            Ok(Err(e)) => e.to_string(),
            Err(e) => e.to_string(),
        };
        line("state")
            .text("game", &self.game)
            .message(format!("cannot settle: {why}"))
            .log();
    }

    /// Whether a later notification of the game came in since.
    async fn superseded(&self) -> bool {
        let (p, k) = (self.player.clone(), self.job.key.clone());
        tokio::task::spawn_blocking(move || p.state.superseded(&k))
            .await
            .unwrap_or(false)
    }

    /// AP's history replayed under AP's rules; a history that cannot be
    /// replayed is dropped and settled.
    async fn replay(&self) -> Option<Arc<Replayed>> {
        let note = &self.job.note;
        match note.game().and_then(|g| replay(g, &note.flat_moves())) {
            Ok(r) => Some(Arc::new(r)),
            Err(e) => {
                line("drop").text("game", &self.game).message(&e).log();
                self.settle(&format!("refused: {e}"), false).await;
                None
            }
        }
    }

    /// The move to submit, searched within the clock's budget; a position
    /// with no move AP accepts is settled. `None` when there is nothing to
    /// submit.
    async fn choose(&self, replayed: &Arc<Replayed>) -> Option<Chosen> {
        let think = Think {
            move_ms: budget_ms(self.job.note.clock_curr, self.player.max_move_ms),
            depth: self.player.depth,
        };
        let (g, plies, budget) = (self.game.clone(), self.job.key.plies, think.move_ms);
        let announce = move || {
            line("think")
                .text("game", &g)
                .int("plies", plies)
                .int("budget_ms", budget)
                .log();
        };
        let (position, networks) = (replayed.clone(), self.player.networks.clone());
        let searched = search_retrying(
            &self.player.pool,
            &self.game,
            self.job.key.plies,
            &self.player.metrics,
            announce,
            move |table| position.choose(&think, &networks, table),
        )
        .await;
        match searched {
            Searched::Answer(Ok(Choice::Move { text, depth, nodes })) => {
                Some(Chosen { text, depth, nodes })
            }
            Searched::Answer(Ok(Choice::OnlyPass)) => {
                line("skip")
                    .text("game", &self.game)
                    .message("the only legal move is a pass, which AP cannot accept; the game is left to the clock")
                    .log();
                self.settle("only pass: nothing submitted", false).await;
                None
            }
            Searched::Answer(Err(e)) => {
                line("drop").text("game", &self.game).message(&e).log();
                self.settle(&format!("refused: {e}"), false).await;
                None
            }
            // Logged by `search_retrying`, or the bot is stopping: the
            // notification stays pending.
            Searched::GaveUp(_) | Searched::Stopped => None,
        }
    }

    /// Submits `chosen` until AP answers for good, waiting longer after
    /// each failure (at most `MAX_RETRY_WAIT`); a stop leaves it pending.
    async fn submit(&self, chosen: &Chosen, ends_game: bool) {
        let mut wait = self.player.retry;
        let mut stopping = self.player.stopping.subscribe();
        loop {
            if self.superseded().await {
                line("drop")
                    .text("game", &self.game)
                    .message("superseded before submission")
                    .log();
                return self.settle("superseded", false).await;
            }
            if let Attempt::Settle(what, ends) = self.attempt(chosen, ends_game, wait).await {
                return self.settle(&what, ends).await;
            }
            if self.player.is_stopping() {
                return;
            }
            tokio::select! {
                _ = tokio::time::sleep(wait) => {}
                // A stop ends the wait: the move stays pending for the next start.
                _ = stopping.wait_for(|s| *s) => return,
            }
            wait = (wait * 2).min(MAX_RETRY_WAIT);
        }
    }

    /// One submission of `chosen`, logged and counted; `wait` is the time
    /// until the next try, for the log.
    async fn attempt(&self, chosen: &Chosen, ends_game: bool, wait: Duration) -> Attempt {
        let (game, mv) = (&self.game, &chosen.text);
        let client = self.player.client.clone();
        let meta = self.job.note.meta_game.clone().unwrap_or_default();
        let (game2, mv2) = (game.clone(), mv.clone());
        let sent = Instant::now();
        let result = tokio::task::spawn_blocking(move || client.submit(&meta, &game2, &mv2)).await;
        let took = |start: Instant| start.elapsed().as_secs_f64() * 1000.0;
        let metrics = &self.player.metrics;
        match result {
            Ok(Ok(Submitted::Accepted)) => {
                metrics.submission(metrics::Outcome::Accepted);
                metrics.submitted_after(self.job.received.elapsed());
                line("submit")
                    .text("game", game)
                    .text("move", mv)
                    .int("status", 200)
                    .ms("ms", took(sent))
                    .ms("since_notification_ms", took(self.job.received))
                    .int("depth", chosen.depth)
                    .int("nodes", chosen.nodes)
                    .log();
                Attempt::Settle(format!("submitted {mv}"), ends_game)
            }
            Ok(Ok(Submitted::Refused(message))) => {
                metrics.submission(metrics::Outcome::Refused);
                line("submit")
                    .text("game", game)
                    .text("move", mv)
                    .int("status", 500)
                    .ms("ms", took(sent))
                    .message(format!("refused: {message}"))
                    .log();
                Attempt::Settle(format!("refused by AP: {message}"), false)
            }
            Ok(Err(e)) => {
                metrics.submission(metrics::Outcome::Error);
                line("submit")
                    .text("game", game)
                    .text("move", mv)
                    .text(
                        "status",
                        e.status().map_or("-".to_string(), |s| s.to_string()),
                    )
                    .ms("ms", took(sent))
                    .int("retry_in_ms", wait.as_millis())
                    .message(format!("error: {e}"))
                    .log();
                Attempt::Retry
            }
            Err(e) => {
                line("error")
                    .text("game", game)
                    .message(format!("submission task failed: {e}"))
                    .log();
                Attempt::Retry
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU32, Ordering};

    fn run<T>(f: impl std::future::Future<Output = T>) -> T {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(f)
    }

    fn a_move() -> Result<Choice, PlayError> {
        Ok(Choice::Move {
            text: "c3".into(),
            depth: 1,
            nodes: 1,
        })
    }

    fn pool() -> SearchPool {
        SearchPool::start(1, false, 1).unwrap().0
    }

    /// `search_retrying` of game g at ply 4, announcing nothing.
    fn retrying(
        pool: &SearchPool,
        metrics: &Arc<Metrics>,
        search: impl Fn() -> Result<Choice, PlayError> + Send + Sync + 'static,
    ) -> Searched {
        run(search_retrying(
            pool,
            "g",
            4,
            metrics,
            || {},
            move |_| search(),
        ))
    }

    #[test]
    fn a_search_that_panics_once_is_tried_again_and_its_move_kept() {
        let metrics = Arc::new(Metrics::new());
        let calls = Arc::new(AtomicU32::new(0));
        let c = calls.clone();
        let result = retrying(&pool(), &metrics, move || {
            if c.fetch_add(1, Ordering::SeqCst) == 0 {
                panic!("a bug in the search");
            }
            a_move()
        });
        assert_eq!(result, Searched::Answer(a_move()));
        assert_eq!(calls.load(Ordering::SeqCst), 2);
        let text = metrics.encode(0, 0, 0);
        assert!(text.contains("apbot_searches_started_total 2"), "{text}");
        assert!(text.contains("apbot_searches_failed_total 1"), "{text}");
        assert!(text.contains("apbot_searches_finished_total 1"), "{text}");
    }

    #[test]
    fn a_search_that_fails_twice_is_given_up_with_the_reason() {
        let metrics = Arc::new(Metrics::new());
        let calls = Arc::new(AtomicU32::new(0));
        let c = calls.clone();
        let pool = pool();
        let result = retrying(&pool, &metrics, move || {
            c.fetch_add(1, Ordering::SeqCst);
            Err(PlayError::Illegal {
                ply: 0,
                text: "9z9".into(),
                reason: "not a square".into(),
            })
        });
        let Searched::GaveUp(why) = result else {
            panic!("not given up: {result:?}");
        };
        assert!(why.contains("9z9") && why.contains("not a square"), "{why}");
        assert_eq!(calls.load(Ordering::SeqCst), 2);
        assert!(metrics
            .encode(0, 0, 0)
            .contains("apbot_searches_failed_total 2"));
        // A game that is over is an answer, not a failure: no retry.
        let calls = Arc::new(AtomicU32::new(0));
        let c = calls.clone();
        let result = retrying(&pool, &metrics, move || {
            c.fetch_add(1, Ordering::SeqCst);
            Err(PlayError::Over("no legal move"))
        });
        assert_eq!(
            result,
            Searched::Answer(Err(PlayError::Over("no legal move")))
        );
        assert_eq!(calls.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn a_search_queued_when_the_bot_stops_never_starts() {
        let metrics = Arc::new(Metrics::new());
        let pool = pool();
        pool.close();
        let calls = Arc::new(AtomicU32::new(0));
        let c = calls.clone();
        let result = retrying(&pool, &metrics, move || {
            c.fetch_add(1, Ordering::SeqCst);
            a_move()
        });
        assert_eq!(result, Searched::Stopped);
        assert_eq!(calls.load(Ordering::SeqCst), 0);
        assert!(metrics
            .encode(0, 0, 0)
            .contains("apbot_searches_started_total 0"));
    }

    #[test]
    fn the_budget_spreads_the_clock_and_respects_the_cap() {
        assert_eq!(budget_ms(Some(24.0), 10_000), 10_000);
        assert_eq!(budget_ms(Some(1.0), 1_000_000), 3_600_000 / MOVES_LEFT);
        assert_eq!(
            budget_ms(Some(0.0), 1_000_000),
            CLOCK_UNDER_HALF_HOUR_MS / MOVES_LEFT
        );
        assert_eq!(budget_ms(None, 50), 50);
    }
}
