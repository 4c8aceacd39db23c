//! Which x86-64 instructions the running CPU has: the run-time choice of
//! the hot paths' fast copies, and the start-up check of a CPU-specific build.
//!
//! Default builds are baseline x86-64 (`.cargo/config.toml` sets no
//! `target-cpu`), so they run on every x86-64 CPU. The few hot paths whose
//! speed hangs on single instructions (move generation and move counting
//! lean on `popcnt`, `tzcnt`, `lzcnt`, `blsr`, `andn`, `shlx`; the
//! evaluation too) run through [`fast`], which calls its closure compiled a
//! second time for x86-64-v3 when the CPU has it, found once and cached.
//! The choice is made per call of a whole function (a move generation, a
//! move count, an evaluation), not per instruction: one load and one branch.
//! The search (stackfish-search) makes it once per iteration for its whole
//! recursion, through [`v3_fn`]: its own code (the table, move ordering, the
//! evaluation's incremental update) is the rest of what a build for
//! x86-64-v3 gains.
//!
//! A build made with `-C target-cpu=...` above baseline has those
//! instructions everywhere, so [`missing_build_features`] lets a binary's
//! `main` refuse to start, with a message, on a CPU that lacks them (rather
//! than die of an illegal instruction somewhere later).

#[cfg(target_arch = "x86_64")]
use std::sync::atomic::{AtomicU8, Ordering::Relaxed};

/// `v3_fn! { unsafe fn ... }` compiles the function for x86-64-v3's
/// scalar bit instructions plus AVX2 and FMA, and only on x86-64
/// (elsewhere the function does not exist). For code that picks a copy of
/// a whole call tree once, above its hot loop (the search picks one per
/// iteration), rather than per call as [`fast`] does. Callers must check
/// [`has_v3`] first.
///
/// Its `@features` arm holds the one list of those features: the
/// attribute needs them as one literal, and [`V3_FEATURES`] (from which
/// [`has_v3`] asks the CPU and the build) reads the same literal.
#[macro_export]
macro_rules! v3_fn {
    (@features $then:tt $($args:tt)*) => {
        $crate::v3_fn! { @$then "popcnt,bmi1,bmi2,lzcnt,avx,avx2,fma,movbe" $($args)* }
    };
    (@string $features:literal) => {
        $features
    };
    (@item $features:literal $(#[$meta:meta])* $vis:vis unsafe fn $($rest:tt)*) => {
        $(#[$meta])*
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = $features)]
        $vis unsafe fn $($rest)*
    };
    ($($item:tt)*) => {
        $crate::v3_fn! { @features item $($item)* }
    };
}

/// The features [`v3_fn`] compiles with, comma-separated: what [`has_v3`]
/// asks for.
pub const V3_FEATURES: &str = v3_fn! { @features string };

/// [`V3_FEATURES`] as a set over `FEATURES`.
#[cfg(target_arch = "x86_64")]
const V3_SET: u32 = set_of(V3_FEATURES);

/// Whether this build was compiled with every feature of [`V3_FEATURES`].
#[cfg(target_arch = "x86_64")]
const V3_BUILT: bool = needs() & V3_SET == V3_SET;

/// The cached answer of [`has_v3`]: 0 until asked, then `KNOWN | V3_BIT?`.
#[cfg(target_arch = "x86_64")]
static FOUND: AtomicU8 = AtomicU8::new(0);
#[cfg(target_arch = "x86_64")]
const KNOWN: u8 = 1;
#[cfg(target_arch = "x86_64")]
const V3_BIT: u8 = 2;

/// What the CPU has, asked once (a race only asks twice and stores the
/// same answer).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn found() -> u8 {
    let f = FOUND.load(Relaxed);
    if f != 0 {
        return f;
    }
    detect()
}

#[cfg(target_arch = "x86_64")]
#[cold]
#[inline(never)]
fn detect() -> u8 {
    let v3 = present() & V3_SET == V3_SET;
    let f = KNOWN | if v3 { V3_BIT } else { 0 };
    FOUND.store(f, Relaxed);
    f
}

