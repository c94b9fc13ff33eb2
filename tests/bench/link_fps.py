#!/usr/bin/env python3
"""Frames per second over a slow link: TigerVNC's Xvnc showing
tests/bench/xanim (every pixel changes in every frame), a client
connected through tests/integration/linkrelay.py (one-way delay each
direction, a rate), counted from Xvnc's own per-connection log
("Framebuffer updates"), so that vncfb and another viewer are counted
alike. Each client runs SECS seconds; the runs alternate, ROUNDS times,
and the medians and their ratio are printed.

usage: link_fps.py [--rtt MS] [--mbit M] [--secs S] [--rounds N]
                   [--size WxH] [--fps F] [--quality Q|auto]
                   CLIENT=PATH ...
CLIENT is a label; PATH a vncfb binary, or TigerVNC's vncviewer (a path
that names it), run under Xvfb. Run from the source tree after a build.
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
XANIM = os.environ.get("XANIM", os.path.join(ROOT, "build", "tests", "bench",
                                             "xanim"))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
from linkrelay import LinkRelay  # noqa: E402
from test_xserver import start_x, wait_port  # noqa: E402
import vnctest as vt  # noqa: E402


def run_client(kind, path, port, a, xvfb_disp, tmp):
    if kind == "vncfb":
        cmd = [path, "--output", "mem:%s:xrgb8888" % a.size,
               "--exit-after", str(a.secs), "--no-reconnect",
               "--encodings", "tight"]
        if a.quality != "auto":
            cmd += ["--quality", a.quality]
        else:
            cmd = [c for c in cmd if c not in ("--encodings", "tight")]
        cmd.append("127.0.0.1::%d" % port)
        env = dict(os.environ, VNCFB_PASSWORD="x")
        out = open(os.path.join(tmp, "client.log"), "w")
        p = subprocess.Popen(cmd + ["-v"], stdout=out, stderr=out, env=env)
        p.wait(a.secs + 30)
        return
    q = [] if a.quality == "auto" else [
        "-AutoSelect=0", "-PreferredEncoding=Tight",
        "-QualityLevel=%s" % a.quality, "-NoJPEG=0"]
    env = dict(os.environ, DISPLAY=xvfb_disp)
    out = open(os.path.join(tmp, "viewer.log"), "w")
    p = subprocess.Popen([path, "-Shared"] + q + ["127.0.0.1::%d" % port],
                         stdout=out, stderr=out, env=env)
    time.sleep(a.secs)
    p.terminate()
    p.wait(10)


def updates_in(logtext):
    return [int(m) for m in re.findall(r"Framebuffer updates:\s+(\d+)",
                                       logtext)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("clients", nargs="+")
    ap.add_argument("--rtt", type=float, default=60)
    ap.add_argument("--mbit", type=float, default=50)
    ap.add_argument("--secs", type=float, default=10)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--size", default="1920x1080")
    ap.add_argument("--fps", default="60")
    ap.add_argument("--quality", default="5")
    a = ap.parse_args()
    # LABEL=PATH: a vncviewer when PATH names one, else a vncfb.
    clients = [c.split("=", 1) for c in a.clients]
    tmp = tempfile.mkdtemp(prefix="linkfps")
    xlog_path = os.path.join(tmp, "xvnc.log")
    xlog = open(xlog_path, "w")
    sock, port = vt.free_port()
    sock.close()
    x, disp = start_x(["Xvnc", "-geometry", a.size, "-depth", "24",
                       "-rfbport", str(port), "-SecurityTypes", "None",
                       "-localhost", "-nolisten", "tcp", "-AlwaysShared",
                       "-Log", "*:stderr:30"], xlog)
    procs = [x]
    xvfb = None
    try:
        if not wait_port(port, [x]):
            sys.exit("Xvnc does not listen: " + open(xlog_path).read()[-600:])
        anim = subprocess.Popen([XANIM, "--fps", a.fps],
                                env=dict(os.environ, DISPLAY=disp),
                                stdout=subprocess.PIPE, text=True)
        procs.append(anim)
        if anim.stdout.readline().strip() != "started":
            sys.exit("xanim did not start")
        xvfb_disp = None
        if any("vncviewer" in p for _, p in clients):
            xvfb, xvfb_disp = start_x(["Xvfb", "-screen", "0",
                                       "2000x1200x24", "-nolisten", "tcp"],
                                      xlog)
            procs.append(xvfb)
        res = {k: [] for k, _ in clients}
        relay = LinkRelay(port, a.rtt / 2, a.mbit or None)
        for _ in range(a.rounds):
            for kind, path in clients:
                xlog.flush()
                before = len(updates_in(open(xlog_path).read()))
                run_client("vncviewer" if "vncviewer" in path else "vncfb",
                           path, relay.port, a, xvfb_disp, tmp)
                for _ in range(50):
                    got = updates_in(open(xlog_path).read())
                    if len(got) > before:
                        break
                    time.sleep(0.1)
                n = got[-1] if len(got) > before else 0
                res[kind].append(n / a.secs)
                print("%s: %.1f frames/s" % (kind, n / a.secs), flush=True)
        relay.close()
        med = {k: statistics.median(v) for k, v in res.items()}
        print("rtt %g ms, %s Mbit/s, quality %s, %s, %d rounds of %g s:"
              % (a.rtt, a.mbit or "unlimited", a.quality, a.size, a.rounds,
                 a.secs))
        for k, v in res.items():
            print("  %-10s median %.1f frames/s (%s)"
                  % (k, med[k], ", ".join("%.1f" % f for f in v)))
        ks = list(med)
        if len(ks) == 2 and med[ks[1]]:
            print("  ratio %s/%s: %.2f" % (ks[0], ks[1],
                                           med[ks[0]] / med[ks[1]]))
    finally:
        for p in procs:
            p.kill()
            p.wait()
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
