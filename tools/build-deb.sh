#!/usr/bin/env bash
# Builds the Debian package of stackfish: the release binaries, the man
# pages and shell completions they generate, the shipped tournaments (and
# boards/ when the folder exists) staged for /usr/share/stackfish, then
# `cargo deb` with the asset list of Cargo.toml ([package.metadata.deb]).
#
#   tools/build-deb.sh            # prints the path of the .deb it wrote
#   tools/build-deb.sh --target aarch64-unknown-linux-gnu   # the arm64 one
#   tools/build-deb.sh --target aarch64-unknown-linux-gnu --profile release
#
# The last line on stdout is the path of the .deb (stackfish_<version>_<arch>.deb).
# --target cross-builds (the linker is set in .cargo/config.toml); the man
# pages and completions then come from the native build, which has the same
# command-line definitions and runs here. --profile picks the Cargo profile
# of the packaged binaries (default dist, what ships; CI's check takes
# release, which skips fat LTO).
# Needs cargo-deb: `cargo install cargo-deb --locked`.
# Install the result with `sudo apt install ./target/debian/stackfish_*.deb`.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
cargo deb --version >/dev/null 2>&1 || {
    echo "build-deb: cargo-deb is missing; install it with: cargo install cargo-deb --locked" >&2
    exit 1
}

command -v readelf >/dev/null && command -v dpkg-deb >/dev/null || {
    echo "build-deb: readelf or dpkg-deb is missing; install them with: apt-get install binutils dpkg" >&2
    exit 1
}

target=""
profile=dist
while [ $# -gt 0 ]; do
    case $1 in
    --target | --profile)
        [ $# -ge 2 ] && [ -n "$2" ] || { echo "build-deb: $1 needs a value" >&2; exit 2; }
        if [ "$1" = --target ]; then target=$2; else profile=$2; fi
        shift 2
        ;;
    *) echo "build-deb: unknown argument '$1' (usage: tools/build-deb.sh [--target <triple>] [--profile <name>])" >&2; exit 2 ;;
    esac
done
host=$(rustc -vV | sed -n 's/^host: //p')
[ -n "$target" ] || target=$host
case $target in
*-linux-gnu) ;;
*) echo "build-deb: a Debian package needs a Linux target (<arch>-unknown-linux-gnu), not $target" >&2; exit 2 ;;
esac
# Debian's name of the architecture: the package's file name ends in it.
case ${target%%-*} in
x86_64) arch=amd64 ;;
aarch64) arch=arm64 ;;
*) echo "build-deb: no Debian architecture known for the target $target" >&2; exit 2 ;;
esac
cross=()
if [ "$target" != "$host" ]; then
    cross=(--target "$target")
    rustup target list --installed 2>/dev/null | grep -qx "$target" || {
        echo "build-deb: the Rust target $target is missing; install it with: rustup target add $target" >&2
        exit 1
    }
    # Debian's cross toolchain, named after the GNU triple: the linker
    # .cargo/config.toml names and the target's C library.
    gnu=${target/-unknown-/-}
    command -v "$gnu-gcc" >/dev/null || {
        echo "build-deb: $gnu-gcc is missing; install it with: apt-get install gcc-$gnu libc6-dev-$arch-cross" >&2
        exit 1
    }
    [ -e "/usr/$gnu/lib/libc.so" ] || {
        echo "build-deb: /usr/$gnu/lib/libc.so is missing; install it with: apt-get install libc6-dev-$arch-cross" >&2
        exit 1
    }
fi

# The packaged binaries. Cross-built ones cannot run here, so the man pages
# and completions come from the native release build (same source, same
# command-line definitions; tests/aarch64/run.sh compares them).
tdir=${CARGO_TARGET_DIR:-target}
cargo build --profile "$profile" "${cross[@]}" --quiet --bin stackfish --bin arena
bin=$tdir/$profile
[ "$profile" != dev ] || bin=$tdir/debug
if [ ${#cross[@]} -gt 0 ]; then
    cargo build --release --quiet --bin stackfish --bin arena
    bin=$tdir/release
fi

# The asset paths in Cargo.toml name this folder.
assets=target/deb-assets
rm -rf "$assets"
mkdir -p "$assets/man" "$assets/completions" "$assets/share"
"$bin/stackfish" man --dir "$assets/man"
"$bin/arena" man --dir "$assets/man"
for b in stackfish arena; do
    "$bin/$b" completions bash >"$assets/completions/$b"
    "$bin/$b" completions zsh >"$assets/completions/_$b"
    "$bin/$b" completions fish >"$assets/completions/$b.fish"
done

# Data for /usr/share/stackfish: the files git knows in these folders (not
# match output lying around in a checkout), or all of them without git.
for dir in tournaments boards; do
    [ -d "$dir" ] || continue
    if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        git ls-files -z -- "$dir" ':!:*/.*' | xargs -0 -I{} cp --parents {} "$assets/share/"
    else
        find "$dir" -type f ! -path "$dir/out/*" ! -name '.*' -exec cp --parents {} "$assets/share/" \;
    fi
done

cargo deb --no-build --quiet "${cross[@]}" --profile "$profile" --output target/debian/ >&2
deb=$(ls -t target/debian/stackfish_*_"$arch".deb | head -n 1)

# Depends: what the packaged binaries really need, read from the symbol
# versions they import (`readelf -V`, which reads any architecture): libc6
# at the newest GLIBC_ version (libc and libm are both libc6), libgcc-s1 at
# the newest GCC_ one (the unwinder). cargo-deb's own answer ($auto) is
# dpkg-shlibdeps' natively, but across architectures the cross C library's
# version (2.36 in Debian 12's libc6-dev-arm64-cross, where the binaries
# need 2.34), which would shut out every older system for nothing.
packaged=$tdir/$profile
[ "$profile" != dev ] || packaged=$tdir/debug
[ ${#cross[@]} -eq 0 ] || packaged=$tdir/$target/${packaged#"$tdir"/}
newest() { # <prefix>: the newest <prefix>_x.y version the binaries import
    for b in stackfish arena; do readelf -V -W "$packaged/$b"; done |
        sed -n "s/^ *0x[0-9a-f]*: *Name: $1_\([0-9.]*\) .*/\1/p" | sort -V | tail -n 1
}
glibc=$(newest GLIBC)
[ -n "$glibc" ] || { echo "build-deb: readelf -V found no GLIBC_ version in $packaged/stackfish" >&2; exit 1; }
depends="libc6 (>= $glibc)"
gcc=$(newest GCC)
[ -z "$gcc" ] || depends+=", libgcc-s1 (>= $gcc)"
unpacked=$(mktemp -d)
trap 'rm -rf "$unpacked"' EXIT
dpkg-deb -R "$deb" "$unpacked"
control=$unpacked/DEBIAN/control
if grep -q '^Depends:' "$control"; then
    sed -i "s/^Depends: .*/Depends: $depends/" "$control"
else
    echo "Depends: $depends" >>"$control"
fi
dpkg-deb --root-owner-group -Zxz --build "$unpacked" "$deb" >&2
echo "build-deb: Depends: $depends" >&2
echo "$deb"
