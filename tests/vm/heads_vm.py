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

With "kill", after SIGKILL (and SIGABRT) every CRTC is as after SIGTERM
and as the console had it before vncfb took it: a head plugged in while
vncfb runs, one plugged in while its VT is switched away, the first head
made again on another CRTC (CASE_KILL below).

usage: heads_vm.py [resize|pan|kill]
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
    'wait STAGE drawn', 'shot a head=0',
    # Plugged: its part of the desktop within 2 s.
    'head 1 1024x768', 'sleep 2', 'screendump {tmp}/c.ppm head=1',
    'wait STAGE plugged timeout=30', 'shot b head=0', 'shot d head=1',
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
               'wait STAGE resized timeout=90', 'shot a head=0',
               'shot b head=1',
               # Another monitor on head 1's connector.
               'head 1 800x600', 'wait STAGE swapped timeout=90',
               'shot c head=0', 'shot d head=1', 'key q'],
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
               'shot a head=0', 'shot b head=1', 'click left',
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


# "kill": every head as after SIGTERM after SIGKILL too, and as the
# console had it before vncfb took it. Another file keeps the card open
# across each exit (as a display server on another VT does),
# so that the kernel's own restore at the card's last close (its fbdev
# emulation lights every connected head again) hides nothing: what the
# heads show is what vncfb and its supervisor put back. Three ways a
# head comes to vncfb, each ended by SIGTERM and by SIGKILL (the
# supervisor's restore), "away" by SIGABRT without a supervisor too (the
# fatal-signal handler's, in vncfb itself):
#   plug: head 1 plugged in while vncfb runs (its CRTC was off);
#   away: head 1 plugged in while vncfb's VT is switched away: the
#         kernel's fbdev emulation lights it (no DRM master then), and
#         back on VT 1 vncfb takes it over;
#   moved: head 0 unplugged, then head 1 plugged in: the first head is
#         made again on Virtual-2, on another CRTC.
KILL_PRELUDE = r'''
status() {  # status CONNECTOR connected|disconnected SECONDS
	i=0
	while ! grep -qx "$2" /sys/class/drm/card0-$1/status 2>/dev/null; do
		i=$((i + 1)); [ $i -gt $(($3 * 10)) ] && { log "TIMEOUT $1 $2"; return 1; }
		sleep 0.1
	done
}
crtcs() { drmpeek crtcs | sed "s/^/$1 /"; }
log STAGE pre
preferred Virtual-1 1024x768 30
status Virtual-2 disconnected 30
sleep 1
crtcs BEFORE
VARGS='-o drm:all --scale none'
'''

# Each run's end: the card held, the signal, the supervisor gone, the
# CRTCs; then the card let go of.
KILL_END = r'''
exec 9< /dev/dri/card0
kill -{sig} $V; wait $V; log "EXIT{n} $?"
i=0; while [ -n "$(pidof vncfb)" ] && [ $i -lt 100 ]; do i=$((i+1)); sleep 0.1; done
crtcs {tag}
exec 9<&-
grep -c 'keeps the console state' /tmp/v{n}.log | sed 's/^/SUPERVISED{n} /'
'''


KILL_RUNS = [('plug', 'TERM'), ('plug', 'KILL'), ('away', 'TERM'),
             ('away', 'KILL'), ('away', 'ABRT'), ('moved', 'TERM'),
             ('moved', 'KILL')]
KILL_STATUS = {'TERM': 0, 'KILL': 137, 'ABRT': 134}


def kill_runs():
    """The guest script and the events of the runs."""
    guest, events = KILL_PRELUDE, ['wait STAGE pre', 'head 0 1024x768']
    for n, (way, sig) in enumerate(KILL_RUNS, 1):
        tag = '%s%s' % (way.upper(), sig)
        guest += 'crtcs START%d\n' % n
        # SIGABRT: the handler's restore alone.
        guest += 'VNCFB_NO_SUPERVISOR=%d; export VNCFB_NO_SUPERVISOR\n' % (
            sig == 'ABRT')
        guest += 'start_vncfb /tmp/v%d.log %d\n' % (n, n)
        if way == 'plug':
            guest += 'log STAGE plug%d\n' % n
            events += ['wait STAGE plug%d timeout=120' % n,
                       'head 1 1024x768']
        elif way == 'away':
            guest += (r'''log STAGE away{n}
waitfor /tmp/v{n}.log 'VT 1 released' 60 && log STAGE released{n}
status Virtual-2 connected 30
sleep 2
crtcs AWAY{n}
log STAGE back{n}
''').format(n=n)
            events += ['wait STAGE away%d timeout=120' % n,
                       'key ctrl alt f2',
                       'wait STAGE released%d timeout=60' % n,
                       'head 1 1024x768',
                       'wait STAGE back%d timeout=60' % n,
                       'key ctrl alt f1']
        else:
            guest += (r'''log STAGE gone{n}
waitfor /tmp/v{n}.log 'waiting for a display' 60 && log STAGE waiting{n}
waitfor /tmp/v{n}.log 'Virtual-2 at 1024x768' 60
''').format(n=n)
            events += ['wait STAGE gone%d timeout=120' % n, 'head 0 off',
                       'wait STAGE waiting%d timeout=60' % n,
                       'head 1 1024x768']
        if way != 'moved':
            guest += ("waitfor /tmp/v%d.log '2 heads, one 2048x768' "
                      "60\n" % n)
        guest += 'sleep 1\ncrtcs RUN%d\n' % n
        guest += KILL_END.format(sig=sig, n=n, tag=tag)
        # Back to one head, head 0, as at the start.
        guest += (r'''log STAGE reset{n}
status Virtual-1 connected 30
status Virtual-2 disconnected 30
sleep 2
''').format(n=n)
        events += ['wait STAGE reset%d timeout=120' % n, 'head 1 off']
        if way == 'moved':
            events += ['head 0 1024x768']
    return guest, events


