#!/usr/bin/env python3
"""Touch screens on a real kernel (qemu guest of tests/vm/vmrun.py,
through console_vm.run_case), one boot on vesafb 1024x768: a uinput
multi-touch screen with type B slots and a resolution (tests/vm/touchdev)
against ptrserver, which logs every PointerEvent and KeyEvent.

* For --rotate 0, 90, 180 and 270 (a server of the turned size, 1:1): a
  tap at each corner of the panel clicks the remote pixel that the
  picture turned by that angle shows there, and two fingers drawn down
  the panel turn the wheel the way the upright picture's down is.
* Upright, the gestures of TigerVNC's mapping reach the server as its
  buttons and keys: one-, two- and three-finger taps click 1, 3 and 2
  where the fingers are, a long press is button 3 pressed and released,
  a drag is button 1 from where the finger landed to where it lifted,
  two fingers down and left are wheel buttons 4 and 7, a pinch is
  Control with 4 (apart) or 5 (together).
* --touch pointer: the same screen is an absolute pointer, a touch of
  one finger or two, short or long, button 1 where the first one is.

usage: touch_vm.py
Exit 0 pass, 77 when qemu or a guest kernel is absent, 1 fail.
"""
import math
import re
import sys

from console_vm import run_case

PW, PH = 1024, 768          # the panel
UX, UY = 4095, 3071         # the touch screen's ranges (16 units a mm)
ANGLES = (0, 90, 180, 270)
# The wheel button of two fingers drawn down the panel: the page follows
# them, down the upright picture at 0, to its right at 90 (its top is on
# the panel's right), up at 180, left at 270.
WHEEL_DOWN_PANEL = {0: 4, 90: 6, 180: 5, 270: 7}


def pixel(u, umax, size):
    """A device position to the pixel it points at (the session rounds
    the fraction of the screen's last pixel)."""
    return int(math.floor(u / umax * (size - 1) + 0.5))


def upright(angle, px, py):
    """The pixel of the upright picture that panel pixel (px, py) shows,
    for a picture turned clockwise by angle (console_vm.turn_back, the
    other way round)."""
    if angle == 90:
        return py, PW - 1 - px
    if angle == 180:
        return PW - 1 - px, PH - 1 - py
    if angle == 270:
        return PH - 1 - py, px
    return px, py


CORNERS = ((0, 0), (UX, 0), (UX, UY), (0, UY))


def two_down(x0, x1, y, steps, dx=0, dy=80):
    """Two fingers landing at (x0, y) and (x1, y), drawn steps frames of
    (dx, dy) each, 20 ms apart, then lifted."""
    cmds = ['d 0 %d %d' % (x0, y), 'd 1 %d %d' % (x1, y), 's']
    for k in range(1, steps + 1):
        cmds += ['m 0 %d %d' % (x0 + k * dx, y + k * dy),
                 'm 1 %d %d' % (x1 + k * dx, y + k * dy), 's', 'w 20']
    return cmds + ['u 0', 'u 1', 's']


def pinch(xa, xb, y, steps, d):
    """Two fingers at (xa, y) and (xb, y) drawn d units apart (or
    together, d < 0) each, a frame at a time, then lifted."""
    cmds = ['d 0 %d %d' % (xa, y), 'd 1 %d %d' % (xb, y), 's']
    for k in range(1, steps + 1):
        cmds += ['m 0 %d %d' % (xa - k * d, y), 'm 1 %d %d' % (xb + k * d, y),
                 's', 'w 20']
    return cmds + ['u 0', 'u 1', 's']


def taps_at(*pts):
    cmds = []
    for i, (x, y) in enumerate(pts):
        cmds += ['d %d %d %d' % (i, x, y)]
    cmds += ['s', 'w 80'] + ['u %d' % i for i in range(len(pts))] + ['s']
    return cmds


