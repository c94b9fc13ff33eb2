"""vncfb built for arm64 on a console of an arm64 guest: qemu-system-aarch64's
`virt` machine under TCG with virtio-gpu, Debian's arm64 kernel and the
cross tree's programs (tests/vm/vmrun.py --arch arm64, vmarm64.py), the
checks of tests/vm/console_vm.py's run_case: the screendump pixel for
pixel the test server's picture, the keys and the pointer at the server,
the console given back.

An arm64 guest under TCG is slow (the same boot takes several times an
x86-64 one's), so the subset is small, one boot each (doc/testing.md):

  vm-drm    -o drm on virtio-gpu's DRM card at its 800x600 mode: the
            picture, a key, SIGTERM puts the CRTC and fbcon's picture
            back
  vm-fbdev  -o fbdev on the same device's fbdev emulation: the picture,
            the tablet's pointer, SIGTERM gives the VT back in text mode

Called by cross_test.py (PART vm-drm, vm-fbdev) with the sysroot and the
cross tree made."""
import os
import re
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'vm'))
from console_vm import run_case  # noqa: E402
from drm_vm import TEXT, same_lines  # noqa: E402

# The programs run_case copies into every guest (tests/vm/console_vm.py),
# built in the cross tree, with vncfb.
TARGETS = ['vncfb', 'tests/server/testserver', 'tests/vm/kdprobe',
           'tests/vm/fbpeek', 'tests/vm/drmpeek', 'tests/vm/ptrserver',
           'tests/scale/test_scale']

# Under TCG, on a loaded machine, vncfb may still be decoding the first
# update many seconds after the server sent it: the picture is taken once
# vncfb has used no CPU time for 2 s (utime + stime, all its threads, in
# clock ticks; at most 2 a second counts as none), at most 120 s.
IDLE = r'''
idle() {  # idle PID
	last=-1; still=0; i=0
	while [ $still -lt 2 ] && [ $i -lt 120 ]; do
		t=$(awk '{ print $14 + $15 }' /proc/$1/stat)
		if [ $last -ge 0 ] && [ $((t - last)) -le 2 ]; then
			still=$((still + 1))
		else
			still=0
		fi
		last=$t; i=$((i + 1)); sleep 1
	done
	[ $still -ge 2 ] && log "IDLE after $i s" || log "TIMEOUT idle $1"
}
'''


def idle_said(out):
    """A check: the guest said when vncfb went idle (for the log)."""
    m = re.search(r'^IDLE after (\d+) s$', out, re.M)
    if not m:
        return ['the guest did not say vncfb went idle']
    print('vncfb idle %s s after the server sent its picture' % m.group(1))
    return []


# Each: the guest, 800x600 as the server's desktop.
VM = ['--arch', 'arm64', '--fb', 'virtio', '--mouse', 'virtio',
      '--res', '800x600']

CASES = {
    'vm-drm': {
        'vm': VM + ['--fbcon', 'keep', '--screendump', '{tmp}/z.ppm'],
        'srv': ['--size', '800x600'],
        'bins': ['tests/vm/drmpeek'],
        'guest': IDLE + TEXT + r'''
drmpeek crtc | sed 's/^/BEFORE /'
log STAGE pre
VARGS='-o drm'
start_vncfb /tmp/v1.log 1
idle $V
log STAGE drawn
waitfor /tmp/srv.log 'KEY 0 0x71' 90
kill -TERM $V; wait $V; log "EXIT1 $?"
''' + r'''
i=0; while [ -n "$(pidof vncfb)" ] && [ $i -lt 100 ]; do i=$((i+1)); sleep 0.1; done
drmpeek crtc | sed 's/^/AFTERTERM /'
log STAGE term
''',
        'events': ['wait STAGE pre timeout=90', 'screendump {tmp}/pre.ppm',
                   'wait STAGE drawn timeout=150', 'sleep 1',
                   'screendump {tmp}/a.ppm', 'key q',
                   'wait STAGE term timeout=90', 'sleep 1',
                   'screendump {tmp}/t.ppm'],
        'dumps': {'a': True},
        'same_dumps': [('pre', 't')],
        'keys': [(1, 0x71), (0, 0x71)],
        'ptrs': [],
        'probes': {},
        'check': lambda out: same_lines('BEFORE', ['AFTERTERM'])(out) +
        idle_said(out),
        'exits': {'EXIT1': 0},
        'log': ['output drm 800x600 xrgb8888',
                'two buffers, page flips (atomic)'],
    },
    'vm-fbdev': {
        'vm': VM,
        'srv': ['--size', '800x600'],
        'guest': IDLE + r'''
VARGS='-o fbdev'
start_vncfb /tmp/v1.log 1
idle $V
log STAGE drawn
waitfor /tmp/srv.log 'PTR 400 300 0' 90
sleep 0.5
kill -TERM $V; wait $V; log "EXIT1 $?"
kdprobe /dev/tty1 | sed 's/^/AFTERTERM /'
''',
        # The tablet's 0..32767 over 0..799 and 0..599: the middle.
        'events': ['wait STAGE drawn timeout=150', 'sleep 1',
                   'screendump {tmp}/a.ppm', 'abs 16384 16384'],
        'dumps': {'a': True},
        'keys': [],
        'ptrs': [(400, 300, 0)],
        'check': idle_said,
        'probes': {'AFTERTERM': 'KDMODE text VTMODE auto ACTIVE 1'},
        'exits': {'EXIT1': 0},
        'log': ['output fbdev 800x600 xrgb8888'],
    },
}


def run(part, root, bdir, build):
    """One case in the cross tree bdir (built with build(bdir, targets)),
    its programs' libraries from the sysroot root. 0 pass, 1 fail, 77
    skip (no qemu-system-aarch64; vmrun's kernel and packages as the
    x86-64 tests')."""
    if not shutil.which('qemu-system-aarch64'):
        print('SKIP: qemu-system-aarch64 is not installed (package '
              'qemu-system-arm)', file=sys.stderr)
        return 77
    build(bdir, TARGETS)
    # run_case's: the programs, and the reference picture made on this
    # machine by the arm64 test server under qemu-user.
    os.environ.update(VNCFB=os.path.join(bdir, 'vncfb'),
                      VNCFB_BUILD_ROOT=bdir, QEMU_LD_PREFIX=root,
                      VNCFB_VM_SYSROOT=root)
    return run_case('cross-arm64-' + part, CASES[part])
