//! The HTTP side: every request passes the same deadlines and body limit
//! as `stackfish serve`; a POST's signature is checked over the raw body
//! before anything is parsed; a move is stored before its 202 and then
//! searched on the search threads (`pool`, at a lower priority than the
//! request handlers) and submitted in the background.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::sync::{mpsc, watch, Semaphore};
use tokio::task::JoinSet;
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::timeout::{RequestBodyDeadlineLayer, TimeoutLayer};

use crate::client::{ApClient, Submitted};
use crate::games::{replay, Choice, PlayError, Replayed, Think};
use crate::key::{PublicKey, SignatureError, REPLAY_WINDOW_SECS};
use crate::log::line;
use crate::metrics::{self, Metrics};
use crate::pool::{RunError, SearchPool};
use crate::state::{JobKey, StateDir};
use crate::webhook::Notification;
use crate::{BotError, Config};
use stackfish_search::Shared as Table;

/// AP's bodies are a few kilobytes at most (a long Focus history is under
/// 4 KB); anything larger is refused with 413 before it is checked.
pub const BODY_LIMIT: usize = 64 * 1024;
/// The same deadlines as `stackfish serve`: the request head, the body,
/// the whole request.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(5);
pub const BODY_TIMEOUT: Duration = Duration::from_secs(5);
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(15);
/// Connections served at once; more wait in the listener's backlog until
/// one ends (each has the deadlines above), so a burst of AP's
/// notifications is answered late rather than reset.
pub const MAX_CONNECTIONS: usize = 256;
/// Connections the kernel holds for the accept loop. The standard
/// library's (and tokio's) 128 is below a burst of AP's notifications: past
/// it the kernel drops the connection's SYN, and the client tries again
/// only a second later.
pub const LISTEN_BACKLOG: u32 = 1024;
/// The bot's remaining time is planned as if this many moves were left.
pub const MOVES_LEFT: u64 = 30;
/// AP rounds the clock to whole hours: 0 means under half an hour, planned
/// as this much.
pub const CLOCK_UNDER_HALF_HOUR_MS: u64 = 10 * 60 * 1000;
/// Submission retries wait at most this long between two tries.
pub const MAX_RETRY_WAIT: Duration = Duration::from_secs(60);

/// How often the state's markers are pruned (`StateDir::prune`).
pub const PRUNE_EVERY: Duration = Duration::from_secs(60);

struct Bot {
    key: PublicKey,
    state: StateDir,
    client: Arc<ApClient>,
    nonces: Mutex<HashMap<String, u64>>,
    /// Notifications being written: two deliveries of one notification
    /// at once must make one job, not two.
    storing: Mutex<HashSet<JobKey>>,
    /// The search threads; a search waits in its queue for a free one.
    pool: SearchPool,
    /// The thread that syncs stored notifications after their 202.
    syncer: std::sync::mpsc::Sender<ToSync>,
    jobs: mpsc::UnboundedSender<Job>,
    config: Settings,
    metrics: Arc<Metrics>,
    /// Set by a stop signal: new requests get 503, no new search starts,
    /// and a submission that fails is left pending instead of retried.
    stopping: watch::Sender<bool>,
    /// Whether `GET /metrics` is answered on the webhook listener (no
    /// `--metrics-listen` of its own).
    metrics_here: bool,
}

#[derive(Clone)]
struct Settings {
    max_move_ms: u64,
    depth: Option<i32>,
    retry: Duration,
    stop_timeout: Duration,
    keep_done: Duration,
    sync_before_202: bool,
}

/// What became of a notification's write.
enum Stored {
    /// Seen before (pending or settled): nothing written.
    Duplicate,
    /// Written and synced (`--sync-before-202`).
    Synced,
    /// Written; the sync thread syncs the file.
    Unsynced(std::fs::File),
}

