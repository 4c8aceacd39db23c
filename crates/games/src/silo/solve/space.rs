//! The full-space method's indexing: every arrangement of the checkers with
//! Red to move numbered by the rank of its colour string and of its stack
//! heights; mirror images; the moves and un-moves on an arrangement.
//!
//! Every arrangement of r Red and b Blue checkers on the row, with Red to
//! move, gets an index: (rank of the colour string in reading order) x (rank
//! of the stack heights). A position with Blue to move is looked up as its
//! mirror image (row reversed, colours swapped), which with r = b is in the
//! same space, so the table is half the size and the rules are only ever
//! applied for Red.

use super::full::Entry;
use super::SolveError;
use crate::silo::{Silo, MAX_SQUARES};
use crate::Side;

/// Largest colour-string length with a direct rank table (2^24 entries).
const MAX_FULL_CHECKERS: u32 = 24;
/// Largest unary height code: it must fit a u64.
const MAX_FULL_HEIGHT_BITS: u32 = 63;

/// An arrangement: colours in reading order (1 = Blue) and heights.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(in crate::silo) struct Row {
    pub(in crate::silo) colours: u64,
    pub(in crate::silo) heights: [u8; MAX_SQUARES],
}

#[inline]
pub fn mask(n: u32) -> u64 {
    if n >= 64 {
        !0
    } else {
        (1u64 << n) - 1
    }
}

/// The index tables of one row length and checker count.
#[derive(Clone, Debug)]
pub(in crate::silo) struct FullSpace {
    pub(super) squares: usize,
    /// Checkers per colour (equal).
    pub(super) per_side: u32,
    total: u32,
    /// Colour strings with `per_side` ones, in increasing order.
    patterns: Vec<u32>,
    /// Rank of each colour string (by value; unused entries 0).
    pattern_rank: Vec<u32>,
    /// Heights of each composition of `total` into `squares` parts, in
    /// increasing order of their unary codes.
    compositions: Vec<[u8; MAX_SQUARES]>,
    /// Binomial coefficients, `binomial[n][k]`, to rank compositions
    /// without a table as large as their codes (which would miss the cache).
    binomial: Vec<[u64; MAX_SQUARES]>,
}

/// Next larger number with the same count of ones (Gosper's hack).
pub fn next_combination(x: u64) -> u64 {
    let c = x & x.wrapping_neg();
    let r = x + c;
    (((r ^ x) >> 2) / c) | r
}

impl FullSpace {
    pub(in crate::silo) fn new(root: &Silo) -> Result<FullSpace, SolveError> {
        let not = |reason: String| Err(SolveError::NotFullSpace { reason });
        let (r, b) = (root.checkers(Side::P1), root.checkers(Side::P2));
        if r != b {
            return not(format!(
                "{r} Red and {b} Blue checkers: the mirror symmetry needs equal counts"
            ));
        }
        let (squares, total) = (root.squares(), r + b);
        let height_bits = total + squares as u32 - 1;
        if total > MAX_FULL_CHECKERS || height_bits > MAX_FULL_HEIGHT_BITS {
            return not(format!(
                "{total} checkers on {squares} squares: index tables too large"
            ));
        }
        let count = |bits: u32, ones: u32| -> u64 {
            // Binomial(bits, ones), exact in u128 for these sizes.
            let mut c: u128 = 1;
            for i in 0..ones as u128 {
                c = c * (bits as u128 - i) / (i + 1);
            }
            c as u64
        };
        let size = count(total, r).saturating_mul(count(height_bits, total));
        // Frontier entries are u32; that also bounds the table to 8 GiB.
        if size > u32::MAX as u64 {
            return not(format!("{size} positions"));
        }
        let mut binomial = vec![[0u64; MAX_SQUARES]; height_bits as usize + 1];
        for n in 0..binomial.len() {
            binomial[n][0] = 1;
            for k in 1..MAX_SQUARES {
                binomial[n][k] = if n == 0 {
                    0
                } else {
                    binomial[n - 1][k - 1] + binomial[n - 1][k]
                };
            }
        }
        let mut patterns = Vec::new();
        let mut pattern_rank = vec![0u32; 1 << total];
        let mut x = mask(b);
        while x < 1 << total {
            pattern_rank[x as usize] = patterns.len() as u32;
            patterns.push(x as u32);
            x = next_combination(x);
        }
        let mut compositions = Vec::new();
        // Unary code: per square, `h` ones then a zero (the last zero left
        // out), so the codes are the strings with `total` ones.
        let mut x = mask(total);
        while x < 1 << height_bits {
            let mut heights = [0u8; MAX_SQUARES];
            let mut rest = x;
            for h in heights.iter_mut().take(squares) {
                let n = rest.trailing_ones();
                *h = n as u8;
                rest >>= n + 1;
            }
            compositions.push(heights);
            x = next_combination(x);
        }
        Ok(FullSpace {
            squares,
            per_side: r,
            total,
            patterns,
            pattern_rank,
            compositions,
            binomial,
        })
    }

    pub(in crate::silo) fn size(&self) -> u64 {
        self.patterns.len() as u64 * self.compositions.len() as u64
    }

