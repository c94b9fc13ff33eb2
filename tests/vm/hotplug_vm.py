#!/usr/bin/env python3
"""vncfb's DRM output and hot-plug on a real kernel (virtio-gpu with two
heads, driven through vmrun.py --heads: the script's `head N WxH|off` is
a SetDesktopSize to the QEMU VNC display bound to that head, which
virtio-gpu turns into the guest's hot-plug uevent).

One boot: vncfb on head 0 at 1024x768 (the server's size: pixel-exact);
head 0's preferred mode changes to 800x600 while it runs (the output is
re-opened, the picture box-filtered to fit, the remote-resize fallback
said again in one line); head 0 is unplugged (one line, the connection
stays); head 1 is plugged in at 1024x768 and shows the picture within
2 s, pixel-exact, on its own CRTC; the CRTC is put back on exit. A
second vncfb reads the connectors every 2 s instead of listening for
uevents (VNCFB_DRM_HOTPLUG=poll) and follows a mode change too. A mode
change made while vncfb's VT is switched away is taken at the switch
back.

With "lit", a head the console has lit becomes the first head through
hot-plug: both heads plugged in before vncfb starts (the kernel's fbdev
emulation lights both, each on its own CRTC, the only one virtio-gpu
lets its output use), vncfb -o drm on head 0; head 0 unplugged, and
vncfb moves to head 1 on the console's CRTC, as it would take it at
start: pixel-exact within 2 s, one connection, and the console's
framebuffer back on that CRTC after SIGTERM.

usage: hotplug_vm.py [lit]
Exit 0 pass, 77 when qemu or a guest kernel is absent, 1 fail.
"""
import re
import sys

from console_vm import run_case

GUEST = r'''
# head 0 at the server's size before vncfb starts.
log STAGE pre
preferred Virtual-1 1024x768 30
drmpeek crtc | sed 's/^/BEFORE /'
VARGS='--scale fit'
start_vncfb /tmp/v1.log 1
log STAGE drawn
waitfor /tmp/v1.log 'Virtual-1 at 800x600' 60 && log STAGE resized
waitfor /tmp/v1.log 'Virtual-1 is disconnected: waiting for a display' 60 &&
	log STAGE gone
waitfor /tmp/v1.log 'Virtual-2 at 1024x768' 60 && log STAGE plugged
# A change while switched to another VT: its uevent is taken at the
# switch back.
waitfor /tmp/v1.log 'Virtual-2 at 800x600' 90 && log STAGE back1
waitfor /tmp/srv.log 'KEY 0 0x71' 60
kill -TERM $V; wait $V; log "EXIT1 $?"
drmpeek crtc | sed 's/^/AFTERTERM /'
grep -c 'connected to' /tmp/v1.log | sed 's/^/CONNECTS /'
# Without uevents: the connectors read every 2 s.
log STAGE second
preferred Virtual-1 1024x768 30
export VNCFB_DRM_HOTPLUG=poll
start_vncfb /tmp/v2.log 2
log STAGE drawn2
waitfor /tmp/v2.log 'Virtual-1 at 800x600' 60 && log STAGE resized2
waitfor /tmp/srv.log 'KEY 0 0x77' 60
kill -TERM $V; wait $V; log "EXIT2 $?"
'''

EVENTS = [
    'wait STAGE pre', 'head 0 1024x768',
    'wait STAGE drawn', 'shot a head=0',
    'head 0 800x600', 'wait STAGE resized timeout=60', 'shot b head=0',
    'head 0 off', 'wait STAGE gone timeout=60', 'sleep 1',
    # Plugged: its part of the picture (all of it, one output) within 2 s.
    'head 1 1024x768', 'sleep 2', 'screendump {tmp}/c.ppm head=1',
    'wait STAGE plugged timeout=30',
    'key ctrl alt f2', 'wait VT 1 released timeout=60',
    'head 1 800x600', 'sleep 3',
    'key ctrl alt f1', 'wait STAGE back1 timeout=60', 'shot e head=1',
    'key q',
    'wait STAGE second timeout=60', 'head 0 1024x768',
    'wait STAGE drawn2 timeout=60', 'sleep 1', 'head 0 800x600',
    'wait STAGE resized2 timeout=60', 'shot d head=0', 'key w',
]


def one_connection(out):
    """The connection stayed through every change: connected once."""
    m = re.search(r'^CONNECTS (\d+)$', out, re.M)
    if not m or m.group(1) != '1':
        return ['connected %s times, expected once (the connection must '
                'stay across hot-plugs)' % (m.group(1) if m else '?')]
    print('one connection across the hot-plugs')
    return []


def crtc_back(out):
    """The console's framebuffer back on its CRTC after exit. Its mode is
    the kernel's fbdev emulation's own choice: it takes the hot-plugs it
    was told of (those while vncfb's VT was away, and the rest once
    vncfb lets go of the card) into its mode, as it would without
    vncfb."""
    a = re.search(r'^BEFORE (CRTC fb \d+) ', out, re.M)
    b = re.search(r'^AFTERTERM (CRTC fb \d+) ', out, re.M)
    if not a or not b or a.group(1) != b.group(1):
        return ['after exit %s, expected %s' % (
            b.group(1) if b else '?', a.group(1) if a else '?')]
    print('the console\'s framebuffer back after exit: %s' % a.group(1))
    return []


