#!/usr/bin/env bash
# Builds the Debian package of stackfish: the release binaries, the man
# pages and shell completions they generate, the shipped tournaments (and
# boards/ when the folder exists) staged for /usr/share/stackfish, then
# `cargo deb` with the asset list of Cargo.toml ([package.metadata.deb]).
#
#   tools/build-deb.sh            # prints the path of the .deb it wrote
#
# Needs cargo-deb: `cargo install cargo-deb --locked`.
# Install the result with `sudo apt install ./target/debian/stackfish_*.deb`.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
cargo deb --version >/dev/null 2>&1 || {
    echo "build-deb: cargo-deb is missing; install it with: cargo install cargo-deb --locked" >&2
    exit 1
}

cargo build --release --quiet --bin stackfish --bin arena
bin=${CARGO_TARGET_DIR:-target}/release

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

cargo deb --no-build --quiet --output target/debian/ >&2
ls -t target/debian/stackfish_*.deb | head -n 1
