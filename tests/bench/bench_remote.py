#!/usr/bin/env python3
"""vncfb bench HOST: measures what a real server sends (here the test
server, stepped from this script), labels it as such, and its numbers hang
together. Nothing here asserts speed."""
import json
import os
import subprocess
import sys
import threading
import time

from benchcheck import check, finish

VNCFB = os.environ.get("VNCFB")


def start_server(*extra):
    """The test server (320x240), its port once it is READY."""
    srv = subprocess.Popen([sys.argv[1], "--size", "320x240", "--keep",
                            "--timeout", "90", *extra],
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                           text=True, bufsize=1)
    line = srv.stdout.readline()
    check(line.startswith("READY "), f"test server said {line!r}")
    # Drain the server's chatter so it never blocks on a full pipe.
    threading.Thread(target=lambda: [None for _ in srv.stdout],
                     daemon=True).start()
    return srv, int(line.split()[1]) if line.startswith("READY ") else 0


def stop_server(srv):
    try:
        srv.stdin.close()
    except OSError:
        pass
    srv.terminate()
    srv.wait(timeout=10)


def bench_json(port):
    """vncfb bench against the server at port, the JSON on stdout."""
    return subprocess.run([VNCFB, "bench", "-o", "mem:320x240", "--cpu",
                           "0", "--duration", "1", "--json", "-",
                           f"127.0.0.1::{port}"], capture_output=True,
                          text=True, timeout=90)


def main():
    if not VNCFB or len(sys.argv) < 2:
        print("usage: VNCFB=... bench_remote.py TESTSERVER", file=sys.stderr)
        return 1
    srv, port = start_server()
    stop = threading.Event()
    try:
        def stepper():
            n = 0
            while not stop.is_set():
                try:
                    srv.stdin.write(f"step {n}\n")
                    srv.stdin.flush()
                except (BrokenPipeError, ValueError):
                    return
                n += 1
                time.sleep(0.01)

        threading.Thread(target=stepper, daemon=True).start()

        p = subprocess.run([VNCFB, "bench", "--workload", "typing",
                            f"127.0.0.1::{port}"], capture_output=True,
                           text=True, timeout=30)
        check(p.returncode == 2 and "embedded server" in p.stderr,
              f"--workload with HOST: exit {p.returncode}, {p.stderr!r}")

        p = bench_json(port)
        sys.stderr.write(p.stderr)
        check(p.returncode == 0, f"bench exit {p.returncode}")
        if p.returncode != 0:
            return 1
        # JSON on stdout, the human report on stderr.
        j = json.loads(p.stdout)
        check("Latency per update" in p.stderr, "report not on stderr")
    finally:
        stop.set()
        stop_server(srv)

    check(j["server"] == f"127.0.0.1:{port}", f"server {j['server']}")
    check(j["encodings"] == "viewer default", f"encodings {j['encodings']}")
    kinds = sorted((r["kind"], r["cpu"] if r["cpu"] is not None else -1)
                   for r in j["runs"])
    check(kinds == [("bare", -1), ("memcpy", 0), ("pipeline", 0)],
          f"runs {kinds}")
    for r in j["runs"]:
        name = f"{r['kind']}/{r['cpu']}"
        check(r["workload"] == "remote", f"{name}: workload {r['workload']}")
        check(r["encoding"].startswith("asked:"),
              f"{name}: encoding {r['encoding']!r}")
        check(r["updates"] > 0, f"{name}: no updates from the server")
        check(r["latency_ms"]["total"]["n"] == r["updates"],
              f"{name}: one latency per update")
        check(sum(r["slice_updates"]) == r["updates"], f"{name}: slices")
        if r["kind"] == "pipeline":
            check(r["passes"] > 0 and r["bytes_out"] > 0,
                  f"{name}: nothing drawn")
            check(r["actual_cpu"] == 0, f"{name}: ran on {r['actual_cpu']}")
    idle_late_picture()
    return finish("bench against a real server: consistent")


def idle_late_picture():
    """A server that answers the first request with the desktop's size
    alone and sends the picture late: the picture is set-up, not a
    measured update, and an idle server gives none."""
    srv, port = start_server("--delay-second", "400")
    try:
        p = bench_json(port)
        check(p.returncode == 0, f"idle bench exit {p.returncode}: "
              f"{p.stderr[-500:]!r}")
        if p.returncode != 0:
            return
        for r in json.loads(p.stdout)["runs"]:
            check(r["updates"] == 0,
                  f"idle server, late picture: {r['kind']}/{r['cpu']} "
                  f"measured {r['updates']} update(s)")
    finally:
        stop_server(srv)


if __name__ == "__main__":
    sys.exit(main())
