#!/usr/bin/env python3
"""Desktop resize mid-session (DesktopSize): the new desktop must show
pixel-exact, centred on black when smaller than the output, its top-left
part when larger, and incremental updates must keep working after it.

usage: test_resize.py FORMAT [ENCODINGS]
"""
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import vnctest as vt  # noqa: E402

OW, OH = 400, 300


def main(tmp):
    fmt = sys.argv[1]
    encodings = sys.argv[2] if len(sys.argv) > 2 else None
    srv = vt.Server(tmp, "--size", "320x240")
    cl = None
    try:
        args = ["-o", "mem:%dx%d:%s" % (OW, OH, fmt)]
        if encodings:
            args += ["--encodings", encodings]
        cl = vt.Vncfb(tmp, args + ["127.0.0.1::%d" % srv.port])
        srv.expect("CLIENT connected")

        def match(what):
            img = srv.dump()
            want = vt.compose(vt.quantise(img, fmt), OW, OH)
            cl.wait_until(lambda got: vt.diff(got, want), what=what)
            vt.log("ok: %s (%dx%d)" % (what, img[0], img[1]))

        match("first picture")
        # smaller (centred), odd sizes, larger in both and in one
        # dimension (top-left), the output's own size, back to the start.
        for w, h in [(200, 150), (123, 77), (640, 480), (500, 200),
                     (400, 300), (320, 240)]:
            srv.send("resize %d %d" % (w, h))
            srv.expect("RESIZED")
            match("after resize to %dx%d" % (w, h))
            srv.send("step %d" % (w % 7))
            match("after a patch at %dx%d" % (w, h))
        rc = cl.terminate()
        if rc != 0:
            raise vt.Fail("vncfb exited %d: %s" % (rc, cl.stderr()))
        vt.log("ok: exit 0")
    finally:
        vt.close_both(cl, srv)


if __name__ == "__main__":
    vt.main(main)
