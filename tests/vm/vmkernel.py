"""The guest's kernel: Debian's linux-image package, fetched once with
apt-get download and unpacked into a cache, and the closure of the
modules a guest needs.

Used by vmrun.py (in the host process that boots the guest) and by
vmskip.py (a test's precondition). Only one process at a time fetches:
the cache is locked while a package is unpacked.
"""
import fcntl
import glob
import json
import lzma
import os
import re
import shutil
import subprocess
import tempfile
import time
import zlib

# The kernel and the KVM verdict live here; delete the folder to start
# again.
CACHE = os.environ.get('VNCFB_VM_CACHE') or os.path.join(
    os.environ.get('XDG_CACHE_HOME') or os.path.expanduser('~/.cache'),
    'vncfb-vm')
# The package the meta-package depends on is looked up again after this
# many seconds (apt-cache is slow, and the answer changes once a month).
LOOKUP_TTL = float(os.environ.get('VNCFB_VM_KERNEL_TTL', '86400'))
META = 'linux-image-amd64'
INFO = 'vmkernel.json'


class Unavailable(Exception):
    """No kernel can be had: not cached, and the archive cannot be
    reached or does not have it. A test skips on this."""


def arch_cache(arch):
    """Where arch's kernel lives: the cache itself for the host's (x86-64),
    a folder of its own for another (arm64)."""
    return os.path.join(CACHE, arch) if arch else CACHE


def apt_options(arch):
    """Options that make apt-get and apt-cache give arch's packages
    (vmarm64.py); none for the host's."""
    if not arch:
        return []
    import vmarm64
    try:
        return vmarm64.apt_options(arch_cache(arch))
    except (OSError, subprocess.SubprocessError) as e:
        raise Unavailable(str(e))


def package_name(arch=None):
    """The linux-image-VERSION package to boot: $VNCFB_VM_KERNEL_PKG, or
    what linux-image-amd64 (arch's meta-package) depends on; None when
    apt-cache cannot say."""
    pinned = os.environ.get('VNCFB_VM_KERNEL_PKG')
    if pinned and not arch:
        return pinned
    meta = 'linux-image-' + arch if arch else META
    memo = os.path.join(arch_cache(arch), 'kernel-pkg')
    try:
        if time.time() - os.path.getmtime(memo) < LOOKUP_TTL:
            with open(memo) as f:
                return f.read().strip() or None
    except OSError:
        pass
    try:
        out = subprocess.run(['apt-cache'] + apt_options(arch) +
                             ['depends', meta],
                             capture_output=True, text=True,
                             timeout=120).stdout
    except (OSError, subprocess.SubprocessError, Unavailable):
        return None
    m = re.search(r'Depends:\s*(linux-image-[0-9]\S*)', out)
    if not m:
        return None
    os.makedirs(arch_cache(arch), exist_ok=True)
    with open(memo + '.tmp', 'w') as f:
        f.write(m.group(1) + '\n')
    os.replace(memo + '.tmp', memo)
    return m.group(1)


def extract_vmlinux(bzimage, out):
    """Write the ELF kernel inside a bzImage to out: booted through PVH
    it skips the real-mode set-up and the decompressor, seconds under
    TCG. False when no payload decompresses to an ELF."""
    with open(bzimage, 'rb') as f:
        data = f.read()
    for magic, kind in ((b'\xfd7zXZ\x00', 'xz'), (b'\x28\xb5\x2f\xfd', 'zstd'),
                        (b'\x1f\x8b\x08', 'gz')):
        off = data.find(magic)
        while off >= 0:
            raw = b''
            try:
                if kind == 'xz':
                    raw = lzma.LZMADecompressor(
                        format=lzma.FORMAT_XZ).decompress(data[off:])
                elif kind == 'gz':
                    raw = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(
                        data[off:])
                elif shutil.which('zstd'):
                    raw = subprocess.run(['zstd', '-dc'], input=data[off:],
                                         capture_output=True).stdout
            except (lzma.LZMAError, zlib.error, EOFError):
                pass
            if raw[:4] == b'\x7fELF':
                with open(out, 'wb') as f:
                    f.write(raw)
                return True
            off = data.find(magic, off + 1)
    return False


