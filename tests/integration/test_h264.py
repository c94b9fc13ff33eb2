#!/usr/bin/env python3
"""Open H.264 end to end: vncfb against tests/integration/h264server.c
(libavcodec's libx264 encoding an animation) on loopback, mem output.

Every check pauses the animation, takes the frame the server sent last
and waits until vncfb's screen holds it within MAX_ERR (mean absolute
error per channel in 8-bit levels against the source quantised to the
format: 4:2:0 chroma and crf 20 give 2.1-2.3 at xrgb8888 on this scene,
3.2-3.5 at rgb565, where libswscale rounds to 5 and 6 bits on its own
way). In order: the animation, ResetContext with a new stream,
ResetAllContexts, frames larger than the desktop (cropped), 63 and 65
tile contexts (with the desktop's own, 64 fit; past that the least
recently used go), then the bad streams, each a fresh vncfb with
--no-reconnect: a frame smaller than its rectangle must end vncfb with
status 1 and one line naming the rectangle, a rectangle cut short (the
server closes) with status 1 and one line, without a hang.

usage: test_h264.py FORMAT | demo | replay
(replay: vncfb bench --record of h264server, then --replay: exit 0, the
bare loop left out with its reason, every play's last picture identical
to the recorder's.)
(demo: vncfb --demo --encodings h264, the demo's own Open H.264 server:
exit 0, the colour bars of its top half on screen within 24 levels where
the bouncing box is not.)
Skips (77) when vncfb was built without libavcodec."""
import os
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import vnctest as vt  # noqa: E402

SW, SH = 320, 240
MAX_ERR = {"xrgb8888": 3.5, "rgb565": 4.5}
SERVER = os.path.join(vt.BUILD, "tests", "integration", "h264server")


class H264Server(vt.Server):
    def __init__(self, tmp, *args):
        self.tmp = tmp
        self.p = subprocess.Popen([SERVER, "--timeout", "120", *args],
                                  stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True,
                                  bufsize=1)
        self.out = vt.LineReader(self.p.stdout)
        vt.log(self.out.expect("ENCODER "))
        self.port = int(self.out.expect("READY ").split()[1])
        self.dumps = 0


def built_with_h264():
    out = subprocess.run([vt.VNCFB, "--version"], capture_output=True,
                         text=True).stdout
    return "Open H.264 decoded by" in out


def check_frame(srv, cl, fmt, what):
    """Pause, and wait until vncfb shows the last frame sent."""
    srv.send("pause")
    want = vt.quantise(srv.dump(), fmt)
    limit = MAX_ERR[fmt]
    last = [None]

    def check(got):
        err = vt.mean_error(got, want)
        last[0] = err
        return None if err <= limit else "mean error %.2f" % err
    cl.wait_until(check, what=what)
    vt.log("ok: %s (mean error %.2f, limit %.1f)" % (what, last[0], limit))
    srv.send("play")


def frames(srv, n=1):
    for _ in range(n):
        srv.expect("FRAME ")


def bad_stream(tmp, fmt, cmd, want):
    srv = H264Server(tmp, "--size", "%dx%d" % (SW, SH))
    cl = None
    try:
        cl = vt.Vncfb(tmp, ["-o", "mem:%dx%d:%s" % (SW, SH, fmt),
                            "-q", "--encodings", "h264", "--no-reconnect",
                            "127.0.0.1::%d" % srv.port])
        srv.expect("CLIENT connected")
        frames(srv)
        srv.send(cmd)
        rc = cl.wait_exit(20)
        err = [ln for ln in cl.stderr().splitlines()
               if not ln.startswith("vncfb: H.264: decoding")]
        if rc != 1 or len(err) != 1 or want not in err[0]:
            raise vt.Fail("%s: status %s, stderr %r; want 1 and one line "
                          "with %r" % (cmd, rc, err, want))
        vt.log("ok: %s: %s" % (cmd, err[0]))
    finally:
        vt.close_both(cl, srv)


BARS = [(255, 255, 255), (0, 255, 255), (255, 255, 0), (0, 255, 0),
        (255, 0, 255), (0, 0, 255), (255, 0, 0), (0, 0, 0)]