CASE = {
    'vm': ['--fb', 'virtio', '--heads', '2', '--mouse', 'usb',
           '--screendump', '{tmp}/z.ppm'],
    'srv': ['--size', '1024x768'],
    'bins': ['tests/vm/drmpeek'],
    'guest': GUEST,
    'events': EVENTS,
    'dumps': {'a': True, 'b': 'fit', 'c': True, 'd': 'fit', 'e': 'fit'},
    # Ctrl+Alt go to the server and are released at the switch.
    'keys': [(1, 0x71), (0, 0x71), (1, 0xffe3), (1, 0xffe9), (0, 0xffe3),
             (0, 0xffe9), (1, 0x77), (0, 0x77)],
    'keys_sorted': True,
    'ptrs': [],
    'probes': {},
    'check': lambda out: one_connection(out) + crtc_back(out) +
    moved_atomic(out),
    'exits': {'EXIT1': 0, 'EXIT2': 0},
    'log': [
        'hot-plug: the kernel\'s uevents',
        'Virtual-1, 1024x768@',
        'Virtual-1 at 800x600@',
        # The server refuses to resize: the fallback said again in one
        # line for the new size.
        'refused to resize its desktop to 800x600 (resizing is '
        'administratively prohibited): showing 1024x768 with --scale fit',
        'Virtual-1 is disconnected: waiting for a display',
        'Virtual-2 at 1024x768@',
        'hot-plug: no uevents (VNCFB_DRM_HOTPLUG=poll): the connectors '
        'are read every 2000 ms',
    ],
}


GUEST_LIT = r'''
# Both heads plugged in before vncfb, one at a time: the console lights
# each.
for c in 1 2; do
	log STAGE head$c
	preferred Virtual-$c 1024x768 30
done
sleep 1
drmpeek crtcs | sed 's/^/BEFORE /'
VARGS='-o drm --scale none'
start_vncfb /tmp/v1.log 1
log STAGE drawn
waitfor /tmp/v1.log 'Virtual-2 at 1024x768' 60 && log STAGE moved
waitfor /tmp/srv.log 'KEY 0 0x71' 60
kill -TERM $V; wait $V; log "EXIT1 $?"
drmpeek crtcs | sed 's/^/AFTERTERM /'
grep -c 'connected to' /tmp/v1.log | sed 's/^/CONNECTS /'
'''


def moved_atomic(out):
    """The head moved to Virtual-2's CRTC flips with atomic commits on
    that CRTC's primary plane, as at open."""
    if re.search(r'Virtual-2: CRTC \d+, two buffers, page flips \(atomic\)',
                 out):
        return []
    return ['the head moved to Virtual-2 does not flip with atomic commits']


def lit_back(out):
    """Head 1's CRTC was the console's before vncfb (the test's
    premise) and is again after it."""
    a = re.search(r'^BEFORE CRTC 1 (.*)$', out, re.M)
    b = re.search(r'^AFTERTERM CRTC 1 (.*)$', out, re.M)
    if not a or not a.group(1).startswith('fb ') or \
            'Virtual-2' not in a.group(1):
        return ['before vncfb head 1\'s CRTC: %s, expected lit by the '
                'console' % (a.group(1) if a else '?')]
    if not b or b.group(1) != a.group(1):
        return ['after exit head 1\'s CRTC: %s, expected %s' % (
            b.group(1) if b else '?', a.group(1))]
    print('head 1\'s CRTC the console\'s before and after: %s' %
          a.group(1))
    return []


CASE_LIT = {
    'vm': ['--fb', 'virtio', '--heads', '2', '--mouse', 'usb'],
    'srv': ['--size', '1024x768'],
    'bins': ['tests/vm/drmpeek'],
    'guest': GUEST_LIT,
    'events': [
        'wait STAGE head1', 'head 0 1024x768', 'wait STAGE head2',
        'head 1 1024x768', 'wait STAGE drawn', 'shot a head=0',
        # Unplugged: head 1, lit by the console, shows the picture
        # within 2 s.
        'head 0 off', 'sleep 2', 'screendump {tmp}/b.ppm head=1',
        'wait STAGE moved timeout=30', 'key q',
    ],
    'dumps': {'a': True, 'b': True},
    'keys': [(1, 0x71), (0, 0x71)],
    'ptrs': [],
    'probes': {},
    'check': lambda out: one_connection(out) + lit_back(out) +
    moved_atomic(out),
    'exits': {'EXIT1': 0},
    # Moved at once: never "has no free CRTC: waiting".
    'log': ['Virtual-2 at 1024x768@'],
}


if __name__ == '__main__':
    if sys.argv[1:] == ['lit']:
        sys.exit(run_case('drm-hotplug-lit', CASE_LIT))
    sys.exit(run_case('drm-hotplug', CASE))
