"""What passes between the host and a running guest: QMP commands to
qemu (screendumps, input events), the guest's output stream on its
second serial port, and the input script that a test writes as lines
of text.

Threads: vmrun.py's main thread owns the QMP connection's set-up;
GuestOutput reads the serial socket on a thread of its own; the input
script runs on another and shares QMP through its lock.
"""
import json
import os
import re
import socket
import struct
import subprocess
import sys
import threading
import time
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
from testlib import read_ppm  # noqa: E402,F401


class QMP:
    """One QMP connection (qemu's -mon mode=control). cmd() may be
    called from any thread."""

    def __init__(self, sock):
        self.f = sock.makefile('rwb')
        self.lock = threading.Lock()
        json.loads(self.f.readline())  # the greeting
        self.cmd('qmp_capabilities')

    def cmd(self, name, **arguments):
        """The command's return value; RuntimeError with qemu's words
        when it fails, EOFError when qemu has gone."""
        msg = {'execute': name}
        if arguments:
            msg['arguments'] = arguments
        with self.lock:
            self.f.write(json.dumps(msg).encode() + b'\n')
            self.f.flush()
            while True:  # events may come before the answer
                line = self.f.readline()
                if not line:
                    raise EOFError('QMP connection closed')
                r = json.loads(line)
                if 'return' in r:
                    return r['return']
                if 'error' in r:
                    raise RuntimeError('QMP %s: %s' % (
                        name, r['error'].get('desc')))


class GuestOutput(threading.Thread):
    """Reads the guest's ttyS1: the command's output goes to out (and to
    text, for the script's waits); /init's markers (BOOT, READY, RC)
    land in marks with the host's time of arrival."""
    MARK = re.compile(rb'\x02VM:([^\x03]*)\x03')

    def __init__(self, sock, out):
        super().__init__(daemon=True)
        self.sock, self.out = sock, out
        self.cond = threading.Condition()
        self.text = ''
        self.marks = {}
        self.closed = False

    def run(self):
        buf = b''
        while True:
            try:
                d = self.sock.recv(65536)
            except OSError:
                d = b''
            if not d:
                break
            buf += d
            while True:
                m = self.MARK.search(buf)
                if not m:
                    break
                self._emit(buf[:m.start()])
                f = m.group(1).decode(errors='replace').split()
                with self.cond:
                    self.marks[f[0]] = (time.monotonic(), f[1:])
                    self.cond.notify_all()
                buf = buf[m.end():]
            # A marker may be cut between two reads: keep from its start.
            k = buf.find(b'\x02')
            self._emit(buf if k < 0 else buf[:k])
            buf = b'' if k < 0 else buf[k:]
        self._emit(buf)
        with self.cond:
            self.closed = True
            self.cond.notify_all()

    def _emit(self, b):
        if not b:
            return
        if self.out is not None:
            try:
                self.out.write(b)
                self.out.flush()
            except OSError:
                # Our stdout is gone (| head): keep draining the guest.
                self.out = None
        with self.cond:
            self.text += b.decode(errors='replace')
            self.cond.notify_all()

    def send(self, b):
        self.sock.sendall(b)

    def wait(self, pred, timeout):
        """Whether pred() came true within timeout seconds."""
        end = time.monotonic() + timeout
        with self.cond:
            while not pred():
                left = end - time.monotonic()
                if left <= 0 or self.closed:
                    return pred()
                self.cond.wait(min(left, 0.2))
            return True


