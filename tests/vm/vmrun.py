#!/usr/bin/env python3
"""vmrun.py: run a command as root in a throw-away qemu guest (Debian's
kernel, a busybox initramfs) that has a real Linux framebuffer and real
evdev devices; stream its output, script its input over QMP, take
screendumps, power off. doc/testing.md describes it; --help lists the
options.

Exit status: the command's; 124 when --timeout ran out; 125 when the
guest could not be run (the message says why).
"""
import argparse
import fcntl
import json
import os
import select
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import vminitramfs  # noqa: E402
import vmarm64  # noqa: E402
import vmio  # noqa: E402
import vmkernel  # noqa: E402

# Under KVM the kernel's banner must be out within this many seconds, or
# KVM is taken for unusable here (see probe_kvm).
KVM_PROBE_S = float(os.environ.get('VNCFB_VM_KVM_PROBE_S', '10'))
QUIET = False
T0 = time.monotonic()

# SeaVGABIOS's VBE modes (QEMU's std VGA): (w, h, bpp) -> mode number;
# the kernel's vga= takes it plus 0x200.
VBE_MODES = {
    (640, 480, 15): 0x110, (640, 480, 16): 0x111, (640, 480, 24): 0x112,
    (800, 600, 15): 0x113, (800, 600, 16): 0x114, (800, 600, 24): 0x115,
    (1024, 768, 15): 0x116, (1024, 768, 16): 0x117, (1024, 768, 24): 0x118,
    (1280, 1024, 15): 0x119, (1280, 1024, 16): 0x11A,
    (1280, 1024, 24): 0x11B, (1600, 1200, 15): 0x11D,
    (1600, 1200, 16): 0x11E, (1600, 1200, 24): 0x11F,
    (320, 200, 32): 0x140, (640, 400, 32): 0x141, (640, 480, 32): 0x142,
    (800, 600, 32): 0x143, (1024, 768, 32): 0x144, (1280, 1024, 32): 0x145,
    (1600, 1200, 32): 0x147, (1152, 864, 16): 0x14a, (1152, 864, 24): 0x14b,
    (1152, 864, 32): 0x14c, (1280, 800, 16): 0x178, (1280, 800, 24): 0x179,
    (1280, 800, 32): 0x17a, (1280, 960, 16): 0x17b, (1280, 960, 24): 0x17c,
    (1280, 960, 32): 0x17d, (1440, 900, 16): 0x17e, (1440, 900, 24): 0x17f,
    (1440, 900, 32): 0x180, (1400, 1050, 16): 0x181,
    (1400, 1050, 24): 0x182, (1400, 1050, 32): 0x183,
    (1680, 1050, 16): 0x184, (1680, 1050, 24): 0x185,
    (1680, 1050, 32): 0x186, (1920, 1200, 16): 0x187,
    (1920, 1200, 24): 0x188, (1920, 1200, 32): 0x189,
    (2560, 1600, 16): 0x18a, (2560, 1600, 24): 0x18b,
    (2560, 1600, 32): 0x18c, (1920, 1080, 16): 0x190,
    (1920, 1080, 24): 0x191, (1920, 1080, 32): 0x192,
}

# --fb: (qemu device, modules, needs the bzImage's real-mode set-up).
# vesa is the kernel's built-in vesafb on the VGA BIOS's mode (direct
# VRAM); the others are DRM drivers' fbdev emulation (a shadow with
# deferred I/O) and their /dev/dri/card0.
DISPLAYS = {
    'vesa': ('VGA', [], True),
    'bochs': ('VGA', ['bochs'], False),
    'bochs-display': ('bochs-display', ['bochs'], False),
    'virtio': ('virtio-vga', ['virtio_pci', 'virtio-gpu'], False),
    'cirrus': ('cirrus-vga', ['cirrus'], False),
    'none': (None, [], False),
}
# --fb2: a second display device, the guest's second DRM card (qemu
# device, modules).
SECOND_DISPLAYS = {
    'virtio': ('virtio-gpu-pci', ['virtio_pci', 'virtio-gpu']),
    'bochs-display': ('bochs-display', ['bochs']),
}
# The display devices' ids with --heads and --fb2 (screendump's device,
# -vnc's display): the first and the second.
HEADS_DEVICE = 'video0'
SECOND_DEVICE = 'video1'
# --mouse: (qemu devices, modules, its name in /proc/bus/input/devices).
MICE = {
    'ps2': ([], ['psmouse'], 'PS/2'),
    'virtio': (['virtio-tablet-pci'], ['virtio_pci', 'virtio_input'],
               'Virtio Tablet'),
    'usb': (['qemu-xhci', 'usb-tablet'], ['xhci_pci', 'usbhid', 'hid_generic'],
            'USB Tablet'),
    'none': ([], [], None),
}
QEMU = 'qemu-system-x86_64'