/// What the state's sync thread is handed.
enum ToSync {
    /// A notification written and renamed into `pending/`, not yet synced.
    File(std::fs::File),
    /// Answered once everything handed over before it is synced.
    Barrier(tokio::sync::oneshot::Sender<()>),
}

/// The thread that syncs notifications to disk after their 202: it takes
/// every file waiting, syncs them and `pending/` once, and starts again.
/// Under a burst one directory sync serves many notifications.
fn start_syncer(state: StateDir) -> std::io::Result<std::sync::mpsc::Sender<ToSync>> {
    let (tx, rx) = std::sync::mpsc::channel::<ToSync>();
    std::thread::Builder::new()
        .name("state-sync".into())
        .spawn(move || {
            while let Ok(first) = rx.recv() {
                let mut files = Vec::new();
                let mut barriers = Vec::new();
                for next in std::iter::once(first).chain(rx.try_iter()) {
                    match next {
                        ToSync::File(f) => files.push(f),
                        ToSync::Barrier(b) => barriers.push(b),
                    }
                }
                if !files.is_empty() {
                    if let Err(e) = state.sync(files) {
                        line("error")
                            .message(format!("cannot sync the state: {e}"))
                            .log();
                    }
                }
                for b in barriers {
                    let _ = b.send(());
                }
            }
        })?;
    Ok(tx)
}

