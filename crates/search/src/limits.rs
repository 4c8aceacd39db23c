//! Search limits from a `go` command, and the time manager that turns clocks
//! into a soft limit (do not start another iteration) and a hard limit (stop
//! now). A parameter that was not sent has no influence.

use std::time::Duration;

use crate::params as p;
use crate::seam::Instant;

// How many moves to plan for without `movestogo`, the share of the
// increment spent, and the hard limit's factor and cap: `params`
// (`time_*`), tunable in a `tune` build.
/// The least time a search gets, so it always finishes depth 1.
pub const MIN_THINK_MS: u64 = 1;
/// With `movetime`, at most this share (percent) of it is kept back for the
/// move overhead. A runner giving a fixed time per move allows a margin, and
/// an overhead as large as the budget left 1 ms of a 10 ms move to think
/// (the engine played `movetime 10` at depth 4).
pub const MOVETIME_OVERHEAD_SHARE: u64 = 25;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Clock of the side to move and its increment, milliseconds.
    pub time: Option<u64>,
    pub inc: Option<u64>,
    pub moves_to_go: Option<u64>,
    pub move_time: Option<u64>,
    pub depth: Option<i32>,
    pub nodes: Option<u64>,
    pub infinite: bool,
}

/// When to stop, computed once at the start of a search.
#[derive(Clone, Copy, Debug)]
pub struct Deadline {
    pub start: Instant,
    pub soft: Option<Duration>,
    pub hard: Option<Duration>,
}

impl Deadline {
    pub fn new(limits: &Limits, move_overhead_ms: u64) -> Deadline {
        let start = Instant::now();
        if limits.infinite {
            return Deadline {
                start,
                soft: None,
                hard: None,
            };
        }
        let mut soft: Option<u64> = None;
        let mut hard: Option<u64> = None;
        if let Some(time) = limits.time {
            let available = time.saturating_sub(move_overhead_ms);
            let mtg = limits
                .moves_to_go
                .unwrap_or(p::time_moves_to_go() as u64)
                .clamp(1, p::time_moves_to_go() as u64);
            let inc = limits.inc.unwrap_or(0) * p::time_increment_share() as u64 / 100;
            let cap = available * p::time_hard_share() as u64 / 100;
            let s = (available / mtg + inc).min(cap);
            soft = Some(s.max(MIN_THINK_MS));
            hard = Some(
                (s * p::time_hard_factor() as u64)
                    .min(cap)
                    .max(MIN_THINK_MS),
            );
        }
        if let Some(mt) = limits.move_time {
            let overhead = move_overhead_ms.min(mt * MOVETIME_OVERHEAD_SHARE / 100);
            let mt = mt.saturating_sub(overhead).max(MIN_THINK_MS);
            soft = Some(soft.map_or(mt, |s| s.min(mt)));
            hard = Some(hard.map_or(mt, |h| h.min(mt)));
        }
        Deadline {
            start,
            soft: soft.map(Duration::from_millis),
            hard: hard.map(Duration::from_millis),
        }
    }

    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    pub fn past_hard(&self) -> bool {
        self.hard.is_some_and(|h| self.elapsed() >= h)
    }

    pub fn past_soft(&self) -> bool {
        self.soft.is_some_and(|s| self.elapsed() >= s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_parameter_means_no_deadline() {
        let d = Deadline::new(
            &Limits {
                depth: Some(3),
                ..Limits::default()
            },
            10,
        );
        assert!(d.soft.is_none() && d.hard.is_none());
    }

    #[test]
    fn clock_limits_leave_the_overhead_and_never_exceed_the_cap() {
        let limits = Limits {
            time: Some(10_000),
            inc: Some(100),
            ..Limits::default()
        };
        let d = Deadline::new(&limits, 50);
        let (soft, hard) = (
            d.soft.unwrap().as_millis() as u64,
            d.hard.unwrap().as_millis() as u64,
        );
        assert!(soft > 0 && soft <= hard);
        assert!(hard <= (10_000 - 50) * p::time_hard_share() as u64 / 100);
        // A nearly empty clock still leaves a margin.
        let d = Deadline::new(
            &Limits {
                time: Some(30),
                ..Limits::default()
            },
            50,
        );
        assert!(d.hard.unwrap().as_millis() <= 1);
    }

    #[test]
    fn movetime_is_a_ceiling() {
        let d = Deadline::new(
            &Limits {
                move_time: Some(200),
                ..Limits::default()
            },
            10,
        );
        assert_eq!(d.hard.unwrap().as_millis(), 190);
        let both = Limits {
            move_time: Some(200),
            time: Some(1000),
            ..Limits::default()
        };
        assert!(Deadline::new(&both, 0).hard.unwrap().as_millis() <= 200);
    }

    #[test]
    fn a_short_movetime_is_not_eaten_by_the_overhead() {
        let d = Deadline::new(
            &Limits {
                move_time: Some(10),
                ..Limits::default()
            },
            10,
        );
        let ms = d.hard.unwrap().as_millis() as u64;
        assert!((7..10).contains(&ms), "{ms} ms of a 10 ms move");
    }

    #[test]
    fn movestogo_spends_more_when_fewer_moves_remain() {
        let many = Deadline::new(
            &Limits {
                time: Some(60_000),
                moves_to_go: Some(20),
                ..Limits::default()
            },
            0,
        );
        let few = Deadline::new(
            &Limits {
                time: Some(60_000),
                moves_to_go: Some(2),
                ..Limits::default()
            },
            0,
        );
        assert!(few.soft.unwrap() > many.soft.unwrap());
    }
}
