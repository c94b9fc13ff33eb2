#!/usr/bin/env python3
"""The VM test bed's own tests (vmrun.py and the modules it is made of).

usage: test_vmbed.py CASE
  unit     no guest: the initramfs read back entry by entry, the module
           closure, the kernel cache (a pinned package found without
           apt, an unreachable one falling back to what is cached, or
           Unavailable), the input script's QMP events, and the pixel
           check itself (a one-pixel corruption and a wrong size are
           rejected)
  vesa16   one boot on vesafb at 800x600x16 (the bzImage, direct VRAM),
           PS/2 mouse: /dev/fb0's geometry and format, a thread pinned
           to CPU 1, a QMP key and relative motion and click on evdev,
           the command's exit status, the screendump pixel-exact
  bochs32  one boot on bochs-drm at 640x480 (PVH, the fbdev emulation's
           shadow pages), USB tablet: the same with absolute motion
Exit 0 pass, 1 fail, 77 (boots only) when qemu or a kernel is absent.
"""
import glob
import os
import re
import shutil
import socket
import stat
import struct
import subprocess
import sys
import tempfile
import threading

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import vminitramfs  # noqa: E402
import vmio  # noqa: E402
import vmkernel  # noqa: E402
from vmskip import vm_run_or_skip  # noqa: E402

FAILS = []


def check(ok, what):
    if not ok:
        FAILS.append(what)
        print('FAIL: %s' % what)
    return ok


# ----------------------------------------------------------------------
# the picture fbtest.c draws, and the check of a screendump against it
# ----------------------------------------------------------------------
BARS = [(255, 255, 255), (255, 255, 0), (0, 255, 255), (0, 255, 0),
        (255, 0, 255), (255, 0, 0), (0, 0, 255), (0, 0, 0)]


