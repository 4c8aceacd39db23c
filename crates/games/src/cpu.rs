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
//!
//! A build made with `-C target-cpu=...` above baseline has those
//! instructions everywhere, so [`missing_build_features`] lets a binary's
//! `main` refuse to start, with a message, on a CPU that lacks them (rather
//! than die of an illegal instruction somewhere later).

#[cfg(target_arch = "x86_64")]
use std::sync::atomic::{AtomicU8, Ordering::Relaxed};

/// The cached answer of [`has_v3`] and [`has_avx2`]: 0 until asked, then
/// `KNOWN | V3? | AVX2?`.
#[cfg(target_arch = "x86_64")]
static FOUND: AtomicU8 = AtomicU8::new(0);
#[cfg(target_arch = "x86_64")]
const KNOWN: u8 = 1;
#[cfg(target_arch = "x86_64")]
const V3: u8 = 2;
#[cfg(target_arch = "x86_64")]
const AVX2: u8 = 4;

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
    use std::arch::is_x86_feature_detected as has;
    let avx2 = has!("avx2");
    let v3 = avx2
        && has!("avx")
        && has!("fma")
        && has!("popcnt")
        && has!("bmi1")
        && has!("bmi2")
        && has!("lzcnt")
        && has!("movbe");
    let f = KNOWN | if v3 { V3 } else { 0 } | if avx2 { AVX2 } else { 0 };
    FOUND.store(f, Relaxed);
    f
}

/// Whether the CPU has what [`fast`]'s fast copy uses (x86-64-v3's bit
/// instructions, AVX2, FMA). Known at compile time in a build for such a
/// CPU; otherwise asked once and cached, so a call costs one load.
#[inline(always)]
pub fn has_v3() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        cfg!(all(
            target_feature = "popcnt",
            target_feature = "bmi1",
            target_feature = "bmi2",
            target_feature = "lzcnt",
            target_feature = "avx",
            target_feature = "avx2",
            target_feature = "fma",
            target_feature = "movbe"
        )) || found() & V3 != 0
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Whether the CPU has AVX2: for code with SIMD of its own (the network's
/// sums) that dispatches itself. Known at compile time in a build with AVX2;
/// otherwise asked once and cached, so a call costs one load. Always false
/// off x86-64.
#[inline(always)]
pub fn has_avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        cfg!(target_feature = "avx2") || found() & AVX2 != 0
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// `fast!(expr)` evaluates `expr`, compiled a second time for x86-64-v3 when
/// the CPU has it (see [`has_v3`]). `expr` should call a whole hot function
/// (a move generation, an evaluation) whose body is `#[inline(always)]`, so
/// that the body is compiled into each copy: what it calls without inlining
/// runs the baseline code. Elsewhere, and on other CPUs, it is just `expr`.
///
/// A macro rather than a function taking a closure: the closure would be
/// called from both branches, and the compiler may then keep it out of line,
/// compiled once for baseline. Here only the v3 branch has a closure, which
/// is always inlined into `run_v3` (measured: without `#[inline(always)]`
/// the large ones, such as Mixtour's evaluation, stayed out of line).
#[cfg(target_arch = "x86_64")]
macro_rules! fast {
    ($e:expr) => {
        if $crate::cpu::has_v3() {
            // Safety: `has_v3` found every feature `run_v3` is compiled with.
            unsafe {
                $crate::cpu::run_v3(
                    #[inline(always)]
                    || $e,
                )
            }
        } else {
            $e
        }
    };
}
#[cfg(not(target_arch = "x86_64"))]
macro_rules! fast {
    ($e:expr) => {
        $e
    };
}
pub(crate) use fast;

/// Calls `f` compiled with x86-64-v3's features: the closure, and everything
/// inlined into it, may use them. They are x86-64-v3's scalar bit
/// instructions plus AVX2 and FMA, so the loops the compiler vectorises get
/// the wide registers as they did in the x86-64-v3 builds; `detect` asks for
/// the same list.
///
/// # Safety
/// The CPU must have those features: call it only when [`has_v3`] is true.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt,bmi1,bmi2,lzcnt,avx,avx2,fma,movbe")]
pub(crate) unsafe fn run_v3<R>(f: impl FnOnce() -> R) -> R {
    f()
}

/// An x86-64 feature above baseline that a build can be compiled to use.
#[cfg(target_arch = "x86_64")]
struct Feature {
    name: &'static str,
    /// Whether this build was compiled to use it (`-C target-cpu=...` or
    /// `-C target-feature=...`).
    built: bool,
    /// Whether the running CPU has it.
    present: fn() -> bool,
}

#[cfg(target_arch = "x86_64")]
macro_rules! features {
    ($($name:tt),* $(,)?) => {
        [$(Feature {
            name: $name,
            built: cfg!(target_feature = $name),
            present: || std::arch::is_x86_feature_detected!($name),
        }),*]
    };
}

/// Every feature the compiler may use on its own, levels first: x86-64-v2's
/// six, x86-64-v3's nine, x86-64-v4's five, then the rest a
/// `target-cpu=native` may bring (`is_x86_feature_detected!` knows each).
#[cfg(target_arch = "x86_64")]
static FEATURES: [Feature; 31] = features![
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
    "avx512vbmi",
];

/// The x86-64 levels as sets over `FEATURES`: each its first so many entries.
#[cfg(target_arch = "x86_64")]
const LEVELS: [(&str, u32); 3] = [
    ("x86-64-v2", (1 << 6) - 1),
    ("x86-64-v3", (1 << 15) - 1),
    ("x86-64-v4", (1 << 20) - 1),
];

/// A build compiled for features the running CPU lacks, as bit sets over
/// `FEATURES`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnsupportedBuild {
    needs: u32,
    lacks: u32,
}

