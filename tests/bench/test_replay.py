#!/usr/bin/env python3
"""vncfb bench --record and --replay against TigerVNC's Xvnc. A small
desktop plays a few frames of tests/bench/xanim (every pixel changes in
every frame) while vncfb bench --record saves the stream; then:

* the recording's last picture (the recorder's own decode) is the X
  server's `xwd -root`, pixel for pixel for the lossless encodings, within
  JPEG's mean error for tight JPEG;
* vncfb bench --replay plays it to vncfb's pipeline, the memcpy reference
  and the bare libvncclient loop, which must end on the recorder's picture
  (the bench checks it and says "identical"), and its numbers hang
  together (counts, rates and the /bare ratio from the per-play numbers
  beside them);
* vncfb bench --replay --serve serves it to a vncfb viewer, whose
  screenshot must be the X server's picture;
* what must be refused is, in one line: an encrypted server, a recording
  cut short, a pixel format other than the recorded one.

usage: test_replay.py XANIM lossless|lossy

Exit 77 only when Xvnc or the X tools (or xanim, which needs libX11) are
missing; CI installs them (.ci/packages).
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
import vnctest as vt  # noqa: E402
from test_xserver import start_x  # noqa: E402
import recfile  # noqa: E402

XW, XH = 256, 192
FRAMES = 6

# (name, encodings, quality, format)
CASES = {
    "lossless": [
        ("raw", "raw", None, "xrgb8888"),
        ("hextile", "hextile", None, "xrgb8888"),
        ("zrle", "zrle", None, "xrgb8888"),
        ("tight", "tight", None, "xrgb8888"),
        ("zrle-rgb565", "zrle", None, "rgb565"),
    ],
    "lossy": [
        ("tight-q5", "tight", "5", "xrgb8888"),
        ("tight-q5-rgb565", "tight", "5", "rgb565"),
    ],
}
# The served viewer's picture is checked for these.
VIEWER = {"zrle", "zrle-rgb565", "tight-q5"}


class Xvnc:
    def __init__(self, tmp, security="None"):
        self.tmp = tmp
        self.log = open(tmp("xvnc-%s.log" % security), "w")
        for attempt in range(3):
            sock, port = vt.free_port()
            sock.close()
            try:
                self.x, self.display = start_x(
                    ["Xvnc", "-geometry", "%dx%d" % (XW, XH), "-depth",
                     "24", "-rfbport", str(port), "-SecurityTypes",
                     security, "-localhost", "-nolisten", "tcp",
                     "-AlwaysShared"], self.log)
            except vt.Fail:
                if attempt == 2:
                    raise
                continue
            self.port = port
            if self.wait_port():
                break
            self.stop()
        self.env = dict(os.environ, DISPLAY=self.display)

    def wait_port(self):
        import socket
        end = time.monotonic() + 20
        while time.monotonic() < end and self.x.poll() is None:
            try:
                socket.create_connection(("127.0.0.1", self.port),
                                         1).close()
                return True
            except OSError:
                time.sleep(0.1)
        return False

    def root(self, fmt):
        path = self.tmp("root.ppm")
        with open(path, "wb") as out:
            xwd = subprocess.Popen(["xwd", "-root", "-silent"],
                                   env=self.env, stdout=subprocess.PIPE)
            subprocess.run(["xwdtopnm"], stdin=xwd.stdout, stdout=out,
                           stderr=subprocess.DEVNULL, check=True,
                           timeout=20)
            xwd.wait(20)
        # TigerVNC rounds half up when it quantises to 16 bpp.
        return vt.quantise(vt.read_ppm(path), fmt, "round-up")

    def stop(self):
        if self.x.poll() is None:
            self.x.terminate()
            try:
                self.x.wait(5)
            except subprocess.TimeoutExpired:
                self.x.kill()
                self.x.wait()


def vncfb(args, timeout=60):
    vt.log("$ vncfb " + " ".join(args))
    p = subprocess.run([vt.VNCFB, *args], capture_output=True, text=True,
                       timeout=timeout, stdin=subprocess.DEVNULL)
    return p.returncode, p.stdout, p.stderr


def one_line(err):
    lines = [x for x in err.splitlines() if x.strip()]
    return len(lines) == 1


def record(tmp, xs, xanim, name, enc, q, fmt, frames=FRAMES, updates=None):
    """Record while xanim draws frames; returns (path, recorder output)."""
    path = tmp(name + ".rec")
    args = [vt.VNCFB, "bench", "--record", path, "--encodings", enc,
            "--exit-after", "30", "-o", "mem:%dx%d:%s" % (XW, XH, fmt)]
    if q:
        args += ["--quality", q]
    if updates:
        args += ["--updates", str(updates)]
    args.append("127.0.0.1::%d" % xs.port)
    vt.log("$ " + " ".join(args))
    rec = subprocess.Popen(args, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    err = vt.LineReader(rec.stderr)
    anim = None
    try:
        err.expect("vncfb: connected to", 20)
        # Three bells after each frame: Bell messages back to back, so
        # that libvncclient's buffer holds the next message when one
        # ends (where the recorder must not cut).
        anim = subprocess.Popen([xanim, "--fps", "25", "--frames",
                                 str(frames), "--bell", "3"], env=xs.env,
                                stdout=subprocess.PIPE, text=True)
        if updates:
            out, _ = rec.communicate(timeout=30)
        else:
            anim.stdout.readline()  # started
            line = anim.stdout.readline()
            if not line.startswith("done"):
                raise vt.Fail("%s: xanim said %r" % (name, line))
            # The last frame's update follows its XSync at once (the
            # recorder's request is waiting); give it time to land.
            time.sleep(0.5)
            rec.send_signal(signal.SIGINT)
            out, _ = rec.communicate(timeout=20)
    finally:
        if rec.poll() is None:
            rec.kill()
            rec.wait()
    if rec.returncode != 0:
        raise vt.Fail("%s: recorder exit %d: %s" % (name, rec.returncode,
                                                    "\n".join(err.seen)))
    return path, out, anim


def check_recording(name, path, out, fmt, want, lossy, updates=None):
    r = recfile.read(path)
    vt.log("%s: %s" % (name, out.strip()))
    if "recorded %d messages (%d updates, %d of the whole desktop)" % (
            len(r.messages), r.updates, r.full) not in out:
        raise vt.Fail("%s: the recorder's summary %r does not match the "
                      "file (%d messages, %d updates, %d full)"
                      % (name, out, len(r.messages), r.updates, r.full))
    if (r.width, r.height) != (XW, XH):
        raise vt.Fail("%s: desktop %dx%d" % (name, r.width, r.height))
    if updates is not None and r.updates != updates:
        raise vt.Fail("%s: --updates %d recorded %d" % (name, updates,
                                                        r.updates))
    # The first update, then (nearly) every frame, each a whole desktop
    # (a 1x1 update for the cursor's spot may come in between). With
    # JPEG, TigerVNC follows a still picture with a lossless refresh, in
    # small pieces.
    if r.updates < 4 or r.full < (3 if lossy else r.updates - 2):
        raise vt.Fail("%s: %d updates, %d full" % (name, r.updates,
                                                   r.full))
    if any((m[0] & recfile.UPDATE) != (m[3] == 0) for m in r.messages):
        raise vt.Fail("%s: update flags do not match message types" % name)
    if want is None:
        return r
    w, h, raw = r.final
    got = (w, h, recfile.to_rgb(raw, r.client_pf))
    if lossy:
        err = vt.mean_error(got, want)
        if err >= 6:
            raise vt.Fail("%s: recorded picture mean error %.2f" % (name,
                                                                   err))
    else:
        why = vt.diff(got, want)
        if why:
            raise vt.Fail("%s: recorded picture against xwd: %s" % (name,
                                                                   why))
    return r


def check_replay(tmp, name, path, r, lossy):
    jpath = tmp(name + ".json")
    rc, out, err = vncfb(["bench", "--replay", path, "--cpu", "0",
                          "--repeat", "2", "--json", jpath])
    if rc != 0:
        raise vt.Fail("%s: bench --replay exit %d: %s" % (name, rc, err))
    with open(jpath) as f:
        j = json.load(f)
    kinds = sorted(x["kind"] for x in j["runs"])
    if kinds != ["bare", "memcpy", "pipeline"]:
        raise vt.Fail("%s: runs %s" % (name, kinds))
    for kind in ("pipeline", "memcpy", "bare"):
        line = [x for x in out.splitlines()
                if x.strip().startswith(kind + " ")]
        want = ("2 of 2 plays complete, 2 checked: mean error at most"
                if lossy else "2 of 2 plays complete, 2 checked: identical")
        if len(line) != 1 or want not in line[0]:
            raise vt.Fail("%s: %s replay check: %r" % (name, kind, line))
    byk = {x["kind"]: x for x in j["runs"]}
    for x in j["runs"]:
        what = "%s %s" % (name, x["kind"])
        if x["workload"] != "replay":
            raise vt.Fail("%s: workload %s" % (what, x["workload"]))
        su, ss = x["slice_updates"], x["slice_s"]
        # Per play: the updates after the first, less at most the one
        # that came before the window opened.
        if len(su) != 2 or any(not (r.updates - 2 <= n <= r.updates - 1)
                               for n in su):
            raise vt.Fail("%s: per play %s of %d" % (what, su, r.updates))
        if x["updates"] != sum(su) or not all(s > 0 for s in ss):
            raise vt.Fail("%s: %d updates, plays %s in %s"
                          % (what, x["updates"], su, ss))
        if abs(x["window_s"] - sum(ss)) > 1e-5 or \
                abs(x["updates_per_s"] - sum(su) / sum(ss)) > \
                1e-3 * x["updates_per_s"]:
            raise vt.Fail("%s: %.6f upd/s over %.6f s from %s in %s"
                          % (what, x["updates_per_s"], x["window_s"],
                             su, ss))
        lat = x["latency_ms"]["total"]
        if lat["n"] != x["updates"] or not (
                0 < lat["min"] <= lat["median"] <= lat["p99"] <=
                lat["max"] < 10000):
            raise vt.Fail("%s: latency %s" % (what, lat))
        if x["kind"] != "bare":
            b = byk["bare"]
            rates = sorted((su[k] / ss[k]) / (b["slice_updates"][k] /
                                              b["slice_s"][k])
                           for k in range(2))
            want = (rates[0] + rates[1]) / 2
            got = x["ratios"]["updates_vs_bare"]
            if got is None or abs(got - want) > 1e-3 * want:
                raise vt.Fail("%s: /bare %s, from the plays %.4f"
                              % (what, got, want))
    vt.log("ok: %s replay: %s" % (name, ", ".join(
        "%s %.0f upd/s" % (x["kind"], x["updates_per_s"])
        for x in j["runs"])))


def check_viewer(tmp, name, path, fmt, want, lossy):
    """The recording served to a vncfb viewer ends on the X picture."""
    srv = subprocess.Popen([vt.VNCFB, "bench", "--replay", path, "--serve",
                            "0"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    out = vt.LineReader(srv.stdout)
    try:
        port = int(out.expect("replay: serving", 20).rsplit(":", 1)[1])
        cl = vt.Vncfb(tmp, ["-q", "-o", "mem:%dx%d:%s" % (XW, XH, fmt),
                            "--view-only", "127.0.0.1::%d" % port],
                      shot="shot-%s.ppm" % name)
        try:
            def check(got):
                if lossy:
                    err = vt.mean_error(got, want)
                    return None if err < 6 else "mean error %.2f" % err
                return vt.diff(got, want)
            out.expect("replay: client 1: played", 20)
            cl.wait_until(check, what="%s: served picture" % name)
            rc = cl.terminate()
            if rc != 0:
                raise vt.Fail("%s: viewer exit %d" % (name, rc))
        finally:
            cl.kill()
        out.expect("replay: client 1: left after", 10)
    finally:
        srv.send_signal(signal.SIGTERM)
        srv.wait(10)
    if srv.returncode != 0:
        raise vt.Fail("%s: --serve exit %d" % (name, srv.returncode))
    vt.log("ok: %s served to the viewer" % name)


def check_refusals(tmp, rec_path):
    """One line and the right status for what cannot be recorded or
    replayed."""
    out = tmp("tls.rec")
    xs = Xvnc(tmp, "TLSNone")
    try:
        rc, _, err = vncfb(["bench", "--record", out, "--insecure",
                            "--exit-after", "5",
                            "127.0.0.1::%d" % xs.port])
    finally:
        xs.stop()
    lines = [x for x in err.splitlines() if "uses TLS" in x]
    if rc != 1 or len(lines) != 1 or os.path.exists(out) or \
            os.path.exists(out + ".part"):
        raise vt.Fail("TLS recording: exit %d, %r" % (rc, err))
    with open(rec_path, "rb") as f:
        data = f.read()
    cut = tmp("cut.rec")
    with open(cut, "wb") as f:
        f.write(data[:len(data) * 2 // 3])
    rc, _, err = vncfb(["bench", "--replay", cut])
    if rc != 1 or not one_line(err) or "truncated recording" not in err:
        raise vt.Fail("truncated recording: exit %d, %r" % (rc, err))
    rc, _, err = vncfb(["bench", "--replay", rec_path, "-o",
                        "mem:%dx%d:rgb565" % (XW, XH)])
    if rc != 2 or not one_line(err) or "record once per format" not in err:
        raise vt.Fail("other format: exit %d, %r" % (rc, err))
    # A viewer asking the pump for another format: refused by the pump.
    srv = subprocess.Popen([vt.VNCFB, "bench", "--replay", rec_path,
                            "--serve", "0"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    try:
        port = int(vt.LineReader(srv.stdout).expect(
            "replay: serving", 20).rsplit(":", 1)[1])
        rc, _, verr = vncfb(["-q", "-o", "mem:%dx%d:rgb565" % (XW, XH),
                             "--no-reconnect", "--exit-after", "10",
                             "127.0.0.1::%d" % port], timeout=30)
    finally:
        srv.send_signal(signal.SIGTERM)
        _, serr = srv.communicate(timeout=10)
    # The pump closes right after the handshake, so the viewer asks once
    # more with JPEG (as it does a PiKVM, doc/network.md): one refusal
    # line from the pump for each of the two clients.
    refusals = serr.splitlines()
    if rc != 1 or not 1 <= len(refusals) <= 2 or not all(
            "asks for updates in rgb565; the recording is in xrgb8888 "
            "(record once per format)" in line for line in refusals):
        raise vt.Fail("pump and rgb565 viewer: viewer exit %d (%r), pump "
                      "said %r" % (rc, verr, serr))
    vt.log("ok: refusals")


def main(tmp):
    xanim, group = sys.argv[1], sys.argv[2]
    missing = [t for t in ["Xvnc", "xwd", "xwdtopnm"] if not shutil.which(t)]
    if not os.path.exists(xanim):
        missing.append("xanim (needs libX11 headers: libx11-dev)")
    if missing:
        sys.stderr.write("SKIP: not installed: %s (Debian: see "
                         ".ci/packages)\n" % " ".join(missing))
        return vt.SKIP
    xs = Xvnc(tmp)
    try:
        first = None
        for name, enc, q, fmt in CASES[group]:
            path, out, anim = record(tmp, xs, xanim, name, enc, q, fmt)
            try:
                want = xs.root(fmt)
            finally:
                anim.kill()
                anim.wait()
            r = check_recording(name, path, out, fmt, want, q is not None)
            check_replay(tmp, name, path, r, q is not None)
            if name in VIEWER:
                check_viewer(tmp, name, path, fmt, want, q is not None)
            first = first or path
        if group == "lossless":
            # --updates: the recorder stops in the middle of the stream
            # (and of what libvncclient had buffered): the replay still
            # ends on the recorder's picture.
            path, out, anim = record(tmp, xs, xanim, "updates", "hextile",
                                     None, "xrgb8888", frames=0, updates=5)
            anim.kill()
            anim.wait()
            r = check_recording("updates", path, out, "xrgb8888", None,
                                False, updates=5)
            check_replay(tmp, "updates", path, r, False)
            check_refusals(tmp, first)
    finally:
        xs.stop()
    return 0


if __name__ == "__main__":
    vt.main(main)
