//! The HTTP face of the board: routes, the guard every request passes
//! (host check, error bodies, headers), request bodies read under a size
//! limit and a deadline, and the live stream of states to the page.

use std::collections::HashMap;
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode, Uri};
use axum::middleware::{self, Next};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, MethodRouter};
use axum::Router;
use futures_util::stream::{self, Stream};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::{watch, Notify, Semaphore};
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::timeout::{RequestBodyDeadlineLayer, TimeoutLayer};

use super::{
    BODY_LIMIT, BODY_TIMEOUT, HEADER_TIMEOUT, MAX_CONNECTIONS, MAX_EVENT_STREAMS, REQUEST_TIMEOUT,
    SHUTDOWN_GRACE,
};
use stackfish_board::api::{self, Act, Answer, Route};
use stackfish_board::{App, StateView};

use super::metrics::Metrics;

const HTML: &str = "text/html; charset=utf-8";
const CSS: &str = "text/css; charset=utf-8";
const JS: &str = "text/javascript; charset=utf-8";

/// A file of the page, compiled into the binary.
struct PageFile {
    path: &'static str,
    content_type: &'static str,
    text: &'static str,
}

const fn file(path: &'static str, content_type: &'static str, text: &'static str) -> PageFile {
    PageFile {
        path,
        content_type,
        text,
    }
}

/// Every file of the page, all answered to GET: routing and the 405
/// answers both read this one list. A new module (a panel, a game's
/// drawing) is a line here and an `import` or a `<script type="module">`.
const PAGE_FILES: &[PageFile] = &[
    file("/", HTML, include_str!("page.html")),
    file("/index.html", HTML, include_str!("page.html")),
    file("/page.css", CSS, include_str!("page.css")),
    file("/page.js", JS, include_str!("page.js")),
    file("/store.js", JS, include_str!("store.js")),
    file("/draw.js", JS, include_str!("draw.js")),
    file("/games.js", JS, include_str!("games.js")),
    file("/game-mixtour.js", JS, include_str!("game-mixtour.js")),
    file("/game-coinstack.js", JS, include_str!("game-coinstack.js")),
    file("/game-silo.js", JS, include_str!("game-silo.js")),
    file("/game-castle.js", JS, include_str!("game-castle.js")),
    file("/panel-analysis.js", JS, include_str!("panel-analysis.js")),
    file("/panel-graph.js", JS, include_str!("panel-graph.js")),
    file("/panel-review.js", JS, include_str!("panel-review.js")),
    file("/panel-moves.js", JS, include_str!("panel-moves.js")),
    file("/panel-game.js", JS, include_str!("panel-game.js")),
    file("/panel-explorer.js", JS, include_str!("panel-explorer.js")),
];

/// The event stream: the one path of the API that is HTTP's own.
const EVENTS: &str = "/api/events";

/// The Prometheus text of the server's counters.
const METRICS: &str = "/metrics";

/// The method `path` takes, if it is one of ours.
fn allowed_method(path: &str) -> Option<&'static str> {
    if path == METRICS {
        return Some("GET");
    }
    if PAGE_FILES.iter().any(|f| f.path == path) {
        return Some("GET");
    }
    if path == EVENTS {
        return Some("GET");
    }
    api::route(path).map(|r| r.method())
}

/// A comment line on the event stream this often, so that a dead page's
/// connection is noticed (the write fails) and closed.
const EVENTS_KEEP_ALIVE: Duration = Duration::from_secs(15);

#[derive(Clone)]
struct Ctx {
    app: Arc<App>,
    /// The board's latest version, sent by its host on every change.
    changes: watch::Receiver<u64>,
    /// The name the server was started with: always a valid Host.
    host: Arc<str>,
    /// Becomes true when the server shuts down: event streams end.
    stopped: watch::Receiver<bool>,
    /// One per open event stream: a stream lasts as long as its page, so
    /// their number is bounded apart from the connections'.
    streams: Arc<Semaphore>,
    metrics: Arc<Metrics>,
}

/// An open event stream's slot; it counts in the metrics while it lives.
struct StreamSlot {
    _permit: tokio::sync::OwnedSemaphorePermit,
    metrics: Arc<Metrics>,
}

