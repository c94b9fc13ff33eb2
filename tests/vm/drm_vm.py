#!/usr/bin/env python3
"""vncfb's DRM/KMS output on a real kernel (qemu guest of tests/vm/vmrun.py,
through console_vm.run_case): the picture pixel-exact at the connector's
mode and at one chosen with --mode, page flips and the one-buffer
DIRTYFB path, VT switching (DRM master dropped and taken back), the CRTC
and fbcon's picture back after SIGTERM and SIGKILL, and each error as one
line with exit status 1 and the console untouched.

usage: drm_vm.py CASE   (CASE: bochs, virtio)
Exit 0 pass, 77 when qemu or a guest kernel is absent, 1 fail.
"""
import re
import sys

from console_vm import run_case

# Text on tty1 that must be there again after vncfb (fbcon kept).
TEXT = r'''
for i in 1 2 3 4 5 6 7 8; do
	echo '########################################' > /dev/tty1
done
'''

# The supervisor (vncfb's child) restores once vncfb is gone; let it.
WAIT_GONE = r'''
i=0; while [ -n "$(pidof vncfb)" ] && [ $i -lt 100 ]; do i=$((i+1)); sleep 0.1; done
'''


def same_lines(ref, tags):
    """A check: the probe line of each tag equals ref's (the CRTC and VT
    as they were before vncfb)."""
    def check(out):
        fails = []
        want = re.search(r'^%s (.*)$' % ref, out, re.M)
        if not want:
            return ['no %s line' % ref]
        for t in tags:
            m = re.search(r'^%s (.*)$' % t, out, re.M)
            if not m or m.group(1) != want.group(1):
                fails.append('%s: %s, expected %s (as before vncfb)' % (
                    t, m.group(1) if m else 'missing', want.group(1)))
        if not fails:
            print('%s: all as before vncfb (%s)' % (
                ', '.join(tags), want.group(1)))
        return fails
    return check


def bench_flips(out):
    """A check: vncfb bench -o drm's table of passes shown, with flips
    in it, no more than the passes, and a blit-end-to-flip median of a few
    frames at 60 Hz at most (the flip waits for the next vblank)."""
    rows = [ln.split() for ln in out.splitlines()
            if ln.startswith('BENCHFLIP fullframe')]
    if not re.search(r'^BENCHFLIP Shown on the display \(drm\)', out, re.M):
        return ['bench -o drm: no "Shown on the display (drm)" table']
    fails = []
    for r in rows:
        # workload, run (words), passes, shown, shown/s, to shown, p99
        try:
            passes, shown, rate, med = int(r[-5]), int(r[-4]), \
                float(r[-3]), float(r[-2])
        except (IndexError, ValueError):
            fails.append('bench -o drm: bad row %r' % r)
            continue
        # Under TCG a 1280x800 full frame takes a good part of a second:
        # a few flips, each after its own pass.
        if shown < 2 or shown > passes or rate <= 0 or not 0 <= med < 100:
            fails.append('bench -o drm: %d of %d passes shown, %.1f/s, '
                         '%.3f ms to the flip' % (shown, passes, rate, med))
        else:
            print('bench -o drm: %d of %d passes flipped, %.1f/s, median '
                  '%.3f ms from blit end to flip' % (shown, passes, rate,
                                                      med))
    if not rows:
        fails.append('bench -o drm: no fullframe row in the flip table')
    return fails


def checks(*fns):
    return lambda out: sum((f(out) for f in fns), [])


