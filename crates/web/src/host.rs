//! The board's native host: each search on a thread of its own with the
//! searcher of its role (stackfish in this process, or an engine process),
//! the system's clocks, and the change signal the event streams follow.
//!
//! A search thread first waits for the searches before it (cancelled ones
//! still finishing), so one engine never runs two searches; requests never
//! wait for a search thread.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use stackfish_board::{ApiError, App, Host, SearchOrder};
use tokio::sync::watch;

use super::engines::{Roster, Searcher};
use super::metrics::Metrics;

/// The searchers of player 1, player 2 and the analysis, with the name of
/// their engine; `None` while a search thread holds one.
type Searchers = [Option<(String, Box<dyn Searcher>)>; 3];

pub struct NativeHost {
    roster: Roster,
    threads: Mutex<Threads>,
    /// Shared with the search threads, which give their searcher back.
    searchers: Arc<Mutex<Searchers>>,
    /// The latest `version`, for the event streams of the pages.
    changes: watch::Sender<u64>,
    epoch: Instant,
    metrics: Arc<Metrics>,
}

#[derive(Default)]
struct Threads {
    /// The search started last and its stop flag.
    current: Option<(u64, Arc<AtomicBool>)>,
    /// Every search thread not yet waited for; the next one waits for them.
    running: Vec<JoinHandle<()>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic elsewhere must not take the board down with it: the data under
    // these locks stays consistent between statements.
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl NativeHost {
    pub fn new(roster: Roster, metrics: Arc<Metrics>) -> NativeHost {
        NativeHost {
            roster,
            threads: Mutex::default(),
            searchers: Arc::default(),
            changes: watch::channel(0).0,
            epoch: Instant::now(),
            metrics,
        }
    }

    /// Tells of every change of the state from now on.
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.changes.subscribe()
    }
}

impl Host for NativeHost {
    fn start(&self, board: &Arc<App>, order: SearchOrder) -> Result<(), ApiError> {
        let mut threads = lock(&self.threads);
        threads.running.retain(|h| !h.is_finished());
        let waits = std::mem::take(&mut threads.running);
        let stop = Arc::new(AtomicBool::new(false));
        let run = Run {
            board: Arc::clone(board),
            roster: self.roster.clone(),
            searchers: Arc::clone(&self.searchers),
            stop: Arc::clone(&stop),
            order,
            metrics: Arc::clone(&self.metrics),
        };
        let search = run.order.search;
        let spawned = std::thread::Builder::new()
            .name("web-search".into())
            .spawn(move || run.run(waits));
        match spawned {
            Ok(handle) => {
                threads.running.push(handle);
                threads.current = Some((search, stop));
                Ok(())
            }
            Err(e) => Err(ApiError::new(
                503,
                format!("cannot start the engine thread: {e}"),
            )),
        }
    }

    fn stop(&self, search: u64) {
        if let Some((id, flag)) = &lock(&self.threads).current {
            if *id == search {
                flag.store(true, Relaxed);
            }
        }
    }

    fn shutdown(&self) {
        let handles = {
            let mut threads = lock(&self.threads);
            if let Some((_, flag)) = threads.current.take() {
                flag.store(true, Relaxed);
            }
            std::mem::take(&mut threads.running)
        };
        for h in handles {
            let _ = h.join();
        }
        let searchers: Vec<_> = lock(&self.searchers)
            .iter_mut()
            .filter_map(Option::take)
            .collect();
        for (_, s) in searchers {
            s.close();
        }
    }

    fn changed(&self, version: u64) {
        self.changes.send_replace(version);
    }

    fn now_ms(&self) -> f64 {
        self.epoch.elapsed().as_secs_f64() * 1000.0
    }

    fn wall_ms(&self) -> u64 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64)
    }
}

/// One search thread's work.
struct Run {
    board: Arc<App>,
    roster: Roster,
    searchers: Arc<Mutex<Searchers>>,
    stop: Arc<AtomicBool>,
    order: SearchOrder,
    metrics: Arc<Metrics>,
}

impl Run {
    /// Waits for cancelled searches to end, thinks, and tells the board;
    /// the board drops what comes of a search it has cancelled meanwhile.
    fn run(self, waits: Vec<JoinHandle<()>>) {
        for h in waits {
            let _ = h.join();
        }
        let SearchOrder {
            search,
            slot,
            engine,
            job,
        } = &self.order;
        let (search, slot) = (*search, *slot);
        let held = lock(&self.searchers)[slot].take();
        let mut searcher = match held {
            Some((name, s)) if name == *engine => s,
            other => {
                if let Some((_, old)) = other {
                    old.close();
                }
                match self.roster.searcher(engine) {
                    Some(s) => s,
                    None => {
                        let text = format!("{engine} is not an engine of this server");
                        self.board.finish(search, Err(text));
                        return;
                    }
                }
            }
        };
        if !self.board.is_current(search) {
            lock(&self.searchers)[slot] = Some((engine.clone(), searcher));
            return;
        }
        let board = &self.board;
        self.metrics.search_started();
        let result = searcher.run(job, &self.stop, &mut |report| board.report(search, report));
        self.metrics.search_ended(result.is_err());
        let result = match result {
            Ok(finish) => Ok(finish),
            Err(what) => {
                board.engine_failing(search, format!("{what}; restarting it"));
                let restarted = searcher.restart(job.variant);
                Err(match restarted {
                    Ok(()) => format!("{what}; restarted it"),
                    // A command that cannot start fails the same way twice.
                    Err(e) if e.to_string() == what.to_string() => {
                        format!("{what}; restarting failed too")
                    }
                    Err(e) => format!("{what}; restarting failed: {e}"),
                })
            }
        };
        lock(&self.searchers)[slot] = Some((engine.clone(), searcher));
        board.finish(search, result);
    }
}
