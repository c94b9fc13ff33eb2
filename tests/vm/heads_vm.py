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

usage: heads_vm.py [resize]
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


if __name__ == '__main__':
    if sys.argv[1:] == ['resize']:
        sys.exit(run_case('drm-heads-resize', CASE_RESIZE))
    sys.exit(run_case('drm-heads', CASE))
