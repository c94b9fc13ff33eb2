"""The guest's root file system: a newc cpio archive (the kernel unpacks
it as the initramfs) holding busybox-static, the programs a test asks
for with the libraries ldd names, its files, the kernel modules and an
/init that loads them, waits for the devices, runs the command and
powers off.

The archive is written directly (no cpio(1)); vmrun.py builds one per
boot from two: the programs, libraries and files, cached in
VNCFB_VM_CACHE/initramfs across boots, and the boot's own modules, /init
and command appended. The protocol /init speaks on the second serial port is read by
vmqmp.GuestOutput.
"""
import fcntl
import glob
import hashlib
import os
import re
import shlex
import shutil
import stat
import subprocess
import time

import vmkernel


class Cpio:
    """A newc archive being written; close() adds the trailer. Entries
    written later replace earlier ones of the same name when the kernel
    unpacks, so defaults go first."""

    def __init__(self, path, append=False):
        # Appended: another archive after the one in path, which the
        # kernel unpacks next.
        self.f = open(path, 'ab' if append else 'wb')
        self.ino = 1000000 if append else 1000
        self.dirs = set()

    def _header(self, name, mode, size, nlink=1, rdev=(0, 0)):
        name_b = name.encode() + b'\0'
        self.ino += 1
        fields = (self.ino, mode, 0, 0, nlink, 0, size, 0, 0, rdev[0],
                  rdev[1], len(name_b), 0)
        self.f.write(b'070701' + b''.join(b'%08x' % v for v in fields) +
                     name_b)
        self._pad()

    def _pad(self):
        pos = self.f.tell()
        if pos % 4:
            self.f.write(b'\0' * (4 - pos % 4))

    def mkdir(self, path):
        path = path.strip('/')
        if not path or path in self.dirs:
            return
        self.mkdir(os.path.dirname(path))
        self.dirs.add(path)
        self._header(path, stat.S_IFDIR | 0o755, 0, nlink=2)

    def add_data(self, path, data, mode=0o644):
        path = path.strip('/')
        self.mkdir(os.path.dirname(path))
        self._header(path, stat.S_IFREG | (mode & 0o7777), len(data))
        self.f.write(data)
        self._pad()

    def add_file(self, path, src, mode=None):
        with open(src, 'rb') as f:
            data = f.read()
        self.add_data(path, data,
                      os.stat(src).st_mode if mode is None else mode)

    def add_tree(self, dst, src):
        if os.path.isdir(src):
            self.mkdir(dst)
            for e in sorted(os.listdir(src)):
                self.add_tree(dst.rstrip('/') + '/' + e,
                              os.path.join(src, e))
        else:
            self.add_file(dst, src)

    def symlink(self, path, target):
        path = path.strip('/')
        self.mkdir(os.path.dirname(path))
        t = target.encode()
        self._header(path, stat.S_IFLNK | 0o777, len(t))
        self.f.write(t)
        self._pad()

    def node(self, path, mode, major, minor):
        path = path.strip('/')
        self.mkdir(os.path.dirname(path))
        self._header(path, mode, 0, rdev=(major, minor))

    def close(self):
        self._header('TRAILER!!!', 0, 0)
        self.f.close()


def read_cpio(path):
    """The entries of a newc archive: {name: (mode, data, rdev)}; the
    later of two entries with one name wins, as in the kernel."""
    with open(path, 'rb') as f:
        data = f.read()
    entries, pos = {}, 0
    while True:
        if data[pos:pos + 6] != b'070701':
            raise ValueError('%s: no newc header at %d' % (path, pos))
        v = [int(data[pos + 6 + 8 * i:pos + 14 + 8 * i], 16)
             for i in range(13)]
        mode, size, namesize = v[1], v[6], v[11]
        pos += 110
        name = data[pos:pos + namesize - 1].decode()
        pos = (pos + namesize + 3) & ~3
        body = data[pos:pos + size]
        pos = (pos + size + 3) & ~3
        if name == 'TRAILER!!!':
            # Another archive may follow (the boot's own part), after
            # zeros, as the kernel reads it.
            while pos < len(data) and data[pos] == 0:
                pos += 1
            if pos >= len(data):
                return entries
            continue
        entries[name] = (mode, body, (v[9], v[10]))


def ldd_libs(path):
    """The shared libraries (and the loader) path needs; [] for a static
    binary. Raises ValueError naming a library ldd cannot find."""
    p = subprocess.run(['ldd', path], capture_output=True, text=True)
    r = p.stdout + p.stderr
    if 'not a dynamic executable' in r or 'statically linked' in r:
        return []
    libs = []
    for line in r.splitlines():
        line = line.strip()
        if '=> not found' in line:
            raise ValueError('%s: missing library: %s' % (path, line))
        m = re.match(r'\S+ => (/\S+) \(', line) or \
            re.match(r'(/\S+) \(', line)
        if m:
            libs.append(m.group(1))
    return libs


