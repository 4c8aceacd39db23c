#!/usr/bin/env bash
# The Windows build under wine (docs/development.md, "Windows"): cross-builds
# stackfish.exe and arena.exe (x86_64-pc-windows-gnu, profile release) and runs
# them under Debian's wine64, comparing with the native Linux build:
#   - perft of every game's start, root moves and total, as the native binary;
#   - `bench` prints the native node count;
#   - a small Silo table built by stackfish.exe: the native checksum;
#   - UGI conversations through pipes with `\r\n` line ends, as a Windows
#     GUI sends them: handshake, position, `go nodes`, the native principal
#     variation and bestmove; in Mixtour, and in Silo answered from the
#     table;
#   - a 2-game arena.exe match between two stackfish.exe at a tiny node
#     limit, with records;
#   - arena.exe against an engine that never answers, started through
#     cmd.exe so that the hung process is a grandchild holding the pipes:
#     the games are lost on time and the grandchild is gone afterwards
#     (the engine's Job object was terminated).
# Needs gcc-mingw-w64-x86-64, wine64 and the rustup target (.ci/run
# installs them); a missing one is an error, never a skip.
#
# Wine 8.0 (Debian 12) lacks bcryptprimitives.dll, which Rust's standard
# library needs: tests/windows/shim.c, TEST-ONLY, is built beside the .exe
# files under test. It is never shipped.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
wine=${WINE64:-/usr/lib/wine/wine64}
wineserver=${WINESERVER:-/usr/lib/wine/wineserver64}
target=x86_64-pc-windows-gnu

fail() {
    echo "tests/windows: $*" >&2
    exit 1
}
command -v x86_64-w64-mingw32-gcc >/dev/null ||
    fail "x86_64-w64-mingw32-gcc not found (apt-get install gcc-mingw-w64-x86-64)"
[ -x "$wine" ] && [ -x "$wineserver" ] || fail "$wine or $wineserver not found (apt-get install wine64)"
rustup target list --installed | grep -qx "$target" ||
    fail "rustup target $target missing (rustup target add $target)"

start=$(date +%s)
# mingw's dlltool (binutils 2.40) hands the temporary folder rustc gives it,
# under the target folder, unquoted to `as`: in a checkout whose path has a
# space the Windows build fails there. Such a checkout builds the .exe
# files in a target folder of their own in the system's temp folder.
win_target=target
case $root in
*" "*) win_target=${TMPDIR:-/tmp}/stackfish-windows-target ;;
esac
case $win_target in
*" "*) fail "the Windows build needs a target folder whose path has no space (not $win_target)" ;;
esac
CARGO_TARGET_DIR=$win_target cargo build -q --target "$target" --release --bin stackfish --bin arena
[ -x target/release/stackfish ] || cargo build -q --release --bin stackfish
native=$root/target/release/stackfish

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$win_target/$target/release/stackfish.exe" "$win_target/$target/release/arena.exe" "$work/"
x86_64-w64-mingw32-gcc -shared -O2 -o "$work/bcryptprimitives.dll" \
    tests/windows/shim.c -ladvapi32
cd "$work"
export WINEDEBUG=-all
# A prefix of our own under target/, so that this test neither depends on
# nor disturbs the user's ~/.wine. Its first start creates it (about 25 s);
# later starts take a few seconds.
export WINEPREFIX=$root/target/wine-prefix
# A wine server started here, with no pipe of ours open, that outlives each
# program by 5 s: otherwise the first program of a `$(...)` would start it
# holding that pipe, and the substitution would wait for the server to end.
if [ ! -d "$WINEPREFIX" ]; then
    "$wine" wineboot.exe --init </dev/null >/dev/null 2>&1 || fail "cannot create $WINEPREFIX"
fi
"$wineserver" -w
"$wineserver" -p5 </dev/null >/dev/null 2>&1 || fail "cannot start $wineserver"
# The programs end lines in \n alone, but a console or wine may add \r:
# compare text without it.
win() { "$wine" "$@" | tr -d '\r'; }

win ./stackfish.exe perft 1 >/dev/null || fail "stackfish.exe does not start under wine"

