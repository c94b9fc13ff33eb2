#!/usr/bin/env python3
"""vncfb built for arm64 or armhf and run under qemu-user (binfmt_misc).

usage: cross_test.py ARCH PART     (ARCH: arm64, armhf; PART: unit,
                                    pixels, integration, demo)

Makes (once, cached) the ARCH sysroot with cross/mksysroot.sh, sets up
and builds a cross tree in $VNCFB_BUILD_ROOT/cross-ARCH with the
repository's cross files (cross/ARCH.ini), and runs a part of its suite
there with QEMU_LD_PREFIX pointing qemu-user at the sysroot's libraries:

  unit         the unit suite and the scaler's pixel tests (scale-pixels,
               scale-blit): the NEON kernels bit for bit against C;
               less LEFT_OUT (timing, libavcodec's encoder)
  pixels       of those, the pixel formats and converters, the decoders
               and the scaler alone (armhf's, for CI's time)
  integration  the encodings against the test server (enc-*), both
               programs ARCH binaries
  demo         vncfb --demo on a mem output: its picture, checked pixel
               for pixel against the demo's scene, within 10 s of start
  vm-drm       (arm64) vncfb on an arm64 guest's console, its DRM card
  vm-fbdev     and its fbdev: tests/cross/cross_vm.py

Skips (77) only when the sysroot cannot be made here (no mmdebstrap, no
binfmt_misc for ARCH: mksysroot.sh says which) or the cross compiler is
not installed."""
import json
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import testlib  # noqa: E402

sys.dont_write_bytecode = True

