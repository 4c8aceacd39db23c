#!/usr/bin/env bash
# The cluster recipes of docs/arena.md on a real Slurm: installs Debian's
# slurmctld, slurmd, slurm-client and munge when missing (as root), brings
# up a one-node cluster on 127.0.0.1 with its state in a temporary folder,
# and runs tools/slurm/ as a user would:
#  1. an SPRT gate as an array of 4 shards plus its watcher: decided early,
#     the remaining tasks cancelled by the scheduler, the watcher's figures
#     equal to `arena merge` of the folder;
#  2. a datagen array of 4 tasks, a rerun of one task reproducing its games
#     exactly, and `stackfish train` on the folder;
# then stops the daemons it started (by pid) and removes its state. A
# scheduler that cannot be brought up fails the script with the reason.
# Uses target/release/{arena,stackfish,mock-engine} (cargo build --release).
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${BIN:-$root/target/release}
say() { echo "slurm test: $*"; }
fail() {
  echo "slurm test: FAILED: $*" >&2
  exit 1
}
for b in arena stackfish mock-engine; do
  [ -x "$bin/$b" ] || fail "$bin/$b is not built (cargo build --release --bins first)"
done

if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null ||
  ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
  [ "$(id -u)" = 0 ] || fail "Slurm is not installed and installing it needs root"
  say "installing slurmctld slurmd slurm-client munge"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null || fail "apt-get update failed"
  apt-get install -y -qq --no-install-recommends slurmctld slurmd slurm-client munge >/dev/null ||
    fail "apt-get install of slurmctld slurmd slurm-client munge failed"
fi
[ "$(id -u)" = 0 ] || fail "the one-node cluster runs its daemons as root"

