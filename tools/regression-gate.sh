#!/usr/bin/env bash
# The CI regression gate: build a base and a candidate revision of stackfish
# in their own git worktrees and target folders, check that each `bench`
# prints a node count, play an SPRT match between them and exit with the
# SPRT's code.
#
#   tools/regression-gate.sh [options] <base-rev> [<candidate-rev> | --worktree]
#
# The candidate defaults to HEAD; --worktree takes the working tree as it is
# (uncommitted changes included). Exit codes are the arena's:
#   0 H1 accepted (passes), 1 H0 accepted (fails), 2 inconclusive (budget
#   spent), 3 the gate itself failed (bad revision, build, bench, arena).
#
# Options (defaults in brackets):
#   --gain               gain bounds elo0=0 elo1=5 instead of non-regression
#                        bounds elo0=-5 elo1=0 (normalized Elo)
#   --elo0 X --elo1 Y    explicit bounds (override the two above)
#   --alpha A --beta B   error rates [0.05 0.05]
#   --tc "TOKENS"        engine limit, arena engine keys [tc=5+0.05];
#                        e.g. "st=0.02" or "nodes=20000" for quick runs
#   --games N            game budget [20000]
#   --concurrency N      games at once [number of cores]
#   --seed S             opening order [1]
#   --out DIR            records, summary.json, report.html [target/regression-gate/run]
#
# Built binaries are cached by commit in target/regression-gate/ (GATE_DIR),
# so a base used by many runs is built once.
set -euo pipefail

EXIT_GATE_FAILED=3
die() {
    echo "regression-gate: $*" >&2
    exit "$EXIT_GATE_FAILED"
}

root=$(git rev-parse --show-toplevel 2>/dev/null) || die "not inside a git repository"
cd "$root"

elo0=-5 elo1=0 alpha=0.05 beta=0.05
tc="tc=5+0.05" games=20000 seed=1
concurrency=$(nproc 2>/dev/null || echo 1)
gate_dir=${GATE_DIR:-$root/target/regression-gate}
out=""
bounds_set=""
positional=()
while [ $# -gt 0 ]; do
    case "$1" in
    --gain) [ -n "$bounds_set" ] || { elo0=0; elo1=5; } ;;
    --elo0) elo0=${2:?--elo0 needs a value}; bounds_set=1; shift ;;
    --elo1) elo1=${2:?--elo1 needs a value}; bounds_set=1; shift ;;
    --alpha) alpha=${2:?--alpha needs a value}; shift ;;
    --beta) beta=${2:?--beta needs a value}; shift ;;
    --tc) tc=${2:?--tc needs a value}; shift ;;
    --games) games=${2:?--games needs a value}; shift ;;
    --concurrency) concurrency=${2:?--concurrency needs a value}; shift ;;
    --seed) seed=${2:?--seed needs a value}; shift ;;
    --out) out=${2:?--out needs a value}; shift ;;
    -h | --help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    --worktree) positional+=("--worktree") ;;
    -*) die "unknown option $1 (see --help)" ;;
    *) positional+=("$1") ;;
    esac
    shift
done
[ ${#positional[@]} -ge 1 ] && [ ${#positional[@]} -le 2 ] ||
    die "usage: tools/regression-gate.sh [options] <base-rev> [<candidate-rev>|--worktree]"
base_rev=${positional[0]}
cand_rev=${positional[1]:-HEAD}
out=${out:-$gate_dir/run}
mkdir -p "$gate_dir/bin" "$out"

# Builds revision $1 in its own worktree and target folder; prints the binary.
build_rev() {
    local sha bin src
    sha=$(git rev-parse --verify --quiet "$1^{commit}") || die "no such revision: $1"
    bin=$gate_dir/bin/stackfish-$sha
    if [ ! -x "$bin" ]; then
        src=$gate_dir/src-$sha
        [ -d "$src" ] || git worktree add --detach --force "$src" "$sha" >&2 ||
            die "cannot create a worktree for $1"
        echo "regression-gate: building $1 ($sha)" >&2
        CARGO_TARGET_DIR=$gate_dir/target-$sha cargo build --release --quiet --bin stackfish \
            --manifest-path "$src/Cargo.toml" >&2 || die "build of $1 failed"
        cp "$gate_dir/target-$sha/release/stackfish" "$bin.tmp" && mv "$bin.tmp" "$bin"
        git worktree remove --force "$src" >&2 || true
    fi
    echo "$bin"
}

# The working tree as it is: never cached (it has no commit to name it).
build_worktree() {
    echo "regression-gate: building the working tree" >&2
    CARGO_TARGET_DIR=$gate_dir/target-worktree cargo build --release --quiet --bin stackfish >&2 ||
        die "build of the working tree failed"
    cp "$gate_dir/target-worktree/release/stackfish" "$gate_dir/bin/stackfish-worktree"
    echo "$gate_dir/bin/stackfish-worktree"
}

# `bench` must end with `<nodes> nodes <nps> nps`: the search's signature,
# and proof that the binary runs at all.
check_bench() {
    local last
    last=$("$2" bench 2>/dev/null | tail -n 1) || die "$1: bench failed"
    [[ $last =~ ^([0-9]+)\ nodes\ [0-9]+\ nps$ ]] || die "$1: bench printed no node count: '$last'"
    echo "regression-gate: $1 bench: ${BASH_REMATCH[1]} nodes" >&2
    # Not fatal: a weakened default (a low Level) may legitimately bypass the
    # counted search, and the match still judges it.
    [ "${BASH_REMATCH[1]}" != 0 ] || echo "regression-gate: warning: $1 bench searched 0 nodes" >&2
}

base_bin=$(build_rev "$base_rev")
if [ "$cand_rev" = "--worktree" ]; then
    cand_bin=$(build_worktree)
else
    cand_bin=$(build_rev "$cand_rev")
fi
check_bench "base $base_rev" "$base_bin"
check_bench "candidate $cand_rev" "$cand_bin"

# The arena of this checkout plays the match (an old base may predate it).
cargo build --release --quiet --bin arena || die "cannot build the arena"
arena=${CARGO_TARGET_DIR:-$root/target}/release/arena
# regression.json's base engine points here, so the config also works by hand.
mkdir -p "$gate_dir/base"
cp "$base_bin" "$gate_dir/base/stackfish"

rm -f "$out/games.jsonl"
echo "regression-gate: SPRT elo0=$elo0 elo1=$elo1 alpha=$alpha beta=$beta, $tc, up to $games games" >&2
set +e
# shellcheck disable=SC2086 # $tc holds several engine keys
"$arena" --config tournaments/regression.json \
    --engine name=candidate "cmd=$cand_bin" $tc \
    --engine name=base "cmd=$base_bin" $tc \
    --sprt "elo0=$elo0" "elo1=$elo1" "alpha=$alpha" "beta=$beta" \
    --games "$games" --concurrency "$concurrency" --seed "$seed" \
    --jsonl "$out/games.jsonl" --json "$out/summary.json" --report "$out/report.html"
code=$?
set -e
case $code in
0) echo "regression-gate: PASS (H1 accepted)" ;;
1) echo "regression-gate: FAIL (H0 accepted)" ;;
2) echo "regression-gate: INCONCLUSIVE (game budget spent)" ;;
130) echo "regression-gate: interrupted" ;;
*) echo "regression-gate: the match failed (exit $code)"; code=$EXIT_GATE_FAILED ;;
esac
exit "$code"