impl Drop for StreamSlot {
    fn drop(&mut self) {
        self.metrics.stream_closed();
    }
}

pub fn router(
    app: Arc<App>,
    changes: watch::Receiver<u64>,
    host: &str,
    stopped: watch::Receiver<bool>,
    metrics: Arc<Metrics>,
) -> Router {
    let ctx = Ctx {
        app,
        changes,
        host: host.into(),
        stopped,
        streams: Arc::new(Semaphore::new(MAX_EVENT_STREAMS)),
        metrics,
    };
    let mut router = Router::new();
    for f in PAGE_FILES {
        let (content_type, text) = (f.content_type, f.text);
        router = router.route(f.path, get(move || async move { page(content_type, text) }));
    }
    for r in api::ROUTES {
        let route = match r.act {
            Act::Get(_) => {
                get(move |State(ctx): State<Ctx>| async move { response(r.answer(&ctx.app, &[])) })
            }
            Act::Post(_) => post_route(r),
        };
        router = router.route(r.path, route);
    }
    router = router.route(EVENTS, get(api_events));
    router = router.route(METRICS, get(metrics_text));
    router
        .fallback(no_such_path)
        // Innermost first: the body's limit and deadline wrap the body the
        // handlers read; the whole request has its own deadline; the guard
        // sees every answer, the timeouts' included.
        .layer(RequestBodyLimitLayer::new(BODY_LIMIT))
        .layer(RequestBodyDeadlineLayer::new(BODY_TIMEOUT))
        .layer(TimeoutLayer::with_status_code(
            StatusCode::REQUEST_TIMEOUT,
            REQUEST_TIMEOUT,
        ))
        .layer(middleware::from_fn_with_state(ctx.clone(), guard))
        .with_state(ctx)
}

fn error(status: StatusCode, message: impl Into<String>) -> Response {
    response(Answer::error(status.as_u16(), message))
}

fn status_of(code: u16) -> StatusCode {
    StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
}

/// The board's answer as an HTTP response; a download is an attachment.
fn response(answer: Answer) -> Response {
    let mut r = (
        status_of(answer.status),
        [(header::CONTENT_TYPE, answer.content_type)],
        answer.body,
    )
        .into_response();
    if let Some(name) = answer.attachment {
        if let Ok(v) = HeaderValue::from_str(&format!("attachment; filename=\"{name}\"")) {
            r.headers_mut().insert(header::CONTENT_DISPOSITION, v);
        }
    }
    r
}

/// Every request passes here: hosts other than ours are refused, and every
/// answer leaves with the same headers and, if it is an error, a JSON body
/// saying what went wrong (the layers below answer some errors bare).
async fn guard(State(ctx): State<Ctx>, request: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = request.method().clone();
    let path = request.uri().path().to_string();
    let checked = check_host(request.headers(), request.uri(), &ctx.host).and_then(|()| {
        check_origin(&method, request.headers()).map_err(|e| (StatusCode::FORBIDDEN, e))
    });
    let mut response = match checked {
        Ok(()) => next.run(request).await,
        Err((status, refused)) => error(status, refused),
    };
    let status = response.status();
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if (status.is_client_error() || status.is_server_error()) && !is_json {
        response = bare_error(status, &method, &path);
    }
    let headers = response.headers_mut();
    // The state changes under the page's feet; never cache it.
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    let known = if allowed_method(&path).is_some() {
        path.as_str()
    } else {
        "other"
    };
    ctx.metrics
        .request(method.as_str(), known, status.as_u16(), started.elapsed());
    response
}

async fn metrics_text(State(ctx): State<Ctx>) -> Response {
    (
        [(header::CONTENT_TYPE, super::metrics::CONTENT_TYPE)],
        ctx.metrics.encode(),
    )
        .into_response()
}

