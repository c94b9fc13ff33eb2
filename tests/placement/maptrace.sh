#!/bin/sh
# The session the mapping trace test (test_maptrace.py) watches: vncfb
# under strace, with the bigalloc shim preloaded, against the test server
# on loopback, through many full-frame updates and one desktop resize.
# SIGUSR1 (which vncfb ignores without --screenshot) marks the phases in
# the trace:
#
#   start-up, WARMUP frames | 1 | FRAMES frames | 2 | resize, 5 frames |
#   3 | FRAMES frames | 4 | stats, SIGTERM, exit
#
# so nothing may map, unmap, protect or allocate a frame between markers
# 1 and 2 nor between 3 and 4. POSIX sh: runs on the host and in the VM's
# busybox.
#
# Environment: VNCFB TESTSERVER STRACE BIGALLOC (paths), OUTPUT (-o spec),
# ENCODINGS, SIZE (WxH), RESIZE ("W H"), WARMUP, FRAMES, MIN (bytes that
# count as a frame-sized allocation), DIR (scratch directory; the trace is
# DIR/trace). Prints the server's STATS lines and "MAPTRACE ok", or
# "MAPTRACE failed: why".
set -u
d=$DIR
srv_pid=
vncfb_pid=

fail() {
	echo "MAPTRACE failed: $*"
	echo "--- server"
	cat "$d/srv.out"
	echo "--- vncfb"
	cat "$d/vncfb.log" 2>/dev/null
	[ -n "$vncfb_pid" ] && kill -KILL "$vncfb_pid" 2>/dev/null
	[ -n "$srv_pid" ] && kill "$srv_pid" 2>/dev/null
	exit 1
}

# count PREFIX: lines of the server's output starting with PREFIX.
count() {
	grep -c "^$1" "$d/srv.out"
}

# wait_for PREFIX N SECS: until the server has printed N such lines.
wait_for() {
	i=0
	while [ "$(count "$1")" -lt "$2" ]; do
		i=$((i + 1))
		[ $i -gt $(($3 * 10)) ] && fail "no '$1' (#$2) within $3 s"
		grep -q "^ERROR" "$d/srv.out" && fail "server error"
		sleep 0.1
	done
}

mkfifo "$d/srv.in" || fail "mkfifo"
"$TESTSERVER" --size "$SIZE" --timeout 600 < "$d/srv.in" > "$d/srv.out" \
	2>&1 &
srv_pid=$!
exec 3> "$d/srv.in"
wait_for READY 1 30
port=$(sed -n 's/^READY //p' "$d/srv.out")

# The wrapper shell records its pid and becomes vncfb (exec keeps it).
"$STRACE" -f -qq -ttt -y -s 64 --seccomp-bpf \
	-e trace=mmap,munmap,mprotect,madvise,mremap,brk,write \
	-o "$d/trace" \
	env LD_PRELOAD="$BIGALLOC" VNCFB_BIGALLOC_MIN="$MIN" \
	sh -c 'echo $$ > "$0"; exec "$@"' "$d/pid" \
	"$VNCFB" -o "$OUTPUT" --view-only --no-reconnect \
	--encodings "$ENCODINGS" "127.0.0.1::$port" > "$d/vncfb.log" 2>&1 &
strace_pid=$!
wait_for "CLIENT connected" 1 60
vncfb_pid=$(cat "$d/pid")

# frames N: N full frames, the next command once they are sent.
runs=0
frames() {
	runs=$((runs + 1))
	echo "frames $1" >&3
	wait_for "FRAMES done" $runs 300
}
# A phase marker in the trace.
mark() {
	kill -USR1 "$vncfb_pid" || fail "vncfb is gone"
}

frames "$WARMUP"
# Let what the first frames started (the blit thread's first passes)
# settle before the watched part begins.
sleep 1
mark
frames "$FRAMES"
mark
echo "resize $RESIZE" >&3
wait_for RESIZED 1 30
frames 5
sleep 1
mark
frames "$FRAMES"
mark
echo stats >&3
wait_for "STATS end" 1 30
grep "^STATS" "$d/srv.out"
kill -TERM "$vncfb_pid"
wait "$strace_pid"
rc=$?
vncfb_pid=
echo quit >&3
exec 3>&-
wait "$srv_pid"
[ $rc -eq 0 ] || fail "vncfb exited $rc"
echo "MAPTRACE ok"
