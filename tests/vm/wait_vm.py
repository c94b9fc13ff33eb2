#!/usr/bin/env python3
"""vncfb -o drm started with no display connected, and remote resize
after hot-plugs against a server that resizes (virtio-gpu with two
heads through vmrun.py --heads; testserver --resize honours
SetDesktopSize).

One boot: head 0 is unplugged before vncfb starts; vncfb says in one
line that it waits, connects to the server and asks it for nothing;
head 0 plugged in at 1024x768 (the server's size) shows the picture,
pixel-exact, with no request; head 0's preferred mode changed to
800x600 asks the server once and the desktop becomes 800x600,
pixel-exact; head 0 unplugged and plugged back at 1024x768 asks once
more, and the desktop is 1024x768 again, pixel-exact. Two requests in
all, one connection, the VT given back on exit. A second vncfb with
--connector Virtual-1: head 1 plugged in, head 0 unplugged, and head 1
shows only the status line saying what vncfb waits for, on black; head
0 back shows the picture again, pixel-exact. A third vncfb with the
default output, no display and no /dev/fb0: it waits on the card, and
head 0 plugged in shows the picture, pixel-exact.

usage: wait_vm.py
Exit 0 pass, 77 when qemu or a guest kernel is absent, 1 fail.
"""
import re
import sys

from console_vm import run_case

GUEST = r'''
# Lossless, as start_vncfb's: auto-select reads a loaded TCG guest as a
# slow link and goes to JPEG, and the pictures are compared exactly.
ENC='--encodings copyrect,tight,zrle,hextile,raw'
log STAGE pre
# QEMU takes a head's first size (from none) as a change, not its
# first 0x0: plugged at a size first, then unplugged.
preferred Virtual-1 1024x768 30
log STAGE sized
waitfor /sys/class/drm/card0-Virtual-1/status '^disconnected' 30
: > /tmp/v1.log
setsid -c vncfb -v $ENC -o drm 127.0.0.1::$P < /dev/tty1 >> /tmp/v1.log 2>&1 &
V=$!
tail -f /tmp/v1.log &
waitfor /tmp/v1.log 'no display connected (.*): waiting for one' 60 &&
	waitfor /tmp/v1.log 'connected to' 60 && log STAGE connected
waitfor /tmp/v1.log 'Virtual-1 at 1024x768' 90 && log STAGE plugged
waitfor /tmp/v1.log 'remote desktop is now 800x600' 60 && log STAGE resized
waitfor /tmp/v1.log 'Virtual-1 is disconnected: waiting for a display' 60 &&
	log STAGE gone
waitfor /tmp/v1.log 'remote desktop is now 1024x768' 60 && log STAGE back
waitfor /tmp/srv.log 'KEY 0 0x71' 60
kill -TERM $V; wait $V; log "EXIT1 $?"
kdprobe /dev/tty1 | sed 's/^/AFTERTERM /'
grep -c 'connected to' /tmp/v1.log | sed 's/^/CONNECTS /'
sed -n 's/^SETDESKTOPSIZE /ASKED /p' /tmp/srv.log
# The connector named is unplugged while another display is there: that
# one says what is waited for, on black, until it comes back.
log STAGE second
: > /tmp/v2.log
setsid -c vncfb -v $ENC -o drm --connector Virtual-1 127.0.0.1::$P \
	< /dev/tty1 >> /tmp/v2.log 2>&1 &
V=$!
tail -f /tmp/v2.log &
waitfor /tmp/v2.log 'connected to' 60 && log STAGE drawn2
waitfor /tmp/v2.log 'saying so on Virtual-2' 60 && log STAGE standin
waitfor /tmp/v2.log 'Virtual-1 at 1024x768' 60 && log STAGE back2
waitfor /tmp/srv.log 'KEY 0 0x77' 60
kill -TERM $V; wait $V; log "EXIT2 $?"
# The default output with no display anywhere and no framebuffer device
# (a kernel without CONFIG_FB_DEVICE): nothing else to show on, so it
# waits on the card.
log STAGE third
for c in 1 2; do
	waitfor /sys/class/drm/card0-Virtual-$c/status '^disconnected' 30
done
rm -f /dev/fb0
: > /tmp/v3.log
setsid -c vncfb -v $ENC 127.0.0.1::$P < /dev/tty1 >> /tmp/v3.log 2>&1 &
V=$!
tail -f /tmp/v3.log &
waitfor /tmp/v3.log 'default output: drm, waiting for a display' 60 &&
	waitfor /tmp/v3.log 'connected to' 60 && log STAGE waiting3
waitfor /tmp/v3.log 'Virtual-1 at 1024x768' 60 && log STAGE plugged3
waitfor /tmp/srv.log 'KEY 0 0x65' 60
kill -TERM $V; wait $V; log "EXIT3 $?"
'''

