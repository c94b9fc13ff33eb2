#!/usr/bin/env python3
"""TLS (VeNCrypt) against TigerVNC's Xvnc on loopback with certificates
made here by a throw-away CA: verified X509 connects; a certificate from
another CA, a wrong host name, and anonymous TLS are refused with one line
and exit 1 (never retried); --insecure accepts anonymous TLS with a
warning; --ca refuses a server without TLS. A self-signed X509 server:
recorded in the known-hosts store on first contact and accepted from
it (no terminal), refused under a --ca that did not sign it, verified with --ca naming its certificate, accepted
with --insecure and a one-line warning naming what the check found and
the certificate's SHA-256 fingerprint, verified (no warning) with both.
"""
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
from testlib import free_port  # noqa: E402

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from certs import make_certs  # noqa: E402

VNCFB = os.environ["VNCFB"]
failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print("FAIL:", msg, file=sys.stderr)


class Xvnc:
    def __init__(self, d, sectypes, cert="srv"):
        s, self.port = free_port()
        s.close()
        args = ["Xvnc", "-displayfd", "1", "-rfbport", str(self.port),
                "-localhost", "-interface", "127.0.0.1", "-nolisten", "tcp",
                "-geometry", "64x48", "-depth", "24",
                "-SecurityTypes", sectypes]
        if "X509" in sectypes:
            args += ["-X509Cert", os.path.join(d, cert + ".crt"),
                     "-X509Key", os.path.join(d, cert + ".key")]
        self.log = open(os.path.join(d, "xvnc.log"), "a")
        self.p = subprocess.Popen(args, stdout=subprocess.PIPE,
                                  stderr=self.log, text=True)
        line = self.p.stdout.readline()
        if not line.strip().isdigit():
            raise SystemExit("Xvnc did not start; see xvnc.log")
        self.display = ":" + line.strip()
        end = time.monotonic() + 10
        while time.monotonic() < end:
            try:
                socket.create_connection(("127.0.0.1", self.port), 1).close()
                break
            except OSError:
                time.sleep(0.1)

    def stop(self):
        self.p.terminate()
        self.p.wait()
        self.log.close()


def run(d, port, *extra, host="127.0.0.1", store="store"):
    """vncfb with no terminal and the known-hosts store of its own
    config home under d (store names it)."""
    env = dict(os.environ, XDG_CONFIG_HOME=os.path.join(d, store))
    r = subprocess.run([VNCFB, "-q", "-o", "mem:64x48", "--exit-after", "1",
                        *extra, f"{host}::{port}"], capture_output=True,
                       text=True, timeout=60, cwd=d, env=env,
                       stdin=subprocess.DEVNULL, start_new_session=True)
    return r.returncode, r.stderr.strip()


