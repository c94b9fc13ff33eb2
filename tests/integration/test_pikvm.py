#!/usr/bin/env python3
"""vncfb against a server that follows PiKVM's kvmd rules
(kvmd/apps/vnc/rfb/__init__.py and server.py, read for the protocol; this
is the project's own), on 127.0.0.1 in this process:

* it closes the connection, sending nothing, when a SetEncodings lacks
  Tight (7) or a JPEG quality level (-32..-23), and again at every
  FramebufferUpdateRequest while that holds; on a SetPixelFormat other
  than 16 or 32 bits a pixel; on a message type it does not know;
* it sends Open H.264 (50) when offered and its H.264 streamer is on
  ("length, flags, data"), else Tight JPEG (control byte 0x9f) at the
  client's highest quality level (kvmd's 10 to 100 per cent); frames of
  the whole desktop, pushed after EnableContinuousUpdates or one per
  request;
* EndOfContinuousUpdates, QEMU extended keys and ExtendedMouseButtons
  are confirmed after SetEncodings, as kvmd does.

Security is None, or with "login" a default PiKVM's: VeNCrypt with
Plain, X509Plain and TLSPlain (a user name and a password; a
self-signed certificate), by authserver.py's handshake. The frames are
a fixed picture, encoded by kvmdenc (libjpeg, or the demo's libavcodec
encoder).

usage: test_pikvm.py h264 | jpeg | closed | login
  h264, jpeg: a default vncfb (-o mem:WxH --exit-after 3 --screenshot S)
    exits 0 with the picture, within JPEG's or H.264's error: its first
    connection offers no quality level (lossless first) and is closed, it
    says so in one line and connects again offering JPEG quality 8 and
    Open H.264 (where built with libavcodec), which the server sends
    (h264), or with its H.264 streamer off Tight JPEG (jpeg).
  closed: one line saying what vncfb offered when the server closes right
    after the handshake: a fixed --encodings list (no retry, the
    --quality hint) and a default vncfb against a server that refuses
    everything (the retry, then the line naming JPEG quality 8); with
    --no-reconnect each exits 1 with no reconnect loop; reconnecting (the
    default), every attempt after the retry says it again.
  login: kvmd's encodings rule and its default security together: with
    only $VNCFB_PASSWORD and --username, a fresh config home and no
    terminal, vncfb logs in through X509Plain twice (the retry), records
    the certificate with one warning and shows the picture; once the
    server has another certificate, the same run exits 1 naming both
    fingerprints, the store unchanged; no credential in any output.
"""
import argparse
import os
import select
import struct
import subprocess
import sys
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import vnctest as vt  # noqa: E402
from test_h264 import built_with_h264  # noqa: E402
from vmio import recv_exact  # noqa: E402
import authserver  # noqa: E402

W, H = 160, 120
KVMDENC = os.path.join(vt.BUILD, "tests", "integration", "kvmdenc")
TIGHT, H264, QUALITY0 = 7, 50, -32
CONT, EXT_KEYS, EXT_MOUSE = -313, -258, -316
PERCENT = {QUALITY0 + i: 10 * (i + 1) for i in range(10)}
# Mean absolute error a channel: JPEG at 90 % and x264 at crf 18 on this
# picture come within about 2; 4:2:0 chroma on its edges is most of it.
MAX_ERR = 4.0
PUSH_S = 0.1           # continuous updates: a frame this often


def picture():
    """Smooth gradients and a few flat blocks: what a console shows."""
    rgb = bytearray(W * H * 3)
    for y in range(H):
        for x in range(W):
            r, g, b = x * 255 // (W - 1), y * 255 // (H - 1), 96
            if 20 <= x < 60 and 30 <= y < 70:
                r, g, b = 230, 230, 230
            elif 100 <= x < 140 and 60 <= y < 100:
                r, g, b = 20, 40, 160
            i = (y * W + x) * 3
            rgb[i:i + 3] = bytes((r, g, b))
    return W, H, bytes(rgb)


