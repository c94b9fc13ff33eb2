#!/usr/bin/env python3
"""User names, passwords, the choice of security type and the known-hosts
store, against authserver.py (the project's own VeNCrypt server):

* X509Plain with a self-signed certificate, a fresh config home and no
  terminal: the picture, pixel-exact; the certificate recorded with one
  warning naming its fingerprint (accept-new); the second run silent; a
  changed certificate refused with a non-zero exit naming both
  fingerprints and the store's line, even under --reconnect always, the
  store unchanged; --fingerprint pins one certificate.
* TLSPlain (anonymous TLS) only with --insecure; VeNCrypt Plain (the
  password in the clear) only when --security names it; a server
  offering Plain first still gets X509Plain.
* A wrong password: exit 1, one line with the server's reason, no
  retry; no user name: exit 1 saying how to give one; --password-file
  with the user from VNC_USERNAME; a password file others can read is
  refused before connecting.
* A server offering only types vncfb lacks is named with them by name.
* No run prints the password or the user name, even at -v.
"""
import os
import pty
import select
import shutil
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import vnctest as vt  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
USER = "kiosk-user-7f3a"
PASSWORD = "a long password that VncAuth could not take 4e1c"
W, H = 64, 48


def pattern(x, y):
    if x == y:
        return (255, 255, 255)
    return ((x * 7) & 255, (y * 5) & 255, ((x + y) * 3) & 255)


WANT = bytes(c for y in range(H) for x in range(W) for c in pattern(x, y))


class Srv:
    def __init__(self, *args, port=0):
        self.p = subprocess.Popen(
            [sys.executable, os.path.join(HERE, "authserver.py"),
             "--user", USER, "--password", PASSWORD, "--size",
             "%dx%d" % (W, H), "--port", str(port), *args],
            stdout=subprocess.PIPE, text=True)
        line = self.p.stdout.readline()
        if not line.startswith("PORT "):
            raise vt.Fail("authserver did not start: %r" % line)
        self.port = int(line.split()[1])
        self.out = vt.LineReader(self.p.stdout)

    def close(self):
        self.p.kill()
        self.p.wait()


class Run:
    """vncfb to completion with no terminal, a config home of the test's
    own, and a screenshot at the end."""

    def __init__(self, tmp, home, port, *args, env=None, verbose=False,
                 shot=None):
        shot = shot or tmp("shot.ppm")
        if os.path.exists(shot):
            os.unlink(shot)
        e = {"HOME": home, "XDG_CONFIG_HOME": os.path.join(home, "cfg")}
        for k in ("VNC_USERNAME", "VNC_PASSWORD"):
            os.environ.pop(k, None)
        e.update(env or {})
        t0 = time.monotonic()
        self.rc, self.out = vt.run_vncfb(
            ["-o", "mem:%dx%d" % (W, H), "--exit-after", "2",
             "--screenshot", shot, *(["-v"] if verbose else []), *args,
             "127.0.0.1::%d" % port], env=e, quiet=not verbose)
        self.secs = time.monotonic() - t0
        self.shot = shot
        if PASSWORD in self.out or USER in self.out:
            raise vt.Fail("a credential in vncfb's output: %r" % self.out)
        vt.log("  exit %d: %s" % (self.rc, self.out.strip()[-300:]))

    def picture(self, what):
        if self.rc != 0:
            raise vt.Fail("%s: exit %d: %s" % (what, self.rc, self.out))
        w, h, rgb = vt.read_ppm(self.shot)
        if (w, h) != (W, H) or rgb != WANT:
            bad = sum(1 for i in range(0, len(WANT), 3)
                      if rgb[i:i + 3] != WANT[i:i + 3])
            raise vt.Fail("%s: picture differs (%d pixels)" % (what, bad))

    def refused(self, what, rc, *words):
        if self.rc != rc:
            raise vt.Fail("%s: exit %d, expected %d: %s"
                          % (what, self.rc, rc, self.out))
        lines = [l for l in self.out.splitlines() if l.strip()]
        if len(lines) != 1:
            raise vt.Fail("%s: expected one line, got %r" % (what, lines))
        for w in words:
            if w not in lines[0]:
                raise vt.Fail("%s: %r not in %r" % (what, w, lines[0]))


