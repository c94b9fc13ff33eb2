#!/bin/bash
# The NetBSD rc.d script, run here under a stand-in for rc.subr (rcd/):
# start checks the configuration first and runs vncfb with --config and
# --reconnect always; a failure (1) or a crash is followed by another
# start, a configuration error (2) is not; status sees vncfb; stop ends
# vncfb and the loop around it, leaving no pid file. vncfb, logger and the
# 10 s pause are stand-ins too; /var/run is a tmpfs of a mount namespace of
# its own.
set -u
build=${VNCFB_BUILD_ROOT:?}
src=${VNCFB_SOURCE_ROOT:?}
script="$build/dist/vncfb"
if [ "${RCD_INNER:-}" != 1 ]; then
	if ! unshare -m true 2>/dev/null; then
		echo "SKIP: unshare -m is not permitted here (the test needs a" \
			"private /var/run)" >&2
		exit 77
	fi
	exec unshare -m env RCD_INNER=1 bash "$0" "$@"
fi
mount -t tmpfs tmpfs "$(readlink -f /var/run)" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*" >&2; fail=1; }
mkdir "$tmp/bin"
cp "$src/tests/ship/rcd/vncfb" "$src/tests/ship/rcd/logger" \
	"$src/tests/ship/rcd/sleep" "$tmp/bin/"
export FAKE_DIR="$tmp" FAKE_COMMAND="$tmp/bin/vncfb" RC_CONF="$tmp/rc.conf"
export PATH="$tmp/bin:$PATH"

# The script sourced after the stand-in, with "$1" its command (start...).
rc() {
	sh -c '. "$0"; . "$SCRIPT"' \
		"$src/tests/ship/rcd/rc.subr" "$@"
}
export SCRIPT="$script"
waitfor() {	# waitfor SECONDS command...
	local n=$(($1 * 10)); shift
	while ! "$@"; do
		n=$((n - 1)); [ $n -gt 0 ] || return 1
		/bin/sleep 0.1
	done
}
runs() { [ -f "$tmp/runs.log" ] && wc -l < "$tmp/runs.log" || echo 0; }
reset() { rm -f "$tmp"/runs.log "$tmp"/checks.log "$tmp"/syslog "$tmp"/check; }

cat > "$RC_CONF" <<CONF
vncfb=YES
vncfb_config="/etc/vncfb/wall.conf"
vncfb_flags="-o wsdisplay:/dev/ttyE1"
CONF

# Fails twice (a runtime error, then a crash), then runs.
reset
printf '1\n139\nrun\n' > "$tmp/plan"
rc start >/dev/null || bad "start failed"
waitfor 10 sh -c '[ "$(cat "$FAKE_DIR/runs.log" 2>/dev/null | wc -l)" = 3 ]' ||
	bad "not started again after failures: $(runs) runs"
waitfor 5 rc status >/dev/null || bad "status: not running: $(rc status)"
grep -q 'exit status 1; starting again' "$tmp/syslog" ||
	bad "no restart message for status 1: $(cat "$tmp/syslog")"
grep -q 'exit status 139; starting again' "$tmp/syslog" ||
	bad "no restart message for a crash: $(cat "$tmp/syslog")"
want="--config /etc/vncfb/wall.conf --reconnect always -o wsdisplay:/dev/ttyE1"
[ "$(head -1 "$tmp/runs.log")" = "$want" ] ||
	bad "vncfb arguments: '$(head -1 "$tmp/runs.log")', want '$want'"
grep -q -- "--check-config" "$tmp/checks.log" 2>/dev/null ||
	bad "start did not check the configuration"
rc start >/dev/null 2>&1 && bad "a second start succeeded"
rc stop >/dev/null || bad "stop failed"
rc status >/dev/null && bad "still running after stop"
/bin/sleep 0.5
[ "$(runs)" = 3 ] || bad "started again after stop: $(runs) runs"
ls /var/run/vncfb* >/dev/null 2>&1 && bad "left behind: $(ls /var/run/vncfb*)"

# Stopped while it waits to start vncfb again: nothing more starts.
reset
printf '1\n1\n1\n' > "$tmp/plan"
FAKE_SLEEP=3 rc start >/dev/null || bad "start failed"
waitfor 5 grep -q 'starting again' "$tmp/syslog" 2>/dev/null ||
	bad "no failure to wait after"
rc stop >/dev/null || bad "stop while waiting failed"
/bin/sleep 4
[ "$(runs)" = 1 ] || bad "started again after a stop while waiting: $(runs)"
ls /var/run/vncfb* >/dev/null 2>&1 && bad "left behind: $(ls /var/run/vncfb*)"

# A configuration error is not retried.
reset
printf '2\nrun\n' > "$tmp/plan"
rc start >/dev/null || bad "start failed"
waitfor 5 sh -c '[ ! -f /var/run/vncfb.loop.pid ]' ||
	bad "the loop goes on after status 2"
[ "$(runs)" = 1 ] || bad "status 2 started again: $(runs) runs"
grep -q 'starting again' "$tmp/syslog" 2>/dev/null &&
	bad "restart message after status 2"

# A bad configuration fails the start itself, before anything runs.
reset
echo 2 > "$tmp/check"
rc start >/dev/null 2>&1 && bad "start with a bad configuration succeeded"
/bin/sleep 0.3
[ "$(runs)" = 0 ] || bad "vncfb ran with a bad configuration"

# Not enabled: nothing.
reset
sed -i 's/^vncfb=YES/vncfb=NO/' "$RC_CONF"
printf 'run\n' > "$tmp/plan"
rc start >/dev/null 2>&1
/bin/sleep 0.3
[ "$(runs)" = 0 ] || bad "started with vncfb=NO"

[ $fail -eq 0 ] && echo "rc.d: start, restart after failures, stop checked"
exit $fail