def pattern(x, y, w, h):
    """fbtest.c's pattern() at x, y of a w x h screen."""
    if y < h * 2 // 3:
        return BARS[x * 8 // w]
    return (x & 255, y & 255, (x ^ y) & 255)


def widen(n, how):
    """256 entries: an 8-bit value cut to n bits by the guest (its top
    bits), then brought back to 8 bits by qemu's screendump, which
    shifts (its VGA converters) or repeats the bits (pixman)."""
    table = []
    for v in range(256):
        q = v >> (8 - n)
        if n >= 8:
            e = q
        elif how == 'shift':
            e = q << (8 - n)
        else:
            e, have = 0, 0
            while have < 8:
                e, have = (e << n) | q, have + n
            e >>= have - 8
        table.append(e)
    return table


def expected(w, h, bits, how):
    tabs = [widen(n, how) for n in bits]
    rows = []
    for y in range(h):
        row = bytearray(w * 3)
        for x in range(w):
            p = pattern(x, y, w, h)
            row[3 * x:3 * x + 3] = bytes(tabs[i][p[i]] for i in range(3))
        rows.append(bytes(row))
    return b''.join(rows)


def check_picture(img, w, h, bits):
    """None when img (w, h, rgb bytes) is the pattern at w x h with
    channel widths bits, under either expansion; else why not."""
    iw, ih, px = img
    if (iw, ih) != (w, h):
        return 'screendump %dx%d, expected %dx%d' % (iw, ih, w, h)
    best = None
    for how in ('shift', 'repeat'):
        want = expected(w, h, bits, how)
        if px == want:
            return None
        bad = [i // 3 for i in range(0, len(want), 3)
               if px[i:i + 3] != want[i:i + 3]]
        if best is None or len(bad) < best[0]:
            p = bad[0]
            best = (len(bad), '%d of %d pixels differ (bits %s, %s); first '
                    'at %d,%d: %s, expected %s' % (
                        len(bad), w * h, bits, how, p % w, p // w,
                        tuple(px[3 * p:3 * p + 3]),
                        tuple(want[3 * p:3 * p + 3])))
    return best[1]


# ----------------------------------------------------------------------
# unit: no guest
# ----------------------------------------------------------------------
class FakeQMP:
    def __init__(self):
        self.sent = []

    def cmd(self, name, **arguments):
        if name == 'input-send-event':
            self.sent += arguments['events']
            return {}
        raise RuntimeError('QMP %s: not here' % name)


class FakeOutput:
    def __init__(self, text):
        self.text = text

    def wait(self, pred, timeout):
        return bool(pred())


def unit_initramfs(tmp):
    moddir = os.path.join(tmp, 'modules')
    os.makedirs(os.path.join(moddir, 'kernel'))
    with open(os.path.join(moddir, 'modules.dep'), 'w') as f:
        f.write('kernel/drm-helper.ko: kernel/base.ko\n'
                'kernel/base.ko:\nkernel/other.ko:\n')
    with open(os.path.join(moddir, 'modules.builtin'), 'w') as f:
        f.write('kernel/drivers/video/fbdev/vesafb.ko\n')
    for m in ('drm-helper', 'base', 'other'):
        with open(os.path.join(moddir, 'kernel', m + '.ko'), 'wb') as f:
            f.write(m.encode() * 3)
    tree = os.path.join(tmp, 'tree')
    os.makedirs(os.path.join(tree, 'sub'))
    with open(os.path.join(tree, 'sub', 'x.txt'), 'w') as f:
        f.write('odd length!')
    true = shutil.which('true')
    spec = {'busybox': true, 'bins': [(true, '/usr/local/bin/t')],
            'files': [(tree, '/root/tree')],
            'modules': ['drm_helper opt=1', 'vesafb'],
            'waits': ['echo WAITED'], 'cmd': 'echo hello; exit 3',
            'env': [('K', "it's")], 'unbind_fbcon': True}
    kernel = {'moddir': moddir}
    path = os.path.join(tmp, 'initrd.cpio')
    vminitramfs.build(path, spec, kernel)
    e = vminitramfs.read_cpio(path)
    with open(true, 'rb') as f:
        true_bytes = f.read()
    check(e.get('usr/local/bin/t', (0, b''))[1] == true_bytes and
          e['usr/local/bin/t'][0] & 0o777 == 0o755,
          'initramfs: --bin copied, mode 755')
    libs = vminitramfs.ldd_libs(true)
    check(libs and all(l.lstrip('/') in e for l in libs),
          'initramfs: the libraries ldd names (%s)' % libs)
    check(e.get('root/tree/sub/x.txt', (0, b''))[1] == b'odd length!',
          'initramfs: a folder copied whole')
    check(e.get('vm/modules', (0, b''))[1] ==
          b'kernel/base.ko\nkernel/drm-helper.ko opt=1\n',
          'initramfs: a module after what it needs, with its parameter, '
          'none for a built-in: %r' % (e.get('vm/modules'),))
    check('lib/modules/kernel/base.ko' in e and
          'lib/modules/kernel/other.ko' not in e,
          'initramfs: only the modules needed')
    mode, body, rdev = e.get('dev/console', (0, b'', (0, 0)))
    check(stat.S_ISCHR(mode) and rdev == (5, 1), 'initramfs: /dev/console')
    init = e.get('init', (0, b''))
    check(init[0] & 0o111 and b'echo WAITED' in init[1] and
          b'@WAITS@' not in init[1], 'initramfs: /init with the waits')
    check(e.get('vm/env', (0, b''))[1] == b"export K='it'\"'\"'s'\n",
          'initramfs: --env quoted for sh')
    check('vm/unbind_fbcon' in e, 'initramfs: fbcon unbound')
    # Cached: the programs, files and modules kept in the cache once, the
    # boot's own part appended after them; a changed program another.
    cache, msgs = os.path.join(tmp, 'cache'), []
    for cmd in ('echo one', 'echo two'):
        vminitramfs.build(path, dict(spec, cmd=cmd), kernel, msgs.append,
                          cache)
        e2 = vminitramfs.read_cpio(path)
        check({k: v for k, v in e2.items() if k != 'vm/cmd'} ==
              {k: v for k, v in e.items() if k != 'vm/cmd'} and
              e2['vm/cmd'][1] == cmd.encode() + b'\n',
              'initramfs: cached, the same entries and this boot\'s '
              'command (%s)' % cmd)
    check(['built and cached' in msgs[0], 'from the cache' in msgs[1]] ==
          [True, True] and len(glob.glob(os.path.join(cache, '*.cpio')))
          == 1, 'initramfs: built once, then from the cache: %s' % msgs)
    other = os.path.join(tmp, 'other')
    shutil.copy(true, other)
    vminitramfs.build(path, dict(spec, bins=[(other, '/usr/local/bin/t')]),
                      kernel, msgs.append, cache)
    check('built and cached' in msgs[-1] and
          len(glob.glob(os.path.join(cache, '*.cpio'))) == 2,
          'initramfs: another program, another cached part: %s' % msgs)
    check(e.get('bin/hostwait', (0, b''))[0] & 0o111,
          'initramfs: /bin/hostwait for the host\'s acks')
    try:
        vminitramfs.build(path, dict(spec, modules=['nosuch']), kernel)
        check(False, 'initramfs: an unknown module accepted')
    except ValueError as err:
        check('nosuch' in str(err), 'initramfs: unknown module named: %s'
              % err)
    try:
        vminitramfs.build(path, dict(spec, bins=[('/no/such', '/x')]),
                          kernel)
        check(False, 'initramfs: a missing --bin accepted')
    except ValueError as err:
        check('/no/such' in str(err), 'initramfs: missing --bin named')


def unit_kernel(tmp):
    """The cache: never apt for a cached, pinned package; a failed
    download falls back to what is cached, or says it cannot."""
    fakebin = os.path.join(tmp, 'bin')
    os.makedirs(fakebin)
    calls = os.path.join(tmp, 'apt-calls')
    for tool in ('apt-get', 'apt-cache'):
        with open(os.path.join(fakebin, tool), 'w') as f:
            f.write('#!/bin/sh\necho "$0 $*" >> %s\n'
                    'echo "E: Unable to locate package $2" >&2\nexit 100\n'
                    % calls)
        os.chmod(os.path.join(fakebin, tool), 0o755)
    saved = (vmkernel.CACHE, os.environ.get('PATH'),
             os.environ.get('VNCFB_VM_KERNEL_PKG'))
    vmkernel.CACHE = os.path.join(tmp, 'cache')
    os.environ['PATH'] = fakebin + ':' + os.environ['PATH']
    try:
        os.environ['VNCFB_VM_KERNEL_PKG'] = 'linux-image-9.9-test'
        try:
            vmkernel.ensure('/bin/true')
            check(False, 'kernel: nothing cached and no archive, yet a '
                  'kernel')
        except vmkernel.Unavailable as err:
            check('Unable to locate package' in str(err),
                  'kernel: Unavailable says why: %s' % err)
        kdir = os.path.join(vmkernel.CACHE, 'kernel', 'linux-image-9.9-test')
        os.makedirs(kdir)
        with open(os.path.join(kdir, vmkernel.INFO), 'w') as f:
            f.write('{"pkg": "linux-image-9.9-test", "version": "1", '
                    '"kver": "9.9-test", "pvh": true}')
        open(calls, 'w').close()
        k = vmkernel.ensure('/bin/true')
        with open(calls) as f:
            check(not f.read(), 'kernel: a cached package fetched again')
        check(k['kver'] == '9.9-test' and
              k['vmlinux'] == os.path.join(kdir, 'boot', 'vmlinux-9.9-test'),
              'kernel: the cached one, with its paths: %s' % k)
        os.environ['VNCFB_VM_KERNEL_PKG'] = 'linux-image-10.0-new'
        msgs = []
        k = vmkernel.ensure('/bin/true', msgs.append)
        check(k['kver'] == '9.9-test' and
              any('booting the cached' in m for m in msgs),
              'kernel: an unreachable package falls back to the cached '
              'one: %s %s' % (k.get('kver'), msgs))
    finally:
        vmkernel.CACHE = saved[0]
        os.environ['PATH'] = saved[1]
        if saved[2] is None:
            os.environ.pop('VNCFB_VM_KERNEL_PKG', None)
        else:
            os.environ['VNCFB_VM_KERNEL_PKG'] = saved[2]


class DumpQMP(FakeQMP):
    """screendump writes the next of pictures (the last again when they
    run out)."""

    def __init__(self, pictures):
        super().__init__()
        self.pictures, self.n = pictures, 0

    def cmd(self, name, **arguments):
        if name != 'screendump':
            return super().cmd(name, **arguments)
        w, h, pix = self.pictures[min(self.n, len(self.pictures) - 1)]
        self.n += 1
        with open(arguments['filename'], 'wb') as f:
            f.write(b'P6\n%d %d\n255\n' % (w, h) + pix)
        return {}


def unit_dumps(tmp):
    """screendump ... until=REF: dumps until two in a row are REF's
    picture; stable: until one is unchanged for a second; the last dump
    kept when time runs out; ack sends its word to the guest."""
    a, b = (2, 1, b'\1' * 6), (2, 1, b'\2' * 6)
    ref = os.path.join(tmp, 'ref.ppm')
    with open(ref, 'wb') as f:
        f.write(b'P6\n2 1\n255\n' + b[2])
    saved = vmio.DUMP_POLL_S, vmio.STABLE_S
    vmio.DUMP_POLL_S, vmio.STABLE_S = 0.01, 0.1
    try:
        for seq, line, want_n, want in [
                ([a, a, b, a, b, b], 'until=' + ref, 6, b),
                ([a, b, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a],
                 'stable', None, a),
                ([a], 'until=%s timeout=0.2' % ref, None, a),
                # check=: the command passes on the dump ({} its path).
                ([a, b, a, b, b], 'check=cmp,%s,{}' % ref, 5, b)]:
            qmp, msgs = DumpQMP(seq), []
            s = vmio.Script(qmp, FakeOutput(''), 1e18,
                            lambda p, head=None, log=None:
                            vmio.screendump(qmp, p, log or msgs.append),
                            msgs.append)
            out = os.path.join(tmp, 'd.ppm')
            ok = s.run(['screendump %s %s' % (out, line)])
            got = vmio.read_ppm(out)
            check(ok and got == want and
                  (want_n is None or qmp.n == want_n) and
                  ('TIMED OUT' in msgs[-1]) == ('timeout' in line),
                  'script: screendump %s: %d dumps, kept %r: %s' % (
                      line, qmp.n, got, msgs[-1]))
    finally:
        vmio.DUMP_POLL_S, vmio.STABLE_S = saved
    sent = []
    out = FakeOutput('')
    out.send = sent.append
    s = vmio.Script(FakeQMP(), out, 1e18, None, msgs.append)
    check(s.run(['ack r90']) and sent == [b'r90\n'],
          'script: ack sends its word: %r' % sent)


def unit_from():
    """from: the waits after it read the output from its match on (the
    next scenario of a boot does not see the last one's lines)."""
    msgs = []
    s = vmio.Script(FakeQMP(), FakeOutput('STAGE x\n=== b\nSTAGE y\n'),
                    1e18, None, msgs.append)
    check(s.run(['wait STAGE x', 'from ^=== b$', 'wait STAGE y']) and
          not s.run(['wait STAGE x timeout=0.1']),
          'script: from: a wait after it misses what came before: %s' %
          msgs)


def unit_script():
    qmp, msgs = FakeQMP(), []
    s = vmio.Script(qmp, FakeOutput('ready-for-key\n'), 1e18,
                    lambda p: msgs.append('dump ' + p), msgs.append)
    ok = s.run(['# a comment', 'wait ready-.*', 'type Hi!', 'rel 7 -3',
                'click right', 'screendump /x.ppm'])
    keys = [(e['data']['key']['data'], e['data']['down'])
            for e in qmp.sent if e['type'] == 'key']
    check(ok and keys == [('shift', True), ('h', True), ('h', False),
                          ('shift', False), ('i', True), ('i', False),
                          ('shift', True), ('1', True), ('1', False),
                          ('shift', False)],
          'script: "type Hi!" as QMP keys: %s' % keys)
    rest = [e for e in qmp.sent if e['type'] != 'key']
    check(rest == [
        {'type': 'rel', 'data': {'axis': 'x', 'value': 7}},
        {'type': 'rel', 'data': {'axis': 'y', 'value': -3}},
        {'type': 'btn', 'data': {'down': True, 'button': 'right'}},
        {'type': 'btn', 'data': {'down': False, 'button': 'right'}}],
        'script: motion and click as QMP events: %s' % rest)
    check('dump /x.ppm' in msgs, 'script: screendump')
    ok = s.run(['frobnicate 1', 'type \u00e9', 'qmp {"execute": "stop"}',
                'key a'])
    check(not ok and sum('failed' in m for m in msgs) == 3 and
          qmp.sent[-1]['data']['key']['data'] == 'a',
          'script: bad lines reported, the next still run: %s' % msgs)
    msgs.clear()
    ok = s.run(['wait never timeout=0', 'key b'])
    check(not ok and any('stopped' in m for m in msgs) and
          qmp.sent[-1]['data']['key']['data'] == 'a',
          'script: a wait that runs out ends it: %s' % msgs)


def fake_head(path, answer):
    """A one-connection RFB server on path that speaks as QEMU's VNC
    display does up to SetDesktopSize, then sends answer (the bytes of
    its FramebufferUpdate); returns a list that gets what the client
    sent after ClientInit."""
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path)
    srv.listen(1)
    got = []

    def serve():
        c, _ = srv.accept()
        c.settimeout(5)
        try:
            c.sendall(b'RFB 003.008\n')
            vmio.recv_exact(c, 12)
            c.sendall(b'\x01\x01')  # one type: None
            vmio.recv_exact(c, 1)
            c.sendall(b'\0\0\0\0')
            vmio.recv_exact(c, 1)  # shared
            c.sendall(struct.pack('>HH16sI', 1024, 768, b'', 4) + b'qemu')
            got.append(vmio.recv_exact(c, 12 + 8 + 16))
            c.sendall(answer)
        finally:
            c.close()
            srv.close()
    threading.Thread(target=serve, daemon=True).start()
    return got


