//! The parallel retrograde builder: every arrangement of a configuration
//! with Red to move, swept backwards one distance at a time from the
//! finished positions, both cores working on disjoint stretches of the
//! table at each distance.
//!
//! Why this shape. The entries are ordered by stack heights first (index
//! scheme 1), so the 48,620 colourings of one set of heights are one block
//! of the table. The predecessors of a block's positions lie in at most
//! (checkers + 1) other blocks, whatever the colours: the sweep through one
//! block touches about a megabyte, which stays in the caches, instead of
//! 1.6 GB at random. At each distance the positions resolved at exactly that
//! distance are all wins or all losses (a win's distance is odd, a loss's
//! even), so one level only ever sets wins or only ever counts down: the
//! updates of a level commute and the threads need no order among them.
//!
//! Working entries (one byte, eight to an atomic word): 1..=15 a position
//! not yet solved, holding how many of its moves are not yet known to lose
//! for the mover; `WIN_NOW` one whose side to move has already won;
//! `SOLVED + d` one solved at distance d. Counting down never borrows from
//! the neighbouring byte: a count reaches 0 only with its last move, and
//! then it is replaced at once by the loss.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

pub use crate::error::BuildError;

use super::format::{
    self, composition_rank, heights_of_code, Config, Header, Storage, MAX_PER_SIDE,
};
use stackfish_games::silo::solve::{mask, next_combination};
use stackfish_games::silo::MAX_SQUARES;

const WIN_NOW: u8 = 16;
const SOLVED: u8 = 17;
/// The longest distance a working byte holds.
const MAX_WORKING_DISTANCE: u16 = (u8::MAX - SOLVED) as u16;

const ONES: u64 = 0x0101_0101_0101_0101;
const LOW7: u64 = 0x7F7F_7F7F_7F7F_7F7F;

/// Bit i*8 set for every byte i of `word` equal to `byte` (exact, unlike
/// the usual has-zero trick whose borrow can flag the byte above).
#[inline]
fn bytes_equal(word: u64, byte: u8) -> u64 {
    let x = word ^ (ONES * byte as u64);
    let nonzero = ((x & LOW7) + LOW7) | x;
    (!nonzero >> 7) & ONES
}

/// A built table: the entries in the file's code, eight to a word (entry i
/// is byte i % 8, little-endian, of word i / 8).
pub struct Built {
    pub header: Header,
    words: Vec<u64>,
    /// Moves followed backwards.
    pub edges: u64,
}

impl Built {
    pub fn entry(&self, index: u64) -> u8 {
        (self.words[(index / 8) as usize] >> (8 * (index % 8))) as u8
    }

    /// The data bytes in file order, a chunk of whole words at a time.
    pub fn for_each_chunk(
        &self,
        mut f: impl FnMut(&[u8]) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        const WORDS: usize = 1 << 16;
        let mut buffer = Vec::with_capacity(WORDS * 8);
        let mut left = self.header.entries as usize;
        for chunk in self.words.chunks(WORDS) {
            buffer.clear();
            for w in chunk {
                buffer.extend_from_slice(&w.to_le_bytes());
            }
            let n = buffer.len().min(left);
            f(&buffer[..n])?;
            left -= n;
        }
        Ok(())
    }

    /// Writes the table file in the current format (version 2, zstd
    /// blocks); returns the header as written.
    pub fn write(&self, path: &std::path::Path) -> std::io::Result<Header> {
        self.write_blocks(path, super::blocks::BLOCK_ENTRIES)
    }

    /// `write` with `per_block` entries to a block (tests use small blocks
    /// to get many of them from a small table).
    pub fn write_blocks(&self, path: &std::path::Path, per_block: u32) -> std::io::Result<Header> {
        super::blocks::write(path, &self.header, per_block, &|range, out| {
            out.extend(range.map(|i| self.entry(i)))
        })
    }