EVENTS = [
    'wait STAGE pre', 'head 0 1024x768', 'wait STAGE sized timeout=60',
    'head 0 off',
    # Connected with no display for a while: nothing asked for.
    'wait STAGE connected timeout=90', 'sleep 3',
    'head 0 1024x768', 'wait STAGE plugged timeout=90', 'shot a head=0',
    'head 0 800x600', 'wait STAGE resized timeout=60', 'shot b head=0',
    'head 0 off', 'wait STAGE gone timeout=60', 'sleep 1',
    'head 0 1024x768', 'wait STAGE back timeout=60', 'shot c head=0',
    'key q',
    'wait STAGE drawn2 timeout=60', 'sleep 1', 'head 1 1024x768', 'sleep 2',
    'head 0 off', 'wait STAGE standin timeout=60', 'sleep 2.5',
    'screendump {tmp}/s.ppm head=1',
    'head 0 1024x768', 'wait STAGE back2 timeout=60', 'shot e head=0',
    'key w',
    'wait STAGE third timeout=60', 'head 0 off', 'head 1 off',
    'wait STAGE waiting3 timeout=90', 'sleep 1', 'head 0 1024x768',
    'wait STAGE plugged3 timeout=60', 'shot f head=0', 'key e',
]


def asked(out):
    """The server was asked twice: for the mode change and for the head
    plugged back; not while there was no display, nor for a head of the
    desktop's size already."""
    got = re.findall(r'^ASKED (\S+)$', out, re.M)
    if got != ['800x600', '1024x768']:
        return ['SetDesktopSize requests %s, expected 800x600 then '
                '1024x768' % got]
    print('SetDesktopSize asked twice: %s' % ', '.join(got))
    return []


def one_connection(out):
    """The connection stayed through every change: connected once."""
    m = re.search(r'^CONNECTS (\d+)$', out, re.M)
    if not m or m.group(1) != '1':
        return ['connected %s times, expected once' % (
            m.group(1) if m else '?')]
    return []


CASE = {
    'vm': ['--fb', 'virtio', '--heads', '2', '--mouse', 'usb'],
    'srv': ['--size', '1024x768', '--resize'],
    'bins': ['tests/vm/drmpeek'],
    'guest': GUEST,
    'events': EVENTS,
    'dumps': {'a': True, 'b': True, 'c': True, 's': 'status', 'e': True,
              'f': True},
    'refs': {'b': ['--size', '800x600', '--resize']},
    'keys': [(1, 0x71), (0, 0x71), (1, 0x77), (0, 0x77), (1, 0x65),
             (0, 0x65)],
    'ptrs': [],
    'probes': {'AFTERTERM': 'KDMODE text VTMODE auto ACTIVE 1'},
    'check': lambda out: asked(out) + one_connection(out),
    'exits': {'EXIT1': 0, 'EXIT2': 0, 'EXIT3': 0},
    'log': [
        'vncfb: /dev/dri/card0: no display connected (Virtual-1 '
        'disconnected, Virtual-2 disconnected): waiting for one',
        'Virtual-1 at 1024x768@',
        'Virtual-1 at 800x600@',
        'Virtual-1 is disconnected: waiting for a display',
        '/dev/dri/card0: Virtual-1 is disconnected: waiting for a display; '
        'saying so on Virtual-2 at 1024x768',
    ],
}


if __name__ == '__main__':
    sys.exit(run_case('drm-wait', CASE))