struct Job {
    key: JobKey,
    note: Notification,
    received: Instant,
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

impl Bot {
    fn is_stopping(&self) -> bool {
        *self.stopping.borrow()
    }
}

pub fn tls_acceptor(cert: &Path, key: &Path) -> Result<tokio_rustls::TlsAcceptor, BotError> {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let tls =
        |what: &Path, e: &dyn std::fmt::Display| BotError::Tls(format!("{}: {e}", what.display()));
    let certs: Vec<CertificateDer> = CertificateDer::pem_file_iter(cert)
        .map_err(|e| tls(cert, &e))?
        .collect::<Result<_, _>>()
        .map_err(|e| tls(cert, &e))?;
    if certs.is_empty() {
        return Err(tls(cert, &"no certificate in the file"));
    }
    let private = PrivateKeyDer::from_pem_file(key).map_err(|e| tls(key, &e))?;
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .map_err(|e| tls(cert, &e))?
    .with_no_client_auth()
    .with_single_cert(certs, private)
    .map_err(|e| tls(key, &e))?;
    Ok(tokio_rustls::TlsAcceptor::from(Arc::new(config)))
}

pub async fn serve(
    config: Config,
    state: StateDir,
    client: ApClient,
    tls: Option<tokio_rustls::TlsAcceptor>,
) -> Result<(), BotError> {
    // Installed first: a signal from now on is a graceful stop.
    let mut signals = stackfish_service::Signals::install().map_err(BotError::Signals)?;
    let listen = |addr: std::net::SocketAddr| async move {
        let bound = || {
            let socket = if addr.is_ipv4() {
                tokio::net::TcpSocket::new_v4()?
            } else {
                tokio::net::TcpSocket::new_v6()?
            };
            if crate::platform::REUSE_ADDRESS {
                socket.set_reuseaddr(true)?;
            }
            socket.bind(addr)?;
            socket.listen(LISTEN_BACKLOG)
        };
        bound().map_err(|source| BotError::Listen { addr, source })
    };
    let listener = listen(config.listen).await?;
    let addr = listener.local_addr().unwrap_or(config.listen);
    let metrics_listener = match config.metrics_listen {
        Some(a) => Some(listen(a).await?),
        None => None,
    };
    let (jobs, mut queue) = mpsc::unbounded_channel();
    let (stopping, _) = watch::channel(false);
    let (pool, lowered) = SearchPool::start(config.searches, true, config.hash_mb)
        .map_err(BotError::SearchThreads)?;
    let mut l = line("searches").int("threads", pool.threads()).text(
        "priority",
        match &lowered {
            Some(Ok(how)) => how,
            _ => "normal",
        },
    );
    if let Some(Err(why)) = &lowered {
        // Still correct, only the 202s may wait for the CPU under load.
        l = l.message(format!("not lowered: {why}"));
    }
    l.log();
    let syncer = start_syncer(state.clone()).map_err(BotError::SyncThread)?;
    let bot = Arc::new(Bot {
        key: config.key,
        state,
        client: Arc::new(client),
        nonces: Mutex::new(HashMap::new()),
        storing: Mutex::new(HashSet::new()),
        pool,
        syncer,
        jobs,
        config: Settings {
            max_move_ms: config.max_move_ms,
            depth: config.depth,
            retry: config.retry,
            stop_timeout: config.stop_timeout,
            keep_done: config.keep_done,
            sync_before_202: config.sync_before_202,
        },
        metrics: Arc::new(Metrics::new()),
        stopping,
        metrics_here: metrics_listener.is_none(),
    });
    prune(&bot);
    // What was pending when the bot last stopped is finished first.
    let pending = bot.state.pending()?;
    for (key, body) in pending {
        match serde_json::from_slice::<Notification>(&body) {
            Ok(note) => {
                line("resume")
                    .text("game", &key.game_id)
                    .int("plies", key.plies)
                    .log();
                let _ = bot.jobs.send(Job {
                    key,
                    note,
                    received: Instant::now(),
                });
            }
            Err(e) => {
                line("drop")
                    .text("game", &key.game_id)
                    .message(format!("stored notification unreadable: {e}"))
                    .log();
                bot.state.settle(&key, "unreadable", false)?;
            }
        }
    }
    let scheme = if tls.is_some() { "https" } else { "http" };
    line("listening")
        .message(format!("on {scheme}://{addr}"))
        .json_only("url", format!("{scheme}://{addr}"))
        .log();
    let router = |bot: Arc<Bot>, metrics_only: bool| {
        Router::new()
            .fallback(move |state: State<Arc<Bot>>, request: Request| {
                handle(state, request, metrics_only)
            })
            .layer(RequestBodyLimitLayer::new(BODY_LIMIT))
            .layer(RequestBodyDeadlineLayer::new(BODY_TIMEOUT))
            .layer(TimeoutLayer::with_status_code(
                StatusCode::REQUEST_TIMEOUT,
                REQUEST_TIMEOUT,
            ))
            .with_state(bot)
    };
    let mut acceptors = vec![tokio::spawn(accept_loop(
        listener,
        router(bot.clone(), false),
        tls,
    ))];
    if let Some(l) = metrics_listener {
        let a = l.local_addr().ok();
        line("metrics")
            .message(format!(
                "on http://{}/metrics",
                a.map_or("-".to_string(), |a| a.to_string())
            ))
            .log();
        acceptors.push(tokio::spawn(accept_loop(
            l,
            router(bot.clone(), true),
            None,
        )));
    }
    let mut tasks = JoinSet::new();
    let mut pruning = tokio::time::interval(PRUNE_EVERY);
    pruning.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let signal = loop {
        tokio::select! {
            name = signals.next() => break name,
            Some(job) = queue.recv() => {
                tasks.spawn(process(bot.clone(), job));
            }
            Some(_) = tasks.join_next(), if !tasks.is_empty() => {}
            _ = pruning.tick() => {
                let b = bot.clone();
                tasks.spawn(async move {
                    let _ = tokio::task::spawn_blocking(move || prune(&b)).await;
                });
            }
        }
    };
    // The graceful stop: refuse new work, let what runs finish within the
    // deadline, and leave the rest pending (it is on disk already).
    bot.stopping.send_replace(true);
    // A search still queued stays pending; one running may finish.
    bot.pool.close();
    let deadline = tokio::time::Instant::now() + bot.config.stop_timeout;
    line("stopping")
        .text("signal", signal)
        .int("in_flight", tasks.len())
        .int("timeout_ms", bot.config.stop_timeout.as_millis())
        .log();
    let drained = tokio::time::timeout_at(deadline, async {
        while tasks.join_next().await.is_some() {}
    })
    .await
    .is_ok();
    tasks.abort_all();
    for a in &acceptors {
        a.abort();
    }
    // Every notification answered 202 is on disk before the exit.
    let (done, synced) = tokio::sync::oneshot::channel();
    if bot.syncer.send(ToSync::Barrier(done)).is_ok() {
        let _ = synced.await;
    }
    bot.state.flush()?;
    let (_, pending) = bot.state.summary();
    let event = if drained || pending == 0 {
        "stopped"
    } else {
        "stopped-with-pending"
    };
    line(event)
        .int("pending", pending)
        .message(if pending == 0 {
            "nothing pending".to_string()
        } else {
            format!("{pending} notification(s) pending, submitted at the next start")
        })
        .log();
    Ok(())
}

fn prune(bot: &Bot) {
    match bot.state.prune(SystemTime::now(), bot.config.keep_done) {
        Ok(0) => {}
        Ok(n) => line("prune").int("removed", n).log(),
        Err(e) => line("error")
            .message(format!("cannot prune the state: {e}"))
            .log(),
    }
}

async fn accept_loop(
    listener: tokio::net::TcpListener,
    router: Router,
    tls: Option<tokio_rustls::TlsAcceptor>,
) {
    let slots = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    loop {
        let Ok(slot) = slots.clone().acquire_owned().await else {
            return;
        };
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            }
        };
        let service = TowerToHyperService::new(router.clone());
        let tls = tls.clone();
        tokio::spawn(async move {
            let _slot = slot;
            let builder = {
                let mut b = hyper::server::conn::http1::Builder::new();
                b.timer(TokioTimer::new())
                    .header_read_timeout(HEADER_TIMEOUT);
                b
            };
            match tls {
                None => {
                    let _ = builder
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                }
                Some(acceptor) => {
                    // The handshake has the head's deadline: a client that
                    // stalls in it holds nothing for long.
                    let Ok(Ok(stream)) =
                        tokio::time::timeout(HEADER_TIMEOUT, acceptor.accept(stream)).await
                    else {
                        return;
                    };
                    let _ = builder
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                }
            }
        });
    }
}

