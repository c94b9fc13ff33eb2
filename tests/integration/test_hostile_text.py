#!/usr/bin/env python3
"""Text from a hostile server never reaches the terminal raw: a refusal
reason, a reason after a failed password, the desktop name (escape
sequences, a forged "vncfb: connected to ..." line after a newline, 5,000
bytes), a version string with junk (escapes; words that must not steer
the verdict), and libvncclient's own words under -v. Each case checks vncfb's stderr byte for byte, in the C locale and,
where it differs, in a UTF-8 one.

The servers are tiny scripted listeners on 127.0.0.1 in this process.
"""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import vnctest as vt  # noqa: E402

FORGED = b'vncfb: connected to 127.0.0.1:5900 ("bank", 1920x1080)'
ESCAPES = b"\x1b]0;pwned\x07\x1b[2J\x1b[31m"
# What vncfb shows for ESCAPES + b"\n" + FORGED.
SHOWN = (r"\x1b]0;pwned\x07\x1b[2J\x1b[31m\nvncfb: connected to "
         r'127.0.0.1:5900 ("bank", 1920x1080)')


def u32(n):
    return n.to_bytes(4, "big")


def refuse_38(reason):
    def script(conn):
        conn.sendall(b"RFB 003.008\n")
        conn.recv(12)
        conn.sendall(b"\x00" + u32(len(reason)) + reason)
    return script


def refuse_33(reason):
    def script(conn):
        conn.sendall(b"RFB 003.003\n")
        conn.recv(12)
        conn.sendall(u32(0) + u32(len(reason)) + reason)
    return script


def wrong_password(reason):
    def script(conn):
        conn.sendall(b"RFB 003.008\n")
        conn.recv(12)
        conn.sendall(b"\x01\x02")          # one type: VNC authentication
        conn.recv(1)
        conn.sendall(bytes(range(16)))      # the challenge
        got = b""
        while len(got) < 16:
            got += conn.recv(16 - len(got))
        conn.sendall(u32(1) + u32(len(reason)) + reason)
    return script


def bad_version(version):
    def script(conn):
        conn.sendall(version)
        conn.recv(12)
    return script


def named(name):
    """A server that lets vncfb in, names the desktop, then stays until
    vncfb leaves."""
    def script(conn):
        conn.sendall(b"RFB 003.008\n")
        conn.recv(12)
        conn.sendall(b"\x01\x01")          # one type: None
        conn.recv(1)
        conn.sendall(u32(0))                # SecurityResult OK
        conn.recv(1)                        # ClientInit
        fmt = bytes([32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 16, 8, 0,
                     0, 0, 0])
        conn.sendall((64).to_bytes(2, "big") + (48).to_bytes(2, "big") +
                     fmt + u32(len(name)) + name)
        while conn.recv(4096):
            pass
    return script


def run(script, args=(), env=None, quiet=True):
    srv = vt.FakeServer(script)
    try:
        e = {"LC_ALL": "C"}
        e.update(env or {})
        rc, err = vt.run_vncfb(["-o", "mem:64x48", *args,
                                "127.0.0.1::%d" % srv.port], env=e,
                               quiet=quiet)
    finally:
        srv.close()
    return rc, err, "127.0.0.1:%d" % srv.port


def expect(what, got, want):
    rc, err = got
    if (rc, err) != want:
        raise vt.Fail("%s:\n got  exit %d, %r\n want exit %d, %r"
                      % (what, rc, err, want[0], want[1]))
    vt.log("ok: %s: %s" % (what, err if isinstance(err, list) else
                             err.rstrip("\n")))


def only_printable(what, err):
    bad = sorted({c for c in err if (ord(c) < 0x20 and c != "\n") or
                  0x7f <= ord(c) < 0xa0})
    if bad:
        raise vt.Fail("%s: raw control characters on stderr: %r"
                      % (what, bad))