KEY_ALIASES = {
    'enter': 'ret', 'return': 'ret', 'space': 'spc', 'escape': 'esc',
    'control': 'ctrl', 'del': 'delete', 'pageup': 'pgup',
    'pagedown': 'pgdn', 'bksp': 'backspace', 'win': 'meta_l',
    'super': 'meta_l', 'ins': 'insert',
}
# What `type` presses for a character that is not a letter or digit:
# (qcode, with shift) on a US layout.
CHARS = {
    ' ': ('spc', 0), '\n': ('ret', 0), '\t': ('tab', 0), '-': ('minus', 0),
    '_': ('minus', 1), '=': ('equal', 0), '+': ('equal', 1),
    '[': ('bracket_left', 0), '{': ('bracket_left', 1),
    ']': ('bracket_right', 0), '}': ('bracket_right', 1),
    ';': ('semicolon', 0), ':': ('semicolon', 1), "'": ('apostrophe', 0),
    '"': ('apostrophe', 1), '`': ('grave_accent', 0),
    '~': ('grave_accent', 1), '\\': ('backslash', 0), '|': ('backslash', 1),
    ',': ('comma', 0), '<': ('comma', 1), '.': ('dot', 0), '>': ('dot', 1),
    '/': ('slash', 0), '?': ('slash', 1),
}
CHARS.update({c: ('1234567890'[i], 1) for i, c in enumerate('!@#$%^&*()')})


def qcode(k):
    k = k.lower()
    return KEY_ALIASES.get(k, k)


def keys_for(text):
    """The chords (lists of qcodes) that type text; ValueError for a
    character a US keyboard has no key for."""
    chords = []
    for ch in text:
        if ch.isascii() and ch.isalpha():
            chords.append(['shift', ch.lower()] if ch.isupper() else [ch])
        elif ch.isascii() and ch.isdigit():
            chords.append([ch])
        elif ch in CHARS:
            k, shift = CHARS[ch]
            chords.append(['shift', k] if shift else [k])
        else:
            raise ValueError('cannot type %r' % ch)
    return chords


