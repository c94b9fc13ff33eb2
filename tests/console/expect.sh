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