def unit_heads(tmp):
    def update(*rects):
        return struct.pack('>BxH', 0, len(rects)) + b''.join(
            struct.pack('>HHHHiB3x', x, y, w, h, -308, 1) + b'\0' * 16
            for x, y, w, h in rects)
    path = os.path.join(tmp, 'h1.sock')
    # QEMU's own size first (reason 0), then the answer: forwarded.
    got = fake_head(path, update((0, 0, 1024, 768), (1, 4, 1024, 768)))
    r = vmio.set_head(path, 800, 600)
    want = struct.pack('>BxHii', 2, 2, 0, -308) + struct.pack(
        '>BxHHBxIHHHHI', 251, 800, 600, 1, 0, 0, 0, 800, 600, 0)
    check(r == 'forwarded' and got == [want],
          'head: SetDesktopSize 800x600 with one screen, the answer '
          'read: %s %r' % (r, got))
    os.unlink(path)
    got = fake_head(path, update((1, 3, 0, 0)))
    r = vmio.set_head(path, 0, 0)
    # After SetEncodings (12 bytes): type, pad, then width and height.
    check(r == 'invalid screen layout' and got and got[0][14:18] ==
          b'\0\0\0\0', 'head: off is 0x0, a refusal named: %s' % r)
    try:
        vmio.parse_size('800')
        check(False, 'head: "800" taken for a size')
    except ValueError:
        pass
    msgs = []
    s = vmio.Script(FakeQMP(), FakeOutput(''), 1e18, lambda *a: None,
                    msgs.append, {})
    check(not s.run(['head 1 800x600']) and
          any('no head 1' in m for m in msgs),
          'head: a head the guest has not, reported: %s' % msgs)
    # Head 0 of the second display device: its own socket and
    # screendump.
    os.unlink(path)
    got = fake_head(path, update((1, 4, 800, 600)))
    dumps = []
    s = vmio.Script(FakeQMP(), FakeOutput(''), 1e18,
                    lambda *a: dumps.append(a), msgs.append, {(1, 0): path})
    check(s.run(['head 1.0 800x600', 'screendump /y.ppm head=1.0',
                 'screendump /z.ppm head=2']) and len(got) == 1 and
          dumps == [('/y.ppm', (1, 0)), ('/z.ppm', 2)],
          'head: 1.0 is head 0 of the second device: %r %r' % (got, dumps))


