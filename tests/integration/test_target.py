#!/usr/bin/env python3
"""The server address forms reach the server: HOST::PORT, HOST:DISPLAY
(port 5900 + DISPLAY, or the port itself for 100 or more, as TigerVNC
reads it), a name (localhost), [::1]::PORT and [::1]:DISPLAY over IPv6.
For HOST:DISPLAY under 100 the test server listens on a display's port
(the first free one of 5901-5999). IPv6 cases are left out (said on
stdout) when this machine has no ::1.
"""
import sys
import socket

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import vnctest as vt  # noqa: E402

OW, OH = 320, 240


def has_ipv6_loopback():
    try:
        s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
        s.bind(("::1", 0))
        s.close()
        return True
    except OSError:
        return False


def shows(tmp, srv, target):
    want = vt.compose(srv.dump(), OW, OH)
    cl = vt.Vncfb(tmp, ["-o", "mem:%dx%d" % (OW, OH), target])
    try:
        cl.wait_until(lambda got: vt.diff(got, want),
                      what="picture via " + target)
        rc = cl.terminate()
        if rc != 0:
            raise vt.Fail("%s: exit %d: %s" % (target, rc, cl.stderr()))
    finally:
        cl.kill()
    vt.log("ok: %s" % target)


def display_forms(tmp, host, *extra):
    """HOST:DISPLAY with DISPLAY < 100, on a server at 5900 + DISPLAY."""
    srv = vt.Server(tmp, "--size", "%dx%d" % (OW, OH), "--display", *extra)
    try:
        d = srv.port - 5900
        if not 0 < d < 100:
            raise vt.Fail("--display: the server listens on %d" % srv.port)
        shows(tmp, srv, "%s:%d" % (host, d))
    finally:
        srv.close()


def main(tmp):
    srv = vt.Server(tmp, "--size", "%dx%d" % (OW, OH))
    try:
        p = srv.port
        shows(tmp, srv, "127.0.0.1::%d" % p)
        shows(tmp, srv, "localhost::%d" % p)
        shows(tmp, srv, "127.0.0.1:%d" % p)
    finally:
        srv.close()
    display_forms(tmp, "127.0.0.1")
    if not has_ipv6_loopback():
        vt.log("left out: IPv6 (no ::1 on this machine)")
        return 0
    srv = vt.Server(tmp, "--size", "%dx%d" % (OW, OH), "--ipv6")
    try:
        p = srv.port
        shows(tmp, srv, "[::1]::%d" % p)
        shows(tmp, srv, "[::1]:%d" % p)
    finally:
        srv.close()
    display_forms(tmp, "[::1]", "--ipv6")
    return 0


if __name__ == "__main__":
    vt.main(main)
