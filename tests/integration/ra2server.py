#!/usr/bin/env python3
"""An RSA-AES server for vncfb's tests (RFB community specification, the
RA2 family: RA2 5, RA2ne 6, RA2_256 129, RA2ne_256 130), written from the
specification with Debian's python3-pycryptodome and sharing nothing with
the client's code.

It does the server's side of the handshake with the client, then relays
the session to a backend RFB server that takes security type None (the
test server, or `vncfb bench --replay --serve`): for RA2 and RA2_256
every byte both ways goes in AES-EAX frames, for the "ne" types in the
clear. So a test gets the backend's whole desktop, pixel for pixel,
through each type.

    ra2server.py --backend PORT --type 129 --password PW [--user NAME]
                 [--key-bits N] [--key-seed S] [--evil MODE] [--port P]
                 [--full-frames]

Prints "READY <port>" and serves one client after another on 127.0.0.1.
--full-frames gathers the backend's bursts into whole 65535-byte frames.
--evil makes it hostile in one way (see EVIL). The key is made from
--key-seed, so that a test can present the same key twice or a changed
one.
"""
import argparse
import hashlib
import os
import random
import select
import socket
import struct
import sys
import threading
import time

try:
    from Cryptodome.Cipher import AES, PKCS1_v1_5
    from Cryptodome.PublicKey import RSA
except ImportError:
    # Debian's module lives in /usr/lib/python3: a python3 of one's own
    # first on PATH does not see it.
    if sys.executable != "/usr/bin/python3" and \
            os.path.exists("/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3", *sys.argv])
    raise

EVIL = {
    "keybits0": "announce a 0-bit key",
    "keybits100000": "announce a 100,000-bit key",
    "badmac": "flip one bit of the MAC of the server's hash",
    "truncframe": "announce a 1000-byte frame, send 10 bytes, hang up",
    "reason4g": "refuse the password with a 4 GB reason announced",
    "stall": "send the key, then nothing",
    "badhash": "send a hash of other keys",
    "latebadmac": "flip one bit of the MAC of the session's third frame",
}


class Closed(Exception):
    pass


def recv_exact(conn, n):
    b = b""
    while len(b) < n:
        c = conn.recv(n - len(b))
        if not c:
            raise Closed()
        b += c
    return b


class Eax:
    """One direction's AES-EAX frames: u16 length (the associated data),
    the ciphertext, a 16-byte tag; the nonce a 16-byte little-endian
    counter of frames."""

    def __init__(self, key):
        self.key = key
        self.n = 0

    def nonce(self):
        v = self.n.to_bytes(16, "little")
        self.n += 1
        return v

    def seal(self, data, evil_mac=False):
        hdr = struct.pack(">H", len(data))
        c = AES.new(self.key, AES.MODE_EAX, nonce=self.nonce(), mac_len=16)
        c.update(hdr)
        ct, tag = c.encrypt_and_digest(data)
        if evil_mac:
            tag = bytes([tag[0] ^ 1]) + tag[1:]
        return hdr + ct + tag

    def open(self, conn):
        hdr = recv_exact(conn, 2)
        n = struct.unpack(">H", hdr)[0]
        body = recv_exact(conn, n + 16)
        c = AES.new(self.key, AES.MODE_EAX, nonce=self.nonce(), mac_len=16)
        c.update(hdr)
        return c.decrypt_and_verify(body[:n], body[n:])


class Reader:
    """Bytes of the client's stream, out of frames."""

    def __init__(self, conn, eax):
        self.conn, self.eax, self.buf = conn, eax, b""

    def read(self, n):
        while len(self.buf) < n:
            self.buf += self.eax.open(self.conn)
        b, self.buf = self.buf[:n], self.buf[n:]
        return b


def digest(bits, data):
    return (hashlib.sha1 if bits == 128 else hashlib.sha256)(data).digest()


def key_message(bits, n, e):
    size = (bits + 7) // 8
    return struct.pack(">I", bits) + n.to_bytes(size, "big") + \
        e.to_bytes(size, "big")


def backend_hello(port):
    """Connect to the backend and take it through version and security
    type None: what follows is its ServerInit, after our ClientInit."""
    b = socket.create_connection(("127.0.0.1", port))
    b.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    recv_exact(b, 12)
    b.sendall(b"RFB 003.008\n")
    n = recv_exact(b, 1)[0]
    types = recv_exact(b, n)
    if 1 not in types:
        raise SystemExit("backend does not offer security type None")
    b.sendall(b"\x01")
    if struct.unpack(">I", recv_exact(b, 4))[0] != 0:
        raise SystemExit("backend refused security type None")
    return b


