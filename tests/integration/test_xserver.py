#!/usr/bin/env python3
"""vncfb against real VNC servers of X displays: TigerVNC's Xvnc, or
x11vnc serving an Xvfb. X clients draw a deterministic scene (an xsetroot
pattern, the test server's scene shown twice by xwud, an invisible root
cursor); the screenshot must equal the server's own `xwd -root` pixel for
pixel for the lossless encodings, and stay close for tight JPEG. Then the
scene changes (a new root pattern, another window) and must follow.

usage: test_xserver.py xvnc|x11vnc

Exit 77 only when the server or X tools are not installed (CI installs
them: .ci/packages).
"""
import os
import shutil
import socket
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import vnctest as vt  # noqa: E402

XW, XH = 640, 480       # X screen
OW, OH = 800, 600       # vncfb output: the screen centred at (80, 60)

EMPTY_XBM = """#define empty_width 8
#define empty_height 8
#define empty_x_hot 0
#define empty_y_hot 0
static unsigned char empty_bits[] = {
   0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
"""

# (name, encodings, quality, output format): lossless ones pixel-exact.
CASES = {
    "xvnc": [
        ("raw", "raw", None, "xrgb8888"),
        ("copyrect+raw", "copyrect raw", None, "xrgb8888"),
        ("rre", "rre", None, "xrgb8888"),
        ("hextile", "hextile", None, "xrgb8888"),
        ("tight", "tight", None, "xrgb8888"),
        ("zrle", "zrle", None, "xrgb8888"),
        ("default", None, None, "xrgb8888"),
        ("tight-jpeg", "tight", "6", "xrgb8888"),
        ("zrle-rgb565", "zrle", None, "rgb565"),
        ("tight-rgb565", "tight", None, "rgb565"),
    ],
    "x11vnc": [
        ("raw", "raw", None, "xrgb8888"),
        ("hextile", "hextile", None, "xrgb8888"),
        ("zlib", "zlib", None, "xrgb8888"),
        ("tight", "tight", None, "xrgb8888"),
        ("zrle", "zrle", None, "xrgb8888"),
        ("ultra", "ultra", None, "xrgb8888"),
        ("corre", "corre", None, "xrgb8888"),
        ("tight-rgb565", "tight", None, "rgb565"),
    ],
}

NEEDED = {
    "xvnc": ["Xvnc"],
    "x11vnc": ["Xvfb", "x11vnc"],
}
TOOLS = ["xsetroot", "xwd", "xwud", "xwdtopnm", "pnmtoxwd"]


def wait_port(port, procs, timeout=20):
    """Whether 127.0.0.1:port accepts a connection within timeout seconds
    while every process of procs keeps running."""
    end = time.monotonic() + timeout
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), 1).close()
            return True
        except OSError:
            if time.monotonic() > end or any(
                    p.poll() is not None for p in procs):
                return False
            time.sleep(0.1)


def start_x(argv, log):
    """Start an X server with -displayfd; returns (Popen, ':N')."""
    r, w = os.pipe()
    p = subprocess.Popen(argv + ["-displayfd", str(w)], pass_fds=(w,),
                         stdout=log, stderr=log, start_new_session=True)
    os.close(w)
    end = time.monotonic() + 20
    buf = b""
    while time.monotonic() < end and not buf.endswith(b"\n"):
        import select
        ready, _, _ = select.select([r], [], [], 0.5)
        if ready:
            chunk = os.read(r, 64)
            if not chunk:
                break
            buf += chunk
        elif p.poll() is not None:
            break
    os.close(r)
    if not buf.strip():
        p.kill()
        p.wait()
        raise vt.Fail("%s did not start (see its log)" % argv[0])
    return p, ":" + buf.decode().strip()


class XSession:
    def __init__(self, tmp, kind):
        self.tmp = tmp
        self.kind = kind
        self.procs = []
        self.log = open(tmp("server.log"), "w")
        self.env = dict(os.environ, DISPLAY="")
        self.port = None
        for attempt in range(3):
            sock, port = vt.free_port()
            sock.close()    # the server binds it next; retried if taken
            try:
                self._start(port)
                return
            except vt.Fail as e:
                self.stop()
                if attempt == 2:
                    raise
                vt.log("retrying: %s" % e)

    def _start(self, port):
        common = ["-screen", "0", "%dx%dx24" % (XW, XH)]
        if self.kind == "xvnc":
            x, disp = start_x(["Xvnc", "-geometry", "%dx%d" % (XW, XH),
                               "-depth", "24", "-rfbport", str(port),
                               "-SecurityTypes", "None", "-localhost",
                               "-nolisten", "tcp", "-AlwaysShared"],
                              self.log)
            self.procs.append(x)
        else:
            x, disp = start_x(["Xvfb", *common, "-nolisten", "tcp"],
                              self.log)
            self.procs.append(x)
        self.env["DISPLAY"] = disp
        self.display = disp
        if self.kind == "x11vnc":
            v = subprocess.Popen(
                ["x11vnc", "-display", disp, "-rfbport", str(port),
                 "-localhost", "-nopw", "-forever", "-shared",
                 "-nocursor", "-noxdamage", "-noipv6", "-quiet"],
                stdout=self.log, stderr=self.log, start_new_session=True)
            self.procs.append(v)
        if not wait_port(port, self.procs):
            raise vt.Fail("%s: no VNC server on port %d" % (self.kind, port))
        self.port = port
        vt.log("%s on %s, VNC port %d" % (self.kind, disp, port))

    def run(self, *argv):
        subprocess.run(argv, env=self.env, check=True, timeout=20,
                       stdout=self.log, stderr=self.log)

    def spawn(self, *argv):
        self.procs.insert(0, subprocess.Popen(
            argv, env=self.env, stdout=self.log, stderr=self.log,
            start_new_session=True))

    def root(self):
        """The root window as the X server has it."""
        path = self.tmp("root.ppm")
        with open(path, "wb") as out:
            xwd = subprocess.Popen(["xwd", "-root", "-silent"],
                                   env=self.env, stdout=subprocess.PIPE,
                                   stderr=self.log)
            subprocess.run(["xwdtopnm"], stdin=xwd.stdout, stdout=out,
                           stderr=subprocess.DEVNULL, check=True,
                           timeout=20)
            xwd.wait(20)
        return vt.read_ppm(path)

    def stop(self):
        for p in self.procs:
            if p.poll() is None:
                p.terminate()
        for p in self.procs:
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        self.procs = []


