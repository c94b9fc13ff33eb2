#!/usr/bin/env python3
"""Remote resize (--remote-resize, on by default): vncfb asks a server
that takes SetDesktopSize for the screen's size, once per connection.

usage: test_remote_resize.py xvnc|testserver|x11vnc|silent

xvnc        TigerVNC's Xvnc started at 1280x1024, vncfb on a 1920x1080 mem
            output with --scale fit: within 2 s of vncfb's start the
            picture is the X screen's own, 1920x1080 and pixel-exact (fit
            would have scaled a 1280x1024 desktop); the X screen says
            1920x1080. Then Xvnc is restarted at 1280x1024 on the same
            port: vncfb reconnects and asks again. --no-remote-resize
            and --view-only leave the desktop as it is.
testserver  the project's test server: accepting (the desktop becomes the
            output's size, pixel-exact; a size the server picks later is
            shown, never asked back) and refusing with each status (one
            line naming it and the fallback, the picture 1:1 as --scale
            none shows it); the SetDesktopSize as libvncserver read it.
x11vnc      x11vnc on Xvfb refuses: the fallback in one line.
silent      a server that takes ExtendedDesktopSize but never answers: one
            line after 5 s; the SetDesktopSize's bytes checked.

Exit 77 only when Xvnc, Xvfb, x11vnc or the X tools are not installed.
"""
import os
import re
import shutil
import struct
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import vnctest as vt  # noqa: E402
from test_xserver import EMPTY_XBM, XSession, start_x, wait_port  # noqa: E402,E501

LINE = re.compile(r"^vncfb: .*(?:refused to resize|did not answer the request "
                  r"to resize|cannot resize|forwarded the request to "
                  r"resize|instead of).*$", re.M)


def fallback_lines(err):
    """The remote resize's lines: what failed and what is shown."""
    return LINE.findall(err)


def need(*tools):
    missing = [t for t in tools if not shutil.which(t)]
    if missing:
        vt.log("SKIP: not installed: %s" % " ".join(missing))
        sys.exit(vt.SKIP)


class Xvnc:
    """Xvnc on loopback at w x h, VNC on port (a free one when None)."""

    def __init__(self, tmp, w, h, port=None):
        self.tmp = tmp
        self.log = open(tmp("xvnc.log"), "a")
        keep = None
        if port is None:
            keep, port = vt.free_port()
            keep.close()
        self.port = port
        self.p, self.display = start_x(
            ["Xvnc", "-geometry", "%dx%d" % (w, h), "-depth", "24",
             "-rfbport", str(port), "-SecurityTypes", "None", "-localhost",
             "-nolisten", "tcp", "-AlwaysShared"], self.log)
        self.env = dict(os.environ, DISPLAY=self.display)
        if not wait_port(port, [self.p]):
            self.stop()
            raise vt.Fail("Xvnc: no VNC server on port %d" % port)
        # A pattern that shows any scaling, and no cursor in the picture.
        self.run("xsetroot", "-mod", "3", "2", "-fg", "#ff8000",
                 "-bg", "#0040c0")
        with open(tmp("empty.xbm"), "w") as f:
            f.write(EMPTY_XBM)
        self.run("xsetroot", "-cursor", tmp("empty.xbm"), tmp("empty.xbm"))

    def run(self, *argv):
        return subprocess.run(argv, env=self.env, check=True, timeout=20,
                              stdout=subprocess.PIPE, stderr=self.log,
                              text=True).stdout

    def size(self):
        m = re.search(r"dimensions:\s+(\d+)x(\d+) pixels",
                      self.run("xdpyinfo"))
        return int(m.group(1)), int(m.group(2))

    # xwd -root of self.env's display, as test_xserver's sessions do.
    root = XSession.root

    def stop(self):
        if self.p.poll() is None:
            self.p.terminate()
            try:
                self.p.wait(5)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()