def main(tmp):
    reason = ESCAPES + b"\n" + FORGED
    rc, err, peer = run(refuse_38(reason))
    expect("3.8 refusal reason", (rc, err),
           (1, "vncfb: %s refused the connection; the server says: %s\n"
            % (peer, SHOWN)))
    rc, err, peer = run(refuse_33(reason))
    expect("3.3 refusal reason", (rc, err),
           (1, "vncfb: %s refused the connection; the server says: %s\n"
            % (peer, SHOWN)))

    rc, err, peer = run(wrong_password(b"bad\tpassword\r\n" + ESCAPES),
                        env={"VNCFB_PASSWORD": "secret"})
    expect("reason after a wrong password", (rc, err),
           (1, "vncfb: authentication failed for %s (wrong password?); the "
            r"server says: bad\tpassword\r\n\x1b]0;pwned\x07\x1b[2J"
            "\\x1b[31m\n" % peer))

    rc, err, peer = run(bad_version(b"RFB\x1b]0;x\x07\x9b2J"))
    expect("version string with junk", (rc, err),
           (1, "vncfb: VNC handshake with %s failed: Not a valid VNC server "
            "(RFB\\x1b]0;x\\x07\\x9b2J)\n" % peer))

    # Words in the junk do not steer the verdict.
    for junk in (b"RFB password", b"certificate\n"):
        shown = junk.decode().replace("\n", r"\n")
        rc, err, peer = run(bad_version(junk))
        expect("version string %r" % junk, (rc, err),
               (1, "vncfb: VNC handshake with %s failed: Not a valid VNC "
                "server (%s)\n" % (peer, shown)))

    # The desktop name, in the line that says vncfb is connected.
    def connected_line(name, env=None):
        rc, err, peer = run(named(name), ["--exit-after", "0.5"], env=env,
                            quiet=False)
        lines = [l for l in err.split("\n") if "connected to" in l]
        return rc, lines, peer

    rc, lines, peer = connected_line(ESCAPES + b"desk\n" + FORGED)
    expect("desktop name with escapes and a forged line", (rc, lines),
           (0, ['vncfb: connected to %s ("\\x1b]0;pwned\\x07\\x1b[2J'
                '\\x1b[31mdesk\\nvncfb: connected to 127.0.0.1:5900 '
                '("bank", 1920x1080)", 64x48)' % peer]))
    rc, lines, peer = connected_line(b"A" * 2500 + b"\x1b[2J" + b"B" * 2500)
    expect("5,000-byte desktop name", (rc, lines),
           (0, ['vncfb: connected to %s ("%s...", 64x48)'
                % (peer, "A" * 200)]))
    name = "B\u00fcro \u6771\u4eac".encode()
    rc, lines, peer = connected_line(name)
    expect("UTF-8 desktop name, C locale", (rc, lines),
           (0, [r'vncfb: connected to %s ("B\xc3\xbcro \xe6\x9d\xb1\xe4'
                r'\xba\xac", 64x48)' % peer]))
    rc, lines, peer = connected_line(name, env={"LC_ALL": "C.UTF-8"})
    expect("UTF-8 desktop name, UTF-8 locale", (rc, lines),
           (0, ['vncfb: connected to %s ("B\u00fcro \u6771\u4eac", 64x48)'
                % peer]))
    rc, lines, peer = connected_line(b"a\xc2\x9b2Jb\xe2\x80\xaeevil",
                                     env={"LC_ALL": "C.UTF-8"})
    expect("C1 CSI and a bidi override, UTF-8 locale", (rc, lines),
           (0, [r'vncfb: connected to %s ("a\xc2\x9b2Jb\xe2\x80\xaeevil", '
                r'64x48)' % peer]))

    # Everything libvncclient says under -v quotes the same text.
    for what, script, extra in [
            ("-v, refusal", refuse_38(reason), {}),
            ("-v, wrong password", wrong_password(reason),
             {"VNCFB_PASSWORD": "secret"}),
            ("-v, version", bad_version(b"RFB\x1b]0;x\x07\x9b2J"), {}),
            ("-v, desktop name", named(ESCAPES + b"\n" + FORGED), {})]:
        rc, err, peer = run(script, ["-v", "--exit-after", "0.5"],
                            env=extra, quiet=False)
        only_printable(what, err)
        forged = [l for l in err.split("\n") if l.startswith(FORGED.decode())]
        if forged:
            raise vt.Fail("%s: a forged line: %r" % (what, forged))
        vt.log("ok: %s: %d lines, none raw" % (what, err.count("\n")))
    return 0


if __name__ == "__main__":
    vt.main(main)