fn answer(status: StatusCode, body: serde_json::Value) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

async fn handle(State(bot): State<Arc<Bot>>, request: Request, metrics_only: bool) -> Response {
    let started = Instant::now();
    let method = request.method().clone();
    let wants_metrics = request.uri().path() == "/metrics"
        && matches!(method, Method::GET | Method::HEAD)
        && (metrics_only || bot.metrics_here);
    let (status, verb, game, note, response) = if wants_metrics {
        let b = bot.clone();
        let (games, pending) = tokio::task::spawn_blocking(move || b.state.summary())
            .await
            .unwrap_or((0, 0));
        let text = bot.metrics.encode(games, pending, bot.pool.waiting());
        let r = (
            StatusCode::OK,
            [(header::CONTENT_TYPE, metrics::CONTENT_TYPE)],
            text,
        )
            .into_response();
        (
            StatusCode::OK,
            "metrics".to_string(),
            None,
            String::new(),
            r,
        )
    } else if metrics_only {
        refuse(
            StatusCode::NOT_FOUND,
            "-",
            None,
            "this listener serves GET /metrics only".into(),
        )
    } else if bot.is_stopping() {
        // AP reads 503 as the bot being down; what it sent meanwhile is
        // not stored (a pending move is finished after the restart).
        refuse(
            StatusCode::SERVICE_UNAVAILABLE,
            "-",
            None,
            "stopping".into(),
        )
    } else {
        match method {
            Method::GET | Method::HEAD => {
                let r = answer(StatusCode::OK, serde_json::json!({"operational": true}));
                (StatusCode::OK, "ping".to_string(), None, String::new(), r)
            }
            Method::POST => post(&bot, request).await,
            _ => {
                let r = answer(
                    StatusCode::METHOD_NOT_ALLOWED,
                    serde_json::json!({"error": "GET or POST only"}),
                );
                (
                    StatusCode::METHOD_NOT_ALLOWED,
                    "-".into(),
                    None,
                    String::new(),
                    r,
                )
            }
        }
    };
    let took = started.elapsed();
    bot.metrics.request(&verb, status.as_u16());
    if status == StatusCode::ACCEPTED {
        bot.metrics.webhook_answered(took);
    }
    let mut l = line("request")
        .text("method", &method)
        .text("verb", &verb)
        .text("game", game.as_deref().unwrap_or("-"))
        .int("status", status.as_u16())
        .ms("ms", took.as_secs_f64() * 1000.0);
    if !note.is_empty() {
        l = l.text("note", note);
    }
    l.log();
    response
}

