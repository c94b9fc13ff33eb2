#!/usr/bin/env python3
"""Bad input: each case must end with one line naming the problem and the
right exit status (1 runtime, 2 usage), quickly.

Hostile servers are tiny listeners on loopback in this process. The name
lookup of a .invalid host runs in a network namespace of its own (unshare
-n) so that no query leaves the machine; without unshare that one case is
left out (said on stdout).
"""
import sys
import os
import shutil
import subprocess

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import vnctest as vt  # noqa: E402


def close_after_version(conn):
    conn.sendall(b"RFB 003.008\n")
    conn.recv(12)


def close_at_once(conn):
    pass


def not_vnc(conn):
    conn.sendall(b"SSH-2.0-OpenSSH_9.2p1 Debian-2\r\n")
    conn.recv(100)


def refuse_with_reason(conn):
    conn.sendall(b"RFB 003.008\n")
    conn.recv(12)
    reason = b"too many connections"
    conn.sendall(b"\x00" + len(reason).to_bytes(4, "big") + reason)


def close_after_security(conn):
    conn.sendall(b"RFB 003.008\n")
    conn.recv(12)
    conn.sendall(b"\x01\x01")           # one type: None
    conn.recv(1)
    conn.sendall(b"\x00\x00\x00\x00")   # SecurityResult OK, then gone


def check(what, args, status, words, env=None, quiet=True):
    rc, out = vt.run_vncfb(args, env=env, timeout=30, quiet=quiet)
    lines = [l for l in out.splitlines() if l.strip()]
    if rc != status:
        raise vt.Fail("%s: exit %d, expected %d (%r)"
                      % (what, rc, status, lines))
    if len(lines) != 1:
        raise vt.Fail("%s: expected one line, got %r" % (what, lines))
    line = lines[0]
    if not line.startswith("vncfb: "):
        raise vt.Fail("%s: message does not start with 'vncfb: ': %r"
                      % (what, line))
    for w in words:
        if w.lower() not in line.lower():
            raise vt.Fail("%s: %r does not mention %r" % (what, line, w))
    vt.log("ok: %s -> %d: %s" % (what, rc, line))


def main(tmp):
    mem = ["-o", "mem:64x64"]

    # Usage errors: exit 2, before any connection.
    check("bad output size", ["-o", "mem:0x0", "127.0.0.1"], 2, ["mem:0x0"])
    check("bad output format", ["-o", "mem:100x100:rgb999", "127.0.0.1"], 2,
          ["rgb999"])
    check("unknown output", ["-o", "bogus:1", "127.0.0.1"], 2, ["bogus"])
    check("bad display", [*mem, "127.0.0.1:abc"], 2, ["127.0.0.1:abc"])
    check("bad port", [*mem, "127.0.0.1::70000"], 2, ["70000"])
    check("unclosed bracket", [*mem, "[::1:1"], 2, ["[::1:1"])
    check("unknown encoding", [*mem, "--encodings", "tight bogus",
                               "127.0.0.1"], 2, ["bogus"])
    check("quality out of range", [*mem, "--quality", "10", "127.0.0.1"], 2,
          ["quality"])
    check("no server", mem, 2, ["server"])
    check("unknown option", [*mem, "--frobnicate", "127.0.0.1"], 2,
          ["frobnicate"])

    # Refused: a port bound (so nobody else gets it) but not listening.
    sock, port = vt.free_port()
    try:
        check("refused port", [*mem, "127.0.0.1::%d" % port], 1,
              ["127.0.0.1:%d" % port, "refused"])
    finally:
        sock.close()

    # Unresolvable name, in a network namespace of our own.
    if shutil.which("unshare") and subprocess.run(
            ["unshare", "-n", "true"], capture_output=True).returncode == 0:
        vncfb = vt.VNCFB
        vt.VNCFB = "unshare"
        try:
            check("unresolvable host",
                  ["-n", vncfb, "-q", *mem, "nonexistent.invalid"], 1,
                  ["nonexistent.invalid", "resolve"], quiet=False)
        finally:
            vt.VNCFB = vncfb
    else:
        vt.log("left out: unresolvable host (unshare -n not permitted; a "
               "lookup would leave loopback)")

    for what, script, words in [
            ("server closes after its version", close_after_version,
             ["closed"]),
            ("server closes at once", close_at_once, ["closed"]),
            ("not a VNC server", not_vnc, []),
            ("server refuses with a reason", refuse_with_reason,
             ["too many connections"]),
            ("server closes after security", close_after_security,
             ["closed"])]:
        fake = vt.FakeServer(script)
        try:
            check(what, [*mem, "127.0.0.1::%d" % fake.port], 1,
                  ["127.0.0.1:%d" % fake.port] + words)
        finally:
            fake.close()

    # A VNC password file that is not one.
    short = tmp("short")
    with open(short, "wb") as f:
        f.write(b"abc")
    os.chmod(short, 0o600)
    check("short password file", [*mem, "--passwd", short, "127.0.0.1"], 1,
          [short])


if __name__ == "__main__":
    vt.main(main)
