#!/usr/bin/env python3
"""On a real kernel (tests/vm/vmrun.py, vesafb): vncfb takes the VT into
graphics mode with VT_PROCESS switching, gets SIGKILL (no handler can
run), and the supervisor puts the VT back: text mode, VT_AUTO. The
supervisor is a second process while vncfb runs and gone afterwards."""
import os
import re
import subprocess
import sys

from vmskip import vm_run_or_skip

VNCFB = os.environ["VNCFB"]
build = os.environ["VNCFB_BUILD_ROOT"]
vmrun = vm_run_or_skip()
srv = os.path.join(build, "tests", "server", "testserver")
probe = os.path.join(build, "tests", "vm", "kdprobe")

GUEST = r'''
count() { n=0; for d in /proc/[0-9]*; do
	[ "$(cat $d/comm 2>/dev/null)" = vncfb ] && n=$((n + 1)); done; echo $n; }
testserver --console > /tmp/srv.log 2>&1 &
i=0; while ! grep -q READY /tmp/srv.log; do i=$((i+1)); [ $i -gt 200 ] && break; sleep 0.1; done
P=$(sed -n 's/^READY //p' /tmp/srv.log)
vncfb -v 127.0.0.1::$P > /tmp/v.log 2>&1 &
V=$!
i=0; while ! grep -q 'connected to' /tmp/v.log; do i=$((i+1)); [ $i -gt 300 ] && break; sleep 0.1; done
sleep 1
kdprobe /dev/tty1 | sed 's/^/DURING /'
echo "PROCS $(count)"
kill -KILL $V; wait $V; echo "EXIT $?"
sleep 1
kdprobe /dev/tty1 | sed 's/^/AFTERKILL /'
echo "LEFT $(count)"
cat /tmp/v.log | sed 's/^/LOG /'
'''

p = subprocess.run([vmrun, "-q", "--fb", "vesa", "--bin", VNCFB + ":/bin/vncfb",
                    "--bin", srv, "--bin", probe, "--cmd", GUEST,
                    "--timeout", "200"],
                   capture_output=True, text=True, timeout=300)
out = p.stdout.replace("\r", "")
fails = []


def want(pattern, what):
    if not re.search(pattern, out, re.M):
        fails.append(what)


if p.returncode == 125:
    print("the VM did not start:\n" + p.stderr[-2000:], file=sys.stderr)
    sys.exit(1)
want(r"^DURING KDMODE graphics VTMODE process", "VT not taken over")
want(r"^PROCS 2$", "no supervisor process beside vncfb")
want(r"^EXIT 137$", "vncfb not killed by SIGKILL")
want(r"^AFTERKILL KDMODE text VTMODE auto ACTIVE 1$",
     "console not restored after SIGKILL")
want(r"^LEFT 0$", "the supervisor did not leave")
for f in fails:
    print("FAIL:", f, file=sys.stderr)
if fails:
    print(out[-3000:], file=sys.stderr)
    sys.exit(1)
print("\n".join(l for l in out.splitlines()
                if l.startswith(("DURING", "AFTERKILL", "EXIT"))))
sys.exit(0)