def _unpack(pkg, kroot, busybox, log, arch=None):
    """apt-get download pkg and unpack it as kroot/pkg; raises
    Unavailable when the archive does not give it."""
    t = time.monotonic()
    log('fetching kernel package %s into %s (once)' % (pkg, kroot))
    tmp = tempfile.mkdtemp(prefix='.dl-', dir=kroot)
    try:
        cmd = ['apt-get', 'download', pkg]
        cmd[1:1] = apt_options(arch)
        if os.geteuid() == 0:
            # apt drops to _apt for downloads, which cannot write here.
            cmd[1:1] = ['-o', 'APT::Sandbox::User=root']
        try:
            r = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True,
                               timeout=600)
        except (OSError, subprocess.SubprocessError) as e:
            raise Unavailable('apt-get download %s: %s' % (pkg, e))
        debs = glob.glob(os.path.join(tmp, '*.deb'))
        if r.returncode or not debs:
            why = (r.stderr or r.stdout).strip().splitlines()
            raise Unavailable('apt-get download %s failed: %s' % (
                pkg, why[-1] if why else 'exit %d' % r.returncode))
        root = os.path.join(tmp, 'root')
        subprocess.run(['dpkg-deb', '-x', debs[0], root], check=True)
        version = subprocess.run(['dpkg-deb', '-f', debs[0], 'Version'],
                                 capture_output=True, text=True,
                                 check=True).stdout.strip()
        os.unlink(debs[0])
        # Debian moved /lib to /usr/lib; the guest looks in /lib.
        mroot = os.path.join(root, 'lib', 'modules')
        if not os.path.isdir(mroot):
            mroot = os.path.join(root, 'usr', 'lib', 'modules')
            os.makedirs(os.path.join(root, 'lib'), exist_ok=True)
            os.symlink('../usr/lib/modules',
                       os.path.join(root, 'lib', 'modules'))
        kver = os.listdir(mroot)[0]
        subprocess.run([busybox, 'depmod', '-b', root, kver], check=True)
        boot = os.path.join(root, 'boot')
        with open(os.path.join(boot, 'config-' + kver)) as f:
            pvh = not arch and 'CONFIG_PVH=y' in f.read().split('\n')
        pvh = pvh and extract_vmlinux(
            os.path.join(boot, 'vmlinuz-' + kver),
            os.path.join(boot, 'vmlinux-' + kver))
        with open(os.path.join(root, INFO), 'w') as f:
            json.dump({'pkg': pkg, 'version': version, 'kver': kver,
                       'pvh': bool(pvh)}, f)
        kdir = os.path.join(kroot, pkg)
        shutil.rmtree(kdir, ignore_errors=True)
        os.rename(root, kdir)
        log('kernel %s (%s) ready in %.1fs' % (kver, version,
                                               time.monotonic() - t))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def ensure(busybox, log=lambda msg: None, arch=None):
    """The kernel to boot (arch's: None for x86-64, or 'arm64'), fetched
    first if need be: a dict with pkg, version, kver, pvh and the paths
    dir, bzimage (image: the same, as arm64 names it), vmlinux, moddir.
    Falls back to the newest cached kernel when the archive cannot be
    asked; raises Unavailable when there is none."""
    kroot = os.path.join(arch_cache(arch), 'kernel')
    os.makedirs(kroot, exist_ok=True)
    with open(os.path.join(CACHE, '.lock'), 'w') as lk:
        fcntl.flock(lk, fcntl.LOCK_EX)
        # Under the lock: arch's lists are fetched once.
        pkg = package_name(arch)
        kdir = None
        why = 'apt-cache depends %s gave no package' % (
            'linux-image-' + arch if arch else META)
        if pkg:
            if not os.path.exists(os.path.join(kroot, pkg, INFO)):
                try:
                    _unpack(pkg, kroot, busybox, log, arch)
                except Unavailable as e:
                    why = str(e)
            if os.path.exists(os.path.join(kroot, pkg, INFO)):
                kdir = os.path.join(kroot, pkg)
        if kdir is None:
            done = sorted(glob.glob(os.path.join(kroot, '*', INFO)),
                          key=os.path.getmtime)
            if not done:
                raise Unavailable('no kernel: %s, and none cached in %s'
                                  % (why, kroot))
            kdir = os.path.dirname(done[-1])
            log('%s; booting the cached %s' % (why, os.path.basename(kdir)))
    with open(os.path.join(kdir, INFO)) as f:
        info = json.load(f)
    boot = os.path.join(kdir, 'boot')
    info.update(dir=kdir,
                bzimage=os.path.join(boot, 'vmlinuz-' + info['kver']),
                image=os.path.join(boot, 'vmlinuz-' + info['kver']),
                vmlinux=os.path.join(boot, 'vmlinux-' + info['kver']),
                moddir=os.path.join(kdir, 'lib', 'modules', info['kver']))
    return info


def module_name(path):
    """The name modprobe knows a module file by: drm-kms-helper.ko.xz is
    drm_kms_helper."""
    name = re.sub(r'\.ko(\.[a-z]+)?$', '', os.path.basename(path))
    return name.replace('-', '_')


class Modules:
    """modules.dep of one kernel: which files a module needs, in load
    order."""

    def __init__(self, moddir):
        self.moddir = moddir
        self.deps, self.byname = {}, {}
        with open(os.path.join(moddir, 'modules.dep')) as f:
            for line in f:
                path, _, deps = line.partition(':')
                path = path.strip()
                if path:
                    self.deps[path] = deps.split()
                    self.byname[module_name(path)] = path
        self.builtin = set()
        try:
            with open(os.path.join(moddir, 'modules.builtin')) as f:
                self.builtin = {module_name(l.strip()) for l in f}
        except OSError:
            pass

    def closure(self, names):
        """The module files (relative to moddir) that load names, each
        after what it depends on; built-in names need none. Raises
        KeyError naming a module the kernel does not have."""
        order, seen = [], set()

        def visit(path):
            if path in seen:
                return
            seen.add(path)
            for dep in self.deps.get(path, []):
                visit(dep)
            order.append(path)

        for name in names:
            path = self.byname.get(module_name(name))
            if path is None:
                if module_name(name) in self.builtin:
                    continue
                raise KeyError('kernel module %r not in %s'
                               % (name, self.moddir))
            visit(path)
        return order
