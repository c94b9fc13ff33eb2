#!/usr/bin/env python3
"""Requests in flight against a server without continuous updates: the
project's test server (libvncserver) runs "frames N" (each full frame
drawn once the last is sent, so a client with one request in flight gets
one frame per round trip) while a client watches it through
tests/integration/linkrelay.py; the time to "FRAMES done" is taken on the
server's side, so vncfb and TigerVNC's vncviewer are timed alike. The
clients take turns, ROUNDS times; medians and ratios are printed.

usage: link_frames.py [--rtt MS] [--mbit M] [--frames N] [--size WxH]
                      [--rounds N] LABEL=PATH ...
PATH is a vncfb binary, or TigerVNC's vncviewer (a path that names it),
run under Xvfb. Run from the source tree after a build.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
os.environ.setdefault("VNCFB_BUILD_ROOT", os.path.join(ROOT, "build"))
import vnctest as vt  # noqa: E402
from linkrelay import LinkRelay  # noqa: E402
from test_xserver import start_x  # noqa: E402


def one(tmp, path, a, xdisp):
    srv = vt.Server(tmp, "--size", a.size)
    p = None
    try:
        with LinkRelay(srv.port, a.rtt / 2, a.mbit or None) as r:
            target = "127.0.0.1::%d" % r.port
            log = open(tmp("client.log"), "w")
            if "vncviewer" in path:
                p = subprocess.Popen([path, "-Shared", "-ViewOnly",
                                      target], stdout=log, stderr=log,
                                     env=dict(os.environ, DISPLAY=xdisp))
            else:
                p = subprocess.Popen([path, "--output", "mem:%s:xrgb8888"
                                      % a.size, "--no-reconnect", target],
                                     stdout=log, stderr=log)
            srv.expect("CLIENT connected", 20)
            time.sleep(1.5)  # the first picture
            t0 = time.monotonic()
            srv.send("frames %d" % a.frames)
            srv.expect("FRAMES done", 300)
            return time.monotonic() - t0
    finally:
        if p:
            p.kill()
            p.wait()
        srv.close()


def main(tmp):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("clients", nargs="+")
    ap.add_argument("--rtt", type=float, default=60)
    ap.add_argument("--mbit", type=float, default=0)
    ap.add_argument("--frames", type=int, default=30)
    ap.add_argument("--size", default="320x240")
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    clients = [c.split("=", 1) for c in a.clients]
    xvfb, xdisp = None, None
    if any("vncviewer" in p for _, p in clients):
        xvfb, xdisp = start_x(["Xvfb", "-screen", "0", "1024x768x24",
                               "-nolisten", "tcp"], open(tmp("x.log"), "w"))
    try:
        res = {k: [] for k, _ in clients}
        for _ in range(a.rounds):
            for k, path in clients:
                t = one(tmp, path, a, xdisp)
                res[k].append(a.frames / t)
                print("%s: %.1f frames/s" % (k, a.frames / t), flush=True)
        print("rtt %g ms, %s Mbit/s, %d frames of %s, %d rounds:"
              % (a.rtt, a.mbit or "unlimited", a.frames, a.size, a.rounds))
        med = {k: statistics.median(v) for k, v in res.items()}
        for k, v in res.items():
            print("  %-10s median %.1f frames/s (%s)"
                  % (k, med[k], ", ".join("%.1f" % f for f in v)))
        ks = list(med)
        for k in ks[1:]:
            print("  ratio %s/%s: %.2f" % (ks[0], k, med[ks[0]] / med[k]))
    finally:
        if xvfb:
            xvfb.kill()
            xvfb.wait()
    return 0


if __name__ == "__main__":
    vt.main(main)