def crtc_lines(out, tag):
    """{CRTC index: state} of the lines tag printed."""
    return dict(re.findall(r'^%s CRTC (\d+) (.*)$' % tag, out, re.M))


def as_term_and_console(out):
    """After SIGKILL (and SIGABRT) each CRTC is as after SIGTERM, and as
    the console had it before vncfb took it: BEFORE's, but for head 1
    plugged in while switched away, which the console had lit (AWAY)."""
    fails = []
    before = crtc_lines(out, 'BEFORE')
    if set(before) != {'0', '1'} or before['1'] != 'off':
        return ['before vncfb: %s, expected CRTC 0 lit and 1 off' % before]
    for n in range(1, len(KILL_RUNS) + 1):
        if crtc_lines(out, 'START%d' % n) != before:
            fails.append('run %d started from %s, not as before vncfb' % (
                n, crtc_lines(out, 'START%d' % n)))
    away = [crtc_lines(out, 'AWAY%d' % n)
            for n, (way, _) in enumerate(KILL_RUNS, 1) if way == 'away']
    if any(a != away[0] for a in away) or \
            not away[0].get('1', 'off').startswith('fb '):
        return fails + ['head 1 plugged while away: %s, expected lit by '
                        'the console each time' % away]
    for n, (way, sig) in enumerate(KILL_RUNS, 1):
        m = re.search(r'^SUPERVISED%d (\d+)$' % n, out, re.M)
        if not m or int(m.group(1)) != (sig != 'ABRT'):
            fails.append('run %d (%s, SIG%s): %s supervisor, expected %s' % (
                n, way, sig, m.group(1) if m else '?', int(sig != 'ABRT')))
    for way in ('plug', 'away', 'moved'):
        want = dict(before, **({'1': away[0]['1']} if way == 'away' else {}))
        got = {sig: crtc_lines(out, way.upper() + sig)
               for w, sig in KILL_RUNS if w == way}
        bad = ['%s: after SIG%s %s, expected %s (as after SIGTERM, and the '
               'console\'s)' % (way, sig, g, want)
               for sig, g in got.items() if g != want]
        if bad:
            fails += bad
        else:
            print('%s: after %s as the console had it: %s' % (
                way, ', '.join('SIG' + sig for sig in got), want))
    return fails


KILL_GUEST, KILL_EVENTS = kill_runs()
CASE_KILL = {
    # Seven runs of vncfb in one boot.
    'vm': ['--fb', 'virtio', '--heads', '2', '--mouse', 'usb',
           '--timeout', '450'],
    'srv': ['--size', '2048x768'],
    'bins': ['tests/vm/drmpeek'],
    'guest': KILL_GUEST,
    'events': KILL_EVENTS,
    'dumps': {},
    # Ctrl+Alt of each switch away go to the server and are released at
    # the switch.
    'keys': [(1, 0xffe3), (1, 0xffe9), (0, 0xffe3), (0, 0xffe9)] *
    sum(1 for way, _ in KILL_RUNS if way == 'away'),
    'keys_sorted': True,
    'ptrs': [],
    'probes': {},
    'check': as_term_and_console,
    'exits': {'EXIT%d' % n: KILL_STATUS[sig]
              for n, (_, sig) in enumerate(KILL_RUNS, 1)},
    'log': ['2 heads, one 2048x768 desktop: Virtual-1:0,0 Virtual-2:1024,0',
            'Virtual-2 at 1024x768'],
}


if __name__ == '__main__':
    if sys.argv[1:] == ['resize']:
        sys.exit(run_case('drm-heads-resize', CASE_RESIZE))
    if sys.argv[1:] == ['pan']:
        sys.exit(run_case('drm-heads-pan', CASE_PAN))
    if sys.argv[1:] == ['kill']:
        sys.exit(run_case('drm-heads-kill', CASE_KILL))
    sys.exit(run_case('drm-heads', CASE))