class Kvmd:
    """kvmd's encodings rules on 127.0.0.1, one client at a time. offers:
    each connection's SetEncodings lists; sent: rectangles by encoding;
    closed: connections closed for the encodings."""

    def __init__(self, tmp, h264=True, refuse_all=False, login=None):
        self.tmp = tmp
        self.login = login
        self.h264 = h264
        self.refuse_all = refuse_all
        self.offers, self.closed = [], 0
        self.sent = {TIGHT: 0, H264: 0}
        self.error = None
        self.ppm = tmp("picture.ppm")
        vt.write_ppm(self.ppm, picture())
        self.frames = {}
        self.lock = threading.Lock()
        self.srv = vt.FakeServer(self.session)
        self.port = self.srv.port

    def frame(self, kind, arg):
        """The picture as kind ("jpeg" at arg per cent, "h264")."""
        key = (kind, arg)
        if key not in self.frames:
            out = self.tmp("frame-%s-%s" % key)
            cmd = [KVMDENC, kind] + ([str(arg)] if arg else []) + \
                [self.ppm, out]
            p = subprocess.run(cmd, capture_output=True, text=True)
            if p.returncode != 0:
                raise RuntimeError("%s: %s" % (" ".join(cmd), p.stderr))
            with open(out, "rb") as f:
                self.frames[key] = f.read()
        return self.frames[key]

    def session(self, conn):
        try:
            self.serve(conn)
        except (OSError, EOFError):
            pass
        except Exception as e:   # reported by the test
            self.error = repr(e)

    def usable(self, encs):
        """kvmd's __check_encodings."""
        if self.refuse_all:
            return False
        return TIGHT in encs and any(e in PERCENT for e in encs)

    def send_frame(self, conn, encs):
        if self.h264 and H264 in encs:
            data = self.frame("h264", None)
            msg = struct.pack(">BxHHHHHi", 0, 1, 0, 0, W, H, H264) + \
                struct.pack(">II", len(data), 0) + data
            kind = H264
        else:
            q = max(e for e in encs if e in PERCENT)
            data = self.frame("jpeg", PERCENT[q])
            n = len(data)
            if n <= 127:
                ln = bytes([n])
            elif n <= 16383:
                ln = bytes([n & 0x7f | 0x80, n >> 7])
            else:
                ln = bytes([n & 0x7f | 0x80, n >> 7 & 0x7f | 0x80,
                            n >> 14 & 0xff])
            msg = struct.pack(">BxHHHHHi", 0, 1, 0, 0, W, H, TIGHT) + \
                b"\x9f" + ln + data
            kind = TIGHT
        conn.sendall(msg)
        with self.lock:
            self.sent[kind] += 1

    def serve(self, conn):
        if self.login:
            # VeNCrypt as a default PiKVM asks for it; after it, the
            # TLS socket where a TLS subtype was chosen.
            c = authserver.Conn(conn)
            if not authserver.security(c, self.login):
                return
            conn = c.s
        else:
            conn.sendall(b"RFB 003.008\n")
            recv_exact(conn, 12)
            conn.sendall(b"\x01\x01")              # None
            recv_exact(conn, 1)
            conn.sendall(struct.pack(">I", 0))
        recv_exact(conn, 1)                        # ClientInit
        name = b"PiKVM"
        conn.sendall(struct.pack(">HH", W, H) +
                     struct.pack(">BBBBHHHBBB3x", 32, 24, 0, 1, 255, 255,
                                 255, 16, 8, 0) +
                     struct.pack(">I", len(name)) + name)
        encs, cont, nxt = None, False, 0.0
        while True:
            wait = max(0.0, nxt - time.monotonic()) if cont else 5.0
            # (TLS may hold read bytes select does not see.)
            r = getattr(conn, "pending", lambda: 0)() or \
                select.select([conn], [], [], wait)[0]
            if not r:
                if cont:
                    self.send_frame(conn, encs)
                    nxt = time.monotonic() + PUSH_S
                    continue
                return
            t = recv_exact(conn, 1)[0]
            if t == 0:                             # SetPixelFormat
                bpp = recv_exact(conn, 19)[3]
                if bpp not in (16, 32):
                    return
            elif t == 2:                           # SetEncodings
                n = struct.unpack(">xH", recv_exact(conn, 3))[0]
                if n == 0 or n > 1024:
                    return
                encs = list(struct.unpack(">%di" % n,
                                          recv_exact(conn, 4 * n)))
                with self.lock:
                    self.offers.append(encs)
                if not self.usable(encs):
                    with self.lock:
                        self.closed += 1
                    return
                if CONT in encs:
                    conn.sendall(b"\x96")
                if EXT_KEYS in encs:
                    conn.sendall(struct.pack(">BxHHHHHi", 0, 1, 0, 0, 0,
                                             0, EXT_KEYS))
                if EXT_MOUSE in encs:
                    conn.sendall(struct.pack(">BxHHHHHi", 0, 1, 0, 0, 0,
                                             0, EXT_MOUSE))
            elif t == 3:                           # FramebufferUpdateRequest
                if encs is None or not self.usable(encs):
                    return
                recv_exact(conn, 9)
                if not cont:
                    self.send_frame(conn, encs)
            elif t == 4:                           # KeyEvent
                recv_exact(conn, 7)
            elif t == 5:                           # PointerEvent
                buttons = recv_exact(conn, 5)[0]
                if EXT_MOUSE in encs and buttons & 0x80:
                    recv_exact(conn, 1)
            elif t == 6:                           # ClientCutText
                n = struct.unpack(">3xI", recv_exact(conn, 7))[0]
                recv_exact(conn, n)
            elif t == 150:                         # EnableContinuousUpdates
                cont = bool(recv_exact(conn, 9)[0])
                nxt = time.monotonic()
                if not cont:
                    conn.sendall(b"\x96")
            elif t == 255:                         # QEMU
                if recv_exact(conn, 11)[0] != 0:
                    return
            else:                                  # kvmd: "Unknown message"
                return

    def close(self):
        self.srv.close()