    /// Writes the table file in format version 1, the entries uncompressed.
    pub fn write_plain(&self, path: &std::path::Path) -> std::io::Result<()> {
        use std::io::Write;
        let mut out = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(path)?);
        out.write_all(&self.header.to_bytes())?;
        self.for_each_chunk(|bytes| out.write_all(bytes))?;
        out.into_inner().map_err(|e| e.into_error())?.sync_all()
    }
}

/// The index tables of one configuration.
struct Space {
    squares: usize,
    total: u32,
    /// Colour strings by rank (increasing, which is colex order).
    patterns: Vec<u32>,
    /// The rank of each colour string, indexed by the string.
    pattern_rank: Vec<u32>,
    /// Heights by composition rank.
    compositions: Vec<[u8; MAX_SQUARES]>,
}

impl Space {
    fn new(config: Config) -> Space {
        let total = config.total();
        let squares = config.squares as usize;
        let mut patterns = Vec::with_capacity(config.patterns() as usize);
        let mut pattern_rank = vec![0u32; 1 << total];
        let mut x = mask(config.per_side as u32);
        while x < 1 << total {
            pattern_rank[x as usize] = patterns.len() as u32;
            patterns.push(x as u32);
            x = next_combination(x);
        }
        let code_bits = total + squares as u32 - 1;
        let mut compositions = Vec::with_capacity(config.compositions() as usize);
        let mut x = mask(total);
        while x < 1 << code_bits {
            compositions.push(heights_of_code(x, squares));
            x = next_combination(x);
        }
        Space {
            squares,
            total,
            patterns,
            pattern_rank,
            compositions,
        }
    }

    fn block_len(&self) -> u64 {
        self.patterns.len() as u64
    }
}

/// Room for segment lengths 0..=24 (at most `2 * MAX_PER_SIDE` checkers).
const SEGMENTS: usize = 2 * MAX_PER_SIDE as usize + 1;

/// What a block's sweep needs of its heights.
struct Block {
    heights: [u8; MAX_SQUARES],
    /// Reading-order start of each square (and the total at `squares`).
    start: [u32; MAX_SQUARES + 1],
    /// The square of each checker position.
    square_of: [u8; 64],
    /// Un-moves: the parent block for Blue's segment of `k` checkers taken
    /// back from square t to t + 1, at `t * SEGMENTS + k`.
    parent_block: [u32; MAX_SQUARES * SEGMENTS],
    /// The parent block when Blue passed (the same heights, mirrored).
    pass_block: u32,
}

impl Block {
    fn new(space: &Space, c: usize) -> Block {
        let heights = space.compositions[c];
        let n = space.squares;
        let mut start = [0u32; MAX_SQUARES + 1];
        let mut square_of = [0u8; 64];
        for sq in 0..n {
            start[sq + 1] = start[sq] + heights[sq] as u32;
            for i in start[sq]..start[sq + 1] {
                square_of[i as usize] = sq as u8;
            }
        }
        let mirrored = |h: &[u8; MAX_SQUARES]| {
            let mut m = [0u8; MAX_SQUARES];
            for sq in 0..n {
                m[n - 1 - sq] = h[sq];
            }
            composition_rank(&m[..n]) as u32
        };
        let mut parent_block = [0u32; MAX_SQUARES * SEGMENTS];
        for t in 0..n - 1 {
            for k in 1..=heights[t] {
                let mut h = heights;
                h[t] -= k;
                h[t + 1] += k;
                parent_block[t * SEGMENTS + k as usize] = mirrored(&h);
            }
        }
        Block {
            heights,
            start,
            square_of,
            parent_block,
            pass_block: mirrored(&heights),
        }
    }

    /// Whether the checkers in `own` (bits in reading order) form one
    /// unbroken run in one stack.
    #[inline]
    fn one_run(&self, own: u64) -> bool {
        if own == 0 {
            return false;
        }
        let lo = own.trailing_zeros();
        let hi = 63 - own.leading_zeros();
        own.count_ones() == hi - lo + 1
            && self.square_of[lo as usize] == self.square_of[hi as usize]
    }

