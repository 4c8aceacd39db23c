#!/usr/bin/env bash
# Builds the Debian package of stackfish: the release binaries, the man
# pages and shell completions they generate, the shipped tournaments (and
# boards/ when the folder exists) staged for /usr/share/stackfish, then
# `cargo deb` with the asset list of Cargo.toml ([package.metadata.deb]).
#
#   tools/build-deb.sh            # prints the path of the .deb it wrote
#   tools/build-deb.sh --target aarch64-unknown-linux-gnu   # the arm64 one
#   tools/build-deb.sh --target aarch64-unknown-linux-gnu --profile release
#   tools/build-deb.sh --help     # this text
#
# The last line on stdout is the path of the .deb,
# target/debian/stackfish_<version>-1_<arch>.deb (cargo-deb's name: -1 is
# the Debian revision).
# --target cross-builds (the linker is set in .cargo/config.toml); the man
# pages and completions then come from the native build of the same
# profile, which has the same command-line definitions and runs here.
# --profile picks the Cargo profile of the packaged binaries (default dist,
# what ships; CI's check takes release, which skips fat LTO).
# Needs cargo-deb (`cargo install cargo-deb --locked`), readelf and
# dpkg-deb, and for --target the rustup target and Debian's cross gcc and C
# library; every missing one is named at once, before anything is built.
# Install the result with `sudo apt install ./target/debian/stackfish_*.deb`.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

target=""
profile=dist
usage() { sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; }
while [ $# -gt 0 ]; do
    case $1 in
    -h | --help) usage; exit 0 ;;
    --target | --profile)
        [ $# -ge 2 ] && [ -n "$2" ] || { echo "build-deb: $1 needs a value" >&2; exit 2; }
        if [ "$1" = --target ]; then target=$2; else profile=$2; fi
        shift 2
        ;;
    *) echo "build-deb: unknown argument '$1' (tools/build-deb.sh --help)" >&2; exit 2 ;;
    esac
done

lacking=()
missing() { lacking+=("build-deb: $1 is missing; install it with: $2"); }
stop_if_missing() {
    [ ${#lacking[@]} -eq 0 ] && return
    printf '%s\n' "${lacking[@]}" >&2
    exit 1
}
command -v cargo >/dev/null && command -v rustc >/dev/null ||
    missing "the Rust toolchain (cargo, rustc)" "rustup (https://rustup.rs)"
cargo deb --version >/dev/null 2>&1 || missing cargo-deb "cargo install cargo-deb --locked"
command -v readelf >/dev/null || missing readelf "apt-get install binutils"
command -v dpkg-deb >/dev/null || missing dpkg-deb "apt-get install dpkg"
host=$(rustc -vV 2>/dev/null | sed -n 's/^host: //p' || true)
# Without rustc there is no host to compare a target with.
[ -n "$host" ] || stop_if_missing
[ -n "$target" ] || target=$host
case $target in
*-linux-gnu) ;;
*) echo "build-deb: a Debian package needs a Linux target (<arch>-unknown-linux-gnu), not '$target'" >&2; exit 2 ;;
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
    rustup target list --installed 2>/dev/null | grep -qx "$target" ||
        missing "the Rust target $target" "rustup target add $target"
    # Debian's cross toolchain, named after the GNU triple: the linker
    # .cargo/config.toml names and the target's C library.
    gnu=${target/-unknown-/-}
    # The cross gcc names the target's libc.so when it has it, else echoes
    # the bare name.
    if ! command -v "$gnu-gcc" >/dev/null; then
        missing "$gnu-gcc" "apt-get install gcc-$gnu libc6-dev-$arch-cross"
    elif [[ $("$gnu-gcc" -print-file-name=libc.so 2>/dev/null) != /* ]]; then
        missing "the $arch C library for cross-linking" "apt-get install libc6-dev-$arch-cross"
    fi
fi
stop_if_missing

# The packaged binaries. Cross-built ones cannot run here, so the man pages
# and completions come from the native build of the same profile (same
# source, same command-line definitions; tests/aarch64/run.sh compares
# them), which tools/release.sh has built already.
tdir=${CARGO_TARGET_DIR:-target}
cargo build --profile "$profile" "${cross[@]}" --quiet --bin stackfish --bin arena
bin=$tdir/$profile
[ "$profile" != dev ] || bin=$tdir/debug
if [ ${#cross[@]} -gt 0 ]; then
    cargo build --profile "$profile" --quiet --bin stackfish --bin arena
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
