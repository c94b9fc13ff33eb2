#!/usr/bin/env python3
"""A session (the built-in demo on a mem output) pins its blit thread where
the probe said, and the blit thread itself reports running there; a
mapping uncached on every core is warned about once; --cpu
and the config file's cpu override the probe; bad cores are usage errors."""
import os
import re

from common import TMP, check, finish, need_two_cores, online_list, run, write

need_two_cores()
SPEC = "mem:1920x1080:xrgb8888"


def session(extra, *args, **env):
    return run(["--demo", "-o", SPEC + extra, "--exit-after", "1", "-v"]
               + list(args), timeout=120, **env)


def pinned(err):
    m = re.search(r"blit thread runs on core (\d+), as pinned", err)
    return int(m.group(1)) if m else None


for slow, fast in ((1, 0), (0, 1)):
    rc, out, err = session(",slow-cpu=%d" % slow)
    what = "session slow-cpu=%d" % slow
    check(rc == 0, "%s: exit %d" % (what, rc), err)
    check(("blit thread on core %d: fastest framebuffer writes" % fast)
          in err, "%s: probe's choice not logged" % what, err)
    check(pinned(err) == fast, "%s: blit thread runs on %r, not %d"
          % (what, pinned(err), fast), err)
    check(("much slower to write from core %d" % slow) in err,
          "%s: no slow-core warning" % what, err)

# Every core uncached: the session's start says so once, and still runs.
rc, out, err = session(",uncached")
check(rc == 0 and err.count("looks uncached") == 1 and
      err.count("warning:") == 1, "session uncached: one warning", err)
check(pinned(err) in (0, 1), "session uncached: not pinned", err)
rc, out, err = session("")
check(rc == 0 and "warning:" not in err, "session plain: warned", err)
# The choice is a detail for -v: a plain start says nothing about it.
rc, out, err = run(["--demo", "-o", SPEC + ",slow-cpu=1", "--exit-after",
                    "1"], timeout=120)
check(rc == 0 and "blit thread" not in err,
      "without -v: the blit core is logged", err)

# --cpu overrides the probe (even onto the slow core: the user knows best).
rc, out, err = session(",slow-cpu=1", "--cpu", "1")
check(rc == 0 and pinned(err) == 1, "--cpu 1: runs on %r" % pinned(err), err)
check("probe:" not in err and "much slower" not in err,
      "--cpu 1: the probe ran anyway", err)

# The config file's cpu, and the command line over it.
xdg = os.path.join(TMP, "xdg")
write("xdg/vncfb/config", "cpu = 1\n")
rc, out, err = session(",slow-cpu=1", XDG_CONFIG_HOME=xdg)
check(rc == 0 and pinned(err) == 1, "config cpu = 1: runs on %r"
      % pinned(err), err)
rc, out, err = session(",slow-cpu=1", "--cpu", "auto", XDG_CONFIG_HOME=xdg)
check(rc == 0 and pinned(err) == 0, "--cpu auto over config: runs on %r"
      % pinned(err), err)

# Cores that do not exist or are offline: usage errors naming the online
# cores, before anything is opened.
n = os.cpu_count() or 1
for args, env in ((["--cpu", str(n)], {}), (["--cpu", "4095"], {}),
                  ([], {"XDG_CONFIG_HOME": os.path.join(TMP, "xdg2")})):
    if not args:
        write("xdg2/vncfb/config", "cpu = %d\n" % n)
    rc, out, err = run(["--demo", "-o", SPEC, "--exit-after", "1"] + args,
                       **env)
    check(rc == 2, "bad core %s: exit %d" % (args or "config", rc), err)
    check("offline or not allowed (online cores: %s)" % online_list() in err,
          "bad core %s: message" % (args or "config"), err)
    check("demo:" not in err, "bad core: the session started", err)
for bad in ("-1", "one", "1.5", ""):
    rc, out, err = run(["--demo", "-o", SPEC, "--exit-after", "1",
                        "--cpu", bad])
    check(rc == 2 and "bad value" in err and "--cpu" in err,
          "--cpu %r: exit %d" % (bad, rc), err)

finish()
