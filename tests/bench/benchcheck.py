"""What the bench tests share: failures collected by check(), a tolerance
for ratios recomputed from printed numbers, running the bench for its
JSON and CSV, an Xvfb for vncviewer, and the common ending."""
import csv
import json
import os
import select
import subprocess
import sys
import tempfile

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)


def close(a, b, rel=1e-3, abs_=2e-6):
    return a is not None and b is not None and \
        abs(a - b) <= max(abs_, rel * max(abs(a), abs(b)))


def finish(ok_message):
    """Exit status for the test: 1 with the count of failed checks, else
    0 with ok_message."""
    if failures:
        print(f"{len(failures)} check(s) failed", file=sys.stderr)
        return 1
    print(ok_message)
    return 0


def run_bench(vncfb, args, timeout):
    """Run `vncfb bench ARGS --json F --csv F`, echoing its output.
    Returns (stdout, JSON, CSV rows), or None when it did not exit 0
    (a failed check)."""
    with tempfile.TemporaryDirectory() as tmp:
        jpath = os.path.join(tmp, "b.json")
        cpath = os.path.join(tmp, "b.csv")
        p = subprocess.run([vncfb, "bench"] + args +
                           ["--json", jpath, "--csv", cpath],
                           capture_output=True, text=True, timeout=timeout)
        sys.stdout.write(p.stdout)
        sys.stderr.write(p.stderr)
        check(p.returncode == 0, f"bench exit {p.returncode}")
        if p.returncode != 0:
            return None
        with open(jpath) as f:
            j = json.load(f)
        with open(cpath) as f:
            rows = list(csv.DictReader(f))
    return p.stdout, j, rows


def start_xvfb(screen):
    """Start Xvfb with one screen of geometry screen ("WxHxD"), letting it
    pick a free display and say which on a pipe (-displayfd). Returns
    (the Popen, ":N"), or (the Popen, "") when it named none in 20 s:
    the caller decides whether that ends the run or fails a check."""
    r, w = os.pipe()
    x = subprocess.Popen(["Xvfb", "-screen", "0", screen,
                          "-nolisten", "tcp", "-displayfd", str(w)],
                         pass_fds=(w,), stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    os.close(w)
    disp = b""
    while not disp.endswith(b"\n") and select.select([r], [], [], 20)[0]:
        chunk = os.read(r, 16)
        if not chunk:
            break
        disp += chunk
    os.close(r)
    if not disp.strip():
        return x, ""
    return x, ":" + disp.decode().strip()