def unit_picture():
    w, h = 64, 48
    good = (w, h, expected(w, h, (5, 6, 5), 'shift'))
    check(check_picture(good, w, h, (5, 6, 5)) is None,
          'picture: the pattern at 5-6-5 accepted')
    rep = (w, h, expected(w, h, (5, 6, 5), 'repeat'))
    check(rep[2] != good[2] and check_picture(rep, w, h, (5, 6, 5)) is None,
          'picture: the repeating expansion accepted too')
    bad = bytearray(good[2])
    bad[3 * (w * 40 + 17) + 1] ^= 0x04
    why = check_picture((w, h, bytes(bad)), w, h, (5, 6, 5))
    check(why and why.startswith('1 of') and 'at 17,40' in why,
          'picture: one corrupted pixel rejected, named: %s' % why)
    check(check_picture(good, w, h + 1, (5, 6, 5)) is not None,
          'picture: a wrong size rejected')
    check(check_picture(good, w, h, (8, 8, 8)) is not None,
          'picture: the wrong channel widths rejected')


def unit():
    tmp = tempfile.mkdtemp(prefix='vncfb-vmbed-')
    try:
        unit_initramfs(tmp)
        unit_kernel(tmp)
        unit_script()
        unit_dumps(tmp)
        unit_from()
        unit_heads(tmp)
        unit_picture()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# ----------------------------------------------------------------------
