#!/usr/bin/env python3
"""Hostile RSA-AES handshakes (ra2server.py --evil): a 0-bit and a
100,000-bit key, a bad MAC, a truncated EAX frame, a hash of other keys,
a reason string of 4 GB announced, a server that stalls after its key,
and a bad MAC in the session after the handshake (with --no-reconnect).
Each: one line naming what was wrong, exit 1, no crash, no hang past the
handshake's deadline, no credential in any output.
"""
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import vnctest as vt  # noqa: E402

PASSWORD = "pw-Hostile#41"

# mode, type, what the one line must say
CASES = [
    ("keybits0", 129, "RSA key of 0 bits"),
    ("keybits100000", 5, "RSA key of 100000 bits"),
    ("badmac", 129, "MAC does not match"),
    ("badmac", 6, "MAC does not match"),
    ("truncframe", 5, "middle of an RSA-AES frame"),
    ("badhash", 130, "hash of the RSA keys that does not match"),
    ("reason4g", 129, "authentication failed"),
    ("stall", 5, "handshake not finished"),
    # After the handshake, in the session (the test server behind).
    ("latebadmac", 129, "MAC does not match"),
]


def main(tmp):
    srv = vt.Server(tmp, "--size", "64x48")
    servers = [srv]
    try:
        for mode, rtype, want in CASES:
            ra = vt.Ra2Server("--type", str(rtype), "--password", PASSWORD,
                              "--evil", mode, "--backend", str(srv.port))
            servers.append(ra)
            port = ra.port
            # reason4g needs the password refused: send another.
            pw = PASSWORD + ("x" if mode == "reason4g" else "")
            t0 = time.monotonic()
            rc, out = vt.run_vncfb(
                ["-o", "mem:64x64", "--no-reconnect",
                 "127.0.0.1::%d" % port],
                env={"VNCFB_PASSWORD": pw,
                     "XDG_CONFIG_HOME": tmp("config")}, timeout=60)
            took = time.monotonic() - t0
            # Besides the line: the key's first contact, recorded with a
            # warning, where the server got as far as sending a key.
            lines = [l for l in out.splitlines() if l.strip() and
                     "first contact, RSA key" not in l]
            if PASSWORD in out:
                raise vt.Fail("%s: the password is in the output" % mode)
            if rc != 1 or len(lines) != 1 or want not in lines[0]:
                raise vt.Fail("%s (type %d): exit %d, %r (want one line "
                              "with %r)" % (mode, rtype, rc, lines, want))
            vt.log("ok: %s (type %d, %.1f s): %s"
                   % (mode, rtype, took, lines[0]))
    finally:
        vt.close_all(servers)
    return 0


if __name__ == "__main__":
    vt.main(main)
