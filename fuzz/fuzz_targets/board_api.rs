//! The board's JSON API as `stackfish serve` and the browser call it
//! (`App::call`), fed one request a line: `<METHOD> <path> <body>`. Lines
//! that start with `info` or `bestmove` are an engine's lines for the
//! search the board ordered last (read by `Report::from_line` and
//! `Finish::from_bestmove`, as the server reads an engine's output), and
//! `fail <text>` its failure. Every answer must be JSON (or the download
//! it is) with a status the API documents, and the state must stay
//! readable.
#![no_main]

use std::sync::{Arc, Mutex};

use libfuzzer_sys::fuzz_target;
use stackfish_board::{ApiError, App, Finish, Host, Report, SearchOrder};

/// Requests and engine lines from one input at most.
const MAX_LINES: usize = 32;
/// 2026-04-13, noon UTC: the records' date.
const WALL_MS: u64 = 20_556 * 86_400_000 + 43_200_000;

/// A host that runs nothing: it keeps the last order for the engine lines.
#[derive(Clone, Default)]
struct FakeHost(Arc<Mutex<Option<u64>>>);

impl Host for FakeHost {
    fn start(&self, _board: &Arc<App>, order: SearchOrder) -> Result<(), ApiError> {
        *self.0.lock().expect("host") = Some(order.search);
        Ok(())
    }
    fn stop(&self, _search: u64) {}
    fn shutdown(&self) {}
    fn changed(&self, _version: u64) {}
    fn now_ms(&self) -> f64 {
        0.0
    }
    fn wall_ms(&self) -> u64 {
        WALL_MS
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let host = FakeHost::default();
    let app = App::new(
        vec!["stackfish".into(), "other".into()],
        Box::new(host.clone()),
        None,
    )
    .expect("a board");
    for line in text.lines().take(MAX_LINES) {
        let search = *host.0.lock().expect("host");
        if let Some(report) = Report::from_line(line) {
            if let Some(search) = search {
                app.report(search, report);
            }
            continue;
        }
        if let Some(finish) = Finish::from_bestmove(line) {
            if let Some(search) = search {
                app.finish(search, Ok(finish));
            }
            continue;
        }
        if let Some(why) = line.strip_prefix("fail ") {
            if let Some(search) = search {
                app.finish(search, Err(why.to_string()));
            }
            continue;
        }
        let mut parts = line.splitn(3, ' ');
        let (method, path) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
        let body = parts.next().unwrap_or("");
        let answer = app.call(method, path, body.as_bytes());
        assert!(
            [200, 400, 404, 405, 409, 422].contains(&answer.status),
            "{method} {path} {body:?} answered {answer:?}"
        );
        if answer.attachment.is_none() {
            serde_json::from_str::<serde_json::Value>(&answer.body)
                .unwrap_or_else(|e| panic!("{method} {path} answered {answer:?}: {e}"));
        }
    }
    let _ = (app.state(), app.record(), app.export());
});
