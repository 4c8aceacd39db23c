#!/usr/bin/env bash
# The Level ladder: each level against the one below, from the shipped
# openings, at the levels' own limits (depth 1 with noise for 1-4, node
# budgets for 5-19), so a loaded machine does not change the result. Prints
# one results line per step; the table in docs/development.md was made with this.
#
#   tools/level-ladder.sh [games per step, default 60] [first level, default 1]
set -euo pipefail
games=${1:-60}
first=${2:-1}
root=$(git rev-parse --show-toplevel)
cd "$root"
cargo build --release --quiet --bin stackfish --bin arena
bin=$root/target/release/stackfish
out=$root/target/level-ladder
mkdir -p "$out"
for low in $(seq "$first" 18); do
    high=$((low + 1))
    rm -f "$out/l$high-l$low.jsonl"
    # depth=30 only gives the arena a limit to send: the level's own
    # depth or node budget stops the search first.
    target/release/arena --game mixtour \
        --engine "name=level$high" "cmd=$bin" "option.Level=$high" depth=30 \
        --engine "name=level$low" "cmd=$bin" "option.Level=$low" depth=30 \
        --games "$games" --concurrency "$(nproc)" --seed 1 --maxplies 200 \
        --openings tournaments/openings-mixtour.txt \
        --jsonl "$out/l$high-l$low.jsonl" >"$out/l$high-l$low.out" 2>&1
    tail -n 1 "$out/l$high-l$low.out"
done
