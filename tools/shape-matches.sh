#!/usr/bin/env bash
# Mixtour on boards stackfish was not built around: full strength (100 ms a
# move) against Level 10 and against a random mover (the mock engine's
# per-position random moves), 40 games each from 20 random 4-ply openings of
# the board, colours swapped. The boards: the shipped 7 x 7 ring (holes in
# the middle), an 8 x 5 rectangle and the shipped 10 x 10. Prints one
# results line per match; the table in docs/development.md was made with it.
#
#   tools/shape-matches.sh [out-dir]     (default target/shape-matches)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-target/shape-matches}
mkdir -p "$out"
cargo build --release --quiet --bins
bin=target/release
# Generous margins: a shared machine must not turn a slow move into a loss.
tc="st=0.1 timemargin=2000"
boards=("ring boards/ring_7x7.in" "rect8x5 x8/x8/x8/x8/x8 1 20,20 0,0 1 -" "sq10 boards/square_10x10.in")
for entry in "${boards[@]}"; do
    name=${entry%% *}
    board=${entry#* }
    "$bin/arena" openings --board "$board" --plies 4 --count 20 --seed 1 --out "$out/$name.txt"
    for opp in level10 random; do
        if [ "$opp" = level10 ]; then
            o=(name=level10 "cmd=$bin/stackfish" option.Level=10 $tc)
        else
            o=(name=random "cmd=$bin/mock-engine" args=--per-position $tc)
        fi
        "$bin/arena" --engine name=stackfish "cmd=$bin/stackfish" $tc --engine "${o[@]}" \
            --game mixtour --openings "$out/$name.txt" --games 40 --concurrency 1 \
            --maxplies 400 --jsonl "$out/$name-$opp.jsonl" >"$out/$name-$opp.out" 2>&1
        printf '%-8s %s\n' "$name" "$(grep -E '^stackfish ' "$out/$name-$opp.out" | tail -1)"
    done
done
