#!/usr/bin/env python3
"""A slow link on loopback, in user space (the host kernel has no netem):
a TCP relay from 127.0.0.1:PORT to a target that holds every byte back
by a one-way delay in each direction and, optionally, paces each
direction to a rate. In order, nothing lost. What a direction holds is
bounded (the bytes the link carries in a round trip, plus 256 KiB), so a
sender that outruns the link blocks, as it would on a real one.

As a module: `with LinkRelay(target_port, delay_ms, mbit) as r:` connect
to r.port (buffer_kib: the bottleneck's buffer; r.set_rate(mbit) changes
the rate while it runs). As a program: linkrelay.py TARGET_PORT DELAY_MS [MBIT], which
prints "listening PORT" and relays until killed.

Used by tests/integration/test_link.py and tests/bench/link_fps.py.
"""
import collections
import socket
import sys
import threading
import time


class _Pipe:
    """One direction: a reader thread stamps chunks, a writer thread
    sends each once its time has come and the rate allows."""

    def __init__(self, src, dst, delay, rate, limit):
        self.src, self.dst = src, dst
        self.delay, self.rate, self.limit = delay, rate, limit
        self.q = collections.deque()
        self.held = 0
        self.cv = threading.Condition()
        self.eof = False
        self.bytes = 0
        for fn in (self._read, self._write):
            threading.Thread(target=fn, daemon=True).start()

    def _read(self):
        while True:
            try:
                d = self.src.recv(65536)
            except OSError:
                d = b""
            with self.cv:
                if not d:
                    self.eof = True
                    self.cv.notify_all()
                    return
                self.q.append((time.monotonic() + self.delay, d))
                self.held += len(d)
                self.cv.notify_all()
                while self.held > self.limit:
                    self.cv.wait()

    def _write(self):
        free_at = 0.0  # when the rate lets the next byte go
        while True:
            with self.cv:
                while not self.q and not self.eof:
                    self.cv.wait()
                if not self.q:
                    break
                due, d = self.q[0]
            now = time.monotonic()
            # A chunk goes in pieces, so that a slow rate does not
            # hold a whole 64 KiB chunk back.
            piece = d[:16384] if self.rate else d
            start = max(due, free_at, now)
            if start > now:
                time.sleep(start - now)
            if self.rate:
                free_at = max(start, free_at) + len(piece) / self.rate
            try:
                self.dst.sendall(piece)
            except OSError:
                break
            self.bytes += len(piece)
            with self.cv:
                if len(piece) == len(d):
                    self.q.popleft()
                else:
                    self.q[0] = (due, d[len(piece):])
                self.held -= len(piece)
                self.cv.notify_all()
        for s in (self.dst, self.src):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


class LinkRelay:
    def __init__(self, target_port, delay_ms, mbit=None, buffer_kib=256):
        self.target = target_port
        self.delay = delay_ms / 1000.0
        self.rate = mbit * 1e6 / 8 if mbit else None
        rtt_bytes = (self.rate or 12.5e6) * 2 * self.delay
        self.limit = int(rtt_bytes) + buffer_kib * 1024
        self.ls = socket.socket()
        self.ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.ls.bind(("127.0.0.1", 0))
        self.ls.listen(8)
        self.port = self.ls.getsockname()[1]
        self.pipes = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                c, _ = self.ls.accept()
            except OSError:
                return
            s = socket.create_connection(("127.0.0.1", self.target))
            for x in (c, s):
                x.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self.pipes.append(_Pipe(c, s, self.delay, self.rate, self.limit))
            self.pipes.append(_Pipe(s, c, self.delay, self.rate, self.limit))

    def set_rate(self, mbit):
        """The link's rate from now on, both ways, for every connection
        (a link that got faster or slower)."""
        self.rate = mbit * 1e6 / 8 if mbit else None
        for p in self.pipes:
            p.rate = self.rate

    def close(self):
        try:
            self.ls.close()
        except OSError:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *a):
        self.close()


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: linkrelay.py TARGET_PORT DELAY_MS [MBIT]")
    r = LinkRelay(int(sys.argv[1]), float(sys.argv[2]),
                  float(sys.argv[3]) if len(sys.argv) > 3 else None)
    print("listening %d" % r.port, flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
