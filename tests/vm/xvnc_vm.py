#!/usr/bin/env python3
"""TigerVNC's Xvnc inside the guest, on its loopback, and vncfb -o drm on
virtio-gpu's heads (vmrun.py --heads 2): remote resize makes the X
desktop the panel's size, the picture 1:1.

The X desktop's picture is known: the root window tiled (xsetroot
-bitmap) with a random 509x311 two-colour bitmap of a fixed seed, so
that any scaling, offset or channel swap changes it, and an empty
cursor. The test computes it for any desktop size; each head's QMP
screendump must be its part of it, pixel for pixel. In the guest,
xrandr says the X screen's size and monitors, and xwd -root's pixels
hashed must be the same picture (what Xvnc's framebuffer holds).

usage: xvnc_vm.py one|heads

one    head 0 at 1920x1080, Xvnc started at 1280x1024, vncfb -o drm:
       within 2 s of the connection head 0 shows the 1920x1080 desktop
       pixel-exact (screendumps every 0.25 s from the moment the guest
       sees the connection; the first exact one's time is printed), no
       scaling and no fallback said; then the quit chord, exit 0, and
       the X screen is 1920x1080, one monitor, the picture.
heads  two 1024x768 heads, vncfb -o drm:all: Xvnc becomes one 2048x768
       desktop of two screens (xrandr --listmonitors: 1024x768+0+0 and
       1024x768+1024+0), each head its half pixel-exact. Head 1
       unplugged: the desktop follows to 1024x768, one monitor, head 0
       pixel-exact; plugged back at 800x600: 1824x768, two monitors,
       both heads pixel-exact. One connection throughout.

Exit 0 pass, 77 when qemu, a guest kernel, Xvnc or the X programs the
guest needs (xkbcomp, xsetroot, xwd, xrandr) are absent, 1 fail.
"""
import hashlib
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

from console_vm import GUEST_HELPERS, compare, crop, report, run_failures
from vmio import read_ppm
from vmskip import skip, vm_run_or_skip

# The root window's tile: prime sides, so that no offset short of the
# tile's own repeats the picture.
TILE_W, TILE_H, SEED = 509, 311, 26
FG, BG = (0xff, 0x80, 0x00), (0x00, 0x40, 0xc0)
# The guest's programs besides vncfb, found on the host's PATH, and
# their Debian packages.
X_PROGRAMS = {'Xvnc': 'tigervnc-standalone-server',
              'xkbcomp': 'x11-xkb-utils', 'xsetroot': 'x11-xserver-utils',
              'xwd': 'x11-apps', 'xrandr': 'x11-xserver-utils'}
PORT = 5901
# Screendumps of head 0 after the guest has seen the connection, for
# case one: every 0.25 s (plus the dump's own time), past the 2 s.
SERIES = 14
TARGET_S = 2.0


def tile():
    """The tile's rows of bits (1: foreground)."""
    rng = random.Random(SEED)
    return [[rng.getrandbits(1) for _ in range(TILE_W)]
            for _ in range(TILE_H)]


def xbm(rows):
    """The tile as an X bitmap file (rows padded to bytes, LSB first)."""
    out = []
    for r in rows:
        for x in range(0, TILE_W, 8):
            out.append(sum(b << i for i, b in enumerate(r[x:x + 8])))
    return ('#define tile_width %d\n#define tile_height %d\n'
            'static unsigned char tile_bits[] = {\n%s};\n' % (
                TILE_W, TILE_H, ',\n'.join(
                    ', '.join('0x%02x' % v for v in out[i:i + 12])
                    for i in range(0, len(out), 12))))


# The cursor: nothing drawn, so the picture is the root's alone.
EMPTY_XBM = ('#define empty_width 8\n#define empty_height 8\n'
             '#define empty_x_hot 0\n#define empty_y_hot 0\n'
             'static unsigned char empty_bits[] = {\n'
             '   0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};\n')