def test_xvnc(tmp):
    need("Xvnc", "xsetroot", "xwd", "xwdtopnm", "xdpyinfo")
    x = Xvnc(tmp, 1280, 1024)
    cl = None
    try:
        t0 = time.monotonic()
        cl = vt.Vncfb(tmp, ["-o", "mem:1920x1080", "--scale", "fit",
                            "--cpu", "0", "127.0.0.1::%d" % x.port])

        def same_as_x(got):
            if (got[0], got[1]) != (1920, 1080):
                return "screenshot %dx%d" % (got[0], got[1])
            root = x.root()
            if (root[0], root[1]) != (1920, 1080):
                return "X screen still %dx%d" % (root[0], root[1])
            return vt.diff(got, root)
        # The time is the screenshot's, taken before it is compared (the
        # X screen's own picture is grabbed once it has the new size).
        root, took, why, last = None, None, "no screenshot", None
        while took is None:
            t = time.monotonic()
            if t - t0 > 10:
                if root and last:
                    why = vt.diff(last, root)
                raise vt.Fail("no 1920x1080 picture within 10 s: %s" % why)
            got = cl.snapshot()
            if got is None:
                raise vt.Fail("vncfb exited: %s" % cl.stderr())
            if root is None and x.size() == (1920, 1080):
                root = x.root()
            if (got[0], got[1]) != (1920, 1080) or root is None:
                why = "screenshot %dx%d, X screen %dx%d" % (
                    (got[0], got[1]) + x.size())
                time.sleep(0.05)
                continue
            # Bytes compared first: vt.diff's pixel loop takes seconds.
            if got[2] == root[2]:
                took = t - t0
            else:
                why = "the picture differs from the X screen's"
                last = got
        vt.log("ok: 1920x1080 remote pixels, pixel-exact, in the screenshot "
               "asked for %.2f s after vncfb started" % took)
        if took > 2.0:
            raise vt.Fail("the picture took %.2f s (target: 2 s)" % took)
        if x.size() != (1920, 1080):
            raise vt.Fail("xdpyinfo says %dx%d" % x.size())
        err = cl.stderr()
        if fallback_lines(err) or "remote desktop is now 1920x1080" not in err:
            raise vt.Fail("vncfb said: %s" % err)
        # The server goes and comes back at its old size: asked again.
        port = x.port
        x.stop()
        x = Xvnc(tmp, 1280, 1024, port)
        cl.wait_until(same_as_x, timeout=30,
                      what="after the reconnect, 1920x1080 again")
        vt.log("ok: asked again after a reconnect")
        rc = cl.terminate()
        if rc != 0:
            raise vt.Fail("vncfb exited %d: %s" % (rc, cl.stderr()))
        cl = None
        x.stop()

        # Not asked: --no-remote-resize, and --view-only as TigerVNC.
        for opt in ("--no-remote-resize", "--view-only"):
            x = Xvnc(tmp, 1280, 1024)
            rc, err = vt.run_vncfb(["-o", "mem:1920x1080", "--cpu", "0",
                                    opt, "--exit-after", "3",
                                    "127.0.0.1::%d" % x.port], quiet=False)
            if rc != 0 or x.size() != (1280, 1024) or fallback_lines(err):
                raise vt.Fail("%s: exit %d, X screen %dx%d: %s"
                              % ((opt, rc) + x.size() + (err,)))
            x.stop()
            vt.log("ok: %s leaves the desktop at 1280x1024" % opt)
    finally:
        if cl:
            cl.kill()
        x.stop()
    return 0


def test_testserver(tmp):
    ow, oh = 400, 300
    # Accepted: the desktop becomes the output's, then follows the
    # server's own size without asking back.
    srv = vt.Server(tmp, "--size", "320x240", "--set-desktop-size", "accept")
    cl = None
    try:
        cl = vt.Vncfb(tmp, ["-o", "mem:%dx%d" % (ow, oh), "--cpu", "0",
                            "127.0.0.1::%d" % srv.port])
        got = srv.expect("SETDESKTOPSIZE ")
        if got != "SETDESKTOPSIZE 400 300 1 1 0 0 400 300 0":
            raise vt.Fail("server read %r" % got)
        srv.expect("RESIZED 400 300")

        def match(what):
            img = srv.dump()
            want = vt.compose(img, ow, oh)
            cl.wait_until(lambda got: vt.diff(got, want), what=what)
            vt.log("ok: %s (%dx%d)" % (what, img[0], img[1]))
        match("accepted: the output's size")
        srv.send("resize 200 150")
        srv.expect("RESIZED 200 150")
        match("the server's own size")
        srv.send("step 3")
        match("and updates after it")
        time.sleep(1.0)
        if sum(l.startswith("SETDESKTOPSIZE") for l in srv.out.seen) != 1 \
                or fallback_lines(cl.stderr()):
            raise vt.Fail("asked back: %r %s" % (srv.out.seen, cl.stderr()))
        rc = cl.terminate()
        if rc != 0:
            raise vt.Fail("vncfb exited %d: %s" % (rc, cl.stderr()))
        cl = None
    finally:
        if cl:
            cl.kill()
        srv.close()

    for answer, why in (("prohibit", "resizing is administratively "
                         "prohibited"),
                        ("resources", "out of resources"),
                        ("invalid", "invalid screen layout")):
        srv = vt.Server(tmp, "--size", "320x240", "--set-desktop-size",
                        answer)
        cl = None
        try:
            cl = vt.Vncfb(tmp, ["-o", "mem:%dx%d" % (ow, oh), "--cpu", "0",
                                "127.0.0.1::%d" % srv.port])
            srv.expect("SETDESKTOPSIZE 400 300 1 ")
            img = srv.dump()
            cl.wait_until(lambda got: vt.diff(got, vt.compose(img, ow, oh)),
                          what="%s: 1:1 as --scale none" % answer)
            want = ["vncfb: 127.0.0.1::%d refused to resize its desktop to "
                    "400x300 (%s): showing 320x240 with --scale none"
                    % (srv.port, why)]
            # The answer may come after the first picture; then time
            # for a second line, which must not come.
            cl.wait_log(want[0], what="%s: no fallback line" % answer)
            time.sleep(0.5)
            got = fallback_lines(cl.stderr())
            if got != want:
                raise vt.Fail("%s: said %r, want %r" % (answer, got, want))
            rc = cl.terminate()
            if rc != 0:
                raise vt.Fail("vncfb exited %d: %s" % (rc, cl.stderr()))
            cl = None
            if sum(l.startswith("SETDESKTOPSIZE") for l in srv.out.seen) != 1:
                raise vt.Fail("%s: asked more than once" % answer)
            vt.log("ok: %s: one line, the picture 1:1" % answer)
        finally:
            if cl:
                cl.kill()
            srv.close()
    return 0


