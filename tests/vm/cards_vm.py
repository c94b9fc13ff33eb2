#!/usr/bin/env python3
"""One desktop across the connectors of two DRM cards on a real kernel:
two virtio-gpu devices (vmrun.py --fb virtio --fb2 virtio), the guest's
/dev/dri/card0 (Virtual-1, head 0 of the first device) and card1
(Virtual-2, head 0 of the second: the script's `head 1.0`). The kernel
numbers connectors of a type across cards, so the names differ.

One boot, the test server's desktop 2048x768 (it refuses
SetDesktopSize), each card's head at 1024x768:

  1. vncfb -o drm:all takes both cards: one 2048x768 desktop, card0's
     head its left half and card1's its right half, each pixel-exact,
     each head's blit thread placed by a probe of its own mapping; a
     VT switch away gives up the master of both cards (another program
     takes each meanwhile), and back both heads are pixel-exact again;
     one connection; after SIGTERM each card's CRTC is as before
     vncfb.
  2. card1's head unplugged, vncfb -o drm:all starts on card0's alone;
     card1's head plugged in while it runs (card1's own hot-plug
     uevent): within 2 s both halves of one 2048x768 desktop,
     pixel-exact; card0's head unplugged: the first head moves to
     card1's display, pixel-exact; one connection; after SIGKILL the
     supervisor puts each card's CRTC back on its card (card0's to the
     console's framebuffer, card1's off, as it was when vncfb took it).
  3. --connector card1:Virtual-2,card0:Virtual-1: card1's head the
     left half this time, pixel-exact, each card's CRTC back after
     SIGTERM.
  4. As 2 without uevents (VNCFB_DRM_HOTPLUG=poll: both cards'
     connectors read every 2 s): card1's head plugged in joins the
     desktop, pixel-exact.
  5. --connector card1:Virtual-1 names a connector card1 lacks: one
     line saying so, exit 1.
  6. vncfb probe -o drm:all opens both cards and measures.
  7. --check-config finds that card3:Virtual-1 names a card the guest
     has not (exit 2).

Each card is held open by another file across every exit, so that the
kernel's own restore at a card's last close hides nothing: what the
CRTCs show is what vncfb (or its supervisor) put back.

usage: cards_vm.py
Exit 0 pass, 77 when qemu or a guest kernel is absent, 1 fail.
"""
import re
import sys

from console_vm import run_case

