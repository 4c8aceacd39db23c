//! Evaluation terms switched off at build time, to measure what each is
//! worth: an engine built with
//!
//! ```text
//! STACKFISH_ABLATE=mobility,tempo cargo build --release --target-dir target/ablate
//! ```
//!
//! weighs the named terms zero and says so in its `id name`; an SPRT of the
//! normal engine against it in the arena shows whether the terms help
//! (`tools/ablate.sh` does both). Names are the evaluation modules' `NAMES`
//! (a name two games share, like `tempo`, is switched off in both), listed
//! where the games are registered (`variants::ABLATION_NAMES`), which
//! stops the build on an unknown name, so a typo cannot test an unchanged
//! engine. Without the variable every weight is the written one: the choice
//! is made by the compiler, not at run time. This module is the mechanism
//! alone: it knows no evaluation.

/// The comma-separated term names from `STACKFISH_ABLATE` at build time.
pub const ABLATED: Option<&str> = option_env!("STACKFISH_ABLATE");

/// The comma-separated entry of `list` that starts at byte `start`, and
/// the byte where the next one starts (past the end after the last).
const fn entry_at(list: &[u8], start: usize) -> (&[u8], usize) {
    let mut end = start;
    while end < list.len() && list[end] != b',' {
        end += 1;
    }
    let (head, _) = list.split_at(end);
    let (_, entry) = head.split_at(start);
    (entry, end + 1)
}

/// Whether `name` is one of the comma-separated entries of `list`.
pub const fn listed(list: &str, name: &str) -> bool {
    let list = list.as_bytes();
    let mut start = 0;
    while start <= list.len() {
        let (entry, next) = entry_at(list, start);
        if eq(entry, name.as_bytes()) {
            return true;
        }
        start = next;
    }
    false
}

/// Whether the build switches off the term `name`.
pub const fn is_ablated(name: &str) -> bool {
    match ABLATED {
        Some(list) => listed(list, name),
        None => false,
    }
}

/// The weight of the term `name`: `w`, or zero in an ablation build.
pub const fn weight(name: &str, w: i32) -> i32 {
    if is_ablated(name) {
        0
    } else {
        w
    }
}

/// A term with one weight per case (per height, ...): all zero when ablated.
pub const fn weights<const N: usize>(name: &str, w: [i32; N]) -> [i32; N] {
    if is_ablated(name) {
        [0; N]
    } else {
        w
    }
}

/// Weights given in the order of `names`, each zero when ablated.
pub const fn named<const N: usize>(names: &[&str; N], w: [i32; N]) -> [i32; N] {
    let mut out = w;
    let mut i = 0;
    while i < N {
        out[i] = weight(names[i], w[i]);
        i += 1;
    }
    out
}

/// Whether every entry of `list` is one of the `known` names.
pub const fn all_known(list: &str, known: &[&[&str]]) -> bool {
    let bytes = list.as_bytes();
    let mut start = 0;
    while start <= bytes.len() {
        let (entry, next) = entry_at(bytes, start);
        let mut found = false;
        let mut g = 0;
        while g < known.len() && !found {
            let mut n = 0;
            while n < known[g].len() && !found {
                found = eq(entry, known[g][n].as_bytes());
                n += 1;
            }
            g += 1;
        }
        if !found {
            return false;
        }
        start = next;
    }
    true
}

const fn eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_listed_only_as_a_whole_entry() {
        assert!(listed("mobility", "mobility"));
        assert!(listed("tempo,mobility", "mobility"));
        assert!(listed("mobility,tempo", "mobility"));
        assert!(!listed("mobility_x", "mobility"));
        assert!(!listed("xmobility", "mobility"));
        assert!(!listed("", "mobility"));
        assert!(!listed("tempo", "mobility"));
    }

    #[test]
    fn unknown_names_are_caught() {
        let known: [&[&str]; 2] = [&["tempo", "reserve"], &["mobility"]];
        assert!(all_known("tempo", &known));
        assert!(all_known("mobility,reserve", &known));
        assert!(!all_known("mobilty", &known));
        assert!(!all_known("tempo,", &known));
        assert!(!all_known("", &known));
    }
}