state=$(mktemp -d /tmp/stackfish-slurm.XXXXXX)
pids=()
cleanup() {
  local code=$?
  for p in "${pids[@]}"; do
    kill "$p" 2>/dev/null || true
  done
  for p in "${pids[@]}"; do
    for _ in $(seq 50); do
      kill -0 "$p" 2>/dev/null || break
      sleep 0.1
    done
    kill -9 "$p" 2>/dev/null || true
  done
  if [ "$code" != 0 ]; then
    for log in "$state"/*.log; do
      [ -f "$log" ] && { echo "--- $log (last lines)"; tail -n 20 "$log"; }
    done
  fi
  rm -rf "$state"
  exit "$code"
}
trap cleanup EXIT

# munge: a key of our own and a socket in the state folder, so that a
# system munged (if any) is neither used nor disturbed.
dd if=/dev/urandom of="$state/munge.key" bs=1024 count=1 status=none
chmod 600 "$state/munge.key"
mkdir -m 700 "$state/munge"
munged --force --key-file="$state/munge.key" --socket="$state/munge/socket" \
  --pid-file="$state/munge/pid" --log-file="$state/munge.log" --seed-file="$state/munge/seed" ||
  fail "munged does not start: $(tail -n 3 "$state/munge.log" 2>/dev/null)"
pids+=("$(cat "$state/munge/pid")")

host=$(hostname -s)
port=$((20000 + RANDOM % 20000))
mkdir -p "$state/ctld" "$state/spool"
export SLURM_CONF=$state/slurm.conf
cat >"$SLURM_CONF" <<CONF
ClusterName=stackfish
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$state/munge/socket
StateSaveLocation=$state/ctld
SlurmdSpoolDir=$state/spool
SlurmctldPidFile=$state/slurmctld.pid
SlurmdPidFile=$state/slurmd.pid
SlurmctldLogFile=$state/slurmctld.log
SlurmdLogFile=$state/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
KillWait=10
MinJobAge=600
# Eight slots on the 2 cores: the engines of the test mostly sleep.
NodeName=$host NodeAddr=127.0.0.1 CPUs=8 RealMemory=2000 State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=30 State=UP
CONF

slurmctld -f "$SLURM_CONF" -i || fail "slurmctld does not start: $(tail -n 5 "$state/slurmctld.log" 2>/dev/null)"
for _ in $(seq 50); do [ -s "$state/slurmctld.pid" ] && break; sleep 0.1; done
[ -s "$state/slurmctld.pid" ] || fail "slurmctld wrote no pid file: $(tail -n 5 "$state/slurmctld.log" 2>/dev/null)"
pids+=("$(cat "$state/slurmctld.pid")")
slurmd -f "$SLURM_CONF" || fail "slurmd does not start: $(tail -n 5 "$state/slurmd.log" 2>/dev/null)"
for _ in $(seq 50); do [ -s "$state/slurmd.pid" ] && break; sleep 0.1; done
[ -s "$state/slurmd.pid" ] || fail "slurmd wrote no pid file: $(tail -n 5 "$state/slurmd.log" 2>/dev/null)"
pids+=("$(cat "$state/slurmd.pid")")

up=
for _ in $(seq 120); do
  if [ "$(sinfo --noheader -o %t 2>/dev/null | tr -d ' ')" = idle ]; then up=1; break; fi
  sleep 0.5
done
[ -n "$up" ] || fail "the node never became idle: sinfo says '$(sinfo --noheader 2>&1)'"
say "Slurm $(sinfo --version | cut -d' ' -f2) up on $host (127.0.0.1:$port)"

# Waits until job $1 has left the queue (at most $2 seconds).
wait_gone() {
  for _ in $(seq $(($2 * 4))); do
    [ -z "$(squeue --noheader --jobs "$1" 2>/dev/null)" ] && return 0
    sleep 0.25
  done
  fail "job $1 still queued after $2 s: $(squeue --jobs "$1" 2>&1)"
}
# The states of the tasks of job $1, one a line.
states() { scontrol show job "$1" | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p'; }
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# 1. An SPRT gate: a clearly stronger engine (its every move reports a won
# position) against a weaker one (resigns at once), 20 ms a move, a
# schedule of 2000 games that one shard could not finish in the time the
# test allows; the SPRT decides after a few hundred.
gate=$state/gate
mkdir -p "$gate/shards"
mock=$bin/mock-engine
cat >"$gate/gate.json" <<JSON
{
  "event": "slurm gate",
  "engines": [
    { "name": "strong", "cmd": "$mock", "args": ["--score", "2000", "--fault", "slow", "--at", "1", "--slow-ms", "20"], "nodes": 1 },
    { "name": "weak", "cmd": "$mock", "args": ["--score", "-2000", "--fault", "slow", "--at", "1", "--slow-ms", "20"], "nodes": 1 }
  ],
  "game": "mixtour",
  "games": 2000,
  "resign": { "moves": 1, "score": 1000, "movenumber": 0 },
  "ratinginterval": 0
}
JSON
t0=$(now)
read -r array watcher < <(cd "$gate" && ARENA=$bin/arena CONFIG=$gate/gate.json SHARDS=$gate/shards \
  SPRT="elo0=0 elo1=5" GAMES=2000 OUT=$gate "$root/tools/slurm/sprt-gate.sh" 4 --chdir="$gate")
[ -n "$watcher" ] || fail "sprt-gate.sh did not print the two job ids"
say "gate array $array, watcher $watcher"
wait_gone "$watcher" 240
wait_gone "$array" 60
t1=$(now)
wout=$gate/arena-watch-$watcher.out
[ -f "$wout" ] || fail "no watcher output $wout"
grep -q "Decided: H1 was accepted" "$wout" || fail "the watcher did not decide H1: $(cat "$wout")"
grep -q "Stop: scancel $array (exit status 0)" "$wout" || fail "the watcher did not scancel $array: $(cat "$wout")"
code=$(scontrol show job "$watcher" | sed -n 's/.* ExitCode=\([0-9]*\):.*/\1/p')
[ "$code" = 0 ] || fail "the watcher job exited $code, not 0 (H1)"
tasks=$(states "$array" | sort | uniq -c | awk '{ printf "%s%s %s", (NR > 1 ? ", " : ""), $1, $2 }')
states "$array" | grep -q CANCELLED || fail "no task of the array was cancelled: $tasks"
if states "$array" | grep -q -v CANCELLED; then fail "a task of the array did not end cancelled: $tasks"; fi
for f in "$gate"/arena-gate-*.out; do
  grep -q "^Shard [1-4]/4: 500 games" "$f" || fail "$f: not a shard of 4: $(head -n 3 "$f")"
done
"$bin/arena" merge "$gate"/shards/*.jsonl --sprt elo0=0 elo1=5 --json "$gate/merge.json" >"$gate/merge.out" ||
  fail "arena merge of the folder exited $? ($(tail -n 2 "$gate/merge.out"))"
cmp -s "$gate/summary.json" "$gate/merge.json" || fail "the watcher's summary differs from arena merge of the folder"
[ -s "$gate/report.html" ] || fail "the watcher wrote no report"
played=$(cat "$gate"/shards/*.jsonl | wc -l)
[ "$played" -lt 2000 ] || fail "all 2000 games were played: no early stop"
if grep -h '"termination"' "$gate"/shards/*.jsonl | grep -q -e disconnect -e stall; then
  fail "a game stopped by scancel was recorded as an engine fault"
fi
say "SPRT gate: H1 after $played of 2000 games in $(secs "$t0" "$t1") s on 4 shards (tasks: $tasks); watcher = merge"
# The same test in one arena process, for the closing figures.
t0=$(now)
(cd "$gate" && "$bin/arena" --config "$gate/gate.json" --sprt elo0=0 elo1=5 --json single.json >single.out) ||
  fail "the single arena did not accept H1 (exit $?): $(tail -n 3 "$gate/single.out")"
t1=$(now)
single=$(sed -n 's/.*"finished": *\([0-9]*\).*/\1/p' "$gate/single.json" | head -n 1)
say "the same SPRT in one arena: H1 after $single games in $(secs "$t0" "$t1") s; the early stop saved $((2000 - played)) of 2000 games"

# 2. Self-play data as an array of 4 tasks, then train on the folder.
data=$state/data
mkdir -p "$data"
t0=$(now)
djob=$(cd "$data" && STACKFISH=$bin/stackfish OUT=$data/selfplay GAMES=12 NODES=300 SEED=3 \
  sbatch --parsable --array=1-4 --chdir="$data" "$root/tools/slurm/datagen.sbatch")
djob=${djob%%;*}
wait_gone "$djob" 240
t1=$(now)
dstates=$(states "$djob" | sort | uniq -c | awk '{ printf "%s%s %s", (NR > 1 ? ", " : ""), $1, $2 }')
if states "$djob" | grep -q -v COMPLETED; then fail "a datagen task did not complete: $dstates"; fi
games=$(cat "$data"/selfplay/*.jsonl | wc -l)
[ "$games" = 12 ] || fail "the datagen array wrote $games games, not 12"
numbers=$(cat "$data"/selfplay/*.jsonl | grep -o '"game":[0-9]*' | cut -d: -f2 | sort -n | paste -sd' ' -)
[ "$numbers" = "1 2 3 4 5 6 7 8 9 10 11 12" ] || fail "game numbers of the array: $numbers"
# The same run in one process holds the same games, byte for byte.
"$bin/stackfish" datagen --out "$data/whole.jsonl" --games 12 --nodes 300 --seed 3 >/dev/null
cmp -s <(sort "$data/whole.jsonl") <(cat "$data"/selfplay/*.jsonl | sort) ||
  fail "the array's games differ from the same run in one process"
# Task 3 killed after its first game, mid-way through the next line, and
# resubmitted alone: it plays only what is missing, the same games again.
cp "$data/selfplay/shard-3.jsonl" "$data/shard-3.before"
{ head -n 1 "$data/shard-3.before"; sed -n 2p "$data/shard-3.before" | head -c 30; } >"$data/selfplay/shard-3.jsonl"
rjob=$(cd "$data" && STACKFISH=$bin/stackfish OUT=$data/selfplay GAMES=12 NODES=300 SEED=3 PARTS=4 \
  sbatch --parsable --array=3 --chdir="$data" "$root/tools/slurm/datagen.sbatch")
rjob=${rjob%%;*}
wait_gone "$rjob" 120
cmp -s "$data/shard-3.before" "$data/selfplay/shard-3.jsonl" ||
  fail "the resubmitted task 3 did not restore its games exactly: $(cat "$data"/stackfish-datagen-"$rjob"_3.out)"
grep -q "resuming: 1 of 3 games already in" "$data/stackfish-datagen-${rjob}_3.out" ||
  fail "the resubmitted task did not resume: $(cat "$data"/stackfish-datagen-"$rjob"_3.out)"
"$bin/stackfish" train "$data/selfplay" --out "$data/net.bin" --epochs 2 >"$data/train.out" 2>&1 ||
  fail "train on the folder failed: $(tail -n 3 "$data/train.out")"
[ "$(grep -c 'shard-[1-4].jsonl: [0-9]* mixtour positions' "$data/train.out")" = 4 ] ||
  fail "train did not read the 4 shard files: $(cat "$data/train.out")"
say "datagen array: 12 games in 4 tasks ($dstates) in $(secs "$t0" "$t1") s, = one process; task 3 rerun restored its 3 games; trained on the folder"
say "passed"