def picture(rows, w, h, order):
    """The root window w x h tiled from its origin: bytes in order 'rgb'
    (a screendump's PPM) or 'bgrx' (xwd's 32-bit little-endian
    pixels)."""
    px = {'rgb': (bytes(BG), bytes(FG)),
          'bgrx': (bytes(BG[::-1]) + b'\0', bytes(FG[::-1]) + b'\0')}[order]
    lines = []
    for r in rows:
        one = b''.join(px[b] for b in r)
        lines.append((one * (w // TILE_W + 1))[:w * len(px[0])])
    return b''.join(lines[y % TILE_H] for y in range(h))


# The guest: Xvnc at 1280x1024 on the loopback, the picture on its
# root, then the case's part.
PRELUDE = GUEST_HELPERS + r'''
up() { read u _ < /proc/uptime; echo $u; }
mkdir -p /tmp/.X11-unix && chmod 1777 /tmp/.X11-unix
# -fp built-ins: no font files in the guest; nothing here draws text.
Xvnc :1 -geometry 1280x1024 -depth 24 -rfbport @PORT@ -localhost \
	-nolisten tcp -SecurityTypes None -AlwaysShared -fp built-ins \
	> /tmp/x.log 2>&1 &
export DISPLAY=:1
i=0
until xrandr > /dev/null 2>&1; do
	i=$((i + 1)); [ $i -gt 300 ] && { log "TIMEOUT Xvnc"; exit 1; }
	sleep 0.1
done
xsetroot -bitmap /root/tile.xbm -fg '@FG@' -bg '@BG@' &&
	xsetroot -cursor /root/empty.xbm /root/empty.xbm || exit 1
xscreen() {  # xscreen TAG: the X screen's size, monitors and picture
	s=$(xrandr | sed -n 's/.*current \([0-9]*\) x \([0-9]*\),.*/\1 \2/p')
	log "$1 SIZE $s"
	xrandr --listmonitors | sed -n "s/^ *[0-9]*: [+*]* *[^ ]* /$1 MONITOR /p"
	set -- $1 $s
	# xwd's pixels are its file's last bytes, 4 a pixel.
	h=$(xwd -root -silent | tail -c $(($2 * $3 * 4)) | md5sum)
	log "$1 XWD ${h%% *}"
}
xscreen START
start_vncfb() {  # start_vncfb LOG
	: > $1
	# As after a login on tty1: the VT is stdin and the controlling
	# terminal, which lets vncfb switch VTs after it has dropped root.
	# Lossless, as console_vm.py's guests: the picture is compared
	# pixel-exact.
	setsid -c vncfb -v --encodings copyrect,tight,zrle,hextile,raw \
		$VARGS 127.0.0.1::@PORT@ < /dev/tty1 >> $1 2>&1 &
	V=$!
}
'''

END = r'''
grep -c 'connected to' /tmp/v1.log | sed 's/^/CONNECTS /'
log "--- Xvnc"; cat /tmp/x.log
log "--- vncfb"; cat /tmp/v1.log
'''

GUEST_ONE = r'''
preferred Virtual-1 1920x1080 30
VARGS='-o drm'
start_vncfb /tmp/v1.log
waitfor /tmp/v1.log 'connected to' 60 && log "STAGE connected $(up)"
waitfor /tmp/v1.log 'remote desktop is now 1920x1080' 30 &&
	log "RESIZED $(up)"
waitfor /tmp/v1.log 'quit chord pressed' 120 || kill -TERM $V
wait $V; log "EXIT1 $?"
xscreen END
'''

EVENTS_ONE = ['wait STAGE connected timeout=90'] + [
    l for i in range(SERIES)
    for l in ('screendump {tmp}/s%02d.ppm head=0' % i, 'sleep 0.25')] + [
    'key ctrl alt backspace']

GUEST_HEADS = r'''
# One head at a time: a head set before the guest's driver is up is lost.
for c in 1 2; do
	log STAGE head$c
	preferred Virtual-$c 1024x768 30
done
VARGS='-o drm:all'
start_vncfb /tmp/v1.log
waitfor /tmp/v1.log 'remote desktop is now 2048x768' 60 && xscreen TWO &&
	log STAGE two
waitfor /tmp/v1.log 'remote desktop is now 1024x768' 60 && xscreen ONE &&
	log STAGE one
waitfor /tmp/v1.log 'remote desktop is now 1824x768' 60 && xscreen BACK &&
	log STAGE back
waitfor /tmp/v1.log 'quit chord pressed' 120 || kill -TERM $V
wait $V; log "EXIT1 $?"
'''

EVENTS_HEADS = [
    'wait STAGE head1', 'head 0 1024x768', 'wait STAGE head2',
    'head 1 1024x768',
    'wait STAGE two timeout=90', 'sleep 1.5',
    'screendump {tmp}/a.ppm head=0', 'screendump {tmp}/b.ppm head=1',
    'head 1 off', 'wait STAGE one timeout=90', 'sleep 1.5',
    'screendump {tmp}/c.ppm head=0',
    'head 1 800x600', 'wait STAGE back timeout=90', 'sleep 1.5',
    'screendump {tmp}/d.ppm head=0', 'screendump {tmp}/e.ppm head=1',
    'key ctrl alt backspace',
]

# What vncfb says when remote resize did not give the panel's size.
FALLBACK = re.compile(r'refused to resize|did not answer the request to '
                      r'resize|cannot resize|forwarded the request to '
                      r'resize|instead of|showing \d+x\d+ with --scale')

CASES = {
    'one': {
        # Head 0 at 1920x1080 from the start: the kernel's fbdev
        # emulation, made at boot at the head's size, then lists it (it
        # leaves out the modes larger than its own framebuffer).
        'vm': ['--heads', '1', '--res', '1920x1080'],
        'guest': GUEST_ONE,
        'events': EVENTS_ONE,
        # tag: the X screen's size and monitors (x, y, w, h).
        'screens': {'START': (1280, 1024, [(0, 0, 1280, 1024)]),
                    'END': (1920, 1080, [(0, 0, 1920, 1080)])},
        # screendump: the desktop's size and the head's part of it.
        'dumps': {},
        'log': ['remote desktop is now 1920x1080',
                'for a 1920x1080 desktop (1 screen)'],
    },
    'heads': {
        'vm': ['--heads', '2'],
        'guest': GUEST_HEADS,
        'events': EVENTS_HEADS,
        'screens': {'START': (1280, 1024, [(0, 0, 1280, 1024)]),
                    'TWO': (2048, 768, [(0, 0, 1024, 768),
                                        (1024, 0, 1024, 768)]),
                    'ONE': (1024, 768, [(0, 0, 1024, 768)]),
                    'BACK': (1824, 768, [(0, 0, 1024, 768),
                                         (1024, 0, 800, 600)])},
        'dumps': {'a': (2048, 768, (0, 0, 1024, 768)),
                  'b': (2048, 768, (1024, 0, 1024, 768)),
                  'c': (1024, 768, (0, 0, 1024, 768)),
                  'd': (1824, 768, (0, 0, 1024, 768)),
                  'e': (1824, 768, (1024, 0, 800, 600))},
        'log': ['2 heads, one 2048x768 desktop: Virtual-1:0,0 '
                'Virtual-2:1024,0',
                'for a 2048x768 desktop (2 screens)',
                'for a 1024x768 desktop (1 screen)',
                '2 heads, one 1824x768 desktop: Virtual-1:0,0 '
                'Virtual-2:1024,0',
                'for a 1824x768 desktop (2 screens)'],
    },
}


def check_screens(out, rows, screens):
    """The X screen's size, monitors and xwd's picture at each tag."""
    fails = []
    for tag, (w, h, mons) in screens.items():
        m = re.search(r'^%s SIZE (\d+) (\d+)$' % tag, out, re.M)
        size = tuple(int(v) for v in m.groups()) if m else None
        if size != (w, h):
            fails.append('%s: X screen %s, expected %dx%d' % (
                tag, '%dx%d' % size if size else '?', w, h))
            continue
        got = [(int(x), int(y), int(mw), int(mh))
               for mw, mh, x, y in re.findall(
                   r'^%s MONITOR (\d+)/\d+x(\d+)/\d+\+(\d+)\+(\d+)' % tag,
                   out, re.M)]
        if sorted(got) != sorted(mons):
            fails.append('%s: X monitors %s, expected %s' % (tag, got,
                                                            mons))
        m = re.search(r'^%s XWD ([0-9a-f]{32})$' % tag, out, re.M)
        want = hashlib.md5(picture(rows, w, h, 'bgrx')).hexdigest()
        if not m or m.group(1) != want:
            fails.append('%s: xwd -root is not the picture (md5 %s, '
                         'expected %s)' % (tag, m.group(1) if m else '?',
                                           want))
            continue
        print('%s: X screen %dx%d, %d monitor%s %s, xwd -root the '
              'picture' % (tag, w, h, len(mons), '' if len(mons) == 1
                           else 's', mons))
    return fails


def check_dump(path, rows, w, h, part):
    """The screendump at path is part (x, y, pw, ph) of the w x h
    desktop: (differing pixels or None for a size, why)."""
    if not os.path.exists(path):
        return None, 'no screendump'
    return compare(path, crop((w, h, picture(rows, w, h, 'rgb')), *part))


def check_series(tmp, rows):
    """Case one: head 0 shows the 1920x1080 desktop pixel-exact within
    TARGET_S of the connection, and keeps it."""
    want = (1920, 1080, picture(rows, 1920, 1080, 'rgb'))
    paths = [os.path.join(tmp, 's%02d.ppm' % i) for i in range(SERIES)]
    if not all(os.path.exists(p) for p in paths):
        return ['screendumps missing: %s' % [
            os.path.basename(p) for p in paths if not os.path.exists(p)]]
    t0 = os.stat(paths[0]).st_mtime
    times = [os.stat(p).st_mtime - t0 for p in paths]
    exact = [read_ppm(p) == want for p in paths]
    if not exact[-1]:
        bad, why = compare(paths[-1], want)
        return ['the last screendump (%.2f s) is not the 1920x1080 '
                'desktop: %s' % (times[-1], why if bad is None else
                                 '%d pixels differ, %s' % (bad, why))]
    first = len(exact) - 1
    while first > 0 and exact[first - 1]:
        first -= 1
    print('head 0: 1920x1080 remote pixels, pixel-exact, from %.2f s after '
          'the guest saw the connection (screendumps at %s s)' % (
              times[first], ' '.join('%.2f%s' % (t, '*' if e else '')
                                     for t, e in zip(times, exact))))
    if times[first] > TARGET_S:
        return ['the picture took %.2f s (target: %.1f s)' % (
            times[first], TARGET_S)]
    return []


def guest_times(out):
    """Case one: the guest's own clock from the connection to vncfb's
    'remote desktop is now 1920x1080'."""
    c = re.search(r'^STAGE connected ([\d.]+)$', out, re.M)
    r = re.search(r'^RESIZED ([\d.]+)$', out, re.M)
    if not c or not r:
        return ['no connection or resize time from the guest']
    print('guest clock: desktop resized %.2f s after the connection' % (
        float(r.group(1)) - float(c.group(1))))
    return []


def vm_command(guest_part, vm, events):
    """vmrun.py's command line for a guest that runs Xvnc (PRELUDE),
    then guest_part, then END, with vm's arguments and the events
    ({tmp}: the folder made for the case's files): (cmd, tmp, the
    tile's rows). Skips (exit 77) when the X programs are absent."""
    vmrun = vm_run_or_skip()
    progs = {}
    for p in X_PROGRAMS:
        progs[p] = shutil.which(p)
        if not progs[p]:
            skip('%s is not installed (package %s)' % (p, X_PROGRAMS[p]))
    if not os.path.isdir('/usr/share/X11/xkb'):
        skip('/usr/share/X11/xkb is not installed (xkb-data)')
    vncfb = os.environ['VNCFB']
    tmp = tempfile.mkdtemp(prefix='vncfb-vm-')
    rows = tile()
    with open(os.path.join(tmp, 'tile.xbm'), 'w') as f:
        f.write(xbm(rows))
    with open(os.path.join(tmp, 'empty.xbm'), 'w') as f:
        f.write(EMPTY_XBM)
    guest = (PRELUDE + guest_part + END).replace('@PORT@', str(PORT))
    for k, c in (('@FG@', FG), ('@BG@', BG)):
        guest = guest.replace(k, '#%02x%02x%02x' % c)
    cmd = [vmrun, '--fb', 'virtio', '--mouse', 'usb', '--bin', vncfb,
           # Xvnc runs xkbcomp from the folder it was built for.
           '--bin', '%s:%s' % (progs['xkbcomp'], progs['xkbcomp']),
           '--file', '/usr/share/X11/xkb:/usr/share/X11/xkb',
           '--file', os.path.join(tmp, 'tile.xbm'),
           '--file', os.path.join(tmp, 'empty.xbm'),
           '--timeout', '240', '--cmd', guest] + vm
    for p in X_PROGRAMS:
        if p != 'xkbcomp':
            cmd += ['--bin', progs[p]]
    for ev in events:
        cmd += ['--event', ev.replace('{tmp}', tmp)]
    return cmd, tmp, rows


def run(name, case):
    cmd, tmp, rows = vm_command(case['guest'], case['vm'], case['events'])
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, errors='replace')
    out = r.stdout
    for line in r.stderr.splitlines():
        if re.match(r'vmrun: +[0-9.]+ timing:', line):
            print(line)
    fails = run_failures(r)
    if not re.search(r'^EXIT1 0$', out, re.M):
        fails.append('vncfb did not exit 0 on the quit chord')
    if not re.search(r'^CONNECTS 1$', out, re.M):
        fails.append('not one connection throughout')
    fails += check_screens(out, rows, case['screens'])
    if name == 'one':
        fails += check_series(tmp, rows) + guest_times(out)
    for d, (w, h, part) in case['dumps'].items():
        bad, why = check_dump(os.path.join(tmp, d + '.ppm'), rows, w, h,
                              part)
        if bad is None or bad:
            fails.append('screendump %s: not its part %s of the %dx%d '
                         'desktop: %s' % (d, part, w, h, why if bad is None
                                          else '%d pixels differ, %s' % (
                                              bad, why)))
        else:
            print('screendump %s: part %s of the %dx%d desktop, '
                  'pixel-exact' % (d, part, w, h))
    said = FALLBACK.findall(out)
    if said:
        fails.append('vncfb said a fallback: %s' % said)
    for want in case['log']:
        if want not in out:
            fails.append('vncfb did not log "%s"' % want)
    return report('xvnc-' + name, fails, out, r.stderr, tmp)


if __name__ == '__main__':
    if len(sys.argv) != 2 or sys.argv[1] not in CASES:
        print('usage: xvnc_vm.py %s' % '|'.join(CASES), file=sys.stderr)
        sys.exit(2)
    sys.exit(run(sys.argv[1], CASES[sys.argv[1]]))
