#!/usr/bin/env python3
"""Measure vncfb on replayed recordings (tests/bench/replay_record.py)
against the bare libvncclient loop and TigerVNC's vncviewer, in one
sitting, interleaved: in each round, for each recording in turn, the
three ways below run back to back (their order rotating), and the table
gives medians over the rounds (and plays).

* vncfb bench --replay REC: vncfb's pipeline and the bare libvncclient
  loop, each playing the whole recording --plays times; frames per second
  per play (the full-frame updates after the first over the play's
  window; for a recording of small updates, where fewer than half cover
  the desktop, every update after the first, and the name says
  "per update"), CPU time per update of vncfb's threads (decoder + blitter; the
  pump's thread is not counted), latency per update (first byte to the
  last rectangle in the output; the bare loop: to decoded);
* vncviewer (TigerVNC, under Xvfb) playing it from
  vncfb bench --replay REC --serve: frames per second as the pump times
  them (from the request for the second update to the request past the
  last), CPU per frame from /proc/PID/stat (utime + stime of all its
  threads, sampled when the pump says the play starts and ends, 10 ms
  resolution), and Xvfb's, which draws vncviewer's picture, beside it;
* the vncfb viewer, timed exactly as vncviewer is: the same yardstick for
  both viewers;
* with --sink, tests/bench/replay_sink.py, a viewer that only reads the
  bytes, timed the same way: the pump's own ceiling, which tells whether
  a viewer's figure is the pump's;
* with --base BINARY, another vncfb (main's, for a before/after) as
  bench --replay and as the viewer, interleaved with this one.

usage: replay_compare.py [--rounds N] [--plays N] [--cpu auto|N]
                         [--no-vncviewer] [--no-viewer] [--sink]
                         [--base BINARY] [--json FILE] RECORDING...

Every process runs in this script's session: with the kernel's autogroup
scheduling (Linux), a process in a session of its own would get a whole
group's share of a loaded machine, the others not. VNCFB overrides the
path of build/vncfb. Needs Xvfb and vncviewer
(Debian: xvfb, tigervnc-viewer) unless --no-vncviewer. Nothing here is
a test: it prints a Markdown table (and writes every sample as JSON).
"""
import argparse
import json
import os
import queue
import select
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
VNCFB = os.environ.get("VNCFB", os.path.join(ROOT, "build", "vncfb"))
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
import recfile  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")
TIGER_ENC = {"tight": "Tight", "zrle": "ZRLE", "hextile": "Hextile",
             "raw": "Raw"}


