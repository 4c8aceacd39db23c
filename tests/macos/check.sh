#!/usr/bin/env bash
# macOS portability (docs/development.md, "macOS"): `cargo check` of the
# crates that are pure Rust (plus libc) for both Apple targets, so that no
# Linux-only call creeps in without a cfg. Nothing here links or runs: that
# needs Apple's linker and SDK, which this Linux machine lacks.
#
# Not checked here, because their build scripts compile C for the target
# and that needs Apple's SDK and compiler: stackfish-tables,
# stackfish-engine-tables, stackfish-arena, stackfish-web and the stackfish
# package itself (zstd-sys: the tables' compression), stackfish-apbot
# (ring: its TLS and signatures). stackfish-wasm is for the browser only.
set -euo pipefail
cd "$(dirname "$0")/../.."
crates=(stackfish-games stackfish-search stackfish-engine stackfish-ugi stackfish-board
    stackfish-record stackfish-client stackfish-sac stackfish-lab)
args=()
for crate in "${crates[@]}"; do args+=(-p "$crate"); done
for target in aarch64-apple-darwin x86_64-apple-darwin; do
    rustup target list --installed | grep -qx "$target" ||
        { echo "tests/macos: rustup target $target missing (rustup target add $target)" >&2; exit 1; }
    # Warnings are errors here as in clippy: a cfg'd-out import is a finding.
    RUSTFLAGS="-D warnings" cargo check -q --target "$target" "${args[@]}"
    echo "tests/macos: cargo check --target $target: ${#crates[@]} crates"
done
