#!/usr/bin/env bash
# Runs every fuzz target of fuzz/ for a fixed budget, starting from its
# seeds (fuzz/seeds/<target>/), and prints the executions of each. Fails
# if a target finds anything (a panic, an abort, an input slower than
# FUZZ_TIMEOUT seconds, memory past FUZZ_RSS_MB) or does not build; the
# input that failed is kept under fuzz/artifacts/<target>/.
#
# Installs what it needs: the pinned nightly (rustup) and cargo-fuzz
# (crates.io). FUZZ_SECONDS (per target, default 15), FUZZ_SEED (default
# 1, so that CI repeats its runs) and FUZZ_TARGETS (default all) change
# the run; docs/development.md, "Fuzzing", has the rest.
set -euo pipefail
cd "$(dirname "$0")/../../fuzz"

# libFuzzer's instrumentation and AddressSanitizer need -Z flags: a dated
# nightly, so that every run builds with the same compiler.
NIGHTLY=nightly-2026-05-20
CARGO_FUZZ_VERSION=0.13.2
seconds=${FUZZ_SECONDS:-15}
seed=${FUZZ_SEED:-1}
timeout=${FUZZ_TIMEOUT:-10}
rss_mb=${FUZZ_RSS_MB:-2048}

rustup toolchain list | grep -q "^$NIGHTLY" ||
    rustup toolchain install "$NIGHTLY" --profile minimal
cargo fuzz --version 2>/dev/null | grep -q "$CARGO_FUZZ_VERSION" ||
    cargo install cargo-fuzz --locked --version "$CARGO_FUZZ_VERSION"

cargo fmt --check  # the root's `cargo fmt --all` does not reach this workspace

# -O: optimised as shipped; -a: with debug assertions and overflow checks,
# as the tests run.
build_start=$SECONDS
cargo "+$NIGHTLY" fuzz build -O -a
echo "fuzz: targets built in $((SECONDS - build_start)) s"

targets=${FUZZ_TARGETS:-$(cargo "+$NIGHTLY" fuzz list)}
bin=target/x86_64-unknown-linux-gnu/release
scratch=target/fuzz-run
rm -rf "$scratch"
failed=()
for target in $targets; do
    [ -d "seeds/$target" ] || { echo "fuzz: no seeds/$target" >&2; exit 1; }
    mkdir -p "$scratch/$target" "artifacts/$target"
    log=$scratch/$target.log
    # New inputs go to the scratch folder (first), never to the seeds.
    if "$bin/$target" "$scratch/$target" "seeds/$target" \
        -max_total_time="$seconds" -seed="$seed" -timeout="$timeout" \
        -rss_limit_mb="$rss_mb" -print_final_stats=1 \
        -artifact_prefix="artifacts/$target/" >"$log" 2>&1; then
        status=ok
    else
        status=FAILED
        failed+=("$target")
    fi
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    echo "fuzz: $target: ${runs:-?} executions in ${seconds} s: $status"
    if [ "$status" = FAILED ]; then
        tail -40 "$log" >&2
    fi
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz: failed: ${failed[*]} (inputs in fuzz/artifacts/; reproduce with cargo +$NIGHTLY fuzz run -O -a <target> <input>)" >&2
    exit 1
fi