class Script:
    """The input script: lines of `op args` run in order while the
    command runs. Ops: wait REGEX [timeout=S], from REGEX [timeout=S]
    (a wait, and the waits after it read the output from its match on),
    sleep S, key K.. (a
    chord), keydown K.., keyup K.., type TEXT, rel DX DY, abs X Y
    (0..32767), click|btndown|btnup [left|right|middle], wheel up|down
    [N], screendump FILE [head=N] [until=REF.ppm|stable] [timeout=S],
    ack WORD (the guest's `hostwait WORD` returns), head N WxH|off,
    qmp {JSON}. Keys are
    QEMU qcodes. A head is N on the first display device, D.N on
    another (head_key). heads maps a head's key to the socket of the
    VNC display bound to it (set_head)."""

    def __init__(self, qmp, out, deadline, screendump, log, heads=None):
        self.qmp, self.out, self.deadline = qmp, out, deadline
        self.screendump, self.log = screendump, log
        self.heads = heads or {}
        self.since = 0

    def _send(self, *events):
        self.qmp.cmd('input-send-event', events=list(events))

    @staticmethod
    def _key(k, down):
        return {'type': 'key', 'data': {
            'down': down, 'key': {'type': 'qcode', 'data': qcode(k)}}}

    @staticmethod
    def _btn(b, down):
        return {'type': 'btn', 'data': {'down': down, 'button': b}}

    def _press(self, keys):
        for k in keys:
            self._send(self._key(k, True))
        # Held long enough for the guest to see a press, not a repeat.
        time.sleep(0.03)
        for k in reversed(keys):
            self._send(self._key(k, False))
        time.sleep(0.02)

    def line(self, line):
        """Run one line; raises TimeoutError when a wait runs out,
        ValueError for a line that means nothing."""
        op, _, rest = line.partition(' ')
        a = rest.split()
        if op in ('wait', 'from'):
            pat, tmo = rest, max(0, self.deadline - time.monotonic())
            m = re.match(r'(.*?)\s+timeout=(\d+(\.\d+)?)$', rest)
            if m:
                pat, tmo = m.group(1), float(m.group(2))
            rx = re.compile(pat, re.M)
            found = []

            def seen():
                found[:] = [rx.search(self.out.text, self.since)]
                return found[0]
            if not self.out.wait(seen, tmo):
                raise TimeoutError('no output matching /%s/' % pat)
            if op == 'from':
                # The waits after it read the output from here on (one
                # scenario of several in a boot).
                self.since = found[0].start()
        elif op == 'sleep':
            time.sleep(float(a[0]))
        elif op == 'key':
            self._press(a)
        elif op in ('keydown', 'keyup'):
            self._send(*[self._key(k, op == 'keydown') for k in a])
        elif op == 'type':
            for chord in keys_for(rest):
                self._press(chord)
        elif op in ('rel', 'abs'):
            self._send({'type': op, 'data': {'axis': 'x', 'value': int(a[0])}},
                       {'type': op, 'data': {'axis': 'y', 'value': int(a[1])}})
        elif op in ('click', 'btndown', 'btnup'):
            b = a[0] if a else 'left'
            if op != 'btnup':
                self._send(self._btn(b, True))
            if op == 'click':
                time.sleep(0.03)
            if op != 'btndown':
                self._send(self._btn(b, False))
        elif op == 'wheel':
            b = 'wheel-' + {'up': 'up', 'down': 'down'}[a[0]]
            for _ in range(int(a[1]) if len(a) > 1 else 1):
                self._send(self._btn(b, True))
                self._send(self._btn(b, False))
        elif op == 'screendump':
            path, opts = dump_options(a)
            if opts['until'] or opts['stable'] or opts['check']:
                self.dump_when(path, opts)
            elif opts['head'] is None:
                self.screendump(path)
            else:
                self.screendump(path, opts['head'])
        elif op == 'ack':
            # The guest's `hostwait WORD` returns (vminitramfs.HOSTWAIT).
            self.out.send(a[0].encode() + b'\n')
        elif op == 'head':
            n = head_key(a[0])
            if n not in self.heads:
                raise ValueError('no head %s (the guest has %d)' % (
                    a[0], len(self.heads)))
            w, h = (0, 0) if a[1] == 'off' else parse_size(a[1])
            self.log('head %s -> %s' % (a[0], set_head(self.heads[n], w, h)))
        elif op == 'qmp':
            j = json.loads(rest)
            r = self.qmp.cmd(j['execute'], **j.get('arguments', {}))
            self.log('qmp %s -> %s' % (j['execute'], json.dumps(r)))
        else:
            raise ValueError('unknown op %r' % op)

    def dump_when(self, path, opts):
        """The screendump once the picture is there: with until=REF, when
        two dumps in a row are REF's picture; with check=CMD,ARG,.. when
        the command passes on two in a row ({} in an argument is the
        dump's path); with stable, when the
        picture has not changed for STABLE_S over three dumps or more.
        At timeout= (DUMP_TIMEOUT_S) the last dump is kept, for the
        test's own check to say what differs."""
        want = read_ppm(opts['until']) if opts['until'] else None
        check = opts['check']
        t0 = time.monotonic()
        end = min(t0 + opts['timeout'], self.deadline)
        tries = path + '.try.ppm'
        prev, since, n, agreed = None, t0, 0, 0
        quiet = lambda msg: None
        while True:
            self.screendump(tries, opts['head'], log=quiet)
            n += 1
            now = time.monotonic()
            try:
                got = read_ppm(tries)
            except (OSError, ValueError):
                got = None
            if want is not None or check:
                right = got == want if want is not None else \
                    got is not None and subprocess.run(
                        [a.replace('{}', tries) for a in check],
                        stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL).returncode == 0
                agreed = agreed + 1 if right else 0
                done = agreed >= 2
            else:
                if got is None or got != prev:
                    since, agreed = now, 0
                agreed += 1
                done = agreed >= 3 and now - since >= STABLE_S
            prev = got
            if done or now >= end:
                break
            time.sleep(DUMP_POLL_S)
        if os.path.exists(tries):
            os.replace(tries, path)
        self.log('screendump -> %s: %s after %.2fs (%d dumps)' % (
            path, ('the picture' if want is not None or check else
                   'stable')
            if done else 'TIMED OUT, the last dump kept', now - t0, n))

    def run(self, lines):
        """True when every line succeeded. A failed line is logged and
        the next one runs; a wait that runs out ends the script."""
        ok = True
        for raw in lines:
            line = raw.strip()
            if not line or line.startswith('#'):
                continue
            self.log('event: %s' % line)
            try:
                self.line(line)
            except TimeoutError as e:
                self.log('event script stopped: %s' % e)
                return False
            except (ValueError, KeyError, IndexError, RuntimeError,
                    EOFError, OSError) as e:
                self.log('event %r failed: %s' % (line, e))
                ok = False
        return ok


