#!/usr/bin/env python3
"""Config files from the command line's side: --check-config reports and
exits 0/2, a bad line names file, line and key and exits 2 before anything
starts, --config FILE must exist, precedence is shown."""
import os
import sys

from common import TMP, check, finish, run, write

if not os.environ.get("VNCFB"):
    print("VNCFB is not set (run through meson test)", file=sys.stderr)
    sys.exit(1)

sysconf = os.path.join(TMP, "etc", "vncfb.conf")
xdg = os.path.join(TMP, "xdg")
user = os.path.join(xdg, "vncfb", "config")
E = {"VNCFB_SYSTEM_CONFIG": sysconf, "XDG_CONFIG_HOME": xdg}

# Nothing there: fine.
rc, out, err = run(["--check-config"], **E)
check(rc == 0 and "configuration OK" in out and
      (sysconf + ": not present") in out and (user + ": not present") in out,
      "no files", out + err)

# Both files and the command line: who wins is reported.
write("etc/vncfb.conf", "# system\ncpu = 0\nquality = 5\n")
write("xdg/vncfb/config", "cpu = 1\nencodings = \"tight zrle\"\n")
rc, out, err = run(["--check-config"], **E)
check(rc == 0, "two files: exit %d" % rc, err)
check("line 2: cpu = 0 (overridden by %s)" % user in out,
      "user file must override the system file", out)
check("line 1: cpu = 1\n" in out and "encodings = tight zrle" in out,
      "user settings", out)
rc, out, err = run(["--check-config", "--cpu", "auto"], **E)
check(rc == 0 and "line 1: cpu = 1 (the command line overrides it)" in out,
      "command line over files", out + err)

# --config FILE replaces the user file.
other = write("other.conf", "view-only = yes\n")
rc, out, err = run(["--check-config", "--config", other], **E)
check(rc == 0 and other + ": 1 setting" in out and user not in out,
      "--config replaces the user file", out + err)
rc, out, err = run(["--check-config", "--config",
                    os.path.join(TMP, "missing.conf")], **E)
check(rc == 2 and "cannot read config file" in err and
      "missing.conf: No such file" in err, "missing --config", err)

# Bad lines: every one reported with file, line and key; exit 2.
bad = write("bad.conf", "cpu = 1\n# ok\ncolour = blue\nquality = 11\n"
            "no equals sign\n")
rc, out, err = run(["--check-config", "--config", bad], **E)
check(rc == 2, "bad lines: exit %d" % rc, err)
check(bad + ":3: unknown key 'colour'" in err, "unknown key message", err)
check(bad + ":4: bad value '11' for quality: expected 0-9" in err,
      "bad value message", err)
check(bad + ":5: expected 'key = value'" in err, "syntax message", err)
check("configuration OK" not in out, "bad lines: reported OK", out)

# A bad line stops a session before it connects; so does a bad system file.
rc, out, err = run(["--config", bad, "127.0.0.1:1"], **E)
check(rc == 2 and "unknown key 'colour'" in err and "connect" not in err,
      "session with a bad config", err)
write("etc/vncfb.conf", "cpu = fastest\n")
rc, out, err = run(["probe", "-o", "mem:64x64"], **E)
check(rc == 2 and sysconf + ":1: bad value 'fastest' for cpu" in err,
      "bad system file", err)

finish()
