//! The search threads: a fixed number of OS threads (`--searches`, the
//! cores by default), each at a lower priority than the request handlers,
//! taking searches in arrival order from one queue. A busy CPU then delays
//! the bot's moves, never its answers to AP.
//!
//! Each thread owns one hash table (`--hash` MB), made when the pool
//! starts and handed to every search it runs: a table made per search
//! costs its writing of zeroes at the thread's low priority, seconds under
//! load, outside the move's time budget, so that a search overran its
//! budget and a graceful stop waited for it.

use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};

use stackfish_search::Shared as Table;
use tokio::sync::oneshot;

type Task = Box<dyn FnOnce(&Arc<Table>) + Send>;

/// Why `run` has no result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunError {
    /// The work panicked: the panic's message.
    Panicked(String),
    /// The pool was closed before a thread took the work: it never ran.
    Closed,
}

pub struct SearchPool {
    queue: mpsc::Sender<Task>,
    shared: Arc<State>,
    threads: usize,
}

struct State {
    closed: AtomicBool,
    /// Work queued and not yet taken by a thread.
    waiting: AtomicUsize,
}

/// How the threads' priority came out: lowered (how), or why not.
pub type Lowered = Result<&'static str, String>;

impl SearchPool {
    /// Starts `threads` threads (at least one), each with a table of
    /// `hash_mb` MB, made here (an error when the memory is not there);
    /// with `lower`, each thread first lowers its own priority
    /// (`platform::lower_this_thread`). Also says how the first thread's
    /// lowering went (all do the same).
    pub fn start(
        threads: usize,
        lower: bool,
        hash_mb: usize,
    ) -> std::io::Result<(SearchPool, Option<Lowered>)> {
        let threads = threads.max(1);
        let (queue, tasks) = mpsc::channel::<Task>();
        let tasks = Arc::new(Mutex::new(tasks));
        let shared = Arc::new(State {
            closed: AtomicBool::new(false),
            waiting: AtomicUsize::new(0),
        });
        let tables = (0..threads)
            .map(|_| Table::try_new(hash_mb).map(Arc::new))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| {
                std::io::Error::new(
                    std::io::ErrorKind::OutOfMemory,
                    format!("a hash table of {hash_mb} MB per search thread: {e}"),
                )
            })?;
        let (report, reports) = mpsc::channel();
        for (i, table) in tables.into_iter().enumerate() {
            let (tasks, shared, report) = (tasks.clone(), shared.clone(), report.clone());
            std::thread::Builder::new()
                .name(format!("search-{i}"))
                .spawn(move || {
                    if lower {
                        let _ = report.send(crate::platform::lower_this_thread());
                    }
                    drop(report);
                    loop {
                        // The lock is held only while waiting for the next
                        // task: the other idle threads queue behind it.
                        let next = match tasks.lock() {
                            Ok(t) => t.recv(),
                            Err(_) => return,
                        };
                        let Ok(task) = next else { return };
                        shared.waiting.fetch_sub(1, Ordering::SeqCst);
                        if shared.closed.load(Ordering::SeqCst) {
                            // Dropping it tells `run` that it never ran.
                            continue;
                        }
                        table.arm();
                        task(&table);
                    }
                })?;
        }
        drop(report);
        let lowered = if lower { reports.recv().ok() } else { None };
        let pool = SearchPool {
            queue,
            shared,
            threads,
        };
        Ok((pool, lowered))
    }

    pub fn threads(&self) -> usize {
        self.threads
    }

    /// How many searches wait for a free thread.
    pub fn waiting(&self) -> usize {
        self.shared.waiting.load(Ordering::SeqCst)
    }

    /// From now on work still queued is dropped instead of run; what runs
    /// already finishes.
    pub fn close(&self) {
        self.shared.closed.store(true, Ordering::SeqCst);
    }

    /// Runs `work` on the next free thread, with that thread's table armed
    /// for a search, and waits for its result.
    pub async fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce(&Arc<Table>) -> T + Send + 'static,
    ) -> Result<T, RunError> {
        if self.shared.closed.load(Ordering::SeqCst) {
            return Err(RunError::Closed);
        }
        let (answer, result) = oneshot::channel();
        let task: Task = Box::new(move |table: &Arc<Table>| {
            let r = std::panic::catch_unwind(AssertUnwindSafe(|| work(table))).map_err(|payload| {
                payload
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "no message".to_string())
            });
            let _ = answer.send(r);
        });
        self.shared.waiting.fetch_add(1, Ordering::SeqCst);
        if self.queue.send(task).is_err() {
            self.shared.waiting.fetch_sub(1, Ordering::SeqCst);
            return Err(RunError::Closed);
        }
        match result.await {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(panic)) => Err(RunError::Panicked(panic)),
            Err(_) => Err(RunError::Closed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn block_on<T>(f: impl std::future::Future<Output = T>) -> T {
        tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap()
            .block_on(f)
    }

    #[test]
    fn no_more_than_the_threads_run_at_once_and_every_task_runs_once() {
        let (pool, _) = SearchPool::start(2, false, 1).unwrap();
        let pool = Arc::new(pool);
        let running = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        let done = Arc::new(Mutex::new(Vec::new()));
        block_on(async {
            let mut all = tokio::task::JoinSet::new();
            for i in 0..12usize {
                let (pool, running, most, done) =
                    (pool.clone(), running.clone(), most.clone(), done.clone());
                all.spawn(async move {
                    pool.run(move |_| {
                        let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                        most.fetch_max(now, Ordering::SeqCst);
                        std::thread::sleep(Duration::from_millis(5));
                        running.fetch_sub(1, Ordering::SeqCst);
                        done.lock().unwrap().push(i);
                        i * 10
                    })
                    .await
                });
            }
            let mut answers: Vec<usize> = Vec::new();
            while let Some(r) = all.join_next().await {
                answers.push(r.unwrap().unwrap());
            }
            answers.sort();
            assert_eq!(answers, (0..12).map(|i| i * 10).collect::<Vec<_>>());
        });
        let mut done = done.lock().unwrap().clone();
        done.sort();
        assert_eq!(done, (0..12).collect::<Vec<_>>());
        assert_eq!(most.load(Ordering::SeqCst), 2);
        assert_eq!(pool.waiting(), 0);
    }

    #[test]
    fn a_panic_is_an_error_with_its_message_and_the_thread_goes_on() {
        let (pool, _) = SearchPool::start(1, false, 1).unwrap();
        block_on(async {
            let r = pool.run(|_| -> u32 { panic!("a bug in the search") }).await;
            assert_eq!(r, Err(RunError::Panicked("a bug in the search".into())));
            assert_eq!(pool.run(|_| 7).await, Ok(7));
        });
    }

    #[test]
    fn work_queued_when_the_pool_closes_never_runs() {
        let (pool, _) = SearchPool::start(1, false, 1).unwrap();
        let pool = Arc::new(pool);
        let ran = Arc::new(AtomicUsize::new(0));
        let (release, gate) = std::sync::mpsc::channel::<()>();
        let started = Arc::new(AtomicBool::new(false));
        block_on(async {
            let (p, s) = (pool.clone(), started.clone());
            // The only thread is held until the queue has a second task.
            let first = tokio::spawn(async move {
                p.run(move |_| {
                    s.store(true, Ordering::SeqCst);
                    let _ = gate.recv();
                    1
                })
                .await
            });
            let (p, r) = (pool.clone(), ran.clone());
            let second = tokio::spawn(async move {
                p.run(move |_| {
                    r.fetch_add(1, Ordering::SeqCst);
                })
                .await
            });
            while !started.load(Ordering::SeqCst) || pool.waiting() < 1 {
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
            pool.close();
            release.send(()).unwrap();
            assert_eq!(first.await.unwrap(), Ok(1));
            assert_eq!(second.await.unwrap(), Err(RunError::Closed));
            assert_eq!(pool.run(|_| 3).await, Err(RunError::Closed));
        });
        assert_eq!(ran.load(Ordering::SeqCst), 0);
    }

    /// Each thread's table is made once and handed to every search the
    /// thread runs, armed: no search makes (and zeroes) a table of its own.
    #[test]
    fn every_search_of_a_thread_gets_its_one_table_armed() {
        let (pool, _) = SearchPool::start(1, false, 1).unwrap();
        block_on(async {
            let first = pool
                .run(|table| {
                    table.stop.store(true, Ordering::SeqCst);
                    Arc::as_ptr(table) as usize
                })
                .await
                .unwrap();
            let second = pool
                .run(|table| (Arc::as_ptr(table) as usize, table.stopping()))
                .await
                .unwrap();
            assert_eq!(second, (first, false));
        });
    }
}
