"""Read a vncfb recording (vncfb bench --record; the layout is described
at the top of client/tools/replay/recording.c) in Python: for the tests, which check
the file against the X server's own picture, and the measuring scripts,
which report what a recording holds. Deliberately written from the
documented layout, not from the C reader, so each checks the other."""
import struct
import zlib

MAGIC = b"VNCFBREC"
UPDATE, FULL = 1, 2


class Recording:
    pass


def read(path):
    with open(path, "rb") as f:
        d = f.read()
    if d[:8] != MAGIC:
        raise ValueError("%s: not a vncfb recording" % path)
    version, hlen = struct.unpack_from("<II", d, 8)
    if version != 1:
        raise ValueError("%s: version %d" % (path, version))
    r = Recording()
    r.width, r.height = struct.unpack_from("<HH", d, 16)
    r.server_pf = d[20:36]
    r.client_pf = d[36:52]
    r.quality, r.compress, elen, nlen = struct.unpack_from("<bbHI", d, 52)
    r.encodings = d[60:60 + elen].decode()
    r.name = d[60 + elen:60 + elen + nlen]
    off = 16 + hlen
    r.messages = []         # (flags, length, t_ns, first byte)
    r.final = None          # (w, h, raw pixels)
    while True:
        kind, flags, zero, length, t_ns = struct.unpack_from("<BBHIQ", d,
                                                             off)
        body = d[off + 16:off + 16 + length]
        if len(body) != length:
            raise ValueError("%s: truncated" % path)
        if kind == 1:
            r.messages.append((flags, length, t_ns, body[0]))
        elif kind == 2:
            w, h = struct.unpack_from("<HH", body)
            r.final = (w, h, body[4:])
        elif kind == 3:
            count, total, crc = struct.unpack_from("<QQI", body)
            if count != len(r.messages) or \
                    zlib.crc32(d[:off + 16 + 16]) != crc or \
                    off + 16 + length != len(d):
                raise ValueError("%s: bad end record" % path)
            break
        else:
            raise ValueError("%s: record type %d" % (path, kind))
        off += 16 + length
    r.updates = sum(1 for m in r.messages if m[0] & UPDATE)
    r.full = sum(1 for m in r.messages if m[0] & FULL)
    r.bytes = sum(m[1] for m in r.messages)
    return r


def _bits(mx):
    n = 0
    while mx & 1:
        mx >>= 1
        n += 1
    return n


def _expand(v, bits):
    """bits-bit v to 8 bits by bit replication (pixfmt_unpack)."""
    out, pos = 0, 8
    while pos > 0:
        pos -= bits
        out |= v << pos if pos >= 0 else v >> -pos
    return out & 0xff


def to_rgb(pix, pf):
    """Raw pixels in RFB pixel format pf (16 bytes, true colour) to RGB
    bytes."""
    bpp = pf[0] // 8
    big = pf[2] != 0
    maxes = struct.unpack_from(">HHH", pf, 4)
    shifts = pf[10:13]
    bits = [_bits(m) for m in maxes]
    tables = []
    for c in range(3):
        tables.append([_expand(v, bits[c]) for v in range(maxes[c] + 1)])
    out = bytearray(len(pix) // bpp * 3)
    order = "big" if big else "little"
    for i in range(len(pix) // bpp):
        v = int.from_bytes(pix[i * bpp:(i + 1) * bpp], order)
        for c in range(3):
            out[i * 3 + c] = tables[c][(v >> shifts[c]) & maxes[c]]
    return bytes(out)


def write(path, width, height, pf, messages, final=None, quality=-1,
          compress=-1, encodings="raw", name=b"synthetic", server_pf=None):
    """Write a recording: messages are (flags, bytes, t_ns); final is
    (w, h, raw pixels) or None. pf is the client's format (16 bytes)."""
    enc = encodings.encode()
    header = struct.pack("<HH", width, height) + (server_pf or pf) + pf + \
        struct.pack("<bbHI", quality, compress, len(enc), len(name)) + \
        enc + name
    d = bytearray(MAGIC + struct.pack("<II", 1, len(header)) + header)
    for flags, body, t_ns in messages:
        d += struct.pack("<BBHIQ", 1, flags, 0, len(body), t_ns) + body
    if final:
        w, h, pix = final
        body = struct.pack("<HH", w, h) + pix
        d += struct.pack("<BBHIQ", 2, 0, 0, len(body), 0) + body
    d += struct.pack("<BBHIQ", 3, 0, 0, 20, 0)
    d += struct.pack("<QQ", len(messages), sum(len(m[1]) for m in messages))
    d += struct.pack("<I", zlib.crc32(bytes(d)))
    with open(path, "wb") as f:
        f.write(d)


# RFB PIXEL_FORMATs of vncfb's xrgb8888 and rgb565 on little-endian hosts.
XRGB8888 = bytes([32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 16, 8, 0, 0, 0, 0])
RGB565 = bytes([16, 16, 0, 1, 0, 31, 0, 63, 0, 31, 11, 5, 0, 0, 0, 0])