/// Whether the CPU has what [`fast`]'s fast copy uses ([`V3_FEATURES`]).
/// Known at compile time in a build for such a CPU; otherwise asked once
/// and cached, so a call costs one load. Always false off x86-64.
#[inline(always)]
pub fn has_v3() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        V3_BUILT || found() & V3_BIT != 0
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Proof that the CPU has [`V3_FEATURES`]: only [`v3`] makes one, so code
/// holding it may run the copy compiled for them without `unsafe` of its
/// own.
#[derive(Clone, Copy, Debug)]
pub struct V3(());

/// A [`V3`] when the CPU has x86-64-v3 ([`has_v3`]).
#[inline(always)]
pub fn v3() -> Option<V3> {
    if has_v3() {
        Some(V3(()))
    } else {
        None
    }
}

impl V3 {
    /// Calls `f` compiled with [`V3_FEATURES`]: the closure, and everything
    /// inlined into it, may use them, so the loops the compiler vectorises
    /// get the wide registers as they did in the x86-64-v3 builds.
    #[inline(always)]
    pub fn run<R>(self, f: impl FnOnce() -> R) -> R {
        #[cfg(target_arch = "x86_64")]
        {
            // Safety: a `V3` exists only where `has_v3` found every feature
            // `run_v3` is compiled with.
            unsafe { run_v3(f) }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            f()
        }
    }
}

v3_fn! {
    /// `f`, compiled for x86-64-v3 ([`V3::run`]).
    ///
    /// # Safety
    /// The CPU must have [`V3_FEATURES`].
    unsafe fn run_v3<R>(f: impl FnOnce() -> R) -> R {
        f()
    }
}

/// `fast!(expr)` evaluates `expr`, compiled a second time for x86-64-v3 when
/// the CPU has it (see [`has_v3`]). `expr` should call a whole hot function
/// (a move generation, an evaluation) whose body is `#[inline(always)]`, so
/// that the body is compiled into each copy: what it calls without inlining
/// runs the baseline code. Elsewhere, and on other CPUs, it is just `expr`.
/// Safe code: the copy runs through a [`V3`].
///
/// A macro rather than a function taking a closure: the closure would be
/// called from both branches, and the compiler may then keep it out of line,
/// compiled once for baseline. Here only the v3 branch has a closure, which
/// is always inlined into `run_v3` (measured: without `#[inline(always)]`
/// the large ones, such as Mixtour's evaluation, stayed out of line).
#[cfg(target_arch = "x86_64")]
#[macro_export]
macro_rules! fast {
    ($e:expr) => {
        match $crate::cpu::v3() {
            Some(v3) => v3.run(
                #[inline(always)]
                || $e,
            ),
            None => $e,
        }
    };
}
#[cfg(not(target_arch = "x86_64"))]
#[macro_export]
macro_rules! fast {
    ($e:expr) => {
        $e
    };
}
pub use crate::fast;

/// An x86-64 feature above baseline that a build can be compiled to use.
#[cfg(target_arch = "x86_64")]
struct Feature {
    name: &'static str,
    /// Whether this build was compiled to use it (`-C target-cpu=...` or
    /// `-C target-feature=...`).
    built: bool,
    /// Where CPUID reports it: a word of `cpuid_words` and the bit in it,
    /// as a mask (a shift by a variable would be BMI2's `shrx` in the very
    /// builds this check is for).
    word: usize,
    mask: u32,
}

/// The CPUID words `Feature::word` names.
#[cfg(target_arch = "x86_64")]
const L1_ECX: usize = 0;
#[cfg(target_arch = "x86_64")]
const L7_EBX: usize = 1;
#[cfg(target_arch = "x86_64")]
const L7_ECX: usize = 2;
#[cfg(target_arch = "x86_64")]
const EXT1_ECX: usize = 3;