type Outcome = (StatusCode, String, Option<String>, String, Response);

fn refuse(status: StatusCode, verb: &str, game: Option<String>, why: String) -> Outcome {
    let r = answer(status, serde_json::json!({ "error": why }));
    (status, verb.to_string(), game, why, r)
}

fn header_str<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

async fn post(bot: &Arc<Bot>, request: Request) -> Outcome {
    let (parts, body) = request.into_parts();
    let body: Bytes = match axum::body::to_bytes(Body::new(body), BODY_LIMIT).await {
        Ok(b) => b,
        Err(e) => {
            let too_big = std::error::Error::source(&e)
                .is_some_and(|s| s.is::<http_body_util::LengthLimitError>());
            let status = if too_big {
                StatusCode::PAYLOAD_TOO_LARGE
            } else {
                StatusCode::REQUEST_TIMEOUT
            };
            return refuse(status, "-", None, format!("body not read: {e}"));
        }
    };
    let h = &parts.headers;
    let checked = bot.key.verify(
        header_str(h, "x-signature-timestamp"),
        header_str(h, "x-signature-nonce"),
        header_str(h, "x-signature"),
        &body,
        now_secs(),
    );
    if let Err(e) = checked.and_then(|()| remember_nonce(bot, h)) {
        bot.metrics.signature_failure();
        return refuse(
            StatusCode::UNAUTHORIZED,
            "-",
            None,
            format!("signature: {e}"),
        );
    }
    let note = match Notification::read(&body) {
        Ok(n) => n,
        Err(e) => return refuse(StatusCode::BAD_REQUEST, "-", None, format!("bad JSON: {e}")),
    };
    match note.verb.as_str() {
        "challenge" => challenge(&note),
        "move" => notified(bot, note, body).await,
        other => refuse(
            StatusCode::BAD_REQUEST,
            other,
            None,
            format!("unknown verb '{other}'"),
        ),
    }
}

/// A nonce is remembered for twice the window (after its signature
/// verified): a replay within the window is refused.
fn remember_nonce(bot: &Bot, headers: &HeaderMap) -> Result<(), SignatureError> {
    let nonce = header_str(headers, "x-signature-nonce").unwrap_or_default();
    let now = now_secs();
    let mut seen = bot.nonces.lock().unwrap_or_else(|e| e.into_inner());
    seen.retain(|_, &mut at| now.saturating_sub(at) <= 2 * REPLAY_WINDOW_SECS);
    if seen.insert(nonce.to_string(), now).is_some() {
        return Err(SignatureError::Replayed);
    }
    Ok(())
}

fn challenge(note: &Notification) -> Outcome {
    let meta = note.meta_game.clone().unwrap_or_default();
    match note.game() {
        Ok(_) => {
            let r = answer(StatusCode::OK, serde_json::json!({"accepted": true}));
            let what = format!("accepted {meta} {:?}", note.variants);
            (StatusCode::OK, "challenge".into(), None, what, r)
        }
        Err(e) => refuse(StatusCode::BAD_REQUEST, "challenge", None, e.to_string()),
    }
}

