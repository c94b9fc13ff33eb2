#!/usr/bin/env python3
"""vncfb against TigerVNC's vncviewer through tests/integration/linkrelay.py
to x11vnc (neither ContinuousUpdates nor Fence) on an Xvfb :71 at
1920x1080 showing tests/bench/xanim at 60 frames/s; vncviewer under its
own Xvfb :72; tight JPEG quality 5, 50 Mbit/s. Updates are counted from
x11vnc's statistics at each client's disconnect. Rounds interleaved,
order alternating; prints each run and the medians.

usage: OW=ONE_WAY_MS R=ROUNDS [VNCFB=BIN] [BASE=BIN] link_x11vnc.py
OW (default 30) may list several one-way delays (OW=2.5,10,30,75), each
measured in turn, R (default 3) rounds each. VNCFB: the vncfb binary
(default build/vncfb); BASE: another one (main's, say) measured in the
same rounds as "base". Reports updates/s and Mbit/s x11vnc sent each
client. Nothing here is a test (doc/network.md).
"""
import os, re, subprocess, sys, time, statistics
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from linkrelay import LinkRelay
B=os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "build")
def up(argv, log):
    return subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
log=open("/tmp/link_x11vnc-x.log","w")
xv=up(["Xvfb",":71","-screen","0","1920x1080x24","-nolisten","tcp"],log)
vx=up(["Xvfb",":72","-screen","0","1920x1080x24","-nolisten","tcp"],log)
time.sleep(2)
env=dict(os.environ,DISPLAY=":71")
an=subprocess.Popen([B+"/tests/bench/xanim","--fps","60"],env=env,stdout=log,stderr=log,start_new_session=True)
xl=open("/tmp/link_x11vnc-x11vnc.log","w")
s=subprocess.Popen(["x11vnc","-display",":71","-rfbport","5971","-localhost","-nopw","-forever","-shared","-nocursor","-noxdamage","-noipv6"],stdout=xl,stderr=xl,start_new_session=True)
time.sleep(3)
SECS=8
def count():
    """x11vnc's last Transmit statistics: (updates sent, bytes sent).
    Its Received section, which follows, counts the client's requests
    under the same name (before 2026-12-04 this read that one)."""
    t=open("/tmp/link_x11vnc-x11vnc.log").read()
    m=re.findall(r"Transmit/ RawEquiv.*\n.*FramebufferUpdate\s*:\s*(\d+)(?:.*\n)*?.*TOTALS\s*:\s*\d+\s*\|\s*(\d+)/", t)
    return (int(m[-1][0]), int(m[-1][1])) if m else (None, None)
KINDS=["vncfb","vncviewer"]+(["base"] if os.environ.get("BASE") else [])
res={}
try:
 for ow in os.environ.get("OW","30").split(","):
  res[ow]={k:[] for k in KINDS}
  for r in range(int(os.environ.get("R","3"))):
    for kind in KINDS[r%len(KINDS):]+KINDS[:r%len(KINDS)]:
        with LinkRelay(5971, float(ow), 50) as rel:
            if kind in ("vncfb","base"):
                c=subprocess.Popen([os.environ.get("VNCFB",B+"/vncfb") if kind=="vncfb" else os.environ["BASE"],"-o","mem:1920x1080","--encodings","tight","--quality","5","--no-reconnect","127.0.0.1::%d"%rel.port],stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL)
            else:
                c=subprocess.Popen(["vncviewer","-AutoSelect=0","-FullColor=1","-PreferredEncoding=Tight","-QualityLevel=5","-ViewOnly","127.0.0.1::%d"%rel.port],env=dict(os.environ,DISPLAY=":72"),stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL)
            time.sleep(SECS); c.terminate(); c.wait(10); time.sleep(1.5)
        n,b=count(); res[ow][kind].append((n/SECS, b*8/SECS/1e6) if n else None)
        print(ow, kind, r, n, b, os.getloadavg()[0], flush=True)
finally:
    for p in (s,an,xv,vx):
        p.terminate()
        try:
            p.wait(5)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
print(res)
for ow,kv in res.items():
  for k,v in kv.items():
    v=[x for x in v if x]
    print("rtt %g ms" % (2*float(ow)), k, "median updates/s", statistics.median([x[0] for x in v]) if v else None,
          "Mbit/s", statistics.median([x[1] for x in v]) if v else None, "runs", ["%.1f" % x[0] for x in v])
