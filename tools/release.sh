#!/usr/bin/env bash
# Builds every release artifact of this checkout into one folder,
# target/release-<version>/ (docs/development.md, "Releases"):
#   stackfish-<v>-x86_64-linux.tar.gz, stackfish-<v>-aarch64-linux.tar.gz
#       stackfish and arena, man pages, completions, desktop entry, data and
#       docs in a /usr/local-style tree (bin/, share/)
#   stackfish_<v>-1_amd64.deb, stackfish_<v>-1_arm64.deb  (tools/build-deb.sh)
#   stackfish-<v>-x86_64-windows.zip                    stackfish.exe, arena.exe, docs
#   stackfish-<v>-cp39-abi3-manylinux2014_{x86_64,aarch64}...whl, stackfish-<v>.tar.gz
#                                                       (tools/build-wheels.sh)
#   stackfish-<v>.tgz                                   the npm package (`npm pack`)
#   stackfish-<v>-site.zip                              the static site (tools/build-site.sh)
#   StackfishCPU.js, StackfishCPU-Easy.js               StackAndConquer CPU scripts (tools/build-sac-cpu.sh)
#   SHA256SUMS
#
#   tools/release.sh [--out DIR] [--only PART,...] [--profile P]
#   tools/release.sh --help                             # this text
#
# PART is one of linux-x86_64 linux-aarch64 windows python npm site
# stackandconquer; with --only the folder is called
# release-<version>-partial, so that it is never taken for a full release. Everything is built in the cargo profile `dist`
# (fat LTO, one codegen unit: what ships) unless --profile names another;
# the folder is then called release-<version>-<profile>.
#
# Every tool every part needs is checked before anything is built: each
# missing one gives a line naming the command that installs it, all in one
# message, exit 1 (docs/development.md gives one command that installs them
# all on Debian 12). The folder is built as DIR.incomplete-<pid> and renamed
# to DIR only when every artifact and SHA256SUMS are in it; a failure
# removes it.
#
# Reproducible: SOURCE_DATE_EPOCH (default: the commit's time) fixes every
# time stamp, paths are remapped out of the binaries, archives are sorted
# with fixed owner, mode and time, gzip -n. The builds go into target/dist
# (RELEASE_TARGET_DIR overrides), away from the contributors' target/release.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

all_parts="linux-x86_64 linux-aarch64 windows python npm site stackandconquer"
parts=$all_parts
out=""
profile=dist
usage() { sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; }
while [ $# -gt 0 ]; do
    case $1 in
        -h | --help) usage; exit 0 ;;
        --out) out=${2:?--out needs a folder}; shift 2 ;;
        --profile) profile=${2:?--profile needs a cargo profile}; shift 2 ;;
        --only)
            parts=$(tr ',' ' ' <<<"${2:?--only needs a list of parts}")
            for p in $parts; do
                grep -qw -- "$p" <<<"$all_parts" || {
                    echo "release: unknown part $p (one of: $all_parts)" >&2
                    exit 2
                }
            done
            shift 2 ;;
        *) echo "release: unknown argument $1 (tools/release.sh --help)" >&2; exit 2 ;;
    esac
done
want() { grep -qw -- "$1" <<<"$parts"; }

version=$(sed -n '/^\[workspace.package\]/,/^\[/s/^version = "\(.*\)"/\1/p' Cargo.toml)
[ -n "$version" ] || { echo "release: no version in Cargo.toml's [workspace.package]" >&2; exit 1; }
if [ -z "$out" ]; then
    out=target/release-$version
    [ "$parts" = "$all_parts" ] || out=$out-partial
    [ "$profile" = dist ] || out=$out-$profile
fi

# -- the tools, all checked before anything is built ------------------------
# One block per part (a new part adds its own); `missing` keeps one line per
# tool however many parts need it, and all of them are printed at the end.
lacking=()
missing() { # missing WHAT COMMAND-THAT-INSTALLS-IT
    local line="release: $1 is missing; install it with: $2" l
    for l in "${lacking[@]}"; do [ "$l" != "$line" ] || return 0; done
    lacking+=("$line")
}
have() { command -v "$1" >/dev/null 2>&1; }
have cargo || missing cargo "rustup (https://rustup.rs)"
have rustup || missing rustup "the installer from https://rustup.rs"
have git || missing git "apt-get install git"
have sha256sum || missing sha256sum "apt-get install coreutils"
have gzip || missing gzip "apt-get install gzip"
tar --sort=name --version >/dev/null 2>&1 || missing "GNU tar 1.28 or later" "apt-get install tar"
targets=$(rustup target list --installed 2>/dev/null || true)
need_target() { grep -qx "$1" <<<"$targets" || missing "the Rust target $1" "rustup target add $1"; }
if want linux-x86_64 || want linux-aarch64; then
    cargo deb --version >/dev/null 2>&1 || missing cargo-deb "cargo install cargo-deb --locked"
    # tools/build-deb.sh reads the binaries' symbol versions and rewrites the package.
    have readelf || missing readelf "apt-get install binutils"
    have dpkg-deb || missing dpkg-deb "apt-get install dpkg"
