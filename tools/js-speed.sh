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
# With --cpu, the browser build only, by processor time, which a loaded
# machine disturbs far less than the clock: the time of the thread that ran
# `bench` (tools/js-speed/wasm-bench.mjs --cpu), for the first bench in a
# fresh instance and the third one in the same instance (compiled code
# warm), against the time of the whole native `stackfish bench` process;
# the ratios are the medians of each round's.
#
#   tools/js-speed.sh [--cpu] [ROUNDS]
#
# Needs what tools/build-site.sh, tools/build-sac-cpu.sh and
# tests/sac-cpu/run.sh need, Debian's chromium and tests/web-e2e's
# playwright-core (npm ci there); --cpu needs Linux's /proc.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
cpu=false
if [ "${1:-}" = --cpu ]; then
    cpu=true
    shift
fi
rounds=${1:-3}

cargo build --profile dist --quiet --bin stackfish
mapfile -t built < <(bash tools/build-site.sh)
pkg=${built[0]}
[ -d tests/web-e2e/node_modules/playwright-core ] || (cd tests/web-e2e && npm ci --no-audit --no-fund --silent)
results=$(mktemp)
trap 'rm -f "$results"' EXIT

if $cpu; then
    # Each bench's lines end with `<nodes> nodes <nps> nps`, then `cpu <ms> ms`.
    run_cpu() { # run_cpu "NAME..." COMMAND...: appends "NAME NODES NPS MS" for each bench, named in turn
        local -a names
        local line nodes='' nps='' i=0
        read -ra names <<<"$1"
        while IFS= read -r line; do
            if [[ $line =~ ^([0-9]+)\ nodes\ ([0-9]+)\ nps$ ]]; then
                nodes=${BASH_REMATCH[1]} nps=${BASH_REMATCH[2]}
            elif [[ $line =~ ^cpu\ ([0-9.]+)\ ms$ && -n $nodes && $i -lt ${#names[@]} ]]; then
                echo "${names[i]} $nodes $nps ${BASH_REMATCH[1]}" >>"$results"
                echo "js-speed: round $r: ${names[i]} $nodes nodes $nps nps, cpu ${BASH_REMATCH[1]} ms" >&2
                i=$((i + 1)) nodes=''
            fi
        done < <("${@:2}" 2>/dev/null)
        [ "$i" -eq "${#names[@]}" ] || { echo "js-speed: ${names[*]}: $i of ${#names[@]} benches measured" >&2; exit 1; }
    }
    # Runs a command, then prints the processor time of its whole process
    # (user and system, from bash's `time`: the child's own, in ms) as
    # `cpu <ms> ms`.
    # shellcheck disable=SC2317 # called through run_cpu
    process_cpu() {
        local TIMEFORMAT='%3U %3S' user sys
        { time "$@" 2>/dev/null; } 2>"$times"
        read -r user sys <"$times"
        echo "cpu $((10#${user/./} + 10#${sys/./})) ms"
    }
    times=$(mktemp)
    trap 'rm -f "$results" "$times"' EXIT
    for r in $(seq "$rounds"); do
        run_cpu native process_cpu target/dist/stackfish bench
        run_cpu "node node-warm" node tools/js-speed/wasm-bench.mjs --cpu "$pkg/stackfish.wasm"
        run_cpu "chromium chromium-warm" node tools/js-speed/wasm-bench.mjs --chromium --cpu "$pkg/stackfish.wasm"
    done
    python3 - "$results" <<'EOF'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    name, nodes, nps, ms = line.split()
    runs.setdefault(name, []).append((int(nodes), int(nps), float(ms)))
rows = [
    ("native stackfish bench (whole process)", "native"),
    ("stackfish.wasm in Node, first bench", "node"),
    ("stackfish.wasm in Node, warm", "node-warm"),
    ("stackfish.wasm in Chromium, first bench", "chromium"),
    ("stackfish.wasm in Chromium, warm", "chromium-warm"),
]
native = runs["native"]
print(f"{'host':40} {'nodes':>9} {'cpu ms':>7} {'of native':>10} {'clock nps':>10} {'of native':>10}")
bad = False
for label, name in rows:
    counts = {n for n, _, _ in runs[name]}
    bad |= counts != {native[0][0]}
    # Each round's ratio to the native run beside it, then their median.
    cpu = statistics.median(b[2] / a[2] for a, b in zip(runs[name], native))
    clock = statistics.median(a[1] / b[1] for a, b in zip(runs[name], native))
    nodes = counts.pop() if len(counts) == 1 else "varies"
    ms = statistics.median(ms for _, _, ms in runs[name])
    nps = statistics.median(nps for _, nps, _ in runs[name])
    print(f"{label:40} {nodes:>9} {ms:>7,.0f} {cpu:>9.1%} {nps:>10,.0f} {clock:>9.1%}")
print(f"({len(native)} rounds, interleaved; cpu ms and clock nps medians, ratios medians of each round's)")
if bad:
    print("js-speed: a host's node count differs from native", file=sys.stderr)
    sys.exit(1)
EOF
    exit
fi

cargo build --profile dist --quiet -p stackfish-sac-cpu --example bench
mapfile -t built < <(bash tools/build-sac-cpu.sh)
script=${built[0]}
host=target/sac-cpu-host/host
if [ ! -x "$host" ] || [ tests/sac-cpu/host.cpp -nt "$host" ]; then
    mkdir -p target/sac-cpu-host
    /usr/lib/qt6/libexec/moc tests/sac-cpu/host.cpp -o target/sac-cpu-host/host.moc
    # shellcheck disable=SC2046
    g++ -O2 -std=c++17 -fPIC -Itarget/sac-cpu-host tests/sac-cpu/host.cpp -o "$host" $(pkg-config --cflags --libs Qt6Qml)
fi

# Each runner prints its bench lines; the last is `<nodes> nodes <nps> nps`.
run() { # run NAME COMMAND...: appends "NAME NODES NPS" to $results
    local last
    last=$("${@:2}" 2>/dev/null | tail -n 1)
    [[ $last =~ ^([0-9]+)\ nodes\ ([0-9]+)\ nps$ ]] || { echo "js-speed: $1 printed '$last'" >&2; exit 1; }
    echo "$1 ${BASH_REMATCH[1]} ${BASH_REMATCH[2]}" >>"$results"
    echo "js-speed: round $r: $1 ${BASH_REMATCH[1]} nodes ${BASH_REMATCH[2]} nps" >&2
}
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
