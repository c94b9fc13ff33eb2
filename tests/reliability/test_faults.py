#!/usr/bin/env python3
"""Fault tests: vncfb against a server that is killed, stalled, restarted,
cut off mid-update, or comes back with another password.

Runs vncfb on a mem output with --screenshot and reads the picture back
(SIGUSR1) to check that the last picture stays, the status line shows and
goes, and the new screen appears. Loopback only, ports picked by the
kernel.
"""
import os
import signal
import socket
import struct
import subprocess
import sys
import threading
import time

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
                "--size", f"{W}x{H}"]
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
        args = [VNCFB, "-o", f"mem:{W}x{H}", "--screenshot", shot,
                "--timeout", "2", *extra, f"127.0.0.1::{port}"]
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
    data = open(path, "rb").read()
    parts = data.split(b"\n", 3)
    w, h = map(int, parts[1].split())
    pix = parts[3]
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
    pf = struct.pack(">BBBBHHHBBB3x", 32, 24, 0, 1, 255, 255, 255, 16, 8, 0)
    c.sendall(struct.pack(">HH", W, H) + pf + struct.pack(">I", 4) + b"fake")
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


def main():
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        for t in (test_kill_restart_stall, test_killed_mid_update,
                  test_no_reconnect, test_auth_not_retried):
            n = len(failures)
            t(tmp)
            print(f"{t.__name__}: {'ok' if len(failures) == n else 'FAIL'}")
    if failures:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
