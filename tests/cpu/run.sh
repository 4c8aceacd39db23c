#!/usr/bin/env bash
# No illegal instruction on any x86-64 CPU (issue 33). The release
# `stackfish` and `arena` of the default (baseline) build run under
# qemu-x86_64 on two CPU models without x86-64-v3: qemu64 (baseline
# x86-64: no popcnt, no SSE4, no AVX) and Nehalem (x86-64-v2: popcnt and
# SSE4.2, no AVX, no BMI). On each: perft of every game's start equals the
# native count, `bench` prints the native node count, a UGI session (handshake,
# position, go depth 5) prints what it prints natively and `go nodes` ends
# in a bestmove; under qemu64 the arena
# plays a short match between two emulated engines. Last, the start-up
# check: crates/games/examples/cpu_check.rs (the binaries' check, then a
# perft) built for x86-64-v3 refuses to run under Nehalem with its one line
# and exit 2, and runs natively when this CPU has AVX2.
#
# Needs an x86-64 Linux host; installs Debian's qemu-user when missing.
# Builds the release binaries if missing (.ci/run has built them).
set -euo pipefail
cd "$(dirname "$0")/../.."
fail() { echo "tests/cpu: $*" >&2; exit 1; }
[ "$(uname -m)" = x86_64 ] || fail "needs an x86-64 host (this is $(uname -m))"
if ! command -v qemu-x86_64 >/dev/null; then
    [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null ||
        fail "qemu-x86_64 not found: install Debian's qemu-user"
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q qemu-user
fi
command -v qemu-x86_64 >/dev/null || fail "qemu-x86_64 still not found after installing qemu-user"

stackfish=target/release/stackfish
arena=target/release/arena
[ -x "$stackfish" ] && [ -x "$arena" ] || cargo build --release --bin stackfish --bin arena
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Every game's start, each to a depth of a fraction of a second emulated.
perfts=("mixtour 5" "mixtour-5 4" "silo 10" "silo-8 8" "coinstack 4" "focus 4" "castle 4")
# A depth-limited search is deterministic (a node limit is not quite: it
# differs between native runs), so its session must equal the native one.
ugi_session() {
    printf 'ugi\nisready\nuginewgame\nposition startpos moves c3 b2\ngo %s\n' "$1"
}
# The session's lines but `info`, with the engine's input kept open until
# its `bestmove`: the end of input stops a search at once (protocol.md,
# `quit`), so a closed pipe would compare how far each search got.
ugi_run() { # <limit> <command...>
    local line out=""
    coproc ENGINE { "${@:2}"; }
    ugi_session "$1" >&"${ENGINE[1]}"
    while IFS= read -r -t 600 line <&"${ENGINE[0]}"; do
        [[ $line == info\ * ]] || out+="$line"$'\n'
        [[ $line == bestmove\ * ]] && break
    done
    echo quit >&"${ENGINE[1]}"
    wait "$ENGINE_PID"
    printf '%s' "$out"
}

declare -A native
for p in "${perfts[@]}"; do
    set -- $p
    native[$p]=$("$stackfish" perft "$2" --game "$1" | grep '^Nodes searched')
done
native_bench=$("$stackfish" bench 2>&1 | tail -n 1)
native_bench=${native_bench%% *}
native_session=$(ugi_run "depth 5" "$stackfish")
grep -q '^bestmove ' <<<"$native_session" || fail "native UGI session gave no bestmove: $native_session"

for cpu in qemu64 Nehalem; do
    run() { qemu-x86_64 -cpu "$cpu" "$@"; }
    for p in "${perfts[@]}"; do
        set -- $p
        got=$(run "$stackfish" perft "$2" --game "$1" | grep '^Nodes searched') ||
            fail "$cpu: perft $2 --game $1 failed"
        [ "$got" = "${native[$p]}" ] || fail "$cpu: perft $2 --game $1: $got, natively ${native[$p]}"
    done
    bench=$(run "$stackfish" bench 2>&1 | tail -n 1) || fail "$cpu: bench failed: $bench"
    [ "${bench%% *}" = "$native_bench" ] || fail "$cpu: bench: '$bench', natively $native_bench nodes"
    session=$(ugi_run "depth 5" run "$stackfish") || fail "$cpu: the UGI session failed"
    [ "$session" = "$native_session" ] ||
        fail "$cpu: the UGI session differs from the native one:"$'\n'"$session"$'\n'"--- native:"$'\n'"$native_session"
    ugi_session "nodes 3000" | run "$stackfish" | grep -q '^bestmove [a-e][1-5]' ||
        fail "$cpu: go nodes 3000 gave no bestmove"
    echo "tests/cpu: $cpu: perft of ${#perfts[@]} games, bench $native_bench nodes, a UGI session: as natively"
done

# Two stackfish under qemu64, refereed by an arena under qemu64.
run_arena() {
    qemu-x86_64 -cpu qemu64 "$arena" --games 2 --game mixtour --ratinginterval 0 \
        --jsonl "$work/games.jsonl" \
        --engine name=a cmd=qemu-x86_64 "args=-cpu qemu64 $stackfish" nodes=200 \
        --engine name=b cmd=qemu-x86_64 "args=-cpu qemu64 $stackfish" nodes=200
}
run_arena >"$work/arena.out" 2>&1 || { cat "$work/arena.out" >&2; fail "qemu64: the arena match failed"; }
games=$(wc -l <"$work/games.jsonl")
[ "$games" = 2 ] || { cat "$work/arena.out" >&2; fail "qemu64: the arena recorded $games games, not 2"; }
echo "tests/cpu: qemu64: arena played 2 games between two emulated engines"

# A build for x86-64-v3 on a CPU without AVX: the line, exit 2. Its own
# target folder, so the default build's is left alone.
RUSTFLAGS="-C target-cpu=x86-64-v3" cargo build -q --release \
    -p stackfish-games --example cpu_check --target-dir target/cpu-v3
check=target/cpu-v3/release/examples/cpu_check
set +e
qemu-x86_64 -cpu Nehalem "$check" >"$work/out" 2>"$work/err"
status=$?
set -e
[ "$status" = 2 ] || fail "the x86-64-v3 build under Nehalem: exit $status, expected 2 ($(cat "$work/err"))"
[ ! -s "$work/out" ] || fail "the x86-64-v3 build under Nehalem wrote to stdout: $(cat "$work/out")"
[ "$(wc -l <"$work/err")" = 1 ] || fail "the x86-64-v3 build under Nehalem: not one line: $(cat "$work/err")"
grep -q '^cpu_check: this build needs a CPU with .*avx2.* (x86-64-v3); this CPU lacks avx, avx2, .*; use the x86-64 baseline build' "$work/err" ||
    fail "the x86-64-v3 build under Nehalem said: $(cat "$work/err")"
if grep -qw avx2 /proc/cpuinfo && grep -qw bmi2 /proc/cpuinfo; then
    want=$("$stackfish" perft 4 | sed -n 's/^Nodes searched: //p')
    [ "$("$check")" = "perft 4: $want" ] || fail "the x86-64-v3 build does not run on this AVX2 CPU"
fi
echo "tests/cpu: the x86-64-v3 build under Nehalem: $(cat "$work/err") (exit 2)"