def draw_scene(tmp, xs, variant):
    """variant 0: the first scene; 1: a changed one."""
    if variant == 0:
        xs.run("xsetroot", "-mod", "7", "5", "-fg", "#ff8000",
               "-bg", "#0040c0")
        with open(tmp("empty.xbm"), "w") as f:
            f.write(EMPTY_XBM)
        xs.run("xsetroot", "-cursor", tmp("empty.xbm"), tmp("empty.xbm"))
        xs.spawn("xwud", "-in", tmp("scene.xwd"), "-geometry", "+50+40")
    else:
        xs.run("xsetroot", "-mod", "3", "9", "-fg", "#10f0a0",
               "-bg", "#400020")
        xs.spawn("xwud", "-in", tmp("scene.xwd"), "-geometry", "+300+200")


def scene_xwd(tmp):
    """The test server's scene as an XWD file for xwud."""
    srv = vt.Server(tmp, "--size", "320x240")
    try:
        img = srv.dump()
    finally:
        srv.close()
    vt.write_ppm(tmp("scene.ppm"), img)
    with open(tmp("scene.xwd"), "wb") as out:
        subprocess.run(["pnmtoxwd", tmp("scene.ppm")], stdout=out,
                       stderr=subprocess.DEVNULL, check=True)


def check_case(tmp, xs, name, encodings, quality, fmt):
    # The X screen keeps its size (Xvnc would take the output's:
    # test_remote_resize.py), so that it shows centred in the output.
    args = ["-o", "mem:%dx%d:%s" % (OW, OH, fmt), "--no-remote-resize"]
    if encodings:
        args += ["--encodings", encodings]
    if quality:
        args += ["--quality", quality]
    cl = vt.Vncfb(tmp, args + ["127.0.0.1::%d" % xs.port],
                  shot="shot-%s.ppm" % name)
    ox, oy = vt.origin(XW, XH, OW, OH)
    # To 16 bpp both round to nearest, with ties that differ (see
    # vnctest._table).
    mode = "round" if xs.kind == "x11vnc" else "round-up"

    def check(got):
        want = vt.compose(vt.quantise(xs.root(), fmt, mode), OW, OH)
        if not quality:
            return vt.diff(got, want)
        why = vt.border_black(got, XW, XH)
        if why:
            return why
        err = vt.mean_error(got, want, (ox, oy, XW, XH))
        return None if err < 6 else "mean error %.2f >= 6" % err
    try:
        cl.wait_until(check, what="%s: first picture" % name)
        rc = cl.terminate()
        if rc != 0:
            raise vt.Fail("%s: exit %d: %s" % (name, rc, cl.stderr()))
        why = check(vt.read_ppm(cl.shot))
        if why:
            raise vt.Fail("%s: final screenshot: %s" % (name, why))
    finally:
        cl.kill()
    vt.log("ok: %s %s" % (name, fmt))
    return cl


def main(tmp):
    kind = sys.argv[1]
    missing = [t for t in NEEDED[kind] + TOOLS if not shutil.which(t)]
    if missing:
        sys.stderr.write("SKIP: not installed: %s (Debian: see "
                         ".ci/packages)\n" % " ".join(missing))
        return vt.SKIP
    scene_xwd(tmp)
    xs = XSession(tmp, kind)
    try:
        draw_scene(tmp, xs, 0)
        for case in CASES[kind]:
            check_case(tmp, xs, *case)
        # The scene changes under a running session: incremental updates
        # must bring the picture to the new root exactly.
        args = ["-o", "mem:%dx%d" % (OW, OH), "--no-remote-resize",
                "--encodings",
                "copyrect zrle hextile raw", "127.0.0.1::%d" % xs.port]
        cl = vt.Vncfb(tmp, args, shot="shot-live.ppm")
        try:
            def check(got):
                return vt.diff(got, vt.compose(xs.root(), OW, OH))
            cl.wait_until(check, what="live: first picture")
            before = xs.root()
            scene = vt.read_ppm(tmp("scene.ppm"))
            draw_scene(tmp, xs, 1)

            def check_new(got):
                root = xs.root()
                # The change must be on the X screen (the new window's
                # corners drawn) before the screenshot can show it.
                for sx, sy in [(0, 0), (319, 239)]:
                    i = ((200 + sy) * XW + 300 + sx) * 3
                    j = (sy * 320 + sx) * 3
                    if root[2][i:i + 3] != scene[2][j:j + 3]:
                        return "the new window is not drawn yet"
                if root == before:
                    return "the X screen did not change"
                return vt.diff(got, vt.compose(root, OW, OH))
            cl.wait_until(check_new, what="live: after the scene changed")
            rc = cl.terminate()
            if rc != 0:
                raise vt.Fail("live: exit %d: %s" % (rc, cl.stderr()))
        finally:
            cl.kill()
        vt.log("ok: live scene change")
    finally:
        xs.stop()
    return 0


if __name__ == "__main__":
    vt.main(main)
