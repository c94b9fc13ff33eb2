"""Throw-away certificates for the TLS tests, made with openssl in a
scratch directory: two CAs (ca, other), a server certificate from ca for
127.0.0.1 and localhost (srv), one from ca for another name (wrong), and a
self-signed server certificate for 127.0.0.1 (self)."""
import os
import subprocess


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
    sh("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes",
       "-keyout", "self.key", "-out", "self.crt", "-days", "2",
       "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
       cwd=d)
