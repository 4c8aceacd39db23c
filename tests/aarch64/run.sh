#!/usr/bin/env bash
# Linux on ARM: cross-builds stackfish and arena for aarch64-unknown-linux-gnu
# and runs them under qemu-aarch64 against the native x86-64 build: perft of
# every game's start, `bench`, a UGI transcript and a two-game arena match
# must print what the native binaries print (times aside); then builds the
# arm64 .deb and checks its architecture and binaries. Fails loudly, naming
# the Debian package, when a tool is missing.
#
#   bash tests/aarch64/run.sh
#
# Needs qemu-user, gcc-aarch64-linux-gnu, libc6-dev-arm64-cross, the rustup
# target aarch64-unknown-linux-gnu and cargo-deb (.ci/run installs them).
set -euo pipefail
cd "$(dirname "$0")/../.."
target=aarch64-unknown-linux-gnu
sysroot=/usr/aarch64-linux-gnu
fail() {
    echo "tests/aarch64: $*" >&2
    exit 1
}
for need in qemu-aarch64:qemu-user aarch64-linux-gnu-gcc:gcc-aarch64-linux-gnu \
    file:file dpkg-deb:dpkg aarch64-linux-gnu-objdump:binutils-aarch64-linux-gnu readelf:binutils; do
    command -v "${need%%:*}" >/dev/null || fail "${need%%:*} not found; install the Debian package ${need#*:}"
done
[ -e "$sysroot/lib/ld-linux-aarch64.so.1" ] ||
    fail "$sysroot/lib/ld-linux-aarch64.so.1 not found; install the Debian package libc6-dev-arm64-cross"
rustup target list --installed | grep -qx "$target" ||
    fail "the Rust target $target is missing; rustup target add $target"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
start=$(date +%s)

# The release profile (no fat LTO, unlike the shipped dist): the same code
# generation choices, minutes less to build. The native side is the
# release build CI made before this step.
cargo build --quiet --release --target "$target" --bin stackfish --bin arena
cargo build --quiet --release --bin stackfish --bin arena
tdir=${CARGO_TARGET_DIR:-target}
arm=$tdir/$target/release
native=$tdir/release
for b in stackfish arena; do
    file -L "$arm/$b" | grep -q "ELF 64-bit LSB .*ARM aarch64" || fail "$arm/$b is not an aarch64 ELF: $(file -L "$arm/$b")"
done
qemu() { qemu-aarch64 -L "$sysroot" "$@"; }
built=$(date +%s)
echo "tests/aarch64: built in $((built - start)) s"

