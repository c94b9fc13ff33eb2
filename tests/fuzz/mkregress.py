#!/usr/bin/env python3
"""Write the hostile-server regression cases into tests/fuzz/regress.

Each case is a fuzz input (harness.h): one format byte, then exactly what
a misbehaving server sends. Run by hand after changing a case; the output
is committed, and tests/hostile-input.md says what vncfb does with each.
"""
import os
import struct
import sys
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
from testlib import pixfmt32  # noqa: E402

W, H = 64, 48


def hello(w=W, h=H, name=b"hostile", auth=1, extra=b""):
    s = b"RFB 003.008\n"
    if auth == 1:
        s += bytes([1, 1]) + struct.pack(">I", 0)
    else:
        s += extra
    s += struct.pack(">HH", w, h) + pixfmt32()
    s += struct.pack(">I", len(name)) + name
    return s


def fbu(*rects, count=None):
    n = len(rects) if count is None else count
    return struct.pack(">BxH", 0, n) + b"".join(rects)


def rect(x, y, w, h, enc, body=b""):
    return struct.pack(">HHHHi", x, y, w, h, enc) + body


def px(r, g, b):
    return struct.pack("<I", (r << 16) | (g << 8) | b)


RAW, COPYRECT, RRE, CORRE, HEXTILE, ZLIB, TIGHT, TRLE, ZRLE = \
    0, 1, 2, 4, 5, 6, 7, 15, 16
ULTRA = 9
XCURSOR, RICHCURSOR, POINTERPOS = -240, -239, -232
LASTRECT, NEWFBSIZE, EXTDESKTOP = -224, -223, -308
DESKTOPNAME = -307
JPEG, CURSORALPHA, EXTMOUSE = 21, -314, -316


# An 8x8 JPEG at quality 75 as libjpeg writes it (SOI, APP0, DQT x2, SOF0,
# DHT x4, SOS, data, EOI): the JPEG encoding's cases derive the
# abbreviated and tables-only forms from it.
JPEG8 = bytes.fromhex(
    "ffd8ffe000104a46494600010100000100010000ffdb00430008060607060508"
    "0707070909080a0c140d0c0b0b0c1912130f141d1a1f1e1d1a1c1c20242e2720"
    "222c231c1c2837292c30313434341f27393d38323c2e333432ffdb0043010909"
    "090c0b0c180d0d1832211c213232323232323232323232323232323232323232"
    "323232323232323232323232323232323232323232323232323232323232ffc0"
    "0011080008000803012200021101031101ffc4001f0000010501010101010100"
    "000000000000000102030405060708090a0bffc400b510000201030302040305"
    "0504040000017d01020300041105122131410613516107227114328191a10823"
    "42b1c11552d1f02433627282090a161718191a25262728292a3435363738393a"
    "434445464748494a535455565758595a636465666768696a737475767778797a"
    "838485868788898a92939495969798999aa2a3a4a5a6a7a8a9aab2b3b4b5b6b7"
    "b8b9bac2c3c4c5c6c7c8c9cad2d3d4d5d6d7d8d9dae1e2e3e4e5e6e7e8e9eaf1"
    "f2f3f4f5f6f7f8f9faffc4001f01000301010101010101010100000000000001"
    "02030405060708090a0bffc400b5110002010204040304070504040001027700"
    "0102031104052131061241510761711322328108144291a1b1c109233352f015"
    "6272d10a162434e125f11718191a262728292a35363738393a43444546474849"
    "4a535455565758595a636465666768696a737475767778797a82838485868788"
    "898a92939495969798999aa2a3a4a5a6a7a8a9aab2b3b4b5b6b7b8b9bac2c3c4"
    "c5c6c7c8c9cad2d3d4d5d6d7d8d9dae2e3e4e5e6e7e8e9eaf2f3f4f5f6f7f8f9"
    "faffda000c03010002110311003f001f5cff006a8a28ae8587a7d8faca1c1f94"
    "f27f0ffafb8fffd9"
)


def jpeg_split(img):
    """img's table segments (DQT, DHT) and img without them."""
    tables, rest, p = b"", img[:2], 2
    while img[p + 1] != 0xda:
        n = 2 + struct.unpack(">H", img[p + 2:p + 4])[0]
        if img[p + 1] in (0xdb, 0xc4):
            tables += img[p:p + n]
        else:
            rest += img[p:p + n]
        p += n
    return tables, rest + img[p:]


