//! Default builds stay baseline x86-64 (issue 33): no configuration a plain
//! `cargo build`, `pip install ./python`, the `.deb` or a release reads may
//! raise the target CPU or switch on target features, or the binaries die of
//! an illegal instruction on older CPUs. The speed comes from run-time
//! dispatch instead (crates/nnue/src/cpu.rs). A CPU-specific build is made
//! on purpose with `RUSTFLAGS` (docs/development.md), which nothing here sets.

use std::path::{Path, PathBuf};

/// `target-cpu` values a default build may name: the baselines.
const BASELINE_CPUS: [&str; 2] = ["x86-64", "generic"];

/// Features a default build may switch on: the browser build's WebAssembly
/// SIMD (tools/build-site.sh), which is no x86 instruction, and NEON, which
/// every aarch64 CPU has.
const BASELINE_FEATURES: [&str; 2] = ["simd128", "neon"];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every file that configures a default build: cargo's configuration, the
/// manifests (profiles, build settings), the Python package's build and the
/// scripts that build the shipped artifacts.
fn build_configuration() -> Vec<PathBuf> {
    let root = root();
    let mut files = vec![
        root.join(".cargo/config.toml"),
        root.join(".cargo/config"),
        root.join("Cargo.toml"),
        root.join("python/Cargo.toml"),
        root.join("python/pyproject.toml"),
        root.join(".ci/run"),
    ];
    for dir in ["crates", "tools"] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            files.push(path.join("Cargo.toml"));
            files.push(path.join(".cargo/config.toml"));
            if path.extension().is_some_and(|e| e == "sh") {
                files.push(path);
            }
        }
    }
    files.into_iter().filter(|f| f.is_file()).collect()
}

/// What in `text` raises the CPU a build needs, as (line number, the line).
fn above_baseline(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (i, line) in text.lines().enumerate() {
        // Comments may talk about target CPUs.
        let code = line.split('#').next().unwrap_or("");
        let raises_cpu = cpu_values(code).any(|cpu| !BASELINE_CPUS.contains(&cpu));
        // `target-feature=+avx2,+bmi2`; switching a feature off (`-avx2`)
        // is harmless.
        let adds_feature = feature_values(code)
            .any(|f| f.starts_with('+') && !BASELINE_FEATURES.contains(&&f[1..]));
        if raises_cpu || adds_feature {
            found.push((i + 1, line.trim().to_string()));
        }
    }
    found
}

/// The value after each `key` in `code`, as flags (`-C target-cpu=V`,
/// `-Ctarget-cpu=V`, `"target-cpu=V"`) or TOML (`target-cpu = "V"`) give it.
fn values<'a>(code: &'a str, key: &'static str) -> impl Iterator<Item = &'a str> {
    code.match_indices(key).map(move |(at, _)| {
        let rest = code[at + key.len()..].trim_start_matches([' ', '=', '"']);
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || "-_.+,".contains(c)))
            .unwrap_or(rest.len());
        &rest[..end]
    })
}

fn cpu_values(code: &str) -> impl Iterator<Item = &str> {
    values(code, "target-cpu")
}

/// Each `+f` / `-f` of every `target-feature` list in `code`.
fn feature_values(code: &str) -> impl Iterator<Item = &str> {
    values(code, "target-feature").flat_map(|list| list.split(','))
}

fn relative(path: &Path) -> String {
    path.strip_prefix(root())
        .unwrap_or(path)
        .display()
        .to_string()
}

#[test]
fn no_default_build_asks_for_more_than_baseline_x86_64() {
    let files = build_configuration();
    assert!(
        files.iter().any(|f| f.ends_with("Cargo.toml")),
        "the manifests were not found under {}",
        root().display()
    );
    let mut offences = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", file.display()));
        for (line, what) in above_baseline(&text) {
            offences.push(format!("{}:{line}: {what}", relative(file)));
        }
    }
    assert!(
        offences.is_empty(),
        "a default build would need more than a baseline x86-64 CPU (use run-time dispatch, \
         crates/nnue/src/cpu.rs):\n{}",
        offences.join("\n")
    );
}

#[test]
fn the_scan_finds_what_would_raise_the_cpu() {
    // The configuration this repository had before issue 33, and its kin.
    for bad in [
        "rustflags = [\"-C\", \"target-cpu=x86-64-v3\"]",
        "rustflags = [\"-Ctarget-cpu=native\"]",
        "RUSTFLAGS=\"-C target-cpu=haswell\" cargo build --release",
        "rustflags = [\"-C\", \"target-feature=+avx2,+bmi2\"]",
        "target-cpu = \"x86-64-v2\"",
    ] {
        assert_eq!(above_baseline(bad).len(), 1, "not caught: {bad}");
    }
    for fine in [
        "# target-cpu=x86-64-v3 would need AVX2",
        "rustflags = [\"-C\", \"target-cpu=x86-64\"]",
        "rustflags = [\"-C\", \"target-feature=-avx2\"]",
        "CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS=\"-C target-feature=+simd128\"",
        "[target.aarch64-unknown-linux-gnu]",
        "linker = \"aarch64-linux-gnu-gcc\"",
    ] {
        assert_eq!(above_baseline(fine), vec![], "wrongly caught: {fine}");
    }
}
