//! The clock and the threads, the two things a browser build lacks, behind
//! one seam. Native builds take `std::time::Instant` and scoped threads
//! (Lazy SMP); on wasm32-unknown-unknown, where `Instant::now` and
//! `thread::spawn` panic at run time, the clock is a function the host sets
//! and the search runs on the calling thread alone. The search looks at the
//! clock only at its deadline checks, so the seam costs nothing per node.

#[cfg(not(all(target_family = "wasm", target_os = "unknown")))]
pub use std::time::Instant;

#[cfg(all(target_family = "wasm", target_os = "unknown"))]
pub use host::{set_clock, Instant};

/// Whether helper threads can run beside the main search thread.
pub const THREADS: bool = cfg!(not(all(target_family = "wasm", target_os = "unknown")));

/// Runs `helper(i, item)` for every item on a thread of its own while
/// `main` runs on the calling thread; returns when all have ended (`main`
/// tells the helpers to end). Without threads, only `main` runs.
pub fn with_helpers<T: Send, R>(
    items: impl Iterator<Item = T>,
    helper: impl Fn(usize, T) + Sync,
    main: impl FnOnce() -> R,
) -> R {
    #[cfg(not(all(target_family = "wasm", target_os = "unknown")))]
    {
        std::thread::scope(|scope| {
            let helper = &helper;
            for (i, item) in items.enumerate() {
                scope.spawn(move || helper(i, item));
            }
            main()
        })
    }
    #[cfg(all(target_family = "wasm", target_os = "unknown"))]
    {
        let _ = (items, helper);
        main()
    }
}

#[cfg(all(target_family = "wasm", target_os = "unknown"))]
mod host {
    use std::sync::RwLock;
    use std::time::Duration;

    /// Milliseconds since a fixed origin, from the host; `None` until set.
    static CLOCK: RwLock<Option<fn() -> f64>> = RwLock::new(None);

    /// Sets the clock: a function returning milliseconds since any fixed
    /// origin (in a browser, `performance.now()`). Until it is set, time
    /// stands still and only depth and node limits end a search.
    pub fn set_clock(now_ms: fn() -> f64) {
        *CLOCK.write().unwrap_or_else(|e| e.into_inner()) = Some(now_ms);
    }

    fn now_ms() -> f64 {
        CLOCK
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .map_or(0.0, |now| now())
    }

    /// A moment on the host's clock, with the part of `std::time::Instant`
    /// the search and the engine use.
    #[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
    pub struct Instant(f64);

    impl Instant {
        pub fn now() -> Instant {
            Instant(now_ms())
        }

        pub fn elapsed(&self) -> Duration {
            let ms = now_ms() - self.0;
            // A clock that is not finite or runs backwards reads as no time.
            if ms.is_finite() && ms > 0.0 {
                Duration::from_secs_f64(ms / 1000.0)
            } else {
                Duration::ZERO
            }
        }
    }
}
