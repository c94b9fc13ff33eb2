#!/usr/bin/env python3
"""Mutation testing of vncfb: does a test notice when a check breaks?

Applies each mutant of mutants.py (a file, an exact piece of its text, a
replacement, the meson tests that should notice) one at a time to a copy
of the source tree, rebuilds only what those tests run, runs them, and
names the mutants they killed and the ones that survived.

The tree it is run from is never written: the copy (--work, by default
under the system's temporary directory, kept between runs so that a run
recompiles only what changed) is brought up to date from it first, which
also undoes whatever an interrupted run left there, and each mutant is
undone in the copy before the next (on Ctrl-C too).

A mutant whose original text is not in its file exactly once is an error,
not a pass: the code moved or changed, and the list must follow it.

    tests/mutate/mutate.py                 every mutant
    tests/mutate/mutate.py reader- rre-    those whose names start so
    tests/mutate/mutate.py --check         only that each still applies
    tests/mutate/mutate.py --list          names, files and tests

Exit status: 0 when every mutant was killed or is one the list says may
live (with its reason), 1 when another survived or a mutant is in error,
2 on bad usage or when the unmutated tree fails its own tests. Not in CI:
a full run rebuilds and tests about 60 times (minutes on 2 cores).
"""

import argparse
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import mutants as mutant_list  # noqa: E402


def source_root():
    return os.path.normpath(os.path.join(HERE, "..", ".."))


def tree_files(src):
    """The tree's files as git sees them: tracked and untracked, not
    ignored (so the copy has what the next commit would, and the edits
    not yet committed)."""
    out = subprocess.run(
        ["git", "-C", src, "ls-files", "-z", "--cached", "--others",
         "--exclude-standard"],
        check=True, stdout=subprocess.PIPE).stdout
    return sorted({f for f in out.decode().split("\0")
                   if f and os.path.isfile(os.path.join(src, f))})


def same_file(a, b):
    try:
        with open(a, "rb") as fa, open(b, "rb") as fb:
            return fa.read() == fb.read()
    except OSError:
        return False


def sync(src, dst):
    """dst a copy of src's files; only those that differ are written,
    their times kept, so ninja rebuilds only what changed."""
    os.makedirs(dst, exist_ok=True)
    n = 0
    for f in tree_files(src):
        s, d = os.path.join(src, f), os.path.join(dst, f)
        if os.path.islink(s):
            continue
        if same_file(s, d):
            continue
        os.makedirs(os.path.dirname(d), exist_ok=True)
        shutil.copy2(s, d)
        n += 1
    return n


def run(cmd, log, timeout=None, **kw):
    """cmd's status, its output appended to log; nice'd, it shares the
    machine."""
    with open(log, "ab") as f:
        f.write(("$ " + " ".join(cmd) + "\n").encode())
        f.flush()
        p = subprocess.Popen(["nice", "-n", "10"] + cmd, stdout=f,
                             stderr=subprocess.STDOUT,
                             start_new_session=True, **kw)
        try:
            return p.wait(timeout=timeout)
        except BaseException:
            # A test that hangs, or Ctrl-C: its whole group goes.
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            p.wait()
            if isinstance(sys.exc_info()[1], subprocess.TimeoutExpired):
                f.write(b"(timed out)\n")
                return -1
            raise


