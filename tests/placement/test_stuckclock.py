#!/usr/bin/env python3
"""A thread CPU clock that resolves on one core and stands still on
another (a guest's per-core sched_clock; simulated with an LD_PRELOAD shim
for threads pinned to core 0): the probe times that core in wall time
instead, so both cores get real, non-zero figures and neither is called
slow. Before, core 0's samples all read 0 ns and core 1 was reported
"infx slower". Stopped from the first read (the probe thread's clock check
meets it) and after a few reads (a sample meets it). Exit 77 with one
core."""
import json
import os
import sys

from common import check, finish, run

shim = sys.argv[1] if len(sys.argv) > 1 else ""
if not os.path.exists(shim):
    print("usage: test_stuckclock.py SHIM.so (run through meson test)",
          file=sys.stderr)
    sys.exit(1)
if len(os.sched_getaffinity(0)) < 2 or 0 not in os.sched_getaffinity(0):
    print("SKIP: needs cores 0 and another to run on", file=sys.stderr)
    sys.exit(77)

SPEC = "mem:640x480"
for after in ("0", "12"):
    P = {"LD_PRELOAD": shim, "STUCKCLOCK_AFTER": after}
    what = "clock stopped after %s reads" % after
    rc, out, err = run(["probe", "-o", SPEC, "--json"], **P)
    check(rc == 0, "%s: probe exit %d" % (what, rc), err)
    res = json.loads(out) if rc == 0 else {}
    cores = {c["cpu"]: c for c in res.get("cores", [])}
    check(res.get("clock") == "thread-cpu",
          "%s: the main thread's clock is fine" % what, out)
    c0 = cores.get(0, {})
    check(c0.get("fb_ms", 0) > 0 and c0.get("ram_ms", 0) > 0 and
          c0.get("clock") == "monotonic",
          "%s: core 0 timed in wall time" % what, out)
    others = [c for n, c in cores.items() if n != 0 and "fb_ms" in c]
    check(others and all(c["fb_ms"] > 0 and "clock" not in c
                         for c in others),
          "%s: other cores in thread CPU time" % what, out)
    check(not any(c.get("slow") for c in cores.values()) and
          "infx" not in out + err,
          "%s: no core called slow" % what, out + err)

    rc, out, err = run(["probe", "-o", SPEC], **P)
    check(rc == 0 and "(wall time: thread clock stuck)" in out,
          "%s: the table says core 0 ran in wall time" % what, out + err)
finish()
