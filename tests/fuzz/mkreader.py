#!/usr/bin/env python3
"""Write the reader fuzz target's seeds (tests/fuzz/reader.c) into
tests/fuzz/reader-corpus: every session input of tests/fuzz/corpus and
tests/fuzz/regress whose handshake is the plain one (RFB 3.8, security
type None), cut after ServerInit into the reader's layout: a format byte,
the desktop's width and height, the server's messages. Run by hand after
changing the session inputs; the output is committed.
"""
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# The session harness's output formats (harness.c) as the reader
# target's: rgb888 outputs get an xrgb8888 shadow.
FORMAT = {0: 0, 1: 1, 2: 2, 3: 0}


def convert(data):
    fmt, s = data[0] & 3, data[1:]
    if not s.startswith(b"RFB 003.008\n") or len(s) < 14:
        return None
    n = s[12]
    if n == 0 or 1 not in s[13:13 + n]:
        return None
    p = 13 + n + 4                      # security types, result
    if len(s) < p + 24:
        return None
    w, h = struct.unpack(">HH", s[p:p + 4])
    (namelen,) = struct.unpack(">I", s[p + 20:p + 24])
    p += 24 + namelen
    if p > len(s):
        return None
    return bytes([FORMAT[fmt]]) + struct.pack(">HH", w, h) + s[p:]


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        HERE, "reader-corpus")
    os.makedirs(out, exist_ok=True)
    for d in ("corpus", "regress"):
        for name in sorted(os.listdir(os.path.join(HERE, d))):
            if name == "EXPECT" or name.endswith(".md"):
                continue
            with open(os.path.join(HERE, d, name), "rb") as f:
                r = convert(f.read())
            if r is not None:
                with open(os.path.join(out, name), "wb") as f:
                    f.write(r)


if __name__ == "__main__":
    main()
