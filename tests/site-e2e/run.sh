#!/usr/bin/env bash
# The engine in WebAssembly and its JS API: builds the npm package with
# tools/build-site.sh (the wasm32 build reuses CI's core build) and runs
# node-api.mjs against it and the native release binary. Needs Node 18+.
# Exits non-zero on any failure.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
command -v node >/dev/null || { echo "site e2e: node is missing" >&2; exit 1; }
major=$(node -p 'process.versions.node.split(".")[0]')
[ "$major" -ge 18 ] || { echo "site e2e: node $major is older than 18" >&2; exit 1; }

(cd "$root" && cargo build --release -q --bin stackfish)
pkg=$(bash "$root/tools/build-site.sh")
STACKFISH="$root/target/release/stackfish" node "$here/node-api.mjs" "$pkg"