GUEST = r'''
pref() {  # pref CARD CONNECTOR WxH|off SECONDS
	i=0
	while true; do
		if [ "$3" = off ]; then
			grep -qx disconnected /sys/class/drm/$1-$2/status && break
		else
			grep -qx connected /sys/class/drm/$1-$2/status &&
				head -1 /sys/class/drm/$1-$2/modes | grep -qx "$3" &&
				break
		fi
		i=$((i + 1)); [ $i -gt $(($4 * 10)) ] && { log "TIMEOUT $1-$2 $3"; return 1; }
		sleep 0.1
	done
}
crtcs() {  # crtcs TAG: each card's CRTCs
	for c in 0 1; do drmpeek crtcs /dev/dri/card$c | sed "s/^/$1 card$c /"; done
}
stop() {  # stop SIG N TAG: the cards held, vncfb ended, its supervisor gone
	exec 8< /dev/dri/card0 9< /dev/dri/card1
	kill -$1 $V; wait $V; log "EXIT$2 $?"
	i=0; while [ -n "$(pidof vncfb)" ] && [ $i -lt 100 ]; do i=$((i+1)); sleep 0.1; done
	crtcs $3
	exec 8<&- 9<&-
	grep -c 'connected to' /tmp/v$2.log | sed "s/^/CONNECTS$2 /"
	grep -c 'keeps the console state' /tmp/v$2.log | sed "s/^/SUPERVISED$2 /"
}
log STAGE pre
pref card0 Virtual-1 1024x768 30
log STAGE pre1
pref card1 Virtual-2 1024x768 30
sleep 1
crtcs BEFORE

VARGS='-o drm:all --scale none'
start_vncfb /tmp/v1.log 1
waitfor /tmp/v1.log '2 heads, one 2048x768 desktop' 60 && log STAGE drawn1
# Switched away: another program may be the master of either card.
waitfor /tmp/v1.log 'VT 1 released' 60
for c in 0 1; do
	drmpeek hold 0 /dev/dri/card$c > /dev/null 2>&1; log "AWAYMASTER$c $?"
done
log STAGE away1
waitfor /tmp/v1.log 'VT 1 acquired' 60 && log STAGE back1
waitfor /tmp/srv.log 'KEY 0 0x71' 90
stop TERM 1 AFTERTERM1

log STAGE unplug2
pref card1 Virtual-2 off 30
sleep 1
crtcs START2
start_vncfb /tmp/v2.log 2
waitfor /tmp/v2.log '1024x768@' 60 && log STAGE plug2
waitfor /tmp/v2.log '2 heads, one 2048x768 desktop' 60 && log STAGE drawn2
sleep 1
crtcs RUN2
waitfor /tmp/v2.log 'card1: Virtual-2 at 1024x768' 60 && log STAGE moved2
waitfor /tmp/srv.log 'KEY 0 0x77' 90
stop KILL 2 AFTERKILL2

log STAGE replug3
pref card0 Virtual-1 1024x768 30
pref card1 Virtual-2 1024x768 30
sleep 1
crtcs START3
VARGS='--connector card1:Virtual-2,card0:Virtual-1 --scale none'
start_vncfb /tmp/v3.log 3
waitfor /tmp/v3.log '2 heads, one 2048x768 desktop' 60 && log STAGE drawn3
waitfor /tmp/srv.log 'KEY 0 0x65' 90
stop TERM 3 AFTERTERM3

log STAGE unplug4
pref card1 Virtual-2 off 30
VARGS='-o drm:all --scale none'
export VNCFB_DRM_HOTPLUG=poll
start_vncfb /tmp/v4.log 4
unset VNCFB_DRM_HOTPLUG
log STAGE plug4
waitfor /tmp/v4.log '2 heads, one 2048x768 desktop' 60 && log STAGE drawn4
waitfor /tmp/srv.log 'KEY 0 0x72' 90
kill -TERM $V; wait $V; log "EXIT4 $?"

vncfb -o drm --connector card1:Virtual-1 127.0.0.1::$P < /dev/tty1 \
	> /tmp/v5.log 2>&1
log "EXIT5 $?"
vncfb probe -o drm:all > /tmp/v6.log 2>&1
log "EXIT6 $?"
vncfb --check-config --connector card3:Virtual-1 > /tmp/v7.log 2>&1
log "EXIT7 $?"
'''

EVENTS = [
    'wait STAGE pre', 'head 0 1024x768', 'wait STAGE pre1',
    'head 1.0 1024x768',
    'wait STAGE drawn1 timeout=120', 'shot a head=0', 'shot b head=1.0',
    'key ctrl alt f2', 'wait STAGE away1 timeout=60', 'key ctrl alt f1',
    'wait STAGE back1 timeout=60', 'shot g head=0', 'shot h head=1.0',
    'key q',
    # Card1's head plugged in while vncfb runs on card0's.
    'wait STAGE unplug2 timeout=120', 'head 1.0 off',
    'wait STAGE plug2 timeout=120', 'head 1.0 1024x768', 'sleep 2',
    'screendump {tmp}/d.ppm head=1.0',
    'wait STAGE drawn2 timeout=60', 'shot c head=0',
    # The first head's display gone: it moves to card1's.
    'head 0 off', 'wait STAGE moved2 timeout=60', 'shot i head=1.0', 'key w',
    'wait STAGE replug3 timeout=120', 'head 0 1024x768',
    'head 1.0 1024x768',
    'wait STAGE drawn3 timeout=120', 'shot e head=1.0', 'shot f head=0',
    'key e',
    # Without uevents.
    'wait STAGE unplug4 timeout=120', 'head 1.0 off',
    'wait STAGE plug4 timeout=120', 'head 1.0 1024x768',
    'wait STAGE drawn4 timeout=60', 'shot j head=1.0', 'key r',
]


def crtc_lines(out, tag):
    """{'cardN CRTC i': state} of the lines tag printed."""
    return {'%s CRTC %s' % m[:2]: m[2] for m in re.findall(
        r'^%s (card\d) CRTC (\d+) (.*)$' % tag, out, re.M)}


