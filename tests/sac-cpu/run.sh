#!/usr/bin/env bash
# stackfish as a StackAndConquer CPU script, run as the app runs it: builds
# target/stackandconquer/StackfishCPU.js and StackfishCPU-Easy.js
# (tools/build-sac-cpu.sh), checks the script engine's bench against the
# native one's Mixtour line (node tools/sac-cpu/bench.js), builds host.cpp
# (the real QJSEngine of Debian's qt6-declarative-dev, a `game` object with
# the app's getters and a referee of its own) and plays with it:
# - whole games of each script against a random mover on the standard
#   board, on a shaped board with holes (5 x 5 without corners, the 7 x 7
#   ring), to two towers, every move checked against the host's legal list;
# - whole games on a 12 x 12 board and with three players (the simple rule);
# - the cases of cases/*.json: the take-back after a pass, a three-player
#   call, a malformed board string, bad input from hand-edited files.
# Installs qt6-declarative-dev, g++, pkg-config and Node when missing; fails
# on any error, a move outside the legal list, a thrown exception or a
# QJSEngine warning of a variable used before its declaration. Prints the
# load and move times (benchmark figures, not checked).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$root"

missing=()
command -v g++ >/dev/null || missing+=(g++)
command -v pkg-config >/dev/null || missing+=(pkg-config)
pkg-config --exists Qt6Qml 2>/dev/null || missing+=(qt6-declarative-dev)
[ -x /usr/lib/qt6/libexec/moc ] || missing+=(qt6-base-dev-tools)
command -v node >/dev/null || missing+=(nodejs)
command -v npm >/dev/null || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
    echo "sac-cpu: installing ${missing[*]}" >&2
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
fi
pkg-config --exists Qt6Qml || { echo "sac-cpu: Qt6Qml is still missing after installing qt6-declarative-dev" >&2; exit 1; }
moc=/usr/lib/qt6/libexec/moc
[ -x "$moc" ] || { echo "sac-cpu: $moc is missing (qt6-base-dev-tools)" >&2; exit 1; }

mapfile -t scripts < <(bash tools/build-sac-cpu.sh)
[ ${#scripts[@]} -eq 2 ] || { echo "sac-cpu: tools/build-sac-cpu.sh built ${#scripts[@]} scripts, not 2" >&2; exit 1; }

# bench through the script's engine: the native bench's Mixtour line.
cargo build --release -q --bin stackfish
native=$(target/release/stackfish bench 2>&1 | grep '^info string bench mixtour depth')
script=$(node tools/sac-cpu/bench.js "${scripts[0]}" | grep '^info string bench mixtour depth')
echo "sac-cpu: native  $native" >&2
echo "sac-cpu: script  $script" >&2
[ "$native" = "$script" ] || { echo "sac-cpu: the script's bench differs from the native one" >&2; exit 1; }

build=$root/target/sac-cpu-host
mkdir -p "$build"
"$moc" "$here/host.cpp" -o "$build/host.moc"
# shellcheck disable=SC2046
g++ -O2 -std=c++17 -fPIC -I"$build" "$here/host.cpp" -o "$build/host" $(pkg-config --cflags --libs Qt6Qml)
host=$build/host

for s in "${scripts[@]}"; do
    # What the app reads of the file: the GPL header first, a strength
    # line among the first lines, and a plain script (no ES module).
    head -n 3 "$s" | grep -q 'GNU General Public License\|Copyright' || { echo "sac-cpu: $s does not start with the GPL header" >&2; exit 1; }
    head -n 20 "$s" | grep -q '^// CPU strength: stackfish level' || { echo "sac-cpu: $s has no '// CPU strength:' line in its first 20 lines" >&2; exit 1; }
    if grep -qE '^(import|export)\b' "$s"; then echo "sac-cpu: $s is an ES module (import/export), not a plain script" >&2; exit 1; fi
    echo "sac-cpu: $(basename "$s"): $(sed -n 's|^// CPU strength: ||p' "$s" | head -n 1)" >&2
    "$host" "$s" games boards/square_5x5.in 1 2 2 1
    "$host" "$s" games boards/square_5x5_no_corners.in 1 2 1 2
    "$host" "$s" games boards/ring_7x7.in 1 2 1 3
    "$host" "$s" games boards/square_5x5.in 2 2 1 4
    for c in "$here"/cases/*.json; do
        "$host" "$s" call "$c"
    done
done
# The simple rule: a board larger than the engine plays, three players.
"$host" "${scripts[1]}" games "$here/boards/square_12x12.in" 1 2 1 5
"$host" "${scripts[1]}" games boards/square_5x5.in 1 3 3 6
echo "sac-cpu: all passed" >&2
