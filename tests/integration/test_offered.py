#!/usr/bin/env python3
"""What vncfb's SetEncodings offers a server (a scripted listener on
127.0.0.1 in this process): ExtendedMouseButtons unless view-only,
TigerVNC's JPEG encoding (21) right after the listed encodings with Tight
and --quality and not without --quality; no cursor shapes at all on the
mem output, which has no pointer (CursorWithAlpha's place before
RichCursor and XCursor needs a pointer device: vnc_send.c); then the
server's ExtendedMouseButtons confirmation and an alpha cursor are taken
(the session runs on to --exit-after).
"""
import struct
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import vnctest as vt  # noqa: E402
from vmio import recv_exact  # noqa: E402

JPEG, CURSOR_ALPHA, RICH, XCURSOR, EXT_MOUSE = 21, -314, -239, -240, -316


def server(seen):
    def script(conn):
        conn.sendall(b"RFB 003.008\n")
        recv_exact(conn, 12)
        conn.sendall(b"\x01\x01")
        recv_exact(conn, 1)
        conn.sendall(struct.pack(">I", 0))
        recv_exact(conn, 1)
        fmt = bytes([32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 16, 8, 0,
                     0, 0, 0])
        conn.sendall(struct.pack(">HH", 64, 48) + fmt +
                     struct.pack(">I", 4) + b"test")
        recv_exact(conn, 20)                      # SetPixelFormat
        t, n = struct.unpack(">BxH", recv_exact(conn, 4))
        seen.append(list(struct.unpack(">%di" % n, recv_exact(conn, 4 * n))))
        # The confirmation, an alpha cursor (raw), a picture.
        rgba = bytes([128, 0, 0, 128]) * 16
        conn.sendall(struct.pack(">BxH", 0, 3) +
                     struct.pack(">HHHHi", 0, 0, 0, 0, EXT_MOUSE) +
                     struct.pack(">HHHHii", 1, 1, 4, 4, CURSOR_ALPHA, 0) +
                     rgba +
                     struct.pack(">HHHHi", 0, 0, 64, 48, 0) +
                     b"\x10\x20\x30\x00" * (64 * 48))
        while conn.recv(4096):
            pass
    return script


def offered(args):
    seen = []
    srv = vt.FakeServer(server(seen))
    try:
        rc, err = vt.run_vncfb(["-o", "mem:64x48", "--exit-after", "1",
                                *args, "127.0.0.1::%d" % srv.port])
    finally:
        srv.close()
    if rc != 0 or not seen:
        raise vt.Fail("%s: exit %d, offered %s: %s" % (args, rc, seen, err))
    return seen[0]


def main(tmp):
    lst = offered(["--encodings", "tight zrle", "--quality", "5"])
    vt.log("offered with --quality: %s" % lst)
    if lst[:3] != [7, 16, JPEG]:
        raise vt.Fail("JPEG not right after tight zrle: %s" % lst)
    if {CURSOR_ALPHA, RICH, XCURSOR} & set(lst):
        raise vt.Fail("cursor shapes offered without a pointer: %s" % lst)
    if EXT_MOUSE not in lst:
        raise vt.Fail("no ExtendedMouseButtons: %s" % lst)
    lst = offered(["--encodings", "tight zrle"])
    if JPEG in lst:
        raise vt.Fail("JPEG offered without --quality: %s" % lst)
    lst = offered(["--encodings", "raw", "--quality", "5"])
    if JPEG in lst:
        raise vt.Fail("JPEG offered without tight: %s" % lst)
    lst = offered(["--view-only"])
    if EXT_MOUSE in lst or CURSOR_ALPHA in lst:
        raise vt.Fail("view-only offers pointer things: %s" % lst)
    vt.log("ok: view-only: %s" % lst)


if __name__ == "__main__":
    vt.main(main)