def raw(w, h, colour=(10, 20, 30)):
    return px(*colour) * (w * h)


def good_update():
    return fbu(rect(0, 0, 8, 8, RAW, raw(8, 8)))


def zsync(data, z=None):
    """data deflated and flushed as an RFB server does (the stream goes
    on): pass the same z for the rectangles of one stream."""
    z = z or zlib.compressobj()
    return z.compress(data) + z.flush(zlib.Z_SYNC_FLUSH)


def tight_len(n):
    if n < 128:
        return bytes([n])
    if n < 16384:
        return bytes([(n & 0x7f) | 0x80, n >> 7])
    return bytes([(n & 0x7f) | 0x80, ((n >> 7) & 0x7f) | 0x80, n >> 14])


cases = {}

# --- rectangles and sizes ---
cases["rect-partly-outside"] = hello() + fbu(
    rect(60, 40, 16, 16, RAW, raw(16, 16)))
cases["rect-far-outside"] = hello() + fbu(
    rect(65000, 65000, 10, 10, RAW, raw(10, 10)))
cases["rect-wh-overflow"] = hello() + fbu(rect(0, 0, 65535, 65535, RAW))
cases["rect-zero-size"] = hello() + fbu(
    rect(5, 5, 0, 0, RAW), rect(0, 0, 0, 48, HEXTILE)) + good_update()
cases["copyrect-source-outside"] = hello() + good_update() + fbu(
    rect(0, 0, 16, 16, COPYRECT, struct.pack(">HH", 60, 40)))
cases["rre-subrect-outside"] = hello() + fbu(
    rect(0, 0, 16, 16, RRE, struct.pack(">I", 2) + px(1, 2, 3) +
         px(9, 9, 9) + struct.pack(">HHHH", 10, 10, 60, 60) +
         px(9, 9, 9) + struct.pack(">HHHH", 65535, 0, 65535, 1)))
cases["rre-subrect-count-huge"] = hello() + fbu(
    rect(0, 0, 16, 16, RRE, struct.pack(">I", 0xffffffff) + px(1, 2, 3)))
cases["corre-subrect-outside"] = hello() + fbu(
    rect(0, 0, 16, 16, CORRE, struct.pack(">I", 1) + px(1, 2, 3) +
         px(9, 9, 9) + bytes([200, 200, 255, 255])))
cases["hextile-subrect-outside"] = hello() + fbu(
    rect(0, 0, 16, 16, HEXTILE,
         bytes([0x02 | 0x08 | 0x10]) + px(0, 0, 0) + bytes([1]) +
         px(255, 255, 255) + bytes([0xff, 0xff])))
cases["lastrect-count-mismatch"] = hello() + fbu(
    rect(0, 0, 8, 8, RAW, raw(8, 8)), rect(0, 0, 0, 0, LASTRECT),
    count=0xffff) + good_update()

# --- desktop size ---
cases["serverinit-0x0"] = hello(0, 0) + fbu(rect(0, 0, 1, 1, RAW, raw(1, 1)))
cases["serverinit-65535x65535"] = hello(65535, 65535)
cases["serverinit-16384x16"] = hello(16384, 16)
cases["serverinit-16385x1"] = hello(16385, 1)
cases["resize-0x0"] = hello() + good_update() + fbu(
    rect(0, 0, 0, 0, NEWFBSIZE)) + fbu(rect(0, 0, 1, 1, RAW, raw(1, 1)))
cases["resize-0x0-then-back"] = hello() + fbu(
    rect(0, 0, 0, 0, NEWFBSIZE)) + fbu(
    rect(0, 0, 32, 16, NEWFBSIZE)) + fbu(rect(0, 0, 32, 16, RAW,
                                             raw(32, 16)))
cases["resize-65535x65535"] = hello() + good_update() + fbu(
    rect(0, 0, 65535, 65535, NEWFBSIZE))
