#!/usr/bin/env python3
"""Real server: a 1920x1080 TigerVNC Xvnc desktop shown by vncfb with
--scale fit on mem:1280x720. vncfb's screenshot must match the reference
box filter (tests/scale/boxcmp) applied to the server's own picture
(xwd -root | xwdtopnm). Then the desktop is resized (xrandr) while scaled,
to 1680x1050 (reduced 35:24, pillar-boxed) and 1024x768 (enlarged 15:16):
the mapping must be recomputed and the new picture drawn.

usage: xvnc_fit.py BOXCMP   (VNCFB in the environment)
Xvnc listens on loopback only, on a free port and a free display."""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
from testlib import free_port  # noqa: E402

BOXCMP = sys.argv[1]
VNCFB = os.environ["VNCFB"]
TOOLS = ["Xvnc", "xwd", "xwdtopnm", "xsetroot", "xrandr", "xmessage"]


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def start_xvnc(tmp):
    """Xvnc picks a free display itself (-displayfd) and says which."""
    for _ in range(5):
        s, port = free_port()
        s.close()
        rd, wr = os.pipe()
        log = open(os.path.join(tmp, "xvnc.log"), "w")
        proc = subprocess.Popen(
            ["Xvnc", "-displayfd", str(wr), "-geometry", "1920x1080",
             "-depth", "24", "-SecurityTypes", "None", "-localhost",
             "-rfbport", str(port), "-nolisten", "tcp", "-AlwaysShared",
             "-AcceptSetDesktopSize=0"],
            pass_fds=(wr,), stdout=log, stderr=log)
        os.close(wr)
        data = b""
        deadline = time.time() + 20
        while time.time() < deadline and not data.endswith(b"\n"):
            chunk = os.read(rd, 16)
            if not chunk:
                break
            data += chunk
        os.close(rd)
        if data.strip().isdigit():
            return proc, ":" + data.strip().decode(), port
        proc.kill()
        proc.wait()
    fail("Xvnc did not start; see " + os.path.join(tmp, "xvnc.log"))


def x(display, *cmd, **kw):
    env = dict(os.environ, DISPLAY=display)
    return subprocess.run(list(cmd), env=env, check=True, **kw)


def grab(display, path):
    """The server's own picture, as PPM."""
    env = dict(os.environ, DISPLAY=display)
    xwd = subprocess.run(["xwd", "-root", "-silent"], env=env, check=True,
                         stdout=subprocess.PIPE).stdout
    ppm = subprocess.run(["xwdtopnm"], input=xwd, check=True,
                         stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL).stdout
    with open(path, "wb") as f:
        f.write(ppm)


def shoot(vncfb, shot, dest):
    """SIGUSR1 makes vncfb write its screenshot (atomically)."""
    if os.path.exists(shot):
        os.unlink(shot)
    vncfb.send_signal(signal.SIGUSR1)
    deadline = time.time() + 10
    while not os.path.exists(shot):
        if time.time() > deadline or vncfb.poll() is not None:
            fail("vncfb wrote no screenshot on SIGUSR1")
        time.sleep(0.05)
    os.rename(shot, dest)


def compare(server, shot, what):
    r = subprocess.run([BOXCMP, server, shot, "fit"],
                       stdout=subprocess.PIPE, text=True)
    print(what + ": " + r.stdout.strip())
    if r.returncode != 0:
        fail(what + ": vncfb's picture is not the box-filtered server "
             "picture (files kept in " + os.path.dirname(shot) + ")")


def main():
    missing = [t for t in TOOLS if not shutil.which(t)]
    if missing:
        fail("missing " + ", ".join(missing) + " (install .ci/packages: "
             "tigervnc-standalone-server x11-apps x11-xserver-utils netpbm)")
    tmp = tempfile.mkdtemp(prefix="vncfb-xvnc-")
    xvnc, display, port = start_xvnc(tmp)
    vncfb = None
    ok = False
    try:
        # Fine detail (a 3x5 plaid, text) so that a wrong filter shows;
        # an invisible cursor so the server does not draw one in.
        blank = os.path.join(tmp, "blank.xbm")
        with open(blank, "w") as f:
            f.write("#define blank_width 8\n#define blank_height 8\n"
                    "#define blank_x_hot 0\n#define blank_y_hot 0\n"
                    "static unsigned char blank_bits[] = {\n"
                    "   0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};\n")
        x(display, "xsetroot", "-mod", "3", "5", "-fg", "#ff8000",
          "-bg", "#0040c0", "-cursor", blank, blank)
        msg = subprocess.Popen(
            ["xmessage", "-geometry", "+137+91", "-buttons", "",
             "vncfb scaling: Illegible 1l|I0O text at 2/3 size"],
            env=dict(os.environ, DISPLAY=display),
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(1.0)
        shot = os.path.join(tmp, "shot.ppm")
        vncfb = subprocess.Popen(
            [VNCFB, "127.0.0.1::%d" % port, "-o", "mem:1280x720",
             "--scale", "fit", "--view-only", "--exit-after", "60",
             "--screenshot", shot],
            stderr=open(os.path.join(tmp, "vncfb.log"), "w"))
        # 1920x1080 as it starts; then desktop resizes while scaled:
        # 1680x1050 fits as 1152x720, pillar-boxed, at the awkward ratio
        # 35:24; 1024x768 is scaled up (15:16) to 960x720.
        steps = [(None, "1920x1080 fit 1280x720"),
                 ("1680x1050", "resized 1680x1050 fit"),
                 ("1024x768", "resized 1024x768 fit")]
        for i, (size, what) in enumerate(steps, 1):
            if size:
                x(display, "xrandr", "-s", size, stdout=subprocess.DEVNULL)
                x(display, "xsetroot", "-mod", "3", "5", "-fg", "#ff8000",
                  "-bg", "#0040c0")
            time.sleep(3.0)
            server = os.path.join(tmp, "server%d.ppm" % i)
            mine = os.path.join(tmp, "shot%d.ppm" % i)
            grab(display, server)
            shoot(vncfb, shot, mine)
            compare(server, mine, what)
        msg.kill()
        msg.wait()
        vncfb.send_signal(signal.SIGTERM)
        rc = vncfb.wait(timeout=20)
        if rc != 0:
            fail("vncfb exited with %d (log in %s)" % (rc, tmp))
        vncfb = None
        ok = True
    finally:
        if vncfb is not None:
            vncfb.kill()
            vncfb.wait()
        xvnc.terminate()
        try:
            xvnc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            xvnc.kill()
            xvnc.wait()
        if ok:
            shutil.rmtree(tmp, ignore_errors=True)
    print("xvnc fit: pass")


main()
