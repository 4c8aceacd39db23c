//! The JSON API as routes: each path with its method and what it answers,
//! status, content type and body, whatever carries it (HTTP natively, a
//! function call in the browser). The HTTP server adds only the transport:
//! the request's limits and headers, and the event stream.

use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde::Serialize;

use super::error::ApiError;
use super::files::{Download, Export};
use super::state::App;
use super::view::StateView;

pub const JSON: &str = "application/json; charset=utf-8";
const TEXT: &str = "text/plain; charset=utf-8";
const BINARY: &str = "application/octet-stream";

/// An answer as it leaves: the status, the content type, the body, and
/// for a download the file name to save it as.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    pub status: u16,
    pub content_type: &'static str,
    pub body: String,
    pub attachment: Option<String>,
}

impl Answer {
    /// `{"error": message}` with `status`.
    pub fn error(status: u16, message: impl Into<String>) -> Answer {
        Answer {
            status,
            content_type: JSON,
            body: serde_json::json!({ "error": message.into() }).to_string(),
            attachment: None,
        }
    }

    pub fn json<T: Serialize>(value: &T) -> Answer {
        match serde_json::to_string(value) {
            Ok(body) => Answer {
                status: 200,
                content_type: JSON,
                body,
                attachment: None,
            },
            Err(e) => Answer::error(500, format!("cannot encode the answer: {e}")),
        }
    }

    /// A file for the browser to save as `name`.
    fn download(content_type: &'static str, name: String, content: String) -> Answer {
        Answer {
            status: 200,
            content_type,
            body: content,
            attachment: Some(name),
        }
    }

    fn of(result: Result<StateView, ApiError>) -> Answer {
        match result {
            Ok(state) => Answer::json(&state),
            Err(e) => e.into(),
        }
    }
}

impl From<ApiError> for Answer {
    fn from(e: ApiError) -> Answer {
        Answer::error(e.status, e.message)
    }
}

/// What a route does: a GET reads the board, a POST changes it with the
/// request body.
#[derive(Clone, Copy)]
pub enum Act {
    Get(fn(&Arc<App>) -> Answer),
    Post(fn(&Arc<App>, &[u8]) -> Result<StateView, ApiError>),
}

/// One path of the API, with its method (for the 405 answers) beside what
/// it does, so that the two cannot drift apart.
pub struct Route {
    pub path: &'static str,
    pub act: Act,
}

impl Route {
    pub fn method(&self) -> &'static str {
        match self.act {
            Act::Get(_) => "GET",
            Act::Post(_) => "POST",
        }
    }

    /// The answer to this route's request with `body` (ignored by a GET).
    pub fn answer(&self, app: &Arc<App>, body: &[u8]) -> Answer {
        match self.act {
            Act::Get(get) => get(app),
            Act::Post(post) => Answer::of(post(app, body)),
        }
    }
}

const fn get(path: &'static str, act: fn(&Arc<App>) -> Answer) -> Route {
    Route {
        path,
        act: Act::Get(act),
    }
}

const fn post(
    path: &'static str,
    act: fn(&Arc<App>, &[u8]) -> Result<StateView, ApiError>,
) -> Route {
    Route {
        path,
        act: Act::Post(act),
    }
}

/// Every route of the API but the event stream, which is the transport's.
pub const ROUTES: &[Route] = &[
    get("/api/state", |app| Answer::json(&app.state())),
    get("/api/record", record),
    get("/api/boards", |app| Answer::json(&app.boards())),
    // The position shown as a StackAndConquer saved game (base64 text)...
    get("/api/stacksav", |app| {
        stackandconquer_file(app, |e| e.stacksav)
    }),
    // ...and the board file it names (JSON).
    get("/api/stackboard", |app| {
        stackandconquer_file(app, |e| e.stackboard)
    }),
    post("/api/new", |app, b| app.new_game(parse_or_default(b)?)),
    post("/api/move", |app, b| app.play(parse(b)?)),
    post("/api/go", |app, b| expect_empty(b).and_then(|_| app.go())),
    post("/api/stop", |app, b| {
        expect_empty(b).and_then(|_| app.stop())
    }),
    post("/api/undo", |app, b| app.undo(parse_or_default(b)?)),
    post("/api/fen", |app, b| app.load_fen(parse(b)?)),
    post("/api/goto", |app, b| app.goto(parse(b)?)),
    post("/api/analyse", |app, b| app.analyse(parse(b)?)),
    post("/api/load", |app, b| app.load_record(parse(b)?)),
    // The whole line reviewed: started, followed in the state's `review`,
    // cancelled; the full review as JSON and as annotated PGN.
    post("/api/review/start", |app, b| {
        app.review(parse_or_default(b)?)
    }),
    post("/api/review/stop", |app, b| {
        expect_empty(b).and_then(|_| app.stop_review())
    }),
    get("/api/review", |app| match app.review_json() {
        Ok(v) => Answer::json(&v),
        Err(e) => e.into(),
    }),
    get("/api/review/pgn", |app| match app.review_pgn() {
        Ok((name, pgn)) => Answer::download(TEXT, name, pgn),
        Err(e) => e.into(),
    }),
];

pub fn route(path: &str) -> Option<&'static Route> {
    ROUTES.iter().find(|r| r.path == path)
}

/// `path` asked for with a method it does not take.
pub fn wrong_method(path: &str, allowed: &str, method: &str) -> Answer {
    Answer::error(405, format!("{path} takes {allowed}, not {method}"))
}

pub fn no_such_path(path: &str) -> Answer {
    Answer::error(404, format!("no such path: {path}"))
}

impl App {
    /// The answer to `method path` with `body`, as the HTTP server gives it.
    pub fn call(self: &Arc<Self>, method: &str, path: &str, body: &[u8]) -> Answer {
        match route(path) {
            Some(r) if r.method() == method => r.answer(self, body),
            Some(r) => wrong_method(path, r.method(), method),
            None => no_such_path(path),
        }
    }
}

fn record(app: &Arc<App>) -> Answer {
    let state = app.state();
    let name = format!("stackfish-{}-{}.pgn", state.variant, state.moves.len());
    Answer::download(TEXT, name, app.record())
}

/// One of the StackAndConquer files of the position shown, as a download.
fn stackandconquer_file(app: &Arc<App>, pick: fn(Export) -> Download) -> Answer {
    match app.export() {
        Ok(e) => {
            let file = pick(e);
            Answer::download(BINARY, file.name, file.content)
        }
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
