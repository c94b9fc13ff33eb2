"""The Python tests' shared helpers (the C tests' are testlib.h beside
this): loopback ports, binary PPM files, RFB's 32-bit pixel format.

Tests import it with tests/lib on sys.path: meson's test environment puts
it on PYTHONPATH (tests/meson.build); a script also run by hand adds it
itself (sys.path.insert(0, <its folder>/../lib))."""
import re
import socket
import struct


class PpmError(ValueError):
    """Not a binary PPM this module reads, or a truncated one."""


def free_port():
    """A loopback TCP port nobody listens on, as (socket, port): the socket
    keeps it bound (not listening), so nobody else takes it and connect()
    to it is refused. Close the socket before a server of the test's own
    is to listen there."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    return s, s.getsockname()[1]


def read_ppm(path):
    """A binary PPM (P6, maxval 255 or 65535, comments allowed) as
    (width, height, RGB bytes, 8 bits a channel)."""
    with open(path, "rb") as f:
        data = f.read()
    m = re.match(rb"P6(?:\s+|#[^\n]*\n)+(\d+)(?:\s+|#[^\n]*\n)+(\d+)"
                 rb"(?:\s+|#[^\n]*\n)+(\d+)\s", data)
    if not m or m.group(3) not in (b"255", b"65535"):
        raise PpmError("%s: not a P6 PPM with maxval 255 or 65535" % path)
    w, h = int(m.group(1)), int(m.group(2))
    wide = m.group(3) == b"65535"
    n = w * h * 3 * (2 if wide else 1)
    rgb = data[m.end():m.end() + n]
    if len(rgb) != n:
        raise PpmError("%s: truncated PPM" % path)
    if wide:
        # xwdtopnm writes 16-bit samples, v * 257 for 8-bit v.
        rgb = bytes((rgb[i] * 256 + rgb[i + 1] + 128) // 257
                    for i in range(0, n, 2))
    return w, h, rgb


def write_ppm(path, img):
    """img (width, height, RGB bytes) as a binary PPM."""
    w, h, rgb = img
    with open(path, "wb") as f:
        f.write(b"P6\n%d %d\n255\n" % (w, h))
        f.write(rgb)


def pixfmt32():
    """RFB's PIXEL_FORMAT for 32 bits a pixel, depth 24, little-endian,
    true colour, red at bit 16, green 8, blue 0 (xrgb8888)."""
    # bpp, depth, big-endian, true-colour, maxes, shifts, padding
    return struct.pack(">BBBBHHHBBB3x", 32, 24, 0, 1, 255, 255, 255,
                       16, 8, 0)
