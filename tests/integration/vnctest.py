"""Helpers for vncfb's integration tests: run the test server and vncfb,
read PPM screenshots, build the expected picture, wait for a match.

Everything talks to loopback only. Waiting is by polling the screenshot
(SIGUSR1 makes vncfb write it) with an overall deadline, never a fixed sleep
as the success criterion.
"""
import os
import queue
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

VNCFB = os.environ.get("VNCFB", "vncfb")
BUILD = os.environ.get("VNCFB_BUILD_ROOT", ".")
SOURCE = os.environ.get("VNCFB_SOURCE_ROOT", ".")
TESTSERVER = os.path.join(BUILD, "tests", "integration", "testserver")

SKIP = 77


class Fail(Exception):
    pass


def log(msg):
    print(msg, flush=True)


class TmpDir:
    """A scratch directory kept (and named) when the test fails."""

    def __init__(self, name):
        self.path = tempfile.mkdtemp(prefix="vncfb-%s-" % name)

    def __call__(self, name):
        return os.path.join(self.path, name)

    def cleanup(self, ok):
        if ok:
            shutil.rmtree(self.path, ignore_errors=True)
        else:
            log("files kept in %s" % self.path)


class LineReader:
    """Collects a pipe's lines in a thread so that reads can time out."""

    def __init__(self, stream):
        self.q = queue.Queue()
        self.seen = []
        t = threading.Thread(target=self._run, args=(stream,), daemon=True)
        t.start()

    def _run(self, stream):
        for line in stream:
            self.q.put(line.rstrip("\n"))
        self.q.put(None)

    def expect(self, prefix, timeout=10.0):
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                raise Fail("timed out waiting for %r (got %r)"
                           % (prefix, self.seen[-5:]))
            try:
                line = self.q.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                raise Fail("stream ended waiting for %r (got %r)"
                           % (prefix, self.seen[-5:]))
            self.seen.append(line)
            if line.startswith(prefix):
                return line


class Server:
    """The test server (tests/integration/testserver.c)."""

    def __init__(self, tmp, *args):
        self.tmp = tmp
        self.p = subprocess.Popen([TESTSERVER, "--timeout", "120", *args],
                                  stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True,
                                  bufsize=1)
        self.out = LineReader(self.p.stdout)
        self.port = int(self.out.expect("READY ").split()[1])
        self.dumps = 0

    def send(self, cmd):
        self.p.stdin.write(cmd + "\n")
        self.p.stdin.flush()

    def expect(self, prefix, timeout=10.0):
        return self.out.expect(prefix, timeout)

    def dump(self):
        """The server's framebuffer as (w, h, rgb bytes)."""
        self.dumps += 1
        path = self.tmp("server-%d.ppm" % self.dumps)
        self.send("dump " + path)
        self.expect("DUMPED ")
        return read_ppm(path)

    def stats(self):
        self.send("stats")
        res = {}
        while True:
            line = self.expect("STATS ")
            parts = line.split()
            if parts[1] == "end":
                return res
            res[parts[1]] = int(parts[2])

    def close(self):
        if self.p.poll() is None:
            try:
                self.send("quit")
            except (BrokenPipeError, OSError):
                pass
            try:
                self.p.wait(5)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()


