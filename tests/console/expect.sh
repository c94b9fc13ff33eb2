# Sourced by the console error scripts: $tmp (removed on exit), $fail,
# and expect STATUS REGEX CMD...: the command exits STATUS, its stderr
# matches REGEX and holds one message a line.
VNCFB=${VNCFB:?VNCFB not set}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0

expect() {
	want=$1 rx=$2
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	got=$?
	if [ "$got" != "$want" ] || ! grep -Eq "$rx" "$tmp/err"; then
		echo "FAIL: $*: exit $got (want $want), stderr:"
		sed 's/^/  /' "$tmp/err"
		echo "  (wanted /$rx/)"
		fail=1
	elif grep -q 'vncfb:.*vncfb:' "$tmp/err"; then
		echo "FAIL: $*: messages run together"
		fail=1
	fi
}

# Permission denied, for the scripts that check it: root_only NAME makes
# $tmp/NAME a root-only node (group video) and $tmp/vncfb a copy of
# vncfb that anyone may run, or returns 1 with a note on stderr where
# the test is not root or has no setpriv; as_nobody CMD... runs CMD as
# user 65534 with no groups and no config.
root_only() {
	if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
		echo "note: not root (or no setpriv): permission checks left out" >&2
		return 1
	fi
	cp "$VNCFB" "$tmp/vncfb"
	chmod 755 "$tmp" "$tmp/vncfb"
	: >"$tmp/$1"
	chmod 600 "$tmp/$1"
	chgrp video "$tmp/$1" 2>/dev/null
	return 0
}

as_nobody() {
	env HOME="$tmp" XDG_CONFIG_HOME="$tmp/none" \
		setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
}
