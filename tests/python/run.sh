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
$pip install -q --upgrade pip
$pip install -q maturin pytest numpy pettingzoo gymnasium open_spiel

start=$(date +%s)
cargo build --release --bin stackfish
CARGO_TARGET_DIR="$root/target" "$work/venv/bin/maturin" build --release \
    -m python/Cargo.toml -o "$work/wheels"
$pip install -q "$work"/wheels/stackfish-*.whl
echo "tests/python: wheel built and installed in $(( $(date +%s) - start )) s"

# From another folder, so that the installed package is the one tested.
cd "$work"
STACKFISH_BIN="$root/target/release/stackfish" "$work/venv/bin/python" -m pytest -q -p no:cacheprovider "$root/python/tests"
