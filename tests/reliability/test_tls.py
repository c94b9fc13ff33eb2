#!/usr/bin/env python3
"""TLS (VeNCrypt) against TigerVNC's Xvnc on loopback with certificates
made here by a throw-away CA: verified X509 connects; a certificate from
another CA, a wrong host name, and anonymous TLS are refused with one line
and exit 1 (never retried); --insecure accepts anonymous TLS with a
warning; --ca refuses a server without TLS.
"""
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

VNCFB = os.environ["VNCFB"]
failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print("FAIL:", msg, file=sys.stderr)


def sh(*args, cwd):
    subprocess.run(args, cwd=cwd, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)


def make_certs(d):
    def req(name, subj):
        sh("openssl", "req", "-newkey", "rsa:2048", "-nodes", "-keyout",
           f"{name}.key", "-out", f"{name}.csr", "-subj", subj, cwd=d)

    for ca in ("ca", "other"):
        sh("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes",
           "-keyout", f"{ca}.key", "-out", f"{ca}.crt", "-days", "2",
           "-subj", f"/CN=vncfb test {ca}", cwd=d)
    for name, san in (("srv", "IP:127.0.0.1,DNS:localhost"),
                      ("wrong", "DNS:wrong.example")):
        req(name, "/CN=" + name)
        with open(os.path.join(d, name + ".ext"), "w") as f:
            f.write(f"subjectAltName={san}\n")
        sh("openssl", "x509", "-req", "-in", f"{name}.csr", "-CA", "ca.crt",
           "-CAkey", "ca.key", "-CAcreateserial", "-out", f"{name}.crt",
           "-days", "2", "-extfile", f"{name}.ext", cwd=d)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


class Xvnc:
    def __init__(self, d, sectypes, cert="srv"):
        self.port = free_port()
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


def run(d, port, *extra, host="127.0.0.1"):
    r = subprocess.run([VNCFB, "-q", "-o", "mem:64x48", "--exit-after", "1",
                        *extra, f"{host}::{port}"], capture_output=True,
                       text=True, timeout=60, cwd=d)
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
            rc, err = run(d, x.port)
            check(rc == 1 and "TLS with" in err,
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

        x = Xvnc(d, "TLSNone")
        try:
            rc, err = run(d, x.port)
            check(rc == 1 and "anonymous TLS" in err,
                  f"anonymous TLS by default: exit {rc}: {err}")
            rc, err = run(d, x.port, "--insecure")
            check(rc == 0 and "warning" in err and "--insecure" in err,
                  f"--insecure: exit {rc}: {err}")
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
