#!/usr/bin/env python3
"""Record the replay benchmark's streams (doc/performance-replay.md):
TigerVNC's Xvnc at 1920x1080 showing tests/bench/xanim, recorded by
vncfb bench --record in each encoding and format of the table. The
scene (--scene) is xanim's: clouds (the default: a full-screen animation
whose every pixel changes in every frame), gradient (a smooth full-screen
gradient moving every frame), desktop (a scrolling terminal and moving
windows: small updates, CopyRect asked for as every viewer does) or text
(small anti-aliased text over a gradient and a soft picture, moving every
frame: hextile's coloured-subrect tiles). Files
are OUTDIR/NAME.rec for the clouds, OUTDIR/SCENE-NAME.rec for the others,
with 4k- (--size 3840x2160) or WxH- before it at another size than 1080p.

The content is deterministic (the same frames on every run); which frames
land in which update depends on the server's speed, but at the default
10 frames per second (25 for the JPEG sets, whose pauses Xvnc fills with
a lossless refresh in small updates) each update is one whole frame.

usage: replay_record.py [--scene clouds|gradient|desktop|text] [--updates N]
                        [--size WxH] [--fps F] [--only NAME,...] OUTDIR

Run from the source tree after a build (ninja -C build); VNCFB and XANIM
override the paths of build/vncfb and build/tests/bench/xanim. Recordings
are large (up to 8 MB an update at 1080p): keep them out of git.
"""
import argparse
import os
import socket
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
VNCFB = os.environ.get("VNCFB", os.path.join(ROOT, "build", "vncfb"))
XANIM = os.environ.get("XANIM", os.path.join(ROOT, "build", "tests", "bench",
                                             "xanim"))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
from test_xserver import start_x, wait_port  # noqa: E402

# name: (encodings, quality, pixel format)
SETS = {
    "tight-q5": ("tight", 5, "xrgb8888"),
    "tight": ("tight", None, "xrgb8888"),
    "zrle": ("zrle", None, "xrgb8888"),
    "hextile": ("hextile", None, "xrgb8888"),
    "raw": ("raw", None, "xrgb8888"),
    "tight-q5-rgb565": ("tight", 5, "rgb565"),
    "zrle-rgb565": ("zrle", None, "rgb565"),
}


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def start_xvnc(size, port, log):
    """Xvnc on a display of its choosing: (process, display number)."""
    x, disp = start_x(["Xvnc", "-geometry", size, "-depth", "24",
                       "-rfbport", str(port), "-SecurityTypes", "None",
                       "-localhost", "-nolisten", "tcp", "-AlwaysShared"],
                      log)
    if not wait_port(port, [x]):
        x.kill()
        sys.exit("Xvnc does not listen on port %d" % port)
    return x, int(disp[1:])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--updates", type=int, default=61)
    ap.add_argument("--size", default="1920x1080")
    ap.add_argument("--fps", help="xanim's frames/s (default: 10, and "
                    "25 for the JPEG sets)")
    ap.add_argument("--only")
    ap.add_argument("--scene", default="clouds",
                    choices=["clouds", "gradient", "desktop", "text"])
    a = ap.parse_args()
    if a.only is None:
        # The other scenes in the formats vncviewer plays too.
        a.only = ",".join(n for n in SETS if a.scene == "clouds" or
                          not n.endswith("rgb565"))
    os.makedirs(a.outdir, exist_ok=True)
    # Another size than 1080p names its files: 4k-text-raw.rec.
    prefix = {"1920x1080": "", "3840x2160": "4k-"}.get(a.size,
                                                       a.size + "-")
    names = a.only.split(",")
    for n in names:
        if n not in SETS:
            sys.exit("unknown set %s (known: %s)" % (n, ", ".join(SETS)))
    log = open(os.path.join(a.outdir, "xvnc.log"), "w")
    port = free_port()
    x, disp = start_xvnc(a.size, port, log)
    env = dict(os.environ, DISPLAY=":%d" % disp)
    anim = None
    anim_fps = None
    try:
        for n in names:
            enc, q, fmt = SETS[n]
            # JPEG: Xvnc sends a lossless refresh of the lossy areas, in
            # small pieces, whenever the picture stands still for a
            # moment; at 10 frames/s the pauses between frames were
            # enough (a recording of 31 updates held 2 to 4 frames).
            # At 25 nearly every update is a whole frame.
            fps = a.fps or ("25" if q is not None else "10")
            if fps != anim_fps:
                if anim:
                    anim.kill()
                    anim.wait()
                anim = subprocess.Popen(
                    [XANIM, "--scene", a.scene, "--fps", fps], env=env,
                    stdout=subprocess.PIPE, text=True)
                if anim.stdout.readline().strip() != "started":
                    sys.exit("xanim did not start")
                anim_fps = fps
            out = os.path.join(a.outdir, prefix + (
                n if a.scene == "clouds" else a.scene + "-" + n) + ".rec")
            if a.scene == "desktop":
                enc += " copyrect"
            cmd = [VNCFB, "bench", "--record", out, "--updates",
                   str(a.updates), "--encodings", enc, "-o",
                   "mem:%s:%s" % (a.size, fmt)]
            if q is not None:
                cmd += ["--quality", str(q)]
            cmd.append("127.0.0.1::%d" % port)
            print("$ " + " ".join(cmd), flush=True)
            subprocess.run(cmd, check=True)
    finally:
        if anim:
            anim.kill()
            anim.wait()
        x.terminate()
        x.wait(10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
