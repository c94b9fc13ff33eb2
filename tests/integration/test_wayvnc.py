#!/usr/bin/env python3
"""The first real peer of the user-name types: wayvnc (Debian's, the
server of Raspberry Pi OS) with enable_auth=true, which is VeNCrypt
X509Plain with a self-signed certificate, on a headless sway
(WLR_BACKENDS=headless WLR_RENDERER=pixman) run as a user other than
root, as sway requires (nobody when the test runs as root).

With a fresh config home and no terminal, `VNCFB_PASSWORD=... vncfb
--username NAME -o mem:WxH --exit-after 3 --screenshot S HOST::PORT`
exits 0 with sway's background, pixel-exact, and records the certificate
with one warning; the second run is silent; a wrong password exits 1;
once wayvnc has another certificate, the run exits 1 naming both
fingerprints, the store unchanged. Skips (77) only when sway or wayvnc
is missing or cannot start, saying why.
"""
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import vnctest as vt  # noqa: E402

W, H = 320, 240
BG = bytes.fromhex("204080")
USER = "wall"
PASSWORD = "wayvnc test password 91d2"


def skip(why):
    vt.log("SKIP: " + why)
    sys.exit(vt.SKIP)


def as_user():
    """The command prefix that runs a program as someone other than
    root, and that someone's uid and gid."""
    if os.geteuid() != 0:
        return [], os.getuid(), os.getgid()
    if not shutil.which("setpriv"):
        skip("running as root and no setpriv (util-linux) to leave it")
    nobody = pwd.getpwnam("nobody")
    return (["setpriv", "--reuid=%d" % nobody.pw_uid,
             "--regid=%d" % nobody.pw_gid, "--clear-groups"],
            nobody.pw_uid, nobody.pw_gid)


def cert(d, name):
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048",
                    "-nodes", "-keyout", name + ".key", "-out",
                    name + ".crt", "-days", "2", "-subj", "/CN=127.0.0.1"],
                   cwd=d, check=True, capture_output=True)
    os.chmod(os.path.join(d, name + ".key"), 0o644)
    out = subprocess.run(["openssl", "x509", "-in", name + ".crt",
                          "-noout", "-fingerprint", "-sha256"], cwd=d,
                         check=True, capture_output=True, text=True).stdout
    return "SHA256:" + out.strip().split("=")[1].replace(":", "").lower()


class Peer:
    """sway, then wayvnc on port with certificate name."""

    def __init__(self, d, prefix, port):
        self.d, self.prefix, self.port = d, prefix, port
        self.env = {"HOME": d, "XDG_RUNTIME_DIR": os.path.join(d, "run"),
                    "PATH": "/usr/bin:/bin", "WLR_BACKENDS": "headless",
                    "WLR_RENDERER": "pixman", "WLR_LIBINPUT_NO_DEVICES": "1"}
        with open(os.path.join(d, "sway.cfg"), "w") as f:
            f.write("output * bg #204080 solid_color\n"
                    "output HEADLESS-1 resolution %dx%d\n"
                    "seat * hide_cursor 100\n" % (W, H))
        os.chmod(os.path.join(d, "sway.cfg"), 0o644)
        self.sway_log = open(os.path.join(d, "sway.log"), "w")
        self.sway = subprocess.Popen(
            [*prefix, "env", "-i", *("%s=%s" % kv for kv in
                                     self.env.items()),
             "sway", "-c", os.path.join(d, "sway.cfg")],
            stdout=self.sway_log, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL)
        self.vnc = None
        sock = os.path.join(self.env["XDG_RUNTIME_DIR"], "wayland-1")
        end = time.monotonic() + 15
        while not os.path.exists(sock):
            if self.sway.poll() is not None or time.monotonic() > end:
                self.close()
                with open(os.path.join(d, "sway.log")) as f:
                    tail = [l.strip() for l in f if "ERROR" in l][-1:]
                skip("sway did not start (%s)" % (tail[0] if tail else
                                                  "no error logged"))
            time.sleep(0.1)

    def serve(self, name):
        if self.vnc:
            self.vnc.kill()
            self.vnc.wait()
        cfg = os.path.join(self.d, "wayvnc-%s.cfg" % name)
        with open(cfg, "w") as f:
            f.write("address=127.0.0.1\nport=%d\nenable_auth=true\n"
                    "username=%s\npassword=%s\nprivate_key_file=%s\n"
                    "certificate_file=%s\n"
                    % (self.port, USER, PASSWORD,
                       os.path.join(self.d, name + ".key"),
                       os.path.join(self.d, name + ".crt")))
        os.chmod(cfg, 0o644)
        self.vnc = subprocess.Popen(
            [*self.prefix, "env", "-i", *("%s=%s" % kv for kv in
                                          self.env.items()),
             "WAYLAND_DISPLAY=wayland-1", "wayvnc", "-C", cfg],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            stdin=subprocess.DEVNULL)
        end = time.monotonic() + 15
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), 1).close()
                return
            except OSError:
                pass
            if self.vnc.poll() is not None or time.monotonic() > end:
                self.close()
                skip("wayvnc did not start listening (exit %r)"
                     % self.vnc.poll())
            time.sleep(0.1)

    def close(self):
        for p in (self.vnc, self.sway):
            if p and p.poll() is None:
                p.kill()
                p.wait()
        self.sway_log.close()