for spec in mixtour:4 silo:10 coinstack:3 focus:3 castle:4; do
    game=${spec%%:*}
    depth=${spec#*:}
    want=$("$native" perft "$depth" --game "$game" --divide)
    got=$(win ./stackfish.exe perft "$depth" --game "$game" --divide)
    [ "$got" = "$want" ] || {
        diff <(echo "$want") <(echo "$got") | head >&2
        fail "perft $depth of $game differs from the native build"
    }
    echo "tests/windows: perft $depth $game: $(echo "$got" | tail -1)"
done

want=$("$native" bench 2>&1 | tail -1 | cut -d' ' -f1)
got=$(win ./stackfish.exe bench 2>&1 | tail -1 | cut -d' ' -f1)
[ "$got" = "$want" ] || fail "bench: $got nodes, the native build $want"
echo "tests/windows: bench $got nodes"

# A small Silo table (1 x 4 row, 4 + 4 checkers) built by stackfish.exe:
# the same entries as the native build's, then probed below (positioned
# reads, `seek_read` on Windows).
silo_fen="11/22/11/22 1"
mkdir tables
want=$("$native" solve --game silo --fen "$silo_fen" --write native.tbl | grep '^Checksum')
got=$(win ./stackfish.exe solve --game silo --fen "$silo_fen" --write tables/t.tbl | grep '^Checksum')
[ "$got" = "$want" ] || fail "Silo table: '$got', the native build '$want'"
echo "tests/windows: Silo table built, $got"

# One UGI conversation through pipes: each line sent ends in \r\n; each
# reply is waited for (60 s at most) before the next line goes out. $1 holds
# the lines between the handshake and `go nodes 3000`, one a line. Prints
# the principal variation of the last info line and the bestmove line.
converse() {
    local setup=$1 line out="" pv=""
    shift
    coproc ENGINE { "$@" 2>&1; }
    local to=${ENGINE[1]} from=${ENGINE[0]}
    expect() {
        while IFS= read -r -t 60 line <&"$from"; do
            line=${line%$'\r'}
            out+="$line"$'\n'
            [[ $line == info*" pv "* ]] && pv=${line#* pv }
            [[ $line == $1* ]] && return 0
        done
        fail "no '$1' from the engine; it said: $out"
    }
    printf 'ugi\r\n' >&"$to"
    expect ugiok
    grep -q '^id name stackfish' <<<"$out" || fail "no 'id name stackfish' in: $out"
    while IFS= read -r line; do
        printf '%s\r\n' "$line" >&"$to"
    done <<<"$setup"
    printf 'isready\r\n' >&"$to"
    expect readyok
    printf 'go nodes 3000\r\n' >&"$to"
    expect bestmove
    printf 'quit\r\n' >&"$to"
    wait "$ENGINE_PID" || fail "exit status $? after quit"
    echo "pv $pv; $line"
    if [[ $out == *"SiloTablePath: "* ]]; then
        grep '^info string SiloTablePath' <<<"$out"
    fi
}
mixtour="position startpos moves c3 b2"
silo="setoption name Game value silo
setoption name SiloTablePath value tables
position fen $silo_fen"
for setup in "$mixtour" "$silo"; do
    want=$(converse "$setup" "$native")
    got=$(converse "$setup" "$wine" ./stackfish.exe)
    [ "$got" = "$want" ] || fail "UGI after '${setup##*$'\n'}': '$got', the native build '$want'"
    echo "tests/windows: UGI transcript: $(tr '\n' ' ' <<<"$got")"
done
grep -q '1 table(s)' <<<"$got" || fail "the Silo table was not loaded: $got"

# A match of two stackfish.exe, found beside arena.exe by name.
win ./arena.exe --engine name=a cmd=stackfish nodes=300 \
    --engine name=b cmd=stackfish nodes=600 --games 2 --jsonl games.jsonl \
    --ratinginterval 0 >arena.out 2>arena.err ||
    fail "arena.exe exit $?: $(tr -d '\r' <arena.err)"
[ "$(wc -l <games.jsonl)" = 2 ] || fail "arena.exe wrote $(wc -l <games.jsonl) records, not 2"
grep -c '"result"' games.jsonl | grep -qx 2 || fail "records without a result: $(cat games.jsonl)"
[ "$(grep -c '^Finished game' arena.out)" = 2 ] || fail "arena.exe did not finish 2 games: $(cat arena.out)"
echo "tests/windows: arena.exe: 2 games, $(grep -o '"result":"[^"]*"' games.jsonl | tr '\n' ' ')"

# An engine that never says ugiok: cmd.exe running a long perft. The arena
# gives up after its startup timeout and terminates the engine's job, which
# must take the grandchild too (killing cmd.exe alone would leave it).
marker="perft 9 --game focus"
win ./arena.exe --engine name=a cmd=stackfish nodes=300 \
    --engine name=b cmd=cmd.exe "args=/c stackfish.exe $marker" nodes=300 \
    --games 2 --startup-timeout 2000 --ratinginterval 0 >hung.out 2>hung.err ||
    fail "arena.exe against a hung engine: exit $?: $(tr -d '\r' <hung.err)"
grep -q 'no ugiok within 2000 ms' hung.out || fail "no startup timeout reported: $(cat hung.out)"
sleep 1
if pgrep -f "stackfish.exe $marker" >/dev/null; then
    pgrep -f "stackfish.exe $marker" | xargs kill
    fail "the hung engine's grandchild outlived its job"
fi
echo "tests/windows: arena.exe killed a hung engine and its grandchild"

echo "tests/windows: passed in $(($(date +%s) - start)) s"