/// The JSON error for an answer a layer gave without a body.
fn bare_error(status: StatusCode, method: &Method, path: &str) -> Response {
    match status {
        StatusCode::METHOD_NOT_ALLOWED => {
            let allowed = allowed_method(path).unwrap_or("GET");
            let mut r = response(api::wrong_method(path, allowed, method.as_str()));
            if let Ok(v) = HeaderValue::from_str(allowed) {
                r.headers_mut().insert(header::ALLOW, v);
            }
            r
        }
        StatusCode::PAYLOAD_TOO_LARGE => too_large(),
        StatusCode::REQUEST_TIMEOUT => error(
            status,
            format!(
                "the request was not answered within {} s",
                super::REQUEST_TIMEOUT.as_secs()
            ),
        ),
        _ => error(
            status,
            status.canonical_reason().unwrap_or("error").to_lowercase(),
        ),
    }
}

fn too_large() -> Response {
    error(
        StatusCode::PAYLOAD_TOO_LARGE,
        format!("the request body is larger than {BODY_LIMIT} bytes"),
    )
}

/// Refuses host names other than `localhost`, an IP address and the one
/// given to `--host`: a site that points its own name at 127.0.0.1 (DNS
/// rebinding) would otherwise get answers. The host is the request's
/// target when it is in absolute form (`GET http://name/ HTTP/1.1`, which
/// then names it, RFC 9112 3.2.2), else the `Host` header, which HTTP/1.1
/// requires (400 without it).
fn check_host(headers: &HeaderMap, uri: &Uri, own: &str) -> Result<(), (StatusCode, String)> {
    let host = match uri.authority() {
        Some(authority) => authority.as_str(),
        None => match headers.get(header::HOST) {
            Some(host) => host.to_str().unwrap_or(""),
            None => {
                return Err((
                    StatusCode::BAD_REQUEST,
                    "a request must name its host (the Host header)".to_string(),
                ))
            }
        },
    };
    let name = if let Some(rest) = host.strip_prefix('[') {
        rest.split(']').next().unwrap_or("")
    } else {
        host.rsplit_once(':').map_or(host, |(name, _)| name)
    };
    if name.eq_ignore_ascii_case("localhost")
        || name.eq_ignore_ascii_case(own)
        || name.parse::<std::net::IpAddr>().is_ok()
    {
        Ok(())
    } else {
        Err((
            StatusCode::FORBIDDEN,
            format!(
                "unknown host {:?}: use the address the server printed",
                truncated(name)
            ),
        ))
    }
}

/// A request that changes the board (anything but GET and HEAD) must come
/// from the page itself: a browser says where a request comes from in
/// `Sec-Fetch-Site` and `Origin`, and both, when present, must name this
/// server. Defence in depth behind the JSON-only bodies: a site the user
/// visits cannot play moves here even if a browser let it send JSON. Tools
/// (curl, scripts) send neither header and are not affected.
fn check_origin(method: &Method, headers: &HeaderMap) -> Result<(), String> {
    if matches!(*method, Method::GET | Method::HEAD) {
        return Ok(());
    }
    if let Some(site) = headers.get("sec-fetch-site") {
        let site = site.to_str().unwrap_or("");
        if !site.eq_ignore_ascii_case("same-origin") {
            return Err(format!(
                "a request from another site ({:?}) cannot change the board",
                truncated(site)
            ));
        }
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or("");
        let host = headers
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .unwrap_or("");
        let authority = origin
            .strip_prefix("http://")
            .or_else(|| origin.strip_prefix("https://"));
        if host.is_empty() || authority.is_none_or(|a| !a.eq_ignore_ascii_case(host)) {
            return Err(format!(
                "a request from {:?} cannot change the board: only the page served here can",
                truncated(origin)
            ));
        }
    }
    Ok(())
}

/// Whether a `Content-Type` value is JSON's media type: exactly
/// `application/json` (any case), with or without parameters such as
/// `; charset=utf-8`, and nothing like `application/jsonx`.
fn is_json_media_type(value: &str) -> bool {
    let essence = value.split(';').next().unwrap_or("").trim();
    essence.eq_ignore_ascii_case("application/json")
}

/// At most 100 characters of a header we echo in an error.
fn truncated(text: &str) -> String {
    text.chars().take(100).collect()
}

