#!/usr/bin/env bash
# Nodes per second of stackfish in every JS host, as ratios to native, in
# one run (docs/development.md, "Speed in JS hosts"):
# - the browser build (target/npm/stackfish/stackfish.wasm, +simd128, from
#   tools/build-site.sh) in Node and in headless Chromium, running `bench`,
#   against the native `stackfish bench`;
# - the StackAndConquer script (target/stackandconquer/StackfishCPU.js,
#   tools/build-sac-cpu.sh) in QJSEngine (tests/sac-cpu/host.cpp) and in
#   Node, running the Mixtour part of `bench`, against the same part on the
#   script's engine natively (crates/sac-cpu/examples/bench.rs).
# Every build in the dist profile (what ships). Each measurement runs ROUNDS
# times (default 3), interleaved, and the table gives the medians; the node
# counts must equal the native ones.
#
#   tools/js-speed.sh [ROUNDS]
#
# Needs what tools/build-site.sh, tools/build-sac-cpu.sh and
# tests/sac-cpu/run.sh need, Debian's chromium and tests/web-e2e's
# playwright-core (npm ci there).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
rounds=${1:-3}

cargo build --profile dist --quiet --bin stackfish
cargo build --profile dist --quiet -p stackfish-sac-cpu --example bench
mapfile -t built < <(bash tools/build-site.sh)
pkg=${built[0]}
mapfile -t built < <(bash tools/build-sac-cpu.sh)
script=${built[0]}
host=target/sac-cpu-host/host
if [ ! -x "$host" ] || [ tests/sac-cpu/host.cpp -nt "$host" ]; then
    mkdir -p target/sac-cpu-host
    /usr/lib/qt6/libexec/moc tests/sac-cpu/host.cpp -o target/sac-cpu-host/host.moc
    # shellcheck disable=SC2046
    g++ -O2 -std=c++17 -fPIC -Itarget/sac-cpu-host tests/sac-cpu/host.cpp -o "$host" $(pkg-config --cflags --libs Qt6Qml)
fi
[ -d tests/web-e2e/node_modules/playwright-core ] || (cd tests/web-e2e && npm ci --no-audit --no-fund --silent)

# Each runner prints its bench lines; the last is `<nodes> nodes <nps> nps`.
run() { # run NAME COMMAND...: appends "NAME NODES NPS" to $results
    local last
    last=$("${@:2}" 2>/dev/null | tail -n 1)
    [[ $last =~ ^([0-9]+)\ nodes\ ([0-9]+)\ nps$ ]] || { echo "js-speed: $1 printed '$last'" >&2; exit 1; }
    echo "$1 ${BASH_REMATCH[1]} ${BASH_REMATCH[2]}" >>"$results"
    echo "js-speed: round $r: $1 ${BASH_REMATCH[1]} nodes ${BASH_REMATCH[2]} nps" >&2
}
results=$(mktemp)
trap 'rm -f "$results"' EXIT
for r in $(seq "$rounds"); do
    run native target/dist/stackfish bench
    run node-wasm node tools/js-speed/wasm-bench.mjs "$pkg/stackfish.wasm"
    run chromium-wasm node tools/js-speed/wasm-bench.mjs --chromium "$pkg/stackfish.wasm"
    run native-mixtour target/dist/examples/bench
    run qjsengine-script "$host" "$script" bench
    run node-script node tools/sac-cpu/bench.js "$script"
done

python3 - "$results" <<'EOF'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    name, nodes, nps = line.split()
    runs.setdefault(name, []).append((int(nodes), int(nps)))
def median(name):
    return statistics.median(nps for _, nps in runs[name])
def nodes(name):
    counts = {n for n, _ in runs[name]}
    return counts.pop() if len(counts) == 1 else None
rows = [
    ("native stackfish bench", "native", "native"),
    ("stackfish.wasm in Node", "node-wasm", "native"),
    ("stackfish.wasm in Chromium", "chromium-wasm", "native"),
    ("script engine natively (Mixtour part)", "native-mixtour", "native-mixtour"),
    ("StackfishCPU.js in QJSEngine (Mixtour part)", "qjsengine-script", "native-mixtour"),
    ("StackfishCPU.js in Node (Mixtour part)", "node-script", "native-mixtour"),
]
print(f"{'host':46} {'nodes':>9} {'nps (median)':>13} {'of native':>10}")
bad = False
for label, name, base in rows:
    n = nodes(name)
    if n is None or n != nodes(base):
        bad = True
    ratio = median(name) / median(base)
    print(f"{label:46} {n if n is not None else 'varies':>9} {median(name):>13,.0f} {ratio:>9.1%}")
print(f"({len(runs['native'])} rounds, interleaved)")
if bad:
    print("js-speed: a host's node count differs from native", file=sys.stderr)
    sys.exit(1)
EOF
