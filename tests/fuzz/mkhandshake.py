#!/usr/bin/env python3
"""Write the handshake target's seeds and regression cases into
tests/fuzz/handshake, with their EXPECT lines.

Each case is a handshake fuzz input (harness.h): one settings byte (pixel
format in the low bits, FUZZ_HS_* above), then exactly what the server
sends: version, security types, VeNCrypt version and sub-types, TLS
records, VNC authentication, reasons, ServerInit and the desktop name.
The fuzzer starts from these; the replay test checks what vncfb makes of
each. Run by hand after changing a case; the output is committed.
"""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
from testlib import pixfmt32  # noqa: E402

INSECURE, CA, NOPASS, VIEWONLY = 0x04, 0x08, 0x10, 0x20

NONE, VNCAUTH, TLS, VENCRYPT = 1, 2, 18, 19
PLAIN, TLSNONE, TLSVNC, TLSPLAIN = 256, 257, 258, 259
X509NONE, X509VNC, X509PLAIN = 260, 261, 262


def u32(n):
    return struct.pack(">I", n)


def server_init(w=64, h=48, name=b"fuzz", fmt=None, length=None):
    n = len(name) if length is None else length
    return struct.pack(">HH", w, h) + (fmt or pixfmt32()) + u32(n) + name


def reason(text, length=None):
    return u32(len(text) if length is None else length) + text


V38, V37, V33 = b"RFB 003.008\n", b"RFB 003.007\n", b"RFB 003.003\n"
CHALLENGE = bytes(range(16))
# A TLS record that is not a ServerHello: the handshake fails in GnuTLS.
TLS_JUNK = b"\x16\x03\x03\x00\x04\x0e\x00\x00\x00" + b"\x15" * 8
ESC = b"\x1b]0;pwned\x07\x1b[2J\nvncfb: connected to x (\"y\", 1x1)"


def vencrypt(subtypes, ack=1, version=(0, 2), status=0, then=TLS_JUNK):
    """VeNCrypt up to the ack; a case for a sub-type without TLS (None,
    VNC authentication, Plain) drops the ack, which then never comes."""
    s = V38 + bytes([1, VENCRYPT]) + bytes(version) + bytes([status])
    s += bytes([len(subtypes)]) + b"".join(u32(t) for t in subtypes)
    return s + bytes([ack]) + then