fi
if want linux-aarch64; then
    need_target aarch64-unknown-linux-gnu
    # The cross gcc links against the arm64 C library; it names the file
    # when it has it (-print-file-name), else echoes the bare name.
    if ! have aarch64-linux-gnu-gcc; then
        missing aarch64-linux-gnu-gcc "apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross"
    elif [[ $(aarch64-linux-gnu-gcc -print-file-name=libc.so 2>/dev/null) != /* ]]; then
        missing "the arm64 C library for cross-linking" "apt-get install libc6-dev-arm64-cross"
    fi
fi
if want windows; then
    need_target x86_64-pc-windows-gnu
    have x86_64-w64-mingw32-gcc || missing x86_64-w64-mingw32-gcc "apt-get install gcc-mingw-w64-x86-64"
    have zip || missing zip "apt-get install zip"
fi
if want python; then
    need_target x86_64-unknown-linux-gnu
    need_target aarch64-unknown-linux-gnu
    have "${MATURIN:-maturin}" || missing maturin "pip install maturin==1.16.0"
    have zig || python3 -m ziglang version >/dev/null 2>&1 || missing zig "pip install ziglang==0.17.1"
    have "${AUDITWHEEL:-auditwheel}" || missing auditwheel "pip install auditwheel==6.8.2"
fi
if want npm; then
    need_target wasm32-unknown-unknown
    have rsvg-convert || missing rsvg-convert "apt-get install librsvg2-bin"
    have npm || missing npm "apt-get install npm"
fi
if want site; then
    need_target wasm32-unknown-unknown
    have rsvg-convert || missing rsvg-convert "apt-get install librsvg2-bin"
    have zip || missing zip "apt-get install zip"
fi
if want stackandconquer; then
    need_target wasm32-unknown-unknown
    have node || missing node "apt-get install nodejs"
    have npm || missing npm "apt-get install npm"
fi
# The builds' RUSTFLAGS (the path remapping below) are split at spaces,
# and mingw's dlltool cannot build in a folder whose path has one.
for folder in "$root" "${RELEASE_TARGET_DIR:-}" "${CARGO_HOME:-$HOME/.cargo}"; do
    case $folder in
    *" "*) lacking+=("release: a release is built in folders whose paths have no space, not '$folder' (clone elsewhere, or set RELEASE_TARGET_DIR)") ;;
    esac
done
if [ ${#lacking[@]} -gt 0 ]; then
    printf '%s\n' "${lacking[@]}" >&2
    exit 1
fi

# -- reproducibility ---------------------------------------------------------
commit=$(git rev-parse HEAD)
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
    echo "release: warning: the work tree differs from commit $commit; the artifacts are not that commit's" >&2
fi
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct)}
export CARGO_TARGET_DIR=${RELEASE_TARGET_DIR:-$root/target/dist}
# Cargo's folder of a profile's output: the dev profile's is debug/.
dir_of_profile=$profile
[ "$profile" != dev ] || dir_of_profile=debug
bin=$CARGO_TARGET_DIR/$dir_of_profile
export TZ=UTC LC_ALL=C
umask 022
# The checkout's and cargo's folders leave the binaries (panic locations,
# debug paths), so a build elsewhere gives the same bytes. Added to the
# rustflags of .cargo/config.toml, not replacing them (cargo merges them).
cargo_home=${CARGO_HOME:-$HOME/.cargo}
remap="--remap-path-prefix=$root=/build/stackfish-$version --remap-path-prefix=$cargo_home=/cargo"
export CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUSTFLAGS=$remap
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUSTFLAGS=$remap
# The .wasm too (tools/build-site.sh adds its own flags to these).
export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS=$remap
# GNU ld writes the link time into a PE header unless told not to. The
# .exe files carry no COFF symbol table: rustc writes the import libraries
# of raw-dylib imports (kernel32, ntdll, ws2_32 through windows-sys) into
# a randomly named temporary folder under the target folder, and ld names
# symbols after that path (_head_<path>_kernel32_dll_imports_lib), so two
# builds differed there alone. Panic messages keep their file and line;
# backtraces on Windows lose function names.
export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUSTFLAGS="$remap -C link-arg=-Wl,--no-insert-timestamp -C strip=symbols"
# The binaries keep their source tree's path to find data when run from
# it (src/data.rs); a release names the remapped one instead, so the
# checkout's folder leaves no trace (its binaries use share/ beside them).
export STACKFISH_SOURCE_TREE=/build/stackfish-$version
# No CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER: .cargo/config.toml
# names the cross gcc for the binaries, and the wheels must link with zig.

# -- the folder ----------------------------------------------------------------
mkdir -p "$(dirname "$out")"
out=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")
dir=$out.incomplete-$$
stage=$(mktemp -d "${TMPDIR:-/tmp}/stackfish-release.XXXXXX")
finished=false
cleanup() {
    rm -rf "$stage"
    $finished || rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
rm -rf "$dir"
mkdir -p "$dir"
log() { echo "release: $*" >&2; }

# A sorted tar with fixed owner, mode and time; gzip without name or time.
tgz() { # tgz ARCHIVE FOLDER-IN-$stage
    find "$stage/$2" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
    tar --sort=name --mtime="@$SOURCE_DATE_EPOCH" --owner=0 --group=0 --numeric-owner \
        --mode='u+rwX,go+rX,go-w' --format=gnu -C "$stage" -cf - "$2" | gzip -9 -n >"$1"
}
# A zip of a folder's contents, sorted, with no extra fields (-X) and
# every file's time SOURCE_DATE_EPOCH (TZ=UTC: zip stores local time).
zipdir() { # zipdir ARCHIVE FOLDER
    find "$2" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
    (cd "$2" && find . -mindepth 1 | sed 's|^\./||' | sort | zip -q -X -D "$1" -@)
}

# The man pages and completions are the same for every architecture:
# written once by the host's x86-64 build.
manual() { # manual BIN-FOLDER DEST
    mkdir -p "$2/man" "$2/completions"
    "$1/stackfish" man --dir "$2/man"
    "$1/arena" man --dir "$2/man"
    for b in stackfish arena; do
        "$1/$b" completions bash >"$2/completions/$b"
        "$1/$b" completions zsh >"$2/completions/_$b"
        "$1/$b" completions fish >"$2/completions/$b.fish"
    done
}

# The tarball's tree: what the .deb installs, under a prefix of the user's
# choice (`tar -C /usr/local --strip-components=1`, or ~/.local).
linux_tarball() { # linux_tarball ARCH BIN-FOLDER
    local name=stackfish-$version-$1-linux t
    t=$stage/$name
    install -D -m 755 "$2/stackfish" "$t/bin/stackfish"
    install -D -m 755 "$2/arena" "$t/bin/arena"
    install -d "$t/share/man/man1" "$t/share/bash-completion/completions" \
        "$t/share/zsh/site-functions" "$t/share/fish/vendor_completions.d"
    install -m 644 "$stage/manual/man"/*.1 "$t/share/man/man1/"
    for b in stackfish arena; do
        install -m 644 "$stage/manual/completions/$b" "$t/share/bash-completion/completions/$b"
        install -m 644 "$stage/manual/completions/_$b" "$t/share/zsh/site-functions/_$b"
        install -m 644 "$stage/manual/completions/$b.fish" "$t/share/fish/vendor_completions.d/$b.fish"
    done
    install -D -m 644 packaging/stackfish.desktop "$t/share/applications/stackfish.desktop"
    install -D -m 644 packaging/stackfish.svg "$t/share/icons/hicolor/scalable/apps/stackfish.svg"
    install -d "$t/share/stackfish" "$t/share/doc/stackfish"
    # The files git knows, as the .deb takes them.
    git ls-files -z -- tournaments boards ':!:*/.*' | xargs -0 -r -I{} cp --parents {} "$t/share/stackfish/"
    cp README.md protocol.md LICENSE "$t/share/doc/stackfish/"
    # (A git pathspec's * takes slashes too: docs/rules/ is in.)
    git ls-files -z -- 'docs/*.md' 'docs/*.png' | xargs -0 -r -I{} cp --parents {} "$t/share/doc/stackfish/"
    tgz "$dir/$name.tar.gz" "$name"
}

deb() { # deb DEBIAN-ARCH [--target TRIPLE]: build-deb.sh's last stdout line is the .deb
    local arch=$1 made
    shift
    made=$(bash tools/build-deb.sh "$@" | tail -n 1)
    case $made in
        */stackfish_"$version"-1_"$arch".deb) ;;
        *) echo "release: tools/build-deb.sh $* gave '$made', not a stackfish_${version}-1_$arch.deb" >&2; exit 1 ;;
    esac
    [ -f "$made" ] || { echo "release: tools/build-deb.sh $* named $made, which does not exist" >&2; exit 1; }
    cp "$made" "$dir/"
}