# /init, as busybox sh. Markers on ttyS1 (\002VM:WORD ...\003) tell the
# host when the guest is up, ready and done; the command's output goes
# there too, between them. After RC the guest waits for the host's word
# (its screendump is taken) before it powers off.
INIT = r'''#!/bin/busybox sh
/bin/busybox mount -t proc proc /proc
/bin/busybox mount -t sysfs sysfs /sys
/bin/busybox mount -t devtmpfs devtmpfs /dev
/bin/busybox --install -s /bin
export PATH=/usr/local/bin:/usr/local/sbin:/usr/bin:/usr/sbin:/bin:/sbin
export HOME=/root TERM=linux
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
# An injected Ctrl+Alt+Del must reach the test, not reboot the guest.
echo 0 > /proc/sys/kernel/ctrl-alt-del
trap 'echo "vm: ctrl-alt-del ignored"' INT
up() { read u _ < /proc/uptime; echo $u; }
exec 3<>@CHANNEL@
stty -F @CHANNEL@ raw -echo
mark() { printf '\002VM:%s\003' "$*" >&3; }
mark BOOT $(up)
while read -r m p; do
	[ -n "$m" ] || continue
	insmod /lib/modules/$m $p || echo "vm: insmod $m failed"
done < /vm/modules
waitfor() {  # waitfor SECONDS command...
	n=$(($1 * 20)); shift
	while ! "$@"; do
		n=$((n - 1)); [ $n -gt 0 ] || return 1; usleep 50000
	done
}
# Every input device named is there, and each has its event node.
inputs_ready() {
	for p in "$@"; do
		grep -q "^N: Name=.*$p" /proc/bus/input/devices || return 1
	done
	[ "$(grep -c '^I:' /proc/bus/input/devices)" = \
		"$(ls /dev/input 2>/dev/null | grep -c '^event')" ]
}
@WAITS@
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
hostname vncfb-vm
if [ -e /vm/unbind_fbcon ]; then
	for v in /sys/class/vtconsole/vtcon*; do
		grep -q 'frame buffer' $v/name && echo 0 > $v/bind
	done
fi
[ -e /vm/env ] && . /vm/env
mark READY $(up)
cd /root
sh /vm/cmd </dev/null >&3 2>&3 3>&-
rc=$?
mark RC $rc $(up)
# The host's word, once its last screendump is taken; an ack no hostwait
# took is skipped.
while read -t 120 -r ack <&3; do
	[ "$ack" = POWEROFF ] && break
done
sync
poweroff -f
'''


# /bin/hostwait WORD [SECONDS]: until the host's event script says `ack
# WORD` on the marker tty (what a guest script waits on instead of sleeping while
# the host takes its screendump); 1 and a TIMEOUT line after SECONDS
# (120). Other words are skipped.
HOSTWAIT = r'''#!/bin/busybox sh
end=$(($(cut -d. -f1 /proc/uptime) + ${2:-120}))
while :; do
	left=$((end - $(cut -d. -f1 /proc/uptime)))
	[ $left -gt 0 ] || { echo "TIMEOUT hostwait $1"; exit 1; }
	read -t $left -r w < @CHANNEL@ || continue
	[ "$w" = "$1" ] && exit 0
done
'''


# The cached part's format: a change to what _write_base writes bumps it.
BASE_VERSION = 2
# Cached parts kept (the most recently used); each is mostly vncfb's
# libraries, about 165 MB.
BASE_KEEP = 8


def _base_inputs(spec, kernel):
    """What the cached part holds, as [(src, dst, mode)], and the module
    files in load order (in the boot's own part: one cached part serves
    every display and mouse); raises ValueError for a missing file, library
    or module."""
    entries, libs = [], {}
    libs_of = spec.get('libs_of') or (
        lambda p: [(lib, os.path.realpath(lib)) for lib in ldd_libs(p)])
    for src, dst in [(spec['busybox'], '/bin/busybox')] + spec['bins']:
        if not os.path.isfile(src):
            raise ValueError('--bin %s: no such file' % src)
        entries.append((src, dst, 0o755))
        for lib, real in libs_of(src):
            libs[lib] = real
    entries += [(real, lib, 0o755) for lib, real in libs.items()]
    for src, dst in spec['files']:
        if not os.path.exists(src):
            raise ValueError('--file %s: no such file' % src)
        entries.append((src, dst, None))
    mods = vmkernel.Modules(kernel['moddir'])
    try:
        files = mods.closure([m.split()[0] for m in spec['modules']])
    except KeyError as e:
        raise ValueError(e.args[0])
    return entries, files, len(libs)


def _stamp(src):
    """What says that src (a file, or a folder and all under it) is as
    it was: each path's size and modification time."""
    out = []
    for root, dirs, names in [('', [], [src])] if not os.path.isdir(src) \
            else os.walk(src):
        dirs.sort()
        for n in sorted(names):
            st = os.stat(os.path.join(root, n))
            out.append('%s %d %d' % (os.path.join(root, n), st.st_size,
                                     st.st_mtime_ns))
    return out


