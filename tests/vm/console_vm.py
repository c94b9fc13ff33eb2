#!/usr/bin/env python3
"""vncfb on a real kernel console (qemu guest of tests/vm/vmrun.py): the picture
on /dev/fb0 pixel-exact, keys and pointer reaching the server, VT switching
and the console given back after SIGTERM, a crash and the quit chord.

usage: console_vm.py CASE   (CASE: vesa32, bochs32, vesa16, vesa15,
       vesa24, pan, fit32, xkeys, vfb8, ssse3, extmouse, plainmouse;
       run_case() is for
       drm_vm.py too)
Needs VNCFB (the binary) and VNCFB_BUILD_ROOT (tests/meson.build sets
them). Exit 0 pass, 77 when qemu or a guest kernel is absent, 1 fail.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

from vmio import read_ppm
from vmskip import vm_run_or_skip

# What every guest script starts with: the user vncfb drops to, and the
# waits (xvnc_vm.py's guests too).
GUEST_HELPERS = r'''
# vncfb started as root drops to nobody once its devices are open.
grep -q '^nobody:' /etc/passwd 2>/dev/null ||
	echo 'nobody:x:65534:65534:nobody:/nonexistent:/bin/false' >> /etc/passwd
grep -q '^nogroup:' /etc/group 2>/dev/null ||
	echo 'nogroup:x:65534:' >> /etc/group
log() { echo "$@"; }
waitfor() {  # waitfor FILE REGEX SECONDS [COUNT]: COUNT lines match
	i=0
	# A file not there yet (a background job's redirection not yet
	# opened) counts as no line: grep -c prints nothing for it.
	while n=$(grep -c "$2" "$1" 2>/dev/null); [ "${n:-0}" -lt "${4:-1}" ]; do
		i=$((i + 1)); [ $i -gt $(($3 * 10)) ] && { log "TIMEOUT $2"; return 1; }
		sleep 0.1
	done
}
preferred() {  # preferred CONNECTOR WxH SECONDS: its first mode is WxH
	i=0
	while ! head -1 /sys/class/drm/card0-$1/modes 2>/dev/null | grep -q "^$2\$"; do
		i=$((i + 1)); [ $i -gt $(($3 * 10)) ] && { log "TIMEOUT $1 at $2"; return 1; }
		sleep 0.1
	done
}
'''

# The guest side. testserver's output goes to the console stream (for the
# event script's "wait") and to a file (for the guest's own waits).
GUEST_PRELUDE = GUEST_HELPERS + r'''
$SRV $SRVARGS > /tmp/srv.log 2>&1 &
waitfor /tmp/srv.log READY 20 || exit 1
P=$(sed -n 's/^READY //p' /tmp/srv.log)
start_vncfb() {  # start_vncfb LOG N: waits for its first update
	: > $1
	# The server's SENT lines so far (N-1 unless an earlier client left
	# before its first update): this one's is the next.
	n0=$(grep -c '^SENT' /tmp/srv.log)
	# As after a login on tty1 (or systemd's TTYPath): the VT is stdin
	# and the controlling terminal, which lets vncfb switch VTs after it
	# has dropped root.
	# The pictures are compared pixel-exact: a lossless list of its
	# own keeps auto-select, which reads a guest under TCG as a slow
	# link, from going to JPEG (a test's VARGS may say otherwise).
	setsid -c vncfb -v --encodings copyrect,tight,zrle,hextile,raw \
		$VARGS 127.0.0.1::$P < /dev/tty1 >> $1 2>&1 &
	V=$!
	# Its log on the console too, for the event script's waits.
	tail -f $1 &
	i=0
	while [ "$(grep -c '^SENT' /tmp/srv.log)" -le $n0 ]; do
		i=$((i + 1)); [ $i -gt 300 ] && { log "TIMEOUT vncfb $2"; break; }
		sleep 0.1
	done
}
'''

GUEST_END = r'''
log "--- server"; cat /tmp/srv.log
for f in /tmp/v*.log; do log "--- $f"; cat $f; done
'''


def picture_case(mode, srv, fmt, before='', probes=None, exits=None,
                 log=()):
    """vesafb at mode: the picture pixel-exact, then SIGTERM gives the
    console back. before: guest commands first, with their probes, exit
    codes and log lines."""
    return {
        'vm': ['--fb', 'vesa', '--mode', mode],
        'srv': srv,
        'guest': before + r'''
start_vncfb /tmp/v1.log 1
log STAGE drawn
hostwait drawn
kill -TERM $V; wait $V; log "EXIT1 $?"
kdprobe /dev/tty1 | sed 's/^/AFTERTERM /'
''',
        'events': ['wait STAGE drawn', 'shot a', 'ack drawn'],
        'dumps': {'a': True},
        'keys': [],
        'ptrs': [],
        'probes': dict({'AFTERTERM': 'KDMODE text VTMODE auto ACTIVE 1'},
                       **(probes or {})),
        'exits': dict({'EXIT1': 0}, **(exits or {})),
        'log': ['output fbdev 1024x768 ' + fmt] + list(log),
    }


def guest_until(line, secs):
    """The guest: vncfb on, until the server prints line (a regex; at
    most secs), then SIGTERM (EXIT1)."""
    return r'''
start_vncfb /tmp/v1.log 1
log STAGE drawn
waitfor /tmp/srv.log '%s' %d
sleep 0.5
kill -TERM $V; wait $V; log "EXIT1 $?"
''' % (line, secs)


# The side and extra buttons of QEMU's input-send-event, with the left
# and right ones, for mouse_case.
MOUSE_EVENTS = [
    'wait STAGE drawn', 'sleep 1', 'abs 16384 16384', 'sleep 0.3',
    'click side', 'click extra', 'btndown side', 'btndown extra',
    'sleep 0.1', 'btnup side', 'btnup extra', 'btndown left',
    'click side', 'btnup left', 'sleep 0.3', 'click right']


def mouse_case(srv, masks, srv_lines, log):
    """MOUSE_EVENTS from a virtio tablet to ptrserver with srv: at the
    middle of the screen, the server sees masks (each change, in order),
    prints srv_lines and never a mask outside masks."""
    def check(out):
        fails = ['server did not print "%s"' % l for l in srv_lines
                 if not re.search('^%s$' % l, out, re.M)]
        if 'EXTMOUSE confirmed' not in srv_lines and \
                'EXTMOUSE confirmed' in out:
            fails.append('server confirmed ExtendedMouseButtons')
        seen = set(int(m) for m in re.findall(r'^PTR \d+ \d+ (\d+)$', out,
                                              re.M))
        if seen - set(masks):
            fails.append('masks %s at the server, not in %s' % (
                sorted(seen - set(masks)), masks))
        return fails
    return {
        'vm': ['--fb', 'vesa', '--mode', '1024x768x32', '--mouse', 'virtio'],
        'server': 'tests/vm/ptrserver',
        'srv': srv,
        'guest': guest_until('PTR [0-9]* [0-9]* 4$', 90),
        'events': MOUSE_EVENTS,
        'dumps': {},
        'keys': [],
        'ptrs': [(512, 384, m) for m in masks],
        'check': check,
        'probes': {},
        'exits': {'EXIT1': 0},
        'log': log,
    }


CASES = {
    # vesafb 32 bpp (direct VRAM), PS/2 mouse, fbcon kept so switching to
    # tty2 really draws over the picture.
    'vesa32': {
        'vm': ['--fb', 'vesa', '--fbcon', 'keep', '--mouse', 'ps2',
               '--screendump', '{tmp}/z.ppm'],
        'srv': [],
        'guest': r'''
# Text on tty1 that must be there again after vncfb.
for i in 1 2 3 4 5 6 7 8; do
	echo '########################################' > /dev/tty1
done
start_vncfb /tmp/v1.log 1
log STAGE drawn
waitfor /tmp/srv.log 'KEY 0 0x7a' 60
kdprobe /dev/tty1 | sed 's/^/DURING /'
kill -TERM $V; wait $V; log "EXIT1 $?"
kdprobe /dev/tty1 | sed 's/^/AFTERTERM /'
start_vncfb /tmp/v2.log 2
# vncfb itself runs the session (its supervisor is a child that outlives
# it): crash vncfb.
kill -SEGV $V; wait $V; log "EXIT2 $?"
# The supervisor (vncfb's child) restores once vncfb is gone; let it.
i=0; while [ -n "$(pidof vncfb)" ] && [ $i -lt 100 ]; do i=$((i+1)); sleep 0.1; done
kdprobe /dev/tty1 | sed 's/^/AFTERSEGV /'
''',
        'events': [
            'wait STAGE drawn', 'shot a',
            'type Hi', 'rel 10 5', 'sleep 0.3', 'click left',
            'wheel up', 'sleep 0.3',
            'key ctrl alt f2', 'wait VT 1 released timeout=60', 'sleep 1',
            'screendump {tmp}/b.ppm',
            'key ctrl alt f1', 'wait VT 1 acquired timeout=60', 'shot c',
            'type z',
        ],
        # z: after the crash, the text console is back on the screen.
        'dumps': {'a': True, 'b': False, 'c': True, 'z': 'text'},
        'keys': [(1, 0xffe1), (1, 0x48), (0, 0x48), (0, 0xffe1),
                 (1, 0x69), (0, 0x69),
                 # Ctrl+Alt go to the server, F2 stays local, and the
                 # switch releases what was held (or the keys' own
                 # releases come first: QEMU sends them right after, and
                 # on a busy host one read gets them with F2).
                 (1, 0xffe3), (1, 0xffe9), (0, 0xffe3), (0, 0xffe9),
                 (1, 0x7a), (0, 0x7a)],
        'keys_sorted': True,
        # The pointer starts where the server's is (its first PointerPos
        # says 0,0) and moves by the mouse's 10,5.
        'ptrs': [(10, 5, 0), (10, 5, 1), (10, 5, 0), (10, 5, 8),
                 (10, 5, 0)],
        'probes': {'DURING': 'KDMODE graphics VTMODE process ACTIVE 1',
                   'AFTERTERM': 'KDMODE text VTMODE auto ACTIVE 1',
                   'AFTERSEGV': 'KDMODE text VTMODE auto ACTIVE 1'},
        # vncfb dies of the signal (128 + 11); its supervisor child
        # has put the console back.
        'exits': {'EXIT1': 0, 'EXIT2': 139},
    },
    # bochs-drm fbdev emulation (shadow + deferred io), USB tablet
    # (absolute), the local cursor (drawn where the pointer is, its old
    # place restored), a hot-plugged keyboard, a resync after the kernel
    # dropped events, the quit chord.
    'bochs32': {
        'vm': ['--fb', 'bochs', '--res', '1024x768', '--mouse', 'usb'],
        'srv': ['--cursor'],
        'guest': r'''
# What udev does: input nodes group input, mode 660, a moment after they
# appear; vncfb drops root to a user of that group, so it can still open
# devices plugged in later.
echo 'input:x:104:' >> /etc/group
echo 'vnc:x:1000:104:vnc:/nonexistent:/bin/false' >> /etc/passwd
chgrp input /dev/input/event*; chmod 660 /dev/input/event*
(while sleep 0.5; do
	chgrp input /dev/input/event* && chmod 660 /dev/input/event*
done) &
# The fbdev emulation, not the drm output the default would pick.
VARGS='--user vnc -o fbdev'
start_vncfb /tmp/v1.log 1
log STAGE drawn
waitfor /tmp/srv.log 'KEY 0 0x78' 90
# Stopped, the session cannot read: the host's burst overflows the
# tablet's evdev buffer and the kernel drops events.
C=$V
kill -STOP $C; log STOPPED
sleep 12
kill -CONT $C; log CONTINUED
wait $V; log "EXIT1 $?"
kdprobe /dev/tty1 | sed 's/^/AFTERQUIT /'
''',
        'events': [
            'wait STAGE drawn', 'shot a',
            'abs 16384 8192', 'sleep 0.3', 'click right', 'shot d',
            'qmp {"execute": "device_add", "arguments": '
            '{"driver": "usb-kbd", "id": "k2"}}',
            'wait USB Keyboard.* keyboard timeout=60', 'sleep 0.5',
            # QEMU sends keys to the keyboard plugged in last.
            'key x',
            # The last position only survives the overflow through the
            # resync (the wheel burst after it fills the buffer).
            'wait STOPPED timeout=60', 'abs 32767 32767', 'wheel up 200',
            'wait CONTINUED timeout=60', 'sleep 1',
            'key ctrl alt backspace',
        ],
        'dumps': {'a': True, 'd': True},
        # The server's first PointerPos puts the pointer at its 0,0.
        'cursor': {'a': (0, 0), 'd': (512, 192)},
        'keys': [(1, 0x78), (0, 0x78), (1, 0xffe3), (1, 0xffe9)],
        'quit_releases': True,
        'ptrs': [(512, 192, 0), (512, 192, 4), (512, 192, 0),
                 (1023, 767, 0)],
        'ptr_ignore': 8,  # the wheel burst's clicks
        'probes': {'AFTERQUIT': 'KDMODE text VTMODE auto ACTIVE 1'},
        'exits': {'EXIT1': 0},
        'log': ['quit chord pressed', 'running as vnc',
                'events dropped by the kernel', 'QEMU USB Keyboard) keyboard',
                '/dev/input/event2: first event'],
    },
    # vesafb 16 bpp (rgb565): the shadow and the wire in the device's own
    # format.
    'vesa16': picture_case(
        '1024x768x16', ['--depth', '16'], 'rgb565', before=r'''
vncfb --input /dev/null 127.0.0.1::$P 2>&1; log "BADINPUT $?"
vncfb --keymap no-such-layout 127.0.0.1::$P 2>&1; log "BADKEYMAP $?"
kdprobe /dev/tty1 | sed 's/^/AFTERBAD /'
''',
        probes={'AFTERBAD': 'KDMODE text VTMODE auto ACTIVE 1'},
        # A device that is not there may yet appear (1); a keymap that
        # cannot compile is a usage error found before anything opens (2).
        exits={'BADINPUT': 1, 'BADKEYMAP': 2},
        log=['vncfb: /dev/null is not an evdev input device',
             "vncfb: keymap 'no-such-layout': cannot be compiled"]),
    # vesafb 15 bpp (xrgb1555): 5 bits in every channel.
    'vesa15': picture_case('1024x768x15', ['--depth', '15'], 'xrgb1555'),
    # A server that offers QEMU extended key events (as QEMU's does)
    # gets the XT scancode with each keysym: plain, 0xe0-prefixed (as
    # 0x80|code) and modifier keys, from the VM's AT keyboard.
    'xkeys': {
        'vm': ['--fb', 'vesa', '--mode', '1024x768x32'],
        'srv': ['--qemu-keys'],
        'guest': guest_until('XKEY 0 0xff53 0xcd', 60),
        'events': ['wait STAGE drawn', 'sleep 1', 'key a', 'key shift z',
                   'key right'],
        'dumps': {},
        'keys': [],
        'xkeys': [(1, 0x61, 0x1e), (0, 0x61, 0x1e),
                  (1, 0xffe1, 0x2a), (1, 0x5a, 0x2c), (0, 0x5a, 0x2c),
                  (0, 0xffe1, 0x2a),
                  (1, 0xff53, 0xcd), (0, 0xff53, 0xcd)],
        'ptrs': [],
        'probes': {},
        'exits': {'EXIT1': 0},
        'log': 'output fbdev 1024x768',
    },
    # A CPU without AVX (QEMU's Nehalem: SSSE3, SSE4.2), as in the Atom
    # and Celeron kiosk boxes: vncfb runs (no AVX2 instruction outside
    # the kernels picked at start-up), the scale tests pass with the
    # SSSE3 set picked, and fit's 3:2 path stores into vesafb's VRAM as
    # the box filter says.
    'ssse3': {
        'vm': ['--fb', 'vesa', '--mode', '1024x768x32'],
        'env': {'VNCFB_VM_CPU': 'Nehalem'},
        'bins': ['tests/scale/test_scale'],
        'srv': ['--size', '1536x1152'],
        'guest': r'''
has() { grep -q -w "$1" /proc/cpuinfo && echo yes || echo no; }
log "CPUFLAGS avx $(has avx) avx2 $(has avx2) ssse3 $(has ssse3)"
test_scale > /tmp/ts.log 2>&1
log "SCALETEST $? $(grep -o 'auto picks [a-z0-9]*' /tmp/ts.log)"
VARGS='--scale fit'
start_vncfb /tmp/v1.log 1
log STAGE drawn
hostwait drawn
kill -TERM $V; wait $V; log "EXIT1 $?"
''',
        'events': ['wait STAGE drawn', 'shot a', 'ack drawn'],
        'dumps': {'a': 'fit'},
        'keys': [],
        'ptrs': [],
        'probes': {'CPUFLAGS': 'avx no avx2 no ssse3 yes',
                   'SCALETEST': '0 auto picks ssse3'},
        'exits': {'EXIT1': 0},
        'log': 'output fbdev 1024x768',
    },
    # 8 bpp pseudo-colour, on vfb (a kernel framebuffer in RAM, 640x480x8
    # by default; QEMU's VGA BIOS has no 8 bpp mode): vncfb programs a
    # 3-3-2 colour cube over the map it finds, asks the server for rgb332,
    # and puts the map back on exit. The screendump cannot see vfb:
    # fbpeek reads the pixels through the map inside the guest.
    'vfb8': {
        'vm': ['--fb', 'none', '--module', 'vfb vfb_enable=1'],
        'srv': ['--size', '640x480'],
        'files': ['{ref}:/root/ref.ppm'],
        'guest': r'''
fbpeek /dev/fb0 setcmap
fbpeek /dev/fb0 cmap | sed 's/^/BEFORE /'
start_vncfb /tmp/v1.log 1
sleep 2
fbpeek /dev/fb0 cmap | sed 's/^/DURING /'
fbpeek /dev/fb0 cmp /root/ref.ppm
kill -TERM $V; wait $V; log "EXIT1 $?"
fbpeek /dev/fb0 cmap | sed 's/^/AFTER /'
kdprobe /dev/tty1 | sed 's/^/AFTERTERM /'
# SIGKILL: the supervisor (vncfb's child) puts the map back.
start_vncfb /tmp/v2.log 2
kill -KILL $V; wait $V; log "EXIT2 $?"
i=0; while [ -n "$(pidof vncfb)" ] && [ $i -lt 100 ]; do i=$((i+1)); sleep 0.1; done
fbpeek /dev/fb0 cmap | sed 's/^/AFTERKILL /'
''',
        'events': [],
        'dumps': {},
        'keys': [],
        'ptrs': [],
        'check': lambda out: check_cmap8(out),
        'probes': {'AFTERTERM': 'KDMODE text VTMODE auto ACTIVE 1'},
        'exits': {'EXIT1': 0, 'EXIT2': 137},
        'log': 'output fbdev 640x480 rgb332',
    },
    # vesafb 24 bpp packed: RFB cannot express it, so the shadow is
    # xrgb8888 and the blitter converts each row.
    'vesa24': picture_case('1024x768x24', [], 'rgb888'),
    # A desktop larger than the screen, shown 1:1: a USB tablet resting
    # on the right edge scrolls the view to the desktop's right end
    # (edge scrolling), and a click there lands on its last column.
    'pan': {
        'vm': ['--fb', 'bochs', '--res', '1024x768', '--mouse', 'usb'],
        'srv': ['--size', '1600x1000'],
        'guest': r'''
VARGS='-o fbdev'
start_vncfb /tmp/v1.log 1
log STAGE drawn
waitfor /tmp/srv.log 'PTR [0-9]* [0-9]* 1$' 90
sleep 1
kill -TERM $V; wait $V; log "EXIT1 $?"
''',
        'events': ['wait STAGE drawn', 'sleep 2', 'abs 32767 16384',
                   'shot a', 'click left'],
        'dumps': {'a': True},
        # The view at the desktop's right end: its columns 576..1599.
        'crop': {'a': (576, 0, 1024, 768)},
        'keys': [],
        # Screen column 1023 (the edge), row 384 (16384 of 32767).
        'ptrs': [(1599, 384, 0), (1599, 384, 1), (1599, 384, 0)],
        'probes': {},
        'exits': {'EXIT1': 0},
        'log': 'output fbdev 1024x768',
    },
    # A desktop 3/2 the screen's size in fit on vesafb's direct VRAM:
    # the 3:2 path stores straight into the real mapping (streaming
    # stores where the CPU has them); the picture is the box filter of
    # the server's (tests/scale/boxcmp). Then the scale hotkey: 1:1
    # centred on where the tablet points (the server's last PTR), and
    # back to fit; only Ctrl, Alt and Shift reach the server.
    'fit32': {
        'vm': ['--fb', 'vesa', '--mode', '1024x768x32', '--mouse', 'usb'],
        'srv': ['--size', '1536x1152'],
        'guest': r'''
VARGS='--scale fit'
start_vncfb /tmp/v1.log 1
log STAGE drawn
waitfor /tmp/v1.log 'scale fit (Ctrl' 120
hostwait done 240
kill -TERM $V; wait $V; log "EXIT1 $?"
''',
        'events': ['wait STAGE drawn', 'shot a',
                   'abs 16384 16384', 'sleep 1',
                   'key ctrl alt shift s', 'wait scale none timeout=60',
                   'sleep 2', 'screendump {tmp}/b.ppm',
                   'key ctrl alt shift s',
                   r'wait scale fit \(Ctrl timeout=60', 'shot c',
                   'ack done'],
        'dumps': {'a': 'fit', 'b': True, 'c': 'fit'},
        'crop': {'b': lambda out: centred_on_pointer(out, 1536, 1152,
                                                     1024, 768)},
        'keys': [(1, 0xffe3), (1, 0xffe9), (1, 0xffe1),
                 (0, 0xffe1), (0, 0xffe9), (0, 0xffe3)] * 2,
        'ptrs': [],
        'probes': {},
        'exits': {'EXIT1': 0},
        'log': 'output fbdev 1024x768',
    },
    # Back and forward (evdev BTN_SIDE, BTN_EXTRA from the VM's mouse)
    # to a server that confirmed ExtendedMouseButtons: buttons 8 and 9 in
    # its 7-byte PointerEvent, alone, together and with the left button.
    'extmouse': mouse_case(['--ext'], [
        0, 128, 0, 256, 0, 128, 384, 256, 0, 1, 129, 1, 0, 4, 0],
        ['EXTMOUSE confirmed'], 'takes back and forward buttons'),
    # The same presses to a server without it (it never confirms): the
    # plain 8-bit mask, back and forward dropped, never bit 7.
    'plainmouse': mouse_case([], [0, 1, 0, 4, 0], ['OFFERED extmouse yes'],
                             'connected to'),
}


def centred_on_pointer(out, rw, rh, sw, sh):
    """The part of an rw x rh desktop a sw x sh screen shows at 1:1 with
    the server's last pointer position (PTR) in the middle, clamped."""
    ptrs = re.findall(r'^PTR (\d+) (\d+) \d+$', out, re.M)
    x, y = (int(v) for v in ptrs[-1]) if ptrs else (0, 0)
    return (min(max(x - sw // 2, 0), rw - sw),
            min(max(y - sh // 2, 0), rh - sh), sw, sh)


def check_cmap8(out):
    """vfb8: the cube while vncfb runs, the map it found after (a SIGTERM
    or, through the supervisor, a SIGKILL), and the
    picture through the cube as the model says (the server rounds each
    channel to 3-3-2; within half a step of the picture)."""
    fails = []
    maps = {}
    for tag in ('BEFORE', 'DURING', 'AFTER', 'AFTERKILL'):
        m = re.search(r'^%s CMAP bpp 8 visual 3 hash (\w+) cube332 (\w+)$'
                      % tag, out, re.M)
        if not m:
            fails.append('no %s colour map (8 bpp pseudo-colour)' % tag)
        maps[tag] = m.groups() if m else None
    if all(maps.values()):
        if maps['BEFORE'][1] != 'no' or maps['DURING'][1] != 'yes':
            fails.append('colour maps %s: not the test\'s ramp, then the '
                         '3-3-2 cube' % maps)
        for tag in ('AFTER', 'AFTERKILL'):
            if maps[tag] != maps['BEFORE']:
                fails.append('colour map %s %s, not the one vncfb found '
                             '%s' % (tag, maps[tag], maps['BEFORE']))
    m = re.search(r'^CMP model (\d+) worst (\d+) (\d+) (\d+) mean ([\d.]+) '
                  r'of (\d+)$', out, re.M)
    if not m:
        fails.append('no CMP line from fbpeek')
    else:
        off, wr, wg, wb = (int(v) for v in m.groups()[:4])
        # Half a step of 3 (r, g) and 2 (b) bits, rounded up.
        if off or wr > 19 or wg > 19 or wb > 43 or int(m.group(6)) != 640 * 480:
            fails.append('picture through the colour map: %s' % m.group(0))
        else:
            print('vfb 8 bpp: %s' % m.group(0))
    return fails


def status_only(name, path):
    """Screendump path shows only the status line: black rows above a
    bar of the status line's grey (24,24,24) along the bottom with text
    in its yellow (255,208,0). The failures."""
    w, h, pix = read_ppm(path)
    bg, fg, black = b'\x18\x18\x18', b'\xff\xd0\x00', b'\0\0\0'
    row = lambda y: pix[y * w * 3:(y + 1) * w * 3]
    top = h
    while top > 0 and row(top - 1)[:3] == bg:
        top -= 1
    bar = b''.join(row(y) for y in range(top, h))
    px = [bar[i:i + 3] for i in range(0, len(bar), 3)]
    text = px.count(fg)
    other = len(px) - text - px.count(bg)
    above = sum(1 for y in range(top) if row(y) != black * w)
    if not 8 <= h - top <= 100 or text < 100 or other or above:
        return ['screendump %s (%dx%d): not the status line alone: a bar '
                'of %d rows, %d text pixels, %d of other colours in it, '
                '%d rows above it not black' % (
                    name, w, h, h - top, text, other, above)]
    print('screendump %s: the status line alone (%d rows, %d text '
          'pixels)' % (name, h - top, text))
    return []


def stitch(tmp, name, parts):
    """tmp/NAME.ppm from the screendumps parts names, each (dump, x, y):
    the layout they make, black where no head is. The failures."""
    pics = []
    for d, x, y in parts:
        path = os.path.join(tmp, d + '.ppm')
        if not os.path.exists(path):
            return ['no screendump %s for %s' % (d, name)]
        pics.append((read_ppm(path), x, y))
    lw = max(x + p[0] for p, x, _ in pics)
    lh = max(y + p[1] for p, _, y in pics)
    out = bytearray(lw * lh * 3)
    for (w, h, pix), x, y in pics:
        for r in range(h):
            o = ((y + r) * lw + x) * 3
            out[o:o + w * 3] = pix[r * w * 3:(r + 1) * w * 3]
    with open(os.path.join(tmp, name + '.ppm'), 'wb') as f:
        f.write(b'P6\n%d %d\n255\n' % (lw, lh) + bytes(out))
    return []


def crop(ref, x, y, w, h):
    """The w x h part of ref at x, y."""
    rw, rh, pix = ref
    rows = [pix[((y + r) * rw + x) * 3:((y + r) * rw + x + w) * 3]
            for r in range(h)]
    return w, h, b''.join(rows)


def with_cursor(ref, pos):
    """ref with testserver's --cursor shape (red, row r has 8 - r
    pixels, hot spot 0,0) drawn at pos."""
    w, h, pix = ref
    pix = bytearray(pix)
    for r in range(8):
        for c in range(8 - r):
            x, y = pos[0] + c, pos[1] + r
            if x < w and y < h:
                pix[(y * w + x) * 3:(y * w + x) * 3 + 3] = b'\xff\x00\x00'
    return w, h, bytes(pix)


def compare(path, ref):
    """Number of differing pixels and the first one, or None if sizes
    differ."""
    w, h, a = read_ppm(path)
    rw, rh, b = ref
    if (w, h) != (rw, rh):
        return None, 'size %dx%d, expected %dx%d' % (w, h, rw, rh)
    bad, first = 0, ''
    for i in range(0, len(b), 3):
        if a[i:i + 3] != b[i:i + 3]:
            if not bad:
                p = i // 3
                first = 'first at %d,%d: %s, expected %s' % (
                    p % w, p // w, tuple(a[i:i + 3]), tuple(b[i:i + 3]))
            bad += 1
    return bad, first


def turn_back(path, angle):
    """The screendump at path turned back by angle (the picture vncfb
    --rotate ANGLE turned clockwise on the panel): logical pixel (x, y) of
    a W x H picture is on the panel at (H-1-y, x) for 90, (W-1-x, H-1-y)
    for 180, (y, W-1-x) for 270."""
    return turn(read_ppm(path), (360 - angle) % 360)


def turn(pic, angle):
    """pic turned clockwise by angle: the panel's picture of pic with
    vncfb --rotate ANGLE (turn_back's inverse). Whole columns at a time,
    a channel a slice."""
    w, h, pix = pic
    if angle == 0:
        return pic
    out = bytearray(len(pix))
    if angle == 180:
        for c in range(3):
            out[c::3] = pix[c::3][::-1]
        return w, h, bytes(out)
    # 90: the panel's row x is the picture's column x, bottom to top;
    # 270: its row w-1-x, top to bottom.
    for x in range(w):
        row = w - 1 - x if angle == 270 else x
        o = row * h * 3
        for c in range(3):
            col = pix[x * 3 + c::w * 3]
            out[o + c:o + h * 3:3] = col[::-1] if angle == 90 else col
    return h, w, bytes(out)


def expected(case, d, ref, srv, tmp, out=None):
    """The server's picture screendump d must show (a dumps entry that is
    True or ('rot', ANGLE)), as the logical picture: cropped, with the
    cursor, another size of the server's. None when it depends on the
    guest's output and out is None (a crop computed from it)."""
    part = case.get('crop', {}).get(d)
    if callable(part):
        if out is None:
            return None
        part = part(out)
    want = ref
    if d in case.get('refs', {}):
        # Another picture of the server's (a desktop resized).
        other = os.path.join(tmp, 'ref-%s.ppm' % d)
        if not os.path.exists(other):
            subprocess.run([srv, '--console', '--dump', other] +
                           case['refs'][d],
                           check=True)
        want = read_ppm(other)
    if part:
        want = crop(want, *part)
    pos = case.get('cursor', {}).get(d)
    return with_cursor(want, pos) if pos else want


def shots(case, ref, srv, tmp, build):
    """The event lines with each `shot D [head=N]` made a screendump that
    waits for its picture: until= the expected one, written to
    tmp/want-D.ppm, where the case says what it is (dumps' True or
    ('rot', ANGLE)); for 'fit', until tests/scale/boxcmp passes on it;
    else until the picture is stable."""
    lines = []
    for ev in case['events']:
        op, _, rest = ev.partition(' ')
        if op != 'shot':
            lines.append(ev.replace('{tmp}', tmp))
            continue
        d, _, opts = rest.partition(' ')
        same = case['dumps'].get(d)
        want = None
        if same is True or (isinstance(same, tuple) and same[0] == 'rot'):
            want = expected(case, d, ref, srv, tmp)
        if want is not None and isinstance(same, tuple):
            want = turn(want, same[1])
        line = 'screendump %s %s' % (os.path.join(tmp, d + '.ppm'), opts)
        if want is not None:
            path = os.path.join(tmp, 'want-%s.ppm' % d)
            with open(path, 'wb') as f:
                f.write(b'P6\n%d %d\n255\n' % want[:2] + want[2])
            line += ' until=' + path
        elif same == 'fit':
            line += ' check=%s,%s,{},fit' % (
                os.path.join(build, 'tests', 'scale', 'boxcmp'),
                os.path.join(tmp, 'ref.ppm'))
        else:
            line += ' stable'
        lines.append(' '.join(line.split()))
    return lines


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in CASES:
        print('usage: console_vm.py %s' % '|'.join(CASES), file=sys.stderr)
        return 2
    return run_case(sys.argv[1], CASES[sys.argv[1]])


def run_case(name, case):
    """Boot the VM for case (a CASES entry; drm_vm.py has more), check
    what it asks for. 0 pass, 1 fail (exits 77 without a VM)."""
    return run_cases(name, [(name, case)])


# Between two scenarios of one boot: the last one's programs gone, its
# logs and variables too, so that the next starts as on a fresh guest.
SCENARIO_END = r'''
kill $(jobs -p) 2>/dev/null; wait
rm -f /tmp/srv*.log /tmp/v*.log
unset VARGS V P P2 VNCFB_DRM_HOTPLUG VNCFB_NO_SUPERVISOR
'''


def run_cases(name, scenarios):
    """One boot for scenarios ([(NAME, case)], cases of one guest: the
    same 'vm' and 'env'), one after another in the guest, each checked
    on its own part of the output and its own screendumps, with a PASS
    or FAIL line of its own. 0 when all pass, 1 otherwise (exits 77
    without a VM)."""
    vmrun = vm_run_or_skip()
    build = os.environ['VNCFB_BUILD_ROOT']
    vncfb = os.environ['VNCFB']
    probe = os.path.join(build, 'tests', 'vm', 'kdprobe')
    peek = os.path.join(build, 'tests', 'vm', 'fbpeek')
    top = tempfile.mkdtemp(prefix='vncfb-vm-')
    vm, env = scenarios[0][1]['vm'], scenarios[0][1].get('env', {})
    # The same programs in every boot, so that one cached initramfs part
    # serves them all (vminitramfs).
    guest, events, files, preps = '', [], [], []
    bins = [vncfb, probe, peek] + [os.path.join(build, b) for b in (
        'tests/server/testserver', 'tests/vm/ptrserver', 'tests/vm/drmpeek',
        'tests/scale/test_scale')]
    for k, (sub, case) in enumerate(scenarios):
        if case['vm'] != vm or case.get('env', {}) != env:
            raise ValueError('%s: not the guest of %s' % (sub,
                                                          scenarios[0][0]))
        tmp = os.path.join(top, sub) if len(scenarios) > 1 else top
        os.makedirs(tmp, exist_ok=True)
        # 'server': another server than testserver (no picture to
        # compare).
        srv = os.path.join(build, case.get('server',
                                           'tests/server/testserver'))
        ref_path = os.path.join(tmp, 'ref.ppm')
        ref = None
        srv_args = case['srv']
        if 'server' not in case:
            srv_args = ['--console'] + srv_args
            subprocess.run([srv, '--dump', ref_path] + srv_args,
                           check=True)
            ref = read_ppm(ref_path)
        preps.append((sub, case, tmp, srv, ref_path, ref))
        mark = '=== scenario %s' % sub
        guest += ('echo "%s"\nSRV=%s\nSRVARGS="%s"\n' % (
            mark, os.path.basename(srv), ' '.join(srv_args)) +
            GUEST_PRELUDE + case['guest'] + GUEST_END +
            (SCENARIO_END if k + 1 < len(scenarios) else ''))
        # Each scenario's waits read the output from its own start on.
        events += ['from ^%s$' % mark] + shots(case, ref, srv, tmp, build)
        bins += [srv] + [os.path.join(build, b)
                         for b in case.get('bins', [])]
        files += [f.replace('{ref}', ref_path)
                  for f in case.get('files', [])]
    cmd = [vmrun, '--file', '/usr/share/X11/xkb:/usr/share/X11/xkb',
           '--timeout', str(240 * len(scenarios)), '--cmd', guest] + [
               a.replace('{tmp}', top) for a in vm]
    for b in dict.fromkeys(bins):
        cmd += ['--bin', b]
    for f in files:
        cmd += ['--file', f]
    for ev in events:
        cmd += ['--event', ev]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, errors='replace',
                       env=dict(os.environ, **env))
    whole = run_failures(r)
    failed = 0
    for k, (sub, case, tmp, srv, ref_path, ref) in enumerate(preps):
        # This scenario's part of the output: from its mark to the next.
        start = r.stdout.find('=== scenario %s\n' % sub)
        end = r.stdout.find('=== scenario %s\n' % preps[k + 1][0]) \
            if k + 1 < len(preps) else -1
        out = r.stdout[max(start, 0):end if end >= 0 else None]
        fails = list(whole)
        if start < 0:
            fails.append('the guest never began this scenario')
        fails += check_case(case, out, tmp, srv, ref, build)
        failed += report(sub, fails, out, r.stderr, tmp,
                         keep=len(preps) > 1)
    if len(preps) > 1:
        if failed:
            print('(files in %s)' % top)
        else:
            shutil.rmtree(top, ignore_errors=True)
        print('%s %s: %d of %d scenarios passed' % (
            'FAIL' if failed else 'PASS', name, len(preps) - failed,
            len(preps)))
    return 1 if failed else 0


def check_case(case, out, tmp, srv, ref, build):
    """What case asks of its output out and its screendumps in tmp: the
    failures."""
    ref_path = os.path.join(tmp, 'ref.ppm')
    fails = []
    # Screendumps that must be the same picture (the console before
    # vncfb and after it).
    for a, b in case.get('same_dumps', []):
        pa, pb = (os.path.join(tmp, d + '.ppm') for d in (a, b))
        if not (os.path.exists(pa) and os.path.exists(pb)):
            fails.append('no screendump %s or %s' % (a, b))
            continue
        bad, why = compare(pb, read_ppm(pa))
        if bad is None or bad:
            fails.append('screendump %s is not %s: %s' % (
                b, a, why if bad is None else '%d pixels differ, %s' % (
                    bad, why)))
        else:
            print('screendump %s: the same as %s' % (b, a))
    # Heads' screendumps put together where each head sits: one picture
    # of the whole layout, checked as one screen would be.
    for d, parts in case.get('stitch', {}).items():
        fails += stitch(tmp, d, parts)
    for d, same in case['dumps'].items():
        path = os.path.join(tmp, d + '.ppm')
        if not os.path.exists(path):
            fails.append('no screendump %s' % d)
            continue
        if same == 'fit':
            # Scaled: the reference box filter, computed independently.
            boxcmp = os.path.join(build, 'tests', 'scale', 'boxcmp')
            r = subprocess.run([boxcmp, ref_path, path, 'fit'],
                               stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
            if r.returncode != 0:
                fails.append('screendump %s: not the box-filtered '
                             'picture: %s' % (d, r.stdout.strip()))
            else:
                print('screendump %s: the box filter of the server '
                      'picture (%s)' % (d, r.stdout.strip()))
            continue
        if same == 'status':
            # Black with the status line along the bottom (the bar's
            # colours, client/blit/statusline.h), nothing else.
            fails += status_only(d, path)
            continue
        if same == 'text':
            # The console's text, white or grey on black.
            w, h, pix = read_ppm(path)
            black = sum(1 for i in range(0, len(pix), 3)
                        if pix[i:i + 3] == b'\0\0\0')
            text = sum(1 for i in range(0, len(pix), 3)
                       if min(pix[i:i + 3]) >= 0xa0 and
                       max(pix[i:i + 3]) - min(pix[i:i + 3]) < 16)
            if black < w * h * 0.8 or text < 2000:
                fails.append('screendump %s: %d black and %d grey/white '
                             'pixels, not the text console' % (
                                 d, black, text))
            else:
                print('screendump %s: the text console (%d text pixels)' %
                      (d, text))
            continue
        want = expected(case, d, ref, srv, tmp, out)
        if isinstance(same, tuple) and same[0] == 'rot':
            # vncfb --rotate: the panel's picture turned back is the
            # server's.
            lw, lh, got = turn_back(path, same[1])
            tb = os.path.join(tmp, d + '-back.ppm')
            with open(tb, 'wb') as f:
                f.write(b'P6\n%d %d\n255\n' % (lw, lh) + got)
            path = tb
        bad, why = compare(path, want)
        if bad is None:
            fails.append('screendump %s: %s' % (d, why))
        elif same and bad:
            fails.append('screendump %s: %d pixels differ from the server '
                         'picture, %s' % (d, bad, why))
        elif not same and not bad:
            fails.append('screendump %s still shows the picture (the VT '
                         'switch did not happen)' % d)
        else:
            print('screendump %s: %s' % (
                d, 'pixel-exact' if same else '%d pixels differ, as '
                'expected' % bad))

    keys = [(int(m.group(1)), int(m.group(2), 16))
            for m in re.finditer(r'^KEY (\d) 0x([0-9a-f]+)$', out, re.M)]
    # 'keys_sorted': the order may vary (keys released together).
    if case.get('keys_sorted'):
        keys = sorted(keys)
        case = dict(case, keys=sorted(case['keys']))
    # 'quit_releases': the keys still held at the quit chord may be
    # released on the server before vncfb leaves (it lets go of what it
    # holds), or the connection may close first.
    if case.get('quit_releases') and keys[:len(case['keys'])] == \
            case['keys']:
        held = set()
        for d, k in case['keys']:
            (held.add if d else held.discard)(k)
        rest = keys[len(case['keys']):]
        if all(d == 0 for d, _ in rest) and \
                len(set(k for _, k in rest)) == len(rest) and \
                set(k for _, k in rest) <= held:
            keys = case['keys']
    if keys != case['keys']:
        fails.append('keys at the server %s, expected %s' % (
            [(d, hex(k)) for d, k in keys],
            [(d, hex(k)) for d, k in case['keys']]))
    xkeys = [(int(m.group(1)), int(m.group(2), 16), int(m.group(3), 16))
             for m in re.finditer(r'^XKEY (\d) 0x([0-9a-f]+) 0x([0-9a-f]+)$',
                                  out, re.M)]
    if xkeys != case.get('xkeys', []):
        fails.append('extended keys at the server %s, expected %s' % (
            [(d, hex(k), hex(c)) for d, k, c in xkeys],
            [(d, hex(k), hex(c)) for d, k, c in case.get('xkeys', [])]))
    ptrs = [tuple(map(int, m.groups()))
            for m in re.finditer(r'^PTR (\d+) (\d+) (\d+)$', out, re.M)]
    ptrs = [p for p in ptrs if p[2] != case.get('ptr_ignore')]
    # Motion may come in several reports; what counts is where each
    # button change happens and where the pointer ends.
    got = [p for i, p in enumerate(ptrs)
           if i == 0 or p[2] != ptrs[i - 1][2] or i == len(ptrs) - 1]
    want = case['ptrs']
    if want and (not ptrs or ptrs[-1] != want[-1] or
                 [p for p in got if p[2]] != [p for p in want if p[2]]):
        fails.append('pointer at the server %s, expected %s' % (ptrs, want))
    for tag, line in case['probes'].items():
        m = re.search(r'^%s (.*)$' % tag, out, re.M)
        if not m or m.group(1).strip() != line:
            fails.append('%s: %s, expected %s' % (
                tag, m.group(1) if m else 'no probe output', line))
    for tag, code in case['exits'].items():
        m = re.search(r'^%s (\d+)$' % tag, out, re.M)
        if not m or int(m.group(1)) != code:
            fails.append('%s: vncfb exit %s, expected %d' % (
                tag, m.group(1) if m else '?', code))
    if 'check' in case:
        fails += case['check'](out)
    logs = case.get('log', [])
    for want in [logs] if isinstance(logs, str) else logs:
        if want not in out:
            fails.append('vncfb did not log "%s"' % want)

    return fails


def run_failures(r):
    """What vmrun.py's run r (a finished subprocess.run) says went wrong
    before the case's own checks: its exit status, a stopped event
    script, the guest's TIMEOUT lines."""
    fails = []
    if r.returncode != 0:
        fails.append('vmrun.py exit %d' % r.returncode)
    if 'event script stopped' in r.stderr or 'failed:' in r.stderr:
        fails.append('event script: ' + ' | '.join(
            l for l in r.stderr.splitlines()
            if 'stopped' in l or 'failed' in l))
    if 'TIMEOUT' in r.stdout:
        fails.append('guest timeouts: ' + ' | '.join(
            l for l in r.stdout.splitlines() if 'TIMEOUT' in l))
    return fails


def report(name, fails, out, err, tmp, keep=False):
    """The case's verdict: with failures, the guest's output, vmrun's
    messages and each failure, the files kept; else the files go (keep:
    the caller removes them). The exit status (0 pass, 1 fail)."""
    if fails:
        print(out)
        print(err, file=sys.stderr)
        profile(err)
        for f in fails:
            print('FAIL %s: %s' % (name, f))
        print('(files in %s)' % tmp)
        return 1
    if not keep:
        shutil.rmtree(tmp, ignore_errors=True)
    profile(err)
    print('PASS %s' % name)
    return 0


def profile(err):
    """vmrun.py's lines on where the time went (the initramfs, the boot,
    the command, each waited-for screendump), kept in the test's log."""
    for line in err.splitlines():
        if re.match(r'vmrun: +[0-9.]+ (timing:|initramfs|screendump -> '
                    r'.*after|kernel)', line):
            print(line)


if __name__ == '__main__':
    sys.exit(main())
