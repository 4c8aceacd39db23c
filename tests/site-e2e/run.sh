#!/usr/bin/env bash
# The engine in WebAssembly, its JS API and the static site: builds the npm
# package and target/site with tools/build-site.sh, runs the package in
# Node (node-api.mjs; node-board.mjs, the board without a server) and in
# headless chromium (browser-api.mjs), each against the native release
# binary, then the static site in headless
# chromium served by python3 -m http.server (static.mjs; screenshots in
# target/site-e2e/). Needs Node 18+ and python3; installs Debian's
# chromium and librsvg2-bin (rsvg-convert, for the site's icons) and
# tests/web-e2e's playwright-core when missing, as tests/web-e2e/run.sh
# does. Exits non-zero on any failure.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
command -v node >/dev/null || { echo "site e2e: node is missing" >&2; exit 1; }
major=$(node -p 'process.versions.node.split(".")[0]')
[ "$major" -ge 18 ] || { echo "site e2e: node $major is older than 18" >&2; exit 1; }

command -v python3 >/dev/null || { echo "site e2e: python3 is missing" >&2; exit 1; }

missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
command -v rsvg-convert >/dev/null || missing+=(librsvg2-bin)
if [ ${#missing[@]} -gt 0 ]; then
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
fi
if [ ! -d "$root/tests/web-e2e/node_modules/playwright-core" ]; then
    (cd "$root/tests/web-e2e" && npm ci --no-audit --no-fund)
fi

(cd "$root" && cargo build --release -q --bin stackfish)
built=$(bash "$root/tools/build-site.sh" --profile release)
pkg=$(sed -n 1p <<<"$built")
site=$(sed -n 2p <<<"$built")
STACKFISH="$root/target/release/stackfish" node "$here/node-api.mjs" "$pkg"
STACKFISH="$root/target/release/stackfish" node "$here/browser-api.mjs" "$pkg"
STACKFISH="$root/target/release/stackfish" node "$here/node-board.mjs" "$pkg"
STACKFISH="$root/target/release/stackfish" node "$here/static.mjs" "$site" "$root/target/site-e2e"
