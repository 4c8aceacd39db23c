//! `stackfish serve`: a local web page to play against the engine. tiny_http
//! carries HTTP; this module routes each request to the JSON API of
//! `state.rs` or to the page, which is compiled into the binary (nothing is
//! ever read from disk). The API is documented in protocol.md.

mod state;

use std::io::{Read, Write};
use std::net::{IpAddr, SocketAddr};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde::Serialize;
use tiny_http::{Header, Method, Request, Response};

pub use state::{
    ApiError, App, BoardView, FenRequest, KeysView, MoveRequest, NewRequest, StateView,
    UndoRequest, DEFAULT_MOVE_TIME_MS, MAX_MOVE_TIME_MS, MIN_MOVE_TIME_MS,
};

pub const DEFAULT_PORT: u16 = 8080;
pub const DEFAULT_HOST: &str = "127.0.0.1";
/// Every request body the page sends is well under a kilobyte; a FEN is
/// about a hundred bytes.
pub const BODY_LIMIT: usize = 64 * 1024;
/// Declared body lengths tiny_http may safely drain; see `finish`.
pub const DRAIN_LIMIT: usize = 16 * 1024 * 1024;
/// Requests handled at once; more get 503 rather than a thread each.
pub const MAX_IN_FLIGHT: usize = 64;

const PAGE_HTML: &str = include_str!("page.html");
const PAGE_JS: &str = include_str!("page.js");
const PAGE_CSS: &str = include_str!("page.css");

/// A response before it is written: built by code that cannot panic the
/// connection away, written in one place.
#[derive(Debug)]
struct Reply {
    status: u16,
    content_type: &'static str,
    body: String,
    headers: Vec<(&'static str, String)>,
}

impl Reply {
    fn json<T: Serialize>(status: u16, value: &T) -> Reply {
        match serde_json::to_string(value) {
            Ok(body) => Reply::new(status, "application/json; charset=utf-8", body),
            Err(e) => Reply::error(500, format!("cannot encode the answer: {e}")),
        }
    }

    fn error(status: u16, message: impl Into<String>) -> Reply {
        let body = serde_json::json!({ "error": message.into() }).to_string();
        Reply::new(status, "application/json; charset=utf-8", body)
    }

    fn new(status: u16, content_type: &'static str, body: String) -> Reply {
        Reply {
            status,
            content_type,
            body,
            headers: Vec::new(),
        }
    }

    fn with_header(mut self, name: &'static str, value: String) -> Reply {
        self.headers.push((name, value));
        self
    }

