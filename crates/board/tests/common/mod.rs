//! The board behind its search seam with a fake host, for the tests: the
//! orders the board gives are logged, reports and finishes fed by hand.
#![allow(dead_code)]

use std::sync::{Arc, Mutex};

use serde_json::Value;
use stackfish_board::{ApiError, App, Host, Report, SearchOrder};
use stackfish_engine::protocol::Score;

/// 2026-04-13, noon UTC.
pub const WALL_MS: u64 = 20_556 * 86_400_000 + 43_200_000;

#[derive(Default)]
pub struct Log {
    orders: Vec<SearchOrder>,
    stops: Vec<u64>,
    changes: u64,
    now_ms: f64,
}

#[derive(Clone, Default)]
pub struct FakeHost(pub Arc<Mutex<Log>>);

impl Host for FakeHost {
    fn start(&self, _board: &Arc<App>, order: SearchOrder) -> Result<(), ApiError> {
        self.0.lock().unwrap().orders.push(order);
        Ok(())
    }
    fn stop(&self, search: u64) {
        self.0.lock().unwrap().stops.push(search);
    }
    fn shutdown(&self) {}
    fn changed(&self, _version: u64) {
        self.0.lock().unwrap().changes += 1;
    }
    fn now_ms(&self) -> f64 {
        self.0.lock().unwrap().now_ms
    }
    fn wall_ms(&self) -> u64 {
        WALL_MS
    }
}

impl FakeHost {
    pub fn last_order(&self) -> SearchOrder {
        self.0
            .lock()
            .unwrap()
            .orders
            .last()
            .cloned()
            .expect("an order")
    }
    pub fn orders(&self) -> usize {
        self.0.lock().unwrap().orders.len()
    }
    pub fn stops(&self) -> Vec<u64> {
        self.0.lock().unwrap().stops.clone()
    }
    pub fn advance(&self, ms: f64) {
        self.0.lock().unwrap().now_ms += ms;
    }
}

pub fn board() -> (Arc<App>, FakeHost) {
    let host = FakeHost::default();
    let app = App::new(vec!["stackfish".into()], Box::new(host.clone()), None).expect("board");
    (app, host)
}

pub fn call(app: &Arc<App>, method: &str, path: &str, body: &str) -> (u16, Value) {
    let a = app.call(method, path, body.as_bytes());
    let json = serde_json::from_str(&a.body).unwrap_or(Value::Null);
    (a.status, json)
}

pub fn state(app: &Arc<App>) -> Value {
    call(app, "GET", "/api/state", "").1
}

pub fn legal(app: &Arc<App>, i: usize) -> String {
    state(app)["legal_moves"][i].as_str().unwrap().to_string()
}

pub fn report(depth: u32, cp: i32, pv: &str) -> Report {
    Report {
        multipv: 1,
        depth,
        score: Score::Cp(cp),
        nodes: 1000,
        time_ms: 10,
        pv: vec![pv.to_string()],
    }
}
