#!/usr/bin/env bash
# A package's Depends against its own binaries: libc6 at exactly the newest
# GLIBC_ version a dynamic symbol of usr/bin/* is bound to, libgcc-s1 at
# the newest GCC_ one when they use libgcc_s, nothing else and no
# architecture qualifier. The versions come from `objdump -T` (the symbols'
# own versions, which the dynamic loader checks), not from the version-needs
# table tools/build-deb.sh reads.
#
#   tests/deb/depends.sh target/debian/stackfish_<version>-1_<arch>.deb
set -euo pipefail
deb=${1:?usage: tests/deb/depends.sh <package.deb>}
fail() {
    echo "deb depends: $*" >&2
    exit 1
}
arch=$(dpkg-deb --field "$deb" Architecture)
case $arch in
amd64) objdump=objdump package=binutils ;;
arm64) objdump=aarch64-linux-gnu-objdump package=binutils-aarch64-linux-gnu ;;
*) fail "$deb: no objdump known for the architecture '$arch'" ;;
esac
command -v "$objdump" >/dev/null || fail "$objdump not found; install the Debian package $package"
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
dpkg-deb -x "$deb" "$root"
newest() { # <prefix>: the newest <prefix>_x.y any binary's symbols carry
    for b in "$root"/usr/bin/*; do "$objdump" -T "$b"; done |
        grep -o "\b$1_[0-9][0-9.]*" | sed "s/^$1_//" | sort -V | tail -n 1
}
glibc=$(newest GLIBC)
[ -n "$glibc" ] || fail "$deb: objdump -T shows no GLIBC_ symbol in usr/bin"
want="libc6 (>= $glibc)"
gcc=$(newest GCC)
[ -z "$gcc" ] || want+=", libgcc-s1 (>= $gcc)"
got=$(dpkg-deb --field "$deb" Depends)
[ "$got" = "$want" ] || fail "$deb: Depends '$got'; its binaries need '$want'"
echo "deb depends: $(basename "$deb"): Depends: $got, as its binaries need"
