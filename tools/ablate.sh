#!/usr/bin/env bash
# What an evaluation term is worth: build stackfish with the term(s) weighed
# zero (STACKFISH_ABLATE, see crates/games/src/ablate.rs), then play an SPRT of the
# normal engine (candidate) against the ablated one (base). H1 accepted
# means the term helps by the bounds; H0 accepted means it does not.
#
#   tools/ablate.sh [options] <game> <term[,term...]>
#
# Options (defaults in brackets):
#   --tc "TOKENS"      engine limit, arena engine keys [nodes=20000]: equal
#                      nodes measure the knowledge, not the speed, and stay
#                      fair on a loaded machine
#   --elo0 X --elo1 Y  SPRT bounds in normalized Elo [0 25]
#   --games N          game budget [3000]
#   --concurrency N    games at once [number of cores]
#   --seed S           opening order [1]
#   --out DIR          records [target/ablate]
#
# Openings: 200 random 4-ply openings of the game (seed 1), generated once
# into the out folder. Exit codes are the arena's: 0 H1, 1 H0, 2 budget
# spent; 3 the script failed.
set -euo pipefail

die() {
    echo "ablate: $*" >&2
    exit 3
}

root=$(git rev-parse --show-toplevel 2>/dev/null) || die "not inside a git repository"
cd "$root"

tc="nodes=20000" elo0=0 elo1=25 games=3000 seed=1
concurrency=$(nproc 2>/dev/null || echo 1)
out=$root/target/ablate
positional=()
while [ $# -gt 0 ]; do
    case "$1" in
    --tc) tc=${2:?--tc needs a value}; shift ;;
    --elo0) elo0=${2:?--elo0 needs a value}; shift ;;
    --elo1) elo1=${2:?--elo1 needs a value}; shift ;;
    --games) games=${2:?--games needs a value}; shift ;;
    --concurrency) concurrency=${2:?--concurrency needs a value}; shift ;;
    --seed) seed=${2:?--seed needs a value}; shift ;;
    --out) out=${2:?--out needs a value}; shift ;;
    -h | --help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option $1 (see --help)" ;;
    *) positional+=("$1") ;;
    esac
    shift
done
[ ${#positional[@]} -eq 2 ] || die "usage: tools/ablate.sh [options] <game> <term[,term...]>"
game=${positional[0]} terms=${positional[1]}
mkdir -p "$out/bin"

target=${CARGO_TARGET_DIR:-$root/target}
cargo build --release --quiet --bin stackfish --bin arena || die "build failed"
full=$target/release/stackfish
arena=$target/release/arena
# Its own target folder, so the normal build is not rebuilt next time; a
# name that no evaluation has stops this build with a compile error.
STACKFISH_ABLATE=$terms CARGO_TARGET_DIR=$out/target cargo build --release --quiet --bin stackfish ||
    die "the ablation build failed (is '$terms' in an evaluation's NAMES?)"
ablated=$out/bin/stackfish-no-${terms//,/-}
cp "$out/target/release/stackfish" "$ablated"

openings=$out/openings-$game.txt
[ -s "$openings" ] || "$arena" openings --game "$game" --plies 4 --count 200 --seed 1 --out "$openings" ||
    die "cannot generate openings for $game"

echo "ablate: $game, stackfish vs no-$terms, SPRT [$elo0, $elo1], $tc" >&2
set +e
# shellcheck disable=SC2086 # $tc holds engine keys
"$arena" --game "$game" \
    --engine name=stackfish "cmd=$full" $tc \
    --engine "name=no-$terms" "cmd=$ablated" $tc \
    --sprt "elo0=$elo0" "elo1=$elo1" \
    --games "$games" --concurrency "$concurrency" --seed "$seed" --openings "$openings" \
    --jsonl "$out/$game-no-${terms//,/-}.jsonl" --ratinginterval 100
code=$?
set -e
case $code in
0 | 1 | 2) exit "$code" ;;
*) die "the match failed (exit $code)" ;;
esac