class Build:
    def __init__(self, work, log):
        self.src = os.path.join(work, "src")
        self.dir = os.path.join(work, "build")
        self.log = log
        self.tests = {}

    def setup(self):
        if not os.path.exists(os.path.join(self.dir, "build.ninja")):
            if run(["meson", "setup", self.dir, self.src], self.log) != 0:
                sys.exit("mutate: meson setup failed (see %s)" % self.log)
        else:
            # meson.build files may have changed: ninja reconfigures.
            pass
        if run(["ninja", "-C", self.dir, "build.ninja"], self.log) != 0:
            sys.exit("mutate: meson reconfigure failed (see %s)" % self.log)
        tests = json.loads(subprocess.run(
            ["meson", "introspect", "--tests", self.dir], check=True,
            stdout=subprocess.PIPE).stdout)
        targets = json.loads(subprocess.run(
            ["meson", "introspect", "--targets", self.dir], check=True,
            stdout=subprocess.PIPE).stdout)
        files = {}
        files_by_name = set()
        for t in targets:
            files[t["id"]] = [os.path.relpath(f, self.dir)
                              for f in t["filename"]]
            files_by_name.update(os.path.basename(f) for f in t["filename"])
        for t in tests:
            outs = []
            for d in t.get("depends", []):
                outs += files.get(d, [])
            exe = t["cmd"][0]
            if exe.startswith(self.dir + os.sep):
                outs.append(os.path.relpath(exe, self.dir))
            # A script's program given in its environment (VNCFB=...):
            # the integration tests run the built vncfb that way.
            for v in (t.get("env") or {}).values():
                if isinstance(v, str) and v.startswith(self.dir + os.sep) \
                        and os.path.basename(v) in files_by_name:
                    outs.append(os.path.relpath(v, self.dir))
            # Only what is built: not the scripts a test runs.
            outs = [o for o in outs if not o.startswith("..")]
            self.tests[t["name"]] = {"suite": t["suite"], "outs": outs}

    def select(self, names):
        """The tests a mutant names: test names, or suite:NAME."""
        out = []
        for n in names:
            if n.startswith("suite:"):
                s = n[6:]
                hit = [t for t, v in self.tests.items()
                       if s in v["suite"] or "vncfb:" + s in v["suite"]]
            else:
                hit = [n] if n in self.tests else []
            if not hit:
                raise KeyError(n)
            out += [h for h in hit if h not in out]
        return out

    def build(self, tests):
        outs = []
        for t in tests:
            for o in self.tests[t]["outs"]:
                if o not in outs:
                    outs.append(o)
        return run(["ninja", "-C", self.dir] + outs, self.log) == 0

    def skipped(self):
        """Whether the last meson test run skipped its test (exit 77:
        what it needs is absent)."""
        try:
            with open(os.path.join(self.dir, "meson-logs",
                                   "testlog.json")) as f:
                return any(json.loads(line).get("result") == "SKIP"
                           for line in f if line.strip())
        except (OSError, ValueError):
            return False

    def test(self, tests, timeout, skips=None):
        """None when every test passed, else the first that failed.
        A test that skips passes no judgement: with skips (a list) it
        is put there, else it counts as failed (it skipped under a
        mutant though it ran unmutated)."""
        for t in tests:
            st = run(["meson", "test", "-C", self.dir, "--no-rebuild",
                      "--print-errorlogs", "-q", t], self.log,
                     timeout=timeout)
            if st != 0:
                return t
            if self.skipped():
                if skips is None:
                    return t + " (skipped)"
                skips.append(t)
        return None