def log(msg):
    if not QUIET:
        # Seconds since vmrun started: where a slow test's time goes.
        sys.stderr.write('vmrun: %6.2f %s\n' % (time.monotonic() - T0, msg))
        sys.stderr.flush()


class Failure(Exception):
    """The guest could not be run: exit 125 with this message."""


def busybox_path():
    bb = os.environ.get('VNCFB_VM_BUSYBOX') or shutil.which('busybox') or \
        '/bin/busybox'
    if not os.path.exists(bb):
        raise Failure('busybox not found (apt-get install busybox-static)')
    return bb


# ----------------------------------------------------------------------
# KVM or TCG: decided once per host kernel and qemu version
# ----------------------------------------------------------------------
def accel_key():
    try:
        qv = subprocess.run([QEMU, '--version'], capture_output=True,
                            text=True).stdout.split('\n')[0]
    except OSError:
        raise Failure('%s not found (apt-get install qemu-system-x86)'
                      % QEMU)
    return '%s|%s' % (os.uname().release, qv)


def verdicts():
    try:
        with open(os.path.join(vmkernel.CACHE, 'accel.json')) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def save_verdict(v):
    d = verdicts()
    d[accel_key()] = v
    path = os.path.join(vmkernel.CACHE, 'accel.json')
    with open(path + '.tmp', 'w') as f:
        json.dump(d, f, indent=1)
    os.replace(path + '.tmp', path)


CHILDREN = []


