#!/usr/bin/env python3
"""Fault tests: vncfb against a server that is killed, stalled, restarted,
cut off mid-update, or comes back with another password.

Runs vncfb on a mem output with --screenshot and reads the picture back
(SIGUSR1) to check that the last picture stays, the status line shows and
goes, and the new screen appears. Loopback only, ports picked by the
kernel.
"""
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import testlib  # noqa: E402

VNCFB = os.environ["VNCFB"]
SERVER = os.environ["VNCFB_TESTSERVER"]
W, H = 64, 48
BAR_BG = (24, 24, 24)
failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print("FAIL:", msg, file=sys.stderr)
    return cond


class Server:
    def __init__(self, port=0, colour="ff0000", password=None):
        args = [SERVER, "--port", str(port), "--colour", colour,
                "--size", f"{W}x{H}", "--keep", "--timeout", "0"]
        if password:
            args += ["--password", password]
        self.p = subprocess.Popen(args, stdout=subprocess.PIPE, text=True)
        line = self.p.stdout.readline()
        if not line.startswith("READY "):
            raise SystemExit(f"testserver did not start: {line!r}")
        self.port = int(line.split()[1])

    def kill(self):
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGCONT)
            self.p.kill()
        self.p.wait()


class Client:
    def __init__(self, port, shot, extra=(), env=None):
        """port None: the server comes from a config file in extra."""
        args = [VNCFB, "-o", f"mem:{W}x{H}", "--screenshot", shot,
                "--timeout", "2", *extra]
        if port is not None:
            args.append(f"127.0.0.1::{port}")
        self.shot = shot
        self.lines = []
        self.cond = threading.Condition()
        e = dict(os.environ)
        e.update(env or {})
        self.p = subprocess.Popen(args, stderr=subprocess.PIPE, text=True,
                                  env=e)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.p.stderr:
            with self.cond:
                self.lines.append((time.monotonic(), line.rstrip()))
                self.cond.notify_all()
        with self.cond:
            self.cond.notify_all()

    def wait_for(self, text, count=1, timeout=10.0):
        """Time of the count-th line containing text, or None."""
        end = time.monotonic() + timeout
        with self.cond:
            while True:
                hits = [t for t, l in self.lines if text in l]
                if len(hits) >= count:
                    return hits[count - 1]
                left = end - time.monotonic()
                if left <= 0 or (self.p.poll() is not None and
                                 not self._more()):
                    return None
                self.cond.wait(min(left, 0.2))

    def _more(self):
        return False

    def count(self, text):
        with self.cond:
            return sum(1 for _, l in self.lines if text in l)

    def screenshot(self):
        before = os.stat(self.shot).st_mtime_ns if os.path.exists(
            self.shot) else 0
        self.p.send_signal(signal.SIGUSR1)
        end = time.monotonic() + 5
        while time.monotonic() < end:
            if os.path.exists(self.shot) and \
                    os.stat(self.shot).st_mtime_ns != before:
                time.sleep(0.05)
                return read_ppm(self.shot)
            time.sleep(0.02)
        raise SystemExit("no screenshot after SIGUSR1")

    def stop(self):
        if self.p.poll() is None:
            self.p.terminate()
        try:
            return self.p.wait(10)
        except subprocess.TimeoutExpired:
            self.p.kill()
            return self.p.wait()

    def log(self):
        with self.cond:
            return "\n".join(l for _, l in self.lines)


def read_ppm(path):
    """The screenshot as a function of (x, y) giving (r, g, b)."""
    w, _, pix = testlib.read_ppm(path)
    return lambda x, y: tuple(pix[(y * w + x) * 3:(y * w + x) * 3 + 3])


def near(a, b, tol=8):
    return all(abs(x - y) <= tol for x, y in zip(a, b))


def restart_on(port, **kw):
    for _ in range(50):
        try:
            return Server(port=port, **kw)
        except SystemExit:
            time.sleep(0.1)
    raise SystemExit(f"cannot restart the server on port {port}")


