#!/usr/bin/env python3
"""Where pinning is not permitted (simulated with an LD_PRELOAD shim that
makes every affinity call fail with EPERM): with cpu auto the probe still
measures (unpinned), warns and the session runs unpinned; an explicit
--cpu N fails with exit 1 naming the reason."""
import json
import os
import sys

from common import check, finish, run

shim = sys.argv[1] if len(sys.argv) > 1 else ""
if not os.path.exists(shim):
    print("usage: test_noaffinity.py SHIM.so (run through meson test)",
          file=sys.stderr)
    sys.exit(1)
P = {"LD_PRELOAD": shim}
SPEC = "mem:640x480"

rc, out, err = run(["probe", "-o", SPEC, "--json"], **P)
check(rc == 0, "probe: exit %d" % rc, err)
res = json.loads(out) if rc == 0 else {}
check(res.get("pin_denied") is True and res.get("chosen") is None,
      "probe: pin_denied/chosen", out)
cores = res.get("cores", [])
check(len(cores) == 1 and cores[0]["cpu"] == -1 and
      cores[0]["fb_ms"] > 0, "probe: one unpinned measurement", out)
check("cannot pin threads to cores (Operation not permitted)" in err,
      "probe: warning", err)

rc, out, err = run(["probe", "-o", SPEC], **P)
check(rc == 0 and "choice: none, the blit thread runs unpinned" in out and
      "unpinned (pinning not permitted)" in out, "probe table", out + err)

rc, out, err = run(["--demo", "-o", SPEC, "--exit-after", "1", "-v"],
                   timeout=120, **P)
check(rc == 0, "auto session: exit %d" % rc, err)
check("warning: cannot pin threads to cores (Operation not permitted)"
      in err and "the blit thread runs unpinned" in err,
      "auto session: warning", err)
check("blit thread runs unpinned" in err, "auto session: unpinned", err)

rc, out, err = run(["--demo", "-o", SPEC, "--exit-after", "1",
                    "--cpu", "0"], timeout=120, **P)
check(rc == 1, "--cpu 0 without permission: exit %d" % rc, err)
check("cannot pin the blit thread to core 0: Operation not permitted"
      in err, "--cpu 0 without permission: message", err)

finish()
