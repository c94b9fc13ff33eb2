#!/usr/bin/env python3
"""vncfb --rotate on a real kernel (qemu guest of tests/vm/vmrun.py,
through console_vm.run_case), one boot a driver: for 90, 180, 270 and 0
degrees in turn, vncfb asks the server (testserver --resize) for the
turned size and the panel's screendump, turned back, is the server's
picture pixel for pixel; -v says that the blitter turns it.

usage: rotate_vm.py CASE   (CASE: fbdev (vesafb), bochs, virtio (drm))
Exit 0 pass, 77 when qemu or a guest kernel is absent, 1 fail.
"""
import sys

from console_vm import run_case

ANGLES = (90, 180, 270, 0)


def case(vm, output, w, h):
    guest = ''
    for k, a in enumerate(ANGLES):
        guest += r'''
VARGS="%s --rotate %d" start_vncfb /tmp/v%d.log %d
log STAGE r%d
# Until the host has its screendump of the turned picture.
hostwait r%d
kill -TERM $V; wait $V; log "EXIT%d $?"
''' % (output, a, a, k + 1, a, a, a)
    events = []
    for a in ANGLES:
        events += ['wait STAGE r%d timeout=200' % a, 'shot r%d' % a,
                   'ack r%d' % a]
    turned = {a: ['--size', '%dx%d' % ((h, w) if a in (90, 270) else (w, h)),
                  '--resize'] for a in ANGLES}
    return {
        'vm': vm,
        'srv': ['--size', '%dx%d' % (w, h), '--resize'],
        'guest': guest,
        'events': events,
        'dumps': {'r%d' % a: ('rot', a) for a in ANGLES},
        'refs': {'r%d' % a: turned[a] for a in ANGLES},
        'keys': [],
        'ptrs': [],
        'probes': {},
        'exits': {'EXIT%d' % a: 0 for a in ANGLES},
        'log': ['turned %d degrees by the blitter' % a for a in ANGLES
                if a],
    }


CASES = {
    'fbdev': case(['--fb', 'vesa', '--mode', '1024x768x32'], '-o fbdev',
                  1024, 768),
    'bochs': case(['--fb', 'bochs', '--res', '1024x768'], '-o drm',
                  1024, 768),
    'virtio': case(['--fb', 'virtio'], '-o drm', 1280, 800),
}

if __name__ == '__main__':
    if len(sys.argv) != 2 or sys.argv[1] not in CASES:
        print('usage: rotate_vm.py %s' % '|'.join(CASES), file=sys.stderr)
        sys.exit(2)
    sys.exit(run_case(sys.argv[1], CASES[sys.argv[1]]))
