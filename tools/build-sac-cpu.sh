#!/usr/bin/env bash
# Builds stackfish as StackAndConquer CPU scripts (docs/stackandconquer.md,
# "stackfish as a StackAndConquer opponent"; protocol.md, "The
# StackAndConquer CPU script"): one plain JavaScript file each, the
# engine (crates/sac-cpu: Mixtour's rules, search and networks, nothing
# of the other games) compiled for wasm32-unknown-unknown and converted
# by binaryen's wasm2js, then the shim that speaks to the app.
#
#   tools/build-sac-cpu.sh [--profile P] [--level N]
#   tools/build-sac-cpu.sh --help     # this text
#
# Without --level: target/stackandconquer/StackfishCPU.js (level
# DEFAULT_LEVEL below) and StackfishCPU-Easy.js (level EASY_LEVEL); with
# --level N (1 to MAX_LEVEL): StackfishCPU-LevelN.js alone. Prints the
# files' paths, and their sizes (plain and gzip) on standard error.
#
# The cargo profile is dist (what ships: fat LTO) unless --profile says.
# Needs the wasm32-unknown-unknown target and Node with npm (every missing
# one is named at once, before anything is built); binaryen is
# the npm package pinned in tools/sac-cpu/package-lock.json, installed by
# `npm ci` into target/stackandconquer/tools/ (Debian 12's binaryen 108
# cannot convert the module).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
target=${CARGO_TARGET_DIR:-$root/target}

# The levels (the engine's Level, 1-20): the default takes about a second
# a move in the app's JS engine on a 2-core machine and never more than 5
# (docs/stackandconquer.md has the measurements); Easy is far weaker. Past
# MAX_LEVEL a move could take longer than 5 s.
DEFAULT_LEVEL=16
EASY_LEVEL=6
MAX_LEVEL=17

profile=dist
only_level=""
usage() { sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; }
while [ $# -gt 0 ]; do
    case $1 in
        -h | --help) usage; exit 0 ;;
        --profile) profile=${2:?--profile needs a cargo profile}; shift 2 ;;
        --level) only_level=${2:?--level needs a number}; shift 2 ;;
        *) echo "build-sac-cpu: unknown argument $1 (tools/build-sac-cpu.sh --help)" >&2; exit 2 ;;
    esac
done
if [ -n "$only_level" ] && ! { [[ $only_level =~ ^[0-9]+$ ]] && [ "$only_level" -ge 1 ] && [ "$only_level" -le "$MAX_LEVEL" ]; }; then
    echo "build-sac-cpu: --level $only_level: a level from 1 to $MAX_LEVEL (higher ones could think longer than 5 s a move)" >&2
    exit 2
fi

lacking=()
missing() { lacking+=("build-sac-cpu: $1 is missing; install it with: $2"); }
command -v cargo >/dev/null || missing cargo "rustup (https://rustup.rs)"
rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown ||
    missing "the Rust target wasm32-unknown-unknown" "rustup target add wasm32-unknown-unknown"