# screendump ... stable: unchanged this long; ... until=/stable: every
# DUMP_POLL_S, at most DUMP_TIMEOUT_S unless timeout= says.
STABLE_S = 1.0
DUMP_POLL_S = 0.15
DUMP_TIMEOUT_S = 60.0


def dump_options(words):
    """A screendump line's FILE and its options: head=N, until=REF.ppm
    (wait for that picture), check=CMD,ARG,.. (wait until the command
    passes on the dump, {} its path), stable (wait until it stops
    changing), timeout=S. ValueError for anything else."""
    if not words:
        raise ValueError('screendump: no file')
    opts = {'head': None, 'until': None, 'stable': False, 'check': None,
            'timeout': DUMP_TIMEOUT_S}
    for w in words[1:]:
        k, eq, v = w.partition('=')
        if k == 'head' and eq:
            opts['head'] = head_key(v)
        elif k == 'until' and eq and v:
            opts['until'] = v
        elif k == 'check' and eq and v:
            opts['check'] = v.split(',')
        elif k == 'timeout' and eq:
            opts['timeout'] = float(v)
        elif w == 'stable':
            opts['stable'] = True
        else:
            raise ValueError('screendump: %r: not head=, until=, stable '
                             'or timeout=' % w)
    return words[0], opts


def head_key(text):
    """A head as the script names it: 'N' (the first display device's)
    as N, 'D.N' (head N of device D) as (D, N), '0.N' as N; ValueError
    otherwise."""
    m = re.match(r'(?:(\d+)\.)?(\d+)$', text)
    if not m:
        raise ValueError('%r: not a head (N or DEVICE.N)' % text)
    d, n = int(m.group(1) or 0), int(m.group(2))
    return (d, n) if d else n


def parse_size(text):
    """'WxH' as (w, h), both 1..8192; ValueError otherwise."""
    m = re.match(r'(\d+)x(\d+)$', text)
    if not m or not (0 < int(m.group(1)) <= 8192 and
                     0 < int(m.group(2)) <= 8192):
        raise ValueError('%r: not WIDTHxHEIGHT' % text)
    return int(m.group(1)), int(m.group(2))


def recv_exact(sock, n):
    """Exactly n bytes from sock (the scripted RFB peers of the tests:
    tests/ has no other shared module on every test's PYTHONPATH);
    EOFError when the peer closes first."""
    b = b''
    while len(b) < n:
        c = sock.recv(n - len(b))
        if not c:
            raise EOFError('the VNC display closed the connection')
        b += c
    return b


# What SetDesktopSize's answer (an ExtendedDesktopSize rectangle's y)
# says, RFB's community extension's codes.
RESIZE_RESULTS = {0: 'done', 1: 'prohibited', 2: 'out of resources',
                  3: 'invalid screen layout', 4: 'forwarded'}


