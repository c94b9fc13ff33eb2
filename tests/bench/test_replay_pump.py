#!/usr/bin/env python3
"""The replay pump (vncfb bench --replay, --serve) on a recording written
here from the documented layout (tests/bench/recfile.py), no X server:

* a client speaking RFB 3.8 or 3.3 gets the recorded ServerInit, then
  exactly the recorded bytes: one update per request, never one unasked,
  pipelined requests answered in turn, what the server sent unasked (Bell,
  cut text) in its place; the pump reports the play on stdout;
* hostile or unsupported clients are refused in one line each, and the
  next client is served as if nothing happened;
* vncfb bench --replay ends every play on the recorded picture and says
  so; a recorded picture that differs from what the stream draws ends the
  bench with status 1 and one line naming the first differing pixel; a
  recording too short for the bench is a usage error;
* with the argument vncviewer: TigerVNC's vncviewer (under Xvfb) plays
  the recording from the pump to its end (exit 77 when not installed).
"""
import os
import queue
import select
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True
import recfile  # noqa: E402
from benchcheck import check, finish, start_xvfb  # noqa: E402

VNCFB = os.environ.get("VNCFB")
W, H = 64, 48


def pattern(k):
    out = bytearray()
    for y in range(H):
        for x in range(W):
            out += struct.pack("<I", ((x * 4 + k * 16) & 255) << 16 |
                               ((y * 5 + k * 7) & 255) << 8 |
                               (((x ^ y) + k) & 255))
    return bytes(out)


def raw_update(pix, x=0, y=0, w=W, h=H):
    rect = bytearray()
    for row in range(y, y + h):
        rect += pix[(row * W + x) * 4:(row * W + x + w) * 4]
    return b"\x00\x00" + struct.pack(">H", 1) + \
        struct.pack(">HHHHi", x, y, w, h, 0) + bytes(rect)


def make_messages():
    p2, p3 = pattern(2), pattern(3)
    final = bytearray(p2)
    for row in range(10, 18):
        final[(row * W + 10) * 4:(row * W + 18) * 4] = \
            p3[(row * W + 10) * 4:(row * W + 18) * 4]
    cut = b"\x03\x00\x00\x00" + struct.pack(">I", 5) + b"hello"
    msgs = [
        (recfile.UPDATE | recfile.FULL, raw_update(pattern(0)), 1000),
        (0, b"\x02", 2000),
        (recfile.UPDATE | recfile.FULL, raw_update(pattern(1)), 3000),
        (recfile.UPDATE | recfile.FULL, raw_update(p2), 4000),
        (0, cut, 5000),
        (recfile.UPDATE, raw_update(p3, 10, 10, 8, 8), 6000),
    ]
    return msgs, bytes(final)


def recvn(s, n, timeout=5.0):
    buf = b""
    end = time.monotonic() + timeout
    while len(buf) < n:
        left = end - time.monotonic()
        if left <= 0 or not select.select([s], [], [], left)[0]:
            raise TimeoutError("got %d of %d bytes" % (len(buf), n))
        chunk = s.recv(n - len(buf))
        if not chunk:
            raise EOFError("closed after %d of %d bytes" % (len(buf), n))
        buf += chunk
    return buf


def quiet(s, wait=0.3):
    """Nothing arrives within wait seconds."""
    return not select.select([s], [], [], wait)[0]


def closed(s, wait=5.0):
    """The pump closed the connection."""
    try:
        if not select.select([s], [], [], wait)[0]:
            return False
        return s.recv(1) == b""
    except ConnectionResetError:
        return True


def handshake(port, minor=8, sectype=1):
    s = socket.create_connection(("127.0.0.1", port), 5)
    check(recvn(s, 12) == b"RFB 003.008\n", "the pump's version")
    s.sendall(b"RFB 003.%03d\n" % minor)
    if minor >= 7:
        n = recvn(s, 1)[0]
        types = recvn(s, n)
        check(types == b"\x01", "security types %r" % types)
        s.sendall(bytes([sectype]))
        if sectype != 1:
            return s, None
        if minor == 8:
            check(recvn(s, 4) == b"\0\0\0\0", "SecurityResult")
    else:
        check(recvn(s, 4) == b"\0\0\0\1", "3.3 security type")
    s.sendall(b"\x01")
    si = recvn(s, 24)
    name = recvn(s, struct.unpack(">I", si[20:24])[0])
    return s, (si, name)


def request(s, n=1):
    s.sendall((b"\x03\x01" + struct.pack(">HHHH", 0, 0, W, H)) * n)