# Perft: every game's start, to a depth of well under a second natively.
for gd in mixtour:5 mixtour-5:4 silo:8 silo-8:8 coinstack:4 focus:4 castle:4 castle-2:4 castle-3:4; do
    game=${gd%:*} depth=${gd#*:}
    want=$("$native/stackfish" perft "$depth" --game "$game")
    got=$(qemu "$arm/stackfish" perft "$depth" --game "$game") || fail "perft $depth --game $game failed under qemu: $got"
    [ "$got" = "$want" ] || fail "perft $depth --game $game: aarch64 printed '$got', x86-64 '$want'"
    echo "tests/aarch64: perft $depth --game $game: ${got##*$'\n'}"
done

# Bench: every position's best move and node count; nps is the machine's.
strip_nps() { sed -E 's/ [0-9]+ nps$//'; }
want=$("$native/stackfish" bench | strip_nps)
got=$(qemu "$arm/stackfish" bench | strip_nps) || fail "bench failed under qemu"
[ "$got" = "$want" ] || fail "bench differs from x86-64: $(diff <(echo "$want") <(echo "$got") | head -n 20)"
echo "tests/aarch64: bench: ${got##*$'\n'}"

# A UGI session through pipes, as a GUI holds it: handshake, then each
# search awaited (`go` runs while the engine reads on, so a pipe written all
# at once would interrupt a slow one). Node-limited searches are
# deterministic: line for line the native engine's but for time and nps.
session() { # <engine command...>: prints what the engine said
    local line to from pid
    coproc ENGINE { "$@" 2>&1; }
    # Bash forgets the coprocess's variables once it exits: copy them now.
    pid=$ENGINE_PID
    exec {to}>&"${ENGINE[1]}" {from}<&"${ENGINE[0]}"
    await() {
        while IFS= read -r -t 60 line <&"$from"; do
            echo "$line"
            [[ $line =~ $1 ]] && return 0
        done
        echo "no line matching '$1' within 60 s"
        return 1
    }
    echo ugi >&"$to" && await '^ugiok$' &&
        printf 'setoption name Game value mixtour\nucinewgame\nisready\n' >&"$to" && await '^readyok$' &&
        printf 'position startpos\ngo nodes 3000\n' >&"$to" && await '^bestmove ' &&
        printf 'position startpos moves d2\ngo nodes 3000\n' >&"$to" && await '^bestmove ' &&
        echo quit >&"$to" || return 1
    exec {to}>&-
    cat <&"$from"
    wait "$pid"
}
strip_times() { sed -E 's/ (time|nps) [0-9]+//g'; }
want=$(session "$native/stackfish" | strip_times) || fail "the native UGI session failed: $want"
got=$(session qemu-aarch64 -L "$sysroot" "$arm/stackfish" | strip_times) || fail "the UGI session failed under qemu: $got"
[ "$got" = "$want" ] || fail "UGI session differs from x86-64: $(diff <(echo "$want") <(echo "$got") | head -n 20)"
[ "$(echo "$got" | grep -c '^bestmove ')" = 2 ] || fail "UGI session: not two bestmoves in: $got"
echo "tests/aarch64: UGI session: $(echo "$got" | grep '^bestmove ' | tr '\n' ' ')"

# A match between two aarch64 engines, refereed by the aarch64 arena, all
# under qemu (the arena starts the engines through qemu-aarch64, an x86-64
# program the kernel runs as usual). The same match natively must give the
# same records: the same moves, results and terminations.
match() { # <arena command...> -- <engine command>
    local args=()
    while [ "$1" != -- ]; do args+=("$1"); shift; done
    shift
    "${args[@]}" --engine name=one "cmd=$1" "args=${*:2}" nodes=300 \
        --engine name=two "cmd=$1" "args=${*:2}" nodes=300 option.Level=5 \
        --games 2 --concurrency 1 --maxplies 120 --seed 1 \
        --openings tournaments/openings-mixtour.txt --jsonl "$jsonl"
}
jsonl=$work/arm.jsonl
out=$(match qemu "$arm/arena" -- qemu-aarch64 -L "$sysroot" "$arm/stackfish" 2>&1) ||
    fail "the aarch64 match failed: $out"
jsonl=$work/native.jsonl
want=$(match "$native/arena" -- "$native/stackfish" 2>&1) || fail "the native match failed: $want"
[ "$(wc -l <"$work/arm.jsonl")" = 2 ] || fail "the aarch64 match recorded $(wc -l <"$work/arm.jsonl") games, not 2: $out"
if grep -E '"termination": ?"(one|two): ' "$work/arm.jsonl"; then
    fail "an engine forfeited a game of the aarch64 match (above)"
fi
[ "$(grep -c -E '"result": ?"(1-0|0-1|1/2-1/2)"' "$work/arm.jsonl")" = 2 ] ||
    fail "the aarch64 match has an unfinished game: $(cat "$work/arm.jsonl")"
untimed() { sed -E 's/"(ms|duration_ms)": ?[0-9]+,? ?//g; s/"date": ?"[^"]*",? ?//g' "$1"; }
[ "$(untimed "$work/arm.jsonl")" = "$(untimed "$work/native.jsonl")" ] ||
    fail "the aarch64 match's records differ from the native one's: $(diff <(untimed "$work/native.jsonl") <(untimed "$work/arm.jsonl") | head -n 10)"
echo "tests/aarch64: arena: 2 games, $(grep -o -E '"termination": ?"[^"]*"' "$work/arm.jsonl" | tr '\n' ' ')"

# The arm64 package: architecture, aarch64 binaries, and man pages and
# completions that are the aarch64 programs' own (build-deb.sh has the
# native programs write them).
deb=$(bash tools/build-deb.sh --target "$target" --profile release | tail -n 1)
case $deb in *_arm64.deb) ;; *) fail "tools/build-deb.sh --target $target printed '$deb', not an _arm64.deb" ;; esac
[ -s "$deb" ] || fail "$deb missing"
arch=$(dpkg-deb --field "$deb" Architecture)
[ "$arch" = arm64 ] || fail "$deb: Architecture '$arch', not arm64"
bash tests/deb/depends.sh "$deb" || fail "$deb: Depends is not what its binaries need"
contents=$(dpkg-deb -c "$deb")
for b in stackfish arena; do
    grep -q -E " \./usr/bin/$b\$" <<<"$contents" || fail "$deb has no usr/bin/$b: $contents"
done
root=$work/root
dpkg-deb -x "$deb" "$root"
for b in stackfish arena; do
    file "$root/usr/bin/$b" | grep -q "ELF 64-bit LSB .*ARM aarch64" || fail "$deb: usr/bin/$b is not an aarch64 ELF: $(file "$root/usr/bin/$b")"
    qemu "$root/usr/bin/$b" completions bash | cmp -s - "$root/usr/share/bash-completion/completions/$b" ||
        fail "$deb: the bash completions of $b are not what the aarch64 $b prints"
done
mkdir "$work/man"
qemu "$root/usr/bin/stackfish" man --dir "$work/man"
qemu "$root/usr/bin/arena" man --dir "$work/man"
pages=0
for page in "$work"/man/*.1; do
    packaged=$root/usr/share/man/man1/$(basename "$page").gz
    [ -s "$packaged" ] || fail "$deb has no $(basename "$packaged"), a page the aarch64 programs write"
    zcat "$packaged" | cmp -s - "$page" || fail "$deb: $(basename "$packaged") is not what the aarch64 programs write"
    pages=$((pages + 1))
done
[ "$pages" = "$(ls "$root/usr/share/man/man1" | wc -l)" ] || fail "$deb has man pages the aarch64 programs do not write"
nodes=$(qemu "$root/usr/bin/stackfish" perft 4 | tail -n 1)
[ "$nodes" = "$("$native/stackfish" perft 4 | tail -n 1)" ] || fail "$deb: stackfish perft 4 printed '$nodes'"
echo "tests/aarch64: $(basename "$deb"): Architecture arm64, aarch64 binaries, their own $pages man pages and completions, perft 4: $nodes"
echo "tests/aarch64: ok in $(($(date +%s) - start)) s ($(($(date +%s) - built)) s after the build)"
