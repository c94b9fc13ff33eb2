"""Helpers for the placement tests: run vncfb with the machine's config
files kept out, and know which cores the tests may use."""
import os
import subprocess
import sys
import tempfile

VNCFB = os.environ.get("VNCFB")
TMP = tempfile.mkdtemp(prefix="vncfb-placement-")
failures = []


def env(**extra):
    e = dict(os.environ)
    e["VNCFB_SYSTEM_CONFIG"] = os.path.join(TMP, "no-system.conf")
    e["XDG_CONFIG_HOME"] = os.path.join(TMP, "no-xdg")
    e.pop("VNCFB_PASSWORD", None)
    e.update(extra)
    return e


def run(args, timeout=60, **extra):
    p = subprocess.run([VNCFB] + args, capture_output=True, text=True,
                       env=env(**extra), timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def check(cond, what, out=""):
    if not cond:
        failures.append(what)
        print("FAIL: " + what, file=sys.stderr)
        if out:
            print("  output was:\n    " + out.replace("\n", "\n    "),
                  file=sys.stderr)


def need_two_cores():
    """The probe tests compare core 0 with core 1."""
    if not VNCFB:
        print("VNCFB is not set (run through meson test)", file=sys.stderr)
        sys.exit(1)
    cores = os.sched_getaffinity(0)
    if 0 not in cores or 1 not in cores:
        print("SKIP: needs cores 0 and 1 online and allowed, have %s"
              % sorted(cores), file=sys.stderr)
        sys.exit(77)


def online_list():
    """What vncfb names as the online cores, e.g. "0-1"."""
    cores = sorted(os.sched_getaffinity(0))
    parts, start = [], None
    for i, c in enumerate(cores):
        if start is None:
            start = c
        if i + 1 == len(cores) or cores[i + 1] != c + 1:
            parts.append(str(start) if start == c else "%d-%d" % (start, c))
            start = None
    return ",".join(parts)


def write(name, text):
    path = os.path.join(TMP, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    return path


def finish():
    import shutil
    shutil.rmtree(TMP, ignore_errors=True)
    if failures:
        print("%d check(s) failed" % len(failures), file=sys.stderr)
        sys.exit(1)
    sys.exit(0)