SRC = os.environ.get("VNCFB_SOURCE_ROOT") or os.path.abspath(
    os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.environ.get("VNCFB_BUILD_ROOT") or os.path.join(SRC, "build")
TRIPLET = {"arm64": "aarch64-linux-gnu", "armhf": "arm-linux-gnueabihf"}
# The demo's picture within this long of vncfb's start.
DEMO_LIMIT_S = 10.0


def log(msg):
    print("cross: " + msg, file=sys.stderr, flush=True)


def skip(msg):
    log("skipped: " + msg)
    sys.exit(77)


def fail(msg):
    log("FAIL: " + msg)
    sys.exit(1)


def sysroot(arch):
    p = subprocess.run([os.path.join(SRC, "cross", "mksysroot.sh"), arch],
                       stdout=subprocess.PIPE, text=True)
    if p.returncode == 77:
        skip("no %s sysroot (see above)" % arch)
    if p.returncode != 0:
        fail("cross/mksysroot.sh %s: status %d" % (arch, p.returncode))
    return p.stdout.strip()


def setup(arch, root):
    cc = TRIPLET[arch] + "-gcc"
    if not shutil.which(cc):
        skip("no %s (Debian package crossbuild-essential-%s)" % (cc, arch))
    bdir = os.path.join(BUILD, "cross-" + arch)
    if not os.path.exists(os.path.join(bdir, "build.ninja")):
        t0 = time.monotonic()
        files = [root + ".ini", os.path.join(SRC, "cross", arch + ".ini")]
        if shutil.which("ccache"):
            # A later cross file's compiler wins: through ccache, whose
            # cache outlives the tree (see build()).
            files.append(os.path.join(BUILD, "cross-%s-ccache.ini" % arch))
            with open(files[-1], "w") as f:
                f.write("[binaries]\nc = ['ccache', '%s']\n" % cc)
        cmd = ["meson", "setup", bdir, SRC]
        for f in files:
            cmd += ["--cross-file", f]
        p = subprocess.run(cmd,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True)
        if p.returncode != 0:
            shutil.rmtree(bdir, ignore_errors=True)
            fail("meson setup for %s:\n%s" % (arch, p.stdout[-3000:]))
        log("set up %s in %.0f s" % (bdir, time.monotonic() - t0))
    return bdir


# Left out of the arm subset, each for a reason of its own (doc/testing.md):
LEFT_OUT = {
    # Times a relay's pacing against the wall clock: emulation's timing.
    "unit-linkrelay",
    # Lossy round trips through libavcodec's own encoder, whose arm64
    # build codes a little differently: 6.21 against a limit of 6.0 on
    # one frame (the decoder is libavcodec's either way).
    "unit-h264", "unit-h264-threads",
    # Their server asks for a screenshot (SIGUSR1) as soon as /proc says
    # vncfb catches SIGUSR1; under qemu-user that is qemu's own handler,
    # from the start, and vncfb may not have its own yet: killed.
    "enc-trle-xrgb8888", "enc-trle-rgb565", "enc-trle-bgrx8888",
}


# armhf's part, kept short for CI's time: pixel formats and converters,
# the decoders, the scaler (all in C there).
PIXELS = {"unit-pixfmt", "unit-pixconv", "unit-decode", "scale-pixels",
          "scale-blit"}


def tests_of(bdir, part):
    """The chosen tests of the cross tree's suite, by name."""
    out = subprocess.run(["meson", "introspect", "--tests", bdir],
                         stdout=subprocess.PIPE, text=True, check=True)
    tests = [t for t in json.loads(out.stdout) if t["name"] not in LEFT_OUT]
    if part == "unit":
        return [t for t in tests if "unit" in t["suite"][0].split(":")[-1]
                or t["name"] in ("scale-pixels", "scale-blit")]
    if part == "integration":
        return [t for t in tests if t["name"].startswith("enc-")]
    if part == "pixels":
        return [t for t in tests if t["name"] in PIXELS]
    return []


def build(bdir, targets):
    """ninja the targets (paths in the cross tree), niced: the machine
    is shared with the rest of the suite."""
    t0 = time.monotonic()
    # ccache (where the tree was set up with it) keeps the objects in
    # ~/.cache beside the sysroot, so that a fresh checkout (CI's) builds
    # in a minute: paths made relative to the source (BASEDIR), and the
    # checkout's folder left out of the hash.
    env = dict(os.environ, CCACHE_BASEDIR=SRC, CCACHE_NOHASHDIR="1",
               CCACHE_DIR=os.path.join(os.environ.get(
                   "XDG_CACHE_HOME") or os.path.expanduser("~/.cache"),
                   "vncfb-ccache"))
    p = subprocess.run(["nice", "ninja", "-C", bdir] + sorted(set(targets)),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, env=env)
    if p.returncode != 0:
        fail("cross build failed:\n" + p.stdout[-4000:])
    log("built %d targets in %.0f s" % (len(set(targets)),
                                         time.monotonic() - t0))


def run_suite(arch, root, bdir, part):
    tests = tests_of(bdir, part)
    if not tests:
        fail("no %s tests in the %s tree" % (part, arch))
    targets = ["vncfb"]
    for t in tests:
        exe = t["cmd"][0]
        if exe.startswith(bdir + os.sep):
            targets.append(os.path.relpath(exe, bdir))
    if part == "integration":
        targets.append("tests/server/testserver")
    build(bdir, targets)
    env = dict(os.environ, QEMU_LD_PREFIX=root)
    names = [t["name"] for t in tests]
    log("%s %s under qemu-user: %s" % (arch, part, " ".join(names)))
    t0 = time.monotonic()
    p = subprocess.run(["meson", "test", "-C", bdir, "--no-rebuild",
                        "--print-errorlogs", "--num-processes", "2",
                        "--timeout-multiplier", "4"] + names, env=env)
    log("%s %s: %d tests in %.0f s, status %d"
        % (arch, part, len(names), time.monotonic() - t0, p.returncode))
    return 0 if p.returncode == 0 else 1


def read_ppm(path):
    try:
        return testlib.read_ppm(path)
    except testlib.PpmError as e:
        fail("screenshot: %s" % e)


BARS = [(255, 255, 255), (0, 255, 255), (255, 255, 0), (0, 255, 0),
        (255, 0, 255), (0, 0, 255), (255, 0, 0), (0, 0, 0)]
BOX = ((255, 64, 0), (255, 255, 255))  # the box's checker squares
DEMO_W, DEMO_H = 800, 600               # client/tools/demo/demo.c
CURSOR = 32                             # the cursor's corner, left out


def check_scene(w, h, px):
    """Every pixel of the screenshot against the demo's scene
    (client/tools/demo/scene.c). The animator draws while the server
    sends, so a picture may hold rows of several frames: each pixel must be
    what some frame has there. Top half: the colour bar of its column,
    or the box's orange or white. Bottom half: green y * 255 / h, red
    and blue the column's gradient moved by one offset t (t = 3n mod 256
    for frame n). Then the box must show. Under emulation an update
    takes longer than a frame, so the rows may come from many frames.
    The pointer's corner (vncfb draws the cursor at 0,0, where the
    pointer starts) is left out. Returns a line for the log."""
    bad = []
    ts = {}
    box = 0
    for y in range(h):
        for x in range(w):
            i = (y * w + x) * 3
            p = tuple(px[i:i + 3])
            if x < CURSOR and y < CURSOR:
                continue
            if y < h // 2:
                if p in BOX:
                    box += 1
                elif p != BARS[x * 8 // w]:
                    bad.append((x, y, p, "bar %s" % (BARS[x * 8 // w],)))
                continue
            xv = x * 255 // w
            t = (p[0] - xv) % 256
            if p[1] != y * 255 // h or (p[2] - (255 - xv)) % 256 != t:
                bad.append((x, y, p, "gradient"))
                continue
            ts[t] = ts.get(t, 0) + 1
    if bad:
        fail("%d pixels are no frame of the demo's scene; first: %s"
             % (len(bad), bad[:5]))
    half = w * (h - h // 2)
    t, most = max(ts.items(), key=lambda kv: kv[1])
    if box < 96 * 96 // 2:
        fail("the box is missing: %d of its %d pixels" % (box, 96 * 96))
    return ("%d frames' gradients (offset %d on %d of %d pixels), %d box "
            "pixels" % (len(ts), t, most, half, box))


def demo(arch, root, bdir):
    build(bdir, ["vncfb"])
    shot = os.path.join(bdir, "cross-demo.ppm")
    if os.path.exists(shot):
        os.unlink(shot)
    env = dict(os.environ, QEMU_LD_PREFIX=root)
    # --exit-after counts from the session's start: the screenshot at
    # its end is what the screen showed DEMO_LIMIT_S after vncfb began.
    t0 = time.monotonic()
    # ZRLE: lossless, so that every pixel can be checked (on its own
    # the demo may pick Tight with JPEG for the gradient).
    p = subprocess.run([os.path.join(bdir, "vncfb"), "--demo", "-v",
                        "--encodings", "zrle",
                        "--exit-after", "%g" % DEMO_LIMIT_S,
                        "-o", "mem:%dx%d:xrgb8888" % (DEMO_W, DEMO_H),
                        "--screenshot", shot],
                       env=env, capture_output=True, text=True, timeout=120)
    took = time.monotonic() - t0
    if p.returncode != 0:
        fail("vncfb --demo (%s): status %d:\n%s"
             % (arch, p.returncode, p.stderr[-3000:]))
    if not os.path.exists(shot):
        fail("vncfb --demo (%s) wrote no screenshot:\n%s"
             % (arch, p.stderr[-3000:]))
    if took > DEMO_LIMIT_S + 5:
        fail("vncfb --demo (%s) took %.1f s to leave after --exit-after %g"
             % (arch, took, DEMO_LIMIT_S))
    w, h, px = read_ppm(shot)
    if (w, h) != (DEMO_W, DEMO_H):
        fail("screenshot %dx%d, not %dx%d" % (w, h, DEMO_W, DEMO_H))
    what = check_scene(w, h, px)
    drew = [ln for ln in p.stderr.splitlines() if "drew" in ln]
    log("ok: %s vncfb --demo: every pixel of the screenshot taken %g s "
        "after start is the demo's scene (%s); left after %.1f s; %s"
        % (arch, DEMO_LIMIT_S, what, took, drew[-1:]))
    return 0


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in TRIPLET or \
            sys.argv[2] not in ("unit", "pixels", "integration", "demo",
                                "vm-drm", "vm-fbdev"):
        print(__doc__, file=sys.stderr)
        return 2
    arch, part = sys.argv[1], sys.argv[2]
    root = sysroot(arch)
    bdir = setup(arch, root)
    if part == "demo":
        return demo(arch, root, bdir)
    if part.startswith("vm-"):
        if arch != "arm64":
            fail("the guest is arm64's alone")
        import cross_vm
        return cross_vm.run(part, root, bdir, build)
    return run_suite(arch, root, bdir, part)


if __name__ == "__main__":
    sys.exit(main())
