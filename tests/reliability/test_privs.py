#!/usr/bin/env python3
"""Privileges: a root-started vncfb given --user runs as that user once
the devices are open (checked in /proc), with core dumps off; an unknown
user is a one-line error and exit 1. Needs root (skips otherwise)."""
import os
import subprocess
import sys
import time

VNCFB = os.environ["VNCFB"]
SERVER = os.environ["VNCFB_TESTSERVER"]


def proc_field(pid, name):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(name + ":"):
            return line.split()[1:]
    return None


def main():
    if os.geteuid() != 0:
        print("SKIP: needs root to test dropping it", file=sys.stderr)
        return 77
    import pwd
    try:
        nobody = pwd.getpwnam("nobody")
    except KeyError:
        print("SKIP: no user nobody on this system", file=sys.stderr)
        return 77
    srv = subprocess.Popen([SERVER, "--keep"], stdout=subprocess.PIPE, text=True)
    port = int(srv.stdout.readline().split()[1])
    fails = 0
    try:
        p = subprocess.Popen([VNCFB, "-o", "mem:64x48", "--user", "nobody",
                              "--exit-after", "3", f"127.0.0.1::{port}"],
                             stderr=subprocess.PIPE, text=True)
        time.sleep(1.5)
        uid = proc_field(p.pid, "Uid")
        gid = proc_field(p.pid, "Gid")
        groups = proc_field(p.pid, "Groups")
        caps = (proc_field(p.pid, "CapEff"), proc_field(p.pid, "CapPrm"))
        core = [l for l in open(f"/proc/{p.pid}/limits")
                if l.startswith("Max core file size")]
        err = p.communicate(timeout=20)[1]
        if p.returncode != 0 or "connected to" not in err:
            print(f"FAIL: vncfb --user nobody: exit {p.returncode}: {err}",
                  file=sys.stderr)
            fails += 1
        if uid != [str(nobody.pw_uid)] * 4:
            print(f"FAIL: uids {uid}, want all {nobody.pw_uid}",
                  file=sys.stderr)
            fails += 1
        if gid != [str(nobody.pw_gid)] * 4 or \
                groups not in ([str(nobody.pw_gid)], []):
            print(f"FAIL: gids {gid} groups {groups}", file=sys.stderr)
            fails += 1
        # Only CAP_SYS_TTY_CONFIG (bit 26) stays, for VT switching.
        if caps != (["0000000004000000"], ["0000000004000000"]):
            print(f"FAIL: capabilities {caps}, want only "
                  "CAP_SYS_TTY_CONFIG", file=sys.stderr)
            fails += 1
        if not core or core[0].split()[4:6] != ["0", "0"]:
            print(f"FAIL: core dumps not off: {core}", file=sys.stderr)
            fails += 1
        r = subprocess.run([VNCFB, "-o", "mem:64x48", "--user",
                            "no-such-user-vncfb", f"127.0.0.1::{port}"],
                           capture_output=True, text=True, timeout=20)
        if r.returncode != 2 or "no user 'no-such-user-vncfb'" not in \
                r.stderr or r.stderr.strip().count("\n") > 1:
            print(f"FAIL: unknown user: exit {r.returncode}: {r.stderr}",
                  file=sys.stderr)
            fails += 1
    finally:
        srv.kill()
        srv.wait()
    if not fails:
        print("privileges: ok")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