PAUSE = ['w 1200']
GESTURES = (taps_at((800, 800)) + PAUSE +
            taps_at((2000, 800), (2400, 800)) + PAUSE +
            taps_at((1000, 2000), (1400, 2000), (1800, 2000)) + PAUSE +
            ['d 0 3000 2400', 's', 'w 1600', 'u 0', 's'] + PAUSE +
            ['d 0 400 400', 's'] +
            sum([['m 0 %d 400' % (400 + 80 * k), 's', 'w 20']
                 for k in range(1, 11)], []) + ['u 0', 's'] + PAUSE +
            two_down(1500, 2500, 1000, 8) + PAUSE +
            two_down(2500, 3500, 1500, 8, dx=-80, dy=0) + PAUSE +
            pinch(2000, 2400, 1500, 8, 80) + PAUSE +
            pinch(1000, 3000, 1500, 8, -80) + ['w 500'])


def feed(cmds):
    """Shell lines handing cmds to touchdev."""
    return '\n'.join("T '%s'" % c for c in cmds) + '\n'


def guest():
    g = r'''
mkfifo /tmp/tf
touchdev < /tmp/tf > /tmp/td.log 2>&1 &
exec 3> /tmp/tf
waitfor /tmp/td.log 'TOUCHDEV READY' 20 || exit 1
T() { echo "$1" >&3; }
# ptrserver answers the first update request alone: a --timeout longer
# than a stage keeps vncfb's liveness ping from dropping it meanwhile.
run() {  # run TAG W H VNCFB-ARGS: vncfb against a ptrserver of W x H
	ptrserver --size ${2}x$3 > /tmp/p$1.log 2>&1 &
	waitfor /tmp/p$1.log READY 20
	PP=$(sed -n 's/^READY //p' /tmp/p$1.log)
	setsid -c vncfb -v -o fbdev --scale none --timeout 600 $4 \
		127.0.0.1::$PP \
		< /dev/tty1 > /tmp/v$1.log 2>&1 &
	V=$!
	waitfor /tmp/p$1.log '^SENT' 90
	waitfor /tmp/v$1.log 'vncfb-test touch' 30
	sleep 1
}
stop() {  # stop TAG: once touchdev has played it all
	T "echo DONE$1"
	waitfor /tmp/td.log "^DONE$1" 120
	sleep 3
	kill -TERM $V; wait $V; log "EXIT$1 $?"
	sed "s/^/S$1 /" /tmp/p$1.log
}
'''
    for a in ANGLES:
        w, h = (PH, PW) if a in (90, 270) else (PW, PH)
        cmds = []
        for x, y in CORNERS:
            cmds += ['tap %d %d' % (x, y)] + PAUSE
        cmds += two_down(1500, 2500, 1000, 8)
        g += 'run %d %d %d "--rotate %d"\n' % (a, w, h, a)
        g += feed(cmds) + 'stop %d\n' % a
    g += 'run G %d %d ""\n' % (PW, PH) + feed(GESTURES) + 'stop G\n'
    g += ('run P %d %d "--touch pointer"\n' % (PW, PH) + feed(
        taps_at((2000, 800), (2400, 800)) + PAUSE +
        ['d 0 400 400', 's', 'w 1600', 'u 0', 's']) + 'stop P\n')
    return g


def server_lines(out, tag):
    """ptrserver's PTR and KEY lines of a stage, in order."""
    return re.findall(r'^S%s (PTR \d+ \d+ \d+|KEY \d 0x[0-9a-f]+)$' % tag,
                      out, re.M)


def presses(lines):
    """Tokens for what the server saw: P<mask>@x,y where the buttons went
    from none to some, R@x,y where they went back to none, K1/K0 for
    Control down and up."""
    toks, mask = [], 0
    for l in lines:
        f = l.split()
        if f[0] == 'KEY':
            toks.append('K%s' % f[1] if f[2] == '0xffe3' else 'K?' + f[2])
            continue
        x, y, m = int(f[1]), int(f[2]), int(f[3])
        if m and not mask:
            toks.append('P%d@%d,%d' % (m, x, y))
        elif mask and not m:
            toks.append('R@%d,%d' % (x, y))
        elif m != mask:
            toks.append('P%d@%d,%d' % (m, x, y))
        mask = m
    return toks