class Vncfb:
    def __init__(self, tmp, args, env=None, shot="shot.ppm"):
        self.shot = tmp(shot)
        self.errpath = tmp("vncfb-%d.err" % id(self))
        e = dict(os.environ)
        e.pop("VNCFB_PASSWORD", None)
        if env:
            e.update(env)
        self.args = [VNCFB, "--screenshot", self.shot, *args]
        log("$ " + " ".join(self.args))
        self.err = open(self.errpath, "w+")
        self.usr1_ok = False
        # A new session: no controlling terminal, so no password prompt.
        self.p = subprocess.Popen(self.args, stdin=subprocess.DEVNULL,
                                  stdout=self.err, stderr=self.err, env=e,
                                  start_new_session=True)

    def stderr(self):
        self.err.flush()
        with open(self.errpath) as f:
            return f.read()

    def wait_handler(self, timeout):
        """SIGUSR1 kills a process that has not installed its handler
        yet: wait until /proc says it catches it."""
        if self.usr1_ok:
            return
        end = time.monotonic() + timeout
        bit = 1 << (signal.SIGUSR1 - 1)
        while time.monotonic() < end and self.p.poll() is None:
            try:
                with open("/proc/%d/status" % self.p.pid) as f:
                    for line in f:
                        if line.startswith("SigCgt:") and \
                                int(line.split()[1], 16) & bit:
                            self.usr1_ok = True
                            return
            except OSError:
                return
            time.sleep(0.01)

    def snapshot(self, timeout=5.0):
        """Ask for a screenshot and read it; None if vncfb has exited."""
        try:
            os.unlink(self.shot)
        except FileNotFoundError:
            pass
        if self.p.poll() is not None:
            return None
        self.wait_handler(timeout)
        self.p.send_signal(signal.SIGUSR1)
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if os.path.exists(self.shot):
                return read_ppm(self.shot)
            if self.p.poll() is not None:
                return None
            time.sleep(0.02)
        raise Fail("vncfb wrote no screenshot within %.0f s of SIGUSR1"
                   % timeout)

    def wait_until(self, check, timeout=20.0, what="picture"):
        """Poll screenshots until check(img) returns None (match) or the
        deadline passes; check returns a string saying what differs."""
        end = time.monotonic() + timeout
        delay = 0.02
        why = "no screenshot"
        while True:
            img = self.snapshot()
            if img is None:
                raise Fail("vncfb exited (status %s) while waiting for the "
                           "%s (last check: %s): %s"
                           % (self.p.returncode, what, why,
                              self.stderr().strip()))
            why = check(img)
            if why is None:
                return img
            if time.monotonic() > end:
                raise Fail("%s never matched within %.0f s: %s"
                           % (what, timeout, why))
            time.sleep(delay)
            delay = min(delay * 2, 0.25)

    def wait_log(self, text, timeout=20.0, what=None):
        """Seconds until vncfb's log holds text (a line that may come
        after the picture: an answer from the server, a link change);
        Fail(what, with the log) past timeout."""
        t0 = time.monotonic()
        while text not in self.stderr():
            if time.monotonic() - t0 > timeout:
                raise Fail("%s within %.0f s:\n%s" % (
                    what or "no %r" % text, timeout, self.stderr()))
            if self.p.poll() is not None:
                raise Fail("vncfb exited (status %s) before it said %r: %s"
                           % (self.p.returncode, text, self.stderr()))
            time.sleep(0.05)
        return time.monotonic() - t0

    def terminate(self, timeout=10.0):
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGTERM)
        try:
            return self.p.wait(timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
            raise Fail("vncfb did not leave within %.0f s of SIGTERM"
                       % timeout)

    def wait_exit(self, timeout=20.0):
        try:
            return self.p.wait(timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
            raise Fail("vncfb still running after %.0f s" % timeout)

    def kill(self):
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait()


class Ra2Server:
    """ra2server.py (the RSA-AES server in front of a backend, or a
    hostile one with --evil): its READY port. args: its options."""

    PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "ra2server.py")

    def __init__(self, *args):
        self.p = subprocess.Popen([sys.executable, self.PATH, *args],
                                  stdin=subprocess.DEVNULL,
                                  stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True,
                                  bufsize=1)
        self.out = LineReader(self.p.stdout)
        self.port = int(self.out.expect("READY ", 60).split()[1])

    def close(self):
        self.p.kill()
        self.p.wait()


def close_all(servers):
    """Close every server in the list (a test's finally)."""
    for s in servers:
        s.close()


def close_both(cl, srv):
    """A test's cleanup, for its finally: kill vncfb cl if one was started
    (None when not) and is still running, then close its server srv."""
    if cl:
        cl.kill()
    srv.close()

def run_vncfb(args, env=None, timeout=30, quiet=True):
    """Run vncfb to completion: (status, stderr). quiet adds -q, so that
    only warnings and errors are printed (the error checks count lines)."""
    if quiet:
        args = ["-q", *args]
    e = dict(os.environ)
    e.pop("VNCFB_PASSWORD", None)
    if env:
        e.update(env)
    log("$ " + " ".join([VNCFB, *args]))
    p = subprocess.run([VNCFB, *args], stdin=subprocess.DEVNULL,
                       capture_output=True, text=True, env=e,
                       timeout=timeout, start_new_session=True)
    return p.returncode, p.stderr + p.stdout


def self_signed(d, name):
    """A self-signed certificate d/name.crt with its key d/name.key
    (openssl, valid two days): its SHA256:hex fingerprint."""
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048",
                    "-nodes", "-keyout", name + ".key", "-out",
                    name + ".crt", "-days", "2", "-subj",
                    "/CN=vncfb login test"], cwd=d, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    out = subprocess.run(["openssl", "x509", "-in", name + ".crt", "-noout",
                          "-fingerprint", "-sha256"], cwd=d, check=True,
                         capture_output=True, text=True).stdout
    return "SHA256:" + out.strip().split("=")[1].replace(":", "").lower()


