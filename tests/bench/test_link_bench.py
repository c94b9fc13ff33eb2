#!/usr/bin/env python3
"""vncfb bench --link (the emulated link, client/tools/link) and the
replay pump's continuous updates and fences (--push), on a recording
written here (tests/bench/recfile.py), no X server:

* vncfb bench --replay --link 100ms,20mbit: the run's JSON has the link,
  the push mode and, per run, frames/s, link bytes/s and use, and the
  age of the picture shown; the link is really in the way: no picture is
  shown sooner than 50 ms (one way) after the pump began to send it
  (how many updates a second get through is the pacer's: it keeps
  several requests in flight, doc/network.md);
* vncfb bench --replay --serve --link 100ms --push fast, to a client
  written here: the pump says it has continuous updates
  (EndOfContinuousUpdates) and fences (a ServerFence) when SetEncodings
  names them, answers a client's fence with the flags it knows and the
  same payload, and once continuous updates are on pushes every update
  unasked, a fence after each, whose answers end the play; the first
  update takes at least the round trip from the request;
* --push recorded pushes at the recording's own pace: updates recorded
  300 ms apart arrive no sooner than 300 ms apart from the first pushed
  (less the clock's grain);
* --push requests (the default) offers neither: EnableContinuousUpdates
  is refused in one line;
* with the argument vncviewer: TigerVNC's vncviewer (under Xvfb) plays the
  recording over the link with continuous updates, timed by fences (exit
  77 when not installed).
"""
import json
import os
import struct
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
import recfile  # noqa: E402
from benchcheck import check, finish  # noqa: E402
from test_replay_pump import (W, H, Pump, handshake,  # noqa: E402
                              have_vncviewer, make_messages, quiet, recvn,
                              vncviewer_checks)

VNCFB = os.environ.get("VNCFB")
CU, FENCE = -313, -312
REQUEST, BLOCK_BEFORE = 1 << 31, 1


def bench_checks(path):
    with tempfile.NamedTemporaryFile(suffix=".json") as j:
        p = subprocess.run([VNCFB, "bench", "--replay", path, "--cpu", "0",
                            "--repeat", "2", "--link", "100ms,20mbit",
                            "--json", j.name], capture_output=True,
                           text=True, timeout=60)
        check(p.returncode == 0, "bench exit %d: %s" % (p.returncode,
                                                         p.stderr))
        doc = json.load(open(j.name))
    check(doc["link"] == {"rtt_ms": 100.0, "rate_bit_per_s": 20000000,
                          "queue_bytes": 65536}, "link: %r" % doc["link"])
    check(doc["push"] == "requests", "push: %r" % doc["push"])
    runs = doc["runs"]
    check([r["kind"] for r in runs] == ["pipeline"],
          "over a link the pipeline alone: %r" % [r["kind"] for r in runs])
    r = runs[0]
    # 4 updates, the first set-up: 3 a play, 2 plays; one that arrives
    # before a loaded machine has drawn the set-up is not measured.
    n = r["updates"]
    check(4 <= n <= 6, "updates %r" % n)
    check(r["updates_per_s"] > 0,
          "%.2f updates/s through a 100 ms round trip" % r["updates_per_s"])
    check(2 <= r["full_updates"] <= 4 and
          abs(r["frames_per_s"] - r["full_updates"] / r["window_s"]) < 1e-3,
          "frames: %r, %r/s" % (r["full_updates"], r["frames_per_s"]))
    # Each play carries its three updates' bytes (and the requests'
    # answers), within the window.
    rate = r["link_bytes_per_s"]
    check(rate and 0 < r["link_use"] <= 1.05 and
          abs(r["link_use"] - rate * 8 / 20e6) < 1e-6,
          "link %r B/s, use %r" % (rate, r["link_use"]))
    # Of that, rectangle payload: less the 16 bytes of headers of each
    # raw update (one rectangle) and the Bell and cut text between them,
    # at most 15 % for the 8x8 one.
    px = r["pixel_use"]
    check(px is not None and r["link_use"] * 0.85 < px < r["link_use"],
          "pixels: %r of the link's rate, the link's use %r" %
          (px, r["link_use"]))
    age = r["age_ms"]
    check(age["n"] == n and age["min"] >= 50.0,
          "age of the picture shown: %r (at least one way, 50 ms)" % age)
    check("through a link of 100 ms round trip, 20 Mbit/s each way"
          in p.stdout, "the report names the link")
    p = subprocess.run([VNCFB, "bench", "--replay", path, "--link",
                        "100ms,20"], capture_output=True, text=True,
                       timeout=30)
    check(p.returncode == 2 and "bad value '100ms,20' for --link" in
          p.stderr and len(p.stderr.strip().splitlines()) == 1,
          "bad --link: exit %d, %r" % (p.returncode, p.stderr))
    p = subprocess.run([VNCFB, "bench", "--link", "60ms"],
                       capture_output=True, text=True, timeout=30)
    check(p.returncode == 2 and "--link needs --replay FILE or a server"
          in p.stderr, "--link without a server: %r" % p.stderr)