def at(ux, uy):
    return '%d,%d' % (pixel(ux, UX, PW), pixel(uy, UY, PH))


def check(out):
    fails = []
    for a in ANGLES:
        lw, lh = (PH, PW) if a in (90, 270) else (PW, PH)
        toks = presses(server_lines(out, a))
        want = []
        for x, y in CORNERS:
            px, py = pixel(x, UX, PW), pixel(y, UY, PH)
            want += ['P1@%d,%d' % upright(a, px, py)]
        clicks = [t for t in toks if t.startswith('P1@')]
        if clicks != want:
            fails.append('--rotate %d: the corners clicked %s, not %s'
                         % (a, clicks, want))
        wheel = 1 << (WHEEL_DOWN_PANEL[a] - 1)
        seen = [t for t in toks if t.startswith('P') and
                not t.startswith('P1@')]
        if len(seen) < 2 or any(not t.startswith('P%d@' % wheel)
                                for t in seen):
            fails.append('--rotate %d: fingers down the panel gave %s, '
                         'not wheel button %d' % (a, seen,
                                                  WHEEL_DOWN_PANEL[a]))
        else:
            print('--rotate %d: corners %s, wheel button %d x%d' % (
                a, clicks, WHEEL_DOWN_PANEL[a], len(seen)))
    toks = ' '.join(presses(server_lines(out, 'G')))
    # Each tap and press: its button where the fingers were (a tap's
    # release where it was pressed), the drag released where it lifted.
    want = (r'^P1@{t1} R@{t1} P4@{t2} R@{t2} P2@{t3} R@{t3} '
            r'P4@{lp} R@{lp} P1@{d0} R@{d1} '
            r'(P8@{s1} R@{s1} ){{2,}}(P64@{s2} R@{s2} ){{2,}}'
            r'(K1 (P8@{p1} R@{p1} )+K0 )+(K1 (P16@{p2} R@{p2} )+K0 )+$'
            ).format(t1=at(800, 800), t2=at(2200, 800), t3=at(1400, 2000),
                     lp=at(3000, 2400), d0=at(400, 400), d1=at(1200, 400),
                     s1=at(2000, 1000), s2=at(3000, 1500),
                     p1=at(2200, 1500), p2=at(2000, 1500))
    if not re.match(want, toks + ' '):
        fails.append('gestures: the server saw\n  %s\nnot\n  %s' % (
            toks, want))
    else:
        print('gestures: %s' % toks)
    # --touch pointer: a touch is button 1 where the first finger is,
    # two fingers and a long press alike.
    toks = presses(server_lines(out, 'P'))
    want = ['P1@%s' % at(2000, 800), 'R@%s' % at(2000, 800),
            'P1@%s' % at(400, 400), 'R@%s' % at(400, 400)]
    if toks != want:
        fails.append('--touch pointer: the server saw %s, not %s' % (
            toks, want))
    else:
        print('--touch pointer: %s' % ' '.join(toks))
    return fails


CASE = {
    'vm': ['--fb', 'vesa', '--mode', '1024x768x32', '--module', 'uinput',
           '--timeout', '600'],
    'server': 'tests/vm/ptrserver',
    'srv': [],
    'bins': ['tests/vm/touchdev'],
    'guest': guest(),
    'events': [],
    'dumps': {},
    'keys': [],
    'ptrs': [],
    'check': check,
    'probes': {},
    'exits': dict({'EXIT%d' % a: 0 for a in ANGLES}, EXITG=0, EXITP=0),
    'log': ['(vncfb-test touch) touch screen (gestures)',
            '(vncfb-test touch) absolute pointer'],
}

if __name__ == '__main__':
    if len(sys.argv) != 1:
        print('usage: touch_vm.py', file=sys.stderr)
        sys.exit(2)
    sys.exit(run_case('touch', CASE))
