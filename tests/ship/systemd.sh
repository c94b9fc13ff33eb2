#!/bin/bash
# The systemd unit passes systemd-analyze verify (with the unit's
# ExecStart pointed at the built binary, since nothing is installed).
set -u
build=${VNCFB_BUILD_ROOT:?}
if ! command -v systemd-analyze >/dev/null; then
	echo "SKIP: systemd-analyze is not installed on this machine" >&2
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unit="$build/dist/vncfb@.service"
[ -f "$unit" ] || { echo "FAIL: $unit not built" >&2; exit 1; }
sed "s#^ExecStart=[^ ]*#ExecStart=$build/vncfb#" "$unit" > "$tmp/vncfb@.service"
out=$(cd "$tmp" && systemd-analyze verify --man=no "$tmp/vncfb@.service" 2>&1)
rc=$?
if [ $rc -ne 0 ] || [ -n "$out" ]; then
	echo "FAIL: systemd-analyze verify (exit $rc): $out" >&2
	exit 1
fi
grep -q '^Restart=on-failure' "$unit" || { echo "FAIL: no Restart=" >&2; exit 1; }
grep -q '^TTYPath=/dev/tty' "$unit" || { echo "FAIL: unit owns no VT" >&2; exit 1; }
echo "systemd: unit verified"
