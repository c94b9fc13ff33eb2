#!/usr/bin/env python3
"""One desktop across several heads (mem:WxH,heads=N, the same heads,
layout and blitters per head as drm:all), against the project's test
server.

* Accepting SetDesktopSize: two 400x300 heads ask for one 800x300
  desktop of two screens side by side, and show it pixel-exact (the
  screenshot is the layout: each head where it sits).
* --layout mem-1:0,300 mem-2:0,0: the second head above the first; the
  request and the picture follow.
* Refusing: the fallback in one line, the 320x240 desktop centred on the
  whole layout, half on each head.
* Bad layouts: one line each, exit 1.

usage: test_heads.py
"""
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import vnctest as vt  # noqa: E402


def screens(line):
    """SETDESKTOPSIZE W H N [ID X Y W H FLAGS]...: the size and the
    screens' rectangles (ids are the client's to choose)."""
    f = [int(x) for x in line.split()[1:]]
    w, h, n = f[:3]
    return (w, h), [tuple(f[3 + 6 * i + 1:3 + 6 * i + 5]) for i in range(n)]


def accepted(tmp, layout, want_size, want_screens):
    srv = vt.Server(tmp, "--size", "320x240", "--set-desktop-size", "accept")
    cl = None
    try:
        args = ["-o", "mem:400x300,heads=2", "--cpu", "0"]
        if layout:
            args += ["--layout", layout]
        cl = vt.Vncfb(tmp, args + ["127.0.0.1::%d" % srv.port])
        size, scr = screens(srv.expect("SETDESKTOPSIZE "))
        if size != want_size or scr != want_screens:
            raise vt.Fail("asked for %r %r, want %r %r" % (
                size, scr, want_size, want_screens))
        srv.expect("RESIZED %d %d" % want_size)
        img = srv.dump()
        cl.wait_until(lambda got: vt.diff(got, img),
                      what="the %dx%d desktop on both heads" % want_size)
        vt.log("ok: %s: one %dx%d desktop, screens %r, pixel-exact" % (
            layout or "side by side", want_size[0], want_size[1], scr))
        rc = cl.terminate()
        if rc != 0:
            raise vt.Fail("vncfb exited %d: %s" % (rc, cl.stderr()))
        cl = None
    finally:
        if cl:
            cl.kill()
        srv.close()


def refused(tmp):
    srv = vt.Server(tmp, "--size", "320x240", "--set-desktop-size",
                    "prohibit")
    cl = None
    try:
        cl = vt.Vncfb(tmp, ["-o", "mem:400x300,heads=2", "--cpu", "0",
                            "127.0.0.1::%d" % srv.port])
        srv.expect("SETDESKTOPSIZE 800 300 2 ")
        img = srv.dump()
        # Centred on the layout: 240 columns on head 1, 80 on head 2.
        cl.wait_until(lambda got: vt.diff(got, vt.compose(img, 800, 300)),
                      what="the desktop centred across the heads")
        want = ("vncfb: 127.0.0.1::%d refused to resize its desktop to "
                "800x300 (resizing is administratively prohibited): "
                "showing 320x240 with --scale none" % srv.port)
        # The server's answer may come after the first picture.
        cl.wait_log(want, what="no fallback line %r" % want)
        rc = cl.terminate()
        if want not in cl.stderr().splitlines():
            raise vt.Fail("the fallback line %r is not a line of its own "
                          "in %s" % (want, cl.stderr()))
        if rc != 0:
            raise vt.Fail("vncfb exited %d: %s" % (rc, cl.stderr()))
        cl = None
        vt.log("ok: refused: one line, the desktop across both heads")
    finally:
        if cl:
            cl.kill()
        srv.close()


def bad_layouts(tmp):
    for layout, want in (
            ("mem-1:0,0 mem-2:100,0",
             "vncfb: layout: mem-2 (400x300 at 100,0) overlaps mem-1 "
             "(400x300 at 0,0)"),
            ("mem-1:0,0 mem-3:400,0",
             "vncfb: layout: no head mem-3 (the heads: mem-1:0,0 "
             "mem-2:400,0)"),
            ("mem-1:0,0",
             "vncfb: layout: mem-2 is left out (every head needs NAME:X,Y)"),
            ("mem-1:0,0 mem-2:65400,0",
             "vncfb: layout: the desktop would be 65800x300, more than "
             "RFB's 65535 on a side")):
        cl = vt.Vncfb(tmp, ["-o", "mem:400x300,heads=2", "--layout", layout,
                            "127.0.0.1::1"])
        rc = cl.p.wait(timeout=20)
        err = [l for l in cl.stderr().splitlines() if l.strip()]
        if rc != 1 or err != [want]:
            raise vt.Fail("--layout %r: exit %d, said %r, want exit 1 and "
                          "%r" % (layout, rc, err, want))
        vt.log("ok: --layout %r refused in one line" % layout)


def main(tmp):
    accepted(tmp, None, (800, 300), [(0, 0, 400, 300), (400, 0, 400, 300)])
    accepted(tmp, "mem-1:0,300 mem-2:0,0", (400, 600),
             [(0, 300, 400, 300), (0, 0, 400, 300)])
    refused(tmp)
    bad_layouts(tmp)
    return 0


if __name__ == "__main__":
    vt.main(main)
