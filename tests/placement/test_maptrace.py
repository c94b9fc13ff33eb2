#!/usr/bin/env python3
"""No remapping per frame: a session through many full-frame updates under
a syscall trace (maptrace.sh) makes no mmap, munmap, mprotect, madvise,
mremap or brk call and allocates no frame-sized buffer (the bigalloc shim)
once started, except around a desktop resize; the framebuffer itself is
mapped exactly once. Remapping or changing page protections per update
costs a TLB shootdown on every core.

usage: test_maptrace.py mem BIGALLOC.so   the mem output on the host,
                                          raw and tight encodings
       test_maptrace.py vm BIGALLOC.so    /dev/fb0 (vesafb) in the qemu VM
The VM boots with video=vesafb:mtrr:3, which makes vesafb map its video
memory write-combining; before the trace the probe must show that as the
kernel's memory type (test_vm.py sees the default, uncached-minus).
Exit 77 when strace cannot trace here (or, for vm, qemu is absent)."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
DRIVER = os.path.join(HERE, "maptrace.sh")
VNCFB = os.environ.get("VNCFB")
BUILD = os.environ.get("VNCFB_BUILD_ROOT", ".")
TESTSERVER = os.path.join(BUILD, "tests", "server", "testserver")

# Desktop (and mem output) sizes, the resize in the middle, full frames
# per watched phase: fewer and smaller in the VM, where each costs about
# 0.1 s under TCG.
SIZES = {"mem": ((1024, 768), (800, 600), 60),
         "vm": ((800, 600), (640, 480), 20)}
MEMORY = ("mmap", "munmap", "mprotect", "madvise", "mremap", "brk")
LINE = re.compile(r"^(\d+)\s+(\d+\.\d+)\s+(.*)$")
CALL = re.compile(r"^(\w+)\((.*)$")
BIG = re.compile(r'^-1, "VNCFB_BIGALLOC (\w+) (\d+)')


def events(trace):
    """(kind, text) in trace order: kind is "marker" for a SIGUSR1, the
    syscall's name, or "bigalloc"."""
    out = []
    for line in trace.splitlines():
        m = LINE.match(line.strip())
        if not m:
            continue
        rest = m.group(3)
        if rest.startswith("--- SIGUSR1 "):
            out.append(("marker", rest))
            continue
        c = CALL.match(rest)
        if not c:
            continue                # "<... resumed>", exits, signals
        name, args = c.group(1), c.group(2)
        if name == "write":
            b = BIG.match(args)
            if b:
                out.append(("bigalloc", "%s of %s bytes" % b.groups()))
        elif name in MEMORY:
            out.append((name, rest))
    return out


def problems(trace, fbdev=False):
    """What the trace shows wrong, as a list of strings (empty: clean)."""
    ev = events(trace)
    marks = [i for i, (k, _) in enumerate(ev) if k == "marker"]
    if len(marks) != 4:
        return ["%d SIGUSR1 markers in the trace, not 4" % len(marks)]
    bad = []
    phase = {0: "start-up", 1: "steady", 2: "resize", 3: "steady",
             4: "exit"}
    seen = 0
    resize_big = 0
    found = {}                  # (phase, kind) -> [count, first example]
    top = 0                     # the heap's end, as brk last returned it
    for kind, text in ev:
        if kind == "marker":
            seen += 1
            continue
        if kind == "brk":
            # The heap may still grow while buffers that are reused
            # reach their largest size (the decode jobs', as many as were
            # ever in flight at once: a burst after an idle second is a
            # new high). What is not allowed is giving memory back and
            # taking it again every update: a shrinking heap.
            m = re.search(r"= (0x[0-9a-f]+)", text)
            end = int(m.group(1), 16) if m else 0
            # brk(NULL) asks where the heap ends: a process starts (the
            # shell and env before they exec vncfb have heaps of their
            # own).
            if text.startswith("brk(NULL)"):
                top = 0
            grows = end >= top
            top = max(top, end)
            if grows:
                continue
        if phase[seen] == "steady":
            f = found.setdefault((seen, kind), [0, text])
            f[0] += 1
        elif phase[seen] == "resize" and kind == "bigalloc":
            resize_big += 1
    for (ph, kind), (n, text) in sorted(found.items()):
        bad.append("%d %s call%s after start-up (phase %d), e.g. %s"
                   % (n, kind, "" if n == 1 else "s", ph, text[:160]))
    # The resize reallocates the shadow buffer: the shim must have seen
    # it, else it sees nothing at all.
    if not resize_big:
        bad.append("no frame-sized allocation around the resize: the "
                   "bigalloc shim did not work")
    if fbdev:
        fb = [i for i, (k, t) in enumerate(ev)
              if k == "mmap" and "</dev/fb" in t]
        if len(fb) != 1 or fb[0] > marks[0]:
            bad.append("the framebuffer was mapped %d times (at events "
                       "%s), not once at start-up" % (len(fb), fb))
    return bad