def _write_base(path, entries):
    c = Cpio(path)
    for d in ('bin', 'sbin', 'usr/bin', 'usr/sbin', 'usr/local/bin', 'proc',
              'sys', 'dev', 'tmp', 'run', 'root', 'etc', 'vm', 'lib/modules'):
        c.mkdir(d)
    c.node('dev/console', stat.S_IFCHR | 0o600, 5, 1)
    c.node('dev/null', stat.S_IFCHR | 0o666, 1, 3)
    c.add_data('etc/passwd', b'root:x:0:0:root:/root:/bin/sh\n')
    c.add_data('etc/group', b'root:x:0:\n')
    c.add_data('etc/hosts', b'127.0.0.1 localhost\n::1 localhost\n')
    c.add_data('etc/hostname', b'vncfb-vm\n')
    for src, dst, mode in entries:
        if mode is None:
            c.add_tree(dst, src)
        else:
            c.add_file(dst, src, mode)
    c.close()


def _cached_base(cache, entries, log):
    """The path of the cached part holding entries: built once under a
    lock (parallel tests asking for the same one wait for the first),
    found again by the names, sizes and times of everything in it."""
    key = hashlib.sha256(('%d\n' % BASE_VERSION + '\n'.join(
        '%s -> %s %s\n%s' % (src, dst, mode, '\n'.join(_stamp(src)))
        for src, dst, mode in entries)).encode()).hexdigest()[:24]
    os.makedirs(cache, exist_ok=True)
    path = os.path.join(cache, key + '.cpio')
    with open(path + '.lock', 'w') as lk:
        fcntl.flock(lk, fcntl.LOCK_EX)
        if os.path.exists(path):
            os.utime(path)
            return path, True
        _write_base(path + '.tmp', entries)
        os.replace(path + '.tmp', path)
    old = sorted(glob.glob(os.path.join(cache, '*.cpio')),
                 key=os.path.getmtime)[:-BASE_KEEP]
    for p in old:
        for q in (p, p + '.lock'):
            try:
                os.unlink(q)
            except OSError:
                pass
    return path, False


def copy(src, dst):
    """src's bytes to dst, in the kernel where it can."""
    with open(src, 'rb') as a, open(dst, 'wb') as b:
        left = os.fstat(a.fileno()).st_size
        try:
            while left > 0:
                n = os.copy_file_range(a.fileno(), b.fileno(), left)
                if n <= 0:
                    break
                left -= n
        except (AttributeError, OSError):
            pass
        if left > 0:
            a.seek(0)
            b.seek(0)
            b.truncate()
            shutil.copyfileobj(a, b, 1 << 22)


def build(path, spec, kernel, log=lambda msg: None, cache=None):
    """Write the initramfs for one boot to path. spec: busybox, bins
    ([(src, dst)]), files ([(src, dst)]), modules (['name param=v']),
    waits (shell lines), cmd, env ([(k, v)]), unbind_fbcon; for another
    architecture's guest (vmarm64.py) channel, /init's marker tty
    (default /dev/ttyS1), and libs_of, a program's libraries as [(path
    in the guest, file)] (default: ldd's). Raises ValueError for a
    missing file, library or module.

    With cache (a folder), the programs, libraries and files are one
    archive kept there across boots and runs, copied, and the boot's own
    part (the kernel modules, /init, the command) appended: the kernel
    unpacks concatenated archives in turn."""
    t = time.monotonic()
    entries, files, nlibs = _base_inputs(spec, kernel)
    how = 'built'
    if cache:
        base, hit = _cached_base(cache, entries, log)
        how = 'from the cache' if hit else 'built and cached'
        copy(base, path)
        c = Cpio(path, append=True)
    else:
        _write_base(path, entries)
        c = Cpio(path, append=True)
    for p in files:
        c.add_file('lib/modules/' + p, os.path.join(kernel['moddir'], p))
    params = {vmkernel.module_name(m.split()[0]): ' '.join(m.split()[1:])
              for m in spec['modules']}
    lines = [(p + ' ' + params.get(vmkernel.module_name(p), '')).strip()
             for p in files]
    c.add_data('vm/modules', ('\n'.join(lines) + '\n').encode())
    c.add_data('vm/cmd', (spec['cmd'] + '\n').encode())
    if spec['env']:
        c.add_data('vm/env', ''.join(
            'export %s=%s\n' % (k, shlex.quote(v))
            for k, v in spec['env']).encode())
    if spec['unbind_fbcon']:
        c.add_data('vm/unbind_fbcon', b'')
    channel = spec.get('channel', '/dev/ttyS1')
    c.add_data('bin/hostwait', HOSTWAIT.replace('@CHANNEL@', channel)
               .encode(), 0o755)
    c.add_data('init', INIT.replace('@WAITS@', '\n'.join(spec['waits']))
               .replace('@CHANNEL@', channel).encode(), 0o755)
    c.close()
    log('initramfs %.1f MB (%d modules, %d libs) %s in %.2fs' % (
        os.path.getsize(path) / 1e6, len(lines), nlibs, how,
        time.monotonic() - t))
