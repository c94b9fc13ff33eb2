#!/usr/bin/env python3
"""Console safety for the commands other than viewing, on a real kernel
(tests/vm/vmrun.py, vesafb): `vncfb probe` and `vncfb bench -o fbdev` take the
VT into graphics mode and draw on it; killed while they draw, each gives
the console back (text mode, VT_AUTO, tty1 shown):

* SIGKILL: no code of vncfb runs; the supervisor (a second process while
  they run) restores, then leaves.
* SIGSEGV with the supervisor turned off (VNCFB_NO_SUPERVISOR=1): the
  fatal-signal handler alone restores, then vncfb dies of the signal.
* SIGTERM: the quit signal is handled (no death by the signal) and the
  normal exit path restores.

Both commands get this from console_open() (client/console/console.c); a command
that opened its output without it fails the SIGKILL and SIGSEGV cases."""
import os
import re
import subprocess
import sys

from vmskip import vm_run_or_skip

VNCFB = os.environ["VNCFB"]
build = os.environ["VNCFB_BUILD_ROOT"]
vmrun = vm_run_or_skip()
kdprobe = os.path.join(build, "tests", "vm", "kdprobe")

# run TAG SIGNAL ENV COMMAND...: start the command on tty1's console, wait
# until it has the VT in graphics mode and is drawing (the bench: its
# first workload measured), kill it, wait for every vncfb process to go,
# and print what the VT looked like while it drew and looks like now.
GUEST = r'''
count() { pidof vncfb | wc -w; }
run() {
	tag=$1 sig=$2 env=$3; shift 3
	: > /tmp/$tag.log
	env $env "$@" > /tmp/$tag.log 2>&1 &
	V=$!
	# The probe draws for a second or two: look often, kill soon.
	i=0
	until kdprobe /dev/tty1 > /tmp/kd 2>&1 && grep -q graphics /tmp/kd; do
		i=$((i + 1)); [ $i -gt 600 ] && { echo "$tag TIMEOUT graphics"; break; }
		sleep 0.02
	done
	case "$*" in *bench*)
		i=0
		while ! grep -q 'bench: fullframe:' /tmp/$tag.log; do
			i=$((i + 1)); [ $i -gt 600 ] && { echo "$tag TIMEOUT bench"; break; }
			sleep 0.1
		done
		sleep 1
		kdprobe /dev/tty1 > /tmp/kd 2>&1;;
	*) sleep 0.1;;
	esac
	n=$(count)
	kill -0 $V 2>/dev/null && echo "$tag ALIVE"
	kill -$sig $V; wait $V; echo "$tag EXIT $?"
	sed "s/^/$tag DURING /" /tmp/kd
	echo "$tag PROCS $n"
	i=0
	while [ "$(count)" != 0 ] && [ $i -lt 100 ]; do i=$((i + 1)); sleep 0.1; done
	echo "$tag LEFT $(count)"
	kdprobe /dev/tty1 | sed "s/^/$tag AFTER /"
	sed "s/^/$tag LOG /" /tmp/$tag.log
}
PROBE='vncfb probe --samples 1000'
BENCH='vncfb bench -o fbdev --workload fullframe --duration 120'
run probe-kill KILL X=1 $PROBE
run probe-segv SEGV VNCFB_NO_SUPERVISOR=1 $PROBE
run probe-term TERM X=1 $PROBE
run bench-kill KILL X=1 $BENCH
run bench-segv SEGV VNCFB_NO_SUPERVISOR=1 $BENCH
run bench-term TERM X=1 $BENCH
echo DONE
'''

p = subprocess.run([vmrun, "-q", "--smp", "2", "--fb", "vesa",
                    "--bin", VNCFB + ":/bin/vncfb", "--bin", kdprobe,
                    "--cmd", GUEST, "--timeout", "400"],
                   capture_output=True, text=True, timeout=500)
out = p.stdout.replace("\r", "")
if p.returncode == 125:
    print("the VM did not start:\n" + p.stderr[-2000:], file=sys.stderr)
    sys.exit(1)
fails = []


def want(pattern, what):
    if not re.search(pattern, out, re.M):
        fails.append(what)


want(r"^DONE$", "the guest script did not finish")
RESTORED = "KDMODE text VTMODE auto ACTIVE 1"
for cmd in ("probe", "bench"):
    for sig, procs, exits in (("kill", 2, "137"), ("segv", 1, "139"),
                              ("term", 2, "[01]")):
        tag = "%s-%s" % (cmd, sig)
        want(r"^%s DURING KDMODE graphics VTMODE process ACTIVE 1$" % tag,
             "%s: VT not taken over while it draws" % tag)
        want(r"^%s PROCS %d$" % (tag, procs),
             "%s: not %d vncfb process(es) (itself%s)"
             % (tag, procs, ", its supervisor" if procs == 2 else ""))
        want(r"^%s ALIVE$" % tag, "%s: ended before the signal" % tag)
        want(r"^%s EXIT %s$" % (tag, exits),
             "%s: exit status not %s" % (tag, exits))
        want(r"^%s LEFT 0$" % tag, "%s: a vncfb process stayed" % tag)
        want(r"^%s AFTER %s$" % (tag, RESTORED),
             "%s: console not restored" % tag)
if fails:
    # sys.exit with a message: on stderr, exit status 1.
    sys.exit("".join("FAIL: %s\n" % f for f in fails) + out[-6000:])
for line in out.splitlines():
    if re.match(r"\S+-\S+ (DURING|EXIT|AFTER) ", line):
        print(line)
