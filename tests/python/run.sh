#!/usr/bin/env bash
# The Python package's tests (docs/python.md): a fresh virtual environment,
# the manylinux x86-64 wheel built from this checkout by
# tools/build-wheels.sh (maturin and zig; auditwheel checks its tag), the
# frameworks from PyPI, then pytest over python/tests; the sdist installed
# with pip into a second fresh environment; tests/python/smoke.py with the
# installed wheel on a baseline x86-64 CPU (`qemu-x86_64 -cpu qemu64`).
# Fails loudly when anything cannot be set up.
#
# The wheel is built in the release profile into the repository's target/
# (target/x86_64-unknown-linux-gnu/, as maturin names the target for zig).
# The exactness tests compare with target/release/stackfish, built here if
# missing.
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
# Pinned, so that a release on PyPI cannot change what CI tests; raise
# them on purpose (and in tools/build-wheels.sh's messages).
$pip install -q maturin==1.16.0 ziglang==0.17.1 auditwheel==6.8.2
# The frameworks download while the wheel compiles (open_spiel alone is
# some 70 MB installed).
$pip install -q pytest==9.2.0 numpy==2.4.6 pettingzoo==1.27.0 gymnasium==1.4.0 \
    open_spiel==2.0.2 >"$work/pip.log" 2>&1 &
frameworks=$!

cargo build --release --bin stackfish
# The venv's python3 first in PATH: maturin finds zig as `python3 -m ziglang`.
PATH="$work/venv/bin:$PATH" CARGO_TARGET_DIR="$root/target" \
    bash tools/build-wheels.sh --out "$work/wheels" --profile release --sdist x86_64 >"$work/built"
wheel=$(grep '\.whl$' "$work/built")
sdist=$(grep '\.tar\.gz$' "$work/built")
echo "tests/python: $(basename "$wheel") and $(basename "$sdist") built in $(( $(date +%s) - start )) s"
if ! wait "$frameworks"; then
    cat "$work/pip.log" >&2
    echo "tests/python: installing the frameworks from PyPI failed" >&2
    exit 1
fi
$pip install -q "$wheel"
echo "tests/python: set up in $(( $(date +%s) - start )) s"

# From another folder, so that the installed package is the one tested.
cd "$work"
STACKFISH_BIN="$root/target/release/stackfish" "$work/venv/bin/python" -m pytest -q -p no:cacheprovider "$root/python/tests"

# The wheel on a baseline x86-64 CPU (no SSE4, POPCNT, AVX or BMI): the
# build must choose its fast code at run time, never die of an illegal
# instruction.
if ! command -v qemu-x86_64 >/dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        apt-get update -q
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q qemu-user
    else
        echo "tests/python: qemu-x86_64 is missing; install Debian's qemu-user" >&2
        exit 1
    fi
fi
qemu-x86_64 -cpu qemu64 "$work/venv/bin/python" "$root/tests/python/smoke.py"

# The aarch64 wheel under qemu-aarch64, run by Debian's arm64 CPython:
# its packages fetched by an apt with a state folder of its own (the
# machine's apt setup is left as it is) and unpacked with dpkg -x into a
# root for `qemu-aarch64 -L`; the wheel unzipped beside it. Built in the
# release profile (no fat LTO): this checks the build and the tag, not speed.
# Not in CI by default (about 90 s more on 2 cores, and the CI run is near
# its 30 minutes; tests/aarch64/run.sh tests the same code under qemu):
# STACKFISH_TEST_ARM_WHEEL=1 runs it; tools/release.sh builds the wheel.
if [ "${STACKFISH_TEST_ARM_WHEEL:-0}" = 1 ]; then
    start=$(date +%s)
    rustup target list --installed | grep -qx aarch64-unknown-linux-gnu ||
        rustup target add aarch64-unknown-linux-gnu
    PATH="$work/venv/bin:$PATH" CARGO_TARGET_DIR="$root/target" \
        bash "$root/tools/build-wheels.sh" --out "$work/wheels" --profile release aarch64 >"$work/built-arm"
    arm=$work/arm64
    mkdir -p "$arm/state/lists/partial" "$arm/cache/archives/partial" "$arm/debs" "$arm/sysroot" "$arm/site"
    : >"$arm/status"
    sources=/etc/apt/sources.list
    [ -e "$sources" ] || sources=/dev/null
    apt_arm=(-q -o Dir::State="$arm/state" -o Dir::State::status="$arm/status" -o Dir::Cache="$arm/cache"
        -o Dir::Etc::SourceList="$sources" -o Dir::Etc::SourceParts=/etc/apt/sources.list.d
        -o APT::Architecture=arm64 -o APT::Architectures::=arm64 -o Debug::NoLocking=1
        -o APT::Sandbox::User=root)
    apt-get "${apt_arm[@]}" update >/dev/null
    # Debian's python3 names the CPython of the release (python3.11 in Debian 12).
    py=$(apt-cache "${apt_arm[@]}" depends python3-minimal | grep -o 'python3\.[0-9]*-minimal' | head -n 1)
    py=${py%-minimal}
    [ -n "$py" ] || { echo "tests/python: no arm64 python3-minimal in the apt sources" >&2; exit 1; }
    (cd "$arm/debs" && apt-get "${apt_arm[@]}" download libc6 libgcc-s1 zlib1g libexpat1 libffi8 \
        "$py-minimal" "lib$py-minimal" "lib$py-stdlib" >/dev/null)
    for deb in "$arm"/debs/*.deb; do dpkg -x "$deb" "$arm/sysroot"; done
    "$work/venv/bin/python" -m zipfile -e "$(cat "$work/built-arm")" "$arm/site"
    PYTHONHOME="$arm/sysroot/usr" PYTHONPATH="$arm/site" \
        qemu-aarch64 -L "$arm/sysroot" "$arm/sysroot/usr/bin/$py" "$root/tests/python/smoke.py"
    echo "tests/python: the aarch64 wheel built and ran under qemu-aarch64 in $(( $(date +%s) - start )) s"
else
    echo "tests/python: the aarch64 wheel under qemu-aarch64 not run (STACKFISH_TEST_ARM_WHEEL=1 runs it)"
fi

# The sdist, as pip builds it for a platform without a wheel: a fresh
# environment, the pinned maturin (no build isolation, so nothing unpinned
# comes from PyPI; --no-deps: the smoke script needs no NumPy), the dev profile (this checks that the sdist is whole and
# builds, not its speed; the release profile would cost minutes more).
start=$(date +%s)
"$python" -m venv "$work/sdist-venv"
"$work/sdist-venv/bin/python" -m pip install -q --upgrade pip
"$work/sdist-venv/bin/python" -m pip install -q maturin==1.16.0
PATH="$work/sdist-venv/bin:$PATH" MATURIN_PEP517_ARGS="--profile dev" \
    CARGO_TARGET_DIR="$root/target/sdist-check" CARGO_PROFILE_DEV_DEBUG=0 \
    "$work/sdist-venv/bin/python" -m pip install -q --no-build-isolation --no-deps "$sdist"
"$work/sdist-venv/bin/python" "$root/tests/python/smoke.py"
echo "tests/python: the sdist built and ran in $(( $(date +%s) - start )) s"
