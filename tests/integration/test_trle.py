#!/usr/bin/env python3
"""TRLE (RFC 6143 7.7.5): libvncserver has no TRLE encoder, so this test
is its own small RFB server (loopback, in this process) that encodes the
test server's scene with every TRLE subencoding: raw, solid, packed
palette (1, 2 and 4 bits per index), plain RLE, palette RLE and both
palette reuses. vncfb must show each picture pixel-exact, at xrgb8888
(3-byte CPIXELs in the low bytes), bgrx8888 (3-byte CPIXELs in the high
bytes) and rgb565 (2-byte CPIXELs).

usage: test_trle.py FORMAT
"""
import struct
import sys
import threading

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import vnctest as vt  # noqa: E402

TRLE = 15
DESKTOP_SIZE = -223
OW, OH = 400, 300


class PixelFormat:
    def __init__(self, raw):
        (self.bpp, self.depth, self.big, self.true, self.rmax, self.gmax,
         self.bmax, self.rsh, self.gsh, self.bsh) = struct.unpack(
            ">BBBBHHHBBB3x", raw)

    def pixel(self, r, g, b):
        # Round to the channel's width, as libvncserver does.
        return (((r * self.rmax + 127) // 255) << self.rsh |
                ((g * self.gmax + 127) // 255) << self.gsh |
                ((b * self.bmax + 127) // 255) << self.bsh)

    def cpixel_codec(self):
        """(bytes per CPIXEL, function value -> bytes)."""
        n = self.bpp // 8
        order = "big" if self.big else "little"
        if self.bpp == 32 and self.depth <= 24:
            top = (self.rmax << self.rsh | self.gmax << self.gsh |
                   self.bmax << self.bsh)
            if top < 1 << 24:
                return 3, lambda v: v.to_bytes(4, order)[
                    1:] if self.big else v.to_bytes(4, order)[:3]
            if top & 0xff == 0:
                return 3, lambda v: v.to_bytes(4, order)[
                    :3] if self.big else v.to_bytes(4, order)[1:]
        return n, lambda v: v.to_bytes(n, order)


def run_length(n):
    """RLE length (n >= 1) as TRLE writes it."""
    n -= 1
    out = bytearray()
    while n >= 255:
        out.append(255)
        n -= 255
    out.append(n)
    return bytes(out)


def runs_of(pix):
    runs = []
    for p in pix:
        if runs and runs[-1][0] == p:
            runs[-1][1] += 1
        else:
            runs.append([p, 1])
    return runs


def palette_runs(runs, index):
    """Palette RLE's body: a run of one is its index, a longer run its
    index with the top bit set, then its length."""
    out = bytearray()
    for c, length in runs:
        if length == 1:
            out.append(index[c])
        else:
            out.append(index[c] | 0x80)
            out += run_length(length)
    return out


class Encoder:
    """TRLE with a deterministic choice of subencoding so that every kind
    appears; counts what it used."""

    def __init__(self, fmt):
        self.fmt = fmt
        self.csize, self.cpix = fmt.cpixel_codec()
        self.used = {}
        self.tile_no = 0
        self.prev_palette = None    # palette of the previous tile, or None

    def note(self, kind):
        self.used[kind] = self.used.get(kind, 0) + 1

    def tile(self, pix, w, h):
        cp = self.cpix
        palette = list(dict.fromkeys(pix))
        n = len(palette)
        k = self.tile_no
        self.tile_no += 1
        if n == 1:
            self.prev_palette = None
            self.note("solid")
            return bytes([1]) + cp(pix[0])
        index = {c: i for i, c in enumerate(palette)}
        runs = runs_of(pix)
        if n <= 16:
            reuse = self.prev_palette is not None and \
                set(self.prev_palette) >= set(palette) and \
                len(self.prev_palette) <= 16
            if reuse:
                # Keep the previous tile's palette (and its size).
                palette = self.prev_palette
                index = {c: i for i, c in enumerate(palette)}
                n = len(palette)
            bits = 1 if n == 2 else 2 if n <= 4 else 4
            if k % 2 == 0:
                out = bytearray([127] if reuse else [n])
                if not reuse:
                    out += b"".join(cp(c) for c in palette)
                for y in range(h):
                    acc, nb = 0, 0
                    for x in range(w):
                        acc = acc << bits | index[pix[y * w + x]]
                        nb += bits
                        if nb == 8:
                            out.append(acc)
                            acc, nb = 0, 0
                    if nb:
                        out.append(acc << (8 - nb))
                self.note("palette-reuse" if reuse else "packed-%d" % bits)
            else:
                out = bytearray([129] if reuse else [128 + n])
                if not reuse:
                    out += b"".join(cp(c) for c in palette)
                out += palette_runs(runs, index)
                self.note("palette-rle-reuse" if reuse else "palette-rle")
            if not reuse:
                self.prev_palette = palette
            return bytes(out)
        self.prev_palette = None
        if n <= 127 and k % 3 == 0:
            out = bytearray([128 + n])
            out += b"".join(cp(c) for c in palette)
            out += palette_runs(runs, index)
            self.prev_palette = palette
            self.note("palette-rle")
            return bytes(out)
        if k % 3 == 1 or len(runs) * 2 < w * h:
            out = bytearray([128])
            for c, length in runs:
                out += cp(c) + run_length(length)
            self.note("rle")
            return bytes(out)
        self.note("raw")
        return bytes([0]) + b"".join(cp(c) for c in pix)

    def rect(self, img, rx, ry, rw, rh):
        w, h, rgb = img
        px = self.fmt.pixel
        out = bytearray(struct.pack(">HHHHi", rx, ry, rw, rh, TRLE))
        # Each rectangle starts without a previous palette.
        self.prev_palette = None
        for ty in range(ry, ry + rh, 16):
            for tx in range(rx, rx + rw, 16):
                tw, th = min(16, rx + rw - tx), min(16, ry + rh - ty)
                pix = []
                for y in range(ty, ty + th):
                    o = (y * w + tx) * 3
                    row = rgb[o:o + tw * 3]
                    pix += [px(row[i], row[i + 1], row[i + 2])
                            for i in range(0, tw * 3, 3)]
                out += self.tile(pix, tw, th)
        return bytes(out)


class TrleServer(vt.ScriptServer):
    def __init__(self, img):
        self.img = img
        self.lock = threading.Condition()
        self.pending = None     # (x, y, w, h) to send when asked
        self.wants = False      # a FramebufferUpdateRequest is open
        self.encodings = None
        self.enc = None
        super().__init__()

    def show(self, img, rect):
        """Change the picture; rect is what changed."""
        with self.lock:
            self.img = img
            self.pending = rect
            self._maybe_send()

    def _maybe_send(self):
        if self.wants and self.pending and self.enc:
            x, y, w, h = self.pending
            self.pending = None
            self.wants = False
            data = self.enc.rect(self.img, x, y, w, h)
            self.conn.sendall(struct.pack(">BxH", 0, 1) + data)

    def session(self):
        w, h, _ = self.img
        self.hello(w, h, b"vncfb TRLE test")
        fmt = PixelFormat(vt.pixfmt32())
        while True:
            t = self.read(1)[0]
            if t == 0:
                self.read(3)
                fmt = PixelFormat(self.read(16))
                with self.lock:
                    self.enc = Encoder(fmt)
            elif t == 2:
                self.read(1)
                n = struct.unpack(">H", self.read(2))[0]
                self.encodings = list(struct.unpack(">%di" % n,
                                                    self.read(4 * n)))
                with self.lock:
                    if self.enc is None:
                        self.enc = Encoder(fmt)
            elif t == 3:
                inc, x, y, rw, rh = struct.unpack(">BHHHH", self.read(9))
                with self.lock:
                    self.wants = True
                    if not inc:
                        self.pending = (0, 0, self.img[0], self.img[1])
                    self._maybe_send()
            elif t == 4:
                self.read(7)
            elif t == 5:
                self.read(5)
            elif t == 6:
                self.read(3)
                self.read(struct.unpack(">I", self.read(4))[0])
            else:
                raise ValueError("unknown client message %d" % t)


def main(tmp):
    fmt = sys.argv[1]
    # The pictures: the test server's scene and two patches of it.
    srv = vt.Server(tmp, "--size", "320x240")
    try:
        pics = [srv.dump()]
        for cmd in ("step 1", "step 2", "step 3"):
            srv.send(cmd)
            pics.append(srv.dump())
    finally:
        srv.close()
    sw, sh, _ = pics[0]

    trle = TrleServer(pics[0])
    cl = vt.Vncfb(tmp, ["-o", "mem:%dx%d:%s" % (OW, OH, fmt),
                        "--encodings", "trle",
                        "127.0.0.1::%d" % trle.port])
    try:
        def expect(img, what):
            want = vt.compose(vt.quantise(img, fmt), OW, OH)

            def check(got):
                if trle.error:
                    raise vt.Fail("TRLE server: %s" % trle.error)
                return vt.diff(got, want)
            cl.wait_until(check, what=what)
            vt.log("ok: %s" % what)

        expect(pics[0], "first picture")
        if TRLE not in (trle.encodings or []):
            raise vt.Fail("vncfb did not offer TRLE: %s" % trle.encodings)
        for i, img in enumerate(pics[1:], 1):
            # The changed area: rows and columns that differ.
            prev = pics[i - 1]
            rows = [y for y in range(sh)
                    if prev[2][y * sw * 3:(y + 1) * sw * 3] !=
                    img[2][y * sw * 3:(y + 1) * sw * 3]]
            cols = [x for x in range(sw)
                    if any(prev[2][(y * sw + x) * 3:(y * sw + x) * 3 + 3] !=
                           img[2][(y * sw + x) * 3:(y * sw + x) * 3 + 3]
                           for y in rows)]
            # An odd origin makes partial tiles at both edges.
            x0, y0 = min(cols) | 1, min(rows) | 1
            x0, y0 = min(x0, min(cols)), min(y0, min(rows))
            rect = (x0, y0, max(cols) + 1 - x0, max(rows) + 1 - y0)
            trle.show(img, rect)
            expect(img, "patch %d %s" % (i, rect))
        used = dict(trle.enc.used)
        vt.log("subencodings used: %s" % used)
        need = {"raw", "solid", "packed-1", "packed-2", "packed-4", "rle",
                "palette-rle", "palette-reuse", "palette-rle-reuse"}
        if not need <= set(used):
            raise vt.Fail("subencodings never used: %s"
                          % sorted(need - set(used)))
        rc = cl.terminate()
        if rc != 0:
            raise vt.Fail("vncfb exited %d: %s" % (rc, cl.stderr()))
        vt.log("ok: exit 0")
    finally:
        cl.kill()
        trle.close()


if __name__ == "__main__":
    vt.main(main)