#[cfg(target_arch = "x86_64")]
macro_rules! features {
    ($($name:tt in $word:ident bit $bit:literal),* $(,)?) => {
        [$(Feature {
            name: $name,
            built: cfg!(target_feature = $name),
            word: $word,
            mask: 1 << $bit,
        }),*]
    };
}

/// Every feature the compiler may use on its own, levels first: x86-64-v2's
/// six, x86-64-v3's nine, x86-64-v4's five, then the rest a
/// `target-cpu=native` may bring; with their CPUID bits (Intel SDM vol. 2,
/// CPUID).
#[cfg(target_arch = "x86_64")]
static FEATURES: [Feature; 31] = features![
    "cmpxchg16b" in L1_ECX bit 13,
    "popcnt" in L1_ECX bit 23,
    "sse3" in L1_ECX bit 0,
    "ssse3" in L1_ECX bit 9,
    "sse4.1" in L1_ECX bit 19,
    "sse4.2" in L1_ECX bit 20,
    "avx" in L1_ECX bit 28,
    "avx2" in L7_EBX bit 5,
    "bmi1" in L7_EBX bit 3,
    "bmi2" in L7_EBX bit 8,
    "f16c" in L1_ECX bit 29,
    "fma" in L1_ECX bit 12,
    "lzcnt" in EXT1_ECX bit 5,
    "movbe" in L1_ECX bit 22,
    "xsave" in L1_ECX bit 26,
    "avx512f" in L7_EBX bit 16,
    "avx512bw" in L7_EBX bit 30,
    "avx512cd" in L7_EBX bit 28,
    "avx512dq" in L7_EBX bit 17,
    "avx512vl" in L7_EBX bit 31,
    "adx" in L7_EBX bit 19,
    "aes" in L1_ECX bit 25,
    "pclmulqdq" in L1_ECX bit 1,
    "sha" in L7_EBX bit 29,
    "sse4a" in EXT1_ECX bit 6,
    "tbm" in EXT1_ECX bit 21,
    "gfni" in L7_ECX bit 8,
    "vaes" in L7_ECX bit 9,
    "vpclmulqdq" in L7_ECX bit 10,
    "avx512vpopcntdq" in L7_ECX bit 14,
    "avx512vbmi" in L7_ECX bit 1,
];

/// The set over `FEATURES` of what the CPU has, asked of the CPU itself: not
/// through `is_x86_feature_detected!`, which answers true for every feature
/// the build was compiled with, whatever the CPU. AVX and AVX-512 count only
/// when the operating system saves their registers (XCR0), as they fault
/// otherwise.
///
/// Scalars only, no arrays: in a build for x86-64-v3 the compiler zeroes
/// and copies arrays with AVX registers, which is what must not run before
/// the check (measured under `qemu-x86_64 -cpu Nehalem`).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn present() -> u32 {
    use std::arch::x86_64::{__cpuid, __cpuid_count};
    // Leaves above the maximum are not asked.
    let (max, max_ext) = (__cpuid(0).eax, __cpuid(0x8000_0000).eax);
    let mut l1_ecx = if max >= 1 { __cpuid(1).ecx } else { 0 };
    let (mut l7_ebx, mut l7_ecx) = if max >= 7 {
        let l7 = __cpuid_count(7, 0);
        (l7.ebx, l7.ecx)
    } else {
        (0, 0)
    };
    let ext1_ecx = if max_ext >= 0x8000_0001 {
        __cpuid(0x8000_0001).ecx
    } else {
        0
    };
    const OSXSAVE: u32 = 1 << 27;
    let xcr0 = if l1_ecx & OSXSAVE != 0 {
        // Safety: OSXSAVE set means XGETBV exists and the OS enabled it.
        unsafe { std::arch::x86_64::_xgetbv(0) }
    } else {
        0
    };
    // SSE and AVX state (bits 1, 2); then opmask and ZMM state (5, 6, 7).
    if xcr0 & 0b110 != 0b110 {
        l1_ecx &= !(1 << 28 | 1 << 12 | 1 << 29); // avx, fma, f16c
        l7_ebx &= !(1 << 5); // avx2
        l7_ecx &= !(1 << 9 | 1 << 10); // vaes, vpclmulqdq
    }
    if xcr0 & 0b1110_0110 != 0b1110_0110 {
        l7_ebx &= !(1 << 16 | 1 << 17 | 1 << 28 | 1 << 30 | 1 << 31);
        l7_ecx &= !(1 << 1 | 1 << 14);
    }
    let (mut has, mut bit) = (0u32, 1u32);
    for f in &FEATURES {
        let word = match f.word {
            L1_ECX => l1_ecx,
            L7_EBX => l7_ebx,
            L7_ECX => l7_ecx,
            _ => ext1_ecx,
        };
        if word & f.mask != 0 {
            has |= bit;
        }
        // A doubling, not `1 << i`: a variable shift may be BMI2's shlx.
        // `black_box` keeps the loop from being vectorised (AVX).
        bit = std::hint::black_box(bit.wrapping_add(bit));
    }
    has
}

