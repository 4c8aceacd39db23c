//! The transposition table: shared by all search threads without locks.
//!
//! Each entry is two 64-bit words, `key ^ data` and `data` (Hyatt's lockless
//! scheme): a torn write from another thread fails the key check and reads
//! as a miss instead of as a wrong move or score. Entries come in buckets of
//! two (32 bytes); the table holds exactly as many buckets as `Hash` MB fit.
//!
//! Replacement: a probe hits either slot; a store goes to the slot with the
//! same key if there is one, else to the slot whose entry is worth least,
//! worth being depth minus 8 per search generation of age, so old entries
//! from previous moves give way first and deep current ones survive.

use std::sync::atomic::{AtomicU64, AtomicU8, Ordering::Relaxed};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    Exact = 1,
    Lower = 2,
    Upper = 3,
}

/// What a probe returns.
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    /// 16-bit move packing (0 = none); only used after matching a legal move.
    pub mv: u16,
    /// Score relative to the node (win distances counted from the node).
    pub score: i32,
    pub eval: i32,
    pub depth: i32,
    pub bound: Bound,
}

// data layout (64 bits):
//   bits  0..16  move       (u16)
//   bits 16..32  score      (i16)
//   bits 32..48  static eval(i16)
//   bits 48..56  depth      (u8, depth + DEPTH_OFFSET so quiescence fits)
//   bits 56..58  bound      (2 bits, 0 = empty slot)
//   bits 58..64  age        (6 bits, search generation modulo 64)
/// A table whose memory could not be had.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("cannot allocate {bytes} bytes for the transposition table")]
pub struct AllocError {
    pub bytes: usize,
}

impl AllocError {
    fn layout(&self) -> std::alloc::Layout {
        std::alloc::Layout::array::<AtomicU64>(self.bytes / 8)
            .unwrap_or_else(|_| std::alloc::Layout::new::<AtomicU64>())
    }
}

const DEPTH_OFFSET: i32 = 8;
const BUCKET: usize = 2;
const AGE_CYCLE: u8 = 64;

/// The high 64 bits of `a * b`. x86-64 and aarch64 multiply 64 by 64
/// into 128 bits in one instruction; WebAssembly has no such instruction,
/// and its u128 product is a call to `__multi3` through the stack (7% of
/// the browser build's bench time went to `probe`), so there it is
/// `mul_high_halves`, inline. The same number either way.
#[inline(always)]
fn mul_high(a: u64, b: u64) -> u64 {
    #[cfg(target_family = "wasm")]
    {
        mul_high_halves(a, b)
    }
    #[cfg(not(target_family = "wasm"))]
    {
        ((a as u128 * b as u128) >> 64) as u64
    }
}

/// The high 64 bits of `a * b` from four 32 x 32-bit products.
#[cfg_attr(not(any(test, target_family = "wasm")), allow(dead_code))]
#[inline(always)]
fn mul_high_halves(a: u64, b: u64) -> u64 {
    let (a_lo, a_hi) = (a & 0xffff_ffff, a >> 32);
    let (b_lo, b_hi) = (b & 0xffff_ffff, b >> 32);
    let lo_lo = a_lo * b_lo;
    let hi_lo = a_hi * b_lo;
    let lo_hi = a_lo * b_hi;
    // At most 3 (2^32 - 1) < 2^64: no carry is lost.
    let cross = (lo_lo >> 32) + (hi_lo & 0xffff_ffff) + lo_hi;
    (cross >> 32) + (hi_lo >> 32) + a_hi * b_hi
}

pub struct Tt {
    slots: Vec<AtomicU64>,
    buckets: usize,
    age: AtomicU8,
}

impl Tt {
    /// A table of `mb` mebibytes (at least one bucket); aborts the process
    /// if the memory is not there (see `try_new`).
    pub fn new(mb: usize) -> Tt {
        match Tt::try_new(mb) {
            Ok(tt) => tt,
            Err(e) => std::alloc::handle_alloc_error(e.layout()),
        }
    }

