//! The HTTP side: every request passes the same deadlines and body limit
//! as `stackfish serve`; a POST's signature is checked over the raw body
//! before anything is parsed; a move is stored before its 202 and then
//! searched and submitted in the background.

use std::collections::HashMap;
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
use tokio::sync::{mpsc, Semaphore};
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::timeout::{RequestBodyDeadlineLayer, TimeoutLayer};

use crate::client::{ApClient, Submitted};
use crate::games::{replay, Choice, Replayed, Think};
use crate::key::{PublicKey, SignatureError, REPLAY_WINDOW_SECS};
use crate::state::{JobKey, StateDir};
use crate::webhook::Notification;
use crate::{BotError, Config};

/// AP's bodies are a few kilobytes at most (a long Focus history is under
/// 4 KB); anything larger is refused with 413 before it is checked.
pub const BODY_LIMIT: usize = 64 * 1024;
/// The same deadlines as `stackfish serve`: the request head, the body,
/// the whole request.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(5);
pub const BODY_TIMEOUT: Duration = Duration::from_secs(5);
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(15);
/// Connections open at once; more are closed as soon as they are accepted.
pub const MAX_CONNECTIONS: usize = 64;
/// The bot's remaining time is planned as if this many moves were left.
pub const MOVES_LEFT: u64 = 30;
/// AP rounds the clock to whole hours: 0 means under half an hour, planned
/// as this much.
pub const CLOCK_UNDER_HALF_HOUR_MS: u64 = 10 * 60 * 1000;
/// Submission retries wait at most this long between two tries.
pub const MAX_RETRY_WAIT: Duration = Duration::from_secs(60);

struct Bot {
    key: PublicKey,
    state: StateDir,
    client: Arc<ApClient>,
    nonces: Mutex<HashMap<String, u64>>,
    searches: Arc<Semaphore>,
    jobs: mpsc::UnboundedSender<Job>,
    config: Settings,
}