def apply(path, m):
    """m applied to path; the original text, for undoing it."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    n = text.count(m.orig)
    if n != 1:
        raise LookupError("its original text is in %s %d times, not once "
                          "(the code moved: update tests/mutate/mutants.py)"
                          % (m.file, n))
    with open(path, "w", encoding="utf-8") as f:
        f.write(text.replace(m.orig, m.new))
    return text


def main():
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*",
                    help="only mutants whose names start with one of these")
    ap.add_argument("--work", help="where the copy and its build live "
                    "(default: $TMPDIR/vncfb-mutate-<tree's hash>)")
    ap.add_argument("--check", action="store_true",
                    help="only check that every mutant applies")
    ap.add_argument("--list", action="store_true", help="list the mutants")
    ap.add_argument("--timeout", type=int, default=300,
                    help="seconds for one test under a mutant (300)")
    a = ap.parse_args()

    src = source_root()
    ms = mutant_list.MUTANTS
    names = [m.name for m in ms]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        sys.exit("mutate: names used twice: %s" % " ".join(sorted(dup)))
    if a.names:
        ms = [m for m in ms if any(m.name.startswith(p) for p in a.names)]
        if not ms:
            ap.error("no mutant's name starts with %s" % " or ".join(a.names))
    if a.list:
        for m in ms:
            print("%-32s %-34s %s%s" % (m.name, m.file, " ".join(m.tests),
                                        "  (may live)" if m.may_live else ""))
        print("%d mutants" % len(ms))
        return 0
    if a.check:
        bad = 0
        for m in ms:
            with open(os.path.join(src, m.file), encoding="utf-8") as f:
                n = f.read().count(m.orig)
            if n != 1:
                print("ERROR %s: its original text is in %s %d times"
                      % (m.name, m.file, n))
                bad += 1
        print("%d mutants, %d apply, %d in error" % (len(ms), len(ms) - bad,
                                                     bad))
        return 1 if bad else 0

    work = a.work or os.path.join(
        tempfile.gettempdir(),
        "vncfb-mutate-" + hashlib.sha1(src.encode()).hexdigest()[:8])
    os.makedirs(work, exist_ok=True)
    log = os.path.join(work, "mutate.log")
    open(log, "w").close()
    b = Build(work, log)
    print("mutate: copying %s to %s (%d files changed)"
          % (src, b.src, sync(src, b.src)), flush=True)
    b.setup()
    try:
        for m in ms:
            m.selected = b.select(m.tests)
    except KeyError as e:
        sys.exit("mutate: no test or suite %s in %s" % (e, b.dir))

    # The tests must pass on the tree as it is, or nothing means anything.
    every = []
    for m in ms:
        every += [t for t in m.selected if t not in every]
    t0 = time.monotonic()
    if not b.build(every):
        sys.exit("mutate: the unmutated tree does not build (see %s)" % log)
    skips = []
    failed = b.test(every, a.timeout, skips)
    if failed:
        print("mutate: %s fails on the unmutated tree (see %s)"
              % (failed, log))
        return 2
    if skips:
        # What a test needs is absent here: the mutants it alone covers
        # cannot be judged, and are errors below.
        print("mutate: skipped here: %s" % " ".join(skips))
        for m in ms:
            m.selected = [t for t in m.selected if t not in skips]
    print("mutate: %d tests pass unmutated (%.0f s); %d mutants"
          % (len(every), time.monotonic() - t0, len(ms)), flush=True)

    killed, survived, lived_ok, errors = [], [], [], []
    for i, m in enumerate(ms, 1):
        path = os.path.join(b.src, m.file)
        t1 = time.monotonic()
        with open(log, "a") as f:
            f.write("\n=== %s\n" % m.name)
        if not m.selected:
            errors.append(m.name)
            print("[%d/%d] ERROR    %s: every test of it skips here (%s)"
                  % (i, len(ms), m.name, " ".join(m.tests)), flush=True)
            continue
        try:
            orig = apply(path, m)
        except (LookupError, OSError) as e:
            errors.append(m.name)
            print("[%d/%d] ERROR    %s: %s" % (i, len(ms), m.name, e),
                  flush=True)
            continue
        try:
            if not b.build(m.selected):
                verdict, by = "ERROR", "it does not build"
            else:
                by = b.test(m.selected, a.timeout)
                verdict = "killed" if by else "SURVIVED"
        finally:
            with open(path, "w", encoding="utf-8") as f:
                f.write(orig)
        dt = time.monotonic() - t1
        if verdict == "killed":
            killed.append(m.name)
            note = "by " + by
        elif verdict == "ERROR":
            errors.append(m.name)
            note = by
        elif m.may_live:
            lived_ok.append(m.name)
            verdict, note = "lived", "may live: " + m.may_live
        else:
            survived.append(m.name)
            note = "not noticed by " + " ".join(m.selected)
        print("[%d/%d] %-8s %s (%.0f s) %s" % (i, len(ms), verdict, m.name,
                                               dt, note), flush=True)

    print()
    print("killed: %s" % (" ".join(killed) or "none"))
    print("survived: %s" % (" ".join(survived) or "none"))
    print("lived, allowed: %s" % (" ".join(lived_ok) or "none"))
    print("errors: %s" % (" ".join(errors) or "none"))
    print("mutate: %d mutants: %d killed, %d survived, %d allowed to live, "
          "%d errors in %.0f s" % (len(ms), len(killed), len(survived),
                                   len(lived_ok), len(errors),
                                   time.monotonic() - t0))
    return 1 if survived or errors else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        # The mutant was undone on the way out (apply's finally).
        sys.exit("mutate: interrupted; the copy is restored")