def cpu_s(pid):
    """utime + stime of all of pid's threads, in seconds."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def median(v):
    return statistics.median(v) if v else float("nan")


def num(v, fmt="%.1f"):
    return "-" if v != v else fmt % v


def ratio(x, y):
    return num(x / y if y else float("nan"), "%.2f")


class Xvfb:
    def __init__(self):
        r, w = os.pipe()
        self.p = subprocess.Popen(["Xvfb", "-screen", "0", "2048x1280x24",
                                   "-nolisten", "tcp", "-displayfd",
                                   str(w)], pass_fds=(w,),
                                  stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
        os.close(w)
        buf = b""
        while not buf.endswith(b"\n"):
            if not select.select([r], [], [], 20)[0]:
                sys.exit("Xvfb did not start")
            chunk = os.read(r, 64)
            if not chunk:
                sys.exit("Xvfb did not start")
            buf += chunk
        os.close(r)
        self.display = ":" + buf.decode().strip()

    def stop(self):
        self.p.terminate()
        self.p.wait(10)


class ViewerGone(Exception):
    pass


class Pump:
    """vncfb bench --replay REC --serve 0, whose lines time each play;
    the client's CPU is sampled the moment a line is read."""

    def __init__(self, rec):
        self.p = subprocess.Popen([VNCFB, "bench", "--replay", rec,
                                   "--serve", "0"], stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True,
                                  bufsize=1)
        self.q = queue.Queue()
        self.pids = None
        threading.Thread(target=self._read, daemon=True).start()
        line = self.expect("replay: serving ")
        self.port = int(line.rsplit(":", 1)[1])

    def _read(self):
        for line in self.p.stdout:
            cpu = None
            if self.pids and (": playing" in line or ": played" in line):
                try:
                    cpu = [cpu_s(p) for p in self.pids]
                except OSError:
                    pass
            self.q.put((line.strip(), cpu))
        self.q.put((None, None))

    def expect(self, what, timeout=300, viewer=None):
        """The next line holding what; a viewer that exits first (after
        a grace second for the pump's last line) raises ViewerGone."""
        end = time.monotonic() + timeout
        gone = None
        while True:
            left = end - time.monotonic()
            if left <= 0:
                raise RuntimeError("pump: no %r" % what)
            if viewer is not None and viewer.poll() is not None:
                gone = gone or time.monotonic() + 1
                if time.monotonic() > gone:
                    raise ViewerGone("viewer exited with %d waiting for "
                                     "%r" % (viewer.returncode, what))
            try:
                line, cpu = self.q.get(timeout=min(left, 0.5))
            except queue.Empty:
                continue
            if line is None:
                raise RuntimeError("pump exited waiting for %r" % what)
            if what in line:
                return line if cpu is None else (line, cpu)

    def play(self, argv, frames, env=None, xserver=None):
        """Run one viewer through the recording: frames/s, and CPU s per
        frame of the viewer and of its X server (xserver: a pid, or
        None); frames: the full-frame updates after the first."""
        err = tempfile.TemporaryFile()
        v = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=err)
        self.pids = [v.pid] + ([xserver] if xserver else [])
        try:
            _, c0 = self.expect(": playing", viewer=v)
            line, c1 = self.expect(": played", viewer=v)
        except ViewerGone as e:
            err.seek(0)
            tail = err.read().decode(errors="replace").strip()[-300:]
            raise ViewerGone("%s: %s: %s" % (argv[0], e, tail))
        finally:
            self.pids = None
            v.kill()
            v.wait()
        self.expect(": left after")
        # "played N updates in T s: R updates/s, F of them ..."
        words = line.split()
        secs = float(words[words.index("in") + 1])
        x = (c1[1] - c0[1]) / frames if xserver else None
        return frames / secs, (c1[0] - c0[0]) / frames, x

    def stop(self):
        self.p.terminate()
        self.p.wait(10)


