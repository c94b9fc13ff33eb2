#!/usr/bin/env python3
"""vncfb --rotate 90 against TigerVNC's Xvnc inside the guest (as
xvnc_vm.py, whose picture and guest prelude it shares): a 1024x768 head
of virtio-gpu turned a quarter clockwise asks, by remote resize
(SetDesktopSize), for a 768x1024 desktop; Xvnc becomes 768x1024 (xrandr:
one monitor of that size, xwd -root the picture) and the head's QMP
screendump, turned back, is that desktop pixel for pixel; -v says who
turns it (the blitter on virtio-gpu, whose plane has no rotation).

Exit 0 pass, 77 when qemu, a guest kernel, Xvnc or the X programs the
guest needs are absent, 1 fail.
"""
import os
import re
import subprocess
import sys

from console_vm import compare, report, run_failures, turn_back
from xvnc_vm import FALLBACK, check_screens, picture, vm_command

PANEL = (1024, 768)
ANGLE = 90

GUEST = r'''
preferred Virtual-1 1024x768 30
VARGS='-o drm --rotate 90'
start_vncfb /tmp/v1.log
waitfor /tmp/v1.log 'remote desktop is now 768x1024' 90 &&
	xscreen TURNED && log STAGE turned
waitfor /tmp/v1.log 'quit chord pressed' 120 || kill -TERM $V
wait $V; log "EXIT1 $?"
'''

EVENTS = ['wait STAGE turned timeout=180', 'sleep 2',
          'screendump {tmp}/t.ppm head=0', 'key ctrl alt backspace']

SCREENS = {'START': (1280, 1024, [(0, 0, 1280, 1024)]),
           'TURNED': (768, 1024, [(0, 0, 768, 1024)])}

LOG = ['remote desktop is now 768x1024',
       'for a 768x1024 desktop (1 screen)',
       'turned 90 degrees by the blitter']


def main():
    cmd, tmp, rows = vm_command(GUEST, ['--heads', '1', '--res',
                                        '%dx%d' % PANEL], EVENTS)
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, errors='replace')
    out = r.stdout
    fails = run_failures(r)
    if not re.search(r'^EXIT1 0$', out, re.M):
        fails.append('vncfb did not exit 0 on the quit chord')
    if not re.search(r'^CONNECTS 1$', out, re.M):
        fails.append('not one connection throughout')
    fails += check_screens(out, rows, SCREENS)
    path = os.path.join(tmp, 't.ppm')
    if not os.path.exists(path):
        fails.append('no screendump of the head')
    else:
        lw, lh, pix = turn_back(path, ANGLE)
        with open(os.path.join(tmp, 'back.ppm'), 'wb') as f:
            f.write(b'P6\n%d %d\n255\n' % (lw, lh) + pix)
        bad, why = compare(os.path.join(tmp, 'back.ppm'),
                           (768, 1024, picture(rows, 768, 1024, 'rgb')))
        if bad is None or bad:
            fails.append('the %dx%d head turned back is not the 768x1024 '
                         'desktop: %s' % (PANEL + (
                             why if bad is None else
                             '%d pixels differ, %s' % (bad, why),)))
        else:
            print('head 0 (%dx%d) turned back %d degrees: the 768x1024 '
                  'desktop, pixel-exact' % (PANEL + (ANGLE,)))
    said = FALLBACK.findall(out)
    if said:
        fails.append('vncfb said a fallback: %s' % said)
    for want in LOG:
        if want not in out:
            fails.append('vncfb did not log "%s"' % want)
    return report('xvnc-rotate', fails, out, r.stderr, tmp)


if __name__ == '__main__':
    sys.exit(main())
