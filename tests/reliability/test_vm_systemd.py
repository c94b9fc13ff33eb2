#!/usr/bin/env python3
"""The systemd unit as the man page and README describe it, on a real
kernel (tests/vm/vmrun.py, vesafb, tty7) under a real systemd (the host's,
packed into the guest and run as PID 1 of a PID namespace there):

* "systemctl enable vncfb@wall" and "vncfb --config SYSCONFDIR/vncfb/
  wall.conf --check-config" work as written;
* the instance reads wall.conf (its server = line) and, started before
  its server is up, waits (--reconnect always: no restart, the same
  process) and shows the server once it is there, on tty7;
* stopping the unit gives tty7 back in text mode;
* a configuration error (exit 2: a bad line, a missing file) is not
  restarted and its journal names the file and line; a device missing
  (exit 1) is restarted after RestartSec;
* Type=notify: the unit is "activating" while the server is not up and
  "active" once the picture shows, its status line is systemctl's
  StatusText; and a vncfb whose blit thread hangs (the test hook
  VNCFB_TEST_BLIT_STALL, a drop-in shortening WatchdogSec to 4 s) stops
  its pings, is killed by the watchdog and restarted, and tty7 is back in
  text mode in between.

Skips (77) without qemu, a guest kernel or systemd on this machine."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

from vmskip import vm_run_or_skip

VNCFB = os.environ["VNCFB"]
build = os.environ["VNCFB_BUILD_ROOT"]
vmrun = vm_run_or_skip()
SYSTEMD = "/lib/systemd/systemd"
TOOLS = [SYSTEMD, "/lib/systemd/systemd-journald", shutil.which("systemctl"),
         shutil.which("journalctl")]
if not all(t and os.access(t, os.X_OK) for t in TOOLS):
    print("SKIP: systemd is not installed here (%s)" % ", ".join(
        str(t) for t in TOOLS), file=sys.stderr)
    sys.exit(77)
UNITS = "/lib/systemd/system"
srv = os.path.join(build, "tests", "server", "testserver")
probe = os.path.join(build, "tests", "vm", "kdprobe")
unit = os.path.join(build, "dist", "vncfb@.service")
with open(unit) as f:
    unit_text = f.read()
m = re.search(r"^ExecStart=(\S+) --config (\S+)/%I\.conf", unit_text, re.M)
if not m:
    print("FAIL: %s: ExecStart does not read --config DIR/%%I.conf" % unit,
          file=sys.stderr)
    sys.exit(1)
BIN, CONFDIR = m.group(1), m.group(2)

# The targets and journald units a boot to multi-user.target needs; the
# rest of the host's units are not there (what they would start is not).
TARGETS = ["basic", "sysinit", "sockets", "timers", "paths", "slices",
           "local-fs", "local-fs-pre", "swap", "network", "network-online",
           "network-pre", "multi-user", "shutdown", "final", "umount",
           "emergency", "rescue", "getty", "getty-pre"]
JOURNALD = ["systemd-journald.service", "systemd-journald.socket",
            "systemd-journald-dev-log.socket"]

GUEST = r'''
echo 'nobody:x:65534:65534:nobody:/nonexistent:/bin/false' >> /etc/passwd
echo 'nogroup:x:65534:' >> /etc/group
U=/lib/systemd/system
ln -s multi-user.target $U/default.target
mkdir -p $U/sockets.target.wants $U/sysinit.target.wants /etc/systemd/system
ln -s ../systemd-journald.socket $U/sockets.target.wants/
ln -s ../systemd-journald-dev-log.socket $U/sockets.target.wants/
ln -s ../systemd-journald.service $U/sysinit.target.wants/
mkdir -p @CONFDIR@
printf '# the wall display\nserver = 127.0.0.1:1\nscale = fit\n' > @CONFDIR@/wall.conf
printf 'server = 127.0.0.1:1\ncpu = 4000\n' > @CONFDIR@/bad.conf
printf 'server = 127.0.0.1:1\noutput = fbdev:/dev/fb7\n' > @CONFDIR@/gone.conf
# As the man page says, before the unit is enabled.
vncfb --config @CONFDIR@/wall.conf --check-config | sed 's/^/CHECKCONF /'
systemctl enable vncfb@wall 2>&1 | sed 's/^/ENABLE /'
unshare -p -f --mount-proc /lib/systemd/systemd --system > /tmp/sd.log 2>&1 &
i=0; while [ -z "$(pidof systemd)" ] && [ $i -lt 100 ]; do i=$((i+1)); sleep 0.1; done
SD=$(pidof systemd)
sd() { nsenter -t $SD -m -p "$@"; }
journal() { sd journalctl -u vncfb@$1 --no-pager -o cat 2>/dev/null; }
waitlog() {  # waitlog INSTANCE REGEX SECONDS
	i=0
	while ! journal $1 | grep -q "$2"; do
		i=$((i + 1)); [ $i -gt $(($3 * 5)) ] && { echo "TIMEOUT $1 $2"; return 1; }
		sleep 0.2
	done
}
show() { sd systemctl show -p ActiveState -p NRestarts -p MainPID -p ExecMainStatus vncfb@$1 | tr '\n' ' '; echo; }
status() { sd systemctl show -p StatusText --value vncfb@$1; }
# Booted with no server up: vncfb waits, and keeps waiting.
waitlog wall 'reconnecting to' 120
sleep 4
echo "WAITING $(show wall)"
testserver --port 5901 --colour ff8000 --size 1024x768 --keep --timeout 0 > /tmp/srv.log 2>&1 &
waitlog wall 'connected to' 60
sleep 1
echo "SHOWN $(show wall)"
echo "STATUSTEXT $(status wall)"
kdprobe /dev/tty7 | sed 's/^/DURING /'
echo "STAGE shown"
sleep 5
sd systemctl stop vncfb@wall
echo "STOPPED $(show wall)"
kdprobe /dev/tty7 | sed 's/^/AFTERSTOP /'
journal wall | sed 's/^/LOG wall /'
# The broken ones, one at a time (each wants tty7): a configuration error
# until it has failed for good (a unit that restarts instead is still
# "activating" when the 4 s are up); gone until it was restarted once
# after RestartSec (10 s), at most 15 s.
settled() {  # settled INSTANCE: failed, or (gone) restarted
	case $1 in
	gone) show gone | grep -q 'NRestarts=[1-9]' ;;
	*) show $1 | grep -q 'ActiveState=failed' ;;
	esac
}
# The watchdog: the blit thread hangs after its 5th pass; 4 s later
# systemd kills vncfb (SIGABRT), the console comes back, and the unit
# starts again.
mkdir -p /etc/systemd/system/vncfb@stall.service.d
printf '[Service]\nEnvironment=VNCFB_TEST_BLIT_STALL=5\nWatchdogSec=4s\nRestartSec=3s\n' > /etc/systemd/system/vncfb@stall.service.d/stall.conf
cp @CONFDIR@/wall.conf @CONFDIR@/stall.conf
sd systemctl daemon-reload
sd systemctl start --no-block vncfb@stall
waitlog stall 'VNCFB_TEST_BLIT_STALL' 60
echo "STALLED $(show stall)"
i=0; while ! sd journalctl -u vncfb@stall --no-pager | grep -q 'Watchdog timeout' && [ $i -lt 100 ]; do i=$((i+1)); sleep 0.2; done
sleep 1
kdprobe /dev/tty7 | sed 's/^/AFTERWATCHDOG /'
i=0; while ! show stall | grep -q 'NRestarts=[1-9]' && [ $i -lt 100 ]; do i=$((i+1)); sleep 0.2; done
echo "RESTARTED $(show stall)"
sd journalctl -u vncfb@stall --no-pager -o cat | grep -i 'watchdog' | sed 's/^/LOG stall /'
sd systemctl stop vncfb@stall
for n in bad nope gone; do
	sd systemctl start vncfb@$n
	[ $n = gone ] && t=75 || t=20
	i=0; while ! settled $n && [ $i -lt $t ]; do i=$((i+1)); sleep 0.2; done
	echo "UNIT $n $(show $n)"
	journal $n | grep '^vncfb:' | sed "s/^/LOG $n /"
	sd systemctl stop vncfb@$n
done
'''


def main():
    with tempfile.TemporaryDirectory() as tmp:
        units = os.path.join(tmp, "units")
        os.mkdir(units)
        for t in TARGETS:
            shutil.copy(os.path.join(UNITS, t + ".target"), units)
        for j in JOURNALD:
            shutil.copy(os.path.join(UNITS, j), units)
        shutil.copy(unit, units)
        dump = os.path.join(tmp, "a.ppm")
        cmd = [vmrun, "-q", "--fb", "vesa", "--timeout", "400",
               "--bin", VNCFB + ":" + BIN, "--bin", srv, "--bin", probe,
               "--file", "/usr/share/X11/xkb:/usr/share/X11/xkb",
               "--file", units + ":" + UNITS,
               "--event", "wait STAGE shown timeout=300", "--event",
               "sleep 2", "--event", "screendump " + dump,
               "--cmd", GUEST.replace("@CONFDIR@", CONFDIR)]
        for t in TOOLS:
            cmd += ["--bin", t + ":" + t]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        out = p.stdout.replace("\r", "")
        if p.returncode == 125:
            print("the VM did not start:\n" + p.stderr[-2000:],
                  file=sys.stderr)
            return 1
        fails = []

        def want(pattern, what):
            if not re.search(pattern, out, re.M):
                fails.append(what)

        want(r"^CHECKCONF configuration OK$",
             "--check-config of the instance's file")
        want(r"^ENABLE Created symlink .*multi-user\.target\.wants/"
             r"vncfb@wall\.service", "systemctl enable vncfb@wall")
        want(r"^LOG wall vncfb: %s/wall\.conf:2: cannot connect to "
             r"127\.0\.0\.1:5901: Connection refused$" % re.escape(CONFDIR),
             "the first failure does not name the config line")
        def props(prefix):
            """The systemctl show properties on the line prefix starts."""
            m_ = re.search(r"^%s (.*)$" % re.escape(prefix), out, re.M)
            return dict(kv.split("=", 1) for kv in m_.group(1).split()
                        if "=" in kv) if m_ else {}

        w, s_ = props("WAITING"), props("SHOWN")
        # Type=notify: ready with the first picture.
        if w.get("ActiveState") != "activating" or \
                s_.get("ActiveState") != "active":
            fails.append("the unit was not activating while waiting and "
                         "active once shown (%r, %r)" % (w, s_))
        elif w.get("NRestarts") != "0" or s_.get("NRestarts") != "0" or \
                w.get("MainPID") != s_.get("MainPID"):
            fails.append("the unit restarted while waiting for the server "
                         "(%r -> %r)" % (w, s_))
        want(r"^STATUSTEXT connected to 127\.0\.0\.1:1$",
             "systemctl's StatusText is not the connection's state")
        sl, rs = props("STALLED"), props("RESTARTED")
        if sl.get("ActiveState") != "active" or \
                not rs.get("NRestarts", "0").isdigit() or \
                int(rs.get("NRestarts", "0")) < 1 or \
                rs.get("MainPID") == sl.get("MainPID"):
            fails.append("a hung blit thread was not restarted by the "
                         "watchdog (%r -> %r)" % (sl, rs))
        want(r"^LOG stall .*[Ww]atchdog timeout",
             "no watchdog timeout in the journal")
        want(r"^AFTERWATCHDOG KDMODE text VTMODE auto",
             "tty7 not given back after the watchdog's kill")
        st = props("STOPPED")
        if st.get("ActiveState") != "inactive":
            fails.append("not stopped: %r" % st)
        for name, state, restarts, status in (
                ("bad", "failed", "0", "2"), ("nope", "failed", "0", "2")):
            u = props("UNIT " + name)
            if (u.get("ActiveState"), u.get("NRestarts"),
                    u.get("ExecMainStatus")) != (state, restarts, status):
                fails.append("vncfb@%s: %r, want %s, %s restarts, status %s"
                             " (a configuration error is not restarted)"
                             % (name, u, state, restarts, status))
        u = props("UNIT gone")
        if not u.get("NRestarts", "0").isdigit() or \
                int(u.get("NRestarts", "0")) < 1:
            fails.append("vncfb@gone: %r: a missing device (exit 1) was not "
                         "restarted after RestartSec" % u)
        want(r"^DURING KDMODE graphics VTMODE process ACTIVE 7$",
             "vncfb does not own tty7")
        want(r"^AFTERSTOP KDMODE text VTMODE auto ACTIVE 7$",
             "tty7 not given back after systemctl stop")
        want(r"^LOG bad vncfb: %s/bad\.conf:2: core 4000 .*offline"
             % re.escape(CONFDIR), "bad.conf's line not named")
        want(r"^LOG nope vncfb: cannot read config file %s/nope\.conf: No "
             r"such file" % re.escape(CONFDIR), "nope.conf not named")
        want(r"^LOG gone vncfb: %s/gone\.conf:2: /dev/fb7: no such device"
             % re.escape(CONFDIR), "gone.conf's line not named")
        try:
            with open(dump, "rb") as f:
                data = f.read()
            hdr = data.split(b"\n", 3)
            w_, h_ = map(int, hdr[1].split())
            pix = hdr[3]
            bad = 0
            for x, y in ((w_ // 2, h_ // 2), (10, 10), (w_ - 10, h_ - 10),
                         (10, h_ - 2)):
                px = tuple(pix[(y * w_ + x) * 3:(y * w_ + x) * 3 + 3])
                if any(abs(a - b) > 8 for a, b in zip(px, (255, 128, 0))):
                    bad += 1
                    fails.append("screen at %d,%d is %r, not the server's "
                                 "ff8000" % (x, y, px))
        except (OSError, ValueError, IndexError) as e:
            fails.append("no screendump: %s" % e)
        for f in fails:
            print("FAIL:", f, file=sys.stderr)
        if fails:
            print(out[-6000:], file=sys.stderr)
            print(p.stderr[-2000:], file=sys.stderr)
            return 1
        print("\n".join(l for l in out.splitlines() if l.startswith(
            ("WAITING", "SHOWN", "DURING", "AFTERSTOP", "UNIT", "LOG"))))
        return 0


if __name__ == "__main__":
    sys.exit(main())