async fn no_such_path(request: Request) -> Response {
    let path = request.uri().path();
    if allowed_method(path).is_some() {
        return bare_error(StatusCode::METHOD_NOT_ALLOWED, request.method(), path);
    }
    response(api::no_such_path(path))
}

fn page(content_type: &'static str, text: &'static str) -> Response {
    ([(header::CONTENT_TYPE, content_type)], text).into_response()
}

/// Server-sent events: the state now, then again after every change (a
/// move, an engine's report). Changes that come faster than the page reads
/// are merged: it always gets the newest state.
async fn api_events(State(ctx): State<Ctx>) -> Response {
    let Ok(permit) = ctx.streams.clone().try_acquire_owned() else {
        return error(
            StatusCode::SERVICE_UNAVAILABLE,
            format!("too many pages are open on this board ({MAX_EVENT_STREAMS})"),
        );
    };
    ctx.metrics.stream_opened();
    let slot = StreamSlot {
        _permit: permit,
        metrics: ctx.metrics.clone(),
    };
    let changes = ctx.changes.clone();
    let stopped = ctx.stopped.clone();
    let app = ctx.app.clone();
    let events = stream::unfold(
        (app, changes, stopped, true, slot),
        |(app, mut changes, mut stopped, first, slot)| async move {
            if *stopped.borrow() {
                return None;
            }
            if !first {
                tokio::select! {
                    changed = changes.changed() => changed.ok()?,
                    _ = stopped.changed() => return None,
                }
            }
            changes.borrow_and_update();
            let event = state_event(&app.state());
            Some((
                Ok::<Event, Infallible>(event),
                (app, changes, stopped, false, slot),
            ))
        },
    );
    sse(events)
}

fn sse<S: Stream<Item = Result<Event, Infallible>> + Send + 'static>(events: S) -> Response {
    Sse::new(events)
        .keep_alive(KeepAlive::new().interval(EVENTS_KEEP_ALIVE))
        .into_response()
}

fn state_event(state: &StateView) -> Event {
    match serde_json::to_string(state) {
        Ok(text) => Event::default().event("state").data(text),
        Err(e) => Event::default()
            .event("error")
            .data(format!("cannot encode the state: {e}")),
    }
}

/// Reads a POST body: JSON only, at most `BODY_LIMIT` bytes, within
/// `BODY_TIMEOUT`.
async fn read_body(headers: &HeaderMap, body: Body) -> Result<Bytes, Response> {
    // Only JSON is accepted, which a web page of another site cannot send
    // here without the browser asking first (and this server never says
    // yes): a visited site cannot play moves on the board.
    let json = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(is_json_media_type);
    if !json {
        return Err(error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "POST requests must have Content-Type: application/json",
        ));
    }
    axum::body::to_bytes(body, usize::MAX)
        .await
        .map_err(|e| body_error(&e))
}

/// A body that could not be read: too long, too slow, or cut off.
fn body_error(e: &axum::Error) -> Response {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(c) = cause {
        if c.is::<http_body_util::LengthLimitError>() {
            return too_large();
        }
        if c.is::<tower_http::timeout::TimeoutError>() {
            return error(
                StatusCode::REQUEST_TIMEOUT,
                format!(
                    "the request body did not arrive within {} s",
                    BODY_TIMEOUT.as_secs()
                ),
            );
        }
        cause = c.source();
    }
    error(
        StatusCode::BAD_REQUEST,
        format!("cannot read the request body: {e}"),
    )
}

/// A POST route: read the body, then answer on a thread that may wait
/// for the game's lock, so the server's own threads never do.
fn post_route(route: &'static Route) -> MethodRouter<Ctx> {
    post(
        move |State(ctx): State<Ctx>, headers: HeaderMap, body: Body| async move {
            let bytes = match read_body(&headers, body).await {
                Ok(b) => b,
                Err(r) => return r,
            };
            let app = ctx.app.clone();
            // A bug in a handler must cost one 500, not the connection or the server.
            match tokio::task::spawn_blocking(move || route.answer(&app, &bytes)).await {
                Ok(answer) => response(answer),
                Err(_) => error(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "internal error while answering the request",
                ),
            }
        },
    )
}

