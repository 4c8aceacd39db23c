#!/usr/bin/env bash
# Builds the engine as WebAssembly and stages
# - the npm package target/npm/stackfish/ (package.json, stackfish.js,
#   stackfish-worker.js, board.js, stackfish.wasm, README.md), ready for `npm pack`
#   or `npm publish` as it is;
# - the static site target/site/: the board page (the files stackfish
#   serve sends, index.html told to use the board in the page), the engine
#   and board.js, a web app manifest with its icons and a service worker
#   that caches every file for offline use. Any static file server serves
#   it, under any path: `python3 -m http.server -d target/site`.
#
#   tools/build-site.sh [--profile P]   # prints the package's folder, then the site's
#   tools/build-site.sh --rustflags     # prints the flags it builds the wasm with
#   tools/build-site.sh --help          # this text
#
# The cargo profile is dist (what ships: fat LTO) unless --profile names
# another (the tests take release, which builds faster).
#
# Needs the Rust toolchain with the wasm32-unknown-unknown target
# (`rustup target add wasm32-unknown-unknown`) and, for the site's PNG
# icons, rsvg-convert (`apt-get install librsvg2-bin`); every missing one is
# named at once, before anything is built. No other tool: the .wasm has a
# hand-written ABI (protocol.md, "The engine in WebAssembly"), so no
# generated glue.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
target=${CARGO_TARGET_DIR:-$root/target}
profile=dist
# 128-bit SIMD (every browser since 2023, Node 16.4+): the network's
# sums vectorise, some 10-20% more nodes per second than without.
# A copy of a known length up to 32 stores (a game's position: Castle's is
# 176 bytes) is loads and stores, where LLVM would otherwise emit
# `memory.copy` above 48 bytes, which V8 before 12 (Node 20) compiles to a
# call out of the compiled code, and its spills, at every node.
wasm_flags="-C target-feature=+simd128 -C llvm-args=--max-store-memcpy=32"
usage() { sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; }
while [ $# -gt 0 ]; do
    case $1 in
        -h | --help) usage; exit 0 ;;
        --rustflags) echo "$wasm_flags"; exit 0 ;;
        --profile) profile=${2:?--profile needs a cargo profile}; shift 2 ;;
        *) echo "build-site: unknown argument $1 (tools/build-site.sh --help)" >&2; exit 2 ;;
    esac
done
lacking=()
missing() { lacking+=("build-site: $1 is missing; install it with: $2"); }
command -v cargo >/dev/null || missing cargo "rustup (https://rustup.rs)"
rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown ||
    missing "the Rust target wasm32-unknown-unknown" "rustup target add wasm32-unknown-unknown"
command -v rsvg-convert >/dev/null || missing "rsvg-convert (it draws the site's icons)" "apt-get install librsvg2-bin"
if [ ${#lacking[@]} -gt 0 ]; then
    printf '%s\n' "${lacking[@]}" >&2
    exit 1
fi

# The caller's flags for the target come after ours (tools/release.sh
# remaps paths with them).
flags=${CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS:-}
CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="$wasm_flags${flags:+ $flags}" \
    cargo build --profile "$profile" --quiet --target wasm32-unknown-unknown -p stackfish-wasm
wasm="$target/wasm32-unknown-unknown/$profile/stackfish_wasm.wasm"

pkg="$target/npm/stackfish"
rm -rf "$pkg"
mkdir -p "$pkg"
cp crates/wasm/js/stackfish.js crates/wasm/js/stackfish-worker.js crates/wasm/js/board.js \
    crates/wasm/js/package.json crates/wasm/js/README.md "$pkg/"
cp "$wasm" "$pkg/stackfish.wasm"

site="$target/site"
rm -rf "$site"
mkdir -p "$site"
web=crates/web/src
backend='<meta name="stackfish-backend" content="http">'
grep -qF "$backend" "$web/page.html" || {
    echo "build-site: $web/page.html has no line $backend" >&2
    exit 1
}
# The page, told to use the board in the page; the manifest and icons make
# it installable as an app.
sed "s|$backend|<meta name=\"stackfish-backend\" content=\"local\">\\
<link rel=\"manifest\" href=\"manifest.webmanifest\">\\
<meta name=\"theme-color\" content=\"#3b2f1e\">\\
<link rel=\"apple-touch-icon\" href=\"icon-192.png\">|" "$web/page.html" >"$site/index.html"
cp "$web"/*.js "$web/page.css" crates/web/site/manifest.webmanifest "$site/"
cp "$pkg/stackfish.js" "$pkg/stackfish-worker.js" "$pkg/board.js" "$pkg/stackfish.wasm" "$site/"
cp packaging/stackfish.svg "$site/icon.svg"
for px in 192 512; do
    rsvg-convert -w "$px" -h "$px" packaging/stackfish.svg -o "$site/icon-$px.png"
done
# The service worker caches every file under a name that is a hash of
# them all: a new build gets a new cache, the old one is dropped.
files=$(cd "$site" && ls | LC_ALL=C sort)
hash=$(cd "$site" && cat $files | sha256sum | cut -c1-16)
list=$(printf '"./"'; for f in $files; do printf ', "%s"' "$f"; done)
sed -e "s|@HASH@|$hash|" -e "s|@FILES@|$list|" crates/web/site/sw.js >"$site/sw.js"
echo "build-site: $site is $(tar czf - -C "$site" . | wc -c) bytes gzipped" >&2

echo "$pkg"
echo "$site"