def bench(rec, plays, cpu, frames, binary=VNCFB):
    """frames: full-frame updates after the first, which a complete play
    draws in its window."""
    with tempfile.NamedTemporaryFile(suffix=".json") as j:
        subprocess.run([binary, "bench", "-q", "--replay", rec, "--repeat",
                        str(plays), "--cpu", cpu, "--json", j.name],
                       check=True, stdout=subprocess.DEVNULL)
        data = json.load(open(j.name))
    out = {}
    for r in data["runs"]:
        if r["kind"] == "memcpy":
            continue
        lat = r["latency_ms"]["total"]
        out[r["kind"]] = {
            "fps": [frames / s for s in r["slice_s"]],
            # CPU of all measured updates, over the frames among them.
            "cpu_ms": r["cpu_time"]["us_per_update"] / 1e3 *
            sum(r["slice_updates"]) / (frames * len(r["slice_s"])),
            "lat_median": lat.get("median"),
            "lat_p99": lat.get("p99"),
            "vs_bare": r["ratios"]["updates_vs_bare"],
        }
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("recordings", nargs="+")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--plays", type=int, default=3)
    ap.add_argument("--cpu", default="auto")
    ap.add_argument("--no-vncviewer", action="store_true")
    ap.add_argument("--no-viewer", action="store_true")
    ap.add_argument("--sink", action="store_true")
    ap.add_argument("--base")
    ap.add_argument("--json")
    a = ap.parse_args()

    recs = {}
    for path in a.recordings:
        r = recfile.read(path)
        fmt = "rgb565" if r.client_pf[0] == 16 else "xrgb8888"
        enc = r.encodings.split()[0] if r.encodings else "tight"
        first_full = r.messages and [m for m in r.messages
                                     if m[0] & recfile.UPDATE][0][0] & \
            recfile.FULL
        frames = r.full - (1 if first_full else 0)
        name = os.path.basename(path).rsplit(".", 1)[0]
        # A recording of small updates (the desktop scene): rates and
        # CPU per update, every update after the set-up one.
        if frames < (r.updates - 1) / 2:
            frames = r.updates - 1
            name += " (per update)"
        recs[path] = dict(r=r, fmt=fmt, enc=enc, frames=frames, name=name)
    xvfb = None if a.no_vncviewer else Xvfb()
    samples = {p: {"pipeline": [], "bare": [], "vncviewer": [],
                   "viewer": [], "sink": [], "base-pipeline": [],
                   "base-bare": [], "base-viewer": []} for p in recs}
    load0 = os.getloadavg()
    t0 = time.time()
    try:
        for rnd in range(a.rounds):
            order = list(recs)
            order = order[rnd % len(order):] + order[:rnd % len(order)]
            for path in order:
                info = recs[path]
                r = info["r"]
                ways = ["bench", "vncviewer", "viewer"]
                if a.sink:
                    ways.append("sink")
                if a.base:
                    ways += ["base-bench", "base-viewer"]
                ways = ways[rnd % len(ways):] + ways[:rnd % len(ways)]
                for way in ways:
                    if way in ("bench", "base-bench"):
                        pre = "base-" if way == "base-bench" else ""
                        b = bench(path, a.plays, a.cpu, info["frames"],
                                  a.base if pre else VNCFB)
                        samples[path][pre + "pipeline"].append(
                            b["pipeline"])
                        samples[path][pre + "bare"].append(b["bare"])
                        continue
                    if way == "vncviewer" and (xvfb is None or
                                               info["fmt"] != "xrgb8888"):
                        continue
                    if way == "viewer" and a.no_viewer:
                        continue
                    pump = Pump(path)
                    try:
                        for _ in range(a.plays):
                            if way == "vncviewer":
                                argv = ["vncviewer", "-AutoSelect=0",
                                        "-FullColor=1",
                                        "-PreferredEncoding=" +
                                        TIGER_ENC.get(info["enc"], "Tight"),
                                        "-ViewOnly", "-Shared",
                                        "-SecurityTypes=None",
                                        "-ReconnectOnError=0",
                                        "-AlertOnFatalError=0",
                                        "-AcceptClipboard=0",
                                        "-SendClipboard=0", "-SetPrimary=0"]
                                if r.quality >= 0:
                                    argv += ["-QualityLevel=%d" % r.quality,
                                             "-NoJPEG=0"]
                                else:
                                    argv.append("-NoJPEG=1")
                                argv.append("127.0.0.1::%d" % pump.port)
                                env = dict(os.environ,
                                           DISPLAY=xvfb.display)
                                xpid = xvfb.p.pid
                            elif way == "sink":
                                argv = [sys.executable,
                                        os.path.join(HERE, "replay_sink.py"),
                                        path, "127.0.0.1::%d" % pump.port]
                                env = None
                                xpid = None
                            else:
                                binary = a.base if way == "base-viewer" \
                                    else VNCFB
                                argv = [binary, "-q", "-o", "mem:%dx%d:%s" %
                                        (r.width, r.height, info["fmt"]),
                                        "--view-only", "--encodings",
                                        r.encodings or info["enc"]]
                                if r.quality >= 0:
                                    argv += ["--quality", str(r.quality)]
                                argv.append("127.0.0.1::%d" % pump.port)
                                env = None
                                xpid = None
                            try:
                                fps, cpu, xcpu = pump.play(
                                    argv, info["frames"], env, xpid)
                            except ViewerGone as e:
                                # No sample; a fresh pump for the next.
                                print("round %d: %s: %s" % (
                                    rnd + 1, info["name"], e),
                                    file=sys.stderr, flush=True)
                                pump.stop()
                                pump = Pump(path)
                                continue
                            samples[path][way].append(
                                {"fps": [fps], "cpu_ms": cpu * 1e3,
                                 "x_cpu_ms": xcpu * 1e3 if xcpu is not None
                                 else None})
                    finally:
                        pump.stop()
                print("round %d: %s done" % (rnd + 1, info["name"]),
                      file=sys.stderr, flush=True)
    finally:
        if xvfb:
            xvfb.stop()
    load1 = os.getloadavg()

    def col(path, way, key):
        v = samples[path][way]
        if key == "fps":
            return median([x for s in v for x in s["fps"]])
        return median([s[key] for s in v if s.get(key) is not None])

    print("\n%d rounds x %d plays, %s, %d cores online, load average "
          "%.1f at the start, %.1f at the end, %.0f s\n"
          % (a.rounds, a.plays, time.strftime("%Y-%m-%d %H:%M"),
             os.cpu_count(), load0[0], load1[0], time.time() - t0))
    print("| recording | updates (full) | vncfb fps | bare fps | vncviewer "
          "fps | vncfb/bare | vncfb/vncviewer | vncfb viewer fps | "
          "CPU ms/frame vncfb | bare | vncviewer (+Xvfb) | vncfb viewer | "
          "latency ms vncfb median / p99 | bare median / p99 |")
    print("|" + "---|" * 14)
    def cols(path):
        return ({w: col(path, w, "fps") for w in samples[path]},
                {w: col(path, w, "cpu_ms") for w in samples[path]})

    for path, info in recs.items():
        r = info["r"]
        f, c = cols(path)
        vs_bare = median([s["vs_bare"] for s in samples[path]["pipeline"]
                          if s["vs_bare"] is not None])
        print("| %s | %d (%d) | %s | %s | %s | %s | %s | %s | %s | %s | %s "
              "| %s | %s / %s | %s / %s |" % (
                  info["name"], r.updates, r.full, num(f["pipeline"]),
                  num(f["bare"]), num(f["vncviewer"]),
                  num(vs_bare, "%.2f"),
                  num(f["pipeline"] / f["vncviewer"], "%.2f"),
                  num(f["viewer"]), num(c["pipeline"]), num(c["bare"]),
                  num(c["vncviewer"]) + (
                      "" if c["vncviewer"] != c["vncviewer"] else
                      " (+%s)" % num(col(path, "vncviewer", "x_cpu_ms"))),
                  num(c["viewer"]),
                  num(col(path, "pipeline", "lat_median")),
                  num(col(path, "pipeline", "lat_p99")),
                  num(col(path, "bare", "lat_median")),
                  num(col(path, "bare", "lat_p99"))))
    if a.sink or a.base:
        # The instrument's ceiling and the before/after, same sitting.
        print("\n| recording | vncfb viewer / vncviewer | sink fps | "
              "vncviewer / sink | vncfb viewer / sink | base fps | "
              "vncfb / base | base viewer fps | viewer / base viewer | "
              "CPU ms/frame base / this | base viewer / this viewer |")
        print("|" + "---|" * 11)
        for path, info in recs.items():
            f, c = cols(path)
            print("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s / %s "
                  "| %s / %s |" % (
                      info["name"], ratio(f["viewer"], f["vncviewer"]),
                      num(f["sink"]), ratio(f["vncviewer"], f["sink"]),
                      ratio(f["viewer"], f["sink"]), num(f["base-pipeline"]),
                      ratio(f["pipeline"], f["base-pipeline"]),
                      num(f["base-viewer"]),
                      ratio(f["viewer"], f["base-viewer"]),
                      num(c["base-pipeline"]), num(c["pipeline"]),
                      num(c["base-viewer"]), num(c["viewer"])))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"rounds": a.rounds, "plays": a.plays,
                       "load": [load0, load1],
                       "samples": {recs[p]["name"]: s
                                   for p, s in samples.items()}}, f,
                      indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
