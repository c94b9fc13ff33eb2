#!/usr/bin/env python3
"""Config files from the command line's side: --check-config reports and
exits 0/2, a bad line names file, line and key and exits 2 before anything
starts, --config FILE must exist, precedence is shown; a server in the file;
what a run would refuse is found by --check-config and by the run, named
FILE:LINE; keys of other commands are not used; ~ is expanded."""
import os
import socket
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
      ("system file " + sysconf + ": not present") in out and
      ("user file " + user + ": not present") in out,
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
check(rc == 0 and "--config file " + other + ": read, 1 setting" in out and
      user not in out, "--config replaces the user file", out + err)
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

os.remove(sysconf)


def one_line(err, *words):
    lines = [l for l in err.splitlines() if l.strip()]
    return len(lines) == 1 and all(w in lines[0] for w in words)


# A server in the file: what a session views, under the command line's.
kiosk = write("kiosk.conf", "server = :5\nreconnect = always\n")
rc, out, err = run(["--check-config", "--config", kiosk], **E)
check(rc == 0 and "line 1: server = :5" in out and
      "line 2: reconnect = always" in out, "server and reconnect keys",
      out + err)
bad_srv = write("badsrv.conf", "\nserver = host:port\n")
rc, out, err = run(["--check-config", "--config", bad_srv], **E)
check(rc == 2 and one_line(err, bad_srv + ":2: bad value 'host:port' for "
                           "server", "HOST[:DISPLAY]"),
      "bad server line", err)
# The file's server is used, and a failure to reach it names its line.
s = socket.socket()
s.bind(("127.0.0.1", 0))
port = s.getsockname()[1]
try:
    srv = write("srv.conf", "# the wall\nserver = 127.0.0.1::%d\n" % port)
    rc, out, err = run(["-q", "-o", "mem:64x64", "--config", srv], **E)
    check(rc == 1 and one_line(err, srv + ":2: cannot connect to "
                               "127.0.0.1:%d" % port, "refused"),
          "server from the file, named on failure", err)
    rc, out, err = run(["-q", "-o", "mem:64x64", "--config", srv,
                        "127.0.0.1::1"], **E)
    check(rc == 1 and one_line(err, "127.0.0.1:1") and srv not in err,
          "the command line's server beats the file's", err)
finally:
    s.close()
# --demo and probe do not take it (and do not fail because of it).
rc, out, err = run(["probe", "-o", "mem:64x64", "--config", kiosk,
                    "--samples", "1"], **E)
check(rc == 0, "probe with a server in the file: exit %d" % rc, err)
# ... while a session does, and waits for it (reconnect = always) until
# --exit-after.
rc, out, err = run(["-o", "mem:64x64", "--config", kiosk, "--exit-after",
                    "1.5"], **E)
check(rc == 0 and "localhost:5905" in err and "reconnecting to :5" in err,
      "session with the file's server and reconnect = always: exit %d" % rc,
      err)

# Keys of other commands are fine in a file: one file serves all.
mixed = write("mixed.conf", "scale = fit\nworkload = idle\nsamples = 2\n")
rc, out, err = run(["probe", "-o", "mem:64x64", "--config", mixed], **E)
check(rc == 0, "probe with session keys in the file: exit %d" % rc, err)

# What a run would refuse, found by --check-config (2) and by the run
# itself before it opens anything (2, or 1 for a device), named FILE:LINE.
pw_ok = write("pw-ok", "")
with open(pw_ok, "wb") as f:
    f.write(bytes([7, 1, 200, 3, 90, 250, 6, 13]))
os.chmod(pw_ok, 0o600)
pw_plain = write("pw-plain", "hunter2\n")
os.chmod(pw_plain, 0o600)
pw_public = write("pw-public", "")
with open(pw_public, "wb") as f:
    f.write(bytes([7, 1, 200, 3, 90, 250, 6, 13]))
os.chmod(pw_public, 0o644)
nocert = write("nocert.pem", "not a certificate\n")
cases = [
    # (line, words of the message, status of a run)
    ("cpu = 4000", ["core 4000", "offline"], 2),
    ("passwd = /nonexistent", ["/nonexistent", "No such file"], 2),
    ("passwd = " + pw_plain, ["plain text", "vncpasswd"], 2),
    ("passwd = " + pw_public, ["chmod 600"], 2),
    ("ca = " + nocert, ["no PEM certificate"], 2),
    ("screenshot = /no/such/dir/x.png", ["/no/such/dir"], 2),
    ("user = no-such-user-vncfb", ["no-such-user-vncfb"], 2),
    ("output = fbdev:/dev/fb77", ["/dev/fb77", "no such device"], 1),
]
if sys.platform.startswith("linux"):
    cases += [
        ("keymap = no-such-layout-vncfb", ["no-such-layout-vncfb"], 2),
        ("input = /dev/input/no-such-event", ["/dev/input/no-such-event"],
         1),
    ]
for line, words, status in cases:
    f = write("refuse.conf", "# kiosk\nserver = 127.0.0.1:1\n" + line + "\n")
    rc, out, err = run(["--check-config", "--config", f], **E)
    check(rc == 2 and one_line(err, f + ":3: ", *words) and
          "configuration OK" not in out,
          "--check-config: %s: exit %d" % (line, rc), err)
    rc, out, err = run(["-q", "--config", f] +
                       ([] if line.startswith("output") else
                        ["-o", "mem:64x64"]), **E)
    check(rc == status and one_line(err, f + ":3: ", *words) and
          "connect" not in err,
          "run: %s: exit %d, want %d" % (line, rc, status), err)
    # The same from the command line: no FILE:LINE, the same words.
    key, value = line.split(" = ")
    args = ["--" + key, value] if key != "cpu" else ["--cpu", value]
    rc, out, err = run(["--check-config"] + args, **E)
    check(rc == 2 and one_line(err, *words) and "refuse.conf" not in err,
          "--check-config --%s: exit %d" % (key, rc), err)

# ~ in a file name: the home of the user vncfb runs as.
home = os.path.join(TMP, "home")
os.makedirs(os.path.join(home, ".vnc"), exist_ok=True)
os.rename(pw_ok, os.path.join(home, ".vnc", "passwd"))
tilde = write("tilde.conf", "passwd = ~/.vnc/passwd\n")
rc, out, err = run(["--check-config", "--config", tilde], HOME=home, **E)
check(rc == 0 and "configuration OK" in out, "~/ in passwd", out + err)
rc, out, err = run(["--check-config", "--config", tilde], HOME=TMP, **E)
check(rc == 2 and one_line(err, tilde + ":1: ", TMP + "/.vnc/passwd"),
      "~/ in passwd, another home", err)

finish()
