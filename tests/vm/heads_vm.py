#!/usr/bin/env python3
"""One desktop across two DRM heads on a real kernel (virtio-gpu with
two outputs, vmrun.py --heads 2; the script's `head N WxH|off` plugs and
unplugs them).

One boot, the test server's desktop 2048x768 (it refuses SetDesktopSize):
vncfb -o drm:all starts with head 0 alone (1024x768): remote resize asks
for 1024x768, is refused, and says the fallback in one line; head 0
shows the desktop's left part, pixel-exact. Head 1 is plugged in at
1024x768 while vncfb runs: within 2 s both heads show their part of the
one 2048x768 desktop (laid out side by side), pixel-exact, each on its
own CRTC, over the one connection. SIGTERM puts the console's CRTC
back.

With "resize", against a server that resizes (testserver --resize at
1024x768), both heads plugged in before vncfb starts: remote resize asks
once for 2048x768 with two screens, the desktop becomes 2048x768, and
each head shows its half pixel-exact. Then head 1's monitor is swapped
for an 800x600 one (same connector, another preferred mode): the layout
follows, remote resize asks once more, for 1824x768, and both heads
show their part of it pixel-exact.

With "pan", a desktop larger than both heads, 1:1: a tablet spans the
whole layout, edge scrolling pans both heads as one view, and the scale
hotkey puts both in fit (the two heads together are the box filter of
the desktop fitted to the layout); with --touch-head the tablet spans
that head alone.

usage: heads_vm.py [resize|pan]
Exit 0 pass, 77 when qemu or a guest kernel is absent, 1 fail.
"""
import re
import sys

from console_vm import run_case
from hotplug_vm import crtc_back, one_connection

GUEST = r'''
log STAGE pre
preferred Virtual-1 1024x768 30
drmpeek crtc | sed 's/^/BEFORE /'
VARGS='-o drm:all --scale none'
start_vncfb /tmp/v1.log 1
log STAGE drawn
waitfor /tmp/v1.log '2 heads, one 2048x768 desktop' 60 && log STAGE plugged
waitfor /tmp/srv.log 'KEY 0 0x71' 90
kill -TERM $V; wait $V; log "EXIT1 $?"
drmpeek crtc | sed 's/^/AFTERTERM /'
grep -c 'connected to' /tmp/v1.log | sed 's/^/CONNECTS /'
'''

EVENTS = [
    'wait STAGE pre', 'head 0 1024x768',
    'wait STAGE drawn', 'sleep 4', 'screendump {tmp}/a.ppm head=0',
    # Plugged: its part of the desktop within 2 s.
    'head 1 1024x768', 'sleep 2', 'screendump {tmp}/c.ppm head=1',
    'wait STAGE plugged timeout=30', 'sleep 1',
    'screendump {tmp}/b.ppm head=0', 'screendump {tmp}/d.ppm head=1',
    'key q',
]


def two_crtcs(out):
    """Each head on a CRTC of its own."""
    crtcs = re.findall(r'(?:Virtual-1, 1024x768@\d+.*?, CRTC|head Virtual-2, '
                       r'1024x768@\d+, CRTC) (\d+)', out)
    if len(crtcs) < 2 or crtcs[-1] == crtcs[0]:
        return ['the heads\' CRTCs: %s, expected two different ones' %
                crtcs]
    print('head 0 on CRTC %s, head 1 on CRTC %s' % (crtcs[0], crtcs[-1]))
    return []


CASE = {
    'vm': ['--fb', 'virtio', '--heads', '2', '--mouse', 'usb',
           '--screendump', '{tmp}/z.ppm'],
    'srv': ['--size', '2048x768'],
    'bins': ['tests/vm/drmpeek'],
    'guest': GUEST,
    'events': EVENTS,
    'dumps': {'a': True, 'b': True, 'c': True, 'd': True},
    'crop': {'a': (0, 0, 1024, 768), 'b': (0, 0, 1024, 768),
             'c': (1024, 0, 1024, 768), 'd': (1024, 0, 1024, 768)},
    'keys': [(1, 0x71), (0, 0x71)],
    'ptrs': [],
    'probes': {},
    'check': lambda out: one_connection(out) + crtc_back(out) +
    two_crtcs(out),
    'exits': {'EXIT1': 0},
    'log': [
        'refused to resize its desktop to 1024x768 (resizing is '
        'administratively prohibited): showing 2048x768 with --scale none',
        '2 heads, one 2048x768 desktop: Virtual-1:0,0 Virtual-2:1024,0',
    ],
}


GUEST_RESIZE = r'''
# One head at a time: a head set before the guest's driver is up is lost.
for c in 1 2; do
	log STAGE head$c
	preferred Virtual-$c 1024x768 30
done
VARGS='-o drm:all'
start_vncfb /tmp/v1.log 1
waitfor /tmp/v1.log 'remote desktop is now 2048x768' 60 && log STAGE resized
preferred Virtual-2 800x600 60
waitfor /tmp/v1.log 'remote desktop is now 1824x768' 60 && log STAGE swapped
waitfor /tmp/srv.log 'KEY 0 0x71' 90
kill -TERM $V; wait $V; log "EXIT1 $?"
sed -n 's/^SETDESKTOPSIZE /ASKED /p' /tmp/srv.log
'''


def asked_once(out):
    """One SetDesktopSize for the two heads side by side, one more after
    head 1's monitor was swapped."""
    asked = re.findall(r'^ASKED (.*)$', out, re.M)
    if asked != ['2048x768', '1824x768']:
        return ['the server was asked %r, expected 2048x768 then 1824x768'
                % asked]
    print('asked once for 2048x768, then once for 1824x768')
    return []