# -- the builds ------------------------------------------------------------------
log "version $version, commit $commit, SOURCE_DATE_EPOCH=$SOURCE_DATE_EPOCH, builds in $CARGO_TARGET_DIR"
if want linux-x86_64 || want linux-aarch64; then
    # The host's binaries write the manual for both architectures.
    log "x86-64 Linux binaries"
    cargo build --profile "$profile" --quiet --bin stackfish --bin arena
    manual "$bin" "$stage/manual"
fi
if want linux-x86_64; then
    linux_tarball x86_64 "$bin"
    log "amd64 .deb"
    deb amd64 --profile "$profile"
fi
if want linux-aarch64; then
    log "aarch64 Linux binaries"
    cargo build --profile "$profile" --quiet --target aarch64-unknown-linux-gnu --bin stackfish --bin arena
    linux_tarball aarch64 "$CARGO_TARGET_DIR/aarch64-unknown-linux-gnu/$dir_of_profile"
    log "arm64 .deb"
    deb arm64 --target aarch64-unknown-linux-gnu --profile "$profile"
fi
if want windows; then
    log "Windows binaries"
    cargo build --profile "$profile" --quiet --target x86_64-pc-windows-gnu --bin stackfish --bin arena
    name=stackfish-$version-x86_64-windows
    w=$stage/$name
    mkdir -p "$w"
    cp "$CARGO_TARGET_DIR/x86_64-pc-windows-gnu/$dir_of_profile/stackfish.exe" \
        "$CARGO_TARGET_DIR/x86_64-pc-windows-gnu/$dir_of_profile/arena.exe" "$w/"
    # Windows editors want CRLF and a .txt licence.
    for f in README.md protocol.md; do sed 's/$/\r/' "$f" >"$w/$f"; done
    sed 's/$/\r/' LICENSE >"$w/LICENSE.txt"
    git ls-files -z -- 'docs/*.md' | xargs -0 -r -I{} cp --parents {} "$w/"
    zipdir "$dir/$name.zip" "$w"