def encodings(s, encs):
    s.sendall(b"\x02\x00" + struct.pack(">H", len(encs)) +
              b"".join(struct.pack(">i", e) for e in encs))


def read_fence(s):
    """A ServerFence (its type byte already read): flags, payload."""
    hdr = recvn(s, 8)
    flags, n = struct.unpack(">IB", hdr[3:8])
    return flags, recvn(s, n)


def fence(s, flags, payload):
    s.sendall(b"\xf8\0\0\0" + struct.pack(">IB", flags, len(payload)) +
              payload)


def serve_checks(path, msgs):
    upd = [m[1] for m in msgs if m[0] & recfile.UPDATE]
    pump = Pump(path, ["--link", "100ms", "--push", "fast"])
    check(pump.expect("replay: through an emulated link: 100 ms round "
                      "trip, no rate limit") != "", "link line")
    s, _ = handshake(pump.port)
    encodings(s, [0, CU, FENCE])
    check(recvn(s, 1) == b"\x96", "EndOfContinuousUpdates, announcing")
    check(recvn(s, 1) == b"\xf8", "a ServerFence, announcing")
    flags, hello = read_fence(s)
    check(flags & REQUEST, "the announcing fence asks for an answer")
    fence(s, flags & ~REQUEST, hello)
    # A fence of the client's, with a flag nobody knows: the answer has
    # the known ones, the same payload.
    fence(s, REQUEST | BLOCK_BEFORE | (1 << 9), b"abc")
    check(recvn(s, 1) == b"\xf8", "the answer to the client's fence")
    flags, payload = read_fence(s)
    check(flags == BLOCK_BEFORE and payload == b"abc",
          "fence answer %#x %r" % (flags, payload))
    t0 = time.monotonic()
    s.sendall(b"\x03\x00" + struct.pack(">HHHH", 0, 0, W, H))
    first = recvn(s, len(upd[0]))
    rtt = time.monotonic() - t0
    check(first == upd[0], "the first update, requested")
    check(rtt >= 0.1, "request to update in %.3f s, through a 100 ms "
          "round trip" % rtt)
    check(recvn(s, 1) == b"\x02", "the Bell, unasked, in its place")
    check(quiet(s, 0.3), "a second update before continuous updates")
    s.sendall(b"\x96\x01" + struct.pack(">HHHH", 0, 0, W, H))
    # The fence for the update sent before, then every other update
    # unasked, each with its fence; the cut text in its place.
    want = [None] + upd[1:3] + [msgs[4][1]] + upd[3:]
    for k, item in enumerate(want):
        if item is not None:
            check(recvn(s, len(item)) == item, "pushed message %d" % k)
        if k == 3:
            continue  # the cut text has no fence
        check(recvn(s, 1) == b"\xf8", "a fence after update %d" % k)
        flags, payload = read_fence(s)
        check(flags == REQUEST | BLOCK_BEFORE and len(payload) == 8,
              "the pump's fence: %#x %r" % (flags, payload))
        fence(s, BLOCK_BEFORE, payload)
    line = pump.expect("replay: client 1: played 3 updates in ")
    check("2 of them of the whole desktop" in line, line)
    # Off again: EndOfContinuousUpdates at once.
    s.sendall(b"\x96\x00" + struct.pack(">HHHH", 0, 0, W, H))
    check(recvn(s, 1) == b"\x96", "EndOfContinuousUpdates when disabled")
    s.close()
    line = pump.expect("replay: client 1: handled 3 updates")
    check("by fence" in line, line)
    # The answer times are the answers' less the 50 ms way back: a
    # client that answers at once is answered about 50 ms after sending.
    ms = float(line.split("answered ")[1].split(" ms")[0])
    check(45 <= ms < 1000, "answered after %.1f ms: %r" % (ms, line))
    pump.expect("replay: client 1: left after 4 of 4 updates")
    rc, err = pump.stop()
    check(rc == 0 and not err.strip(), "pump: exit %d, %r" % (rc, err))

    # Hostile or clumsy clients of a pushing pump: SetEncodings and a
    # fence a byte at a time are the same messages; a fence over 64
    # bytes is refused in one line, and the next client is served.
    pump = Pump(path, ["--push", "fast"])
    s, _ = handshake(pump.port)
    msg = (b"\x02\x00" + struct.pack(">H", 3) +
           b"".join(struct.pack(">i", e) for e in (CU, 7, FENCE)) +
           b"\xf8\0\0\0" + struct.pack(">IB", REQUEST | 4, 2) + b"hi")
    for i in range(len(msg)):
        s.sendall(msg[i:i + 1])
        time.sleep(0.002)
    check(recvn(s, 1) == b"\x96", "EndOfContinuousUpdates, bytewise")
    check(recvn(s, 1) == b"\xf8", "ServerFence, bytewise")
    read_fence(s)
    check(recvn(s, 1) == b"\xf8", "fence answer, bytewise")
    flags, payload = read_fence(s)
    check(flags == 4 and payload == b"hi", "answer %#x %r" % (flags, payload))
    s.sendall(b"\xf8\0\0\0" + struct.pack(">IB", REQUEST, 200))
    try:
        check(s.recv(1) == b"", "not closed after a 200-byte fence")
    except ConnectionResetError:
        pass
    s.close()
    s, _ = handshake(pump.port)
    s.sendall(b"\x03\x00" + struct.pack(">HHHH", 0, 0, W, H))
    check(recvn(s, len(upd[0])) == upd[0], "the next client is served")
    s.close()
    pump.expect("replay: client 2: left after")
    rc, err = pump.stop()
    check(rc == 0 and err.count("sent a fence of 200 bytes") == 1 and
          len(err.strip().splitlines()) == 1,
          "pushing pump, 200-byte fence: %r" % err)

    # The default offers neither.
    pump = Pump(path)
    s, _ = handshake(pump.port)
    encodings(s, [0, CU, FENCE])
    check(quiet(s, 0.3), "--push requests: an answer to SetEncodings")
    s.sendall(b"\x96\x01" + struct.pack(">HHHH", 0, 0, W, H))
    time.sleep(0.3)
    rc, err = pump.stop()
    check(rc == 0 and err.count("asked for continuous updates, which the "
                                "replay does not offer") == 1,
          "--push requests and EnableContinuousUpdates: %r" % err)


