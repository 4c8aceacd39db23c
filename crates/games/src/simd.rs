//! The integer kernels of the networks' inference: a first-layer
//! accumulator updated by rows of weights, and the clipped output layer.
//!
//! Lengths are a multiple of `LANES`. Sums wrap: a network is checked when
//! it loads so that every true sum fits (`mixtour::nnue::Network::check`),
//! and a wrapped sum of values whose true sum fits is that sum.

/// What every length is a multiple of: one 256-bit vector of `i16`.
pub const LANES: usize = 16;

/// `out = base + sum(adds) - sum(subs)`, lane by lane.
#[inline]
pub fn update(out: &mut [i16], base: &[i16], adds: &[&[i16]], subs: &[&[i16]]) {
    portable::update(out, base, adds, subs)
}

/// `sum(clamp(acc[i], 0, max) * w[i])`.
#[inline]
pub fn output(acc: &[i16], w: &[i16], max: i16) -> i32 {
    portable::output(acc, w, max)
}

/// One lane at a time: the reference every other path must equal.
pub mod scalar {
    pub fn update(out: &mut [i16], base: &[i16], adds: &[&[i16]], subs: &[&[i16]]) {
        for (i, o) in out.iter_mut().enumerate() {
            let mut v = base[i];
            for row in adds {
                v = v.wrapping_add(row[i]);
            }
            for row in subs {
                v = v.wrapping_sub(row[i]);
            }
            *o = v;
        }
    }

    pub fn output(acc: &[i16], w: &[i16], max: i16) -> i32 {
        acc.iter().zip(w).fold(0i32, |sum, (&a, &w)| {
            sum.wrapping_add(i32::from(a.clamp(0, max)) * i32::from(w))
        })
    }
}

/// Blocks of `LANES` lanes in fixed-size arrays, which the compiler turns
/// into the vector instructions of the target (SSE2 on any x86-64, NEON on
/// aarch64, simd128 in a wasm build with it).
pub mod portable {
    use super::LANES;

    #[inline(always)]
    pub fn update(out: &mut [i16], base: &[i16], adds: &[&[i16]], subs: &[&[i16]]) {
        for (k, (o, b)) in out
            .chunks_exact_mut(LANES)
            .zip(base.chunks_exact(LANES))
            .enumerate()
        {
            let mut v = [0i16; LANES];
            v.copy_from_slice(b);
            for row in adds {
                let r = &row[k * LANES..(k + 1) * LANES];
                for (v, &r) in v.iter_mut().zip(r) {
                    *v = v.wrapping_add(r);
                }
            }
            for row in subs {
                let r = &row[k * LANES..(k + 1) * LANES];
                for (v, &r) in v.iter_mut().zip(r) {
                    *v = v.wrapping_sub(r);
                }
            }
            o.copy_from_slice(&v);
        }
    }

    #[inline(always)]
    pub fn output(acc: &[i16], w: &[i16], max: i16) -> i32 {
        let mut sums = [0i32; LANES];
        for (a, w) in acc.chunks_exact(LANES).zip(w.chunks_exact(LANES)) {
            for ((s, &a), &w) in sums.iter_mut().zip(a).zip(w) {
                *s = s.wrapping_add(i32::from(a.clamp(0, max)) * i32::from(w));
            }
        }
        sums.iter().fold(0i32, |t, &s| t.wrapping_add(s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows of the extremes and of everything between, and sums that wrap.
    fn rows(n: usize, seed: u64) -> Vec<Vec<i16>> {
        let mut x = seed;
        (0..8)
            .map(|r| {
                (0..n)
                    .map(|i| {
                        x = x
                            .wrapping_mul(6364136223846793005)
                            .wrapping_add(1442695040888963407);
                        match (r + i) % 7 {
                            0 => i16::MAX,
                            1 => i16::MIN,
                            _ => (x >> 48) as i16,
                        }
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn the_portable_kernels_equal_the_scalar_ones() {
        for n in [16, 64, 256, 512] {
            let r = rows(n, n as u64);
            let adds: Vec<&[i16]> = r[1..5].iter().map(|v| &v[..]).collect();
            let subs: Vec<&[i16]> = r[5..].iter().map(|v| &v[..]).collect();
            for (na, ns) in [(0, 0), (1, 0), (0, 1), (2, 2), (4, 3)] {
                let (mut a, mut b) = (vec![0; n], vec![0; n]);
                scalar::update(&mut a, &r[0], &adds[..na], &subs[..ns]);
                portable::update(&mut b, &r[0], &adds[..na], &subs[..ns]);
                assert_eq!(a, b, "{n} lanes, {na} added, {ns} taken away");
            }
            for max in [0, 255, i16::MAX] {
                assert_eq!(
                    scalar::output(&r[0], &r[1], max),
                    portable::output(&r[0], &r[1], max),
                    "{n} lanes, clipped at {max}"
                );
            }
        }
    }

    #[test]
    fn the_output_clips_below_zero_and_above_the_maximum() {
        let acc: Vec<i16> = (0..16).map(|i| i * 40 - 100).collect();
        let w = vec![1i16; 16];
        // -100, -60, -20 clip to 0; then 20 to 500 by 40, clipped to 255.
        let expected: i32 = (3..16).map(|i| (i * 40 - 100).min(255)).sum();
        assert_eq!(scalar::output(&acc, &w, 255), expected);
        assert_eq!(output(&acc, &w, 255), expected);
    }
}