fi
if want python; then
    log "Python wheels and sdist"
    bash tools/build-wheels.sh --out "$dir" --profile "$profile" --sdist x86_64 aarch64 >/dev/null
fi
if want npm || want site; then
    log "WebAssembly: the npm package and the site"
    # Through a variable, so that a failed build stops the release here.
    built=$(bash tools/build-site.sh --profile "$profile")
    mapfile -t built <<<"$built"
    pkg=${built[0]}
    site=${built[1]}
    if want npm; then
        find "$pkg" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
        (cd "$pkg" && npm pack --silent --pack-destination "$dir" >/dev/null)
    fi
    if want site; then
        cp -r "$site" "$stage/site"
        zipdir "$dir/stackfish-$version-site.zip" "$stage/site"
    fi
fi
if want stackandconquer; then
    log "StackAndConquer CPU scripts"
    # Their own names: a player drops them into the app's cpu folder as
    # they are (the version is in each file's header).
    scripts=$(bash tools/build-sac-cpu.sh --profile "$profile")
    mapfile -t scripts <<<"$scripts"
    cp "${scripts[@]}" "$dir/"
fi

(cd "$dir" && find . -maxdepth 1 -type f ! -name SHA256SUMS -printf '%f\n' | sort | xargs sha256sum >SHA256SUMS)
rm -rf "$out"
mv "$dir" "$out"
finished=true
log "made $out (commit $commit):"
(cd "$out" && find . -maxdepth 1 -type f -printf '%f\n' | sort | while read -r f; do
    printf '  %10d  %s\n' "$(stat -c %s "$f")" "$f"
done) >&2
echo "$out"