def test_x11vnc(tmp):
    need("Xvfb", "x11vnc")
    log = open(tmp("x.log"), "w")
    xvfb, disp = start_x(["Xvfb", "-screen", "0", "640x480x24", "-nolisten",
                          "tcp"], log)
    keep, port = vt.free_port()
    keep.close()
    v = subprocess.Popen(["x11vnc", "-display", disp, "-rfbport", str(port),
                          "-localhost", "-nopw", "-forever", "-shared",
                          "-noxdamage", "-noipv6", "-quiet"],
                         stdout=log, stderr=log, start_new_session=True)
    try:
        if not wait_port(port, [xvfb, v]):
            raise vt.Fail("x11vnc: no VNC server on port %d" % port)
        rc, err = vt.run_vncfb(["-o", "mem:800x600", "--scale", "fit",
                                "--cpu", "0", "--exit-after", "3",
                                "127.0.0.1::%d" % port], quiet=False)
        want = ["vncfb: 127.0.0.1::%d refused to resize its desktop to "
                "800x600 (resizing is administratively prohibited): "
                "showing 640x480 with --scale fit" % port]
        if rc != 0 or fallback_lines(err) != want:
            raise vt.Fail("exit %d, said %r" % (rc, err))
        vt.log("ok: x11vnc: %s" % want[0])
    finally:
        for p in (v, xvfb):
            p.terminate()
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
    return 0


class SilentServer(vt.ScriptServer):
    """Takes ExtendedDesktopSize and SetDesktopSize's bytes, answers
    neither: the first full request gets the layout, nothing else ever
    comes."""

    def __init__(self, w, h):
        self.w, self.h = w, h
        self.asks = []
        super().__init__()

    def session(self):
        self.hello(self.w, self.h, b"silent")
        eds = False
        while True:
            t = self.read(1)[0]
            if t == 0:
                self.read(19)
            elif t == 2:
                self.read(1)
                n = struct.unpack(">H", self.read(2))[0]
                eds = -308 in struct.unpack(">%di" % n, self.read(4 * n))
            elif t == 3:
                inc = self.read(9)[0]
                if not inc and eds:
                    self.conn.sendall(
                        struct.pack(">BxH", 0, 1) +
                        struct.pack(">HHHHi", 0, 0, self.w, self.h, -308) +
                        struct.pack(">B3xIHHHHI", 1, 42, 0, 0, self.w,
                                    self.h, 5))
            elif t == 4:
                self.read(7)
            elif t == 5:
                self.read(5)
            elif t == 251:
                head = self.read(7)
                self.asks.append(head + self.read(16 * head[5]))
            else:
                raise ValueError("unknown client message %d" % t)


def test_silent(tmp):
    srv = SilentServer(320, 240)
    try:
        t0 = time.monotonic()
        rc, err = vt.run_vncfb(["-o", "mem:400x300", "--cpu", "0",
                                "--exit-after", "7",
                                "127.0.0.1::%d" % srv.port], quiet=False)
        took = time.monotonic() - t0
        want = ["vncfb: 127.0.0.1::%d did not answer the request to resize "
                "its desktop to 400x300 within 5 s: showing 320x240 with "
                "--scale none" % srv.port]
        if rc != 0 or fallback_lines(err) != want:
            raise vt.Fail("exit %d, said %r" % (rc, err))
        # The message: padding, 400x300, one screen, the server's id and
        # flags kept (RFB: preserve what one does not change).
        ask = struct.pack(">xHHBxIHHHHI", 400, 300, 1, 42, 0, 0, 400, 300, 5)
        if srv.error or srv.asks != [ask]:
            raise vt.Fail("server read %r (%s), want [%r]"
                          % (srv.asks, srv.error, ask))
        vt.log("ok: one line after no answer, %.1f s run" % took)
    finally:
        srv.close()
    return 0


def main(tmp):
    return {"xvnc": test_xvnc, "testserver": test_testserver,
            "x11vnc": test_x11vnc, "silent": test_silent}[sys.argv[1]](tmp)


if __name__ == "__main__":
    vt.main(main)
