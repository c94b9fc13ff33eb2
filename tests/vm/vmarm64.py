"""The test bed's arm64 guest (vmrun.py --arch arm64): what differs from
the x86-64 one, kept here.

* Debian's arm64 packages (the kernel, busybox-static) come through apt
  with a state of its own in the cache (its own lists for arm64, an
  empty dpkg status): the build machine's apt and dpkg are not touched,
  and no foreign architecture is added to them.
* The programs are arm64 builds (the cross tree of tests/cross): their
  libraries come from the arm64 sysroot of cross/mksysroot.sh, found by
  their ELF headers (readelf), not by the build machine's ldd.
* qemu-system-aarch64's `virt` machine under TCG (no KVM for another
  architecture): a Cortex-A72, virtio-gpu-pci for the display (its DRM
  card and its fbdev emulation), virtio keyboard and tablet, the kernel's
  console on a virtio console (hvc0) and /init's marker protocol on the
  one PL011 UART (ttyAMA0, built into Debian's kernel, so there from the
  start).
"""
import os
import re
import subprocess
import time

# Debian's name for the architecture.
ARCH = 'arm64'
QEMU = 'qemu-system-aarch64'
# /init's marker channel and the kernel's console.
CHANNEL = '/dev/ttyAMA0'
# What the guest's input devices are called in /proc/bus/input/devices.
KEYBOARD = 'Virtio Keyboard'
# --fb: (qemu device, modules); only virtio-gpu on `virt` (fbdev through
# its DRM driver's emulation).
DISPLAYS = {
    'virtio': ('virtio-gpu-pci', ['virtio_pci', 'virtio-gpu']),
    'none': (None, []),
}
# --mouse: (qemu devices, modules, its name).
MICE = {
    'virtio': (['virtio-tablet-pci'], ['virtio_pci', 'virtio_input'],
               'Virtio Tablet'),
    'none': ([], [], None),
}
# Besides: the keyboard, the console, their drivers.
MODULES = ['virtio_pci', 'virtio_input', 'virtio_console']
DEVICES = ['virtio-keyboard-pci', 'virtio-serial-pci']
# The lists of Debian's archive are fetched again after this long.
LISTS_TTL = 86400


def sysroot():
    """The arm64 sysroot (cross/mksysroot.sh's): $VNCFB_VM_SYSROOT, or
    where mksysroot.sh lays it."""
    return os.environ.get('VNCFB_VM_SYSROOT') or os.path.join(
        os.environ.get('XDG_CACHE_HOME') or os.path.expanduser('~/.cache'),
        'vncfb-arm64', 'sysroot')


def apt_options(cache):
    """apt-get and apt-cache options for arm64 packages with a state of
    their own under cache/apt; its lists fetched (apt-get update) when
    missing or older than LISTS_TTL. Raises OSError when they cannot be
    had."""
    d = os.path.join(cache, 'apt')
    for sub in ('lists/partial', 'cache/archives/partial'):
        os.makedirs(os.path.join(d, sub), exist_ok=True)
    status = os.path.join(d, 'status')
    if not os.path.exists(status):
        open(status, 'w').close()
    opts = ['-o', 'Dir::State::Lists=' + os.path.join(d, 'lists'),
            '-o', 'Dir::Cache=' + os.path.join(d, 'cache'),
            '-o', 'Dir::State::status=' + status,
            '-o', 'APT::Architecture=' + ARCH,
            '-o', 'APT::Architectures::=' + ARCH,
            '-o', 'Debug::NoLocking=1']
    if os.geteuid() == 0:
        opts += ['-o', 'APT::Sandbox::User=root']
    stamp = os.path.join(d, 'updated')
    try:
        fresh = time.time() - os.path.getmtime(stamp) < LISTS_TTL
    except OSError:
        fresh = False
    if not fresh:
        r = subprocess.run(['apt-get', '-q'] + opts + ['update'],
                           capture_output=True, text=True, timeout=600)
        if r.returncode:
            why = (r.stderr or r.stdout).strip().splitlines()
            raise OSError('apt-get update for %s: %s' % (
                ARCH, why[-1] if why else 'exit %d' % r.returncode))
        open(stamp, 'w').close()
    return opts


def busybox(cache, opts, log):
    """The arm64 busybox-static, fetched once into cache; raises OSError
    when it cannot be had."""
    bb = os.path.join(cache, 'busybox', 'bin', 'busybox')
    if os.path.exists(bb):
        return bb
    tmp = os.path.join(cache, '.bb')
    subprocess.run(['rm', '-rf', tmp], check=True)
    os.makedirs(tmp)
    r = subprocess.run(['apt-get', '-q'] + opts +
                       ['download', 'busybox-static'], cwd=tmp,
                       capture_output=True, text=True, timeout=600)
    debs = [f for f in os.listdir(tmp) if f.endswith('.deb')]
    if r.returncode or not debs:
        raise OSError('apt-get download busybox-static (%s): %s' % (
            ARCH, (r.stderr or r.stdout).strip()[-300:]))
    subprocess.run(['dpkg-deb', '-x', os.path.join(tmp, debs[0]),
                    os.path.join(tmp, 'root')], check=True)
    os.rename(os.path.join(tmp, 'root'), os.path.join(cache, 'busybox'))
    subprocess.run(['rm', '-rf', tmp], check=True)
    log('busybox-static (%s) ready' % ARCH)
    return bb