def on_terminal(home, port, answer):
    """vncfb on a pseudo-terminal: the first-contact question answered
    with answer; (exit status, what the terminal showed)."""
    env = {"HOME": home, "XDG_CONFIG_HOME": os.path.join(home, "cfg"),
           "VNCFB_PASSWORD": PASSWORD, "PATH": os.environ.get("PATH", ""),
           "VNCFB_SYSTEM_CONFIG": os.environ.get("VNCFB_SYSTEM_CONFIG",
                                                 "")}
    pid, fd = pty.fork()
    if pid == 0:
        os.execve(vt.VNCFB, [vt.VNCFB, "-q", "-o", "mem:%dx%d" % (W, H),
                             "--exit-after", "2", "--username", USER,
                             "127.0.0.1::%d" % port], env)
    seen, answered = b"", False
    end = time.monotonic() + 30
    while time.monotonic() < end:
        r, _, _ = select.select([fd], [], [], 0.5)
        if not r:
            continue
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
        if not answered and b"(yes/no)? " in seen:
            os.write(fd, answer.encode() + b"\n")
            answered = True
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    text = seen.decode("utf-8", "replace")
    vt.log("  on a terminal, answered %s: exit %d: %r"
           % (answer, os.waitstatus_to_exitcode(status), text[-300:]))
    if PASSWORD in text or USER in text:
        raise vt.Fail("a credential on the terminal: %r" % text)
    return os.waitstatus_to_exitcode(status), text