/// The set over `FEATURES` of what this build was compiled for: a constant.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
const fn needs() -> u32 {
    let (mut needs, mut i) = (0u32, 0);
    while i < FEATURES.len() {
        if FEATURES[i].built {
            needs |= 1 << i;
        }
        i += 1;
    }
    needs
}

/// The set over `FEATURES` of the comma-separated names in `list` (a name
/// `FEATURES` lacks adds nothing: a test checks there is none).
#[cfg(target_arch = "x86_64")]
const fn set_of(list: &str) -> u32 {
    let list = list.as_bytes();
    let (mut set, mut start) = (0u32, 0);
    while start < list.len() {
        let mut end = start;
        while end < list.len() && list[end] != b',' {
            end += 1;
        }
        let mut i = 0;
        while i < FEATURES.len() {
            let name = FEATURES[i].name.as_bytes();
            if name.len() == end - start {
                let mut k = 0;
                while k < name.len() && name[k] == list[start + k] {
                    k += 1;
                }
                if k == name.len() {
                    set |= 1 << i;
                }
            }
            i += 1;
        }
        start = end + 1;
    }
    set
}

/// The x86-64 levels as sets over `FEATURES`: each its first so many entries.
#[cfg(target_arch = "x86_64")]
const LEVELS: [(&str, u32); 3] = [
    ("x86-64-v2", (1 << 6) - 1),
    ("x86-64-v3", (1 << 15) - 1),
    ("x86-64-v4", (1 << 20) - 1),
];

/// `main`'s first call: true when this binary was compiled to use
/// instructions the running CPU lacks, after writing to `out` the one line
/// that says so (see [`write_line`]); the caller then stops before anything
/// else runs. Always false in a baseline build and off x86-64.
///
/// In a build for x86-64-v3 any code may use AVX and BMI, this function's
/// too: it is kept to scalar code (no arrays, no formatting, no structs
/// copied), out of line, and tests/cpu/run.sh runs it on an emulated CPU
/// without AVX.
#[inline(never)]
pub fn refuse_unsupported_build(program: &str, out: &mut dyn std::io::Write) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        const NEEDS: u32 = needs();
        if NEEDS == 0 {
            return false; // a baseline build: nothing to ask
        }
        let lacks = NEEDS & !present();
        if lacks == 0 {
            return false;
        }
        let _ = write_line(NEEDS, lacks, program, out);
        true
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (program, out);
        false
    }
}