    /// The rank of the colours times the number of compositions plus the
    /// rank of the heights. The unary code of the heights has its zeros at
    /// z_j = h_0 + .. + h_j + j; codes with the same number of ones in
    /// increasing order are the complements of the zero sets in decreasing
    /// colex order, whose rank is the sum of binomial(z_j, j + 1).
    #[inline]
    pub(in crate::silo) fn index(&self, row: &Row) -> u64 {
        let mut colex = 0;
        let mut z = 0;
        for j in 0..self.squares - 1 {
            z += row.heights[j] as usize;
            colex += self.binomial[z + j][j + 1];
        }
        let count = self.compositions.len() as u64;
        self.pattern_rank[row.colours as usize] as u64 * count + (count - 1 - colex)
    }

    #[inline]
    pub(in crate::silo) fn row(&self, index: u64) -> Row {
        let n = self.compositions.len() as u64;
        Row {
            colours: self.patterns[(index / n) as usize] as u64,
            heights: self.compositions[(index % n) as usize],
        }
    }

    /// The row reversed with the colours swapped: Blue's view as Red's.
    #[inline]
    pub(in crate::silo) fn mirror(&self, row: Row) -> Row {
        let mut out = Row {
            colours: 0,
            heights: [0; MAX_SQUARES],
        };
        let mut start = 0;
        let mut end = self.total;
        for sq in 0..self.squares {
            let h = row.heights[sq] as u32;
            let stack = (!row.colours >> start) & mask(h);
            end -= h;
            out.colours |= stack << end;
            out.heights[self.squares - 1 - sq] = h as u8;
            start += h;
        }
        out
    }

    /// Takes `owner`'s highest checker on `from` with everything above it
    /// onto the top of the neighbour `to`; `None` if `from` holds none.
    #[inline]
    pub(super) fn transfer(&self, row: &Row, owner: Side, from: usize, to: usize) -> Option<Row> {
        let start: u32 = row.heights[..from].iter().map(|&h| h as u32).sum();
        let end = start + row.heights[from] as u32;
        let span = mask(end) & !mask(start);
        let own = match owner {
            Side::P1 => !row.colours & span,
            Side::P2 => row.colours & span,
        };
        if own == 0 {
            return None;
        }
        let p = 63 - own.leading_zeros();
        let k = end - p;
        let segment = (row.colours >> p) & mask(k);
        let mut out = *row;
        if to == from + 1 {
            let ht = row.heights[to] as u32;
            let target = (row.colours >> end) & mask(ht);
            let span = mask(end + ht) & !mask(p);
            out.colours = (row.colours & !span) | (target | segment << ht) << p;
        } else {
            let rest = (row.colours >> start) & mask(p - start);
            out.colours = (row.colours & !span) | (segment | rest << k) << start;
        }
        out.heights[from] -= k as u8;
        out.heights[to] += k as u8;
        Some(out)
    }

    /// Whether `side` has all its checkers as one run in one stack.
    pub(super) fn has_won(&self, row: &Row, side: Side) -> bool {
        let own = match side {
            Side::P1 => !row.colours & mask(self.total),
            Side::P2 => row.colours,
        };
        let lo = own.trailing_zeros();
        let hi = 63 - own.leading_zeros();
        if own.count_ones() != hi - lo + 1 {
            return false;
        }
        let mut end = 0;
        for &h in &row.heights[..self.squares] {
            end += h as u32;
            if lo < end {
                return hi < end;
            }
        }
        false
    }

    pub(super) fn is_over(&self, row: &Row) -> bool {
        self.has_won(row, Side::P1) || self.has_won(row, Side::P2)
    }

    /// How many children `row` has: a move per square but the last holding
    /// a Red checker, or the pass.
    pub(super) fn move_count(&self, row: &Row) -> Entry {
        let mut n = 0;
        let mut start = 0;
        for &h in &row.heights[..self.squares - 1] {
            let end = start + h as u32;
            n += (!row.colours & mask(end) & !mask(start) != 0) as Entry;
            start = end;
        }
        n.max(1)
    }

    /// Red's moves from `row` as the indices (used by the tests to check
    /// `parents` against the forward moves) of the children (mirrored to
    /// Red to move); the pass when Red has no move.
    #[cfg(test)]
    pub(in crate::silo) fn children(&self, row: &Row, out: &mut Vec<u64>) {
        out.clear();
        for sq in 0..self.squares - 1 {
            if let Some(child) = self.transfer(row, Side::P1, sq, sq + 1) {
                out.push(self.index(&self.mirror(child)));
            }
        }
        if out.is_empty() {
            out.push(self.index(&self.mirror(*row)));
        }
    }

    /// The unfinished positions (as indices, mirrored to Red to move) from
    /// which Blue's last move or forced pass led to `row` (Red to move).
    pub(in crate::silo) fn parents(&self, row: &Row, out: &mut Vec<u64>) {
        out.clear();
        for t in 0..self.squares - 1 {
            if let Some(before) = self.transfer(row, Side::P2, t, t + 1) {
                if !self.is_over(&before) {
                    out.push(self.index(&self.mirror(before)));
                }
            }
        }
        // Blue passed: all Blue checkers on square a, nothing finished.
        let first = row.heights[0] as u32;
        if row.colours & !mask(first) == 0 && !self.is_over(row) {
            out.push(self.index(&self.mirror(*row)));
        }
    }
}
