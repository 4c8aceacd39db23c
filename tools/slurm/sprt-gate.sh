#!/bin/bash
# Submits an SPRT gate to Slurm: an array of N shards (gate.sbatch) and its
# watcher (watch.sbatch), which cancels the array once the test is decided.
# Usage: tools/slurm/sprt-gate.sh [N] [extra sbatch options for both jobs...]
# Environment: as for gate.sbatch and watch.sbatch (ARENA, CONFIG, SHARDS,
# SPRT, GAMES, OUT). Prints the two job ids: "<array> <watcher>".
set -eu
here=$(dirname "$0")
n=${1:-16}
shift || true
export PARTS=$n
gate=$(sbatch --parsable --array="1-$n" "$@" "$here/gate.sbatch")
gate=${gate%%;*}
watch=$(sbatch --parsable --export="ALL,GATE_JOB=$gate" "$@" "$here/watch.sbatch")
echo "${gate} ${watch%%;*}"