def has_quality(encs):
    return any(e in PERCENT for e in encs)


def picture_case(tmp, h264):
    offer_h264 = built_with_h264()
    want_h264 = h264 and offer_h264
    srv = Kvmd(tmp, h264=h264)
    shot = tmp("shot.ppm")
    try:
        rc, err = vt.run_vncfb(["-o", "mem:%dx%d" % (W, H), "--exit-after",
                                "3", "--screenshot", shot,
                                "127.0.0.1::%d" % srv.port])
    finally:
        srv.close()
    vt.log("vncfb said: %s" % err.strip())
    vt.log("offered: %s; sent %s" % (srv.offers, srv.sent))
    if srv.error:
        raise vt.Fail("the server failed: %s" % srv.error)
    if rc != 0:
        raise vt.Fail("vncfb exited %d: %s" % (rc, err))
    if len(srv.offers) < 2 or has_quality(srv.offers[0]) or \
            H264 in srv.offers[0]:
        raise vt.Fail("the first offer is not the lossless one: %s"
                      % srv.offers)
    last = srv.offers[-1]
    if QUALITY0 + 8 not in last or TIGHT not in last:
        raise vt.Fail("the retry offers no JPEG quality 8: %s" % last)
    if offer_h264 != (H264 in last):
        raise vt.Fail("Open H.264 %s in the retry: %s"
                      % ("missing" if offer_h264 else "offered", last))
    lines = [ln for ln in err.splitlines() if ln.strip()]
    if len(lines) != 1 or "closed the connection right after the " \
            "handshake" not in lines[0] or "connecting again with JPEG " \
            "quality 8" not in lines[0]:
        raise vt.Fail("not one line saying why it connects again: %r"
                      % err)
    kind = H264 if want_h264 else TIGHT
    if not srv.sent[kind]:
        raise vt.Fail("the server sent no %s frame: %s"
                      % ("H.264" if want_h264 else "Tight JPEG", srv.sent))
    got = vt.read_ppm(shot)
    e = vt.mean_error(got, picture())
    if e > MAX_ERR:
        raise vt.Fail("the picture is off by %.2f a channel (at most %.1f)"
                      % (e, MAX_ERR))
    vt.log("ok: %s, mean error %.2f" % (
        "Open H.264" if want_h264 else "Tight JPEG", e))


