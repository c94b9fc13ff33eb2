#!/usr/bin/env python3
"""Makes the certificates test_tls_cycles needs (openssl, in a scratch
directory) and runs it there: PROGRAM [CYCLES [RSS-SLACK-KIB]]."""
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import certs  # noqa: E402


def main():
    if not shutil.which("openssl"):
        print("SKIP: openssl not installed (package openssl)",
              file=sys.stderr)
        return 77
    with tempfile.TemporaryDirectory() as d:
        certs.make_certs(d)
        return subprocess.run(
            [sys.argv[1], d, *sys.argv[2:]], timeout=240).returncode


if __name__ == "__main__":
    sys.exit(main())
