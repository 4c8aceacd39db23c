#!/usr/bin/env bash
# Checks a built Debian package as installed: unpacks it into a temporary
# root with `dpkg -x` and runs what it put there. Exits non-zero, saying
# what is wrong, on the first failure.
#
#   tests/deb/check.sh target/debian/stackfish_<version>-1_<arch>.deb
set -euo pipefail
deb=${1:?usage: tests/deb/check.sh <package.deb>}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
root=$(mktemp -d)
server=""
cleanup() {
    if [ -n "$server" ]; then
        kill "$server" 2>/dev/null || true
        wait "$server" 2>/dev/null || true
    fi
    rm -rf "$root"
}
trap cleanup EXIT
fail() {
    echo "deb check: $*" >&2
    exit 1
}

dpkg -x "$deb" "$root"
echo "deb check: $(basename "$deb") unpacked into $root"
bash "$here/depends.sh" "$deb"

# The layout: both binaries and nothing else in usr/bin, a page per
# command, completions for three shells, the desktop entry, the licence,
# the shipped tournaments (and boards, when the source has them).
for f in usr/bin/stackfish usr/bin/arena; do
    [ -x "$root/$f" ] || fail "$f missing or not executable"
done
extra=$(ls "$root/usr/bin" | grep -v -x -e stackfish -e arena || true)
[ -z "$extra" ] || fail "unexpected programs in usr/bin: $extra"
for f in usr/share/man/man1/stackfish.1.gz usr/share/man/man1/stackfish-perft.1.gz \
    usr/share/man/man1/stackfish-serve.1.gz usr/share/man/man1/arena.1.gz \
    usr/share/man/man1/arena-merge.1.gz \
    usr/share/bash-completion/completions/stackfish usr/share/bash-completion/completions/arena \
    usr/share/zsh/vendor-completions/_stackfish usr/share/zsh/vendor-completions/_arena \
    usr/share/fish/vendor_completions.d/stackfish.fish usr/share/fish/vendor_completions.d/arena.fish \
    usr/share/applications/stackfish.desktop usr/share/icons/hicolor/scalable/apps/stackfish.svg \
    usr/share/doc/stackfish/copyright usr/share/doc/stackfish/protocol.md \
    usr/share/doc/stackfish/docs/rules/mixtour.md \
    usr/share/stackfish/tournaments/default.json usr/share/stackfish/tournaments/openings-mixtour.txt; do
    [ -s "$root/$f" ] || fail "$f missing or empty"
done
grep -q "GNU GENERAL PUBLIC LICENSE" "$root/usr/share/doc/stackfish/copyright" || fail "copyright has no licence text"
grep -q -x "Exec=stackfish serve --open" "$root/usr/share/applications/stackfish.desktop" || fail "desktop entry does not run the board"
if [ -d "$repo/boards" ] && [ -n "$(cd "$repo" && git ls-files boards 2>/dev/null)" ]; then
    [ -d "$root/usr/share/stackfish/boards" ] || fail "boards/ is in the source but not in the package"
fi

# The programs, as installed.
sf=$root/usr/bin/stackfish
nodes=$("$sf" perft 5 | tail -n1)
[ "$nodes" = "Nodes searched: 7883472" ] || fail "stackfish perft 5 printed '$nodes'"
echo "deb check: stackfish perft 5: $nodes"
"$root/usr/bin/arena" --help | grep -q "Usage: arena" || fail "arena --help"
# The demo config is found under usr/share/stackfish, and the engine next
# to the arena: two games of the demo match.
demo=$(cd "$root" && "$root/usr/bin/arena" --games 2 --concurrency 1 2>&1) || fail "arena demo: $demo"
echo "$demo" | grep -q "^Finished game 2 " || fail "arena demo played no games: $demo"
echo "deb check: arena --help, and two games of the installed demo config"

log=$root/serve.log
"$sf" serve --port 0 >"$log" 2>&1 &
server=$!
url=""
for _ in $(seq 100); do
    url=$(grep -o 'http://[0-9.:]*/' "$log" | head -n1 || true)
    [ -n "$url" ] && break
    kill -0 "$server" 2>/dev/null || fail "stackfish serve exited: $(cat "$log")"
    sleep 0.1
done
[ -n "$url" ] || fail "stackfish serve printed no address: $(cat "$log")"
page=$(curl -sS --max-time 10 "$url") || fail "no answer from $url"
echo "$page" | grep -q "<title>" || fail "$url answered without the page"
echo "deb check: stackfish serve answered its page at $url"

man -l "$root/usr/share/man/man1/stackfish-perft.1.gz" 2>&1 | grep -q "divide" || fail "man -l stackfish-perft.1.gz"
echo "deb check: man -l renders stackfish-perft(1)"
echo "deb check: ok"