cases["resize-65535x1"] = hello() + fbu(rect(0, 0, 65535, 1, NEWFBSIZE))
cases["extdesktop-screens-255"] = hello() + fbu(
    rect(0, 0, 100, 50, EXTDESKTOP,
         struct.pack(">B3x", 255) +
         struct.pack(">IHHHHI", 1, 0, 0, 100, 50, 0) * 255)) + fbu(
    rect(0, 0, 100, 50, RAW, raw(100, 50)))
cases["extdesktop-65535"] = hello() + fbu(
    rect(0, 0, 65535, 65535, EXTDESKTOP,
         struct.pack(">B3x", 1) +
         struct.pack(">IHHHHI", 1, 0, 0, 65535, 65535, 0)))


def eds(reason, status, w, h, screens=None, count=None):
    """An ExtendedDesktopSize rectangle: screens as (id, x, y, w, h,
    flags), one covering the desktop when None."""
    screens = [(1, 0, 0, w, h, 0)] if screens is None else screens
    n = len(screens) if count is None else count
    return rect(reason, status, w, h, EXTDESKTOP,
                struct.pack(">B3x", n) +
                b"".join(struct.pack(">IHHHHI", *s) for s in screens))


# Answers to vncfb's SetDesktopSize (the harness's output is 96x64, the
# desktop 64x48, so the first layout makes vncfb ask; asking twice on
# one connection aborts the harness).
first_layout = fbu(eds(0, 0, W, H))
cases["extdesktop-answer-prohibited"] = hello() + first_layout + fbu(
    eds(1, 1, 0, 65535, [])) + good_update()
cases["extdesktop-answer-unknown-status"] = hello() + first_layout + fbu(
    eds(1, 200, 65535, 65535, [(0xffffffff, 65535, 65535, 65535, 65535,
                                0xffffffff)])) + good_update()
cases["extdesktop-answer-forwarded-garbage"] = hello() + first_layout + fbu(
    eds(1, 4, 65535, 65535, [], count=0)) + good_update()
cases["extdesktop-answer-ok-0x0"] = hello() + first_layout + fbu(
    eds(1, 0, 0, 0, []))
cases["extdesktop-answer-other-size"] = hello() + first_layout + fbu(
    eds(1, 0, 40, 30)) + fbu(rect(0, 0, 40, 30, RAW, raw(40, 30)))
cases["extdesktop-answer-flood"] = hello() + first_layout + b"".join(
    fbu(eds(1 + i % 2, i % 5, 16 + i % 80, 8 + i % 56,
            [(i, i, i, 1, 1, i)] * (i % 7))) for i in range(500)) + fbu(
    eds(2, 0, 50, 40)) + fbu(rect(0, 0, 50, 40, RAW, raw(50, 40)))
cases["extdesktop-unknown-reason"] = hello() + first_layout + fbu(
    eds(77, 9, 80, 40)) + fbu(rect(0, 0, 80, 40, RAW, raw(80, 40)))
cases["extdesktop-screens-truncated"] = hello() + fbu(
    eds(0, 0, W, H, [(1, 0, 0, W, H, 0)] * 3, count=10))
cases["extdesktop-unsolicited-answer"] = hello() + fbu(
    eds(1, 0, 96, 64), eds(1, 3, 1, 1, [])) + fbu(
    rect(0, 0, 96, 64, RAW, raw(96, 64)))

# --- text ---
cases["cut-text-huge-length"] = hello() + struct.pack(
    ">B3xI", 3, 0xffffffff) + b"x" * 64
cases["cut-text-1MiB-truncated"] = hello() + struct.pack(
    ">B3xI", 3, 1 << 20) + b"x" * 4096
cases["cut-text-256KiB"] = hello() + struct.pack(
    ">B3xI", 3, 1 << 18) + b"y" * (1 << 18) + good_update()
cases["name-huge-length"] = (b"RFB 003.008\n" + bytes([1, 1]) +
                             struct.pack(">I", 0) +
                             struct.pack(">HH", W, H) + pixfmt32() +
                             struct.pack(">I", 0xffffffff) + b"n" * 16)
cases["reason-huge-length"] = b"RFB 003.008\n" + bytes([0]) + struct.pack(
    ">I", 0xffffffff) + b"r" * 16
cases["security-types-none"] = b"RFB 003.008\n" + bytes([0]) + struct.pack(
    ">I", 9) + b"go away\n\x00"