    fn into_response(self) -> Response<std::io::Cursor<Vec<u8>>> {
        let mut response = Response::from_string(self.body).with_status_code(self.status);
        let mut headers = vec![
            ("Content-Type", self.content_type.to_string()),
            // The state changes under the page's feet; never cache it.
            ("Cache-Control", "no-store".to_string()),
            ("X-Content-Type-Options", "nosniff".to_string()),
        ];
        headers.extend(self.headers);
        for (name, value) in headers {
            // Names and values are ours and plain ASCII; a bad one is dropped.
            if let Ok(h) = Header::from_bytes(name.as_bytes(), value.as_bytes()) {
                response.add_header(h);
            }
        }
        response
    }
}

impl From<ApiError> for Reply {
    fn from(e: ApiError) -> Reply {
        Reply::error(e.status, e.message)
    }
}

/// A running server: the listening socket, the acceptor thread and the game.
pub struct WebServer {
    http: Arc<tiny_http::Server>,
    addr: SocketAddr,
    app: Arc<App>,
    closing: Arc<AtomicBool>,
    acceptor: Option<JoinHandle<()>>,
}

impl WebServer {
    /// Binds `host:port` (port 0: any free port) and starts answering.
    pub fn start(host: &str, port: u16) -> Result<WebServer, String> {
        let http = tiny_http::Server::http((host, port))
            .map_err(|e| format!("cannot listen on {host}:{port}: {e}"))?;
        let addr = http
            .server_addr()
            .to_ip()
            .ok_or_else(|| "the server is not on an IP address".to_string())?;
        let http = Arc::new(http);
        let app = App::new()?;
        let closing = Arc::new(AtomicBool::new(false));
        let acceptor = {
            let (http, app, closing) = (http.clone(), app.clone(), closing.clone());
            let host: Arc<str> = host.into();
            std::thread::Builder::new()
                .name("web-accept".into())
                .spawn(move || accept_loop(&http, &app, &closing, &host))
                .map_err(|e| format!("cannot start the server thread: {e}"))?
        };
        Ok(WebServer {
            http,
            addr,
            app,
            closing,
            acceptor: Some(acceptor),
        })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The address to open in a browser.
    pub fn url(&self) -> String {
        let host = match self.addr.ip() {
            ip if ip.is_unspecified() => "127.0.0.1".to_string(),
            IpAddr::V6(ip) => format!("[{ip}]"),
            IpAddr::V4(ip) => ip.to_string(),
        };
        format!("http://{host}:{}/", self.addr.port())
    }

    /// Serves until the process ends.
    pub fn wait(mut self) {
        if let Some(acceptor) = self.acceptor.take() {
            let _ = acceptor.join();
        }
    }

    /// Stops accepting, stops the engine, and returns when both are done.
    pub fn shutdown(mut self) {
        self.close();
    }

    fn close(&mut self) {
        self.closing.store(true, SeqCst);
        self.http.unblock();
        if let Some(acceptor) = self.acceptor.take() {
            let _ = acceptor.join();
        }
        self.app.shutdown();
    }
}

impl Drop for WebServer {
    fn drop(&mut self) {
        if self.acceptor.is_some() {
            self.close();
        }
    }
}

/// Hands each request to a thread of its own, so that a client that is slow
/// to send its body holds up nobody else.
fn accept_loop(http: &tiny_http::Server, app: &Arc<App>, closing: &AtomicBool, host: &Arc<str>) {
    let in_flight = Arc::new(AtomicUsize::new(0));
    loop {
        let request = match http.recv() {
            Ok(request) => request,
            Err(_) if closing.load(SeqCst) => return,
            Err(_) => {
                // A failed accept (out of file descriptors, ...): retry, but
                // without spinning on an error that persists.
                std::thread::sleep(Duration::from_millis(10));
                continue;
            }
        };
        if closing.load(SeqCst) {
            finish(request, Reply::error(503, "the server is shutting down"));
            return;
        }
        if in_flight.fetch_add(1, SeqCst) >= MAX_IN_FLIGHT {
            in_flight.fetch_sub(1, SeqCst);
            finish(request, Reply::error(503, "too many requests at once"));
            continue;
        }
        let (app, counter, host) = (app.clone(), in_flight.clone(), host.clone());
        let spawned = std::thread::Builder::new()
            .name("web-request".into())
            .spawn(move || {
                handle(&app, request, &host);
                counter.fetch_sub(1, SeqCst);
            });
        if spawned.is_err() {
            // The request went down with the closure; tiny_http answers a
            // dropped request with a 500 itself.
            in_flight.fetch_sub(1, SeqCst);
        }
    }
}

/// `host` is the name the server was started with: always a valid Host.
fn handle(app: &Arc<App>, mut request: Request, host: &str) {
    let method = request.method().clone();
    let path = request.url().split('?').next().unwrap_or("").to_string();
    if let Err(reply) = check_host(&request, host) {
        finish(request, reply);
        return;
    }
    let body = if method == Method::Post {
        match read_body(&mut request) {
            Ok(body) => body,
            Err(reply) => {
                finish(request, reply);
                return;
            }
        }
    } else {
        Vec::new()
    };
    // A bug in a handler must cost one 500, not the connection or the server.
    let reply = catch_unwind(AssertUnwindSafe(|| route(app, &method, &path, &body)))
        .unwrap_or_else(|_| Reply::error(500, "internal error while answering the request"));
    finish(request, reply);
}

/// Writes the reply. tiny_http drains an unread request body when the
/// request is dropped, into one buffer of the body's remaining declared
/// length (`EqualReader::drop`): a client announcing terabytes would abort
/// the process. Up to `DRAIN_LIMIT` that is harmless, so such a request is
/// answered normally. Above it the reply goes out through `upgrade`, which
/// hands us the body reader, and that reader is leaked, never dropped: the
/// reply then has no length and the connection stays open (one socket and
/// one parked tiny_http thread per such request; the page never sends one).
fn finish(request: Request, reply: Reply) {
    let absurd = request.body_length().is_some_and(|n| n > DRAIN_LIMIT);
    if absurd {
        // `upgrade` writes the head only (no length); the body is ours to send.
        let body = reply.body.clone();
        let mut stream = request.upgrade("close", reply.into_response());
        let _ = stream
            .write_all(body.as_bytes())
            .and_then(|_| stream.flush());
        std::mem::forget(stream);
    } else {
        // The client may have gone; nothing to do about that.
        let _ = request.respond(reply.into_response());
    }
}

fn read_body(request: &mut Request) -> Result<Vec<u8>, Reply> {
    let too_large = || {
        Reply::error(
            413,
            format!("the request body is larger than {BODY_LIMIT} bytes"),
        )
    };
    if request.body_length().is_some_and(|n| n > BODY_LIMIT) {
        return Err(too_large());
    }
    // Only JSON is accepted, which a web page of another site cannot send
    // here without the browser asking first (and this server never says
    // yes): a visited site cannot play moves on the board.
    let json = request.headers().iter().any(|h| {
        h.field.equiv("Content-Type")
            && h.value
                .as_str()
                .to_ascii_lowercase()
                .starts_with("application/json")
    });
    if !json {
        return Err(Reply::error(
            415,
            "POST requests must have Content-Type: application/json",
        ));
    }
    let mut body = Vec::new();
    // A chunked body has no declared length: read one byte past the limit
    // to tell "exactly at the limit" from "over it".
    request
        .as_reader()
        .take(BODY_LIMIT as u64 + 1)
        .read_to_end(&mut body)
        .map_err(|e| Reply::error(400, format!("cannot read the request body: {e}")))?;
    if body.len() > BODY_LIMIT {
        return Err(too_large());
    }
    Ok(body)
}

/// Refuses host names other than `localhost` and the one given to `--host`:
/// a site that points its own name at 127.0.0.1 (DNS rebinding) would
/// otherwise get answers.
fn check_host(request: &Request, own: &str) -> Result<(), Reply> {
    let Some(host) = request.headers().iter().find(|h| h.field.equiv("Host")) else {
        return Ok(());
    };
    let host = host.value.as_str();
    let name = if let Some(rest) = host.strip_prefix('[') {
        rest.split(']').next().unwrap_or("")
    } else {
        host.rsplit_once(':').map_or(host, |(name, _)| name)
    };
    if name.eq_ignore_ascii_case("localhost")
        || name.eq_ignore_ascii_case(own)
        || name.parse::<IpAddr>().is_ok()
    {
        Ok(())
    } else {
        Err(Reply::error(
            403,
            format!("unknown host {name:?}: use the address the server printed"),
        ))
    }
}

const ROUTES: &[(&str, &str)] = &[
    ("/", "GET"),
    ("/index.html", "GET"),
    ("/page.js", "GET"),
    ("/page.css", "GET"),
    ("/api/state", "GET"),
    ("/api/record", "GET"),
    ("/api/new", "POST"),
    ("/api/move", "POST"),
    ("/api/go", "POST"),
    ("/api/stop", "POST"),
    ("/api/undo", "POST"),
    ("/api/fen", "POST"),
];

fn route(app: &Arc<App>, method: &Method, path: &str, body: &[u8]) -> Reply {
    let get = matches!(method, Method::Get | Method::Head);
    let post = *method == Method::Post;
    match path {
        "/" | "/index.html" if get => Reply::new(200, "text/html; charset=utf-8", PAGE_HTML.into()),
        "/page.js" if get => Reply::new(200, "text/javascript; charset=utf-8", PAGE_JS.into()),
        "/page.css" if get => Reply::new(200, "text/css; charset=utf-8", PAGE_CSS.into()),
        "/api/state" if get => Reply::json(200, &app.state()),
        "/api/record" if get => {
            let state = app.state();
            let name = format!("stackfish-{}-{}.pgn", state.variant, state.moves.len());
            Reply::new(200, "text/plain; charset=utf-8", app.record()).with_header(
                "Content-Disposition",
                format!("attachment; filename=\"{name}\""),
            )
        }
        "/api/new" if post => answer(parse_or_default(body).and_then(|r| app.new_game(r))),
        "/api/move" if post => answer(parse(body).and_then(|r| app.play(r))),
        "/api/go" if post => answer(expect_empty(body).and_then(|_| app.go())),
        "/api/stop" if post => answer(expect_empty(body).and_then(|_| app.stop())),
        "/api/undo" if post => answer(parse_or_default(body).and_then(|r| app.undo(r))),
        "/api/fen" if post => answer(parse(body).and_then(|r| app.load_fen(r))),
        _ => match ROUTES.iter().find(|(p, _)| *p == path) {
            Some((_, allowed)) => Reply::error(
                405,
                format!("{path} takes {allowed}, not {}", method.as_str()),
            )
            .with_header("Allow", allowed.to_string()),
            None => Reply::error(404, format!("no such path: {path}")),
        },
    }
}

fn answer(result: Result<StateView, ApiError>) -> Reply {
    match result {
        Ok(state) => Reply::json(200, &state),
        Err(e) => e.into(),
    }
}

fn parse<T: DeserializeOwned>(body: &[u8]) -> Result<T, ApiError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Err(ApiError::new(400, "the request needs a JSON body"));
    }
    let value: serde_json::Value = serde_json::from_slice(body)
        .map_err(|e| ApiError::new(400, format!("bad JSON body: {e}")))?;
    // serde would also read a struct from an array of its fields; the API
    // documents objects only.
    if !value.is_object() {
        return Err(ApiError::new(400, "bad JSON body: expected an object"));
    }
    serde_json::from_value(value).map_err(|e| ApiError::new(400, format!("bad JSON body: {e}")))
}