/// One open connection, as the accept loop sees it when it must choose one
/// to close.
struct Connection {
    /// Milliseconds after the loop's start of the last byte read or written.
    last_progress: Arc<AtomicU64>,
    /// Requests being answered; an open event stream counts for as long as
    /// it lasts (those have their own limit, `MAX_EVENT_STREAMS`).
    busy: Arc<AtomicUsize>,
    /// Told to close when the connection is evicted.
    close: Arc<Notify>,
}

/// The open connections by id.
type Connections = Arc<Mutex<HashMap<u64, Connection>>>;

/// Accepts connections until told to stop; each is served by a task of its
/// own with hyper's deadline on the request head. With `MAX_CONNECTIONS`
/// open, a new connection closes the one that has been idle longest (no
/// request being answered, the oldest last byte: a stalled client or a
/// forgotten keep-alive) rather than being refused itself, so a local
/// client holding hundreds of stalled connections cannot lock the page
/// out. Only when every connection is answering a request is the new one
/// closed.
pub(crate) async fn accept_loop(
    listener: tokio::net::TcpListener,
    router: Router,
    mut stop: watch::Receiver<bool>,
) {
    let epoch = Instant::now();
    let open: Connections = Arc::default();
    let mut next_id: u64 = 0;
    loop {
        let stream = tokio::select! {
            _ = stop.changed() => return,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(_) => {
                    // Out of file descriptors and the like: retry, but
                    // without spinning on an error that persists.
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    continue;
                }
            },
        };
        let Some(conn) = admit(&open, next_id, epoch) else {
            // Every connection is answering a request: closing the new one
            // at once costs nothing; queueing would hold a socket.
            drop(stream);
            continue;
        };
        let id = next_id;
        next_id += 1;
        let io = TokioIo::new(Tracked {
            inner: stream,
            epoch,
            last_progress: conn.last_progress.clone(),
        });
        let service = counted_service(router.clone(), conn.busy.clone());
        let close = conn.close.clone();
        let open = open.clone();
        let mut stop = stop.clone();
        tokio::spawn(async move {
            let connection = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(HEADER_TIMEOUT)
                .serve_connection(io, service);
            tokio::pin!(connection);
            tokio::select! {
                _ = connection.as_mut() => {}
                _ = close.notified() => {}
                _ = stop.changed() => {
                    connection.as_mut().graceful_shutdown();
                    let _ = tokio::time::timeout(SHUTDOWN_GRACE, connection).await;
                }
            }
            if let Ok(mut open) = open.lock() {
                open.remove(&id);
            }
        });
    }
}

/// Registers connection `id`, first evicting the idlest one when all
/// `MAX_CONNECTIONS` are taken; `None` when none is idle.
fn admit(open: &Connections, id: u64, epoch: Instant) -> Option<Connection> {
    let mut open = open.lock().ok()?;
    if open.len() >= MAX_CONNECTIONS {
        let victim = open
            .iter()
            .filter(|(_, c)| c.busy.load(Ordering::SeqCst) == 0)
            .min_by_key(|(&id, c)| (c.last_progress.load(Ordering::SeqCst), id))
            .map(|(&id, _)| id)?;
        if let Some(c) = open.remove(&victim) {
            c.close.notify_one();
        }
    }
    let now = epoch.elapsed().as_millis() as u64;
    let conn = Connection {
        last_progress: Arc::new(AtomicU64::new(now)),
        busy: Arc::new(AtomicUsize::new(0)),
        close: Arc::new(Notify::new()),
    };
    let handle = Connection {
        last_progress: conn.last_progress.clone(),
        busy: conn.busy.clone(),
        close: conn.close.clone(),
    };
    open.insert(id, conn);
    Some(handle)
}

/// The router as a hyper service that counts the requests it is answering
/// in `busy`; an event stream that opened stays counted.
fn counted_service(
    router: Router,
    busy: Arc<AtomicUsize>,
) -> impl hyper::service::Service<
    hyper::Request<hyper::body::Incoming>,
    Response = Response,
    Error = Infallible,
    Future = impl std::future::Future<Output = Result<Response, Infallible>> + Send,