def read_ppm(path):
    with open(path, "rb") as f:
        data = f.read()
    fields = []
    pos = 0
    while len(fields) < 4:
        while data[pos:pos + 1].isspace():
            pos += 1
        if data[pos:pos + 1] == b"#":
            pos = data.index(b"\n", pos)
            continue
        start = pos
        while not data[pos:pos + 1].isspace():
            pos += 1
        fields.append(data[start:pos])
    pos += 1
    if fields[0] != b"P6" or fields[3] not in (b"255", b"65535"):
        raise Fail("%s: not a P6 PPM with maxval 255 or 65535" % path)
    w, h = int(fields[1]), int(fields[2])
    n = w * h * 3 * (2 if fields[3] == b"65535" else 1)
    rgb = data[pos:pos + n]
    if len(rgb) != n:
        raise Fail("%s: truncated PPM" % path)
    if fields[3] == b"65535":
        # xwdtopnm writes 16-bit samples, v * 257 for 8-bit v.
        rgb = bytes((rgb[i] * 256 + rgb[i + 1] + 128) // 257
                    for i in range(0, n, 2))
    return w, h, rgb


def write_ppm(path, img):
    w, h, rgb = img
    with open(path, "wb") as f:
        f.write(b"P6\n%d %d\n255\n" % (w, h))
        f.write(rgb)


def _table(bits, mode):
    """8-bit channel -> quantised to bits -> back to 8 bits by bit
    replication (what pixfmt_unpack does). How servers quantise: "round"
    (libvncserver: (v * max + 127) / 255), "round-up" (TigerVNC:
    (v * max + 128) / 255; differs for 5-bit 37 only), "shift" (the top
    bits)."""
    out = bytearray(256)
    top = (1 << bits) - 1
    for v in range(256):
        if mode == "round":
            q = (v * top + 127) // 255
        elif mode == "round-up":
            q = (v * top + 128) // 255
        else:
            q = v >> (8 - bits)
        r, pos = 0, 8
        while pos > 0:
            pos -= bits
            r |= q << pos if pos >= 0 else q >> -pos
        out[v] = r & 0xff
    return bytes(out)


FORMAT_BITS = {
    "xrgb8888": (8, 8, 8),
    "bgrx8888": (8, 8, 8),
    "rgb888": (8, 8, 8),
    "rgb565": (5, 6, 5),
    "xrgb1555": (5, 5, 5),
}


def quantise(img, fmt, mode="round"):
    """The colours img has once shown on an output in format fmt, sent by
    a server that quantises as mode says (see _table)."""
    w, h, rgb = img
    bits = FORMAT_BITS[fmt]
    if bits == (8, 8, 8):
        return img
    out = bytearray(len(rgb))
    for c in range(3):
        out[c::3] = rgb[c::3].translate(_table(bits[c], mode))
    return w, h, bytes(out)