def _die_with_parent():
    """In qemu's child process: SIGKILL when vmrun dies
    (prctl(PR_SET_PDEATHSIG)), so no guest outlives a killed test."""
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def banner_within(console, proc, seconds):
    """Whether the guest's kernel printed its banner on console within
    seconds."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < seconds and proc.poll() is None:
        try:
            with open(console, 'rb') as f:
                if b'Linux version' in f.read():
                    return True
        except OSError:
            pass
        time.sleep(0.1)
    return False


def probe_kvm(kernel, initrd, tmp):
    """Whether KVM boots a guest here: a bare guest of its own (none of
    the caller's devices or sockets) must print the kernel's banner
    within KVM_PROBE_S. Some hosts' /dev/kvm (a nested PVM, say) opens
    but cannot run a guest."""
    image = kernel['vmlinux'] if kernel.get('pvh') else kernel['bzimage']
    console = os.path.join(tmp, 'kvm-probe.log')
    q = [QEMU, '-nodefaults', '-no-user-config', '-nic', 'none',
         '-machine', 'pc', '-m', '256', '-display', 'none', '-no-reboot',
         '-serial', 'file:' + console, '-accel', 'kvm',
         '-cpu', os.environ.get('VNCFB_VM_CPU', 'host'),
         '-kernel', image, '-initrd', initrd,
         '-append', 'console=ttyS0,115200 panic=-1 rdinit=/bin/false']
    proc = subprocess.Popen(q, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL,
                            preexec_fn=_die_with_parent)
    CHILDREN.append(proc)
    ok = banner_within(console, proc, KVM_PROBE_S)
    if proc.poll() is None:
        proc.kill()
    proc.wait()
    return ok


def choose_accel(want, kernel, initrd, tmp):
    """'kvm' or 'tcg'. auto probes KVM once per host (under a lock, so
    that parallel first runs probe once) and keeps the verdict; the
    real guest then starts only once, so a test watching its sockets
    never sees a failed first start."""
    if want != 'auto':
        return want
    if not os.access('/dev/kvm', os.R_OK | os.W_OK):
        return 'tcg'
    with open(os.path.join(vmkernel.CACHE, '.kvm-probe.lock'), 'w') as lk:
        fcntl.flock(lk, fcntl.LOCK_EX)
        v = verdicts().get(accel_key())
        if v is None:
            v = 'kvm' if probe_kvm(kernel, initrd, tmp) else 'tcg'
            save_verdict(v)
            log('KVM %s on this host (kept in %s/accel.json; delete it to '
                'probe again)' % ('works' if v == 'kvm' else
                                  'does not boot a guest: using TCG',
                                  vmkernel.CACHE))
        return v


# ----------------------------------------------------------------------
# one boot
# ----------------------------------------------------------------------
def qemu_command(args, kernel, initrd, tmp, accel, socks):
    """The qemu command line and whether it boots the bzImage."""
    if args.arch == 'arm64':
        return vmarm64.qemu_command(args, kernel, initrd, tmp, socks), True
    dev, _, needs_bz = DISPLAYS[args.fb]
    use_bz = needs_bz or args.boot == 'bzimage' or not kernel.get('pvh')
    cmdline = ['console=ttyS0,115200', 'panic=-1',
               'vt.global_cursor_default=0', 'consoleblank=0', 'edd=off',
               'rdinit=/init']
    if args.fb == 'vesa':
        cmdline.append('vga=0x%x' % args.vga)
    if args.video:
        cmdline.append('video=' + args.video)
    if args.append:
        cmdline.append(args.append)
    q = [QEMU, '-nodefaults', '-no-user-config', '-nic', 'none',
         '-machine', 'pc', '-m', str(args.mem), '-smp', str(args.smp),
         '-display', 'none', '-no-reboot',
         '-chardev', 'file,id=con,path=' + os.path.join(tmp, 'console.log'),
         '-serial', 'chardev:con',
         '-chardev', 'socket,id=out,path=' + socks['out'],
         '-serial', 'chardev:out',
         '-chardev', 'socket,id=qmp,path=' + socks['qmp'],
         '-mon', 'chardev=qmp,mode=control',
         '-kernel', kernel['bzimage'] if use_bz else kernel['vmlinux'],
         '-initrd', initrd, '-append', ' '.join(cmdline)]
    cpu = os.environ.get('VNCFB_VM_CPU')
    if accel == 'kvm':
        q += ['-accel', 'kvm', '-cpu', cpu or 'host']
    else:
        q += ['-accel', 'tcg,thread=multi' if args.smp > 1 else 'tcg',
              '-cpu', cpu or 'max']
    if dev:
        props = {'VGA': ['vgamem_mb=%d' % args.vgamem],
                 'bochs-display': ['vgamem=%dM' % args.vgamem],
                 'cirrus-vga': ['vgamem_mb=%d' % min(args.vgamem, 16)]}
        props = props.get(dev, [])
        if args.res:
            w, h = args.res.split('x')[:2]
            props += ['xres=' + w, 'yres=' + h]
        if args.heads or args.fb2:
            # Screendumps name each device's heads by its id.
            props.append('id=' + HEADS_DEVICE)
        if args.heads:
            props.append('max_outputs=%d' % args.heads)
        q += ['-device', ','.join([dev] + props)]
    if args.fb2:
        dev2 = SECOND_DISPLAYS[args.fb2][0]
        props = ['id=' + SECOND_DEVICE]
        if args.fb2 == 'virtio':
            props.append('max_outputs=%d' % args.heads2)
        else:
            props.append('vgamem=%dM' % args.vgamem)
        q += ['-device', ','.join([dev2] + props)]
    # One VNC display on a unix socket per head, bound to it: what the
    # script's `head N` (`head 1.N` on --fb2's device) sends
    # SetDesktopSize to (vmio.set_head).
    for key, path in sorted(socks.get('heads', {}).items(), key=str):
        d, n = key if isinstance(key, tuple) else (0, key)
        q += ['-vnc', 'unix:%s,id=head%s,display=%s,head=%d' % (
            path, '%d' % n if not d else '%d-%d' % (d, n),
            SECOND_DEVICE if d else HEADS_DEVICE, n)]
    for d in MICE[args.mouse][0]:
        q += ['-device', d]
    return q + args.qemu_arg, use_bz


def connect(proc, socks, qerr):
    """Accept qemu's two socket connections; raises Failure when qemu
    exits first or never connects."""
    listening = {}
    for n, p in socks.items():
        if os.path.exists(p):
            os.unlink(p)
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.bind(p)
        s.listen(1)
        listening[n] = s
    conns, t0 = {}, time.monotonic()
    try:
        while len(conns) < 2:
            r, _, _ = select.select(list(listening.values()), [], [], 0.2)
            for n, s in listening.items():
                if s in r:
                    conns[n] = s.accept()[0]
            if proc.poll() is not None:
                with open(qerr, errors='replace') as f:
                    raise Failure('qemu exited early: ' + f.read().strip())
            if time.monotonic() - t0 > 30:
                raise Failure('qemu did not connect its sockets')
    finally:
        for s in listening.values():
            s.close()
    return conns


def stop(proc, timeout):
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def run_vm(args, kernel, initrd, tmp, accel, probing):
    """One boot: ('ok', rc), ('timeout', None), ('died', None), or
    ('kvm-failed', None) when probing and KVM made no progress."""
    console = os.path.join(tmp, 'console.log')
    qerr = os.path.join(tmp, 'qemu.log')
    for p in (console, qerr):
        if os.path.exists(p):
            os.unlink(p)
    socks = {n: os.path.join(tmp, n + '.sock') for n in ('qmp', 'out')}
    heads = {n: os.path.join(tmp, 'head%d.sock' % n)
             for n in range(args.heads)}
    if args.fb2 == 'virtio':
        heads.update({(1, n): os.path.join(tmp, 'head1-%d.sock' % n)
                      for n in range(args.heads2)})
    q, use_bz = qemu_command(args, kernel, initrd, tmp, accel,
                             dict(socks, heads=heads))
    if args.verbose:
        log('qemu: ' + ' '.join(shlex.quote(x) for x in q))
    t_start = time.monotonic()
    with open(qerr, 'wb') as qlog:
        proc = subprocess.Popen(q, stdin=subprocess.DEVNULL, stdout=qlog,
                                stderr=subprocess.STDOUT,
                                preexec_fn=_die_with_parent)
    CHILDREN.append(proc)
    try:
        conns = connect(proc, socks, qerr)
        qmp = vmio.QMP(conns['qmp'])
    except (Failure, OSError, EOFError, ValueError) as e:
        time.sleep(0.5)
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        if accel == 'kvm' and probing:
            log('KVM start failed: %s' % str(e).splitlines()[0][:200])
            return 'kvm-failed', None
        if isinstance(e, Failure):
            raise
        with open(qerr, errors='replace') as f:
            raise Failure('QMP failed (%s): %s' % (e, f.read().strip()))
    out = vmio.GuestOutput(conns['out'], sys.stdout.buffer)
    out.start()
    deadline = t_start + args.timeout

    def dump(path, head=None, log=log):
        # (1, N): head N of --fb2's device.
        if isinstance(head, tuple):
            vmio.screendump(qmp, path, log, head[1], SECOND_DEVICE)
        else:
            vmio.screendump(qmp, path, log, head, HEADS_DEVICE)

    if accel == 'kvm' and probing and \
            not banner_within(console, proc, KVM_PROBE_S):
        log('KVM guest made no progress within %.0fs' % KVM_PROBE_S)
        proc.kill()
        proc.wait()
        return 'kvm-failed', None
    while not out.wait(lambda: 'READY' in out.marks or out.closed, 0.2):
        if proc.poll() is not None or time.monotonic() > deadline:
            break
    script_ok, script = [True], None
    lines = list(args.event)
    for fn in args.events:
        with open(fn) as f:
            lines += f.read().splitlines()
    if 'READY' in out.marks and lines:
        runner = vmio.Script(qmp, out, deadline, dump, log, heads)
        script = threading.Thread(
            target=lambda: script_ok.__setitem__(0, runner.run(lines)),
            daemon=True)
        script.start()
    while proc.poll() is None and time.monotonic() < deadline and \
            'RC' not in out.marks:
        out.wait(lambda: 'RC' in out.marks or out.closed, 0.2)
    t_rc = time.monotonic()
    if 'RC' in out.marks:
        status, rc = 'ok', int(out.marks['RC'][1][0])
        if script is not None:
            script.join(timeout=2)
            if script.is_alive():
                script_ok[0] = False
                log('event script still running when the command exited; '
                    'abandoned')
        if args.screendump:
            # Deferred I/O reaches the display up to 50 ms late.
            time.sleep(args.settle)
            dump(args.screendump)
        try:
            out.send(b'POWEROFF\n')
        except OSError:
            pass
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            log('guest did not power off; sending QMP quit')
            try:
                qmp.cmd('quit')
            except (RuntimeError, EOFError, OSError):
                pass
    elif proc.poll() is None:
        status, rc = 'timeout', None
        log('timeout after %ds' % args.timeout)
        if args.screendump:
            dump(args.screendump)
        try:
            qmp.cmd('quit')
        except (RuntimeError, EOFError, OSError):
            pass
    else:
        status, rc = 'died', None
    stop(proc, 10)
    out.join(timeout=5)
    t_end = time.monotonic()
    if accel == 'kvm' and status == 'ok' and \
            verdicts().get(accel_key()) != 'kvm':
        save_verdict('kvm')
    if args.log:
        shutil.copy(console, args.log)
    if status != 'ok':
        sys.stderr.write('vmrun: guest %s; last console lines:\n' % status)
        with open(console, errors='replace') as f:
            sys.stderr.write(''.join(f.readlines()[-25:]))
        with open(qerr, errors='replace') as f:
            sys.stderr.write(f.read()[-2000:])
    m = out.marks
    if m.get('READY') and m.get('BOOT'):
        log('timing: accel=%s boot=%s qemu-start->READY %.2fs (guest uptime '
            '%ss) cmd %s screendump+poweroff %.2fs total %.2fs' % (
                accel, 'bzImage' if use_bz else 'pvh',
                m['READY'][0] - t_start, m['READY'][1][0],
                '%.2fs' % (m['RC'][0] - m['READY'][0]) if 'RC' in m else
                '(%s)' % status, t_end - t_rc, t_end - T0))
    if not script_ok[0]:
        log('WARNING: event script did not complete successfully (see '
            'above)')
    return status, rc


# ----------------------------------------------------------------------
# the command line
# ----------------------------------------------------------------------
EPILOG = '''event script (--event/--events), one op per line:
  wait REGEX [timeout=S]   wait until the command's output matches REGEX
  from REGEX [timeout=S]   the same, and later waits read from its match on
  sleep S | key K [K..] (chord) | keydown K.. | keyup K.. | type TEXT
  rel DX DY | abs X Y (0..32767) | click [left|right|middle]
  btndown B | btnup B | wheel up|down [N] | screendump FILE(.ppm|.png)
  [head=N] [until=REF.ppm | check=CMD,ARG,.. | stable] [timeout=S]
  (until: dumps until two in a row are REF's picture; check: until CMD
  passes on two, {} the dump; stable: until unchanged for 1 s) |
  ack WORD (the command's `hostwait WORD` returns) |
  head N WxH|off (--heads: plug/resize or unplug head N);
  1.N for head N of the second device (--fb2), as head=1.N and head 1.N
  qmp {"execute": ...}
key names are QEMU qcodes: a, 1, ret, spc, esc, tab, shift, ctrl, alt,
f1, up, ...
environment: VNCFB_VM_CACHE (default ~/.cache/vncfb-vm), VNCFB_VM_KERNEL_PKG
(pin a linux-image package), VNCFB_VM_KERNEL_TTL, VNCFB_VM_CPU (qemu -cpu),
VNCFB_VM_BUSYBOX, VNCFB_VM_KVM_PROBE_S, VNCFB_VM_SYSROOT (--arch arm64:
the sysroot its programs' libraries come from).'''


def parse_args(argv):
    ap = argparse.ArgumentParser(
        prog='vmrun.py', epilog=EPILOG,
        description='Run a command as root in a qemu guest with a real '
        '/dev/fb0 and evdev.',
        formatter_class=argparse.RawDescriptionHelpFormatter)
    add = ap.add_argument
    add('--cmd', required=True, help='shell command line, run in /root')
    add('--bin', action='append', default=[], metavar='PATH[:DST]',
        help='program to copy with its ldd libraries (default DST '
        '/usr/local/bin/NAME)')
    add('--file', action='append', default=[], metavar='SRC[:DST]',
        help='file or folder to copy (default DST /root/NAME)')
    add('--smp', type=int, default=2)
    add('--mem', type=int, default=1024, help='MiB (default 1024)')
    add('--fb', choices=sorted(DISPLAYS), default='vesa',
        help='vesa (vesafb on direct VRAM, default); DRM fbdev emulation: '
        'bochs, bochs-display, cirrus (16 bpp), virtio; none')
    add('--mode', help='vesa: WxHxBPP from the VGA BIOS list (default '
        '1024x768x32)')
    add('--res', help='WxH of the qemu display device (DRM drivers)')
    add('--video', help="the kernel's video=, e.g. Virtual-1:800x600")
    add('--vgamem', type=int, default=16, help='VGA memory, MiB')
    add('--heads', type=int, default=0, metavar='N',
        help='--fb virtio with N outputs (head 0 on, the others '
        'unplugged), each driven by the script\'s `head` op')
    add('--fb2', choices=sorted(SECOND_DISPLAYS),
        help='a second display device, the guest\'s second DRM card: '
        'virtio (virtio-gpu-pci, --heads2 outputs, head 0 on) or '
        'bochs-display')
    add('--heads2', type=int, default=1, metavar='N',
        help='--fb2 virtio with N outputs (default 1), each driven by '
        'the script\'s `head 1.N` op')
    add('--mouse', choices=sorted(MICE), default='ps2',
        help='ps2 (relative, default), virtio or usb (absolute tablets), '
        'none')
    add('--module', action='append', default=[], metavar="'NAME [P=V..]'",
        help='another kernel module to load, with what it needs')
    add('--fbcon', choices=('unbind', 'keep'), default='unbind',
        help='unbind fbcon from the framebuffer first (default)')
    add('--env', action='append', default=[], metavar='K=V')
    add('--event', action='append', default=[], metavar='LINE',
        help='input script line')
    add('--events', action='append', default=[], metavar='FILE',
        help='input script file')
    add('--screendump', metavar='FILE',
        help='the display after the command (.ppm or .png)')
    add('--settle', type=float, default=0.3,
        help='seconds from the command exit to the screendump')
    add('--timeout', type=int, default=300, help='seconds (default 300)')
    add('--accel', choices=('auto', 'kvm', 'tcg'), default='auto')
    add('--arch', choices=('amd64', 'arm64'), default='amd64',
        help='the guest\'s: arm64 boots qemu-system-aarch64\'s virt '
        'machine (TCG) with --bin programs built for arm64, their '
        'libraries from the sysroot of cross/mksysroot.sh (vmarm64.py)')
    add('--boot', choices=('auto', 'bzimage'), default='auto',
        help='auto: the PVH vmlinux (fast under TCG) unless vesa needs the '
        'bzImage')
    add('--append', help='more kernel command line')
    add('--qemu-arg', action='append', default=[],
        help='a raw qemu argument; write --qemu-arg=-device ...')
    add('--log', help="copy the guest kernel's console log here")
    add('--keep', action='store_true', help='keep the temporary folder')
    add('-q', '--quiet', action='store_true')
    add('-v', '--verbose', action='store_true')
    args = ap.parse_args(argv)
    if args.fb == 'vesa' and args.arch == 'amd64':
        try:
            w, h, bpp = (int(x) for x in
                         (args.mode or '1024x768x32').split('x'))
        except ValueError:
            w = h = bpp = 0
        if (w, h, bpp) not in VBE_MODES:
            ap.error('--mode %s: not a VGA BIOS mode; one of: %s' % (
                args.mode, ' '.join('%dx%dx%d' % k
                                    for k in sorted(VBE_MODES))))
        args.vga = VBE_MODES[(w, h, bpp)] + 0x200
        # The VGA BIOS drops modes that do not fit its memory, and an
        # unknown vga= stops the kernel's set-up at a menu for 30 s.
        need_mb = (w * h * ((bpp + 7) // 8) >> 20) + 1
        while args.vgamem < need_mb:
            args.vgamem *= 2
    elif args.mode:
        ap.error('--mode is for --fb vesa; DRM drivers take --res or --video')
    if args.heads and (args.fb != 'virtio' or not 1 <= args.heads <= 16):
        ap.error('--heads is 1..16 outputs of --fb virtio')
    if args.fb2 and args.fb in ('none', 'vesa'):
        ap.error('--fb2 is a second DRM card: --fb must be a DRM driver\'s')
    if args.heads2 != 1 and (args.fb2 != 'virtio' or
                             not 1 <= args.heads2 <= 16):
        ap.error('--heads2 is 1..16 outputs of --fb2 virtio')
    for e in args.env:
        if '=' not in e:
            ap.error('--env %s: not K=V' % e)
    if args.arch == 'arm64':
        vmarm64.check_args(ap, args)
    return args


def initramfs_spec(args, busybox):
    """What vminitramfs.build() packs for args."""
    def pairs(specs, default_dir):
        out = []
        for s in specs:
            src, _, dst = s.partition(':')
            out.append((src, dst or default_dir + os.path.basename(
                src.rstrip('/'))))
        return out
    # The mouse first: psmouse probes for about 1 s under TCG, while the
    # DRM stack loads.
    mods = ['evdev'] + MICE[args.mouse][1] + DISPLAYS[args.fb][1] + \
        (SECOND_DISPLAYS[args.fb2][1] if args.fb2 else []) + args.module
    waits = []
    if args.fb != 'none':
        waits.append('waitfor 15 test -e /dev/fb0 || echo "vm: no /dev/fb0"')
    names = ['keyboard'] + ([MICE[args.mouse][2]] if MICE[args.mouse][2]
                            else [])
    waits.append('waitfor 15 inputs_ready %s || { echo "vm: input devices '
                 'not ready"; cat /proc/bus/input/devices; }'
                 % ' '.join(shlex.quote(n) for n in names))
    spec = {'busybox': busybox,
            'bins': pairs(args.bin, '/usr/local/bin/'),
            'files': pairs(args.file, '/root/'),
            'modules': list(dict.fromkeys(mods)), 'waits': waits,
            'cmd': args.cmd,
            'env': [tuple(e.split('=', 1)) for e in args.env],
            'unbind_fbcon': args.fbcon == 'unbind'}
    if args.arch == 'arm64':
        spec.update(vmarm64.spec(args, busybox))
    return spec


def run(args):
    """The exit status for args (see the module's docstring)."""
    os.makedirs(vmkernel.CACHE, exist_ok=True)
    busybox = busybox_path()
    arch = None if args.arch == 'amd64' else args.arch
    try:
        kernel = vmkernel.ensure(busybox, log, arch)
        if arch:
            # The guest's own (the host's depmods its kernel's modules).
            busybox = vmarm64.busybox(
                vmkernel.arch_cache(arch), vmkernel.apt_options(arch), log)
    except (vmkernel.Unavailable, OSError) as e:
        raise Failure(str(e))
    tmp = tempfile.mkdtemp(prefix='vncfb-vm-')
    try:
        initrd = os.path.join(tmp, 'initrd.cpio')
        try:
            vminitramfs.build(initrd, initramfs_spec(args, busybox), kernel,
                              log, os.path.join(vmkernel.CACHE, 'initramfs'))
        except ValueError as e:
            raise Failure(str(e))
        # No KVM for another architecture's guest.
        accel = 'tcg' if arch else choose_accel(args.accel, kernel, initrd,
                                                tmp)
        status, rc = run_vm(args, kernel, initrd, tmp, accel,
                            accel == 'kvm')
        if status == 'kvm-failed':
            if args.accel == 'kvm':
                raise Failure('KVM does not boot a guest here (see above); '
                              'use --accel tcg or auto')
            save_verdict('tcg')
            log('using TCG from now on on this host (kept in %s/accel.json;'
                ' delete it to try KVM again)' % vmkernel.CACHE)
            status, rc = run_vm(args, kernel, initrd, tmp, 'tcg', False)
        if status == 'ok':
            return rc
        return 124 if status == 'timeout' else 125
    finally:
        for p in CHILDREN:
            if p.poll() is None:
                p.kill()
                p.wait()
        if args.keep:
            log('kept %s' % tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


def main(argv):
    global QUIET
    args = parse_args(argv)
    QUIET = args.quiet
    # SIGTERM and SIGHUP unwind through run()'s finally: no guest left.
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda n, f: sys.exit(128 + n))
    try:
        return run(args)
    except Failure as e:
        sys.stderr.write('vmrun: error: %s\n' % e)
        return 125


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
