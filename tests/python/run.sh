#!/usr/bin/env bash
# The Python package's tests (docs/python.md): a fresh virtual environment,
# the wheel built from this checkout with maturin, the frameworks from PyPI,
# then pytest over python/tests. Fails loudly when anything cannot be set up.
#
# The wheel is built in the release profile into the repository's target/,
# so the core crates compiled by `cargo build --release` are reused where
# their features agree. The exactness tests compare with
# target/release/stackfish, built here if missing.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
python=${PYTHON:-python3}
if ! command -v "$python" >/dev/null && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3 python3-venv
fi
command -v "$python" >/dev/null || { echo "tests/python: $python not found" >&2; exit 1; }
"$python" -c 'import sys; assert sys.version_info >= (3, 9), sys.version' ||
    { echo "tests/python: Python 3.9 or later is needed" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if ! "$python" -m venv "$work/venv"; then
    # Debian's python3 lacks venv until python3-venv is installed.
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        apt-get update -q
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-venv
        "$python" -m venv "$work/venv"
    else
        echo "tests/python: cannot create a virtual environment" >&2
        exit 1
    fi
fi
pip="$work/venv/bin/python -m pip"
start=$(date +%s)
$pip install -q --upgrade pip
$pip install -q maturin
# The frameworks download while the wheel compiles (open_spiel alone is
# some 70 MB installed).
$pip install -q pytest numpy pettingzoo gymnasium open_spiel >"$work/pip.log" 2>&1 &
frameworks=$!

cargo build --release --bin stackfish
CARGO_TARGET_DIR="$root/target" "$work/venv/bin/maturin" build --release \
    -m python/Cargo.toml -o "$work/wheels"
echo "tests/python: wheel built in $(( $(date +%s) - start )) s"
if ! wait "$frameworks"; then
    cat "$work/pip.log" >&2
    echo "tests/python: installing the frameworks from PyPI failed" >&2
    exit 1
fi
$pip install -q "$work"/wheels/stackfish-*.whl
echo "tests/python: set up in $(( $(date +%s) - start )) s"

# From another folder, so that the installed package is the one tested.
cd "$work"
STACKFISH_BIN="$root/target/release/stackfish" "$work/venv/bin/python" -m pytest -q -p no:cacheprovider "$root/python/tests"
