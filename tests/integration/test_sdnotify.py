#!/usr/bin/env python3
"""The service manager's protocol (Type=notify, WatchdogSec=), with a
datagram socket standing in for systemd's: READY=1 only once the first
picture is drawn, STATUS= as the status line says it ("connected to"),
WATCHDOG=1 every half WATCHDOG_USEC while the pipeline keeps up, and no
more pings once the blit thread hangs (VNCFB_TEST_BLIT_STALL, the test
hook) while updates keep coming; the abstract socket form ("@name") too;
and WATCHDOG_PID of another process turns the pings off.
"""
import os
import socket
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import vnctest as vt  # noqa: E402


def listen(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.bind(path if path[0] != "@" else "\0" + path[1:])
    s.settimeout(0.2)
    return s


def collect(sock, seconds, until=None):
    """Messages (with their arrival times) for seconds, or until one
    starts with until."""
    got, end = [], time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            m = sock.recv(4096).decode()
        except socket.timeout:
            continue
        got.append((time.monotonic(), m))
        if until and m.startswith(until):
            break
    return got


def session(tmp, srv, name, env, check):
    sockpath = tmp(name + ".sock") if name != "abstract" else \
        "@vncfb-test-%d" % os.getpid()
    sock = listen(sockpath)
    cl = None
    try:
        e = {"NOTIFY_SOCKET": sockpath, "WATCHDOG_USEC": "1000000"}
        e.update(env)
        cl = vt.Vncfb(tmp, ["-o", "mem:320x240", "127.0.0.1::%d" % srv.port],
                      env=e)
        check(sock, cl)
        rc = cl.terminate()
        if rc != 0:
            raise vt.Fail("%s: vncfb exited %d: %s" % (name, rc,
                                                        cl.stderr()))
    finally:
        if cl:
            cl.kill()
        sock.close()


def main(tmp):
    srv = vt.Server(tmp, "--size", "320x240")
    try:
        def healthy(sock, cl):
            msgs = collect(sock, 20, until="READY=1")
            texts = [m for _, m in msgs]
            if "READY=1" not in texts:
                raise vt.Fail("no READY=1: %r" % texts)
            # The picture is there when READY comes.
            srv.expect("CLIENT connected")
            img = srv.dump()
            cl.wait_until(lambda got: vt.diff(got, vt.compose(img, 320, 240)),
                          what="the first picture")
            later = collect(sock, 3.2)
            pings = [t for t, m in later if m == "WATCHDOG=1"]
            if len(pings) < 4:
                raise vt.Fail("%d pings in 3.2 s with WATCHDOG_USEC 1 s: "
                              "%r" % (len(pings), later))
            if not any(m.startswith("STATUS=connected to")
                       for m in texts + [m for _, m in later]):
                raise vt.Fail("no STATUS=connected to: %r" % texts)
            vt.log("ok: READY=1, STATUS=, %d pings in 3.2 s" % len(pings))

        session(tmp, srv, "path", {}, healthy)
        session(tmp, srv, "abstract", {}, healthy)

        def stalled(sock, cl):
            msgs = collect(sock, 20, until="READY=1")
            if "READY=1" not in [m for _, m in msgs]:
                raise vt.Fail("stall: no READY=1: %r" % msgs)
            # The blit thread hangs after its 3rd pass; updates go on.
            # Pings sent before the hang are read (and dropped) here.
            for i in range(30):
                srv.send("step %d" % i)
                collect(sock, 0.1)
            later = collect(sock, 2.5)
            pings = [m for _, m in later if m == "WATCHDOG=1"]
            if pings:
                raise vt.Fail("%d pings with the blit thread hung: %r"
                              % (len(pings), later))
            if "no watchdog pings until" not in cl.stderr():
                raise vt.Fail("no warning: %s" % cl.stderr())
            vt.log("ok: no pings once the blit thread hangs")

        # A hung blit thread cannot be joined: killed, as systemd does.
        sock = listen(tmp("stall.sock"))
        cl = vt.Vncfb(tmp, ["-o", "mem:320x240",
                            "127.0.0.1::%d" % srv.port],
                      env={"NOTIFY_SOCKET": tmp("stall.sock"),
                           "WATCHDOG_USEC": "1000000",
                           "VNCFB_TEST_BLIT_STALL": "3"})
        try:
            stalled(sock, cl)
        finally:
            cl.kill()
            sock.close()

        def other_pid(sock, cl):
            msgs = collect(sock, 20, until="READY=1")
            later = collect(sock, 2)
            if any(m == "WATCHDOG=1" for _, m in msgs + later):
                raise vt.Fail("pings for another WATCHDOG_PID")
            vt.log("ok: WATCHDOG_PID of another process: no pings")

        session(tmp, srv, "otherpid", {"WATCHDOG_PID": "1"}, other_pid)
    finally:
        srv.close()


if __name__ == "__main__":
    vt.main(main)
