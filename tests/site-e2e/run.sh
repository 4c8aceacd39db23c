#!/usr/bin/env bash
# The engine in WebAssembly and its JS API: builds the npm package with
# tools/build-site.sh and runs it in Node (node-api.mjs; node-board.mjs, the
# board without a server) and in headless chromium (browser-api.mjs), each
# against the native release binary.
# Needs Node 18+; installs Debian's chromium and tests/web-e2e's
# playwright-core when missing, as tests/web-e2e/run.sh does. Exits
# non-zero on any failure.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
command -v node >/dev/null || { echo "site e2e: node is missing" >&2; exit 1; }
major=$(node -p 'process.versions.node.split(".")[0]')
[ "$major" -ge 18 ] || { echo "site e2e: node $major is older than 18" >&2; exit 1; }

if [ ! -x /usr/bin/chromium ]; then
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium
fi
if [ ! -d "$root/tests/web-e2e/node_modules/playwright-core" ]; then
    (cd "$root/tests/web-e2e" && npm ci --no-audit --no-fund)
fi

(cd "$root" && cargo build --release -q --bin stackfish)
pkg=$(bash "$root/tools/build-site.sh")
STACKFISH="$root/target/release/stackfish" node "$here/node-api.mjs" "$pkg"
STACKFISH="$root/target/release/stackfish" node "$here/browser-api.mjs" "$pkg"
STACKFISH="$root/target/release/stackfish" node "$here/node-board.mjs" "$pkg"
