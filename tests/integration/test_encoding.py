#!/usr/bin/env python3
"""One encoding, one output format, against the test server: the first
picture, incremental patches and CopyRect scrolls must show pixel-exact on
vncfb's mem output (lossy encodings: bounded mean error), centred on black;
the server must really have used the encoding; SIGTERM leaves with 0.

usage: test_encoding.py ENCODING FORMAT [QUALITY]
  ENCODING: raw copyrect rre corre hextile zlib tight zrle zywrle ultra
  QUALITY:  with tight, enables JPEG (lossy: checked by mean error); with
            zywrle nothing: vncfb has no ZYWRLE decoder and asks for its
            lossless sibling ZRLE, so the picture must be exact
"""
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import vnctest as vt  # noqa: E402

SW, SH = 320, 240       # remote desktop
OW, OH = 400, 300       # output: the desktop is centred at (40, 30)


def main(tmp):
    enc, fmt = sys.argv[1], sys.argv[2]
    quality = sys.argv[3] if len(sys.argv) > 3 else None
    # Without --quality every update must be lossless; ZYWRLE is always
    # asked for as ZRLE.
    lossy = quality is not None and enc != "zywrle"
    # Quality 0-2 is coarse JPEG (about 18 on this scene).
    bound = 25.0 if quality is not None and int(quality) < 3 else 12.0
    # copyrect cannot carry pixels on its own.
    encodings = "copyrect raw" if enc == "copyrect" else enc
    args = ["-o", "mem:%dx%d:%s" % (OW, OH, fmt), "--encodings", encodings]
    if quality is not None:
        args += ["--quality", quality]

    srv = vt.Server(tmp, "--size", "%dx%d" % (SW, SH))
    cl = None
    try:
        cl = vt.Vncfb(tmp, args + ["127.0.0.1::%d" % srv.port])
        srv.expect("CLIENT connected")
        ox, oy = vt.origin(SW, SH, OW, OH)
        inside = (ox, oy, SW, SH)

        def check_against(img_srv):
            want = vt.compose(vt.quantise(img_srv, fmt), OW, OH)

            def check(got):
                if not lossy:
                    return vt.diff(got, want)
                why = vt.border_black(got, SW, SH)
                if why:
                    return why
                err = vt.mean_error(got, want, inside)
                # JPEG / ZYWRLE on this noisy scene: 2-8 levels per
                # channel on average; a wrong picture is far above 30.
                if err > bound:
                    return "mean error %.2f > %g" % (err, bound)
                return None
            return check, want

        steps = [None, "step 1", "step 2", "scroll 0 -17", "scroll 23 0",
                 "step 3", "scroll -9 11"]
        for cmd in steps:
            if cmd:
                srv.send(cmd)
            check, want = check_against(srv.dump())
            cl.wait_until(check, what="picture after %s" % (cmd or "connect"))
            if lossy:
                vt.log("ok: %s (mean error %.2f)" % (
                    cmd or "first picture",
                    vt.mean_error(cl.snapshot(), want, inside)))
            else:
                vt.log("ok: %s" % (cmd or "first picture"))

        st = srv.stats()
        vt.log("server sent: %s" % st)
        # libvncserver counts ZYWRLE rectangles as ZRLE.
        counted = "zrle" if enc == "zywrle" else enc
        if not st.get(counted):
            raise vt.Fail("the server sent no %s rectangles (sent %s)"
                          % (enc, st))
        # RRE and CoRRE send raw where they would be larger than raw.
        allowed = {counted, "lastrect", "desktopsize"}
        if enc in ("copyrect", "rre", "corre"):
            allowed.add("raw")
        bad = set(st) - allowed
        if bad:
            raise vt.Fail("the server also used %s" % sorted(bad))

        rc = cl.terminate()
        if rc != 0:
            raise vt.Fail("vncfb exited %d after SIGTERM: %s"
                          % (rc, cl.stderr().strip()))
        final = vt.read_ppm(cl.shot)
        why = check(final)
        if why:
            raise vt.Fail("final screenshot: %s" % why)
        vt.log("ok: exit 0 and final screenshot")
    finally:
        vt.close_both(cl, srv)


if __name__ == "__main__":
    vt.main(main)
