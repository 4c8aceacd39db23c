//! The integer kernels of the networks' inference: a first-layer
//! accumulator updated by rows of weights, and the clipped output layer,
//! on the widest vectors the machine has: AVX2 on an x86-64 that has it
//! (found at run time, so one binary serves every x86-64), else SSE2 (which
//! every x86-64 has); NEON on aarch64; simd128 in a wasm build made with it
//! (`-C target-feature=+simd128`, as the site is); elsewhere plain arrays
//! the compiler vectorizes as it can. `scalar` is the reference every path
//! is tested against.
//!
//! Lengths are a multiple of `LANES` (checked: the vector paths read whole
//! vectors). Sums wrap: a network is checked when it loads so that every
//! true sum fits (`Network::check`), and a wrapped sum of
//! values whose true sum fits is that sum.

/// What every length is a multiple of: one 256-bit vector of `i16`.
pub const LANES: usize = 16;

/// A way to compute the kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Path {
    Scalar,
    Portable,
    #[cfg(target_arch = "x86_64")]
    Sse2,
    #[cfg(target_arch = "x86_64")]
    Avx2,
    #[cfg(target_arch = "aarch64")]
    Neon,
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    Simd128,
}

impl Path {
    /// The fastest path this machine runs.
    #[inline(always)]
    pub fn best() -> Path {
        #[cfg(target_arch = "x86_64")]
        {
            if x86::has_avx2() {
                Path::Avx2
            } else {
                Path::Sse2
            }
        }
        #[cfg(target_arch = "aarch64")]
        {
            Path::Neon
        }
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        {
            Path::Simd128
        }
        #[cfg(not(any(
            target_arch = "x86_64",
            target_arch = "aarch64",
            all(target_arch = "wasm32", target_feature = "simd128")
        )))]
        {
            Path::Portable
        }
    }

    /// Every path this machine runs, the reference first.
    pub fn available() -> Vec<Path> {
        [
            Path::Scalar,
            Path::Portable,
            #[cfg(target_arch = "x86_64")]
            Path::Sse2,
            #[cfg(target_arch = "x86_64")]
            Path::Avx2,
            #[cfg(target_arch = "aarch64")]
            Path::Neon,
            #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
            Path::Simd128,
        ]
        .into_iter()
        .filter(|&path| path.runs_here())
        .collect()
    }

    /// Whether this machine has the instructions of `self` (AVX2 is found
    /// at run time; every other path exists only where it runs).
    fn runs_here(self) -> bool {
        #[cfg(target_arch = "x86_64")]
        if self == Path::Avx2 {
            return x86::has_avx2();
        }
        true
    }
}

/// `out = base + sum(adds) - sum(subs)`, lane by lane.
#[inline]
pub fn update(out: &mut [i16], base: &[i16], adds: &[&[i16]], subs: &[&[i16]]) {
    update_on(Path::best(), out, base, adds, subs)
}

/// `sum(clamp(acc[i], 0, max) * w[i])`.
#[inline]
pub fn output(acc: &[i16], w: &[i16], max: i16) -> i32 {
    output_on(Path::best(), acc, w, max)
}

/// `update` on `path` (a path the machine lacks falls back to the
/// reference). Panics if a length differs from `out`'s or is not a
/// multiple of `LANES`: callers pass rows of one network.
#[inline(always)]
pub fn update_on(path: Path, out: &mut [i16], base: &[i16], adds: &[&[i16]], subs: &[&[i16]]) {
    let n = out.len();
    assert!(
        n.is_multiple_of(LANES)
            && base.len() == n
            && adds.iter().all(|r| r.len() == n)
            && subs.iter().all(|r| r.len() == n),
        "rows of different lengths"
    );
    match path {
        Path::Scalar => scalar::update(out, base, adds, subs),
        Path::Portable => portable::update(out, base, adds, subs),
        #[cfg(target_arch = "x86_64")]
        // Safety: every length is `n`, a multiple of the vectors' lanes
        // (asserted above), and SSE2 is part of x86-64.
        Path::Sse2 => unsafe { x86::sse2::update(out, base, adds, subs) },
        #[cfg(target_arch = "x86_64")]
        Path::Avx2 if x86::has_avx2() => {
            // Safety: the lengths as above, and the CPU has AVX2.
            unsafe { x86::avx2::update(out, base, adds, subs) }
        }
        #[cfg(target_arch = "x86_64")]
        Path::Avx2 => scalar::update(out, base, adds, subs),
        #[cfg(target_arch = "aarch64")]
        // Safety: the lengths as above; NEON is part of aarch64.
        Path::Neon => unsafe { neon::update(out, base, adds, subs) },
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        // Safety: the lengths as above; the build enables simd128.
        Path::Simd128 => unsafe { wasm::update(out, base, adds, subs) },
    }
}