    /// Red's moves in the arrangement `x` (Red to move): one per square but
    /// the last holding a Red checker, or the forced pass.
    #[inline]
    fn move_count(&self, x: u64, squares: usize) -> u8 {
        let mut n = 0;
        for sq in 0..squares - 1 {
            let span = mask(self.start[sq + 1]) & !mask(self.start[sq]);
            n += (!x & span != 0) as u8;
        }
        n.max(1)
    }
}

/// The colours of `x` on a row of `heights` seen from the other side:
/// squares reversed, each stack kept bottom up, colours swapped.
#[inline]
fn mirror_colours(x: u64, heights: &[u8; MAX_SQUARES], squares: usize, total: u32) -> u64 {
    let mut out = 0;
    let mut start = 0;
    let mut end = total;
    for &h in &heights[..squares] {
        let h = h as u32;
        end -= h;
        out |= ((!x >> start) & mask(h)) << end;
        start += h;
    }
    out
}

struct Sweep<'a> {
    space: &'a Space,
    table: &'a [AtomicU64],
    /// Blocks with entries at the next distance.
    next: &'a [AtomicBool],
}

impl Sweep<'_> {
    #[inline]
    fn byte(&self, i: u64) -> (&AtomicU64, u32) {
        (&self.table[(i / 8) as usize], 8 * (i % 8) as u32)
    }

    /// Sets entry `i` to `code` unless it is solved; whether it did.
    #[inline]
    fn set_if_open(&self, i: u64, code: u8) -> bool {
        let (word, shift) = self.byte(i);
        let mut w = word.load(Relaxed);
        loop {
            let b = (w >> shift) as u8;
            if b == 0 || b > 15 {
                return false;
            }
            let new = (w & !(0xFF << shift)) | (code as u64) << shift;
            match word.compare_exchange_weak(w, new, Relaxed, Relaxed) {
                Ok(_) => return true,
                Err(now) => w = now,
            }
        }
    }

    /// Counts down entry `i` unless it is solved; when the count reaches 0
    /// the entry becomes `code`. Whether it did.
    #[inline]
    fn count_down(&self, i: u64, code: u8) -> bool {
        let (word, shift) = self.byte(i);
        let b = (word.load(Relaxed) >> shift) as u8;
        if b == 0 || b > 15 {
            return false;
        }
        let before = (word.fetch_sub(1 << shift, Relaxed) >> shift) as u8;
        if before == 1 {
            word.fetch_add((code as u64) << shift, Relaxed);
            return true;
        }
        false
    }

    /// Resolves the parents of every entry of block `c` at distance `d`;
    /// returns (entries resolved, moves followed). `pending` is scratch.
    fn block(&self, c: usize, d: u16, pending: &mut Vec<(u64, u32)>) -> (u64, u64) {
        let sp = self.space;
        let b = Block::new(sp, c);
        let (n, total) = (sp.squares, sp.total);
        let len = sp.block_len();
        let first = c as u64 * len;
        let last = first + len;
        let want = SOLVED + d as u8;
        let mut done = Done {
            code: want + 1,
            losses: d.is_multiple_of(2),
            resolved: 0,
            edges: 0,
            parent_blocks: Vec::new(),
        };
        pending.clear();
        let mut w = first / 8;
        while w * 8 < last {
            let mut hits = bytes_equal(self.table[w as usize].load(Relaxed), want);
            while hits != 0 {
                let i = w * 8 + hits.trailing_zeros() as u64 / 8;
                hits &= hits - 1;
                if i < first || i >= last {
                    continue;
                }
                let x = sp.patterns[(i - first) as usize] as u64;
                for t in 0..n - 1 {
                    // Blue's last move went from t + 1 onto t: take Blue's
                    // highest checker on t and all above it back.
                    let (s, e) = (b.start[t], b.start[t + 1]);
                    let blue = x & mask(e) & !mask(s);
                    if blue == 0 {
                        continue;
                    }
                    let p = 63 - blue.leading_zeros();
                    let k = e - p;
                    let ht = b.heights[t + 1] as u32;
                    let segment = (x >> p) & mask(k);
                    let target = (x >> e) & mask(ht);
                    let span = mask(e + ht) & !mask(p);
                    let y = (x & !span) | (target | segment << ht) << p;
                    let mut h = b.heights;
                    h[t] -= k as u8;
                    h[t + 1] += k as u8;
                    if parent_over(y, &h, n, total) {
                        continue;
                    }
                    let pb = b.parent_block[t * SEGMENTS + k as usize];
                    let m = mirror_colours(y, &h, n, total);
                    pending.push((pb as u64 * len + sp.pattern_rank[m as usize] as u64, pb));
                }
                // Blue passed: all its checkers on square a.
                if x & !mask(b.start[1]) == 0 && !b.one_run(x) && !b.one_run(!x & mask(total)) {
                    let m = mirror_colours(x, &b.heights, n, total);
                    let pb = b.pass_block;
                    pending.push((pb as u64 * len + sp.pattern_rank[m as usize] as u64, pb));
                }
                if pending.len() >= PENDING {
                    self.apply(pending, &mut done);
                }
            }
            w += 1;
        }
        self.apply(pending, &mut done);
        for pb in done.parent_blocks {
            self.next[pb as usize].store(true, Relaxed);
        }
        (done.resolved, done.edges)
    }

    /// Applies the updates in `pending` and empties it. The entries are
    /// read first with plain loads, so that their cache misses overlap
    /// (a locked instruction in between would make each wait for the last);
    /// only the open ones get the locked update, which then finds its line
    /// in the cache.
    fn apply(&self, pending: &mut Vec<(u64, u32)>, done: &mut Done) {
        done.edges += pending.len() as u64;
        pending.retain(|&(i, _)| {
            let (word, shift) = self.byte(i);
            let b = (word.load(Relaxed) >> shift) as u8;
            (1..=15).contains(&b)
        });
        for &(i, pb) in pending.iter() {
            let changed = if done.losses {
                self.set_if_open(i, done.code)
            } else {
                self.count_down(i, done.code)
            };
            if changed {
                done.resolved += 1;
                if !done.parent_blocks.contains(&pb) {
                    done.parent_blocks.push(pb);
                }
            }
        }
        pending.clear();
    }
}