> + Clone {
    let inner = TowerToHyperService::new(router);
    hyper::service::service_fn(move |request: hyper::Request<hyper::body::Incoming>| {
        let stream = request.uri().path() == "/api/events";
        busy.fetch_add(1, Ordering::SeqCst);
        let answer = hyper::service::Service::call(&inner, request);
        let busy = busy.clone();
        async move {
            let response = answer.await?;
            if !(stream && response.status() == StatusCode::OK) {
                busy.fetch_sub(1, Ordering::SeqCst);
            }
            Ok(response)
        }
    })
}

/// A connection's socket that notes when a byte last went through it.
struct Tracked {
    inner: tokio::net::TcpStream,
    epoch: Instant,
    last_progress: Arc<AtomicU64>,
}

impl Tracked {
    fn touch(&self) {
        let now = self.epoch.elapsed().as_millis() as u64;
        self.last_progress.store(now, Ordering::SeqCst);
    }
}

impl AsyncRead for Tracked {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if buf.filled().len() > before {
            self.touch();
        }
        polled
    }
}

impl AsyncWrite for Tracked {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write(cx, data);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            self.touch();
        }
        polled
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            self.touch();
        }
        polled
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    /// The status line and the `Allow` header of a bare request.
    fn ask(addr: std::net::SocketAddr, method: &str, path: &str) -> (u16, Option<String>) {
        let mut stream = std::net::TcpStream::connect(addr).expect("connects");
        let body = if method == "GET" { "" } else { "{}" };
        let request = format!(
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        stream.write_all(request.as_bytes()).expect("sends");
        let mut answer = String::new();
        stream.read_to_string(&mut answer).expect("reads");
        let status = answer
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        let allow = answer
            .lines()
            .find_map(|l| l.strip_prefix("allow: ").map(str::to_string));
        (status, allow)
    }

    #[test]
    fn every_page_file_answers_get_and_refuses_other_methods() {
        let server = crate::WebServer::start("127.0.0.1", 0).expect("server starts");
        let addr = server.addr();
        for f in PAGE_FILES {
            assert_eq!(ask(addr, "GET", f.path).0, 200, "GET {}", f.path);
            for method in ["POST", "PUT", "DELETE"] {
                let (status, allow) = ask(addr, method, f.path);
                assert_eq!(status, 405, "{method} {}", f.path);
                assert_eq!(allow.as_deref(), Some("GET"), "{method} {}", f.path);
            }
        }
        server.shutdown();
    }

    #[test]
    fn every_api_path_refuses_the_method_it_does_not_take() {
        let server = crate::WebServer::start("127.0.0.1", 0).expect("server starts");
        let addr = server.addr();
        let paths = api::ROUTES.iter().map(|r| (r.path, r.method()));
        for (path, method) in paths.chain([(EVENTS, "GET")]) {
            let other = if method == "GET" { "POST" } else { "GET" };
            let (status, allow) = ask(addr, other, path);
            assert_eq!(status, 405, "{other} {path}");
            assert_eq!(allow.as_deref(), Some(method), "{other} {path}");
        }
        server.shutdown();
    }

    #[test]
    fn the_page_loads_every_module_it_is_served_with() {
        // A module the page never imports is dead weight; one it imports
        // but the server lacks is a broken page.
        let scripts: Vec<&PageFile> = PAGE_FILES.iter().filter(|f| f.content_type == JS).collect();
        let mut all_text = String::new();
        for f in PAGE_FILES {
            all_text.push_str(f.text);
        }
        for f in &scripts {
            let name = &f.path[1..];
            assert!(
                all_text.contains(&format!("\"/{name}\""))
                    || all_text.contains(&format!("'./{name}'")),
                "{name} is served but nothing loads it"
            );
        }
        for f in &scripts {
            for import in f.text.lines().filter_map(|l| l.split(" from './").nth(1)) {
                let name = import.split('\'').next().unwrap_or("");
                assert!(
                    scripts.iter().any(|s| s.path[1..] == *name),
                    "{} imports {name}, which is not served",
                    f.path
                );
            }
        }
    }
}