cases["version-garbage"] = b"HTTP/1.1 400 Bad Request\r\n\r\n"
cases["version-3.3-auth-fail"] = b"RFB 003.003\n" + struct.pack(
    ">I", 2) + b"\x00" * 16 + struct.pack(">I", 1)
# RFB 3.3 lets the server dictate the type: one vncfb did not offer ends
# the handshake before libvncclient runs it (its Diffie-Hellman types
# abort() inside libgcrypt on a bad key length).
cases["security-3.3-ard-dictated"] = b"RFB 003.003\n" + struct.pack(
    ">IHH", 30, 0x140a, 1) + b"\x40\x14" + b"\x02" * 32
cases["security-3.3-mslogon-dictated"] = b"RFB 003.003\n" + struct.pack(
    ">IQQQ", 0xfffffffa, 0, 0, 0)
cases["vnc-auth-fail-reason"] = b"RFB 003.008\n" + bytes([1, 2]) + \
    b"\x11" * 16 + struct.pack(">I", 1) + struct.pack(">I", 6) + b"denied"
cases["colourmap-huge"] = hello() + struct.pack(">BxHH", 1, 0, 65535) + \
    b"\x00" * 6 * 64
cases["unknown-message"] = hello() + bytes([200]) + b"\x00" * 32
cases["unknown-encoding"] = hello() + fbu(rect(0, 0, 8, 8, 0x12345678))

# --- compressed data ---
cases["zlib-invalid"] = hello() + fbu(
    rect(0, 0, 8, 8, ZLIB, struct.pack(">I", 64) + b"\xff" * 64))
cases["zlib-truncated"] = hello() + fbu(
    rect(0, 0, 8, 8, ZLIB, struct.pack(">I", 20) +
         zlib.compress(raw(8, 8))[:20]))
cases["zlib-length-huge"] = hello() + fbu(
    rect(0, 0, 8, 8, ZLIB, struct.pack(">I", 0xffffffff) + b"\x78\x9c"))
cases["zlib-inflates-too-much"] = hello() + fbu(
    rect(0, 0, 2, 2, ZLIB, struct.pack(">I", len(zlib.compress(
        b"\x00" * 100000))) + zlib.compress(b"\x00" * 100000)))
cases["tight-jpeg-garbage"] = hello() + fbu(
    rect(0, 0, 16, 16, TIGHT, bytes([0x90]) + tight_len(100) +
         b"\xff\xd8\xff\xe0" + b"\x13" * 96))
cases["tight-jpeg-truncated"] = hello() + fbu(
    rect(0, 0, 16, 16, TIGHT, bytes([0x90]) + tight_len(4000) +
         b"\xff\xd8\xff\xe0" + b"\x00" * 100))
cases["tight-jpeg-huge-dims"] = hello() + fbu(
    rect(0, 0, 16, 16, TIGHT, bytes([0x90]) + tight_len(40) +
         bytes.fromhex("ffd8ffc0001108ffffffff03012200021101031101") +
         b"\xff\xd9" + b"\x00" * 17))
cases["tight-zlib-invalid"] = hello() + fbu(
    rect(0, 0, 16, 16, TIGHT, bytes([0x00]) + tight_len(50) + b"\xaa" * 50))
cases["tight-palette-huge"] = hello() + fbu(
    rect(0, 0, 16, 16, TIGHT, bytes([0x40, 0x01, 0xff]) + b"\x00" * 64))
cases["tight-filter-unknown"] = hello() + fbu(
    rect(0, 0, 16, 16, TIGHT, bytes([0x40, 0x07]) + b"\x00" * 64))
cases["tight-fill-outside"] = hello() + fbu(
    rect(60, 40, 16, 16, TIGHT, bytes([0x80]) + b"\x01\x02\x03"))
cases["zrle-invalid"] = hello() + fbu(
    rect(0, 0, 16, 16, ZRLE, struct.pack(">I", 40) + b"\xee" * 40))
cases["zrle-palette-runs-overflow"] = hello() + fbu(
    rect(0, 0, 16, 16, ZRLE, (lambda z: struct.pack(">I", len(z)) + z)(
        zlib.compress(bytes([130]) + b"\x01\x02\x03" * 2 +
                      bytes([0x81, 0xff, 0xff, 0xff, 0xff, 0x10])))))
