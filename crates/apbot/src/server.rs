//! The HTTP side: every request passes the same deadlines and body limit
//! as `stackfish serve`; a POST's signature is checked over the raw body
//! before anything is parsed; a move is stored before its 202 and then
//! handed to `play`, which searches it on the search threads (`pool`, at a
//! lower priority than the request handlers) and submits it in the
//! background.

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

use crate::client::ApClient;
use crate::key::{PublicKey, SignatureError, REPLAY_WINDOW_SECS};
use crate::log::line;
use crate::metrics::{self, Metrics};
use crate::play::{self, Job, Player};
use crate::pool::SearchPool;
use crate::state::{JobKey, StateDir};
use crate::webhook::Notification;
use crate::{BotError, Config};
use stackfish_games::Networks;

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
/// How often the state's markers are pruned (`StateDir::prune`).
pub const PRUNE_EVERY: Duration = Duration::from_secs(60);

struct Bot {
    /// What the jobs use: the state, the search threads, AP's client, the
    /// counters and the stop flag.
    play: Arc<Player>,
    key: PublicKey,
    nonces: Mutex<HashMap<String, u64>>,
    /// Notifications being written: two deliveries of one notification
    /// at once must make one job, not two.
    storing: Mutex<HashSet<JobKey>>,
    /// The thread that syncs stored notifications after their 202.
    syncer: std::sync::mpsc::Sender<ToSync>,
    jobs: mpsc::UnboundedSender<Job>,
    config: Settings,
    /// Whether `GET /metrics` is answered on the webhook listener (no
    /// `--metrics-listen` of its own).
    metrics_here: bool,
}

#[derive(Clone)]
struct Settings {
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

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

impl Bot {
    fn is_stopping(&self) -> bool {
        self.play.is_stopping()
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
    networks: Networks,
) -> Result<(), BotError> {
    // Installed first: a signal from now on is a graceful stop.
    let mut signals = stackfish_service::Signals::install().map_err(BotError::Signals)?;
    let listener = listen(config.listen)?;
    let addr = listener.local_addr().unwrap_or(config.listen);
    let metrics_listener = match config.metrics_listen {
        Some(a) => Some(listen(a)?),
        None => None,
    };
    let (jobs, mut queue) = mpsc::unbounded_channel();
    let (stopping, _) = watch::channel(false);
    let pool = start_pool(&config)?;
    let syncer = start_syncer(state.clone()).map_err(BotError::SyncThread)?;
    let bot = Arc::new(Bot {
        play: Arc::new(Player {
            state,
            client: Arc::new(client),
            pool,
            metrics: Arc::new(Metrics::new()),
            stopping,
            max_move_ms: config.max_move_ms,
            depth: config.depth,
            networks,
            retry: config.retry,
        }),
        key: config.key,
        nonces: Mutex::new(HashMap::new()),
        storing: Mutex::new(HashSet::new()),
        syncer,
        jobs,
        config: Settings {
            stop_timeout: config.stop_timeout,
            keep_done: config.keep_done,
            sync_before_202: config.sync_before_202,
        },
        metrics_here: metrics_listener.is_none(),
    });
    prune(&bot);
    // What was pending when the bot last stopped is finished first.
    resume(&bot)?;
    let scheme = if tls.is_some() { "https" } else { "http" };
    line("listening")
        .message(format!("on {scheme}://{addr}"))
        .json_only("url", format!("{scheme}://{addr}"))
        .log();
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
                tasks.spawn(play::process(bot.play.clone(), job));
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
    stop(&bot, signal, tasks, &acceptors).await
}

/// Every request through `handle`, with the deadlines and the body limit;
/// `metrics_only` for the listener of `--metrics-listen`.
fn router(bot: Arc<Bot>, metrics_only: bool) -> Router {
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
}

/// A listener on `addr` with the backlog of `LISTEN_BACKLOG`.
fn listen(addr: std::net::SocketAddr) -> Result<tokio::net::TcpListener, BotError> {
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
}

/// The search threads, at a lower priority where the OS allows it (the
/// `searches` line says which).
fn start_pool(config: &Config) -> Result<SearchPool, BotError> {
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
    Ok(pool)
}

/// Queues the notifications left pending at the last stop; one that
/// cannot be read is settled as such.
fn resume(bot: &Bot) -> Result<(), BotError> {
    let pending = bot.play.state.pending()?;
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
                bot.play.state.settle(&key, "unreadable", false)?;
            }
        }
    }
    Ok(())
}

/// The graceful stop: refuse new work, let what runs finish within the
/// deadline, and leave the rest pending (it is on disk already).
async fn stop(
    bot: &Bot,
    signal: &str,
    mut tasks: JoinSet<()>,
    acceptors: &[tokio::task::JoinHandle<()>],
) -> Result<(), BotError> {
    bot.play.stopping.send_replace(true);
    // A search still queued stays pending; one running may finish.
    bot.play.pool.close();
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
    for a in acceptors {
        a.abort();
    }
    // Every notification answered 202 is on disk before the exit.
    let (done, synced) = tokio::sync::oneshot::channel();
    if bot.syncer.send(ToSync::Barrier(done)).is_ok() {
        let _ = synced.await;
    }
    bot.play.state.flush()?;
    let (_, pending) = bot.play.state.summary();
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
    match bot
        .play
        .state
        .prune(SystemTime::now(), bot.config.keep_done)
    {
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
        let (games, pending) = tokio::task::spawn_blocking(move || b.play.state.summary())
            .await
            .unwrap_or((0, 0));
        let text = bot
            .play
            .metrics
            .encode(games, pending, bot.play.pool.waiting());
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
    bot.play.metrics.request(&verb, status.as_u16());
    if status == StatusCode::ACCEPTED {
        bot.play.metrics.webhook_answered(took);
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
        bot.play.metrics.signature_failure();
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
        if writer.play.state.known(&k) {
            Ok(Stored::Duplicate)
        } else if writer.config.sync_before_202 {
            writer.play.state.add(&k, &body).map(|()| Stored::Synced)
        } else {
            writer
                .play
                .state
                .add_unsynced(&k, &body)
                .map(Stored::Unsynced)
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