/// An empty body means "all defaults".
fn parse_or_default<T: DeserializeOwned + Default>(body: &[u8]) -> Result<T, ApiError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        Ok(T::default())
    } else {
        parse(body)
    }
}

/// `go` and `stop` take no parameters; an empty object is fine too.
fn expect_empty(body: &[u8]) -> Result<(), ApiError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(());
    }
    match serde_json::from_slice::<serde_json::Value>(body) {
        Ok(serde_json::Value::Object(map)) if map.is_empty() => Ok(()),
        Ok(_) => Err(ApiError::new(
            400,
            "this request takes no parameters: send {} or nothing",
        )),
        Err(e) => Err(ApiError::new(400, format!("bad JSON body: {e}"))),
    }
}

/// Opens the page in the desktop's browser; failing is not an error, the
/// URL is printed anyway.
pub fn open_browser(url: &str) -> Result<(), String> {
    let (program, args): (&str, Vec<&str>) = if cfg!(target_os = "macos") {
        ("open", vec![url])
    } else if cfg!(windows) {
        ("cmd", vec!["/C", "start", "", url])
    } else {
        ("xdg-open", vec![url])
    };
    std::process::Command::new(program)
        .args(&args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map(|_| ())
        .map_err(|e| format!("cannot run {program}: {e}"))
}