cases["trle-palette-runs-overflow"] = hello() + fbu(
    rect(0, 0, 16, 16, TRLE, bytes([130]) + b"\x01\x02\x03" * 2 +
         bytes([0x81, 0xff, 0xff, 0xff, 0xff, 0x10])))
cases["trle-valid-solid"] = hello() + fbu(
    rect(0, 0, 16, 16, TRLE, bytes([1]) + b"\x10\x20\x30"))
cases["ultra-length-huge"] = hello() + fbu(
    rect(0, 0, 8, 8, ULTRA, struct.pack(">I", 0x7fffffff) + b"\x00" * 8))
cases["ultra-invalid"] = hello() + fbu(
    rect(0, 0, 8, 8, ULTRA, struct.pack(">I", 16) + b"\xf1" * 16))

# --- cursors ---
cases["richcursor-65535x65535"] = hello() + fbu(
    rect(0, 0, 65535, 65535, RICHCURSOR, b"\x00" * 64))
cases["richcursor-257x2"] = hello() + fbu(
    rect(3, 1, 257, 2, RICHCURSOR,
         b"\x00" * (257 * 2 * 4 + 33 * 2))) + good_update()
cases["richcursor-hotspot-outside"] = hello() + fbu(
    rect(40, 40, 4, 4, RICHCURSOR, raw(4, 4) + b"\xf0" * 4)) + \
    good_update()
cases["richcursor-0x0"] = hello() + fbu(
    rect(0, 0, 0, 0, RICHCURSOR)) + good_update()
cases["xcursor-65535x1"] = hello() + fbu(
    rect(0, 0, 65535, 1, XCURSOR, b"\x00" * 6 + b"\xff" * 16384))
cases["pointerpos-outside"] = hello() + fbu(
    rect(65535, 65535, 0, 0, POINTERPOS)) + good_update()


# --- the findings of the hostile-server test against libvncclient 0.9.14
# (issue 13), now against vncfb's own reader: each must end with one
# line saying why ---
# Tight, libvncserver's no-zlib variant: 1000x1000 with 16 bytes (32 and
# 16 bpp: the format byte picks the client's format).
cases["tight-nozlib-short-32"] = hello(1000, 1000) + fbu(
    rect(0, 0, 1000, 1000, TIGHT, bytes([0xa0]) + tight_len(16) +
         b"\x55" * 16))
cases["tight-nozlib-short-16"] = (1, cases["tight-nozlib-short-32"])
# The same variant done right: 4x4 of 3-byte pixels, bare.
cases["tight-nozlib-valid"] = hello() + fbu(
    rect(0, 0, 4, 4, TIGHT, bytes([0xa0]) + tight_len(48) +
         bytes(range(48)))) + good_update()
# Packed-palette indices past the palette: a 3-colour ZRLE tile (2 bits
# an index) with index 3.
cases["zrle-packed-index-past"] = hello() + fbu(
    rect(0, 0, 4, 4, ZRLE, (lambda z: struct.pack(">I", len(z)) + z)(
        zsync(bytes([3]) + b"\x01\x02\x03" * 3 + b"\xff" * 4))))
# A TRLE tile reusing a palette when none came before.
cases["trle-reuse-no-palette"] = hello() + fbu(
    rect(0, 0, 16, 16, TRLE, bytes([127]) + b"\x00" * 32))
cases["trle-reuse-valid"] = hello() + fbu(
    rect(0, 0, 32, 16, TRLE, bytes([2]) + b"\x10\x20\x30\x40\x50\x60" +
         b"\xaa\x55" * 16 + bytes([127]) + b"\x0f\xf0" * 16)) + \
    good_update()
cases["trle-bad-subencoding"] = hello() + fbu(
    rect(0, 0, 16, 16, TRLE, bytes([17]) + b"\x00" * 64))
# A short zlib stream: flushed after 100 of the 256 bytes 8x8 needs.
cases["zlib-short"] = hello() + fbu(
    rect(0, 0, 8, 8, ZLIB, (lambda z: struct.pack(">I", len(z)) + z)(
        zsync(raw(8, 8)[:100]))))
