#!/usr/bin/env python3
"""vncfb against TigerVNC's vncviewer over the emulated link (vncfb bench
--link, doc/network.md): one recording (tests/bench/replay_record.py),
each round trip of --rtts at --rate, in rounds, the ways below back to
back (their order rotating each round), medians over the rounds:

* vncfb/requests, vncfb/fast: vncfb bench --replay REC --link RTT,RATE
  --push requests|fast: vncfb's pipeline, one play of at most --secs;
  updates/s and full frames/s over the window, the link's bytes/s, use
  and the share of it that was rectangle payload (pixels), the age of
  the picture shown (the pump beginning to send an update -> its last
  rectangle in the output);
* vncviewer/requests: vncviewer (under Xvfb) playing the recording from
  vncfb bench --replay REC --serve --link RTT,RATE, the pump answering
  each request at once (a server without continuous updates), stopped
  after --secs; updates/s as the pump times them (from the viewer's sign
  that it handled the first update to its sign for the last it handled),
  bytes/s from the recording's sizes over that time, and the time from the
  pump sending an update to the viewer's next request, less the way back;
* vncviewer/fast: the same with --push fast (continuous updates and
  fences, pushed as fast as the link takes them): the times are to the
  viewer's answer to the fence after each update, less the way back;
* vncviewer/recorded: --push recorded, continuous updates at the pace
  the recording was made (a server whose source sets the pace).

usage: link_compare.py [--rtts 5,20,60,150] [--rate 50mbit] [--rounds 3]
                       [--secs 6] [--ways LIST] [--json FILE] RECORDING

Nothing here is a test: it prints a Markdown table. VNCFB overrides the
path of build/vncfb; needs Xvfb and vncviewer (Debian: xvfb,
tigervnc-viewer).
"""
import argparse
import json
import os
import queue
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
from benchcheck import start_xvfb  # noqa: E402


def update_sizes(path):
    rec = recfile.read(path)
    return [m[1] for m in rec.messages if m[0] & recfile.UPDATE]


def run_vncfb(rec, link, push, secs):
    with tempfile.NamedTemporaryFile(suffix=".json") as j:
        subprocess.run([VNCFB, "bench", "-q", "--replay", rec, "--repeat",
                        "1", "--duration", str(secs), "--link", link,
                        "--push", push, "--json", j.name], check=True,
                       stdout=subprocess.DEVNULL, timeout=secs * 4 + 60)
        r = json.load(open(j.name))["runs"][0]
    return {"ups": r["updates_per_s"], "fps": r["frames_per_s"],
            "mbps": r["link_bytes_per_s"] * 8 / 1e6,
            "use": r["link_use"], "pixels": r["pixel_use"],
            "age_med": r["age_ms"]["median"],
            "age_p99": r["age_ms"]["p99"]}


def run_vncviewer(rec, link, push, secs, display, sizes, rate_bps):
    pump = subprocess.Popen([VNCFB, "bench", "--replay", rec, "--serve", "0",
                             "--link", link, "--push", push],
                            stdout=subprocess.PIPE, text=True, bufsize=1)
    q = queue.Queue()
    threading.Thread(target=lambda: [q.put(x.strip()) for x in pump.stdout],
                     daemon=True).start()
    port, handled = None, None
    while port is None:
        line = q.get(timeout=20)
        if line.startswith("replay: serving "):
            port = int(line.rsplit(":", 1)[1])
    viewer = subprocess.Popen(
        ["vncviewer", "-AutoSelect=0", "-FullColor=1",
         "-PreferredEncoding=Tight", "-QualityLevel=5", "-ViewOnly",
         "-SecurityTypes=None", "-ReconnectOnError=0",
         "-AlertOnFatalError=0", "127.0.0.1::%d" % port],
        env=dict(os.environ, DISPLAY=display), stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL)
    end = time.monotonic() + secs + 5
    started = None
    while time.monotonic() < end:
        try:
            line = q.get(timeout=0.2)
        except queue.Empty:
            continue
        if "playing" in line and started is None:
            started = time.monotonic()
            end = started + secs
        if " played " in line:
            break
    viewer.terminate()
    viewer.wait(10)
    end = time.monotonic() + 10
    while time.monotonic() < end:
        try:
            line = q.get(timeout=0.2)
        except queue.Empty:
            continue
        if " handled " in line:
            handled = line
        if " left after " in line:
            break
    pump.terminate()
    pump.wait(10)
    if not handled:
        raise RuntimeError("no play by vncviewer over %s (%s)" % (link, push))
    # "handled N updates after the first in T s: U updates/s, F of the
    # whole desktop/s; answered M ms after sending (median), p99 P ms"
    n = int(handled.split(" handled ")[1].split()[0])
    t = float(handled.split(" in ")[1].split(" s:")[0])
    fps = float(handled.split("updates/s, ")[1].split()[0])
    med = float(handled.split("answered ")[1].split(" ms")[0])
    p99 = float(handled.split("p99 ")[1].split(" ms")[0])
    mbps = sum(sizes[1:n + 1]) * 8 / t / 1e6 if t > 0 else float("nan")
    return {"ups": n / t if t > 0 else 0, "fps": fps, "mbps": mbps,
            "use": mbps * 1e6 / rate_bps, "pixels": float("nan"),
            "age_med": med, "age_p99": p99}