def recorded_pace_checks(tmp, msgs):
    """Updates recorded GAP apart, pushed at the recorded pace."""
    gap = 0.3
    umsgs = [m for m in msgs if m[0] & recfile.UPDATE]
    upd = [m[1] for m in umsgs]
    timed = [(m[0], m[1], int(k * gap * 1e9)) for k, m in enumerate(umsgs)]
    path = os.path.join(tmp, "paced.rec")
    recfile.write(path, W, H, recfile.XRGB8888, timed)
    pump = Pump(path, ["--push", "recorded"])
    s, _ = handshake(pump.port)
    encodings(s, [0, CU])
    check(recvn(s, 1) == b"\x96", "EndOfContinuousUpdates, announcing")
    s.sendall(b"\x03\x00" + struct.pack(">HHHH", 0, 0, W, H))
    check(recvn(s, len(upd[0])) == upd[0], "the first update, requested")
    # Timed from the enabling, before the pump's first push: a reader
    # woken late sees an update late, never early.
    t0 = time.monotonic()
    s.sendall(b"\x96\x01" + struct.pack(">HHHH", 0, 0, W, H))
    seen = []
    for k in range(1, len(upd)):
        check(recvn(s, len(upd[k])) == upd[k], "pushed update %d" % k)
        seen.append(time.monotonic() - t0)
    check(all(t >= k * gap - 0.005 for k, t in enumerate(seen)),
          "recorded %.0f ms apart, pushed at %r s" % (gap * 1000, seen))
    s.close()
    pump.expect("replay: client 1: left after 4 of 4 updates")
    rc, err = pump.stop()
    check(rc == 0 and not err.strip(), "pump: exit %d, %r" % (rc, err))


def main():
    if not VNCFB:
        print("usage: VNCFB=... test_link_bench.py [vncviewer]",
              file=sys.stderr)
        return 1
    msgs, final = make_messages()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "link.rec")
        recfile.write(path, W, H, recfile.XRGB8888, msgs, (W, H, final))
        if sys.argv[1:] == ["vncviewer"]:
            if not have_vncviewer():
                return 77
            vncviewer_checks(tmp, msgs, final,
                             ["--link", "40ms,20mbit", "--push", "fast"],
                             "by fence")
            return finish("vncviewer over the link: ok")
        bench_checks(path)
        serve_checks(path, msgs)
        recorded_pace_checks(tmp, msgs)
    return finish("bench --link and the pump's continuous updates: ok")


if __name__ == "__main__":
    sys.exit(main())