# SetColourMapEntries read whole: the update after it must show.
cases["colourmap-then-update"] = hello() + struct.pack(
    ">BxHH", 1, 0, 16) + b"\x12\x34" * 48 + good_update()
cases["colourmap-past-65535"] = hello() + struct.pack(
    ">BxHH", 1, 65000, 1000) + b"\x00" * 64
cases["corre-subrect-count-huge"] = hello() + fbu(
    rect(0, 0, 16, 16, CORRE, struct.pack(">I", 0xffffffff) +
         px(1, 2, 3)))
# Oversized cursors: far too large is an error, a little too large is
# cut down around its hot spot.
cases["richcursor-2000x2000"] = hello() + fbu(
    rect(0, 0, 2000, 2000, RICHCURSOR, b"\x00" * 64))
cases["richcursor-300x300-cut"] = hello() + fbu(
    rect(150, 150, 300, 300, RICHCURSOR,
         raw(300, 300, (200, 0, 0)) + b"\xff" * (38 * 300))) + \
    good_update()
# Tight palette index past the palette (8-bit indices, zlib).
cases["tight-palette-index-past"] = hello() + fbu(
    rect(0, 0, 4, 4, TIGHT, bytes([0x40, 0x01, 2]) + b"\x01\x02\x03" * 3 +
         (lambda z: tight_len(len(z)) + z)(
             zsync(bytes([0, 1, 2, 7]) * 4))))
# The names and sizes a server may announce.
cases["desktopname-escape"] = hello() + fbu(
    rect(0, 0, 0, 0, DESKTOPNAME,
         struct.pack(">I", 9) + b"e\x1b[2Jvil\n")) + good_update()
cases["desktopname-huge"] = hello() + fbu(
    rect(0, 0, 0, 0, DESKTOPNAME, struct.pack(">I", 0x7fffffff)))
# QEMU announces its screen with id 0 (libvncclient ignores those).
cases["extdesktop-screen-id-0"] = hello() + fbu(
    rect(0, 0, 100, 50, EXTDESKTOP,
         struct.pack(">B3x", 1) +
         struct.pack(">IHHHHI", 0, 0, 0, 100, 50, 0))) + fbu(
    rect(0, 0, 100, 50, RAW, raw(100, 50)))
cases["zywrle-not-asked"] = hello() + fbu(rect(0, 0, 8, 8, 17, b"\x00" * 8))
cases["hextile-valid-edges"] = hello(37, 20) + fbu(
    rect(0, 0, 37, 20, HEXTILE,
         bytes([0x02]) + px(1, 1, 1) +
         bytes([0x01]) + raw(16, 16) +
         bytes([0x00]) +
         bytes([0x02 | 0x04 | 0x08]) + px(2, 2, 2) + px(3, 3, 3) +
         bytes([1, 0x00, 0xf3]) +
         bytes([0x08 | 0x10, 1]) + px(4, 4, 4) + bytes([0x11, 0x22]) +
         bytes([0x01]) + raw(5, 4))) + good_update()

# ContinuousUpdates and Fence (issue 23): vncfb offers both.
FENCE, END_CU = 248, 150
REQUEST, BLOCK_BEFORE = 1 << 31, 1


def fence(flags, payload, length=None):
    n = len(payload) if length is None else length
    return struct.pack(">B3xIB", FENCE, flags, n) + payload


# Flags vncfb does not know (bits 3-30) are answered cleared.
cases["fence-unknown-flags"] = hello() + fence(
    REQUEST | BLOCK_BEFORE | 0x7ffffff8, b"xyz") + good_update() + \
    good_update()
cases["fence-payload-64"] = hello() + fence(REQUEST, b"p" * 64) + \
    good_update() + good_update()
cases["fence-payload-65"] = hello() + good_update() + \
    fence(REQUEST, b"p" * 65)
cases["fence-payload-255-short"] = hello() + fence(REQUEST, b"p" * 10,
                                                   length=255)
# An answer to a fence vncfb never sent.
cases["fence-stray-answer"] = hello() + fence(0, b"stray") + \
    good_update() + good_update()