class Pump:
    def __init__(self, path, extra=()):
        self.err = tempfile.TemporaryFile("w+")
        self.p = subprocess.Popen([VNCFB, "bench", "--replay", path,
                                   "--serve", "0"] + list(extra),
                                  stdout=subprocess.PIPE,
                                  stderr=self.err, text=True, bufsize=1)
        self.q = queue.Queue()
        threading.Thread(target=lambda: [self.q.put(x.strip())
                                         for x in self.p.stdout],
                         daemon=True).start()
        self.lines = []
        line = self.expect("replay: serving ")
        self.port = int(line.rsplit(":", 1)[1]) if line else 0

    def expect(self, prefix, timeout=10):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                line = self.q.get(timeout=0.2)
            except queue.Empty:
                continue
            self.lines.append(line)
            if line.startswith(prefix):
                return line
        check(False, "pump never said %r (said %r)" % (prefix,
                                                       self.lines[-3:]))
        return ""

    def stop(self):
        self.p.send_signal(signal.SIGTERM)
        try:
            self.p.wait(10)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
        self.err.seek(0)
        return self.p.returncode, self.err.read()


def serve_checks(path, msgs):
    pump = Pump(path)
    upd = [m[1] for m in msgs]
    # A well-behaved 3.8 client.
    s, (si, name) = handshake(pump.port)
    check(struct.unpack(">HH", si[:4]) == (W, H), "ServerInit size")
    check(si[4:20] == recfile.XRGB8888 and name == b"synthetic",
          "ServerInit format and name")
    check(quiet(s), "an update before any request")
    request(s)
    check(recvn(s, len(upd[0]) + 1) == upd[0] + b"\x02",
          "first update, then the Bell sent unasked")
    check(quiet(s), "a second update for one request")
    # Three requests at once: the three remaining updates in turn, the
    # cut text in its place.
    request(s, 3)
    want = upd[2] + upd[3] + upd[4] + upd[5]
    check(recvn(s, len(want)) == want, "pipelined requests answered")
    pump.expect("replay: client 1: playing")
    request(s)  # past the end: the pump stops, and says so
    line = pump.expect("replay: client 1: played 3 updates in ")
    check("2 of them of the whole desktop" in line, "full count: %r" % line)
    check(quiet(s), "data after the end of the recording")
    s.close()
    pump.expect("replay: client 1: left after 4 of 4 updates")

    refusals = [
        ("sent no RFB 3.x version", lambda: raw(b"HELLO WORLD!\n")),
        ("chose security type 2", lambda: handshake(pump.port,
                                                    sectype=2)[0]),
        ("sent client message type 99", lambda: after_init(b"\x63")),
        ("asks for updates in rgb565; the recording is in xrgb8888",
         lambda: after_init(b"\x00\0\0\0" + recfile.RGB565 +
                            b"\x03\x00" + struct.pack(">HHHH", 0, 0, W, H))),
        ("asked for continuous updates",
         lambda: after_init(b"\x96\x01" + struct.pack(">HHHH", 0, 0, W, H))),
        ("sent a fence of 200 bytes",
         lambda: after_init(b"\xf8\0\0\0" + struct.pack(">I", 0) +
                            b"\xc8")),
        ("asked for a pixel format the replay cannot serve",
         lambda: after_init(b"\x00\0\0\0" + bytes([8, 8, 0, 0]) +
                            bytes(12))),
    ]

    def raw(data):
        s = socket.create_connection(("127.0.0.1", pump.port), 5)
        recvn(s, 12)
        s.sendall(data)
        return s

    def after_init(data):
        s, _ = handshake(pump.port)
        s.sendall(data)
        return s

    for why, fn in refusals:
        s = fn()
        check(closed(s), "not closed after: %s" % why)
        s.close()
    # Input the pump must take in its stride: keys, pointer, encodings,
    # a huge cut text (skipped, never stored), a QEMU key event; and a
    # 3.3 client.
    s, _ = handshake(pump.port, minor=3)
    s.sendall(b"\x02\x00" + struct.pack(">H", 3) + struct.pack(">iii", 7, 16,
                                                               -223) +
              b"\x04\x01\0\0" + struct.pack(">I", 0x61) +
              b"\x05\x00" + struct.pack(">HH", 3, 4) +
              b"\xff\x00" + struct.pack(">HII", 1, 0x61, 30) +
              b"\x06\0\0\0" + struct.pack(">I", 1 << 20) + bytes(1 << 20))
    request(s)
    check(recvn(s, len(upd[0]) + 1) == upd[0] + b"\x02",
          "3.3 client after input: first update")
    s.close()
    rc, err = pump.stop()
    lines = [x for x in err.splitlines() if x.strip()]
    check(rc == 0, "pump exit %d" % rc)
    for why, _ in refusals:
        n = sum(1 for x in lines if why in x)
        check(n == 1, "%r logged %d times" % (why, n))
    check(len(lines) == len(refusals),
          "%d lines for %d refusals: %r" % (len(lines), len(refusals), lines))


