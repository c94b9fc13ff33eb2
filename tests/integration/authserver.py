#!/usr/bin/env python3
"""A VNC server for the authentication tests, written from the RFB
community specification (rfbproto) independently of vncfb's code:
VeNCrypt (0.2) with Plain (256), TLSNone/TLSPlain (257/259, anonymous
TLS) and X509None/X509Plain (260/262, the given certificate), VncAuth
(2) and None (1) on the first list; one desktop of a fixed pattern sent
as Raw in the pixel format the client asks for.

    authserver.py --types 19 --sub 262,256 --user U --password P
                  [--cert C --key K] [--size WxH] [--once]

It prints "PORT n" when it listens on 127.0.0.1 and, for each
connection, "AUTH sub user ok|fail" after the credentials came (the
password itself is never printed). A wrong user or password gets the
failure reason "wrong user name or password (vncfb test)".
"""
import argparse
import socket
import ssl
import struct
import sys
import threading

REASON = b"wrong user name or password (vncfb test)"
TLS_SUBS = {257, 258, 259, 260, 261, 262}
X509_SUBS = {260, 261, 262}
PLAIN_SUBS = {256, 259, 262}


def pattern(x, y):
    """The desktop: bands and a diagonal, every pixel exact."""
    if x == y:
        return (255, 255, 255)
    return ((x * 7) & 255, (y * 5) & 255, ((x + y) * 3) & 255)


class Conn:
    def __init__(self, sock):
        self.s = sock

    def recv(self, n):
        b = b""
        while len(b) < n:
            c = self.s.recv(n - len(b))
            if not c:
                raise EOFError
            b += c
        return b

    def send(self, b):
        self.s.sendall(b)


def fail(c, reason):
    c.send(struct.pack(">II", 1, len(reason)) + reason)


def serve(args, sock):
    c = Conn(sock)
    c.send(b"RFB 003.008\n")
    c.recv(12)
    tops = [int(t) for t in args.types.split(",")]
    c.send(bytes([len(tops)] + tops))
    top = c.recv(1)[0]
    if top not in tops:
        return
    user = pw = None
    sub = None
    if top == 19:
        c.send(bytes([0, 2]))
        if c.recv(2) != bytes([0, 2]):
            c.send(b"\x01")
            return
        c.send(b"\x00")
        subs = [int(t) for t in args.sub.split(",")]
        c.send(bytes([len(subs)]) + b"".join(struct.pack(">I", s)
                                              for s in subs))
        sub = struct.unpack(">I", c.recv(4))[0]
        if sub not in subs:
            print("REFUSED sub %d" % sub, flush=True)
            return
        if sub in TLS_SUBS:
            c.send(b"\x01")
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            if sub in X509_SUBS:
                ctx.load_cert_chain(args.cert, args.key)
            else:
                ctx.maximum_version = ssl.TLSVersion.TLSv1_2
                ctx.set_ciphers("aNULL:@SECLEVEL=0")
            try:
                c.s = ctx.wrap_socket(c.s, server_side=True)
            except (ssl.SSLError, OSError) as e:
                print("TLS failed: %s" % e, flush=True)
                return
        if sub in PLAIN_SUBS:
            ulen, plen = struct.unpack(">II", c.recv(8))
            if ulen > 4096 or plen > 4096:
                return
            user = c.recv(ulen).decode("utf-8", "replace")
            pw = c.recv(plen).decode("utf-8", "replace")
            ok = user == args.user and pw == args.password
            print("AUTH %d %s %s" % (sub, user, "ok" if ok else "fail"),
                  flush=True)
            if not ok:
                fail(c, REASON)
                return
            c.send(struct.pack(">I", 0))
        elif sub in (257, 260, 1):
            c.send(struct.pack(">I", 0))
        else:
            return
    elif top == 1:
        c.send(struct.pack(">I", 0))
    else:
        return
    c.recv(1)  # ClientInit
    w, h = args.w, args.h
    name = b"authserver"
    c.send(struct.pack(">HHBBBBHHHBBBxxx", w, h, 32, 24, 0, 1, 255, 255,
                       255, 16, 8, 0) + struct.pack(">I", len(name)) + name)
    fmt = (32, 0, 255, 255, 255, 16, 8, 0)
    while True:
        t = c.recv(1)[0]
        if t == 0:
            b = c.recv(19)
            bpp, depth, big, true, rm, gm, bm, rs, gs, bs = struct.unpack(
                ">xxxBBBBHHHBBBxxx", b)
            fmt = (bpp, big, rm, gm, bm, rs, gs, bs)
        elif t == 2:
            n = struct.unpack(">xH", c.recv(3))[0]
            c.recv(4 * n)
        elif t == 3:
            inc, x, y, rw, rh = struct.unpack(">BHHHH", c.recv(9))
            if inc:
                continue
            c.send(update(fmt, w, h))
        elif t == 4:
            c.recv(7)
        elif t == 5:
            c.recv(5)
        elif t == 6:
            n = struct.unpack(">xxxI", c.recv(7))[0]
            c.recv(n)
        else:
            print("unknown message %d" % t, flush=True)
            return


def update(fmt, w, h):
    bpp, big, rm, gm, bm, rs, gs, bs = fmt
    nb = bpp // 8
    order = "big" if big else "little"
    rows = []
    for y in range(h):
        row = bytearray()
        for x in range(w):
            r, g, b = pattern(x, y)
            v = ((r * rm + 127) // 255) << rs | \
                ((g * gm + 127) // 255) << gs | ((b * bm + 127) // 255) << bs
            row += v.to_bytes(nb, order)
        rows.append(bytes(row))
    return struct.pack(">xxHHHHHi", 1, 0, 0, w, h, 0) + b"".join(rows)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--types", default="19")
    ap.add_argument("--sub", default="262")
    ap.add_argument("--user", default="")
    ap.add_argument("--password", default="")
    ap.add_argument("--cert")
    ap.add_argument("--key")
    ap.add_argument("--size", default="64x48")
    ap.add_argument("--port", type=int, default=0)
    args = ap.parse_args()
    args.w, args.h = (int(v) for v in args.size.split("x"))
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", args.port))
    ls.listen(8)
    print("PORT %d" % ls.getsockname()[1], flush=True)

    def one(s):
        try:
            serve(args, s)
        except (EOFError, OSError):
            pass
        finally:
            s.close()

    while True:
        s, _ = ls.accept()
        threading.Thread(target=one, args=(s,), daemon=True).start()


if __name__ == "__main__":
    sys.exit(main())
