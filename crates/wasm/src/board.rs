//! The board ABI: the browser board's state (crate stackfish-board) in the
//! same module as the engine, its searches run by the host's engine worker.

use std::sync::{Arc, Mutex, PoisonError};

use serde::Deserialize;
use serde_json::json;

use stackfish_board::api::Answer;
use stackfish_board::{ApiError, App, Finish, Host, Report, SearchOrder, BUILTIN};

use super::abi::{now_ms, take_text};

#[link(wasm_import_module = "env")]
extern "C" {
    fn sb_out(ptr: *const u8, len: usize);
    fn sb_engine(ptr: *const u8, len: usize);
    fn sb_changed();
    fn sf_wall() -> f64;
}

thread_local! {
    /// The one board of this instance; created on first use.
    static BOARD: std::cell::RefCell<Option<Arc<App>>> = const { std::cell::RefCell::new(None) };
}

/// The host's side of the board: searches go to the engine worker through
/// `sb_engine`, changes through `sb_changed`, the clocks are the page's.
struct BrowserHost {
    /// The round the engine was last told of: a new one starts a new game.
    round: Mutex<Option<u64>>,
}

fn engine_message(message: &serde_json::Value) {
    let text = message.to_string();
    // SAFETY: the host reads `len` bytes at `ptr` during the call only.
    unsafe { sb_engine(text.as_ptr(), text.len()) };
}

/// Search ids travel as u32 (a JS number would do, the ABI says u32); a
/// board would need four billion searches to wrap.
fn wire_id(search: u64) -> u32 {
    search as u32
}

impl Host for BrowserHost {
    fn start(&self, _board: &Arc<App>, order: SearchOrder) -> Result<(), ApiError> {
        if order.engine != BUILTIN {
            return Err(ApiError::new(
                400,
                format!("the board in the browser has no engine {:?}", order.engine),
            ));
        }
        let mut round = self.round.lock().unwrap_or_else(PoisonError::into_inner);
        let new_round = round.replace(order.job.round) != Some(order.job.round);
        let send = order.job.stackfish_lines(new_round);
        engine_message(&json!({ "search": wire_id(order.search), "send": send }));
        Ok(())
    }

    fn stop(&self, search: u64) {
        engine_message(&json!({ "search": wire_id(search), "stop": true }));
    }

    fn shutdown(&self) {}

    fn changed(&self, _version: u64) {
        // SAFETY: an import without arguments.
        unsafe { sb_changed() }
    }

    fn now_ms(&self) -> f64 {
        now_ms()
    }

    fn wall_ms(&self) -> u64 {
        // SAFETY: an import without arguments returning a number.
        let ms = unsafe { sf_wall() };
        if ms.is_finite() && ms > 0.0 {
            ms as u64
        } else {
            0
        }
    }
}

/// The board, created on first use.
fn board() -> Result<Arc<App>, String> {
    BOARD.with(|board| {
        let mut board = board.borrow_mut();
        if let Some(app) = board.as_ref() {
            return Ok(app.clone());
        }
        let host = BrowserHost {
            round: Mutex::new(None),
        };
        let app =
            App::new(vec![BUILTIN.to_string()], Box::new(host), None).map_err(|e| e.to_string())?;
        *board = Some(app.clone());
        Ok(app)
    })
}

/// One request, as `sb_call` reads it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Request {
    method: String,
    path: String,
    #[serde(default)]
    body: String,
}

fn answer(input: &str) -> Answer {
    let request: Request = match serde_json::from_str(input) {
        Ok(r) => r,
        Err(e) => {
            return Answer::error(
                400,
                format!("sb_call takes {{\"method\", \"path\", \"body\"}}: {e}"),
            )
        }
    };
    match board() {
        Ok(app) => app.call(&request.method, &request.path, request.body.as_bytes()),
        Err(e) => Answer::error(500, e),
    }
}

/// Answers one API request: `sb_out` gets `{"status", "type", "body"}`
/// (and `"filename"` for a download) once before this returns the status.
///
/// # Safety
/// `ptr` comes from `sf_alloc(len)` and holds `len` written bytes.
#[no_mangle]
pub unsafe extern "C" fn sb_call(ptr: *mut u8, len: usize) -> u32 {
    // SAFETY: the caller's contract, as for `sf_line`.
    let input = unsafe { take_text(ptr, len) };
    let a = answer(&input);
    let mut out = json!({ "status": a.status, "type": a.content_type, "body": a.body });
    if let Some(name) = a.attachment {
        out["filename"] = json!(name);
    }
    let text = out.to_string();
    // SAFETY: the host reads `len` bytes at `ptr` during the call only.
    unsafe { sb_out(text.as_ptr(), text.len()) };
    u32::from(a.status)
}

/// One output line of the engine running search `search`.
///
/// # Safety
/// `ptr` comes from `sf_alloc(len)` and holds `len` written bytes.
#[no_mangle]
pub unsafe extern "C" fn sb_engine_line(search: u32, ptr: *mut u8, len: usize) {
    // SAFETY: the caller's contract, as for `sf_line`.
    let line = unsafe { take_text(ptr, len) };
    let Ok(app) = board() else { return };
    let search = u64::from(search);
    if let Some(report) = Report::from_line(&line) {
        app.report(search, report);
    } else if let Some(finish) = Finish::from_bestmove(&line) {
        app.finish(search, Ok(finish));
    }
}

/// The engine of search `search` failed (its worker crashed; the host
/// restarts it); `message` says how, naming the engine.
///
/// # Safety
/// `ptr` comes from `sf_alloc(len)` and holds `len` written bytes.
#[no_mangle]
pub unsafe extern "C" fn sb_engine_failed(search: u32, ptr: *mut u8, len: usize) {
    // SAFETY: the caller's contract, as for `sf_line`.
    let message = unsafe { take_text(ptr, len) };
    let Ok(app) = board() else { return };
    app.finish(u64::from(search), Err(format!("{message}; restarted it")));
}
