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

    # A VNC password file that is not one: found before anything opens,
    # a configuration error (2).
    short = tmp("short")
    with open(short, "wb") as f:
        f.write(b"abc")
    os.chmod(short, 0o600)
    check("short password file", [*mem, "--passwd", short, "127.0.0.1"], 2,
          [short, "vncpasswd"])
    plain = tmp("plain")
    with open(plain, "w") as f:
        f.write("secret password\n")
    os.chmod(plain, 0o600)
    check("plain-text password file", [*mem, "--passwd", plain,
                                       "127.0.0.1"], 2,
          [plain, "plain text", "vncpasswd"])
    public = tmp("public")
    with open(public, "wb") as f:
        f.write(bytes(range(8)))
    os.chmod(public, 0o644)
    check("public password file", [*mem, "--passwd", public, "127.0.0.1"],
          2, [public, "chmod 600"])
    check("missing password file", [*mem, "--passwd", tmp("none"),
                                    "127.0.0.1"], 2, [tmp("none")])

    # What a run would refuse is refused before it connects.
    check("offline core", [*mem, "--cpu", "4000", "127.0.0.1"], 2,
          ["core 4000", "offline"])
    check("screenshot directory", [*mem, "--screenshot",
                                   "/no/such/dir/x.ppm", "127.0.0.1"], 2,
          ["/no/such/dir"])
    check("screenshot format", [*mem, "--screenshot", "x.gif",
                                "127.0.0.1"], 2, ["x.gif", ".png"])
    check("missing framebuffer", ["-o", "fbdev:/dev/no-such-fb",
                                  "127.0.0.1"], 1, ["/dev/no-such-fb"])
    check("mem too large", ["-o", "mem:9000x100", "127.0.0.1"], 2,
          ["8192"])
    if os.uname().sysname == "Linux":
        check("another platform's output", ["-o", "wsdisplay", "127.0.0.1"],
              2, ["wsdisplay", "NetBSD", "fbdev"])
    check("CA file without a certificate", [*mem, "--ca", short,
                                            "127.0.0.1"], 2,
          [short, "certificate"])
    check("unknown user", [*mem, "--user", "no-such-user-vncfb",
                           "127.0.0.1"], 2, ["no-such-user-vncfb"])

    # Options of another command; TigerVNC's parameters that are refused.
    check("probe takes no encodings", ["probe", "--encodings", "raw"], 2,
          ["--encodings", "probe"], quiet=False)
    check("session takes no workload", [*mem, "--workload", "idle",
                                        "127.0.0.1"], 2, ["--workload"])
    check("-via", [*mem, "-via", "gw", "127.0.0.1"], 2, ["-via", "ssh"])
    check("-SecurityTypes", [*mem, "-SecurityTypes", "X509Vnc,Kerberos",
                             "127.0.0.1"], 2, ["-SecurityTypes", "Kerberos"])
    check("--security", [*mem, "--security", "", "127.0.0.1"], 2,
          ["--security", "X509Plain"])
    check("-X509CRL", [*mem, "-X509CRL=crl.pem", "127.0.0.1"], 2,
          ["-X509CRL", "revocation"])
    # (H.264 is vncfb's h264 where it is built.)
    check("unknown TigerVNC value", [*mem, "-PreferredEncoding", "MPEG",
                                     "127.0.0.1"], 2, ["MPEG"])
    # An ignored one says so once, and the run goes on (here to a refused
    # port: the second line).
    sock, port = vt.free_port()
    try:
        rc, out = vt.run_vncfb([*mem, "-FullScreen", "-geometry", "10x10",
                                "127.0.0.1::%d" % port])
        lines = [l for l in out.splitlines() if l.strip()]
        if rc != 1 or len(lines) != 3 or \
                "-FullScreen is ignored" not in lines[0] or \
                "-geometry is ignored" not in lines[1] or \
                "refused" not in lines[2]:
            raise vt.Fail("ignored TigerVNC parameters: exit %d, %r"
                          % (rc, lines))
        vt.log("ok: ignored TigerVNC parameters -> warned, then %r"
               % lines[2])
        # TigerVNC's host forms: :N and host:N >= 100.
        check("host:N >= 100 is a port", [*mem, "127.0.0.1:%d" % port], 1,
              ["127.0.0.1:%d" % port, "refused"])
    finally:
        sock.close()


if __name__ == "__main__":
    vt.main(main)