CASES = [
    # name, settings, server bytes, expectation
    ("v38-none", 0, V38 + b"\x01\x01" + u32(0) + server_init(),
     "connected=1 error=ok size=64x48"),
    ("v38-none-16bpp", 1, V38 + b"\x01\x01" + u32(0) + server_init(),
     "connected=1 error=ok size=64x48"),
    ("v37-none", 0, V37 + b"\x01\x01" + server_init(),
     "connected=1 error=ok size=64x48"),
    ("v33-none", 0, V33 + u32(NONE) + server_init(),
     "connected=1 error=ok size=64x48"),
    ("v38-vncauth-ok", 0,
     V38 + b"\x01\x02" + CHALLENGE + u32(0) + server_init(),
     "connected=1 error=ok size=64x48"),
    ("v38-vncauth-fail-reason", 0,
     V38 + b"\x01\x02" + CHALLENGE + u32(1) + reason(ESC),
     "connected=0 error=auth"),
    ("v37-vncauth-fail", 0, V37 + b"\x01\x02" + CHALLENGE + u32(1),
     "connected=0 error=auth"),
    ("v38-vncauth-toomany", 0, V37 + b"\x01\x02" + CHALLENGE + u32(2),
     "connected=0 error=auth"),
    ("v38-vncauth-nopass", NOPASS, V38 + b"\x01\x02" + CHALLENGE,
     "connected=0 error=auth"),
    ("v33-vncauth-ok", 0, V33 + u32(VNCAUTH) + CHALLENGE + u32(0) +
     server_init(), "connected=1 error=ok size=64x48"),
    ("v38-refused-reason", 0, V38 + b"\x00" + reason(ESC),
     "connected=0 error=protocol"),
    ("v33-refused-reason", 0, V33 + u32(0) + reason(b"go away\r\n"),
     "connected=0 error=protocol"),
    ("v38-reason-huge-length", 0, V38 + b"\x00" + u32(0xffffffff) + b"r",
     "connected=0 error=protocol"),
    ("v38-types-unknown", 0, V38 + b"\x03\x05\x10\x1e",
     "connected=0 error=protocol"),
    ("v38-ca-plain-server", CA, V38 + b"\x01\x01" + u32(0) + server_init(),
     "connected=0 error=protocol"),
    ("version-junk", 0, b"RFB\x1b]0;x\x07\x9b2J\n",
     "connected=0 error=protocol"),
    # Found reviewing classify_failure: the junk was taken for a
    # password failure (never retried, "wrong password?").
    ("version-says-password", 0, b"RFB password",
     "connected=0 error=protocol"),
    ("version-says-certificate", 0, b"certificate\n",
     "connected=0 error=protocol"),
    ("version-3.889", 0, b"RFB 003.889\n" + b"\x01\x01" + u32(0) +
     server_init(), "connected=1 error=ok size=64x48"),
    ("version-4.0", 0, b"RFB 004.000\n" + b"\x01\x01" + u32(0) +
     server_init(), "connected=1 error=ok size=64x48"),
    ("version-ultravnc-3.4", 0, b"RFB 003.004\n" + u32(NONE) +
     server_init(), "connected=1 error=ok size=64x48"),
    ("version-tightvnc-3.5", 0, b"RFB 003.005\n" + u32(NONE) +
     server_init(), "connected=1 error=ok size=64x48"),
    ("version-singleclick-3.14", 0, b"RFB 003.014\n" + u32(NONE) +
     server_init(), "connected=1 error=ok size=64x48"),
    ("name-escapes", 0, V38 + b"\x01\x01" + u32(0) +
     server_init(name=ESC), "connected=1 error=ok size=64x48"),
    ("name-5000", 0, V38 + b"\x01\x01" + u32(0) +
     server_init(name=b"A" * 2500 + b"\x9b" + b"B" * 2499),
     "connected=1 error=ok size=64x48"),
    ("name-nul", 0, V38 + b"\x01\x01" + u32(0) +
     server_init(name=b"a\x00\x1b[2J"), "connected=1 error=ok size=64x48"),
    ("name-huge-length", 0, V38 + b"\x01\x01" + u32(0) +
     server_init(name=b"x", length=0xffffffff),
     "connected=0 error=protocol"),
    ("name-truncated", 0, V38 + b"\x01\x01" + u32(0) +
     server_init(name=b"abc", length=100), "connected=0 error=closed"),
    ("serverinit-0x0", 0, V38 + b"\x01\x01" + u32(0) + server_init(0, 0),
     "connected=0 error=protocol"),
    ("serverinit-16385x1", 0, V38 + b"\x01\x01" + u32(0) +
     server_init(16385, 1), "connected=0 error=resource"),
    ("serverinit-8bpp-format", 2, V38 + b"\x01\x01" + u32(0) +
     server_init(fmt=struct.pack(">BBBBHHHBBB3x", 8, 8, 0, 0, 7, 7, 3,
                                 0, 3, 6)),
     "connected=1 error=ok size=64x48"),
    ("viewonly-none", VIEWONLY, V38 + b"\x01\x01" + u32(0) + server_init(),
     "connected=1 error=ok size=64x48"),
    # VeNCrypt: sub-type negotiation, then TLS that GnuTLS rejects.
    ("vencrypt-x509none", 0, vencrypt([X509NONE]),
     "connected=0 error=protocol"),
    ("vencrypt-x509none-ca", CA, vencrypt([X509NONE]),
     "connected=0 error=protocol"),
    ("vencrypt-x509vnc-insecure", INSECURE, vencrypt([X509VNC]),
     "connected=0 error=protocol"),
    ("vencrypt-tlsnone-refused", 0, vencrypt([TLSNONE]),
     "connected=0 error=protocol"),
    ("vencrypt-tlsnone-insecure", INSECURE, vencrypt([TLSNONE]),
     "connected=0 error=protocol"),
    ("vencrypt-tlsvnc-insecure-ca", INSECURE | CA, vencrypt([TLSVNC]),
     "connected=0 error=protocol"),
    ("vencrypt-plain", 0, vencrypt([PLAIN], then=b""),
     "connected=0 error=protocol"),
    ("vencrypt-x509plain", CA, vencrypt([X509PLAIN]),
     "connected=0 error=protocol"),
    ("vencrypt-tlsplain-insecure", INSECURE, vencrypt([TLSPLAIN]),
     "connected=0 error=protocol"),
    ("vencrypt-many-subtypes", INSECURE,
     vencrypt([1, 2, PLAIN, TLSNONE, TLSVNC, X509NONE, X509VNC, 9999]),
     "connected=0 error=protocol"),
    ("vencrypt-subtype-none", 0,
     vencrypt([NONE], then=b"")[:-1] + u32(0) + server_init(),
     "connected=1 error=ok size=64x48"),
    ("vencrypt-subtype-vncauth", 0,
     vencrypt([VNCAUTH], then=b"")[:-1] + CHALLENGE + u32(0) +
     server_init(), "connected=1 error=ok size=64x48"),
    ("vencrypt-no-subtypes", 0, vencrypt([]),
     "connected=0 error=protocol"),
    ("vencrypt-version-0.1", 0, vencrypt([X509NONE], version=(0, 1)),
     "connected=0 error=protocol"),
    ("vencrypt-status-refused", 0, vencrypt([X509NONE], status=1),
     "connected=0 error=protocol"),
    # Found in the seeds: this was "authentication failed (wrong
    # password?)", with no password asked for.
    ("vencrypt-ack-refused", INSECURE, vencrypt([TLSNONE], ack=0),
     "connected=0 error=protocol"),
    ("anontls-18-insecure", INSECURE, V38 + bytes([1, TLS]) + TLS_JUNK,
     "connected=0 error=protocol"),
    # Without --insecure, VNC authentication is chosen over anonymous TLS
    # (and the junk is its challenge).
    ("anontls-18-refused", 0, V38 + bytes([2, TLS, VNCAUTH]) + TLS_JUNK,
     "connected=0 error=auth"),
]


def main():
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       "handshake")
    os.makedirs(out, exist_ok=True)
    lines = []
    for name, settings, data, expect in CASES:
        with open(os.path.join(out, name), "wb") as f:
            f.write(bytes([settings]) + data)
        lines.append("%s %s\n" % (name, expect))
    with open(os.path.join(out, "EXPECT"), "w") as f:
        f.writelines(lines)
    print("%d cases in %s" % (len(CASES), out))


if __name__ == "__main__":
    main()