def closed_case(tmp):
    # A fixed lossless list: no retry, the line names it and the hint.
    srv = Kvmd(tmp)
    try:
        rc, err = vt.run_vncfb(["-o", "mem:%dx%d" % (W, H), "--exit-after",
                                "5", "--no-reconnect", "--encodings",
                                "tight zrle", "127.0.0.1::%d" % srv.port])
    finally:
        srv.close()
    vt.log("vncfb said: %s" % err.strip())
    lines = [ln for ln in err.splitlines() if ln.strip()]
    want = ("127.0.0.1:%d closed the connection right after the "
            "handshake, before sending anything; vncfb offered Tight, ZRLE; "
            "no JPEG quality level (PiKVM requires Tight with a JPEG "
            "quality level: --quality N)" % srv.port)
    if rc != 1 or len(lines) != 1 or want not in lines[0]:
        raise vt.Fail("fixed list: exit %d, said %r; want one line %r"
                      % (rc, err, want))
    if len(srv.offers) != 1:
        raise vt.Fail("fixed list: connected %d times" % len(srv.offers))
    vt.log("ok: a fixed list gets one line and exit 1")

    # Default options, a server that closes on anything: the retry, then
    # the line with what the retry offered.
    srv = Kvmd(tmp, refuse_all=True)
    try:
        rc, err = vt.run_vncfb(["-o", "mem:%dx%d" % (W, H), "--exit-after",
                                "5", "--no-reconnect",
                                "127.0.0.1::%d" % srv.port])
    finally:
        srv.close()
    vt.log("vncfb said: %s" % err.strip())
    lines = [ln for ln in err.splitlines() if ln.strip()]
    if rc != 1 or len(lines) != 2 or len(srv.offers) != 2:
        raise vt.Fail("refused: exit %d after %d connections, said %r"
                      % (rc, len(srv.offers), err))
    if "connecting again with JPEG quality 8" not in lines[0] or \
            "no JPEG quality level" not in lines[0]:
        raise vt.Fail("refused: the first line is not the retry: %r"
                      % lines[0])
    if "vncfb offered " not in lines[1] or \
            "JPEG quality 8" not in lines[1] or "--quality" in lines[1]:
        raise vt.Fail("refused: the second line does not say it offered "
                      "JPEG quality 8: %r" % lines[1])
    vt.log("ok: refused twice, two lines and exit 1")

    # Reconnecting (the default): every attempt says what was offered.
    srv = Kvmd(tmp, refuse_all=True)
    try:
        rc, err = vt.run_vncfb(["-o", "mem:%dx%d" % (W, H), "--exit-after",
                                "3.5", "127.0.0.1::%d" % srv.port])
    finally:
        srv.close()
    said = err.count("before sending anything; vncfb offered ")
    vt.log("reconnecting: %d connections, the line %d times, exit %d"
           % (len(srv.offers), said, rc))
    # (--exit-after may cut the last attempt short of its line.)
    if said < 2 or not len(srv.offers) - 2 <= said <= len(srv.offers) - 1:
        raise vt.Fail("reconnecting: %d connections, the line %d times: %r"
                      % (len(srv.offers), said, err))
    vt.log("ok: each reconnect says what was offered")