def bench_checks(tmp, msgs, final):
    good = os.path.join(tmp, "good.rec")
    recfile.write(good, W, H, recfile.XRGB8888, msgs, (W, H, final))
    p = subprocess.run([VNCFB, "bench", "--replay", good, "--cpu", "0",
                        "--repeat", "2"], capture_output=True, text=True,
                       timeout=60)
    check(p.returncode == 0, "bench exit %d: %s" % (p.returncode, p.stderr))
    for kind in ("pipeline", "memcpy", "bare"):
        check("  %-12s 2 of 2 plays complete, 2 checked: identical" % kind
              in p.stdout, "%s not identical:\n%s" % (kind, p.stdout))
    check("4 updates (2 of the whole desktop after the first)" in p.stdout,
          "replay description")
    # One pixel of the recorded picture changed: the check must see it.
    bad = bytearray(final)
    bad[(20 * W + 30) * 4] ^= 0x40
    wrong = os.path.join(tmp, "wrong.rec")
    recfile.write(wrong, W, H, recfile.XRGB8888, msgs, (W, H, bytes(bad)))
    p = subprocess.run([VNCFB, "bench", "-q", "--replay", wrong, "--cpu",
                        "0", "--repeat", "1"], capture_output=True,
                       text=True, timeout=60)
    lines = [x for x in p.stderr.splitlines() if x.strip()]
    check(p.returncode == 1 and len(lines) == 1 and
          "differs from the recorder's, first at (30,20)" in lines[0],
          "wrong picture: exit %d, %r" % (p.returncode, p.stderr))
    short = os.path.join(tmp, "short.rec")
    recfile.write(short, W, H, recfile.XRGB8888, msgs[:3])
    p = subprocess.run([VNCFB, "bench", "-q", "--replay", short],
                       capture_output=True, text=True, timeout=60)
    check(p.returncode == 2 and "needs at least 3" in p.stderr and
          len(p.stderr.strip().splitlines()) == 1,
          "short recording: exit %d, %r" % (p.returncode, p.stderr))
    return good


def vncviewer_checks(tmp, msgs, final, extra=(), by="by request"):
    """TigerVNC's vncviewer, the peer the replay measures vncfb against,
    plays the whole recording from the pump (started with extra), which
    times it by its requests or by its answers to fences (by)."""
    path = os.path.join(tmp, "viewer.rec")
    recfile.write(path, W, H, recfile.XRGB8888, msgs, (W, H, final))
    xvfb, disp = start_xvfb("320x240x24")
    pump = Pump(path, extra)
    viewer = None
    try:
        check(disp != "", "Xvfb did not start")
        viewer = subprocess.Popen(
            ["vncviewer", "-AutoSelect=0", "-FullColor=1",
             "-PreferredEncoding=Raw", "-ViewOnly", "-SecurityTypes=None",
             "-ReconnectOnError=0", "-AlertOnFatalError=0",
             "127.0.0.1::%d" % pump.port],
            env=dict(os.environ, DISPLAY=disp),
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        pump.expect("replay: client 1: playing", 30)
        line = pump.expect("replay: client 1: played 3 updates", 30)
        check("2 of them of the whole desktop" in line, line)
        check(viewer.poll() is None, "vncviewer exited")
    finally:
        if viewer:
            viewer.kill()
            viewer.wait()
        line = pump.expect("replay: client 1: handled 3 updates")
        check(by in line, "%r not in %r" % (by, line))
        pump.expect("replay: client 1: left after 4 of 4 updates")
        rc, err = pump.stop()
        xvfb.terminate()
        xvfb.wait(10)
    check(rc == 0 and not err.strip(), "pump: exit %d, %r" % (rc, err))


def have_vncviewer():
    """Whether vncviewer and Xvfb are installed; if not, says so."""
    missing = [t for t in ("vncviewer", "Xvfb") if not shutil.which(t)]
    if missing:
        print("SKIP: not installed: %s (Debian: tigervnc-viewer, xvfb; see "
              ".ci/packages)" % " ".join(missing), file=sys.stderr)
    return not missing


def main():
    if not VNCFB:
        print("usage: VNCFB=... test_replay_pump.py [vncviewer]",
              file=sys.stderr)
        return 1
    msgs, final = make_messages()
    with tempfile.TemporaryDirectory() as tmp:
        if sys.argv[1:] == ["vncviewer"]:
            if not have_vncviewer():
                return 77
            vncviewer_checks(tmp, msgs, final)
            return finish("replay pump and vncviewer: ok")
        good = bench_checks(tmp, msgs, final)
        serve_checks(good, msgs)
    return finish("replay pump: ok")


if __name__ == "__main__":
    sys.exit(main())