def _needed(path):
    """The DT_NEEDED names and the interpreter of an ELF file."""
    r = subprocess.run(['readelf', '-d', '-l', '-W', path],
                       capture_output=True, text=True)
    if r.returncode:
        raise ValueError('%s: not an ELF file readelf reads' % path)
    needed = re.findall(r'\(NEEDED\)\s+Shared library: \[([^\]]+)\]',
                        r.stdout)
    interp = re.search(r'Requesting program interpreter: ([^\]]+)\]',
                       r.stdout)
    return needed, interp.group(1) if interp else None


LIBDIRS = ['lib/aarch64-linux-gnu', 'usr/lib/aarch64-linux-gnu', 'lib',
           'usr/lib']


def libs_of(root):
    """A function giving, for an arm64 program, [(path in the guest, file
    on the host)] of its libraries and loader, found in the sysroot root
    (what vminitramfs.build packs for it)."""
    def resolve(path):
        out, todo, seen = [], [path], set()
        first = True
        while todo:
            p = todo.pop()
            needed, interp = _needed(p)
            if first and interp:
                host = os.path.join(root, interp.lstrip('/'))
                if not os.path.exists(host):
                    raise ValueError('%s: no loader %s in %s' % (
                        path, interp, root))
                out.append((interp, os.path.realpath(host)))
            first = False
            for n in needed:
                if n in seen:
                    continue
                seen.add(n)
                for d in LIBDIRS:
                    host = os.path.join(root, d, n)
                    if os.path.exists(host):
                        real = os.path.realpath(host)
                        out.append(('/' + d + '/' + n, real))
                        todo.append(real)
                        break
                else:
                    raise ValueError('%s: missing library %s in %s' % (
                        path, n, root))
        return out
    return resolve


def qemu_command(args, kernel, initrd, tmp, socks):
    """The qemu-system-aarch64 command line for vmrun.py's args."""
    cmdline = ['console=hvc0', 'panic=-1', 'vt.global_cursor_default=0',
               'consoleblank=0', 'rdinit=/init']
    if args.video:
        cmdline.append('video=' + args.video)
    if args.append:
        cmdline.append(args.append)
    q = [QEMU, '-nodefaults', '-no-user-config', '-nic', 'none',
         '-machine', 'virt', '-m', str(args.mem), '-smp', str(args.smp),
         '-display', 'none', '-no-reboot',
         '-accel', 'tcg,thread=multi' if args.smp > 1 else 'tcg',
         '-cpu', os.environ.get('VNCFB_VM_CPU', 'cortex-a72'),
         '-chardev', 'socket,id=out,path=' + socks['out'],
         '-serial', 'chardev:out',
         '-chardev', 'file,id=con,path=' + os.path.join(tmp, 'console.log'),
         '-device', 'virtio-serial-pci',
         '-device', 'virtconsole,chardev=con',
         '-chardev', 'socket,id=qmp,path=' + socks['qmp'],
         '-mon', 'chardev=qmp,mode=control',
         '-kernel', kernel['image'], '-initrd', initrd,
         '-append', ' '.join(cmdline)]
    dev = DISPLAYS[args.fb][0]
    if dev:
        props = [dev]
        if args.res:
            w, h = args.res.split('x')[:2]
            props += ['xres=' + w, 'yres=' + h]
        q += ['-device', ','.join(props)]
    q += ['-device', 'virtio-keyboard-pci']
    for d in MICE[args.mouse][0]:
        q += ['-device', d]
    return q + args.qemu_arg


def check_args(ap, args):
    """What --arch arm64 does not have: errors at parse time."""
    if args.fb not in DISPLAYS:
        ap.error('--arch arm64: --fb is %s' % ' or '.join(sorted(DISPLAYS)))
    if args.mouse not in MICE:
        ap.error('--arch arm64: --mouse is %s' % ' or '.join(sorted(MICE)))
    if args.heads or args.fb2 or args.mode:
        ap.error('--arch arm64: no --heads, --fb2 or --mode')


def spec(args, busybox_path):
    """vminitramfs.build's spec for args, as vmrun.initramfs_spec's."""
    mods = ['evdev'] + MODULES + MICE[args.mouse][1] + \
        DISPLAYS[args.fb][1] + args.module
    waits = []
    if args.fb != 'none':
        waits.append('waitfor 30 test -e /dev/fb0 || echo "vm: no /dev/fb0"')
    names = [KEYBOARD] + ([MICE[args.mouse][2]] if MICE[args.mouse][2]
                          else [])
    waits.append('waitfor 30 inputs_ready %s || { echo "vm: input devices '
                 'not ready"; cat /proc/bus/input/devices; }'
                 % ' '.join("'%s'" % n for n in names))
    return {'busybox': busybox_path, 'modules': list(dict.fromkeys(mods)),
            'waits': waits, 'channel': CHANNEL,
            'libs_of': libs_of(sysroot())}