def test(tmp):
    for tool in ("openssl",):
        if subprocess.run(["which", tool], capture_output=True).returncode:
            vt.log("SKIP: no %s" % tool)
            return vt.SKIP
    d = tmp("")
    fp1 = vt.self_signed(d, "one")
    fp2 = vt.self_signed(d, "two")
    home = tmp("home")
    os.mkdir(home)
    store = os.path.join(home, "cfg", "vncfb", "known_hosts")
    creds = {"VNCFB_PASSWORD": PASSWORD}
    user = ["--username", USER]

    vt.log("X509Plain, self-signed, first contact without a terminal")
    srv = Srv("--sub", "262", "--cert", tmp("one.crt"), "--key",
              tmp("one.key"))
    port = srv.port
    try:
        r = Run(tmp, home, port, *user, env=creds)
        r.picture("X509Plain first contact")
        warn = [l for l in r.out.splitlines() if "first contact" in l]
        if len(warn) != 1 or fp1 not in warn[0]:
            raise vt.Fail("no one warning naming %s: %r" % (fp1, r.out))
        with open(store) as f:
            text = f.read()
        if text != "127.0.0.1:%d %s\n" % (port, fp1):
            raise vt.Fail("store holds %r" % text)
        srv.out.expect("AUTH 262 %s ok" % USER)

        if os.geteuid() == 0:
            vt.log("root becoming nobody: the store opened before")
            state = tmp("state")
            os.mkdir(state, 0o700)
            # Where nobody may write its screenshot.
            shots = tempfile.mkdtemp(prefix="vncfb-login-")
            os.chmod(shots, 0o777)
            kh = os.path.join(state, "known_hosts")
            for n in (1, 2):
                r = Run(tmp, home, port, *user, "--user", "nobody",
                        "--known-hosts", kh, env=creds,
                        shot=os.path.join(shots, "shot.ppm"))
                r.picture("--user nobody, run %d" % n)
                if (n == 1) != ("first contact" in r.out):
                    raise vt.Fail("--user nobody, run %d: %r" % (n, r.out))
            shutil.rmtree(shots, ignore_errors=True)
            with open(kh) as f:
                if f.read() != "127.0.0.1:%d %s\n" % (port, fp1):
                    raise vt.Fail("--known-hosts not written")

        vt.log("--check-config shows the store")
        rc, out = vt.run_vncfb(["--check-config", "127.0.0.1::%d" % port],
                               env={"HOME": home, "XDG_CONFIG_HOME":
                                    os.path.join(home, "cfg")},
                               quiet=False)
        if rc != 0 or "known hosts: " + store not in out or \
                "127.0.0.1:%d %s" % (port, fp1) not in out:
            raise vt.Fail("--check-config: exit %d: %s" % (rc, out))

        vt.log("first contact on a terminal: asked")
        thome = tmp("thome")
        os.mkdir(thome)
        tstore = os.path.join(thome, "cfg", "vncfb", "known_hosts")
        rc, text = on_terminal(thome, port, "no")
        if rc != 1 or fp1 not in text or "(yes/no)" not in text or \
                os.path.exists(tstore):
            raise vt.Fail("answered no: exit %d, %r" % (rc, text))
        rc, text = on_terminal(thome, port, "yes")
        if rc != 0 or fp1 not in text or not os.path.exists(tstore):
            raise vt.Fail("answered yes: exit %d, %r" % (rc, text))

        vt.log("the same certificate again: silent")
        r = Run(tmp, home, port, *user, env=creds)
        r.picture("X509Plain known")
        if r.out.strip():
            raise vt.Fail("known certificate: said %r" % r.out)

        vt.log("--fingerprint: the right one, a wrong one")
        r = Run(tmp, home, port, *user, "--fingerprint", fp1.upper()
                .replace("SHA256", "SHA256"), env=creds)
        r.picture("--fingerprint right")
        r = Run(tmp, home, port, *user, "--fingerprint",
                fp2, "--reconnect", "always", env=creds)
        r.refused("--fingerprint wrong", 1, fp1, fp2)

        vt.log("wrong password: the server's reason, exit 1, no retry")
        r = Run(tmp, home, port, *user, "--reconnect", "always",
                env={"VNCFB_PASSWORD": PASSWORD + "x"})
        r.refused("wrong password", 1, "wrong user name or password "
                  "(vncfb test)")

        vt.log("no user name, no terminal")
        r = Run(tmp, home, port, env=creds)
        r.refused("no user name", 1, "--username")

        vt.log("--password-file, user from VNC_USERNAME, -v")
        pf = tmp("pw")
        with open(pf, "w") as f:
            f.write(PASSWORD + "\nsecond line\n")
        os.chmod(pf, 0o644)
        r = Run(tmp, home, port, "--password-file", pf,
                env={"VNC_USERNAME": USER})
        r.refused("--password-file 644", 2, "chmod 600")
        os.chmod(pf, 0o600)
        r = Run(tmp, home, port, "--password-file", pf, verbose=True,
                env={"VNC_USERNAME": USER})
        r.picture("--password-file")
        if "X509Plain" not in r.out:
            raise vt.Fail("-v does not name the type chosen: %r" % r.out)
    finally:
        srv.close()

    vt.log("the certificate changed: refused, store unchanged")
    srv = Srv("--sub", "262", "--cert", tmp("two.crt"), "--key",
              tmp("two.key"), port=port)
    try:
        with open(store) as f:
            before = f.read()
        r = Run(tmp, home, port, *user, "--reconnect", "always",
                env=creds)
        r.refused("changed certificate", 1, fp1, fp2, store + ":1",
                  "127.0.0.1:%d" % port)
        if r.secs > 10:
            raise vt.Fail("changed certificate: took %.1f s (a retry?)"
                          % r.secs)
        with open(store) as f:
            if f.read() != before:
                raise vt.Fail("the store changed")
    finally:
        srv.close()

    vt.log("Plain offered first: X509Plain chosen; Plain alone refused "
           "unless named")
    srv = Srv("--sub", "256,262", "--cert", tmp("one.crt"), "--key",
              tmp("one.key"))
    try:
        r = Run(tmp, home, srv.port, *user, "--fingerprint", fp1,
                env=creds)
        r.picture("Plain and X509Plain")
        srv.out.expect("AUTH 262 ")
    finally:
        srv.close()
    srv = Srv("--sub", "256")
    try:
        r = Run(tmp, home, srv.port, *user, env=creds)
        r.refused("Plain by default", 1, "Plain (256)", "--security Plain")
        r = Run(tmp, home, srv.port, *user, "--security", "Plain",
                env=creds)
        r.picture("--security Plain")
        srv.out.expect("AUTH 256 %s ok" % USER)
        # --ca wants X509 TLS, even where --security names Plain.
        r = Run(tmp, home, srv.port, *user, "--ca", tmp("one.crt"),
                "--security", "Plain", env=creds)
        r.refused("--ca against Plain", 1, "--ca requires X509 TLS")
    finally:
        srv.close()

    vt.log("TLSPlain: anonymous TLS only with --insecure")
    srv = Srv("--sub", "259")
    try:
        r = Run(tmp, home, srv.port, *user, env=creds)
        r.refused("TLSPlain by default", 1, "TLSPlain (259)", "--insecure")
        r = Run(tmp, home, srv.port, *user, "--insecure", env=creds)
        r.picture("TLSPlain --insecure")
    finally:
        srv.close()

    for top, name in ((30, "DH"), (113, "MSLogonII")):
        vt.log("%s (%d) with a user name" % (name, top))
        srv = Srv("--types", str(top))
        try:
            r = Run(tmp, home, srv.port, *user, env=creds)
            r.picture(name)
            srv.out.expect("AUTH %d %s ok" % (top, USER))
            r = Run(tmp, home, srv.port, *user,
                    env={"VNCFB_PASSWORD": "wrong"})
            r.refused(name + " wrong password", 1,
                      "wrong user name or password (vncfb test)")
            r = Run(tmp, home, srv.port, *user, "--security", "VncAuth",
                    env=creds)
            r.refused(name + " not in --security", 1, name,
                      "--security allows only what it names")
        finally:
            srv.close()
        srv = Srv("--types", str(top), "--bad-dh")
        try:
            r = Run(tmp, home, srv.port, *user, env=creds)
            r.refused(name + " zero modulus", 1, "modulus", name)
        finally:
            srv.close()

    vt.log("nothing usable: named")
    # (The RA2 family, which this named before vncfb had it, connects:
    # test_rsaaes.py.)
    srv = Srv("--types", "13,33,36")
    try:
        r = Run(tmp, home, srv.port, *user, env=creds)
        r.refused("RealVNC and Apple only", 1, "RealVNC (13)",
                  "Apple Kerberos (33)", "Apple DH (36)")
    finally:
        srv.close()
    return 0


vt.main(test)
