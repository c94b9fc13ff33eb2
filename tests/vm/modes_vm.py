#!/usr/bin/env python3
"""A mode per head on a real kernel: one desktop across virtio-gpu's two
heads (vmrun.py --heads 2), each head at the mode --mode gives it, not
its preferred one. Each head's EDID lists 1024x768 (preferred), 800x600
and 640x480.

One boot, the test server's desktop 1824x768 (it refuses
SetDesktopSize), shown with --scale none:

1. vncfb -o drm:all --mode Virtual-2:800x600 starts with head 0 alone:
   Virtual-1, not named, at its preferred 1024x768. Head 1 is plugged
   in at 1024x768 while vncfb runs: the heads are made again, and
   Virtual-2 comes up at the 800x600 --mode names it with (the hot-plug
   path), beside Virtual-1: one 1824x768 desktop.
2. After a SIGTERM, a second vncfb from a config file (connector =
   Virtual-2,Virtual-1, mode = virtual-2:640x480 800x600): the first
   head, Virtual-2, at the 640x480 named for it (any case), Virtual-1 at
   the 800x600 for every head not named: one 1440x600 desktop,
   Virtual-2 on the left.

Each time the kernel's atomic state (debugfs) has each connector's CRTC
at that mode, each head's screendump has that size and shows its part
of the desktop pixel-exact, and -v prints the layout.

3. Refused in one line, exit 1: a mode for Virtual-9 (no connector of
   the card), and with all a mode Virtual-2's display lacks (the modes
   it has listed).

usage: modes_vm.py
Exit 0 pass, 77 when qemu or a guest kernel is absent, 1 fail.
"""
import re
import sys

from console_vm import run_case
from hotplug_vm import one_connection

GUEST = r'''
# Each connector and the mode of the CRTC it is on, from the kernel's
# atomic state: "Virtual-1 1024x768", or "Virtual-2 off".
mount -t debugfs none /sys/kernel/debug 2>/dev/null
heads_modes() {
	awk '/^crtc\[/ { c = $2 }
	     /^\tmode: / && c { gsub(/[":]/, "", $2); m[c] = $2 }
	     /^connector\[/ { n = $2 }
	     /^\tcrtc=/ && n { sub(/^\tcrtc=/, "");
			       print n, (($0 in m) && m[$0] != "" ? m[$0] : "off");
			       n = "" }' /sys/kernel/debug/dri/0/state
}
log STAGE pre
preferred Virtual-1 1024x768 30
VARGS='-o drm:all --scale none --mode Virtual-2:800x600'
start_vncfb /tmp/v1.log 1
log STAGE drawn
waitfor /tmp/v1.log '2 heads, one 1824x768 desktop' 60 && log STAGE plugged
waitfor /tmp/srv.log 'KEY 0 0x71' 90
heads_modes | sed 's/^/MODESA /'
kill -TERM $V; wait $V; log "EXIT1 $?"
waitfor /tmp/srv.log GONE 20
printf 'connector = Virtual-2,Virtual-1\nmode = virtual-2:640x480 800x600\n' \
	> /tmp/modes.conf
VARGS='--config /tmp/modes.conf --scale none'
start_vncfb /tmp/v2.log 2
waitfor /tmp/v2.log '2 heads, one 1440x600 desktop' 60 && log STAGE both
i=0
while [ "$(grep -c 'KEY 0 0x71' /tmp/srv.log)" -lt 2 ]; do
	i=$((i + 1)); [ $i -gt 900 ] && { log "TIMEOUT second q"; break; }
	sleep 0.1
done
heads_modes | sed 's/^/MODESB /'
kill -TERM $V; wait $V; log "EXIT2 $?"
# Refused at start in one line each: a mode for no connector of the card,
# and one a display lacks (with all too: a head --mode names is not left
# out).
vncfb -o drm:all --mode 'Virtual-9:800x600' 127.0.0.1::$P 2>&1
log "NONAME $?"
vncfb -o drm:all --mode 'virtual-2:1000x700' 127.0.0.1::$P 2>&1
log "NOMODE $?"
cat /tmp/v1.log /tmp/v2.log | grep -c 'connected to' | sed 's/^/CONNECTS2 /'
grep -c 'connected to' /tmp/v1.log | sed 's/^/CONNECTS /'
'''

EVENTS = [
    'wait STAGE pre', 'head 0 1024x768',
    'wait STAGE drawn', 'shot a head=0',
    # Plugged at 1024x768, its preferred mode: shown at 800x600.
    'head 1 1024x768', 'wait STAGE plugged timeout=60', 'shot b head=0',
    'shot c head=1',
    'key q',
    'wait STAGE both timeout=90', 'shot d head=0', 'shot e head=1',
    'key q',
]


def kernel_modes(out):
    """Each connector's CRTC at the mode asked of it, as the kernel has
    it."""
    want = {'MODESA': {'Virtual-1': '1024x768', 'Virtual-2': '800x600'},
            'MODESB': {'Virtual-1': '800x600', 'Virtual-2': '640x480'}}
    fails = []
    for tag, heads in want.items():
        got = dict(re.findall(r'^%s (\S+) (\S+)$' % tag, out, re.M))
        if got != heads:
            fails.append('the kernel\'s CRTC modes %s: %s, expected %s' % (
                tag, got, heads))
        else:
            print('%s: %s' % (tag, ', '.join(
                '%s at %s' % kv for kv in sorted(got.items()))))
    return fails


def two_runs(out):
    """Two vncfb runs in all, each connected once."""
    m = re.search(r'^CONNECTS2 (\d+)$', out, re.M)
    if not m or m.group(1) != '2':
        return ['%s connections in the two runs, expected 2' % (
            m.group(1) if m else '?')]
    return []


CASE = {
    'vm': ['--fb', 'virtio', '--heads', '2', '--mouse', 'usb',
           '--screendump', '{tmp}/z.ppm'],
    'srv': ['--size', '1824x768'],
    'guest': GUEST,
    'events': EVENTS,
    'dumps': {'a': True, 'b': True, 'c': True, 'd': True, 'e': True},
    'crop': {'a': (0, 0, 1024, 768), 'b': (0, 0, 1024, 768),
             'c': (1024, 0, 800, 600),
             'd': (640, 0, 800, 600), 'e': (0, 0, 640, 480)},
    'keys': [(1, 0x71), (0, 0x71), (1, 0x71), (0, 0x71)],
    'ptrs': [],
    'probes': {},
    'check': lambda out: kernel_modes(out) + one_connection(out) +
    two_runs(out),
    'exits': {'EXIT1': 0, 'EXIT2': 0, 'NONAME': 1, 'NOMODE': 1},
    'log': [
        '2 heads, one 1824x768 desktop: Virtual-1:0,0 Virtual-2:1024,0',
        '2 heads, one 1440x600 desktop: Virtual-2:0,0 Virtual-1:640,0',
        'vncfb: /dev/dri/card0: no connector Virtual-9 (Virtual-1 '
        'connected, Virtual-2 connected): --mode NAME:WIDTHxHEIGHT names '
        'one of these\n',
        'vncfb: /dev/dri/card0: Virtual-2 has no mode 1000x700 (it has '
        '1024x768@',
    ],
}


if __name__ == '__main__':
    sys.exit(run_case('drm-heads-modes', CASE))