def selftest():
    """The checker itself, on made-up traces."""
    t0 = 1700000000.0

    def trace(*rows):
        return "\n".join("42 %.6f %s" % (t0 + i, r)
                         for i, r in enumerate(rows)) + "\n"

    mark = "--- SIGUSR1 {si_signo=SIGUSR1, si_code=SI_USER} ---"
    big = 'write(-1, "VNCFB_BIGALLOC malloc 1920000\\n", 30) = -1 EBADF'
    mm = "mmap(NULL, 3149824, PROT_READ|PROT_WRITE, MAP_SHARED, " \
         "3</dev/fb0>, 0) = 0x7f0000000000"
    sock = 'write(5<TCP:[1]>, "\\3\\1\\0\\0", 10) = 10'
    clean = trace(mm, "brk(NULL) = 0x55", mark, sock, "brk(0x66) = 0x66",
                  mark, big,
                  "munmap(0x7f1, 3145728) = 0", mark, sock, mark,
                  "munmap(0x7f0000000000, 3149824) = 0")
    assert problems(clean, fbdev=True) == [], problems(clean, True)
    for row in ("mmap(NULL, 3145728, PROT_READ) = 0x7f2",
                "munmap(0x7f2, 3145728) = 0",
                "mprotect(0x7f2, 4096, PROT_NONE) = 0",
                "madvise(0x7f2, 3145728, MADV_DONTNEED) = 0",
                "brk(0x44) = 0x44", big,
                "mmap(NULL, 4096, PROT_READ <unfinished ...>"):
        t = trace(mm, "brk(NULL) = 0x55", mark, sock, row, mark, big,
                  mark, mark)
        assert len(problems(t)) == 1, (row, problems(t))
    # A call interrupted by another thread's counts once; many count as
    # one line each kind.
    t = trace(mm, mark, "mmap(NULL, 4096, PROT_READ <unfinished ...>",
              "<... mmap resumed>) = 0x7f3", mark, big, mark, big, big,
              "munmap(0x7f2, 3145728) = 0", mark)
    assert problems(t) == [
        "1 mmap call after start-up (phase 1), e.g. mmap(NULL, 4096, "
        "PROT_READ <unfinished ...>",
        "2 bigalloc calls after start-up (phase 3), e.g. malloc of "
        "1920000 bytes",
        "1 munmap call after start-up (phase 3), e.g. munmap(0x7f2, "
        "3145728) = 0"], problems(t)
    t = trace(mm, mark, mark, mark, mark)
    assert any("shim" in p for p in problems(t)), problems(t)
    t = trace(mark, mm, mark, big, mark, mark)
    assert any("mapped" in p for p in problems(t, fbdev=True))
    t = trace(mm, mark, mark, big, mark)
    assert "3 SIGUSR1" in problems(t)[0]


def can_trace():
    strace = shutil.which("strace")
    if not strace:
        return None, "strace is not installed"
    p = subprocess.run([strace, "-f", "-o", os.devnull, "true"],
                       capture_output=True, text=True)
    if p.returncode != 0:
        return None, "strace cannot trace here: " + p.stderr.strip()[-200:]
    return strace, None


def check_run(what, out, trace, fbdev, frames):
    """Failures of one run: its driver's verdict, the updates the server
    counted, the trace."""
    bad = []
    if "MAPTRACE ok" not in out:
        bad.append("%s: the session did not run through:\n%s"
                   % (what, out[-3000:]))
        return bad
    rects = sum(int(n) for n in re.findall(r"^STATS (?!desktopsize|end)"
                                           r"\S+ (\d+)", out, re.M))
    want = 10 + 2 * frames + 5
    if rects < want:
        bad.append("%s: the server sent %d rectangles, not the %d full "
                   "frames or more" % (what, rects, want))
    for p in problems(trace, fbdev):
        bad.append("%s: %s" % (what, p))
    return bad