CASES = {
    # bochs-drm: the connector's preferred mode (1024x768, from --res),
    # page flips; the errors; a VT switch away and back; SIGTERM and
    # SIGKILL give fbcon's CRTC and picture back.
    'bochs': {
        'vm': ['--fb', 'bochs', '--res', '1024x768', '--fbcon', 'keep',
               '--mouse', 'ps2', '--screendump', '{tmp}/z.ppm'],
        'srv': [],
        'bins': ['tests/vm/drmpeek'],
        'guest': TEXT + r'''
drmpeek crtc | sed 's/^/BEFORE /'
kdprobe /dev/tty1 | sed 's/^/BEFOREVT /'
log STAGE pre
hostwait pre
# Each error: one line, exit 1, the console as it was.
vncfb -o drm:/dev/dri/card9 127.0.0.1::$P 2>&1; log "NODEV $?"
vncfb --connector HDMI-A-1 127.0.0.1::$P 2>&1; log "NOCONN $?"
vncfb --mode 1000x700 127.0.0.1::$P 2>&1; log "NOMODE $?"
drmpeek hold 60 > /tmp/hold.log 2>&1 & H=$!
waitfor /tmp/hold.log HOLDING 20
vncfb -o drm 127.0.0.1::$P 2>&1; log "MASTER $?"
# The default output goes to fbdev then, and -v says why.
vncfb -v --exit-after 1 127.0.0.1::$P > /tmp/vfb.log 2>&1; log "FALLBACK $?"
grep -E 'default output|output fbdev' /tmp/vfb.log
kill $H; wait $H
# A user outside the group that owns the card.
echo 'video:x:44:' >> /etc/group
chgrp video /dev/dri/card0; chmod 660 /dev/dri/card0
su -s /bin/sh nobody -c "HOME=/tmp vncfb -o drm 127.0.0.1::$P" 2>&1
log "PERM $?"
drmpeek crtc | sed 's/^/AFTERBAD /'
kdprobe /dev/tty1 | sed 's/^/AFTERBADVT /'
# The fallback run above had the server's first update.
start_vncfb /tmp/v1.log 2
log STAGE drawn
# Switched away, vncfb is no longer the master: a display server on the
# other VT could take the card.
waitfor /tmp/v1.log 'VT 1 released' 60
drmpeek hold 0 > /tmp/away.log 2>&1; log "AWAYMASTER $?"
waitfor /tmp/srv.log 'KEY 0 0x7a' 60
kdprobe /dev/tty1 | sed 's/^/DURING /'
kill -TERM $V; wait $V; log "EXIT1 $?"
drmpeek crtc | sed 's/^/AFTERTERM /'
kdprobe /dev/tty1 | sed 's/^/AFTERTERMVT /'
log STAGE term
hostwait term
start_vncfb /tmp/v2.log 3
kill -KILL $V; wait $V; log "EXIT2 $?"
''' + WAIT_GONE + r'''
drmpeek crtc | sed 's/^/AFTERKILL /'
kdprobe /dev/tty1 | sed 's/^/AFTERKILLVT /'
''',
        'events': [
            'wait STAGE pre', 'shot pre', 'ack pre',
            'wait STAGE drawn', 'shot a',
            'key ctrl alt f2', 'wait VT 1 released timeout=60', 'sleep 1',
            'screendump {tmp}/b.ppm',
            'key ctrl alt f1', 'wait VT 1 acquired timeout=60', 'shot c',
            'type z',
            'wait STAGE term', 'shot t', 'ack term',
        ],
        # b: the other VT's text console, not the picture; t and z:
        # fbcon's picture as before vncfb (after SIGTERM, SIGKILL).
        'dumps': {'a': True, 'b': False, 'c': True},
        'same_dumps': [('pre', 't'), ('pre', 'z')],
        # Ctrl+Alt go to the server and are released at the switch,
        # in either order.
        'keys': [(1, 0xffe3), (1, 0xffe9), (0, 0xffe3), (0, 0xffe9),
                 (1, 0x7a), (0, 0x7a)],
        'keys_sorted': True,
        'ptrs': [],
        'probes': {'DURING': 'KDMODE graphics VTMODE process ACTIVE 1',
                   'BEFOREVT': 'KDMODE text VTMODE auto ACTIVE 1'},
        'check': same_lines('BEFORE', ['AFTERBAD', 'AFTERTERM',
                                       'AFTERKILL']),
        'exits': {'NODEV': 1, 'NOCONN': 1, 'NOMODE': 1, 'MASTER': 1,
                  'AWAYMASTER': 0,
                  'FALLBACK': 0, 'PERM': 1, 'EXIT1': 0, 'EXIT2': 137},
        'log': [
            'vncfb: /dev/dri/card9: no such device (is a KMS driver',
            'vncfb: /dev/dri/card0: no connector HDMI-A-1 (Virtual-1 '
            'connected)',
            'vncfb: /dev/dri/card0: Virtual-1 has no mode 1000x700 (it has '
            '1024x768@',
            'vncfb: /dev/dri/card0: another program is the DRM master',
            'default output: drm not used: /dev/dri/card0: another program',
            'default output: fbdev',
            "vncfb: /dev/dri/card0: permission denied (add the user to the "
            "'video' group",
            'default output: drm', 'output drm 1024x768 xrgb8888',
            'two buffers, page flips (atomic)'],
    },
    # virtio-gpu at a mode chosen with --mode: page flips with the local
    # cursor moved about (the buffer that missed a move must not keep
    # the cursor's old place), then one buffer and DIRTYFB, scaled to
    # fit; the previous mode back after each; the probe table; a
    # connector with no display on it.
    'virtio': {
        'vm': ['--fb', 'virtio', '--fbcon', 'keep', '--mouse', 'usb',
               '--qemu-arg=-global', '--qemu-arg=virtio-vga.max_outputs=2',
               '--screendump', '{tmp}/z.ppm'],
        'srv': ['--size', '800x600', '--cursor'],
        'bins': ['tests/vm/drmpeek'],
        'guest': TEXT + r'''
drmpeek crtc | sed 's/^/BEFORE /'
log STAGE pre
hostwait pre
# Waits for it (no other display it could say so on: Virtual-1's one
# CRTC is the console's).
vncfb --connector Virtual-2 --exit-after 3 127.0.0.1::$P 2>&1; log "NOTCONN $?"
vncfb probe -o drm > /tmp/probe.log 2>&1; log "PROBE $?"
grep '^output' /tmp/probe.log
# bench -o drm: the flips shown and the time from each pass to its flip.
vncfb bench -o drm --workload fullframe --duration 4 --cpu 0 \
	> /tmp/bench.log 2>&1; log "BENCH $?"
sed -n '/^Shown on the display/,/^(/p' /tmp/bench.log | sed 's/^/BENCHFLIP /'
VARGS='--connector virtual-1 --mode 800x600'
start_vncfb /tmp/v1.log 1
log STAGE drawn
waitfor /tmp/srv.log 'PTR 700 500 0' 60
log STAGE moved
waitfor /tmp/srv.log 'KEY 0 0x71' 60
kill -TERM $V; wait $V; log "EXIT1 $?"
drmpeek crtc | sed 's/^/AFTERTERM /'
log STAGE term
hostwait term
# One buffer, DIRTYFB, the desktop scaled to fit 640x480; a server
# without the cursor, so the picture is the server's alone.
testserver --console --size 800x600 > /tmp/srv2.log 2>&1 &
waitfor /tmp/srv2.log READY 20
P2=$(sed -n 's/^READY //p' /tmp/srv2.log)
setsid -c vncfb -v --encodings copyrect,tight,zrle,hextile,raw \
	-o drm:buffers=1 --mode 640x480 --scale fit \
	127.0.0.1::$P2 < /dev/tty1 > /tmp/v2.log 2>&1 &
V=$!
waitfor /tmp/srv2.log SENT 60
sleep 3
log STAGE single
waitfor /tmp/srv2.log 'KEY 0 0x77' 60
kill -TERM $V; wait $V; log "EXIT2 $?"
drmpeek crtc | sed 's/^/AFTERSINGLE /'
# Nothing else puts the CRTC back: fbcon unbound (no forced restore at
# KD_TEXT), the card kept open (no restore at its last close). Without
# vncfb's own restore the CRTC would be left off.
for v in /sys/class/vtconsole/vtcon*; do
	grep -q 'frame buffer' $v/name && echo 0 > $v/bind
done
for sig in TERM KILL; do
	setsid -c vncfb --mode 640x480 127.0.0.1::$P2 < /dev/tty1 \
		> /tmp/v3.log 2>&1 &
	V=$!
	waitfor /tmp/v3.log 'connected to' 60
	sleep 1
	# Opened after vncfb, so vncfb stays the master.
	exec 9< /dev/dri/card0
	kill -$sig $V; wait $V; log "EXIT$sig $?"
	# The supervisor (vncfb's child) restores once vncfb is gone.
	i=0; while [ -n "$(pidof vncfb)" ] && [ $i -lt 100 ]; do i=$((i+1)); sleep 0.1; done
	drmpeek crtc | sed "s/^/ALONE$sig /"
	exec 9<&-
done
''',
        'events': [
            'wait STAGE pre', 'shot pre', 'ack pre',
            'wait STAGE drawn', 'shot a',
            # The tablet's 0..32767 over 0..799 and 0..599: the last is
            # 700,500.
            'abs 8192 8192', 'sleep 0.5', 'abs 16384 24576', 'sleep 0.5',
            'abs 28707 27352', 'wait STAGE moved timeout=60',
            'shot d', 'key q',
            'wait STAGE term', 'shot t', 'ack term',
            'wait STAGE single', 'shot s', 'key w',
        ],
        'dumps': {'a': True, 'd': True, 's': 'fit'},
        'cursor': {'a': (0, 0), 'd': (700, 500)},
        'same_dumps': [('pre', 't'), ('pre', 'z')],
        # srv's keys (the single-buffer run's go to srv2, waited for).
        'keys': [(1, 0x71), (0, 0x71)],
        'ptrs': [],
        'probes': {},
        'check': checks(same_lines('BEFORE', ['AFTERTERM', 'AFTERSINGLE',
                                              'ALONETERM', 'ALONEKILL']),
                        bench_flips),
        'exits': {'NOTCONN': 0, 'PROBE': 0, 'BENCH': 0, 'EXIT1': 0,
                  'EXIT2': 0,
                  'EXITTERM': 0, 'EXITKILL': 137},
        'log': [
            'vncfb: /dev/dri/card0: connector Virtual-2 has no display '
            'connected (Virtual-1 connected, Virtual-2 disconnected): '
            'waiting for one',
            'output drm 1280x800 xrgb8888',
            'Virtual-1, 800x600@60, CRTC',
            'output drm 800x600 xrgb8888',
            'two buffers, page flips (atomic)',
            'Virtual-1, 640x480@60, CRTC', 'one buffer, dirty-fb'],
    },
}


def vt_probes(case):
    """The VT lines after each run are as before vncfb too."""
    prev = case['check']
    case['check'] = checks(prev, same_lines(
        'BEFOREVT', ['AFTERBADVT', 'AFTERTERMVT', 'AFTERKILLVT']))


vt_probes(CASES['bochs'])


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in CASES:
        print('usage: drm_vm.py %s' % '|'.join(CASES), file=sys.stderr)
        return 2
    return run_case('drm-' + sys.argv[1], CASES[sys.argv[1]])


if __name__ == '__main__':
    sys.exit(main())