def demo(tmp):
    shot = tmp("demo.ppm")
    p = subprocess.run([vt.VNCFB, "--demo", "--encodings", "h264", "-v",
                        "--exit-after", "3", "-o", "mem:800x600:xrgb8888",
                        "--screenshot", shot], capture_output=True,
                       text=True, timeout=60)
    if p.returncode != 0 or "in Open H.264" not in p.stderr or \
            "H.264: decoding in software" not in p.stderr:
        raise vt.Fail("--demo --encodings h264: status %d: %s"
                      % (p.returncode, p.stderr))
    w, h, px = vt.read_ppm(shot)
    good = total = 0
    for y in range(10, 300, 20):
        for i, want in enumerate(BARS):
            x = i * 100 + 50
            got = px[(y * w + x) * 3:(y * w + x) * 3 + 3]
            total += 1
            good += max(abs(a - b) for a, b in zip(got, want)) <= 24
    # The 96x96 box hides at most 5 rows of samples in 2 columns.
    if good < total - 10:
        raise vt.Fail("demo picture: %d of %d bar samples right" %
                      (good, total))
    vt.log("ok: demo in Open H.264: %d of %d bar samples right; %s" %
           (good, total, [ln for ln in p.stderr.splitlines()
                          if "drew" in ln]))
    return 0


def replay(tmp):
    rec = tmp("h264.rec")
    srv = H264Server(tmp, "--size", "%dx%d" % (SW, SH))
    try:
        p = subprocess.run([vt.VNCFB, "bench", "--record", rec,
                            "--updates", "40", "--encodings", "h264",
                            "127.0.0.1::%d" % srv.port],
                           capture_output=True, text=True, timeout=60)
    finally:
        srv.close()
    out = p.stdout + p.stderr
    if p.returncode != 0 or "recorded 40 messages" not in out:
        raise vt.Fail("--record: status %d: %s" % (p.returncode, out))
    p = subprocess.run([vt.VNCFB, "bench", "--replay", rec, "--repeat",
                        "2", "--duration", "20"], capture_output=True,
                       text=True, timeout=120)
    out = p.stdout + p.stderr
    need = ["no bare loop: libvncclient's decoders have no Open H.264",
            "recorded asking for h264, lossy (Open H.264)",
            "pipeline     2 of 2 plays complete, 2 checked: identical"]
    missing = [n for n in need if n not in out]
    if p.returncode != 0 or missing:
        raise vt.Fail("--replay: status %d, missing %s: %s"
                      % (p.returncode, missing, out))
    vt.log("ok: recorded and replayed: %s" % [
        ln for ln in out.splitlines() if "identical" in ln])
    return 0


def main(tmp):
    fmt = sys.argv[1]
    if not built_with_h264():
        vt.log("skip: vncfb was built without libavcodec (no Open H.264)")
        return 77
    if fmt == "demo":
        return demo(tmp)
    if fmt == "replay":
        return replay(tmp)
    srv = H264Server(tmp, "--size", "%dx%d" % (SW, SH))
    cl = None
    try:
        cl = vt.Vncfb(tmp, ["-v", "-o", "mem:%dx%d:%s" % (SW, SH, fmt),
                            "--encodings", "h264",
                            "127.0.0.1::%d" % srv.port])
        srv.expect("CLIENT connected")
        frames(srv, 2)
        check_frame(srv, cl, fmt, "animation after 60 frames")
        srv.send("reset")
        frames(srv)
        check_frame(srv, cl, fmt, "after ResetContext")
        srv.send("resetall")
        frames(srv)
        check_frame(srv, cl, fmt, "after ResetAllContexts")
        srv.send("big")
        frames(srv)
        check_frame(srv, cl, fmt, "frames 16 pixels larger, cropped")
        # 63 tiles and the desktop's context: all kept, tile 0's P frame
        # decodes. 65 more: the least recent go, and the server starts
        # its stream again.
        for n in (63, 65):
            srv.send("contexts %d" % n)
            srv.expect("CONTEXTS %d" % n)
            frames(srv)
            check_frame(srv, cl, fmt, "after %d contexts" % n)
        st = srv.stats()
        if st.get("raw") or not st.get("h264"):
            raise vt.Fail("the server sent %s" % st)
        log = cl.stderr()
        if "H.264: decoding in software" not in log or \
                "VAAPI device" not in log:
            raise vt.Fail("-v does not say which H.264 path and why: %r"
                          % log)
        rc = cl.terminate()
        if rc != 0:
            raise vt.Fail("vncfb exited %d after SIGTERM: %s"
                          % (rc, cl.stderr().strip()))
    finally:
        vt.close_both(cl, srv)
    bad_stream(tmp, fmt, "small", "sent a bad Open H.264 rectangle 320x240 "
               "at 0,0: an H.264 frame of 304x240, smaller than its "
               "rectangle")
    bad_stream(tmp, fmt, "cut", "")
    return 0


if __name__ == "__main__":
    vt.main(main)
