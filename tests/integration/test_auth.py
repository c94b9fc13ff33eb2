#!/usr/bin/env python3
"""VNC password authentication against the test server: the right
password (from VNCFB_PASSWORD and from a vncpasswd file) shows the
desktop and exits 0; a wrong one exits 1 with one line about
authentication; a missing one (no terminal) exits 1 saying so; a password
file readable by others is refused before connecting.
"""
import sys
import os
import shutil

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import vnctest as vt  # noqa: E402

PASSWORD = "vncfb-ok"
# Written by TigerVNC's `vncpasswd -f` for PASSWORD.
PASSWD_FILE = os.path.join(vt.SOURCE, "tests", "unit", "data",
                           "vncpasswd-vncfb-ok")
OW, OH = 320, 240


def one_line(out):
    lines = [l for l in out.splitlines() if l.strip()]
    if len(lines) != 1:
        raise vt.Fail("expected one line of error, got %r" % lines)
    return lines[0]


def main(tmp):
    good = tmp("passwd")
    shutil.copy(PASSWD_FILE, good)
    os.chmod(good, 0o600)
    wrong = tmp("wrong")
    with open(wrong, "wb") as f:
        # Not PASSWORD: the same bytes with one bit flipped decode to
        # another password.
        data = bytearray(open(PASSWD_FILE, "rb").read())
        data[0] ^= 1
        f.write(data)
    os.chmod(wrong, 0o600)
    open_file = tmp("open")
    shutil.copy(PASSWD_FILE, open_file)
    os.chmod(open_file, 0o644)

    srv = vt.Server(tmp, "--size", "%dx%d" % (OW, OH), "--password",
                    PASSWORD)
    target = "127.0.0.1::%d" % srv.port
    try:
        want = vt.compose(srv.dump(), OW, OH)
        for how, args, env in [
                ("VNCFB_PASSWORD", [], {"VNCFB_PASSWORD": PASSWORD}),
                ("--passwd FILE", ["--passwd", good], None),
                ("-passwd FILE", ["-passwd", good], None)]:
            cl = vt.Vncfb(tmp, ["-o", "mem:%dx%d" % (OW, OH), *args,
                                target], env=env)
            try:
                cl.wait_until(lambda got: vt.diff(got, want),
                              what="picture with the password from " + how)
                rc = cl.terminate()
                if rc != 0:
                    raise vt.Fail("exit %d with the right password (%s): %s"
                                  % (rc, how, cl.stderr()))
            finally:
                cl.kill()
            vt.log("ok: right password from %s" % how)

        for how, args, env in [
                ("VNCFB_PASSWORD", [], {"VNCFB_PASSWORD": "nope"}),
                ("--passwd FILE", ["--passwd", wrong], None)]:
            rc, out = vt.run_vncfb(["-o", "mem:64x64", *args, target],
                                   env=env)
            line = one_line(out)
            if rc != 1 or "authentication" not in line.lower():
                raise vt.Fail("wrong password from %s: exit %d, %r"
                              % (how, rc, line))
            vt.log("ok: wrong password from %s: %s" % (how, line))

        rc, out = vt.run_vncfb(["-o", "mem:64x64", target])
        line = one_line(out)
        if rc != 1 or "VNCFB_PASSWORD" not in line or "wrong" in line:
            raise vt.Fail("no password: exit %d, %r" % (rc, line))
        vt.log("ok: no password: %s" % line)

        rc, out = vt.run_vncfb(["-o", "mem:64x64", "--passwd", open_file,
                                target])
        line = one_line(out)
        # A file that cannot work is refused before anything opens, as a
        # usage error (vncfb(1), EXIT STATUS).
        if rc != 2 or open_file not in line or "600" not in line:
            raise vt.Fail("mode 644 password file: exit %d, %r"
                          % (rc, line))
        vt.log("ok: mode 644 refused: %s" % line)

        rc, out = vt.run_vncfb(["-o", "mem:64x64", "--passwd",
                                tmp("missing"), target])
        line = one_line(out)
        if rc != 2 or "missing" not in line:
            raise vt.Fail("missing password file: exit %d, %r" % (rc, line))
        vt.log("ok: missing file: %s" % line)
    finally:
        srv.close()


if __name__ == "__main__":
    vt.main(main)