CASE_RESIZE = {
    'vm': ['--fb', 'virtio', '--heads', '2', '--mouse', 'usb',
           '--screendump', '{tmp}/z.ppm'],
    'srv': ['--size', '1024x768', '--resize'],
    'guest': GUEST_RESIZE,
    'events': ['wait STAGE head1', 'head 0 1024x768', 'wait STAGE head2',
               'head 1 1024x768',
               'wait STAGE resized timeout=90', 'sleep 3',
               'screendump {tmp}/a.ppm head=0',
               'screendump {tmp}/b.ppm head=1',
               # Another monitor on head 1's connector.
               'head 1 800x600', 'wait STAGE swapped timeout=90',
               'sleep 3', 'screendump {tmp}/c.ppm head=0',
               'screendump {tmp}/d.ppm head=1', 'key q'],
    'dumps': {'a': True, 'b': True, 'c': True, 'd': True},
    'refs': {'a': ['--size', '2048x768', '--resize'],
             'b': ['--size', '2048x768', '--resize'],
             'c': ['--size', '1824x768', '--resize'],
             'd': ['--size', '1824x768', '--resize']},
    'crop': {'a': (0, 0, 1024, 768), 'b': (1024, 0, 1024, 768),
             'c': (0, 0, 1024, 768), 'd': (1024, 0, 800, 600)},
    'keys': [(1, 0x71), (0, 0x71)],
    'ptrs': [],
    'probes': {},
    'check': asked_once,
    'exits': {'EXIT1': 0},
    'log': [
        '2 heads, one 2048x768 desktop: Virtual-1:0,0 Virtual-2:1024,0',
        'for a 2048x768 desktop (2 screens)',
        '2 heads, one 1824x768 desktop: Virtual-1:0,0 Virtual-2:1024,0',
        'for a 1824x768 desktop (2 screens)',
    ],
}


GUEST_PAN = r'''
for c in 1 2; do
	log STAGE head$c
	preferred Virtual-$c 1024x768 30
done
VARGS='-o drm:all --scale none'
start_vncfb /tmp/v1.log 1
log STAGE drawn
waitfor /tmp/v1.log 'scale fit (Ctrl' 120 && log STAGE fit
waitfor /tmp/srv.log 'KEY 0 0x71' 90
kill -TERM $V; wait $V; log "EXIT1 $?"
VARGS='-o drm:all --scale none --touch-head virtual-2'
start_vncfb /tmp/v2.log 2
log STAGE second
waitfor /tmp/srv.log 'KEY 0 0x77' 90
kill -TERM $V; wait $V; log "EXIT2 $?"
'''

# A 2400x1000 desktop (the server refuses to resize) on two 1024x768
# heads, 1:1: one view of one 2048x768 layout, panned as one. A USB
# tablet (absolute) spans the whole layout: resting on its right edge
# (the right edge of head 1) it scrolls the view to the desktop's right
# end, and both heads move, each showing its part; the click there lands
# on the desktop's last column. Then the scale hotkey puts both heads in
# fit: the two screendumps side by side are the box filter of the whole
# desktop fitted to 2048x768. Then vncfb again with --touch-head
# virtual-2: the tablet's top-left corner is head 1's, desktop column
# 1024 (not an edge of the layout: no scrolling).
CASE_PAN = {
    'vm': ['--fb', 'virtio', '--heads', '2', '--mouse', 'usb',
           '--screendump', '{tmp}/z.ppm'],
    'srv': ['--size', '2400x1000'],
    'guest': GUEST_PAN,
    'events': ['wait STAGE head1', 'head 0 1024x768', 'wait STAGE head2',
               'head 1 1024x768',
               'wait STAGE drawn', 'sleep 2', 'abs 32767 16384',
               'sleep 6', 'screendump {tmp}/a.ppm head=0',
               'screendump {tmp}/b.ppm head=1', 'click left',
               'key ctrl alt shift s', 'wait STAGE fit timeout=60',
               'sleep 2', 'screendump {tmp}/c.ppm head=0',
               'screendump {tmp}/d.ppm head=1', 'key q',
               'wait STAGE second timeout=90', 'sleep 2', 'abs 0 0',
               'sleep 1', 'click left', 'sleep 1', 'key w'],
    'dumps': {'a': True, 'b': True, 'cd': 'fit'},
    'stitch': {'cd': [('c', 0, 0), ('d', 1024, 0)]},
    # Panned to the desktop's right end: columns 352..2399, row 0 on
    # top (the pointer rests mid-height, away from the vertical edges).
    'crop': {'a': (352, 0, 1024, 768), 'b': (1376, 0, 1024, 768)},
    'keys': [(1, 0xffe3), (1, 0xffe9), (1, 0xffe1),
             (0, 0xffe1), (0, 0xffe9), (0, 0xffe3), (1, 0x71), (0, 0x71),
             (1, 0x77), (0, 0x77)],
    # Layout column 2047 (head 1's last), row 384 of 768; then head 1's
    # top-left corner.
    'ptrs': [(2399, 384, 0), (2399, 384, 1), (2399, 384, 0),
             (1024, 0, 0), (1024, 0, 1), (1024, 0, 0)],
    'probes': {},
    'exits': {'EXIT1': 0, 'EXIT2': 0},
    'log': [
        '2 heads, one 2048x768 desktop: Virtual-1:0,0 Virtual-2:1024,0',
        'showing 2400x1000 with --scale none',
    ],
}


if __name__ == '__main__':
    if sys.argv[1:] == ['resize']:
        sys.exit(run_case('drm-heads-resize', CASE_RESIZE))
    if sys.argv[1:] == ['pan']:
        sys.exit(run_case('drm-heads-pan', CASE_PAN))
    sys.exit(run_case('drm-heads', CASE))