/// `Some` when this binary was compiled to use instructions the running CPU
/// lacks: the caller says so ([`UnsupportedBuild::write_line`]) and stops
/// before anything else runs. `main` calls it first, and it stays trivial
/// (no allocation, no formatting): a build for x86-64-v3 may use AVX in any
/// code it compiled, this function's included. Always `None` in a baseline
/// build and off x86-64.
#[inline(never)]
pub fn unsupported_build() -> Option<UnsupportedBuild> {
    #[cfg(target_arch = "x86_64")]
    {
        let (mut needs, mut lacks, mut bit) = (0u32, 0u32, 1u32);
        for f in &FEATURES {
            if f.built {
                needs |= bit;
                if !(f.present)() {
                    lacks |= bit;
                }
            }
            // A doubling, not `1 << i`: a variable shift may be BMI2's shlx.
            bit = bit.wrapping_add(bit);
        }
        (lacks != 0).then_some(UnsupportedBuild { needs, lacks })
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        None
    }
}

impl UnsupportedBuild {
    /// Writes the one line that names what the build needs, what the CPU
    /// lacks and the build to use, e.g. `stackfish: this build needs a CPU
    /// with ... (x86-64-v3); this CPU lacks avx, avx2, ...; use the x86-64
    /// baseline build (built without -C target-cpu)`. Only whole byte
    /// strings are written, no formatting, for the reason of
    /// [`unsupported_build`].
    pub fn write_line(&self, program: &str, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        out.write_all(program.as_bytes())?;
        out.write_all(b": this build needs a CPU with ")?;
        self.write_names(self.needs, out)?;
        #[cfg(target_arch = "x86_64")]
        for &(name, level) in LEVELS.iter().rev() {
            if self.needs & level == level {
                out.write_all(b" (")?;
                out.write_all(name.as_bytes())?;
                if self.needs != level {
                    out.write_all(b" and more")?;
                }
                out.write_all(b")")?;
                break;
            }
        }
        out.write_all(b"; this CPU lacks ")?;
        self.write_names(self.lacks, out)?;
        out.write_all(b"; use the x86-64 baseline build (built without -C target-cpu)\n")
    }

    fn write_names(&self, set: u32, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        #[cfg(target_arch = "x86_64")]
        {
            let (mut bit, mut first) = (1u32, true);
            for f in &FEATURES {
                if set & bit != 0 {
                    if !first {
                        out.write_all(b", ")?;
                    }
                    out.write_all(f.name.as_bytes())?;
                    first = false;
                }
                bit = bit.wrapping_add(bit);
            }
        }
        let _ = (set, &out);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_binary_that_runs_here_is_not_refused_here() {
        // These tests run, so this CPU runs this build: whatever the build's
        // target features, none can be missing.
        assert_eq!(unsupported_build(), None);
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_cached_answers_are_the_cpus() {
        use std::arch::is_x86_feature_detected as has;
        assert_eq!(has_avx2(), has!("avx2"));
        let v3 = has!("avx2")
            && has!("avx")
            && has!("fma")
            && has!("bmi1")
            && has!("bmi2")
            && has!("lzcnt")
            && has!("popcnt")
            && has!("movbe");
        assert_eq!(has_v3(), v3);
        // Asked again: the cache answers the same.
        assert_eq!(has_v3(), v3);
        assert_eq!(has_avx2(), has!("avx2"));
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_fast_copy_computes_what_the_plain_code_does() {
        let words = [0u64, 1, 0x8000_0000_0000_0000, 0xdead_beef_f00d, u64::MAX];
        for w in words {
            let plain = (w.count_ones(), w.trailing_zeros(), w.leading_zeros());
            let fast = fast!((w.count_ones(), w.trailing_zeros(), w.leading_zeros()));
            assert_eq!(fast, plain, "{w:#x}");
        }
    }

    /// The set of the named features, as `UnsupportedBuild` keeps them.
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
        let build = UnsupportedBuild {
            needs: set(needs),
            lacks: set(lacks),
        };
        let mut out = Vec::new();
        build.write_line("stackfish", &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    const V2: [&str; 6] = ["cmpxchg16b", "popcnt", "sse3", "ssse3", "sse4.1", "sse4.2"];
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
