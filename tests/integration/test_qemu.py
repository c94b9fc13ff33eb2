#!/usr/bin/env python3
"""vncfb against QEMU's built-in VNC server while the guest changes video
mode: the guest of tests/vm/vmrun.py boots with a bochs display, QEMU's VGA text
screen (720x400) becomes the kernel's 1280x800 framebuffer and the guest
fills it with random pixels. vncfb must follow the resize (Debian 12's
libvncclient mishandles QEMU's ExtendedDesktopSize, which vncfb's own
reader takes), and its screenshot must equal QEMU's own screendump
(taken through a QMP socket of the test's own) pixel for pixel; its
remote resize, which a bochs display cannot do, is one line; SIGTERM then
exits 0.

Exit 77 when qemu-system-x86_64 or a guest kernel is not there.
"""
import json
import os
import signal
import socket
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import vnctest as vt  # noqa: E402
from vmskip import vm_run_or_skip  # noqa: E402

OW, OH = 1280, 800
GUEST = ("echo guest-up; head -c %d /dev/urandom > /dev/fb0; echo drawn; "
         "sleep 60" % (OW * OH * 4))


def free_display():
    for n in range(20, 100):
        s = socket.socket()
        try:
            s.bind(("127.0.0.1", 5900 + n))
            return n
        except OSError:
            pass
        finally:
            s.close()
    raise vt.Fail("no free VNC display in :20-:99")


class Monitor:
    """A QMP socket of our own (vmrun.py has its own): screendump on
    demand; QMP answers once the file is written."""

    def __init__(self, path, tmp):
        self.path = path
        self.tmp = tmp

    def _call(self, f, cmd):
        f.write((json.dumps(cmd) + "\n").encode())
        f.flush()
        while True:
            line = f.readline()
            if not line:
                raise vt.Fail("QMP connection closed")
            msg = json.loads(line)
            if "return" in msg:
                return msg["return"]
            if "error" in msg:
                raise vt.Fail("QMP %s: %s" % (cmd["execute"], msg["error"]))

    def screendump(self):
        out = self.tmp("qemu.ppm")
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(10)
        s.connect(self.path)
        try:
            f = s.makefile("rwb")
            f.readline()            # greeting
            self._call(f, {"execute": "qmp_capabilities"})
            self._call(f, {"execute": "screendump",
                           "arguments": {"filename": out}})
        finally:
            s.close()
        return vt.read_ppm(out)


def stop_vm(vm):
    """End vmrun.py's process group (QEMU with it), if still running."""
    if vm.poll() is None:
        os.killpg(vm.pid, signal.SIGTERM)
        try:
            vm.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(vm.pid, signal.SIGKILL)
            vm.wait()


def attempt(vm_run, tmp, n):
    mon = tmp("monitor-%d.sock" % n)
    vmlog = open(tmp("vm.log"), "w")
    vm = subprocess.Popen(
        [vm_run, "-q", "--fb", "bochs", "--res", "%dx%d" % (OW, OH),
         "--timeout", "150", "--cmd", GUEST,
         "--qemu-arg=-vnc", "--qemu-arg=127.0.0.1:%d" % n,
         "--qemu-arg=-qmp",
         "--qemu-arg=unix:%s,server,nowait" % mon],
        stdout=vmlog, stderr=vmlog, start_new_session=True)
    cl = None
    try:
        end = time.monotonic() + 90
        while True:
            try:
                socket.create_connection(("127.0.0.1", 5900 + n), 1).close()
                break
            except OSError:
                if vm.poll() is not None or time.monotonic() > end:
                    raise vt.Fail("QEMU's VNC server never came up: %s"
                                  % open(tmp("vm.log")).read()[-2000:])
                time.sleep(0.1)
        monitor = Monitor(mon, tmp)
        # Connect once the firmware has set its text mode (720x400): a
        # connection made in QEMU's very first moments (its initial
        # 640x480) once met "Rect too large: 720x400", a race around the
        # client's first SetEncodings that vncfb can only survive by
        # reconnecting. This test checks the mode change itself, which
        # users meet every day, not that recovery.
        while True:
            if vm.poll() is not None or time.monotonic() > end:
                raise vt.Fail("QEMU never left its initial 640x480")
            try:
                if monitor.screendump()[:2] != (640, 480):
                    break
            except (OSError, vt.Fail):
                pass
            time.sleep(0.05)
        cl = vt.Vncfb(tmp, ["-o", "mem:%dx%d" % (OW, OH),
                            "127.0.0.1:%d" % n])
        seen = set()

        def check(got):
            if vm.poll() is not None:
                raise vt.Fail("the VM ended: %s"
                              % open(tmp("vm.log")).read()[-2000:])
            q = monitor.screendump()
            seen.add((q[0], q[1]))
            why = vt.diff(got, vt.compose(q, OW, OH))
            if why:
                return "QEMU at %dx%d: %s" % (q[0], q[1], why)
            if (q[0], q[1]) != (OW, OH):
                return "QEMU still at %dx%d" % (q[0], q[1])
            # Drawn: random bytes (the fbdev stride leaves some rows
            # black), far from the blank screen before.
            if q[2].count(0) > len(q[2]) // 2:
                return "the guest has not drawn yet"
            return None
        cl.wait_until(check, timeout=120, what="guest framebuffer")
        vt.log("ok: QEMU modes seen: %s; the picture at %dx%d matches "
               "QEMU's screendump" % (sorted(seen), OW, OH))
        if "%dx%d" % (OW, OH) not in cl.stderr():
            raise vt.Fail("vncfb did not report the new size: %s"
                          % cl.stderr())
        # QEMU takes ExtendedDesktopSize, so vncfb asked it for the
        # output's size at the text mode's 720x400; a bochs display cannot
        # be resized by a client: one line says so (whatever words this
        # QEMU's answer takes), and the guest's own mode change followed.
        said = [l for l in cl.stderr().splitlines()
                if "resize its desktop to %dx%d" % (OW, OH) in l]
        if len(said) != 1 or "showing" not in said[0]:
            raise vt.Fail("remote resize: want one line, got %r: %s"
                          % (said, cl.stderr()))
        vt.log("ok: remote resize refused in one line: %s" % said[0])
        rc = cl.terminate()
        if rc != 0:
            raise vt.Fail("vncfb exited %d: %s" % (rc, cl.stderr()))
        vt.log("ok: exit 0 after SIGTERM")
        return True
    except vt.Fail:
        text = open(tmp("vm.log")).read()
        if "Kernel panic" in text or "guest died" in text:
            # The guest kernel, not vncfb, failed (TCG on a busy host can
            # miss the boot timer check): worth another boot.
            vt.log("the guest kernel died; trying again: %s" % text[-300:])
            return False
        raise
    finally:
        if cl:
            cl.kill()
        stop_vm(vm)


def main(tmp):
    for _ in range(2):
        if attempt(VM_RUN, tmp, free_display()):
            return 0
    raise vt.Fail("the guest kernel died twice")


if __name__ == "__main__":
    # Before vt.main makes its temporary folder: a skip leaves none.
    VM_RUN = vm_run_or_skip()
    vt.main(main)