    /// A table of `mb` mebibytes (at least one bucket), or the allocation's
    /// error when the memory is not there, so that a `setoption name Hash`
    /// too big for the machine is an error and not an abort.
    pub fn try_new(mb: usize) -> Result<Tt, AllocError> {
        let buckets = (mb.max(1).saturating_mul(1024 * 1024) / (16 * BUCKET)).max(1);
        let n = buckets.saturating_mul(BUCKET * 2);
        let mut slots = Vec::new();
        slots.try_reserve_exact(n).map_err(|_| AllocError {
            bytes: n.saturating_mul(8),
        })?;
        // Writing the zeroes takes the page faults here (before `readyok`)
        // instead of in the first search, where concurrent threads would
        // fault on the lazily mapped memory together.
        slots.resize_with(n, || AtomicU64::new(0));
        Ok(Tt {
            slots,
            buckets,
            age: AtomicU8::new(0),
        })
    }

    pub fn clear(&self) {
        for s in &self.slots {
            s.store(0, Relaxed);
        }
        self.age.store(0, Relaxed);
    }

    /// Called once per `go`: entries from earlier searches age.
    pub fn new_search(&self) {
        self.age
            .store((self.age.load(Relaxed) + 1) % AGE_CYCLE, Relaxed);
    }

    #[inline]
    fn bucket(&self, key: u64) -> usize {
        // Maps the key onto 0..buckets without a power-of-two size.
        mul_high(key, self.buckets as u64) as usize * BUCKET * 2
    }

    pub fn probe(&self, key: u64) -> Option<Entry> {
        let base = self.bucket(key);
        for i in 0..BUCKET {
            let k = self.slots[base + 2 * i].load(Relaxed);
            let data = self.slots[base + 2 * i + 1].load(Relaxed);
            if data != 0 && k ^ data == key {
                return unpack(data);
            }
        }
        None
    }

    pub fn store(&self, key: u64, mv: u16, score: i32, eval: i32, depth: i32, bound: Bound) {
        let base = self.bucket(key);
        let age = self.age.load(Relaxed);
        let mut victim = 0;
        let mut victim_worth = i32::MAX;
        for i in 0..BUCKET {
            let k = self.slots[base + 2 * i].load(Relaxed);
            let data = self.slots[base + 2 * i + 1].load(Relaxed);
            if data == 0 || k ^ data == key {
                victim = i;
                // Keep a known move when this store has none.
                if data != 0 && mv == 0 {
                    return self.write(
                        base + 2 * i,
                        key,
                        data as u16,
                        score,
                        eval,
                        depth,
                        bound,
                        age,
                    );
                }
                break;
            }
            let old_depth = ((data >> 48) & 0xFF) as i32;
            let old_age = (data >> 58) as u8;
            let stale = ((age + AGE_CYCLE - old_age) % AGE_CYCLE) as i32;
            let worth = old_depth - 8 * stale;
            if worth < victim_worth {
                victim_worth = worth;
                victim = i;
            }
        }
        self.write(base + 2 * victim, key, mv, score, eval, depth, bound, age);
    }

    #[allow(clippy::too_many_arguments)]
    fn write(
        &self,
        at: usize,
        key: u64,
        mv: u16,
        score: i32,
        eval: i32,
        depth: i32,
        bound: Bound,
        age: u8,
    ) {
        let clamp16 = |v: i32| v.clamp(i16::MIN as i32, i16::MAX as i32) as i16 as u16 as u64;
        let data = mv as u64
            | clamp16(score) << 16
            | clamp16(eval) << 32
            | ((depth + DEPTH_OFFSET).clamp(0, 255) as u64) << 48
            | (bound as u64) << 56
            | (age as u64) << 58;
        self.slots[at].store(key ^ data, Relaxed);
        self.slots[at + 1].store(data, Relaxed);
    }

    /// Permille of a sample of slots filled in the current search generation.
    pub fn hashfull(&self) -> u32 {
        let age = self.age.load(Relaxed) as u64;
        let sample = (self.slots.len() / 2).min(1000);
        let used = (0..sample)
            .filter(|&i| {
                let data = self.slots[2 * i + 1].load(Relaxed);
                data != 0 && data >> 58 == age
            })
            .count();
        (used * 1000 / sample.max(1)) as u32
    }
}

