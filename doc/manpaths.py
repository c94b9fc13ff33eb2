#!/usr/bin/env python3
"""Write the man page with the build's version and install paths.

usage: manpaths.py IN OUT NAME=VALUE...

The source page defines each as a troff string (`.ds sysconfdir
/usr/local/etc`) holding a default build's value, so that it reads well
from the source tree too; this replaces the value of each NAME given and
fails when the page lacks one.
"""
import re
import sys


def main(argv):
    if len(argv) < 4:
        sys.exit(__doc__.strip().splitlines()[2])
    src, dst, pairs = argv[1], argv[2], argv[3:]
    with open(src, encoding="utf-8") as f:
        text = f.read()
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            sys.exit(f"manpaths.py: expected NAME=VALUE, got '{pair}'")
        text, n = re.subn(rf"^\.ds {re.escape(name)} .*$",
                          lambda m: f".ds {name} {value}", text,
                          flags=re.M)
        if n != 1:
            sys.exit(f"manpaths.py: {src} has {n} '.ds {name}' lines, "
                     "expected 1")
    with open(dst, "w", encoding="utf-8") as f:
        f.write(text)


if __name__ == "__main__":
    main(sys.argv)