def origin(sw, sh, ow, oh):
    """Where the remote desktop's (0,0) lands on the output: centred when
    smaller, top-left when larger."""
    return ((ow - sw) // 2 if sw < ow else 0,
            (oh - sh) // 2 if sh < oh else 0)


def compose(img, ow, oh):
    """The output picture for remote picture img: black around it."""
    sw, sh, rgb = img
    ox, oy = origin(sw, sh, ow, oh)
    out = bytearray(ow * oh * 3)
    cw, ch = min(sw, ow), min(sh, oh)
    for y in range(ch):
        d = ((oy + y) * ow + ox) * 3
        out[d:d + cw * 3] = rgb[y * sw * 3:(y * sw + cw) * 3]
    return ow, oh, bytes(out)


def diff(got, want):
    """None when equal, else a description of the first difference."""
    gw, gh, g = got
    ww, wh, w = want
    if (gw, gh) != (ww, wh):
        return "size %dx%d, expected %dx%d" % (gw, gh, ww, wh)
    if g == w:
        return None
    n = 0
    first = None
    for i in range(0, len(g), 3):
        if g[i:i + 3] != w[i:i + 3]:
            n += 1
            if first is None:
                first = i // 3
    x, y = first % gw, first // gw
    i = first * 3
    return ("%d pixels differ; first at (%d,%d): got %s expected %s"
            % (n, x, y, tuple(g[i:i + 3]), tuple(w[i:i + 3])))


def mean_error(got, want, rect=None):
    """Mean absolute channel difference inside rect (x, y, w, h)."""
    gw, gh, g = got
    ww, wh, w = want
    if (gw, gh) != (ww, wh):
        return 255.0
    x0, y0, rw, rh = rect or (0, 0, gw, gh)
    total = 0
    for y in range(y0, y0 + rh):
        a = (y * gw + x0) * 3
        ga, wa = g[a:a + rw * 3], w[a:a + rw * 3]
        total += sum(abs(p - q) for p, q in zip(ga, wa))
    return total / float(rw * rh * 3)


def border_black(img, sw, sh):
    """None when everything outside the desktop area is black."""
    ow, oh, rgb = img
    ox, oy = origin(sw, sh, ow, oh)
    for y in range(oh):
        row = rgb[y * ow * 3:(y + 1) * ow * 3]
        if oy <= y < oy + sh:
            parts = [row[:ox * 3], row[(ox + sw) * 3:]]
        else:
            parts = [row]
        for p in parts:
            if p.count(0) != len(p):
                return "border not black in row %d" % y
    return None


class FakeServer:
    """Accepts one connection at a time on 127.0.0.1 and runs script(conn)
    on it."""

    def __init__(self, script):
        self.s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.s.bind(("127.0.0.1", 0))
        self.s.listen(4)
        self.port = self.s.getsockname()[1]
        self.script = script
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self):
        while True:
            try:
                conn, _ = self.s.accept()
            except OSError:
                return
            try:
                conn.settimeout(5)
                self.script(conn)
            except (OSError, EOFError):  # the client went away
                pass
            finally:
                conn.close()

    def close(self):
        self.s.close()


class ScriptServer:
    """One RFB client on 127.0.0.1, served by the subclass's session()
    on a thread: read(n) its bytes, hello(w, h, name) the handshake with
    security type None and a 32 bpp little-endian ServerInit. An
    exception other than a hang-up is kept in error for the test."""

    def __init__(self):
        self.error = None
        self.conn = None
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(1)
        self.port = self.sock.getsockname()[1]
        threading.Thread(target=self._serve, daemon=True).start()

    def read(self, n):
        b = b""
        while len(b) < n:
            c = self.conn.recv(n - len(b))
            if not c:
                raise EOFError
            b += c
        return b

    def hello(self, w, h, name):
        c = self.conn
        c.sendall(b"RFB 003.008\n")
        self.read(12)
        c.sendall(b"\x01\x01")          # security: None
        self.read(1)
        c.sendall(b"\x00\x00\x00\x00")
        self.read(1)                   # ClientInit
        c.sendall(struct.pack(">HH", w, h) +
                  struct.pack(">BBBBHHHBBB3x", 32, 24, 0, 1, 255, 255, 255,
                              16, 8, 0) +
                  struct.pack(">I", len(name)) + name)

    def _serve(self):
        try:
            self.conn, _ = self.sock.accept()
            self.session()
        except (EOFError, OSError):
            pass
        except Exception as e:     # reported by the test
            self.error = repr(e)

    def close(self):
        try:
            self.conn.close()
        except (AttributeError, OSError):
            pass
        self.sock.close()


def free_port():
    """A loopback TCP port nobody listens on, kept bound (not listening)
    so that nobody else takes it: connect() to it is refused."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    return s, s.getsockname()[1]


def main(fn):
    """Run test function fn(tmp); exit 0 / 1 / 77."""
    name = os.path.splitext(os.path.basename(sys.argv[0]))[0]
    tmp = TmpDir(name)
    ok = False
    t0 = time.monotonic()
    try:
        rc = fn(tmp)
        ok = True
    except Fail as e:
        log("FAIL: %s" % e)
        rc = 1
    finally:
        tmp.cleanup(ok)
    log("(%.1f s)" % (time.monotonic() - t0))
    sys.exit(rc or 0)
