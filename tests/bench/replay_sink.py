#!/usr/bin/env python3
"""A viewer that only reads: plays a recording served by vncfb bench
--replay REC --serve PORT without decoding anything, to time the pump
itself (replay_compare.py --sink). It does the RFB 3.8 handshake
(security None), asks for the recording's pixel format, and then, for
each recorded message in turn, reads exactly its length (known from the
recording), asking for the next update as soon as an update's first
byte arrives, as vncfb's viewer does. The pump's own lines time it, as
they time every viewer; what it reaches is the ceiling of any viewer
measured that way on this machine.

usage: replay_sink.py RECORDING HOST::PORT
"""
import os
import socket
import struct
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import recfile  # noqa: E402


def recv_exact(s, view):
    got = 0
    while got < len(view):
        n = s.recv_into(view[got:])
        if n == 0:
            sys.exit("replay_sink: the pump closed the connection")
        got += n


def request(s, r, incremental):
    s.sendall(struct.pack(">BBHHHH", 3, incremental, 0, 0, r.width,
                          r.height))


def main():
    if len(sys.argv) != 3 or "::" not in sys.argv[2]:
        sys.exit(__doc__.strip().split("\n")[-1])
    r = recfile.read(sys.argv[1])
    host, port = sys.argv[2].split("::")
    s = socket.create_connection((host, int(port)))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    small = bytearray(64)
    recv_exact(s, memoryview(small)[:12])
    s.sendall(b"RFB 003.008\n")
    recv_exact(s, memoryview(small)[:1])
    n = small[0]
    if n == 0:
        sys.exit("replay_sink: the pump refused the connection")
    recv_exact(s, memoryview(small)[:n])
    if 1 not in small[:n]:
        sys.exit("replay_sink: the pump offers no security type None")
    s.sendall(b"\x01")
    recv_exact(s, memoryview(small)[:4])
    if small[:4] != b"\0\0\0\0":
        sys.exit("replay_sink: security None failed")
    s.sendall(b"\x01")  # shared
    recv_exact(s, memoryview(small)[:24])
    name_len = struct.unpack(">I", small[20:24])[0]
    recv_exact(s, memoryview(bytearray(name_len)))
    s.sendall(b"\0\0\0\0" + bytes(r.client_pf))
    s.sendall(struct.pack(">BBH i", 2, 0, 1, 0))  # SetEncodings: raw
    buf = bytearray(max(m[1] for m in r.messages))
    view = memoryview(buf)
    request(s, r, 0)
    for flags, length, _, _ in r.messages:
        if flags & recfile.UPDATE:
            recv_exact(s, view[:1])
            request(s, r, 1)
            recv_exact(s, view[1:length])
        else:
            recv_exact(s, view[:length])
    # The pump has seen the request past the last; wait to be stopped.
    while s.recv_into(view):
        pass


if __name__ == "__main__":
    main()
