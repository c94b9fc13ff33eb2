#!/usr/bin/env python3
"""Record what a VNC server sends after ServerInit, for replay_decode.

usage: record_rfb.py PORT OUT ENCODING SECONDS

Connects to 127.0.0.1:PORT (security type None), asks for xrgb8888 and
ENCODING ("tight5": Tight with JPEG quality 5, "tight": lossless Tight,
"zrle", "hextile"), requests incremental updates every 20 ms for SECONDS
and writes "WxH\\n" then the server's bytes to OUT. The last message may
be cut; replay_decode stops there."""
import socket
import struct
import sys
import time

ENC = {
    "tight5": [7, -27, -255, -224],
    "tight": [7, -255, -224],
    "zrle": [16, -224],
    "hextile": [5, -224],
}


def main():
    port, out, enc, secs = sys.argv[1], sys.argv[2], sys.argv[3], \
        float(sys.argv[4])
    s = socket.create_connection(("127.0.0.1", int(port)))

    def recv(n):
        b = b""
        while len(b) < n:
            c = s.recv(n - len(b))
            if not c:
                sys.exit("record_rfb: the server closed the connection")
            b += c
        return b

    recv(12)
    s.sendall(b"RFB 003.008\n")
    n = recv(1)[0]
    if 1 not in recv(n):
        sys.exit("record_rfb: the server wants authentication")
    s.sendall(b"\1")
    if struct.unpack(">I", recv(4))[0] != 0:
        sys.exit("record_rfb: security failed")
    s.sendall(b"\1")
    w, h = struct.unpack(">HH", recv(4))
    recv(16)
    recv(struct.unpack(">I", recv(4))[0])
    s.sendall(struct.pack(">B3xBBBBHHHBBB3x", 0, 32, 24, 0, 1, 255, 255,
                          255, 16, 8, 0))
    e = ENC[enc]
    s.sendall(struct.pack(">BxH%di" % len(e), 2, len(e), *e))
    s.sendall(struct.pack(">BBHHHH", 3, 0, 0, 0, w, h))
    s.settimeout(0.02)
    data = []
    end = time.monotonic() + secs
    while time.monotonic() < end:
        try:
            c = s.recv(1 << 20)
            if not c:
                break
            data.append(c)
        except socket.timeout:
            pass
        s.sendall(struct.pack(">BBHHHH", 3, 1, 0, 0, w, h))
    with open(out, "wb") as f:
        f.write(b"%dx%d\n" % (w, h))
        f.write(b"".join(data))


main()
