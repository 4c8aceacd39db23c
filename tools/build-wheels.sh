#!/usr/bin/env bash
# Builds the Python package's wheels that PyPI accepts, and its sdist:
# abi3 (one wheel for CPython 3.9 and later) for manylinux2014
# (glibc 2.17) on x86-64 and aarch64, linked by zig against glibc 2.17's
# symbols so that no newer symbol version slips in, each checked with
# `auditwheel show` (its tag, and no shared library outside the manylinux
# list); the sdist with `maturin sdist`.
#
#   tools/build-wheels.sh [--out DIR] [--profile P] [--sdist] [--no-wheels] [x86_64] [aarch64]
#   tools/build-wheels.sh --help     # this text
#
# With no architecture named it builds both; --sdist adds the sdist,
# --no-wheels builds only that. The cargo profile is dist (what ships: fat
# LTO) unless --profile names another (CI's aarch64 check takes release).
# Writes into DIR (default target/wheels) and prints each file's path, one
# a line, on stdout; progress goes to stderr.
#
# Needs maturin, zig and auditwheel, all from PyPI:
#   pip install maturin==1.16.0 ziglang==0.17.1 auditwheel==6.8.2
# and the rustup target of each architecture built
# (`rustup target add aarch64-unknown-linux-gnu`); every missing one is
# named at once, before anything is built. MATURIN and AUDITWHEEL name
# other commands for them. Honours SOURCE_DATE_EPOCH (the wheel's
# file times) and the CARGO_TARGET_<TRIPLE>_RUSTFLAGS that tools/release.sh
# sets.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

out=target/wheels
profile=dist
sdist=false
wheels=true
arches=()
usage() { sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; }
while [ $# -gt 0 ]; do
    case $1 in
        -h | --help) usage; exit 0 ;;
        --out) out=${2:?--out needs a folder}; shift 2 ;;
        --profile) profile=${2:?--profile needs a cargo profile}; shift 2 ;;
        --sdist) sdist=true; shift ;;
        --no-wheels) wheels=false; shift ;;
        x86_64 | aarch64) arches+=("$1"); shift ;;
        *) echo "build-wheels: unknown argument $1 (tools/build-wheels.sh --help)" >&2; exit 2 ;;
    esac
done
$wheels || arches=()
$wheels && [ ${#arches[@]} -eq 0 ] && arches=(x86_64 aarch64)

maturin=${MATURIN:-maturin}
auditwheel=${AUDITWHEEL:-auditwheel}
lacking=()
missing() { lacking+=("build-wheels: $1 is missing; install it with: $2"); }
"$maturin" --version >/dev/null 2>&1 || missing maturin "pip install maturin==1.16.0"
if [ ${#arches[@]} -gt 0 ]; then
    # maturin runs zig from PATH, else `python3 -m ziglang` (the PyPI package).
    command -v zig >/dev/null || python3 -m ziglang version >/dev/null 2>&1 ||
        missing zig "pip install ziglang==0.17.1"
    "$auditwheel" --version >/dev/null 2>&1 || missing auditwheel "pip install auditwheel==6.8.2"
    installed=$(rustup target list --installed 2>/dev/null || true)
    for arch in "${arches[@]}"; do
        grep -qx "$arch-unknown-linux-gnu" <<<"$installed" ||
            missing "the Rust target $arch-unknown-linux-gnu" "rustup target add $arch-unknown-linux-gnu"
    done
fi
if [ ${#lacking[@]} -gt 0 ]; then
    printf '%s\n' "${lacking[@]}" >&2
    exit 1
fi

mkdir -p "$out"
out=$(cd "$out" && pwd)
for arch in "${arches[@]}"; do
    # A folder of its own, so that the wheel of this build is the one found.
    tmp=$(mktemp -d "$out/.build-$arch.XXXXXX")
    # zig links against glibc 2.17; a linker named in the environment (a
    # cross gcc, against Debian's glibc 2.36) would win over it and give a
    # wheel that is not manylinux2014.
    linker_var=CARGO_TARGET_${arch^^}_UNKNOWN_LINUX_GNU_LINKER
    env -u "$linker_var" \
        "$maturin" build --profile "$profile" --quiet -m python/Cargo.toml --zig \
        --compatibility manylinux2014 --target "$arch-unknown-linux-gnu" -o "$tmp" >&2
    wheel=$(ls "$tmp"/stackfish-*.whl)
    # auditwheel names the one tag the wheel's libraries and symbol
    # versions allow; a shared library outside the manylinux list, or a
    # glibc symbol newer than 2.17, gives a later tag or linux_<arch>.
    report=$("$auditwheel" show "$wheel" 2>&1) || {
        echo "$report" >&2
        echo "build-wheels: auditwheel cannot read $wheel" >&2
        exit 1
    }
    if ! tr -s ' \n' ' ' <<<"$report" | grep -qF "consistent with the following platform tag: \"manylinux_2_17_$arch\""; then
        echo "$report" >&2
        echo "build-wheels: $(basename "$wheel") is not manylinux_2_17_$arch (auditwheel's report above)" >&2
        exit 1
    fi
    case $(basename "$wheel") in
        *-cp39-abi3-manylinux2014_"$arch".manylinux_2_17_"$arch".whl) ;;
        *) echo "build-wheels: unexpected wheel name $(basename "$wheel")" >&2; exit 1 ;;
    esac
    mv -f "$wheel" "$out/"
    rm -rf "$tmp"
    echo "build-wheels: $(basename "$wheel") is manylinux_2_17_$arch (auditwheel show)" >&2
    echo "$out/$(basename "$wheel")"
done

if $sdist; then
    tmp=$(mktemp -d "$out/.build-sdist.XXXXXX")
    "$maturin" sdist -m python/Cargo.toml -o "$tmp" >&2
    file=$(ls "$tmp"/stackfish-*.tar.gz)
    mv -f "$file" "$out/"
    rm -rf "$tmp"
    echo "$out/$(basename "$file")"
fi