/// `output` on `path`; panics on lengths as `update_on` does.
#[inline(always)]
pub fn output_on(path: Path, acc: &[i16], w: &[i16], max: i16) -> i32 {
    let n = acc.len();
    assert!(
        n.is_multiple_of(LANES) && w.len() == n,
        "rows of different lengths"
    );
    match path {
        Path::Scalar => scalar::output(acc, w, max),
        Path::Portable => portable::output(acc, w, max),
        #[cfg(target_arch = "x86_64")]
        // Safety: as in `update_on`.
        Path::Sse2 => unsafe { x86::sse2::output(acc, w, max) },
        #[cfg(target_arch = "x86_64")]
        Path::Avx2 if x86::has_avx2() => {
            // Safety: as in `update_on`.
            unsafe { x86::avx2::output(acc, w, max) }
        }
        #[cfg(target_arch = "x86_64")]
        Path::Avx2 => scalar::output(acc, w, max),
        #[cfg(target_arch = "aarch64")]
        // Safety: as in `update_on`.
        Path::Neon => unsafe { neon::output(acc, w, max) },
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        // Safety: as in `update_on`.
        Path::Simd128 => unsafe { wasm::output(acc, w, max) },
    }
}

/// x86-64: SSE2 always, AVX2 where the CPU has it.
///
/// # Safety (every function)
/// Every slice is as long as the first, a multiple of `LANES`; the AVX2
/// ones only on a CPU with AVX2.
/// The first layer's update for one vector width, written once for every
/// instruction set (AVX2, SSE2, NEON, simd128 differ only in the width and
/// the names of the same four instructions): `update` and the blocks it
/// keeps in registers, compiled with `$feature`, into the module the macro
/// is called in. A macro rather than a trait over the vector type, so that
/// every intrinsic is called from a function compiled with its feature,
/// where it is always inlined.
///
/// # Safety (the functions it writes)
/// Every slice is as long as the first, a multiple of `$width`.
#[cfg(any(
    target_arch = "x86_64",
    target_arch = "aarch64",
    all(target_arch = "wasm32", target_feature = "simd128")
))]
macro_rules! rows {
    (
        $feature:literal, $width:literal, $vector:ty,
        zero: $zero:expr, load: $load:path, store: $store:path,
        add: $add:path, sub: $sub:path $(,)?
    ) => {
        /// Blocks of `K` vectors stay in registers while every row is added
        /// to them: one load and one add per vector and row. Blocks of 8
        /// vectors, then what is left in blocks of 4, 2, 1.
        #[target_feature(enable = $feature)]
        pub unsafe fn update(out: &mut [i16], base: &[i16], adds: &[&[i16]], subs: &[&[i16]]) {
            let n = out.len();
            let mut c = 0;
            while c + 8 * $width <= n {
                block::<8>(c, out, base, adds, subs);
                c += 8 * $width;
            }
            if c + 4 * $width <= n {
                block::<4>(c, out, base, adds, subs);
                c += 4 * $width;
            }
            if c + 2 * $width <= n {
                block::<2>(c, out, base, adds, subs);
                c += 2 * $width;
            }
            if c < n {
                block::<1>(c, out, base, adds, subs);
            }
        }

        #[inline]
        #[target_feature(enable = $feature)]
        unsafe fn block<const K: usize>(
            c: usize,
            out: &mut [i16],
            base: &[i16],
            adds: &[&[i16]],
            subs: &[&[i16]],
        ) {
            let mut v: [$vector; K] = [$zero; K];
            for (k, v) in v.iter_mut().enumerate() {
                *v = $load(base.as_ptr().add(c + $width * k).cast());
            }
            for row in adds {
                let p = row.as_ptr().add(c);
                for (k, v) in v.iter_mut().enumerate() {
                    *v = $add(*v, $load(p.add($width * k).cast()));
                }
            }
            for row in subs {
                let p = row.as_ptr().add(c);
                for (k, v) in v.iter_mut().enumerate() {
                    *v = $sub(*v, $load(p.add($width * k).cast()));
                }
            }
            for (k, v) in v.iter().enumerate() {
                $store(out.as_mut_ptr().add(c + $width * k).cast(), *v);
            }
        }
    };
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    /// Whether the CPU has AVX2. The standard library detects it once and
    /// caches the answer, so this is a load and a test.
    #[inline(always)]
    pub fn has_avx2() -> bool {
        std::is_x86_feature_detected!("avx2")
    }

    /// The kernels for one vector width: the rows (`rows!`) and the output
    /// layer, whose instructions AVX2 and SSE2 share too.
    macro_rules! kernels {
        (
            $module:ident, $feature:literal, $width:literal, $vector:ty,
            zero: $zero:ident, splat: $splat:ident, load: $load:ident, store: $store:ident,
            add: $add:ident, sub: $sub:ident, min: $min:ident, max: $max:ident,
            madd: $madd:ident, add32: $add32:ident, to128: $to128:path $(,)?
        ) => {
            pub mod $module {
                use super::*;

                rows!(
                    $feature, $width, $vector,
                    zero: $zero(), load: $load, store: $store, add: $add, sub: $sub,
                );

                #[target_feature(enable = $feature)]
                pub unsafe fn output(acc: &[i16], w: &[i16], max: i16) -> i32 {
                    let (zero, top) = ($zero(), $splat(max));
                    let mut sum = $zero();
                    for c in (0..acc.len()).step_by($width) {
                        let a = $load(acc.as_ptr().add(c).cast());
                        let a = $min($max(a, zero), top);
                        let w = $load(w.as_ptr().add(c).cast());
                        // Pairs of products of a clipped (non-negative) sum
                        // and an i16 weight: each pair fits 32 bits.
                        sum = $add32(sum, $madd(a, w));
                    }
                    horizontal($to128(sum))
                }
            }
        };
    }

    kernels!(
        avx2, "avx2", 16, __m256i,
        zero: _mm256_setzero_si256, splat: _mm256_set1_epi16,
        load: _mm256_loadu_si256, store: _mm256_storeu_si256,
        add: _mm256_add_epi16, sub: _mm256_sub_epi16,
        min: _mm256_min_epi16, max: _mm256_max_epi16,
        madd: _mm256_madd_epi16, add32: _mm256_add_epi32, to128: fold_halves,
    );
    kernels!(
        sse2, "sse2", 8, __m128i,
        zero: _mm_setzero_si128, splat: _mm_set1_epi16,
        load: _mm_loadu_si128, store: _mm_storeu_si128,
        add: _mm_add_epi16, sub: _mm_sub_epi16,
        min: _mm_min_epi16, max: _mm_max_epi16,
        madd: _mm_madd_epi16, add32: _mm_add_epi32, to128: std::convert::identity,
    );

    /// The sums of an AVX2 vector's two halves, lane by lane.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn fold_halves(v: __m256i) -> __m128i {
        _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v))
    }

    /// The sum of the four lanes.
    #[inline]
    #[target_feature(enable = "sse2")]
    unsafe fn horizontal(v: __m128i) -> i32 {
        let v = _mm_add_epi32(v, _mm_shuffle_epi32::<0b01_00_11_10>(v));
        let v = _mm_add_epi32(v, _mm_shuffle_epi32::<0b10_11_00_01>(v));
        _mm_cvtsi128_si32(v)
    }
}

