#!/usr/bin/env python3
"""RSA-AES (RA2, RA2ne, RA2_256, RA2ne_256) against the project's own RA2
server (ra2server.py, pycryptodome) in front of the test server: the
test server's picture, pixel for pixel, through each type and through RA2
with a user name, and a 640x480 one in raw through RA2_256 (the frames
the reader decrypts several at once); a wrong password: the server's reason in one line, exit
1; the server's key recorded on first contact with no terminal, accepted
the second time, and once it changed: a non-zero exit naming the key,
the store unchanged. The password is in no output.
"""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import vnctest as vt  # noqa: E402

PASSWORD = "pw-Zq7#rsaaes"
USER = "kiosk"
OW, OH = 160, 120
BIG = (640, 480)
TYPES = {5: "RA2", 6: "RA2ne", 129: "RA2_256", 130: "RA2ne_256"}


def ra2(backend, rtype, *extra, port=0):
    return vt.Ra2Server("--backend", str(backend), "--type", str(rtype),
                        "--password", PASSWORD, "--port", str(port),
                        *extra)


def no_secret(out, what):
    if PASSWORD in out:
        raise vt.Fail("%s: the password is in the output" % what)


def one_line(out):
    lines = [l for l in out.splitlines() if l.strip()]
    if len(lines) != 1:
        raise vt.Fail("expected one line, got %r" % lines)
    return lines[0]


def picture(tmp, want, port, env, what, size=(OW, OH), extra=()):
    cl = vt.Vncfb(tmp, ["-o", "mem:%dx%d" % size, *extra,
                        "127.0.0.1::%d" % port], env=env)
    try:
        cl.wait_until(lambda got: vt.diff(got, want), what=what)
        rc = cl.terminate()
        out = cl.stderr()
        no_secret(out, what)
        if rc != 0:
            raise vt.Fail("%s: exit %d: %s" % (what, rc, out))
    finally:
        cl.kill()
    return out


def main(tmp):
    srv = vt.Server(tmp, "--size", "%dx%d" % (OW, OH))
    servers = []
    try:
        want = vt.compose(srv.dump(), OW, OH)
        cfg = tmp("config")
        env = {"VNCFB_PASSWORD": PASSWORD, "XDG_CONFIG_HOME": cfg}
        for rtype, name in TYPES.items():
            ra = ra2(srv.port, rtype)
            servers.append(ra)
            picture(tmp, want, ra.port, env, "picture through " + name)
            vt.log("ok: %s: the test server's picture" % name)

        # A large raw picture: many whole frames, which the reader
        # decrypts several at once (and the one it needs part of).
        big = vt.Server(tmp, "--size", "%dx%d" % BIG)
        servers.append(big)
        ra = ra2(big.port, 129, "--full-frames")
        servers.append(ra)
        picture(tmp, vt.compose(big.dump(), *BIG), ra.port, env,
                "a large raw picture through RA2_256", size=BIG,
                extra=("--encodings", "raw"))
        vt.log("ok: RA2_256, %dx%d in raw" % BIG)

        ra = ra2(srv.port, 5, "--user", USER)
        servers.append(ra)
        picture(tmp, want, ra.port, dict(env, VNC_USERNAME=USER),
                "picture through RA2 with a user name")
        vt.log("ok: RA2 with the user name from VNC_USERNAME")

        # Wrong password: the server's words, one line, exit 1.
        rc, out = vt.run_vncfb(["-o", "mem:64x64",
                                "127.0.0.1::%d" % servers[2].port],
                               env={"VNCFB_PASSWORD": PASSWORD + "x",
                                    "XDG_CONFIG_HOME": cfg})
        line = one_line(out)
        no_secret(out, "wrong password")
        if rc != 1 or "wrong user name or password" not in line:
            raise vt.Fail("wrong password: exit %d, %r" % (rc, line))
        vt.log("ok: wrong password: %s" % line)

        # The trust store: first contact recorded (a warning, no
        # terminal), the same key again accepted, a changed key refused.
        fresh = tmp("fresh")
        env2 = {"VNCFB_PASSWORD": PASSWORD, "XDG_CONFIG_HOME": fresh}
        store = os.path.join(fresh, "vncfb", "known_hosts")
        ra = ra2(srv.port, 129, "--key-seed", "7")
        servers.append(ra)
        port = ra.port
        first = picture(tmp, want, port, env2, "first contact")
        if "SHA256:" not in first or not os.path.exists(store):
            raise vt.Fail("first contact: no warning naming the "
                          "fingerprint, or no store: %r" % first)
        picture(tmp, want, port, env2, "second contact")
        ra.close()
        before = open(store).read()
        ra = ra2(srv.port, 129, "--key-seed", "8", port=port)
        servers.append(ra)
        rc, out = vt.run_vncfb(["-o", "mem:64x64", "--reconnect", "always",
                                "127.0.0.1::%d" % port], env=env2)
        no_secret(out, "changed key")
        if rc == 0 or "RSA key" not in out or out.count("SHA256:") < 2:
            raise vt.Fail("changed key: exit %d, %r" % (rc, out))
        if open(store).read() != before:
            raise vt.Fail("changed key: the store changed")
        vt.log("ok: changed key refused: %s" % out.strip())
    finally:
        vt.close_all(servers + [srv])
    return 0


if __name__ == "__main__":
    vt.main(main)
