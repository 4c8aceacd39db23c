#!/usr/bin/env bash
# End-to-end test of `stackfish serve` in a real headless browser. Installs
# what it needs (Debian's chromium, playwright-core from npm into
# node_modules here), builds the release binary, serves on a free port,
# drives the page with e2e.mjs, and exits non-zero on any failure.
# Screenshots land in target/web-e2e/.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out="$root/target/web-e2e"
mkdir -p "$out"

if [ ! -x /usr/bin/chromium ]; then
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium
fi
if [ ! -d "$here/node_modules/playwright-core" ]; then
    (cd "$here" && npm ci --no-audit --no-fund)
fi

(cd "$root" && cargo build --release -q)

# Port 0: the server picks a free port and prints its URL.
log="$out/serve.log"
# Besides stackfish: an external UGI engine, and one that crashes at every
# first search of its process.
bin="$root/target/release"
"$bin/stackfish" serve --port 0 \
    --engine name=negamax cmd="$bin/negamax-engine" option.Depth=2 \
    --engine name=crasher cmd="$bin/mock-engine" args="--fault crash" \
    >"$log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true' EXIT

url=""
for _ in $(seq 100); do
    url=$(grep -o 'http://[0-9.:]*/' "$log" | head -n1 || true)
    [ -n "$url" ] && break
    if ! kill -0 "$server" 2>/dev/null; then
        echo "stackfish serve exited:" >&2
        cat "$log" >&2
        exit 1
    fi
    sleep 0.1
done
if [ -z "$url" ]; then
    echo "stackfish serve printed no URL:" >&2
    cat "$log" >&2
    exit 1
fi

echo "web e2e: $url"
node "$here/e2e.mjs" "$url" "$out"
echo "web e2e: screenshots in $out"