def set_head(path, w, h, timeout=10):
    """Plug, unplug or resize a virtio-gpu head: a SetDesktopSize of
    w x h (0 x 0: unplugged) to qemu's VNC display bound to that head
    (-vnc unix:PATH,display=ID,head=N). qemu hands it to the head's
    console (dpy_set_ui_info), virtio-gpu sets the head's enabled bit
    and preferred size and tells the guest (VIRTIO_GPU_EVENT_DISPLAY),
    whose driver sends a hot-plug uevent. The answer's words ('forwarded'
    when it went through; qemu answers only once the client has said it
    takes ExtendedDesktopSize)."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    try:
        s.connect(path)
        if not recv_exact(s, 12).startswith(b'RFB 003.'):
            raise ValueError('%s: not an RFB server' % path)
        s.sendall(b'RFB 003.008\n')
        types = recv_exact(s, recv_exact(s, 1)[0])
        if 1 not in types:
            raise ValueError('%s: no security type None (%r)' % (
                path, list(types)))
        s.sendall(b'\x01')
        if struct.unpack('>I', recv_exact(s, 4))[0] != 0:
            raise ValueError('%s: security handshake failed' % path)
        s.sendall(b'\x01')  # shared
        _, _, _, name_len = struct.unpack('>HH16sI', recv_exact(s, 24))
        recv_exact(s, name_len)
        # SetEncodings: raw, ExtendedDesktopSize (-308).
        s.sendall(struct.pack('>BxHii', 2, 2, 0, -308))
        # SetDesktopSize, one screen covering it.
        s.sendall(struct.pack('>BxHHBxIHHHHI', 251, w, h, 1, 0, 0, 0, w,
                              h, 0))
        # The answer: a FramebufferUpdate whose ExtendedDesktopSize
        # rectangle carries the result in y (qemu may send the desktop's
        # own size first).
        while True:
            t = recv_exact(s, 1)[0]
            if t != 0:
                raise ValueError('%s: unexpected message %d' % (path, t))
            n = struct.unpack('>xH', recv_exact(s, 3))[0]
            for _ in range(n):
                x, y, rw, rh, enc = struct.unpack('>HHHHi', recv_exact(s, 12))
                if enc != -308:
                    raise ValueError('%s: unexpected rectangle %d' % (
                        path, enc))
                nscr = recv_exact(s, 4)[0]
                recv_exact(s, 16 * nscr)
                if x == 1:  # the answer to our request
                    return RESIZE_RESULTS.get(y, 'code %d' % y)
    finally:
        s.close()


def ppm_to_png(ppm, png):
    """A binary PPM as an RGB PNG (for qemu builds without PNG
    screendumps)."""
    w, h, px = read_ppm(ppm)
    raw = b''.join(b'\0' + px[y * w * 3:(y + 1) * w * 3] for y in range(h))

    def chunk(t, d):
        return (len(d).to_bytes(4, 'big') + t + d +
                zlib.crc32(t + d).to_bytes(4, 'big'))
    ihdr = w.to_bytes(4, 'big') + h.to_bytes(4, 'big') + bytes([8, 2, 0, 0, 0])
    with open(png, 'wb') as f:
        f.write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', ihdr) +
                chunk(b'IDAT', zlib.compress(raw, 6)) + chunk(b'IEND', b''))


def screendump(qmp, path, log, head=None, device=None):
    """qemu's display as path (.ppm, or .png), or one head of device;
    logs a failure, since a test checks for the file itself."""
    path = os.path.abspath(path)
    where = {} if head is None else {'device': device, 'head': head}
    try:
        if path.endswith('.png'):
            try:
                qmp.cmd('screendump', filename=path, format='png', **where)
                log('screendump -> %s' % path)
                return
            except RuntimeError:
                pass
            ppm = path[:-4] + '.ppm.tmp'
            qmp.cmd('screendump', filename=ppm, **where)
            ppm_to_png(ppm, path)
            os.unlink(ppm)
        else:
            qmp.cmd('screendump', filename=path, **where)
        log('screendump -> %s' % path)
    except (RuntimeError, EOFError, OSError, ValueError) as e:
        log('screendump failed: %s' % e)
