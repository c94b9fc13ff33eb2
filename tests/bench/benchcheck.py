"""What the bench tests share: failures collected by check(), a tolerance
for ratios recomputed from printed numbers, running the bench for its
JSON and CSV, and the common ending."""
import csv
import json
import os
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