def env_for(mode, d, bigalloc, output, encodings, paths):
    (w, h), (rw, rh), frames = SIZES[mode]
    e = dict(os.environ)
    # A frame-sized allocation: half the smaller desktop's frame or more.
    e.update(VNCFB=paths["vncfb"], TESTSERVER=paths["testserver"],
             STRACE=paths["strace"], BIGALLOC=bigalloc, OUTPUT=output,
             ENCODINGS=encodings, SIZE="%dx%d" % (w, h),
             RESIZE="%d %d" % (rw, rh), WARMUP="30", FRAMES=str(frames),
             MIN=str(rw * rh * 4 // 2), DIR=d)
    e.pop("VNCFB_PASSWORD", None)
    return e


def run_mem(bigalloc):
    strace, why = can_trace()
    if not strace:
        print("SKIP: " + why, file=sys.stderr)
        sys.exit(77)
    bad = []
    for enc in ("raw", "tight"):
        d = tempfile.mkdtemp(prefix="vncfb-maptrace-")
        (w, h), _, frames = SIZES["mem"]
        e = env_for("mem", d, bigalloc, "mem:%dx%d" % (w, h), enc,
                    {"vncfb": VNCFB, "testserver": TESTSERVER,
                     "strace": strace})
        p = subprocess.run(["sh", DRIVER], capture_output=True, text=True,
                           env=e, timeout=600)
        out = p.stdout + p.stderr
        try:
            with open(os.path.join(d, "trace")) as f:
                trace = f.read()
        except OSError:
            trace = ""
        run_bad = check_run("mem, " + enc, out, trace, False, frames)
        print("mem, %s: %d trace lines, %s" % (enc, len(trace.splitlines()),
              "clean" if not run_bad else "%d problems" % len(run_bad)))
        bad += run_bad
        if not run_bad:
            shutil.rmtree(d, ignore_errors=True)
        else:
            print("files kept in " + d)
    return bad


def run_vm(bigalloc):
    sys.path.insert(0, os.path.join(os.environ.get("VNCFB_SOURCE_ROOT", "."),
                                    "tests", "vm"))
    from vmskip import vm_run_or_skip
    vmrun = vm_run_or_skip()
    strace, why = can_trace()
    if not strace:
        print("SKIP: " + why, file=sys.stderr)
        sys.exit(77)
    (w, h), _, frames = SIZES["vm"]
    e = env_for("vm", "/tmp/mt", "/lib/bigalloc.so", "fbdev", "raw",
                {"vncfb": "/bin/vncfb", "testserver": "/bin/testserver",
                 "strace": "/bin/strace"})
    keys = ("VNCFB", "TESTSERVER", "STRACE", "BIGALLOC", "OUTPUT",
            "ENCODINGS", "SIZE", "RESIZE", "WARMUP", "FRAMES", "MIN",
            "DIR")
    assigns = " ".join("%s='%s'" % (k, e[k]) for k in keys)
    guest = ("mount -t debugfs none /sys/kernel/debug; "
             "echo PROBE_BEGIN; vncfb probe 2>&1; echo PROBE_END; "
             "mkdir -p /tmp/mt; %s sh /maptrace.sh; echo TRACE_BEGIN; "
             "cat /tmp/mt/trace; echo TRACE_END" % assigns)
    p = subprocess.run([vmrun, "-q", "--smp", "2", "--fb", "vesa",
                        "--mode", "%dx%dx32" % (w, h),
                        "--append", "video=vesafb:mtrr:3",
                        "--bin", VNCFB + ":/bin/vncfb",
                        "--bin", TESTSERVER + ":/bin/testserver",
                        "--bin", strace + ":/bin/strace",
                        "--bin", bigalloc + ":/lib/bigalloc.so",
                        "--file", DRIVER + ":/maptrace.sh",
                        "--cmd", guest, "--timeout", "500"],
                       capture_output=True, text=True, timeout=600)
    out = p.stdout.replace("\r", "")
    if p.returncode == 125:
        print("the VM did not start:\n" + p.stderr[-2000:], file=sys.stderr)
        sys.exit(1)
    m = re.search(r"TRACE_BEGIN\n(.*?)TRACE_END", out, re.S)
    trace = m.group(1) if m else ""
    bad = check_run("vm fbdev, raw", out.split("TRACE_BEGIN")[0], trace,
                    True, frames)
    m = re.search(r"PROBE_BEGIN\n(.*?)PROBE_END", out, re.S)
    probe = m.group(1) if m else ""
    if not re.search(r"^video memory: 0x[0-9a-f]+-0x[0-9a-f]+ \(\d+ KiB\); "
                     r"the kernel maps it write-combining$", probe, re.M):
        bad.append("vm: vesafb with mtrr:3 is not shown write-combining:\n"
                   + probe)
    print(probe)
    print("vm fbdev, raw: %d trace lines, %s" % (len(trace.splitlines()),
          "clean" if not bad else "%d problems" % len(bad)))
    return bad


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("mem", "vm"):
        print(__doc__, file=sys.stderr)
        return 2
    if not VNCFB:
        print("VNCFB is not set (run through meson test)", file=sys.stderr)
        return 1
    selftest()
    bad = run_mem(sys.argv[2]) if sys.argv[1] == "mem" else \
        run_vm(sys.argv[2])
    for b in bad:
        print("FAIL: " + b, file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