def test_kill_restart_stall(tmp):
    srv = Server(colour="ff0000")
    port = srv.port
    cl = Client(port, os.path.join(tmp, "a.ppm"))
    try:
        if not check(cl.wait_for("connected to") is not None,
                     "vncfb did not connect:\n" + cl.log()):
            return
        time.sleep(0.5)
        pic = cl.screenshot()
        check(near(pic(W // 2, H // 2), (255, 0, 0)),
              f"first picture not red: {pic(W // 2, H // 2)}")

        # Killed: the picture stays, the status line shows.
        srv.kill()
        t_kill = time.monotonic()
        check(cl.wait_for("reconnecting to", timeout=5) is not None,
              "no reconnect after the server was killed:\n" + cl.log())
        time.sleep(0.3)
        pic = cl.screenshot()
        check(near(pic(W // 2, 10), (255, 0, 0)),
              f"last picture lost while disconnected: {pic(W // 2, 10)}")
        check(near(pic(0, H - 1), BAR_BG),
              f"no status line while disconnected: {pic(0, H - 1)}")
        check(cl.p.poll() is None, "vncfb exited while reconnecting")

        # Restarted after 1.5 s with another picture.
        time.sleep(max(0, 1.5 - (time.monotonic() - t_kill)))
        srv = restart_on(port, colour="0000ff")
        t_up = time.monotonic()
        t_conn = cl.wait_for("connected to", count=2, timeout=10)
        if check(t_conn is not None, "no reconnect after the restart:\n" +
                 cl.log()):
            print(f"reconnected {t_conn - t_up:.2f} s after the server "
                  f"came back")
            check(t_conn - t_up <= 2.0,
                  f"reconnect took {t_conn - t_up:.2f} s (> 2 s)")
            time.sleep(0.5)
            pic = cl.screenshot()
            check(near(pic(W // 2, H // 2), (0, 0, 255)),
                  f"new screen not shown: {pic(W // 2, H // 2)}")
            check(near(pic(0, H - 1), (0, 0, 255)),
                  f"status line left on screen: {pic(0, H - 1)}")

        # Stalled: noticed within twice the timeout (ping, then drop).
        srv.p.send_signal(signal.SIGSTOP)
        t_stop = time.monotonic()
        t_gone = cl.wait_for("stopped responding", timeout=10)
        if check(t_gone is not None, "stalled server not noticed:\n" +
                 cl.log()):
            print(f"stall noticed after {t_gone - t_stop:.2f} s "
                  f"(--timeout 2)")
            check(t_gone - t_stop <= 5.5,
                  f"stall noticed only after {t_gone - t_stop:.2f} s")
        srv.p.send_signal(signal.SIGCONT)
        check(cl.wait_for("connected to", count=3, timeout=15) is not None,
              "no reconnect after the stall ended:\n" + cl.log())
    finally:
        rc = cl.stop()
        srv.kill()
    check(rc == 0, f"vncfb exit status {rc} on SIGTERM")


def fake_truncating_server(lsock, sent):
    """One connection: handshake, then half a raw update, then close."""
    c, _ = lsock.accept()
    c.sendall(b"RFB 003.008\n")
    c.recv(12)
    c.sendall(bytes([1, 1]))
    c.recv(1)
    c.sendall(struct.pack(">I", 0))
    c.recv(1)
    c.sendall(struct.pack(">HH", W, H) + testlib.pixfmt32() +
              struct.pack(">I", 4) + b"fake")
    time.sleep(0.3)          # let the client's format and request arrive
    c.recv(4096)
    body = struct.pack("<I", 0x00ff00) * (W * H)
    c.sendall(struct.pack(">BxH", 0, 1) +
              struct.pack(">HHHHi", 0, 0, W, H, 0) + body[:len(body) // 2])
    sent.set()
    time.sleep(0.2)
    c.close()


def test_killed_mid_update(tmp):
    lsock = socket.socket()
    lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lsock.bind(("127.0.0.1", 0))
    lsock.listen(4)
    port = lsock.getsockname()[1]
    sent = threading.Event()
    th = threading.Thread(target=fake_truncating_server, args=(lsock, sent),
                          daemon=True)
    th.start()
    cl = Client(port, os.path.join(tmp, "b.ppm"))
    srv = None
    try:
        check(cl.wait_for("connected to") is not None,
              "no connection to the truncating server:\n" + cl.log())
        check(sent.wait(5), "truncating server did not send")
        th.join(5)
        lsock.close()
        check(cl.wait_for("reconnecting to", timeout=5) is not None,
              "cut-off update did not lead to a reconnect:\n" + cl.log())
        check(cl.p.poll() is None, "vncfb exited on a cut-off update")
        srv = restart_on(port, colour="ffff00")
        check(cl.wait_for("connected to", count=2, timeout=10) is not None,
              "no reconnect after the cut-off update:\n" + cl.log())
        time.sleep(0.5)
        pic = cl.screenshot()
        check(near(pic(W // 2, H - 1), (255, 255, 0)),
              f"new screen after the cut-off not shown: {pic(W // 2, H - 1)}")
    finally:
        cl.stop()
        if srv:
            srv.kill()


def test_no_reconnect(tmp):
    srv = Server()
    cl = Client(srv.port, os.path.join(tmp, "c.ppm"), ["--no-reconnect"])
    try:
        check(cl.wait_for("connected to") is not None, "no connection")
        srv.kill()
        try:
            rc = cl.p.wait(5)
        except subprocess.TimeoutExpired:
            rc = None
        check(rc == 1, f"--no-reconnect: exit status {rc}, want 1")
        check(cl.count("reconnecting") == 0, "--no-reconnect reconnected")
    finally:
        cl.stop()
        srv.kill()


def test_auth_not_retried(tmp):
    srv = Server(password="first")
    port = srv.port
    cl = Client(port, os.path.join(tmp, "d.ppm"),
                env={"VNCFB_PASSWORD": "first"})
    try:
        check(cl.wait_for("connected to") is not None,
              "no connection with the password:\n" + cl.log())
        srv.kill()
        srv = restart_on(port, password="second")
        try:
            rc = cl.p.wait(15)
        except subprocess.TimeoutExpired:
            rc = None
        check(rc == 1, f"auth failure on reconnect: exit status {rc}, "
              "want 1 (no retry)")
        check(cl.count("authentication failed") == 1,
              "auth failure not reported once:\n" + cl.log())
        check(cl.count("connecting to") == 0 or
              cl.count("reconnecting to") == 1,
              "retried after an auth failure:\n" + cl.log())
    finally:
        cl.stop()
        srv.kill()


def refused_port():
    """A loopback port that refuses connections now (bound, not listening)
    and is free for a server later."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    return s, port


def test_first_connect(tmp):
    """A kiosk that boots before its server: without reconnect always the
    first failure ends vncfb (status 1, one line); with it, from the
    command line or a config file, vncfb waits with the status line up and
    shows the server once it is there."""
    sock, port = refused_port()
    try:
        r = subprocess.run([VNCFB, "-o", f"mem:{W}x{H}",
                            f"127.0.0.1::{port}"], capture_output=True,
                           text=True, timeout=30)
        lines = r.stderr.strip().splitlines()
        check(r.returncode == 1 and len(lines) == 1 and
              "refused" in lines[0],
              f"first failure without always: exit {r.returncode}, "
              f"{lines}")
    finally:
        sock.close()
    conf = os.path.join(tmp, "kiosk.conf")
    for how in ("option", "config"):
        sock, port = refused_port()
        if how == "option":
            extra, cport = ["--reconnect", "always"], port
        else:
            with open(conf, "w") as f:
                f.write(f"server = 127.0.0.1::{port}\nreconnect = always\n")
            extra, cport = ["--config", conf], None
        cl = Client(cport, os.path.join(tmp, f"first-{how}.ppm"), extra)
        srv = None
        try:
            check(cl.wait_for("reconnecting to", timeout=10) is not None,
                  f"{how}: refused first connection not retried:\n" +
                  cl.log())
            check(cl.count("refused") >= 1,
                  f"{how}: the reason is not said:\n" + cl.log())
            time.sleep(0.3)
            check(cl.p.poll() is None, f"{how}: vncfb exited while waiting")
            pic = cl.screenshot()
            check(near(pic(0, H - 1), BAR_BG),
                  f"{how}: no status line while waiting: {pic(0, H - 1)}")
            sock.close()
            srv = restart_on(port, colour="00ff00")
            check(cl.wait_for("connected to", timeout=10) is not None,
                  f"{how}: not connected once the server is up:\n" +
                  cl.log())
            time.sleep(0.5)
            pic = cl.screenshot()
            check(near(pic(W // 2, H // 2), (0, 255, 0)) and
                  near(pic(0, H - 1), (0, 255, 0)),
                  f"{how}: server's picture not shown: "
                  f"{pic(W // 2, H // 2)} {pic(0, H - 1)}")
        finally:
            rc = cl.stop()
            sock.close()
            if srv:
                srv.kill()
        check(rc == 0, f"{how}: exit status {rc} on SIGTERM")


def read_png(path):
    """(width, height, pixel(x, y)) of an 8-bit RGB PNG without filters
    other than none, as vncfb writes it; checks every chunk's CRC."""
    import zlib
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG signature")
    pos, idat, w = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        crc, = struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])
        if zlib.crc32(kind + body) != crc:
            raise ValueError(f"bad CRC in {kind}")
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            if (depth, ctype) != (8, 2):
                raise ValueError(f"depth {depth} colour type {ctype}")
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = 1 + 3 * w
    if len(raw) != stride * h or any(raw[y * stride] for y in range(h)):
        raise ValueError("rows are not filter 0 or the size is wrong")
    return w, h, lambda x, y: tuple(raw[y * stride + 1 + 3 * x:
                                        y * stride + 4 + 3 * x])


def until_line(p, text, timeout=20.0):
    """p's stderr read up to and including the first line holding text
    (or to its end, or timeout): what was read."""
    got, end = "", time.monotonic() + timeout
    while time.monotonic() < end:
        line = p.stderr.readline()
        got += line
        if not line or text in line:
            break
    return got


def test_screenshots(tmp):
    """--screenshot FILE.png writes a PNG (read here and by netpbm's
    pngtopnm when it is there); SIGUSR1 without --screenshot is warned; a
    screenshot that cannot be written at exit makes the status 1."""
    srv = Server(colour="00ffff")
    try:
        png = os.path.join(tmp, "shot.png")
        r = subprocess.run([VNCFB, "-o", f"mem:{W}x{H}", "--screenshot", png,
                            "--exit-after", "1.5", f"127.0.0.1::{srv.port}"],
                           capture_output=True, text=True, timeout=30)
        check(r.returncode == 0, f"PNG screenshot: exit {r.returncode}: "
              f"{r.stderr}")
        try:
            w, h, pix = read_png(png)
            check((w, h) == (W, H) and near(pix(W // 2, H // 2),
                                            (0, 255, 255)),
                  f"PNG screenshot: {w}x{h}, centre {pix(W // 2, H // 2)}")
        except (OSError, ValueError) as e:
            check(False, f"PNG screenshot unreadable: {e}")
        if shutil.which("pngtopnm"):
            p = subprocess.run(["pngtopnm", png], capture_output=True)
            check(p.returncode == 0 and p.stdout.startswith(b"P6"),
                  f"pngtopnm refuses vncfb's PNG: {p.stderr!r}")

        # SIGUSR1 with nothing to write: one warning, and it goes on.
        cl = subprocess.Popen([VNCFB, "-o", f"mem:{W}x{H}", "--exit-after",
                               "3", f"127.0.0.1::{srv.port}"],
                              stderr=subprocess.PIPE, text=True)
        head = until_line(cl, "connected to")
        cl.send_signal(signal.SIGUSR1)
        _, err = cl.communicate(timeout=20)
        err = head + err
        check(cl.returncode == 0 and "SIGUSR1" in err and
              "--screenshot" in err,
              f"SIGUSR1 without --screenshot: exit {cl.returncode}: {err}")

        # The directory goes away while vncfb runs: status 1 at exit.
        gone = os.path.join(tmp, "gone")
        os.mkdir(gone)
        cl = subprocess.Popen([VNCFB, "-o", f"mem:{W}x{H}", "--screenshot",
                               os.path.join(gone, "x.ppm"), "--exit-after",
                               "2", f"127.0.0.1::{srv.port}"],
                              stderr=subprocess.PIPE, text=True)
        # Once connected (its checks at start found the directory).
        head = until_line(cl, "connected to")
        os.rmdir(gone)
        _, err = cl.communicate(timeout=20)
        err = head + err
        check(cl.returncode == 1 and "cannot write screenshot" in err,
              f"screenshot lost at exit: exit {cl.returncode}: {err}")
    finally:
        srv.kill()


def main():
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        for t in (test_kill_restart_stall, test_killed_mid_update,
                  test_no_reconnect, test_auth_not_retried,
                  test_first_connect, test_screenshots):
            n = len(failures)
            t(tmp)
            print(f"{t.__name__}: {'ok' if len(failures) == n else 'FAIL'}")
    if failures:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
