#!/usr/bin/env python3
"""vncfb against TigerVNC's vncviewer through tests/integration/linkrelay.py
to x11vnc (neither ContinuousUpdates nor Fence) on an Xvfb :71 at
1920x1080 showing tests/bench/xanim at 60 frames/s; vncviewer under its
own Xvfb :72; tight JPEG quality 5, 50 Mbit/s. Updates are counted from
x11vnc's statistics at each client's disconnect. Rounds interleaved,
order alternating; prints each run and the medians.

usage: OW=ONE_WAY_MS R=ROUNDS link_x11vnc.py   (defaults 30 and 3)
Nothing here is a test; a first measurement (doc/network.md).
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
    t=open("/tmp/link_x11vnc-x11vnc.log").read()
    n=re.findall(r"FramebufferUpdate\s*:\s*(\d+)", t)
    return int(n[-1]) if n else None
res={"vncfb":[], "vncviewer":[]}
try:
  for r in range(int(os.environ.get("R","3"))):
    for kind in (["vncfb","vncviewer"] if r%2==0 else ["vncviewer","vncfb"]):
        with LinkRelay(5971, float(os.environ.get("OW","30")), 50) as rel:
            if kind=="vncfb":
                c=subprocess.Popen([B+"/vncfb","-o","mem:1920x1080","--encodings","tight","--quality","5","--no-reconnect","127.0.0.1::%d"%rel.port],stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL)
            else:
                c=subprocess.Popen(["vncviewer","-AutoSelect=0","-FullColor=1","-PreferredEncoding=Tight","-QualityLevel=5","-ViewOnly","127.0.0.1::%d"%rel.port],env=dict(os.environ,DISPLAY=":72"),stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL)
            time.sleep(SECS); c.terminate(); c.wait(10); time.sleep(1.5)
        n=count(); res[kind].append(n/SECS if n else None)
        print(kind, r, n, os.getloadavg()[0], flush=True)
finally:
    for p in (s,an,xv,vx):
        p.terminate()
        try:
            p.wait(5)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
print(res)
for k,v in res.items():
    v=[x for x in v if x]; print(k, "median updates/s", statistics.median(v) if v else None)