/// Writes the one line that names what the build needs (`needs`, a set
/// over `FEATURES`), what the CPU lacks (`lacks`) and the build to use,
/// e.g. `stackfish: this build needs a CPU with ... (x86-64-v3); this CPU
/// lacks avx, avx2, ...; use the x86-64 baseline build (built without -C
/// target-cpu)`. Only whole byte strings are written, for the reason of
/// [`refuse_unsupported_build`].
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn write_line(
    needs: u32,
    lacks: u32,
    program: &str,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    out.write_all(program.as_bytes())?;
    out.write_all(b": this build needs a CPU with ")?;
    write_names(needs, out)?;
    for &(name, level) in LEVELS.iter().rev() {
        if needs & level == level {
            out.write_all(b" (")?;
            out.write_all(name.as_bytes())?;
            if needs != level {
                out.write_all(b" and more")?;
            }
            out.write_all(b")")?;
            break;
        }
    }
    out.write_all(b"; this CPU lacks ")?;
    write_names(lacks, out)?;
    out.write_all(b"; use the x86-64 baseline build (built without -C target-cpu)\n")
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn write_names(set: u32, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    let (mut bit, mut first) = (1u32, true);
    for f in &FEATURES {
        if set & bit != 0 {
            if !first {
                out.write_all(b", ")?;
            }
            out.write_all(f.name.as_bytes())?;
            first = false;
        }
        bit = std::hint::black_box(bit.wrapping_add(bit));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_binary_that_runs_here_is_not_refused_here() {
        // These tests run, so this CPU runs this build: whatever the build's
        // target features, none can be missing.
        let mut out = Vec::new();
        assert!(!refuse_unsupported_build("stackfish", &mut out));
        assert!(out.is_empty(), "{}", String::from_utf8_lossy(&out));
    }

    /// What the standard library detects of every feature of `FEATURES`,
    /// in its order.
    #[cfg(target_arch = "x86_64")]
    fn std_detects() -> [(&'static str, bool); 31] {
        macro_rules! detected {
            ($($name:tt),*) => { [$(($name, std::arch::is_x86_feature_detected!($name))),*] };
        }
        detected![
            "cmpxchg16b",
            "popcnt",
            "sse3",
            "ssse3",
            "sse4.1",
            "sse4.2",
            "avx",
            "avx2",
            "bmi1",
            "bmi2",
            "f16c",
            "fma",
            "lzcnt",
            "movbe",
            "xsave",
            "avx512f",
            "avx512bw",
            "avx512cd",
            "avx512dq",
            "avx512vl",
            "adx",
            "aes",
            "pclmulqdq",
            "sha",
            "sse4a",
            "tbm",
            "gfni",
            "vaes",
            "vpclmulqdq",
            "avx512vpopcntdq",
            "avx512vbmi"
        ]
    }

    /// `present`'s reading of CPUID, bit by bit, against the standard
    /// library's detection (which in a build for these features would
    /// answer true regardless, hence the test only in a baseline build).
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_cpuid_bits_are_the_features_the_standard_library_detects() {
        if needs() != 0 {
            return; // `is_x86_feature_detected!` is no witness here
        }
        let has = present();
        for (i, (name, detected)) in std_detects().iter().enumerate() {
            assert_eq!(FEATURES[i].name, *name);
            assert_eq!(has & (1 << i) != 0, *detected, "{name}");
        }
    }

    /// Every name `v3_fn` compiles with is one `has_v3` asks the CPU for,
    /// and all are x86-64-v3's: a CPU of that level runs the fast copies.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_v3_features_are_known_and_within_x86_64_v3() {
        let names: Vec<&str> = V3_FEATURES.split(',').collect();
        for name in &names {
            assert!(FEATURES.iter().any(|f| f.name == *name), "{name}");
        }
        assert_eq!(V3_SET.count_ones() as usize, names.len());
        assert_eq!(V3_SET & !LEVELS[1].1, 0, "{V3_FEATURES}");
        assert_eq!(V3_SET, set(&names));
    }

    /// `has_v3` (our CPUID reading, cached) answers what the standard
    /// library's detection says of the features `v3_fn` compiles with.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn has_v3_is_what_the_standard_library_detects() {
        if needs() != 0 {
            return; // `is_x86_feature_detected!` is no witness here
        }
        let detects = std_detects();
        let expected = V3_FEATURES
            .split(',')
            .all(|name| detects.iter().any(|&(n, d)| n == name && d));
        assert_eq!(has_v3(), expected);
        // Asked again: the cache answers the same.
        assert_eq!(has_v3(), expected);
        assert_eq!(v3().is_some(), expected);
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_fast_copy_computes_what_the_plain_code_does() {
        let words = [0u64, 1, 0x8000_0000_0000_0000, 0xdead_beef_f00d, u64::MAX];
        for w in words {
            let plain = (w.count_ones(), w.trailing_zeros(), w.leading_zeros());
            let fast = crate::fast!((w.count_ones(), w.trailing_zeros(), w.leading_zeros()));
            assert_eq!(fast, plain, "{w:#x}");
        }
    }

    /// The set over `FEATURES` of the named features.
    #[cfg(target_arch = "x86_64")]
    fn set(names: &[&str]) -> u32 {
        names
            .iter()
            .map(|n| {
                let i = FEATURES.iter().position(|f| f.name == *n);
                1 << i.unwrap_or_else(|| panic!("{n} is not in FEATURES"))
            })
            .sum()
    }

    #[cfg(target_arch = "x86_64")]
    fn line(needs: &[&str], lacks: &[&str]) -> String {
        let mut out = Vec::new();
        write_line(set(needs), set(lacks), "stackfish", &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[cfg(target_arch = "x86_64")]
    const V2: [&str; 6] = ["cmpxchg16b", "popcnt", "sse3", "ssse3", "sse4.1", "sse4.2"];
    #[cfg(target_arch = "x86_64")]
    const V3: [&str; 9] = [
        "avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "lzcnt", "movbe", "xsave",
    ];

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_line_names_the_level_what_is_missing_and_the_build_to_use() {
        let needs: Vec<&str> = V2.iter().chain(&V3).copied().collect();
        assert_eq!(
            line(&needs, &["avx", "avx2", "bmi1", "bmi2", "fma"]),
            "stackfish: this build needs a CPU with cmpxchg16b, popcnt, sse3, ssse3, \
             sse4.1, sse4.2, avx, avx2, bmi1, bmi2, f16c, fma, lzcnt, movbe, xsave \
             (x86-64-v3); this CPU lacks avx, avx2, bmi1, bmi2, fma; use the x86-64 \
             baseline build (built without -C target-cpu)\n"
        );
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn a_build_beyond_a_level_or_below_one_says_so() {
        let mut native: Vec<&str> = V2.iter().chain(&V3).copied().collect();
        native.extend(["aes", "sha"]);
        let text = line(&native, &["sha"]);
        assert!(
            text.contains("aes, sha (x86-64-v3 and more); this CPU lacks sha;"),
            "{text}"
        );
        let v2_and_some = line(
            &[
                "popcnt",
                "sse3",
                "cmpxchg16b",
                "ssse3",
                "sse4.1",
                "sse4.2",
                "bmi2",
            ],
            &["bmi2"],
        );
        assert!(
            v2_and_some.contains("sse4.2, bmi2 (x86-64-v2 and more);"),
            "{v2_and_some}"
        );
        let popcnt = line(&["popcnt"], &["popcnt"]);
        assert!(
            popcnt.starts_with(
                "stackfish: this build needs a CPU with popcnt; this CPU lacks popcnt;"
            ),
            "{popcnt}"
        );
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_levels_are_the_first_features() {
        // The masks in LEVELS stand for these names: a reordered FEATURES
        // would silently name the wrong level.
        let v4 = ["avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"];
        let expected = [
            set(&V2),
            set(&V2) | set(&V3),
            set(&V2) | set(&V3) | set(&v4),
        ];
        let masks: Vec<u32> = LEVELS.iter().map(|&(_, m)| m).collect();
        assert_eq!(masks, expected);
    }
}