/// aarch64: NEON, which every aarch64 CPU has.
///
/// # Safety (every function)
/// Every slice is as long as the first, a multiple of `LANES`.
#[cfg(target_arch = "aarch64")]
mod neon {
    use std::arch::aarch64::*;

    rows!(
        "neon", 8, int16x8_t,
        zero: vdupq_n_s16(0), load: vld1q_s16, store: vst1q_s16, add: vaddq_s16, sub: vsubq_s16,
    );

    pub unsafe fn output(acc: &[i16], w: &[i16], max: i16) -> i32 {
        let (zero, top) = (vdupq_n_s16(0), vdupq_n_s16(max));
        let mut sum = vdupq_n_s32(0);
        for c in (0..acc.len()).step_by(8) {
            let a = vminq_s16(vmaxq_s16(vld1q_s16(acc.as_ptr().add(c)), zero), top);
            let w = vld1q_s16(w.as_ptr().add(c));
            sum = vmlal_s16(sum, vget_low_s16(a), vget_low_s16(w));
            sum = vmlal_high_s16(sum, a, w);
        }
        vaddvq_s32(sum)
    }
}

/// wasm with simd128.
///
/// # Safety (every function)
/// Every slice is as long as the first, a multiple of `LANES`.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod wasm {
    use core::arch::wasm32::*;

    rows!(
        "simd128", 8, v128,
        zero: i16x8_splat(0), load: v128_load, store: v128_store, add: i16x8_add, sub: i16x8_sub,
    );

    pub unsafe fn output(acc: &[i16], w: &[i16], max: i16) -> i32 {
        let (zero, top) = (i16x8_splat(0), i16x8_splat(max));
        let mut sum = i32x4_splat(0);
        for c in (0..acc.len()).step_by(8) {
            let a = i16x8_min(i16x8_max(v128_load(acc.as_ptr().add(c).cast()), zero), top);
            let w = v128_load(w.as_ptr().add(c).cast());
            sum = i32x4_add(sum, i32x4_dot_i16x8(a, w));
        }
        i32x4_extract_lane::<0>(sum)
            .wrapping_add(i32x4_extract_lane::<1>(sum))
            .wrapping_add(i32x4_extract_lane::<2>(sum))
            .wrapping_add(i32x4_extract_lane::<3>(sum))
    }
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
    fn every_path_gives_the_reference_values() {
        let paths = Path::available();
        #[cfg(target_arch = "x86_64")]
        assert!(paths.contains(&Path::Sse2));
        for n in [16, 48, 64, 112, 256, 512] {
            let r = rows(n, n as u64);
            let adds: Vec<&[i16]> = r[1..5].iter().map(|v| &v[..]).collect();
            let subs: Vec<&[i16]> = r[5..].iter().map(|v| &v[..]).collect();
            for &path in &paths {
                for (na, ns) in [(0, 0), (1, 0), (0, 1), (2, 2), (4, 3)] {
                    let (mut a, mut b) = (vec![0; n], vec![0; n]);
                    scalar::update(&mut a, &r[0], &adds[..na], &subs[..ns]);
                    update_on(path, &mut b, &r[0], &adds[..na], &subs[..ns]);
                    assert_eq!(a, b, "{path:?}, {n} lanes, {na} added, {ns} taken away");
                }
                for max in [0, 255, i16::MAX] {
                    for (a, w) in [(&r[0], &r[1]), (&r[2], &r[2]), (&r[3], &r[7])] {
                        assert_eq!(
                            scalar::output(a, w, max),
                            output_on(path, a, w, max),
                            "{path:?}, {n} lanes, clipped at {max}"
                        );
                    }
                }
            }
        }
    }

    /// The largest sums the output layer can meet: every sum at the clip
    /// and every weight at an extreme, so each product pair is at the edge
    /// of 32 bits.
    #[test]
    fn every_path_takes_the_extreme_products() {
        let acc = vec![i16::MAX; 16];
        for w in [i16::MIN, i16::MAX] {
            let w = vec![w; 16];
            for path in Path::available() {
                assert_eq!(
                    output_on(path, &acc, &w, i16::MAX),
                    scalar::output(&acc, &w, i16::MAX),
                    "{path:?}"
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