def cards_back(out):
    """Every run on both cards, one connection each, and each card's
    CRTCs as before vncfb (run 2: card1's off, as when vncfb took it)."""
    fails = []
    before = crtc_lines(out, 'BEFORE')
    if sorted(before) != ['card0 CRTC 0', 'card1 CRTC 0'] or \
            not before['card0 CRTC 0'].startswith('fb '):
        return ['before vncfb: %s, expected one CRTC a card, card0\'s the '
                'console\'s' % before]
    start2 = crtc_lines(out, 'START2')
    run2 = crtc_lines(out, 'RUN2')
    want = {'AFTERTERM1': before,
            'AFTERKILL2': dict(start2, **{'card1 CRTC 0': 'off'}),
            'AFTERTERM3': crtc_lines(out, 'START3')}
    if start2.get('card1 CRTC 0') != 'off' or \
            not run2.get('card1 CRTC 0', 'off').startswith('fb '):
        fails.append('run 2: card1\'s CRTC %s before, %s while vncfb ran; '
                     'expected off, then lit' % (
                         start2.get('card1 CRTC 0'),
                         run2.get('card1 CRTC 0')))
    for tag, w in want.items():
        got = crtc_lines(out, tag)
        if got != w:
            fails.append('%s: %s, expected %s' % (tag, got, w))
        else:
            print('%s: each card\'s CRTC as before vncfb: %s' % (tag, w))
    for n in (1, 2, 3):
        m = re.search(r'^CONNECTS%d (\d+)$' % n, out, re.M)
        if not m or m.group(1) != '1':
            fails.append('run %d: connected %s times, expected once' % (
                n, m.group(1) if m else '?'))
    m = re.search(r'^SUPERVISED2 (\d+)$', out, re.M)
    if not m or m.group(1) != '1':
        fails.append('run 2 had no supervisor to put the CRTCs back')
    return fails


CASE = {
    'vm': ['--fb', 'virtio', '--heads', '1', '--fb2', 'virtio',
           '--mouse', 'usb', '--timeout', '450'],
    'srv': ['--size', '2048x768'],
    'bins': ['tests/vm/drmpeek'],
    'guest': GUEST,
    'events': EVENTS,
    'dumps': {'a': True, 'b': True, 'c': True, 'd': True, 'e': True,
              'f': True, 'g': True, 'h': True, 'i': True, 'j': True},
    'crop': {'a': (0, 0, 1024, 768), 'b': (1024, 0, 1024, 768),
             'g': (0, 0, 1024, 768), 'h': (1024, 0, 1024, 768),
             'i': (0, 0, 1024, 768), 'j': (1024, 0, 1024, 768),
             'c': (0, 0, 1024, 768), 'd': (1024, 0, 1024, 768),
             'e': (0, 0, 1024, 768), 'f': (1024, 0, 1024, 768)},
    # Ctrl+Alt of the switch away go to the server and are released at
    # the switch.
    'keys': [(1, 0xffe3), (1, 0xffe9), (0, 0xffe3), (0, 0xffe9),
             (1, 0x71), (0, 0x71), (1, 0x77), (0, 0x77), (1, 0x65),
             (0, 0x65), (1, 0x72), (0, 0x72)],
    'keys_sorted': True,
    'ptrs': [],
    'probes': {'AWAYMASTER0': '0', 'AWAYMASTER1': '0'},
    'check': cards_back,
    'exits': {'EXIT1': 0, 'EXIT2': 137, 'EXIT3': 0, 'EXIT4': 0,
              'EXIT5': 1, 'EXIT6': 0, 'EXIT7': 2},
    'log': [
        '2 heads, one 2048x768 desktop: Virtual-1:0,0 Virtual-2:1024,0',
        '2 heads, one 2048x768 desktop: Virtual-2:0,0 Virtual-1:1024,0',
        'hot-plug: the kernel\'s uevents (cards 226:0, 226:1)',
        'hot-plug: no uevents (VNCFB_DRM_HOTPLUG=poll): the connectors '
        'are read every 2000 ms',
        # Each head's core from a probe of its own mapping.
        'blit thread of Virtual-1 runs on core',
        'blit thread of Virtual-2 runs on core',
        '/dev/dri/card1: no connector card1:Virtual-1 (Virtual-2 '
        'connected): --connector names one of these',
        '/dev/dri/card3: no such device (card3:Virtual-1 names it: is its '
        'KMS driver loaded?)',
    ],
}


if __name__ == '__main__':
    sys.exit(run_case('drm-cards', CASE))