def login_case(tmp):
    user, password = "pikvm-admin", "kvmd default pw 6b1e"
    home = tmp("home")
    os.makedirs(home)
    store = os.path.join(home, "cfg", "vncfb", "known_hosts")
    fps = [vt.self_signed(os.path.dirname(tmp("x")), name)
           for name in ("one", "two")]
    env = {"HOME": home, "XDG_CONFIG_HOME": os.path.join(home, "cfg"),
           "VNCFB_PASSWORD": password}
    for k in ("VNC_USERNAME", "VNC_PASSWORD"):
        os.environ.pop(k, None)
    shot = tmp("shot.ppm")
    # One server on one port: its certificate changes between the runs
    # (it is loaded for each connection).
    login = argparse.Namespace(types="19", sub="256,262,259", user=user,
                               password=password)
    srv = Kvmd(tmp, h264=True, login=login)
    for n, name in enumerate(("one", "two")):
        login.cert, login.key = tmp(name + ".crt"), tmp(name + ".key")
        srv.offers.clear()
        try:
            rc, err = vt.run_vncfb(["--username", user, "-o",
                                    "mem:%dx%d" % (W, H), "--exit-after",
                                    "3", "--screenshot", shot,
                                    "127.0.0.1::%d" % srv.port], env=env)
        finally:
            if n == 1:
                srv.close()
        vt.log("certificate %s: exit %d, vncfb said: %s"
               % (name, rc, err.strip()))
        if user in err or password in err:
            raise vt.Fail("a credential in vncfb's output: %r" % err)
        if srv.error:
            raise vt.Fail("the server failed: %s" % srv.error)
        lines = [ln for ln in err.splitlines() if ln.strip()]
        if n == 0:
            if rc != 0:
                raise vt.Fail("first contact: exit %d: %s" % (rc, err))
            if len(lines) != 2 or "first contact, certificate " + \
                    fps[0] not in lines[0] or "connecting again with " \
                    "JPEG quality 8" not in lines[1]:
                raise vt.Fail("first contact: not the warning naming %s "
                              "and the retry's line: %r" % (fps[0], lines))
            if len(srv.offers) < 2:
                raise vt.Fail("no retry through X509Plain: %s"
                              % srv.offers)
            e = vt.mean_error(vt.read_ppm(shot), picture())
            if e > MAX_ERR:
                raise vt.Fail("the picture is off by %.2f a channel" % e)
            with open(store) as f:
                before = f.read()
            if before.count(fps[0]) != 1:
                raise vt.Fail("the store does not hold %s once: %r"
                              % (fps[0], before))
            os.unlink(shot)
            vt.log("ok: X509Plain with a user, mean error %.2f" % e)
        else:
            if rc != 1 or len(lines) != 1 or "certificate CHANGED" not in \
                    lines[0] or fps[0] not in lines[0] or \
                    fps[1] not in lines[0]:
                raise vt.Fail("changed certificate: exit %d, said %r"
                              % (rc, err))
            if len(srv.offers) != 0 or os.path.exists(shot):
                raise vt.Fail("changed certificate: a session went on")
            with open(store) as f:
                if f.read() != before:
                    raise vt.Fail("the store changed")
            vt.log("ok: a changed certificate refused, the store as it "
                   "was")


def main(tmp):
    if not os.path.exists(KVMDENC):
        raise vt.Fail("%s is not built" % KVMDENC)
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode == "h264":
        if not built_with_h264():
            vt.log("skip: vncfb built without libavcodec")
            return vt.SKIP
        picture_case(tmp, True)
    elif mode == "jpeg":
        picture_case(tmp, False)
    elif mode == "closed":
        closed_case(tmp)
    elif mode == "login":
        login_case(tmp)
    else:
        raise vt.Fail("usage: test_pikvm.py h264|jpeg|closed|login")


if __name__ == "__main__":
    vt.main(main)