fn unpack(data: u64) -> Option<Entry> {
    let bound = match (data >> 56) & 3 {
        1 => Bound::Exact,
        2 => Bound::Lower,
        3 => Bound::Upper,
        _ => return None,
    };
    Some(Entry {
        mv: data as u16,
        score: (data >> 16) as u16 as i16 as i32,
        eval: (data >> 32) as u16 as i16 as i32,
        depth: ((data >> 48) & 0xFF) as i32 - DEPTH_OFFSET,
        bound,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_high_half_from_halves_is_the_u128_product_s() {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let edges = [0, 1, u32::MAX as u64, 1 << 32, u64::MAX - 1, u64::MAX];
        let mut values: Vec<u64> = edges.to_vec();
        for _ in 0..2000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            values.push(x);
        }
        for (i, &a) in values.iter().enumerate() {
            for &b in values.iter().skip(i % 97).step_by(97).chain(&edges) {
                assert_eq!(
                    mul_high_halves(a, b),
                    ((a as u128 * b as u128) >> 64) as u64,
                    "{a} * {b}"
                );
            }
        }
    }

    #[test]
    fn stores_and_probes_round_trip_including_negative_scores() {
        let tt = Tt::new(1);
        tt.store(0xDEAD_BEEF, 1234, -29_990, -55, 7, Bound::Lower);
        let e = tt.probe(0xDEAD_BEEF).expect("stored");
        assert_eq!(
            (e.mv, e.score, e.eval, e.depth, e.bound),
            (1234, -29_990, -55, 7, Bound::Lower)
        );
        assert!(tt.probe(0xDEAD_BEEE).is_none());
        tt.store(0x1234, 9, 5, 0, -3, Bound::Upper);
        assert_eq!(tt.probe(0x1234).unwrap().depth, -3, "quiescence depths fit");
    }

    #[test]
    fn size_follows_the_hash_option_exactly() {
        assert_eq!(Tt::new(16).slots.len() * 8, 16 * 1024 * 1024);
        assert_eq!(Tt::new(3).slots.len() * 8, 3 * 1024 * 1024);
    }

    #[test]
    fn a_store_without_move_keeps_the_known_move() {
        let tt = Tt::new(1);
        tt.store(42, 77, 10, 0, 5, Bound::Exact);
        tt.store(42, 0, 20, 0, 6, Bound::Upper);
        let e = tt.probe(42).unwrap();
        assert_eq!((e.mv, e.score, e.depth), (77, 20, 6));
    }

    #[test]
    fn old_shallow_entries_are_replaced_first() {
        let tt = Tt {
            slots: (0..4).map(|_| AtomicU64::new(0)).collect(),
            buckets: 1,
            age: AtomicU8::new(0),
        };
        tt.store(1, 1, 0, 0, 10, Bound::Exact);
        tt.store(2, 2, 0, 0, 3, Bound::Exact);
        tt.store(3, 3, 0, 0, 5, Bound::Exact); // replaces the shallower key 2
        assert!(tt.probe(1).is_some() && tt.probe(2).is_none() && tt.probe(3).is_some());
        for _ in 0..2 {
            tt.new_search();
        }
        tt.store(4, 4, 0, 0, 1, Bound::Exact); // key 1 is deep but two searches old: 10-16 < 5-16
        assert!(tt.probe(3).is_some() || tt.probe(1).is_some());
        assert!(tt.probe(4).is_some());
    }

    #[test]
    fn hashfull_counts_current_entries() {
        let tt = Tt::new(1);
        assert_eq!(tt.hashfull(), 0);
        for k in 0..200_000u64 {
            tt.store(
                k.wrapping_mul(0x9E37_79B9_7F4A_7C15),
                1,
                0,
                0,
                1,
                Bound::Exact,
            );
        }
        assert!(tt.hashfull() > 500);
        tt.new_search();
        assert_eq!(tt.hashfull(), 0, "entries of an older search do not count");
    }
}
