#!/usr/bin/env bash
# The systemd unit of `stackfish apbot` (packaging/stackfish-apbot.service):
# `systemd-analyze verify` must pass, with ExecStart pointed at the binary
# just built, and `systemd-analyze security --offline=yes` must rate it at
# most MAX_EXPOSURE (it printed 1.5 with systemd 252). Installs systemd's
# tools when the image lacks them; fails, never skips, when they cannot run.
set -euo pipefail
cd "$(dirname "$0")/../.."
MAX_EXPOSURE=2.0
bin="$PWD/target/release/stackfish"
[ -x "$bin" ] || { echo "systemd check: $bin not built" >&2; exit 1; }
if ! command -v systemd-analyze >/dev/null; then
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q systemd
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
unit="$dir/stackfish-apbot.service"
# A unit's command is a path without spaces unless quoted; the checkout's
# may have some, so the unit names a link in the temporary folder.
ln -s "$bin" "$dir/stackfish"
sed "s#^ExecStart=/usr/bin/stackfish #ExecStart=$dir/stackfish #" packaging/stackfish-apbot.service >"$unit"
grep -q "^ExecStart=$dir/stackfish apbot" "$unit" || { echo "systemd check: ExecStart not found in the unit" >&2; exit 1; }
# --man=no: the man page is installed by the Debian package, not here.
systemd-analyze verify --man=no "$unit"
report=$(systemd-analyze security --offline=yes "$unit" 2>&1)
score=$(printf '%s\n' "$report" | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')
[ -n "$score" ] || { printf '%s\n' "$report" >&2; echo "systemd check: no exposure level in the report" >&2; exit 1; }
echo "systemd check: verify ok, exposure $score (at most $MAX_EXPOSURE)"
awk -v s="$score" -v m="$MAX_EXPOSURE" 'BEGIN { exit !(s <= m) }' || {
    printf '%s\n' "$report" | grep '✗' >&2
    echo "systemd check: exposure $score is above $MAX_EXPOSURE" >&2
    exit 1
}