def ratio(m, med, ref):
    return m["ups"] / med[ref]["ups"] if ref in med else float("nan")


def rate_bits(spec):
    for unit, mul in (("gbit", 1e9), ("mbit", 1e6), ("kbit", 1e3),
                      ("bit", 1)):
        if spec.endswith(unit):
            return float(spec[:-len(unit)]) * mul
    sys.exit("--rate: expected e.g. 50mbit")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("recording")
    ap.add_argument("--rtts", default="5,20,60,150")
    ap.add_argument("--rate", default="50mbit")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--secs", type=float, default=6)
    ap.add_argument("--ways", default="vncfb/requests,vncfb/fast,"
                    "vncviewer/requests,vncviewer/fast,vncviewer/recorded")
    ap.add_argument("--json")
    a = ap.parse_args()
    sizes = update_sizes(a.recording)
    rate = rate_bits(a.rate)
    rtts = [int(x) for x in a.rtts.split(",")]
    ways = a.ways.split(",")
    xvfb, display = start_xvfb("1920x1080x24")
    if not display:
        sys.exit("Xvfb did not start")
    res = {(rtt, w): [] for rtt in rtts for w in ways}
    load0 = os.getloadavg()
    t0 = time.time()
    try:
        for k in range(a.rounds):
            for rtt in rtts:
                link = "%dms,%s" % (rtt, a.rate)
                for i in range(len(ways)):
                    w = ways[(i + k) % len(ways)]
                    if w.startswith("vncfb"):
                        v = run_vncfb(a.recording, link,
                                      (w.split("/") + ["requests"])[1],
                                      a.secs)
                    else:
                        v = run_vncviewer(a.recording, link,
                                          w.split("/")[1], a.secs, display,
                                          sizes, rate)
                    res[(rtt, w)].append(v)
                    print("round %d %s %s: %s" % (k + 1, link, w, v),
                          file=sys.stderr, flush=True)
    finally:
        xvfb.terminate()
        xvfb.wait(10)
    load1 = os.getloadavg()
    print("%s, %.0f s, load %.1f at the start, %.1f at the end, %d cores\n"
          % (time.strftime("%Y-%m-%d %H:%M"), time.time() - t0, load0[0],
             load1[0], os.cpu_count()))
    print("| round trip | way | updates/s | frames/s | Mbit/s | link use | "
          "pixels | age median ms | age p99 ms | /vncviewer requests | "
          "/vncviewer fast |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for rtt in rtts:
        med = {w: {f: statistics.median(v[f] for v in res[(rtt, w)])
                   for f in res[(rtt, w)][0]} for w in ways}
        for w in ways:
            m = med[w]
            px = ("-" if m["pixels"] != m["pixels"] else
                  "%.0f %%" % (m["pixels"] * 100))
            print("| %d ms | %s | %.1f | %.1f | %.1f | %.0f %% | %s | %.0f "
                  "| %.0f | %.2f | %.2f |" % (
                      rtt, w, m["ups"], m["fps"], m["mbps"], m["use"] * 100,
                      px, m["age_med"], m["age_p99"],
                      ratio(m, med, "vncviewer/requests"),
                      ratio(m, med, "vncviewer/fast")))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"%d %s" % k: v for k, v in res.items()}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