# boots
# ----------------------------------------------------------------------
BOOTS = {
    'vesa16': {
        'vm': ['--fb', 'vesa', '--mode', '800x600x16', '--mouse', 'ps2'],
        'pointer': ['rel 7 -3', 'click left'],
        'geometry': 'xres=800 yres=600 bpp=16 stride=1600',
        'format': 'red=11/5 green=5/6 blue=0/5',
        'map': 'direct',
        'motion': r'rel=7,-3 abs=-1,-1 button=272',
    },
    'bochs32': {
        'vm': ['--fb', 'bochs', '--res', '640x480', '--mouse', 'usb'],
        'pointer': ['abs 16384 8192', 'click right'],
        'geometry': 'xres=640 yres=480 bpp=32 stride=2560',
        'format': 'red=16/8 green=8/8 blue=0/8',
        'map': 'pages',
        'motion': r'rel=0,0 abs=16384,8192 button=273',
    },
}


def boot(name):
    case = BOOTS[name]
    vmrun = vm_run_or_skip()
    fbtest = os.path.join(os.environ['VNCFB_BUILD_ROOT'], 'tests', 'vm',
                          'fbtest')
    tmp = tempfile.mkdtemp(prefix='vncfb-vmbed-')
    dump = os.path.join(tmp, 'screen.ppm')
    cmd = [vmrun, '--smp', '2', '--bin', fbtest, '--timeout', '240',
           '--screendump', dump,
           '--cmd', 'fbtest --cpu 1; echo "FBTEST rc=$?"; exit 3',
           '--event', 'wait ready-for-key', '--event', 'key a',
           '--event', 'wait ready-for-pointer'] + case['vm']
    for e in case['pointer']:
        cmd += ['--event', e]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, errors='replace', timeout=400)
    out = r.stdout
    print(out, end='')
    print(r.stderr, end='', file=sys.stderr)
    check(r.returncode == 3, "vmrun.py's exit status %d, not the command's "
          '3' % r.returncode)
    check('FBTEST rc=0' in out and 'FBTEST result=PASS' in out,
          'fbtest failed in the guest')
    check(not re.search(r'event .* failed|script stopped', r.stderr),
          'the input script did not complete')
    for key in ('geometry', 'format'):
        check(re.search(r'^FBTEST .*\b%s' % re.escape(case[key]), out, re.M),
              '/dev/fb0 is not %s' % case[key])
    check('FBTEST map=%s' % case['map'] in out,
          'the mapping is not %s' % case['map'])
    check('FBTEST pin=OK cpu=1' in out, 'not drawn from CPU 1')
    check('FBTEST key=30' in out, "QMP's key a did not arrive as KEY_A (30)")
    check(re.search(r'^FBTEST pointer %s$' % case['motion'], out, re.M),
          'the pointer events are not %s' % case['motion'])
    m = re.search(r'bpp=(\d+)', out)
    bits = {'16': (5, 6, 5)}.get(m.group(1) if m else '', (8, 8, 8))
    w, h = (int(v) for v in re.search(r'xres=(\d+) yres=(\d+)',
                                      case['geometry']).groups())
    if check(os.path.exists(dump), 'no screendump'):
        img = vmio.read_ppm(dump)
        why = check_picture(img, w, h, bits)
        if check(why is None, 'screendump: %s' % why):
            print('screendump: the pattern, pixel-exact (%dx%d)' % (w, h))
            # The same check must see one pixel changed by one step.
            px = bytearray(img[2])
            px[3 * (w * (h - 1) + w // 2)] ^= 0x80
            why = check_picture((w, h, bytes(px)), w, h, bits)
            check(why and why.startswith('1 of'),
                  'a one-pixel corruption of the screendump passed: %s'
                  % why)
    if FAILS:
        print('(files in %s)' % tmp)
    else:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in ['unit'] + list(BOOTS):
        print('usage: test_vmbed.py unit|%s' % '|'.join(BOOTS),
              file=sys.stderr)
        return 2
    if sys.argv[1] == 'unit':
        unit()
    else:
        boot(sys.argv[1])
    print('%s: %s' % (sys.argv[1], 'FAIL (%d)' % len(FAILS) if FAILS
                      else 'PASS'))
    return 1 if FAILS else 0


if __name__ == '__main__':
    sys.exit(main())