# The first says the server has continuous updates; the next, unasked,
# says it stopped pushing (vncfb asks for updates again); more change
# nothing.
cases["end-cu-unasked"] = hello() + bytes([END_CU]) + good_update() + \
    bytes([END_CU]) + good_update() + bytes([END_CU]) * 50 + good_update()

# --- TigerVNC's JPEG encoding (21), CursorWithAlpha, ExtendedMouseButtons
# (issue 27) ---
JPEG8_TABLES, JPEG8_BARE = jpeg_split(JPEG8)
cases["jpeg21-valid"] = hello() + fbu(
    rect(0, 0, 8, 8, JPEG, JPEG8)) + good_update()
# Tables from the image before, then from a tables-only datastream.
cases["jpeg21-reuse-tables"] = hello() + fbu(
    rect(0, 0, 8, 8, JPEG, JPEG8), rect(8, 0, 8, 8, JPEG, JPEG8_BARE),
    rect(0, 0, 64, 48, JPEG, b"\xff\xd8" + JPEG8_TABLES + b"\xff\xd9"),
    rect(16, 8, 8, 8, JPEG, JPEG8_BARE)) + good_update()
cases["jpeg21-no-tables"] = hello() + fbu(
    rect(0, 0, 8, 8, JPEG, JPEG8_BARE))
cases["jpeg21-truncated"] = hello() + fbu(
    rect(0, 0, 8, 8, JPEG, JPEG8[:-40]))
cases["jpeg21-no-soi"] = hello() + fbu(
    rect(0, 0, 8, 8, JPEG, JPEG8[2:]))
cases["jpeg21-wrong-size"] = hello() + fbu(
    rect(0, 0, 9, 8, JPEG, JPEG8))
cases["jpeg21-tables-huge"] = hello() + fbu(
    rect(0, 0, 8, 8, JPEG, b"\xff\xd8" +
         (b"\xff\xdb\x00\x43\x00" + b"\x01" * 64) * 200))
cases["jpeg21-segment-length-1"] = hello() + fbu(
    rect(0, 0, 8, 8, JPEG, b"\xff\xd8\xff\xe0\x00\x01"))
# CursorWithAlpha: RGBA, premultiplied, in a sub-encoding.
cases["cursoralpha-valid"] = hello() + fbu(
    rect(1, 2, 4, 4, CURSORALPHA, struct.pack(">i", RAW) +
         bytes([40, 20, 10, 128]) * 8 + bytes([0, 0, 0, 0]) * 8)) + \
    good_update()
cases["cursoralpha-zlib"] = hello() + fbu(
    rect(0, 0, 4, 4, CURSORALPHA, struct.pack(">i", ZLIB) +
         (lambda z: struct.pack(">I", len(z)) + z)(
             zsync(bytes([255, 0, 0, 255]) * 16)))) + good_update()
cases["cursoralpha-2000x2000"] = hello() + fbu(
    rect(0, 0, 2000, 2000, CURSORALPHA, struct.pack(">i", RAW)))
cases["cursoralpha-copyrect"] = hello() + fbu(
    rect(0, 0, 4, 4, CURSORALPHA, struct.pack(">i", COPYRECT) +
         b"\x00" * 4))
cases["cursoralpha-jpeg"] = hello() + fbu(
    rect(0, 0, 8, 8, CURSORALPHA, struct.pack(">i", JPEG) + JPEG8))
cases["cursoralpha-zlib-invalid"] = hello() + fbu(
    rect(0, 0, 4, 4, CURSORALPHA, struct.pack(">i", ZLIB) +
         struct.pack(">I", 8) + b"\xee" * 8))
cases["cursoralpha-truncated"] = hello() + fbu(
    rect(0, 0, 16, 16, CURSORALPHA, struct.pack(">i", RAW) +
         b"\x10" * 100))
# The server confirms ExtendedMouseButtons: an empty pseudo-rectangle.
cases["extmouse-confirm"] = hello() + fbu(
    rect(0, 0, 0, 0, EXTMOUSE)) + good_update()


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "regress")
    os.makedirs(out, exist_ok=True)
    for name, data in sorted(cases.items()):
        fmt = 0
        if isinstance(data, tuple):
            fmt, data = data
        with open(os.path.join(out, name), "wb") as f:
            f.write(bytes([fmt]) + data)


if __name__ == "__main__":
    main()