# binaryen runs on them.
command -v node >/dev/null || missing node "apt-get install nodejs"
command -v npm >/dev/null || missing npm "apt-get install npm"
if [ ${#lacking[@]} -gt 0 ]; then
    printf '%s\n' "${lacking[@]}" >&2
    exit 1
fi

out=$target/stackandconquer
tools=$out/tools
mkdir -p "$tools"
# binaryen, as pinned; installed again only when the lock file changed.
if ! cmp -s tools/sac-cpu/package-lock.json "$tools/package-lock.json" || [ ! -x "$tools/node_modules/.bin/wasm2js" ]; then
    cp tools/sac-cpu/package.json tools/sac-cpu/package-lock.json "$tools/"
    (cd "$tools" && npm ci --no-audit --no-fund --silent)
fi
bin=$tools/node_modules/.bin

# Without +simd128 (wasm2js converts no SIMD), in a target folder of its
# own so that it does not rebuild the site's SIMD build each time.
CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="" CARGO_TARGET_DIR="$out/cargo" \
    cargo build --profile "$profile" --quiet --target wasm32-unknown-unknown -p stackfish-sac-cpu
wasm=$out/cargo/wasm32-unknown-unknown/$profile/stackfish_sac_cpu.wasm

# The features Rust's wasm32 target emits by default, lowered to what
# wasm2js converts.
"$bin/wasm-opt" --enable-bulk-memory --enable-bulk-memory-opt --enable-nontrapping-float-to-int \
    --enable-sign-ext --enable-mutable-globals --enable-multivalue --enable-reference-types \
    --llvm-nontrapping-fptoint-lowering --signext-lowering --llvm-memory-copy-fill-lowering \
    "$wasm" -o "$out/engine.wasm"
"$bin/wasm2js" -O2 "$out/engine.wasm" -o "$out/engine.mjs"

# The ES module wasm2js writes, made a plain script: its code inside one
# function, stackfishModule(), that returns the exports of a fresh
# instance. The function table is declared at the top of asmFunc, before
# the functions that use it (QJSEngine warns of every use before it).
node - "$out/engine.mjs" "$out/engine.js" <<'EOF'
const fs = require("fs");
const [src, dst] = process.argv.slice(2);
let js = fs.readFileSync(src, "utf8");
const fail = (what) => {
    console.error(`build-sac-cpu: wasm2js's output has changed: ${what}`);
    process.exit(1);
};
if (/^\s*import\b/m.test(js)) fail("it imports something (the module should import nothing)");
const tail = js.indexOf("\nvar retasmFunc = asmFunc(");
if (tail < 0) fail("no 'var retasmFunc = asmFunc(' line");
js = js.slice(0, tail);
if (!/^ var FUNCTION_TABLE = /m.test(js)) fail("no ' var FUNCTION_TABLE = ' line");
js = js.replace(/^ var FUNCTION_TABLE = /m, " FUNCTION_TABLE = ");
if (!/^function asmFunc\(imports\) \{\n/m.test(js)) fail("no 'function asmFunc(imports) {' line");
js = js.replace(/^function asmFunc\(imports\) \{\n/m, "function asmFunc(imports) {\n var FUNCTION_TABLE;\n");
// Indentation only: wasm2js writes no multi-line strings.
js = js.split("\n").map((l) => l.replace(/^\s+/, "")).filter((l) => l !== "").join("\n");
fs.writeFileSync(dst, `function stackfishModule() {\n${js}\nreturn asmFunc({});\n}\n`);
EOF

version=$(sed -n '/^\[workspace.package\]/,/^\[/s/^version = "\(.*\)"/\1/p' Cargo.toml)
commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
# The strength label comes from the engine itself (sc_strength), so it
# names the nodes the level really searches.
strength() {
    node -e '
        const vm = require("vm");
        vm.runInThisContext(require("fs").readFileSync(process.argv[1], "utf8"));
        const e = stackfishModule();
        const len = e.sc_strength(Number(process.argv[2]));
        process.stdout.write(Buffer.from(e.memory.buffer, e.sc_out(), len).toString());
    ' "$out/engine.js" "$1"
}
script() { # script FILE-NAME LEVEL LABEL-SUFFIX
    local file="$out/$1" label
    label="$(strength "$2")$3"
    {
        sed -e "s|@NAME@|${1%.js}|" -e "s|@STRENGTH@|$label|" -e "s|@VERSION@|$version|" \
            -e "s|@COMMIT@|$commit|" crates/sac-cpu/js/header.js
        cat "$out/engine.js"
        sed "s|@LEVEL@|$2|" crates/sac-cpu/js/shim.js
    } >"$file.tmp"
    mv "$file.tmp" "$file"
    echo "build-sac-cpu: $file: $(stat -c %s "$file") bytes, $(gzip -9 -n -c "$file" | wc -c) gzipped ($label)" >&2
    echo "$file"
}
if [ -n "$only_level" ]; then
    script "StackfishCPU-Level$only_level.js" "$only_level" ""
else
    script StackfishCPU.js "$DEFAULT_LEVEL" ""
    script StackfishCPU-Easy.js "$EASY_LEVEL" ", easy"
fi