def run(tmp, home, port, password=PASSWORD):
    shot = tmp("shot.ppm")
    if os.path.exists(shot):
        os.unlink(shot)
    rc, out = vt.run_vncfb(
        ["--username", USER, "-o", "mem:%dx%d" % (W, H), "--exit-after",
         "3", "--screenshot", shot, "127.0.0.1::%d" % port],
        env={"VNCFB_PASSWORD": password, "HOME": home,
             "XDG_CONFIG_HOME": os.path.join(home, "cfg")})
    vt.log("  exit %d: %s" % (rc, out.strip()))
    if PASSWORD in out or USER in out:
        raise vt.Fail("a credential in vncfb's output: %r" % out)
    return rc, out, shot


def test(tmp):
    for tool in ("sway", "wayvnc", "swaybg", "openssl"):
        if not shutil.which(tool):
            skip("%s is not installed (packages sway, wayvnc, openssl)"
                 % tool)
    prefix, uid, gid = as_user()
    d = tempfile.mkdtemp(prefix="vncfb-wayvnc-")
    os.chmod(d, 0o755)
    os.mkdir(os.path.join(d, "run"), 0o700)
    os.chown(os.path.join(d, "run"), uid, gid)
    fp1 = cert(d, "one")
    fp2 = cert(d, "two")
    s, port = vt.free_port()
    s.close()
    home = tmp("home")
    os.mkdir(home)
    store = os.path.join(home, "cfg", "vncfb", "known_hosts")
    peer = Peer(d, prefix, port)
    try:
        peer.serve("one")
        vt.log("wayvnc X509Plain, self-signed, first contact")
        rc, out, shot = run(tmp, home, port)
        if rc != 0 or "first contact" not in out or fp1 not in out:
            raise vt.Fail("first contact: exit %d: %s" % (rc, out))
        w, h, rgb = vt.read_ppm(shot)
        bad = sum(1 for i in range(0, len(rgb), 3) if rgb[i:i + 3] != BG)
        if (w, h) != (W, H) or bad:
            raise vt.Fail("picture: %dx%d, %d pixels not sway's #204080"
                          % (w, h, bad))
        vt.log("again: silent")
        rc, out, shot = run(tmp, home, port)
        if rc != 0 or out.strip():
            raise vt.Fail("known certificate: exit %d: %s" % (rc, out))
        vt.log("a wrong password")
        rc, out, shot = run(tmp, home, port, password="wrong")
        if rc != 1 or "authentication failed" not in out:
            raise vt.Fail("wrong password: exit %d: %s" % (rc, out))
        with open(store) as f:
            before = f.read()
        vt.log("wayvnc with another certificate")
        peer.serve("two")
        rc, out, shot = run(tmp, home, port)
        if rc != 1 or fp1 not in out or fp2 not in out or \
                store + ":1" not in out:
            raise vt.Fail("changed certificate: exit %d: %s" % (rc, out))
        with open(store) as f:
            if f.read() != before:
                raise vt.Fail("the store changed")
    finally:
        peer.close()
        shutil.rmtree(d, ignore_errors=True)
    return 0


vt.main(test)