#[derive(Clone)]
struct Settings {
    max_move_ms: u64,
    depth: Option<i32>,
    hash_mb: usize,
    retry: Duration,
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

/// One log line on standard error.
fn log(line: std::fmt::Arguments) {
    eprintln!("apbot: {line}");
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
    let listener = tokio::net::TcpListener::bind(config.listen)
        .await
        .map_err(|source| BotError::Listen {
            addr: config.listen,
            source,
        })?;
    let addr = listener.local_addr().unwrap_or(config.listen);
    let (jobs, mut queue) = mpsc::unbounded_channel();
    let bot = Arc::new(Bot {
        key: config.key,
        state,
        client: Arc::new(client),
        nonces: Mutex::new(HashMap::new()),
        searches: Arc::new(Semaphore::new(config.searches)),
        jobs,
        config: Settings {
            max_move_ms: config.max_move_ms,
            depth: config.depth,
            hash_mb: config.hash_mb,
            retry: config.retry,
        },
    });
    // What was pending when the bot last stopped is finished first.
    let pending = bot.state.pending()?;
    for (key, body) in pending {
        match serde_json::from_slice::<Notification>(&body) {
            Ok(note) => {
                log(format_args!(
                    "resume game={} plies={}",
                    key.game_id, key.plies
                ));
                let _ = bot.jobs.send(Job {
                    key,
                    note,
                    received: Instant::now(),
                });
            }
            Err(e) => {
                log(format_args!(
                    "drop game={} stored notification unreadable: {e}",
                    key.game_id
                ));
                bot.state.settle(&key, "unreadable")?;
            }
        }
    }
    let worker = bot.clone();
    tokio::spawn(async move {
        while let Some(job) = queue.recv().await {
            tokio::spawn(process(worker.clone(), job));
        }
    });
    log(format_args!(
        "listening on {}://{addr}",
        if tls.is_some() { "https" } else { "http" }
    ));
    let router = Router::new()
        .fallback(handle)
        .layer(RequestBodyLimitLayer::new(BODY_LIMIT))
        .layer(RequestBodyDeadlineLayer::new(BODY_TIMEOUT))
        .layer(TimeoutLayer::with_status_code(
            StatusCode::REQUEST_TIMEOUT,
            REQUEST_TIMEOUT,
        ))
        .with_state(bot);
    accept_loop(listener, router, tls).await;
    Ok(())
}

async fn accept_loop(
    listener: tokio::net::TcpListener,
    router: Router,
    tls: Option<tokio_rustls::TlsAcceptor>,
) {
    let slots = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            }
        };
        let Ok(slot) = slots.clone().try_acquire_owned() else {
            drop(stream);
            continue;
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

async fn handle(State(bot): State<Arc<Bot>>, request: Request) -> Response {
    let started = Instant::now();
    let method = request.method().clone();
    let (status, verb, game, note, response) = match method {
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
    };
    log(format_args!(
        "request method={method} verb={verb} game={} status={} ms={:.1}{}",
        game.as_deref().unwrap_or("-"),
        status.as_u16(),
        started.elapsed().as_secs_f64() * 1000.0,
        if note.is_empty() {
            String::new()
        } else {
            format!(" note={note}")
        }
    ));
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

async fn post(bot: &Bot, request: Request) -> Outcome {
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
        "move" => notified(bot, note, &body),
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

fn notified(bot: &Bot, note: Notification, body: &[u8]) -> Outcome {
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
    if bot.state.known(&key) {
        return accepted("duplicate");
    }
    if let Err(e) = bot.state.add(&key, body) {
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

async fn process(bot: Arc<Bot>, job: Job) {
    let Job {
        key,
        note,
        received,
    } = job;
    let game = key.game_id.clone();
    let settle = |what: &str| {
        if let Err(e) = bot.state.settle(&key, what) {
            log(format_args!("state game={game} cannot settle: {e}"));
        }
    };
    if bot.state.superseded(&key) {
        log(format_args!(
            "drop game={game} plies={} superseded by a later notification",
            key.plies
        ));
        return settle("superseded");
    }
    let meta = note.meta_game.clone().unwrap_or_default();
    let replayed: Replayed = match note.game().and_then(|g| replay(g, &note.flat_moves())) {
        Ok(r) => r,
        Err(e) => {
            log(format_args!("drop game={game} {e}"));
            return settle(&format!("refused: {e}"));
        }
    };
    let think = Think {
        move_ms: budget_ms(note.clock_curr, bot.config.max_move_ms),
        depth: bot.config.depth,
        hash_mb: bot.config.hash_mb,
    };
    let choice = {
        let Ok(_permit) = bot.searches.clone().acquire_owned().await else {
            return;
        };
        log(format_args!(
            "think game={game} plies={} budget_ms={}",
            key.plies, think.move_ms
        ));
        let started = Instant::now();
        let choice = tokio::task::spawn_blocking(move || replayed.choose(&think)).await;
        log(format_args!(
            "thought game={game} ms={:.1}",
            started.elapsed().as_secs_f64() * 1000.0
        ));
        choice
    };
    let (mv, depth, nodes) = match choice {
        Ok(Ok(Choice::Move { text, depth, nodes })) => (text, depth, nodes),
        Ok(Ok(Choice::OnlyPass)) => {
            log(format_args!(
                "skip game={game} the only legal move is a pass, which AP cannot accept; the game is left to the clock"
            ));
            return settle("only pass: nothing submitted");
        }
        Ok(Err(e)) => {
            log(format_args!("drop game={game} {e}"));
            return settle(&format!("refused: {e}"));
        }
        Err(e) => {
            // The search panicked: kept pending for the next start.
            log(format_args!("error game={game} search failed: {e}"));
            return;
        }
    };
    let mut wait = bot.config.retry;
    loop {
        if bot.state.superseded(&key) {
            log(format_args!(
                "drop game={game} superseded before submission"
            ));
            return settle("superseded");
        }
        let client = bot.client.clone();
        let (meta2, game2, mv2) = (meta.clone(), game.clone(), mv.clone());
        let sent = Instant::now();
        let result = tokio::task::spawn_blocking(move || client.submit(&meta2, &game2, &mv2)).await;
        let took = |start: Instant| start.elapsed().as_secs_f64() * 1000.0;
        match result {
            Ok(Ok(Submitted::Accepted)) => {
                log(format_args!(
                    "submit game={game} move={mv} status=200 ms={:.1} since_notification_ms={:.1} depth={depth} nodes={nodes}",
                    took(sent),
                    took(received)
                ));
                return settle(&format!("submitted {mv}"));
            }
            Ok(Ok(Submitted::Refused(message))) => {
                log(format_args!(
                    "submit game={game} move={mv} status=500 ms={:.1} refused: {message}",
                    took(sent)
                ));
                return settle(&format!("refused by AP: {message}"));
            }
            Ok(Err(e)) => {
                log(format_args!(
                    "submit game={game} move={mv} status={} ms={:.1} retry_in_ms={} error: {e}",
                    e.status().map_or("-".to_string(), |s| s.to_string()),
                    took(sent),
                    wait.as_millis()
                ));
            }
            Err(e) => {
                log(format_args!(
                    "error game={game} submission task failed: {e}"
                ));
            }
        }
        tokio::time::sleep(wait).await;
        wait = (wait * 2).min(MAX_RETRY_WAIT);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
