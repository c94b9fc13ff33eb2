#!/usr/bin/env python3
"""TigerVNC's JPEG encoding (21) against the project's test server, which
sends it as TigerVNC 1.16's server does (testserver_jpeg.c): vncfb offers
it with Tight and --quality (and not without --quality: lossless), draws
whole images, images that reuse the tables of the one before, and images
after a tables-only datastream, each within a mean error of 3 (8-bit
steps) of the server's picture; a stream of images without tables, and
none before, ends the connection with one line naming it (exit 1 with
--no-reconnect).

usage: test_jpeg.py FORMAT
"""
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import vnctest as vt  # noqa: E402

SW, SH = 320, 240
BOUND = 3.0  # a smooth picture at quality 90: about 1; a wrong one >> 10


def main(tmp):
    fmt = sys.argv[1]
    out = ["-o", "mem:%dx%d:%s" % (SW, SH, fmt)]
    srv = vt.Server(tmp, "--size", "%dx%d" % (SW, SH))
    cl = None

    def first_picture(cl):
        """Connected, its encodings set: the server's picture shown."""
        want = vt.quantise(srv.dump(), fmt)
        cl.wait_until(lambda img: None if vt.mean_error(img, want) < 12
                      else "not yet", what="first picture")
    try:
        # Lossless without --quality: not offered.
        cl = vt.Vncfb(tmp, out + ["--encodings", "tight",
                                  "127.0.0.1::%d" % srv.port])
        srv.expect("CLIENT connected")
        cl.wait_until(lambda img: vt.diff(img, vt.quantise(srv.dump(), fmt)),
                      what="first picture")
        srv.send("jpeg whole 90")
        line = srv.expect("JPEG sent ")
        if line != "JPEG sent 0":
            raise vt.Fail("offered without --quality: %s" % line)
        cl.terminate()
        srv.expect("CLIENT gone")

        cl = vt.Vncfb(tmp, out + ["--encodings", "tight", "--quality", "5",
                                  "127.0.0.1::%d" % srv.port])
        srv.expect("CLIENT connected")
        first_picture(cl)
        for mode in ["whole", "reuse", "tables", "reuse"]:
            srv.send("jpeg %s 90" % mode)
            line = srv.expect("JPEG sent ")
            if line != "JPEG sent 1":
                raise vt.Fail("vncfb did not offer encoding 21: %s" % line)
            want = vt.quantise(srv.dump(), fmt)

            def check(img):
                err = vt.mean_error(img, want)
                return None if err < BOUND else "mean error %.2f" % err
            img = cl.wait_until(check, what="JPEG picture (%s)" % mode)
            vt.log("ok: %s, mean error %.2f" % (mode,
                                                 vt.mean_error(img, want)))
        # A lossless patch over it still lands.
        srv.send("step 1")
        want = vt.quantise(srv.dump(), fmt)
        cl.wait_until(lambda img: None if vt.mean_error(img, want) < BOUND
                      else "mean error %.2f" % vt.mean_error(img, want),
                      what="picture after step 1")
        rc = cl.terminate()
        if rc != 0:
            raise vt.Fail("exit %d after SIGTERM: %s" % (rc, cl.stderr()))
        srv.expect("CLIENT gone")

        # Images without tables and none before: the connection ends.
        cl = vt.Vncfb(tmp, out + ["--encodings", "tight", "--quality", "5",
                                  "--no-reconnect",
                                  "127.0.0.1::%d" % srv.port])
        srv.expect("CLIENT connected")
        first_picture(cl)
        srv.send("jpeg notables 90")
        srv.expect("JPEG sent 1")
        rc = cl.wait_exit()
        err = cl.stderr().strip().splitlines()
        want = ("sent a bad JPEG rectangle 320x120 at 0,0: a JPEG image "
                "without quantisation tables, and none came before")
        if rc != 1 or not err or want not in err[-1]:
            raise vt.Fail("no tables: exit %d, stderr %r" % (rc, err))
        vt.log("ok: no tables: %s" % err[-1])
    finally:
        vt.close_both(cl, srv)


if __name__ == "__main__":
    vt.main(main)
