#!/usr/bin/env python3
"""What RSA-AES costs vncfb: one recording (vncfb bench --record) served
by the replay pump (vncfb bench --replay FILE --serve PORT), played by
vncfb's viewer in the clear and through RA2_256 (and RA2) behind an
RA2 server that relays to the pump, alternately, in one run: by default
the C one (build/tests/bench/ra2relay, nettle, as fast as the pump),
with --server py the Python one of the tests
(tests/integration/ra2server.py, 3-30 MB/s, which sets the pace). The
measure is the viewer's own CPU time (user + system of the vncfb
process, from its rusage) per play, and the pump's time for the play.
Prints each play and the ratios of the medians.

    replay_rsaaes.py [--plays N] [--types 129,5] [--server c|py] FILE.rec
"""
import argparse
import os
import re
import resource
import socket
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
VNCFB = os.environ.get("VNCFB", os.path.join(ROOT, "build", "vncfb"))
RA2SERVER = os.path.join(ROOT, "tests", "integration", "ra2server.py")
RA2RELAY = os.environ.get("RA2RELAY", os.path.join(
    os.path.dirname(VNCFB), "tests", "bench", "ra2relay"))
PASSWORD = "bench-pw"


def ready_port(p):
    while True:
        line = p.stdout.readline()
        if not line:
            sys.exit("no READY line")
        m = re.match(r"READY (\d+)", line)
        if m:
            return int(m.group(1))


def play(port, size, updates, pump, env):
    """One play: vncfb until the pump says it handled the last update;
    its CPU seconds and the pump's seconds for the play."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    # --timeout 8: the pump goes silent after the last update, and
    # vncfb leaves 16 s later rather than 20; a whole raw 1080p update
    # through the Python relay can take a few seconds.
    p = subprocess.Popen([VNCFB, "-q", "--no-reconnect", "--timeout", "8",
                          "-o",
                          "mem:%s" % size, "127.0.0.1::%d" % port],
                         stdin=subprocess.DEVNULL, env=env,
                         start_new_session=True)
    who = None
    while True:
        line = pump.stdout.readline()
        if not line:
            sys.exit("the pump ended")
        c = re.search(r"client (\d+) \(.*\): connected", line)
        if c:
            who = c.group(1)
        if who is None or "client %s:" % who not in line:
            continue
        m = re.search(r"handled \d+ updates after the first in ([0-9.]+) s",
                      line)
        if m:
            break
        if "left after" in line:
            sys.exit("the client left early: " + line.strip())
    wall = float(m.group(1))
    p.terminate()
    p.wait()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + \
        (after.ru_stime - before.ru_stime)
    return cpu, wall


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("rec")
    ap.add_argument("--plays", type=int, default=5)
    ap.add_argument("--types", default="129")
    ap.add_argument("--size", default="1920x1080")
    ap.add_argument("--server", choices=("c", "py"), default="c")
    a = ap.parse_args()
    env = dict(os.environ, VNCFB_PASSWORD=PASSWORD,
               XDG_CONFIG_HOME=os.path.join(os.path.dirname(a.rec),
                                            "rsaaes-config"))
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    free = s.getsockname()[1]
    s.close()
    pump = subprocess.Popen([VNCFB, "bench", "--replay", a.rec, "--serve",
                             str(free)], stdout=subprocess.PIPE, text=True,
                            stderr=subprocess.STDOUT, bufsize=1)
    line = pump.stdout.readline()
    m = re.search(r"127\.0\.0\.1:(\d+)", line)
    if not m:
        sys.exit("cannot read the pump's port from %r" % line)
    pport = int(m.group(1))
    ra2 = {}
    for t in a.types.split(","):
        cmd = [RA2RELAY] if a.server == "c" else \
            ["/usr/bin/python3", RA2SERVER]
        p = subprocess.Popen(cmd + ["--backend", str(pport), "--type", t,
                                    "--password", PASSWORD,
                                    "--key-bits", "2048"],
                             stdout=subprocess.PIPE, text=True, bufsize=1)
        ra2[t] = (p, ready_port(p))
    res = {"clear": []}
    res.update({t: [] for t in ra2})
    walls = {name: [] for name in res}
    try:
        for i in range(a.plays):
            for name in res:
                port = pport if name == "clear" else ra2[name][1]
                cpu, wall = play(port, a.size, 0, pump, env)
                res[name].append(cpu)
                walls[name].append(wall)
                print("play %d %-6s cpu %.3f s, the pump's time %.3f s"
                      % (i, name, cpu, wall), flush=True)
    finally:
        for p, _ in ra2.values():
            p.kill()
        pump.kill()
    base = statistics.median(res["clear"])
    wbase = statistics.median(walls["clear"])
    for name, v in res.items():
        w = statistics.median(walls[name])
        print("%-6s median cpu %.3f s  ratio %.3f   median pump time "
              "%.3f s  ratio %.3f" %
              (name, statistics.median(v), statistics.median(v) / base,
               w, w / wbase))
    return 0


if __name__ == "__main__":
    sys.exit(main())