async fn notified(bot: &Arc<Bot>, note: Notification, body: Bytes) -> Outcome {
    let game = note.gameid.clone();
    let bad = |why: String| refuse(StatusCode::BAD_REQUEST, "move", game.clone(), why);
    let key = match note.check_move() {
        Ok((key, _)) => key,
        Err(e) => return bad(e.to_string()),
    };
    let accepted = |why: &str| {
        let r = answer(StatusCode::ACCEPTED, serde_json::json!({"accepted": true}));
        (
            StatusCode::ACCEPTED,
            "move".to_string(),
            game.clone(),
            why.to_string(),
            r,
        )
    };
    if !bot
        .storing
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(key.clone())
    {
        return accepted("duplicate");
    }
    // The write on a blocking thread, so that a burst's writes go on side
    // by side and the request threads keep answering. Synced before the
    // 202 only with --sync-before-202: a disk's sync takes milliseconds,
    // and over 100 on a busy one; by default the sync thread does it just
    // after (a process that dies loses nothing either way: the kernel has
    // the file).
    // Every file system call is on that thread, the check for a duplicate
    // too: the async workers, which answer every request, never wait for
    // the disk.
    let (writer, k) = (bot.clone(), key.clone());
    let stored = tokio::task::spawn_blocking(move || {
        if writer.state.known(&k) {
            Ok(Stored::Duplicate)
        } else if writer.config.sync_before_202 {
            writer.state.add(&k, &body).map(|()| Stored::Synced)
        } else {
            writer.state.add_unsynced(&k, &body).map(Stored::Unsynced)
        }
    })
    .await
    .unwrap_or_else(|e| {
        Err(crate::StateError {
            path: std::path::PathBuf::from("pending"),
            source: std::io::Error::other(e.to_string()),
        })
    });
    bot.storing
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .remove(&key);
    match &stored {
        Ok(Stored::Duplicate) => return accepted("duplicate"),
        // The thread ends only with the process.
        Ok(Stored::Unsynced(f)) => {
            if let Ok(f) = f.try_clone() {
                let _ = bot.syncer.send(ToSync::File(f));
            }
        }
        _ => {}
    }
    if let Err(e) = stored {
        return refuse(
            StatusCode::INTERNAL_SERVER_ERROR,
            "move",
            game.clone(),
            format!("cannot store the notification: {e}"),
        );
    }
    let _ = bot.jobs.send(Job {
        key,
        note,
        received: Instant::now(),
    });
    accepted("stored")
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

async fn process(bot: Arc<Bot>, job: Job) {
    let Job {
        key,
        note,
        received,
    } = job;
    let game = key.game_id.clone();
    // The state's calls on a blocking thread: a busy disk must not hold
    // the async workers, which answer the webhooks.
    let settle = |what: &str, ends_game: bool| {
        let (b, k, what) = (bot.clone(), key.clone(), what.to_string());
        let game = game.clone();
        async move {
            let settled =
                tokio::task::spawn_blocking(move || b.state.settle(&k, &what, ends_game)).await;
            let why = match settled {
                Ok(Ok(())) => return,
                Ok(Err(e)) => e.to_string(),
                Err(e) => e.to_string(),
            };
            line("state")
                .text("game", &game)
                .message(format!("cannot settle: {why}"))
                .log();
        }
    };
    let superseded = || {
        let (b, k) = (bot.clone(), key.clone());
        async move {
            tokio::task::spawn_blocking(move || b.state.superseded(&k))
                .await
                .unwrap_or(false)
        }
    };
    if superseded().await {
        line("drop")
            .text("game", &game)
            .int("plies", key.plies)
            .message("superseded by a later notification")
            .log();
        return settle("superseded", false).await;
    }
    let meta = note.meta_game.clone().unwrap_or_default();
    let replayed: Replayed = match note.game().and_then(|g| replay(g, &note.flat_moves())) {
        Ok(r) => r,
        Err(e) => {
            line("drop").text("game", &game).message(&e).log();
            return settle(&format!("refused: {e}"), false).await;
        }
    };
    let think = Think {
        move_ms: budget_ms(note.clock_curr, bot.config.max_move_ms),
        depth: bot.config.depth,
    };
    let replayed = Arc::new(replayed);
    if bot.is_stopping() {
        // Stays pending: the next start searches it.
        return;
    }
    let (g, plies, budget) = (game.clone(), key.plies, think.move_ms);
    let announce = move || {
        line("think")
            .text("game", &g)
            .int("plies", plies)
            .int("budget_ms", budget)
            .log();
    };
    let position = replayed.clone();
    let choice = search_retrying(
        &bot.pool,
        &game,
        key.plies,
        &bot.metrics,
        announce,
        move |table| position.choose(&think, table),
    )
    .await;
    let (mv, depth, nodes) = match choice {
        Searched::Answer(Ok(Choice::Move { text, depth, nodes })) => (text, depth, nodes),
        Searched::Answer(Ok(Choice::OnlyPass)) => {
            line("skip")
                .text("game", &game)
                .message("the only legal move is a pass, which AP cannot accept; the game is left to the clock")
                .log();
            return settle("only pass: nothing submitted", false).await;
        }
        Searched::Answer(Err(e)) => {
            line("drop").text("game", &game).message(&e).log();
            return settle(&format!("refused: {e}"), false).await;
        }
        // Logged by `search_retrying`, or the bot is stopping: the
        // notification stays pending.
        Searched::GaveUp(_) | Searched::Stopped => return,
    };
    let ends_game = replayed.ends_game(&mv);
    let mut wait = bot.config.retry;
    let mut stopping = bot.stopping.subscribe();
    loop {
        if superseded().await {
            line("drop")
                .text("game", &game)
                .message("superseded before submission")
                .log();
            return settle("superseded", false).await;
        }
        let client = bot.client.clone();
        let (meta2, game2, mv2) = (meta.clone(), game.clone(), mv.clone());
        let sent = Instant::now();
        let result = tokio::task::spawn_blocking(move || client.submit(&meta2, &game2, &mv2)).await;
        let took = |start: Instant| start.elapsed().as_secs_f64() * 1000.0;
        match result {
            Ok(Ok(Submitted::Accepted)) => {
                bot.metrics.submission(metrics::Outcome::Accepted);
                bot.metrics.submitted_after(received.elapsed());
                line("submit")
                    .text("game", &game)
                    .text("move", &mv)
                    .int("status", 200)
                    .ms("ms", took(sent))
                    .ms("since_notification_ms", took(received))
                    .int("depth", depth)
                    .int("nodes", nodes)
                    .log();
                return settle(&format!("submitted {mv}"), ends_game).await;
            }
            Ok(Ok(Submitted::Refused(message))) => {
                bot.metrics.submission(metrics::Outcome::Refused);
                line("submit")
                    .text("game", &game)
                    .text("move", &mv)
                    .int("status", 500)
                    .ms("ms", took(sent))
                    .message(format!("refused: {message}"))
                    .log();
                return settle(&format!("refused by AP: {message}"), false).await;
            }
            Ok(Err(e)) => {
                bot.metrics.submission(metrics::Outcome::Error);
                line("submit")
                    .text("game", &game)
                    .text("move", &mv)
                    .text(
                        "status",
                        e.status().map_or("-".to_string(), |s| s.to_string()),
                    )
                    .ms("ms", took(sent))
                    .int("retry_in_ms", wait.as_millis())
                    .message(format!("error: {e}"))
                    .log();
            }
            Err(e) => {
                line("error")
                    .text("game", &game)
                    .message(format!("submission task failed: {e}"))
                    .log();
            }
        }
        if bot.is_stopping() {
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