def pump(src, dst, seal=None, opener=None, bad_frame=-1, full=False):
    """Copy src to dst until either end closes; seal frames what goes
    out (the MAC of frame number bad_frame spoilt), opener unframes what
    comes in. full: gather what src sends until four whole frames'
    worth or a pause of 50 ms, so that a burst goes in frames of 65535
    bytes (a client reads those several at once)."""
    frames = 0
    try:
        while True:
            if opener:
                data = opener.eax.open(src)
            else:
                data = src.recv(65536)
                if not data:
                    break
                while full and len(data) < 4 * 65535 and \
                        select.select([src], [], [], 0.05)[0]:
                    more = src.recv(4 * 65535 - len(data))
                    if not more:
                        break
                    data += more
            if seal:
                out = b""
                for i in range(0, len(data), 65535):
                    out += seal.seal(data[i:i + 65535],
                                     evil_mac=frames == bad_frame)
                    frames += 1
            else:
                out = data
            if out:
                dst.sendall(out)
    except (Closed, OSError, ValueError):
        pass
    for s in (src, dst):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def session(conn, args, key):
    rtype = args.type
    bits = 128 if rtype in (5, 6) else 256
    rlen = bits // 8
    all_enc = rtype in (5, 129)
    conn.sendall(b"RFB 003.008\n")
    recv_exact(conn, 12)
    conn.sendall(bytes([1, rtype]))
    if recv_exact(conn, 1)[0] != rtype:
        return
    if args.evil == "keybits0":
        conn.sendall(struct.pack(">I", 0) + b"\0" * 64)
        time.sleep(2)
        return
    if args.evil == "keybits100000":
        conn.sendall(struct.pack(">I", 100000) + b"\xff" * 4096)
        time.sleep(2)
        return
    skey = key_message(key.size_in_bits(), key.n, key.e)
    conn.sendall(skey)
    if args.evil == "stall":
        time.sleep(120)
        return
    cbits = struct.unpack(">I", recv_exact(conn, 4))[0]
    if not 1024 <= cbits <= 8192:
        print("client key of %d bits" % cbits, file=sys.stderr)
        return
    csize = (cbits + 7) // 8
    cn = int.from_bytes(recv_exact(conn, csize), "big")
    ce = int.from_bytes(recv_exact(conn, csize), "big")
    ckey = key_message(cbits, cn, ce)
    srandom = os.urandom(rlen)
    enc = PKCS1_v1_5.new(RSA.construct((cn, ce))).encrypt(srandom)
    conn.sendall(struct.pack(">H", csize) + enc.rjust(csize, b"\0"))
    n = struct.unpack(">H", recv_exact(conn, 2))[0]
    if n != (key.size_in_bits() + 7) // 8:
        print("client random of %d bytes" % n, file=sys.stderr)
        return
    crandom = PKCS1_v1_5.new(key).decrypt(recv_exact(conn, n), None)
    if crandom is None or len(crandom) != rlen:
        print("client random does not decrypt", file=sys.stderr)
        return
    # The server writes with the key the client reads with.
    out = Eax(digest(bits, crandom + srandom)[:rlen])
    inn = Eax(digest(bits, srandom + crandom)[:rlen])
    rd = Reader(conn, inn)
    shash = digest(bits, skey + ckey)
    if args.evil == "badhash":
        shash = digest(bits, ckey + skey)
    conn.sendall(out.seal(shash, evil_mac=args.evil == "badmac"))
    if args.evil == "truncframe":
        conn.sendall(struct.pack(">H", 1000) + b"x" * 10)
        time.sleep(0.5)
        return
    chash = rd.read(len(shash))
    if chash != digest(bits, ckey + skey):
        print("client hash does not match", file=sys.stderr)
        return
    conn.sendall(out.seal(bytes([1 if args.user else 2])))
    ulen = rd.read(1)[0]
    user = rd.read(ulen)
    plen = rd.read(1)[0]
    pw = rd.read(plen)
    ok = pw == args.password.encode() and \
        (not args.user or user == args.user.encode())
    print("CREDENTIALS %s" % ("ok" if ok else "wrong"), flush=True)

    def send(data):
        conn.sendall(out.seal(data) if all_enc else data)

    if not ok:
        if args.evil == "reason4g":
            send(struct.pack(">II", 1, 0xffffffff) + b"x" * 100)
        else:
            reason = b"Authentication failed: wrong user name or password"
            send(struct.pack(">II", 1, len(reason)) + reason)
        time.sleep(0.5)
        return
    send(struct.pack(">I", 0))
    back = backend_hello(args.backend)
    if all_enc:
        # What the client sent after its credentials is already framed.
        if rd.buf:
            back.sendall(rd.buf)
        t = threading.Thread(target=pump, args=(conn, back),
                             kwargs={"opener": rd}, daemon=True)
        t.start()
        pump(back, conn, seal=out,
             bad_frame=2 if args.evil == "latebadmac" else -1,
             full=args.full_frames)
    else:
        t = threading.Thread(target=pump, args=(conn, back), daemon=True)
        t.start()
        pump(back, conn)
    t.join(5)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--backend", type=int, default=0)
    ap.add_argument("--type", type=int, default=129,
                    choices=(5, 6, 129, 130))
    ap.add_argument("--password", default="")
    ap.add_argument("--user", default="")
    ap.add_argument("--key-bits", type=int, default=1024)
    ap.add_argument("--key-seed", type=int, default=1)
    ap.add_argument("--evil", choices=sorted(EVIL))
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--full-frames", action="store_true")
    args = ap.parse_args()

    rng = random.Random(args.key_seed)
    key = RSA.generate(args.key_bits,
                       randfunc=lambda n: rng.getrandbits(8 * n)
                       .to_bytes(n, "little"))
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", args.port))
    s.listen(4)
    print("READY %d" % s.getsockname()[1], flush=True)
    while True:
        conn, _ = s.accept()
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def run(c=conn):
            try:
                session(c, args, key)
            except (Closed, OSError, ValueError) as e:
                print("session ended: %r" % e, file=sys.stderr, flush=True)
            finally:
                c.close()
        threading.Thread(target=run, daemon=True).start()


if __name__ == "__main__":
    main()
