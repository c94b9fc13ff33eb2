#!/usr/bin/env python3
"""vncfb against TigerVNC's vncviewer through tests/integration/linkrelay.py
to QEMU's own VNC server (neither ContinuousUpdates nor Fence), whose
guest (tests/vm/vmrun.py, bochs display 640x480) writes 120 rows of
random bytes into /dev/fb0 over and over. Random bytes do not compress,
so the bytes QEMU sends a viewer (counted by the relay) over the bytes
of one drawing (640x120x4) say how many drawings reached it. Rounds
interleaved, order alternating; medians.

usage: OW=ONE_WAY_MS R=ROUNDS SECS=S link_qemu.py   (defaults 30, 3, 6)
Nothing here is a test (doc/network.md).
"""
import os, socket, statistics, subprocess, sys, time
sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
sys.path.insert(0, os.path.join(HERE, "..", "vm"))
from linkrelay import LinkRelay
from vmskip import vm_run_or_skip
B = os.path.join(os.path.dirname(os.path.dirname(HERE)), "build")
W, H, ROWS = 640, 480, 120
OW = float(os.environ.get("OW", "30"))
SECS = float(os.environ.get("SECS", "6"))
GUEST = ("echo guest-up; while true; do head -c %d /dev/urandom > /dev/fb0;"
         " done" % (W * ROWS * 4))
log = open("/tmp/link_qemu.log", "w")
vm = subprocess.Popen([vm_run_or_skip(), "-q", "--fb", "bochs", "--res",
                       "%dx%d" % (W, H), "--timeout", "600", "--cmd", GUEST,
                       "--qemu-arg=-vnc", "--qemu-arg=127.0.0.1:47"],
                      stdout=log, stderr=log, start_new_session=True)
xv = subprocess.Popen(["Xvfb", ":73", "-screen", "0", "1024x768x24",
                       "-nolisten", "tcp"], stdout=log, stderr=log,
                      start_new_session=True)
res = {"vncfb": [], "vncviewer": []}
try:
    end = time.monotonic() + 120
    while "guest-up" not in open("/tmp/link_qemu.log").read():
        if time.monotonic() > end or vm.poll() is not None:
            sys.exit("the guest did not come up")
        time.sleep(0.5)
    time.sleep(2)
    for r in range(int(os.environ.get("R", "3"))):
        for kind in (["vncfb", "vncviewer"] if r % 2 == 0
                     else ["vncviewer", "vncfb"]):
            with LinkRelay(5947, OW, None) as rel:
                if kind == "vncfb":
                    argv = [os.environ.get("VNCFB", B + "/vncfb"), "-o",
                            "mem:%dx%d" % (W, H), "--no-reconnect",
                            "127.0.0.1::%d" % rel.port]
                    env = None
                else:
                    argv = ["vncviewer", "-ViewOnly", "-AutoSelect=0", "-NoJPEG",
                            "-FullColor=1",
                            "127.0.0.1::%d" % rel.port]
                    env = dict(os.environ, DISPLAY=":73")
                c = subprocess.Popen(argv, env=env,
                                     stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
                time.sleep(1.5)     # set-up and the first picture
                b0 = sum(p.bytes for p in rel.pipes[1::2])
                time.sleep(SECS)
                b1 = sum(p.bytes for p in rel.pipes[1::2])
                c.terminate()
                c.wait(10)
            n = (b1 - b0) / (W * ROWS * 4) / SECS
            res[kind].append(n)
            print(kind, r, "%.1f drawings/s" % n, "load %.1f"
                  % os.getloadavg()[0], flush=True)
finally:
    for p in (vm, xv):
        try:
            os.killpg(p.pid, 15)
            p.wait(10)
        except (OSError, subprocess.TimeoutExpired):
            pass
for k, v in res.items():
    print(k, "median drawings/s %.1f" % statistics.median(v) if v else None,
          ["%.1f" % x for x in v])
