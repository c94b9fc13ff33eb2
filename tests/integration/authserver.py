#!/usr/bin/env python3
"""A VNC server for the authentication tests, written from the RFB
community specification (rfbproto) independently of vncfb's code:
VeNCrypt (0.2) with Plain (256), TLSNone/TLSPlain (257/259, anonymous
TLS) and X509None/X509Plain (260/262, the given certificate), VncAuth
(2) and None (1) on the first list, Apple's Diffie-Hellman login (30:
AES-128-ECB under the MD5 of the shared secret) and UltraVNC's MS-Logon
II (113: DES in CBC under the 8-byte shared secret), both with a user
name, needing python3-cryptography; one desktop of a fixed pattern sent
as Raw in the pixel format the client asks for.

    authserver.py --types 19 --sub 262,256 --user U --password P
                  [--cert C --key K] [--size WxH] [--once]

It prints "PORT n" when it listens on 127.0.0.1 and, for each
connection, "AUTH sub user ok|fail" after the credentials came (the
password itself is never printed). A wrong user or password gets the
failure reason "wrong user name or password (vncfb test)".
"""
import argparse
import hashlib
import os
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


# RFC 2409's second Oakley group: 1024 bits, generator 2.
MODP1024 = int(
    "FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74"
    "020BBEA63B139B22514A08798E3404DDEF9519B3CD3A431B302B0A6DF25F1437"
    "4FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED"
    "EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE65381FFFFFFFFFFFFFFFF",
    16)
# The largest prime below 2^64.
P64 = 2**64 - 59
BAD_DH = False


def cstr(b):
    return b.split(b"\0", 1)[0].decode("utf-8", "replace")


def apple_dh(c):
    """Security type 30: the credentials, decrypted."""
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, \
        modes
    n = 128
    if BAD_DH:
        # A hostile server: a zero modulus (libgcrypt aborts on it).
        c.send(struct.pack(">HH", 2, n) + bytes(2 * n))
        c.recv(1)
        return "", ""
    priv = int.from_bytes(os.urandom(32), "big")
    pub = pow(2, priv, MODP1024)
    c.send(struct.pack(">HH", 2, n) + MODP1024.to_bytes(n, "big") +
           pub.to_bytes(n, "big"))
    ct = c.recv(128)
    theirs = int.from_bytes(c.recv(n), "big")
    key = hashlib.md5(pow(theirs, priv, MODP1024).to_bytes(n, "big"))
    d = Cipher(algorithms.AES(key.digest()), modes.ECB()).decryptor()
    up = d.update(ct) + d.finalize()
    return cstr(up[:64]), cstr(up[64:])


def mslogon2(c):
    """Security type 113: the credentials, decrypted."""
    try:
        from cryptography.hazmat.decrepit.ciphers.algorithms import \
            TripleDES
    except ImportError:  # before cryptography 43 (Debian 12 has 38)
        from cryptography.hazmat.primitives.ciphers.algorithms import \
            TripleDES
    from cryptography.hazmat.primitives.ciphers import Cipher, modes
    gen = 5
    if BAD_DH:
        c.send(struct.pack(">QQQ", gen, 0, 1))
        c.recv(1)
        return "", ""
    priv = int.from_bytes(os.urandom(8), "big") % P64
    pub = pow(gen, priv, P64)
    c.send(struct.pack(">QQQ", gen, P64, pub))
    theirs = int.from_bytes(c.recv(8), "big")
    key = pow(theirs, priv, P64).to_bytes(8, "big")
    # VNC's DES takes each key byte bit-reversed.
    des_key = bytes(int("{:08b}".format(b)[::-1], 2) for b in key)

    def cbc(data):
        d = Cipher(TripleDES(des_key), modes.ECB()).decryptor()
        out, prev = b"", key
        for i in range(0, len(data), 8):
            blk = data[i:i + 8]
            p = d.update(blk)
            out += bytes(x ^ y for x, y in zip(p, prev))
            prev = blk
        return out
    return cstr(cbc(c.recv(256))), cstr(cbc(c.recv(64)))


def fail(c, reason):
    c.send(struct.pack(">II", 1, len(reason)) + reason)


def login(c, args, t, user, pw):
    """The SecurityResult for these credentials (type t): whether they
    are the right ones."""
    ok = user == args.user and pw == args.password
    print("AUTH %d %s %s" % (t, user, "ok" if ok else "fail"), flush=True)
    if ok:
        c.send(struct.pack(">I", 0))
    else:
        fail(c, REASON)
    return ok


def security(c, args):
    """The version and security handshake as args say, on Conn c (whose
    socket is the TLS one after it, where a TLS subtype was chosen):
    whether the client is through."""
    c.send(b"RFB 003.008\n")
    c.recv(12)
    tops = [int(t) for t in args.types.split(",")]
    c.send(bytes([len(tops)] + tops))
    top = c.recv(1)[0]
    if top not in tops:
        return False
    user = pw = None
    sub = None
    if top == 19:
        c.send(bytes([0, 2]))
        if c.recv(2) != bytes([0, 2]):
            c.send(b"\x01")
            return False
        c.send(b"\x00")
        subs = [int(t) for t in args.sub.split(",")]
        c.send(bytes([len(subs)]) + b"".join(struct.pack(">I", s)
                                              for s in subs))
        sub = struct.unpack(">I", c.recv(4))[0]
        if sub not in subs:
            print("REFUSED sub %d" % sub, flush=True)
            return False
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
                return False
        if sub in PLAIN_SUBS:
            ulen, plen = struct.unpack(">II", c.recv(8))
            if ulen > 4096 or plen > 4096:
                return False
            user = c.recv(ulen).decode("utf-8", "replace")
            pw = c.recv(plen).decode("utf-8", "replace")
            return login(c, args, sub, user, pw)
        if sub in (257, 260, 1):
            c.send(struct.pack(">I", 0))
            return True
        return False
    if top == 1:
        c.send(struct.pack(">I", 0))
        return True
    if top in (30, 113):
        user, pw = apple_dh(c) if top == 30 else mslogon2(c)
        return login(c, args, top, user, pw)
    return False


def serve(args, sock):
    c = Conn(sock)
    if not security(c, args):
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
    ap.add_argument("--bad-dh", action="store_true")
    args = ap.parse_args()
    global BAD_DH
    BAD_DH = args.bad_dh
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