/// Updates gathered before they are applied.
const PENDING: usize = 512;

/// What one block's sweep did.
struct Done {
    /// The code a resolved parent gets.
    code: u8,
    /// Whether this distance's positions are losses (their parents win).
    losses: bool,
    resolved: u64,
    edges: u64,
    /// The blocks that got entries at the next distance.
    parent_blocks: Vec<u32>,
}

/// Whether the arrangement `y` with heights `h` is finished (either side
/// has one run in one stack): such a position has no moves, so it is no
/// one's predecessor.
#[inline]
fn parent_over(y: u64, h: &[u8; MAX_SQUARES], squares: usize, total: u32) -> bool {
    let run = |own: u64| {
        if own == 0 {
            return false;
        }
        let lo = own.trailing_zeros();
        let hi = 63 - own.leading_zeros();
        if own.count_ones() != hi - lo + 1 {
            return false;
        }
        let mut end = 0;
        for &height in &h[..squares] {
            end += height as u32;
            if lo < end {
                return hi < end;
            }
        }
        false
    };
    run(y) || run(!y & mask(total))
}

/// Progress of a build: entries solved so far and the distance reached.
pub type Progress<'a> = &'a (dyn Fn(u64, u16) + Sync);

/// Builds the table of `config`, calling `progress` after each distance.
pub fn build(config: Config, progress: Progress) -> Result<Built, BuildError> {
    config.check()?;
    let space = Space::new(config);
    let entries = config.entries();
    let blocks = space.compositions.len();
    let table: Vec<AtomicU64> = (0..entries.div_ceil(8))
        .map(|_| AtomicU64::new(0))
        .collect();
    let mut current: Vec<AtomicBool> = (0..blocks).map(|_| AtomicBool::new(false)).collect();
    let mut next: Vec<AtomicBool> = (0..blocks).map(|_| AtomicBool::new(false)).collect();

    // Finished positions and move counts. Red is to move, so Blue moved
    // last and Blue's run counts first when both have one.
    let finished: u64 = (0..blocks)
        .into_par_iter()
        .map(|c| {
            let b = Block::new(&space, c);
            let first = c as u64 * space.block_len();
            let mut word = 0u64;
            let mut at = first / 8;
            let mut losses = 0;
            for (j, &x) in space.patterns.iter().enumerate() {
                let x = x as u64;
                let i = first + j as u64;
                if i / 8 != at {
                    table[at as usize].fetch_or(word, Relaxed);
                    word = 0;
                    at = i / 8;
                }
                let e = if b.one_run(x) {
                    losses += 1;
                    SOLVED
                } else if b.one_run(!x & mask(space.total)) {
                    WIN_NOW
                } else {
                    b.move_count(x, space.squares)
                };
                word |= (e as u64) << (8 * (i % 8));
            }
            table[at as usize].fetch_or(word, Relaxed);
            if losses > 0 {
                current[c].store(true, Relaxed);
            }
            losses
        })
        .sum();
    let sweep_table = &table;
    let mut solved = finished;
    let mut edges = 0;
    let mut longest = 0;
    let mut d: u16 = 0;
    progress(solved, 0);
    loop {
        let list: Vec<usize> = (0..blocks).filter(|&c| current[c].load(Relaxed)).collect();
        if list.is_empty() {
            break;
        }
        if d >= MAX_WORKING_DISTANCE {
            return Err(BuildError::TooDeep {
                limit: MAX_WORKING_DISTANCE,
            });
        }
        let sweep = Sweep {
            space: &space,
            table: sweep_table,
            next: &next,
        };
        let (resolved, followed) = list
            .par_iter()
            .with_min_len(4)
            .map_init(Vec::new, |pending, &c| sweep.block(c, d, pending))
            .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
        edges += followed;
        solved += resolved;
        if resolved > 0 {
            longest = d + 1;
        }
        d += 1;
        progress(solved, d);
        std::mem::swap(&mut current, &mut next);
        next.par_iter().for_each(|f| f.store(false, Relaxed));
    }
    if longest > format::MAX_DISTANCE {
        return Err(BuildError::TooLong { longest });
    }

    // Working bytes to the file's code, and the census.
    let mut words: Vec<u64> = table.into_iter().map(AtomicU64::into_inner).collect();
    let tail = entries % 8;
    let counts = words
        .par_iter_mut()
        .enumerate()
        .map(|(wi, w)| {
            let bytes = if wi as u64 == entries / 8 { tail } else { 8 };
            let mut out = 0u64;
            let mut c = [0u64; 3];
            for j in 0..bytes {
                let b = (*w >> (8 * j)) as u8;
                let (code, kind) = match b {
                    WIN_NOW => (1, 0),
                    b if b >= SOLVED => {
                        let dist = b - SOLVED;
                        (dist + 2, if dist % 2 == 1 { 0 } else { 1 })
                    }
                    _ => (0, 2),
                };
                c[kind] += 1;
                out |= (code as u64) << (8 * j);
            }
            *w = out;
            c
        })
        .reduce(|| [0; 3], |a, b| [a[0] + b[0], a[1] + b[1], a[2] + b[2]]);
    let mut built = Built {
        header: Header {
            config,
            entries,
            wins: counts[0],
            losses: counts[1],
            draws: counts[2],
            longest,
            checksum: [0; 32],
            storage: Storage::Plain,
        },
        words,
        edges,
    };
    built.header.checksum = checksum(&built);
    Ok(built)
}

fn checksum(built: &Built) -> [u8; 32] {
    use sha2::{Digest, Sha256};
    let mut hasher = Sha256::new();
    built
        .for_each_chunk(|bytes| {
            hasher.update(bytes);
            Ok(())
        })
        .expect("hashing does no I/O");
    hasher.finalize().into()
}