def main():
    for tool in ("Xvnc", "openssl"):
        if not shutil.which(tool):
            print(f"SKIP: {tool} not installed (packages "
                  "tigervnc-standalone-server, openssl)", file=sys.stderr)
            return 77
    with tempfile.TemporaryDirectory() as d:
        make_certs(d)
        x = Xvnc(d, "X509None")
        try:
            rc, err = run(d, x.port, "--ca", "ca.crt")
            check(rc == 0, f"verified X509: exit {rc}: {err}")
            rc, err = run(d, x.port, "--ca", "ca.crt", host="localhost")
            check(rc == 0, f"verified X509 by name: exit {rc}: {err}")
            rc, err = run(d, x.port, "--ca", "other.crt")
            check(rc == 1 and "not trusted" in err and
                  err.count("\n") == 0,
                  f"other CA: exit {rc}, want 1 and one line: {err}")
            # No CA of the system's vouches: the known-hosts store
            # (first contact, no terminal: recorded with a warning).
            rc, err = run(d, x.port, store="private")
            check(rc == 0 and "first contact" in err,
                  f"system CAs for a private CA: exit {rc}: {err}")
            rc, err = run(d, x.port, "--ca", "ca.crt", "--insecure")
            check(rc == 0, f"--ca with --insecure: exit {rc}: {err}")
        finally:
            x.stop()

        x = Xvnc(d, "X509None", cert="wrong")
        try:
            rc, err = run(d, x.port, "--ca", "ca.crt")
            check(rc == 1 and "does not match" in err,
                  f"wrong host name: exit {rc}: {err}")
        finally:
            x.stop()

        x = Xvnc(d, "X509None", cert="self")
        try:
            out = subprocess.run(
                ["openssl", "x509", "-in", "self.crt", "-noout",
                 "-fingerprint", "-sha256"], cwd=d, capture_output=True,
                text=True, check=True).stdout
            fp = out.strip().split("=")[1].replace(":", "").lower()
            peer = f"127.0.0.1:{x.port}"
            store = os.path.join(d, "self", "vncfb", "known_hosts")
            rc, err = run(d, x.port, store="self")
            check(rc == 0 and err == f"vncfb: warning: {peer}: first "
                  f"contact, certificate SHA256:{fp} trusted and recorded "
                  f"in {store}:1",
                  f"self-signed, no options: exit {rc}: {err}")
            rc, err = run(d, x.port, store="self")
            check(rc == 0 and err == "",
                  f"self-signed, known: exit {rc}: {err}")
            rc, err = run(d, x.port, "--ca", "ca.crt", store="self")
            check(rc == 1 and "not trusted" in err,
                  f"self-signed, known, but --ca: exit {rc}: {err}")
            rc, err = run(d, x.port, "--ca", "self.crt")
            check(rc == 0 and err == "",
                  f"self-signed with --ca: exit {rc}: {err}")
            warning = (f"vncfb: warning: {peer}: TLS certificate accepted "
                       "without verification (--insecure): The certificate "
                       "is NOT trusted. The certificate issuer is unknown; "
                       f"SHA-256 {fp}")
            rc, err = run(d, x.port, "--insecure")
            check(rc == 0 and err == warning,
                  f"self-signed with --insecure: exit {rc}: {err}")
            rc, err = run(d, x.port, "--ca", "self.crt", "--insecure")
            check(rc == 0 and err == "",
                  f"self-signed with --ca and --insecure: exit {rc}: {err}")
            rc, err = run(d, x.port, "--ca", "other.crt", "--insecure")
            check(rc == 0 and err == warning,
                  f"another CA with --insecure: exit {rc}: {err}")
        finally:
            x.stop()

        x = Xvnc(d, "TLSNone")
        try:
            rc, err = run(d, x.port)
            check(rc == 1 and "anonymous TLS" in err,
                  f"anonymous TLS by default: exit {rc}: {err}")
            rc, err = run(d, x.port, "--insecure")
            check(rc == 0 and "warning" in err and "--insecure" in err,
                  f"--insecure: exit {rc}: {err}")
            # Hextile, which vncfb reads in large pieces past
            # libvncclient's buffer where there is no TLS, through TLS:
            # the same picture as raw.
            if shutil.which("xsetroot"):
                subprocess.run(["xsetroot", "-display", x.display, "-mod",
                                "3", "5", "-fg", "#c02040", "-bg",
                                "#20a0e0"], check=True, timeout=30)
                shots = []
                for enc in ("raw", "hextile"):
                    shot = os.path.join(d, enc + ".ppm")
                    rc, err = run(d, x.port, "--insecure", "--encodings",
                                  enc, "--screenshot", shot)
                    check(rc == 0, f"{enc} through TLS: exit {rc}: {err}")
                    with open(shot, "rb") as f:
                        shots.append(f.read())
                check(shots[0] == shots[1] and len(set(shots[0][-600:])) > 2,
                      "hextile through TLS draws another picture than raw")
        finally:
            x.stop()

        x = Xvnc(d, "None")
        try:
            rc, err = run(d, x.port, "--ca", "ca.crt")
            check(rc == 1 and ("TLS" in err or "security" in err),
                  f"--ca against a server without TLS: exit {rc}: {err}")
            rc, err = run(d, x.port)
            check(rc == 0, f"plain server by default: exit {rc}: {err}")
        finally:
            x.stop()
    if failures:
        return 1
    print("tls: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
