#!/usr/bin/env python3
"""Placement on a real kernel's /dev/fb0 (qemu guest with 2 vCPUs, see
tests/vm/vmrun.py): `vncfb probe` measures both cores on the fbdev
output, --json agrees, the table and --json name the kernel's memory type
of vesafb's video memory as the guest's own PAT list has it (and without
debugfs say so in one quiet -v line), and a session pins its blit thread
where its probe said (and to --cpu 0 when asked), as the blit thread
itself reports. Exit 77 when qemu or a guest kernel is absent."""
import json
import os
import re
import subprocess
import sys

from common import check, finish
from vmskip import vm_run_or_skip

VNCFB = os.environ.get("VNCFB")
if not VNCFB:
    print("VNCFB is not set (run through meson test)", file=sys.stderr)
    sys.exit(1)
vmrun = vm_run_or_skip()

GUEST = r'''
vncfb probe -v > /tmp/q.txt 2>&1; echo "QUIET_RC=$?"
echo QUIET_BEGIN; cat /tmp/q.txt; echo QUIET_END
mount -t debugfs none /sys/kernel/debug
echo PAT_BEGIN; cat /sys/kernel/debug/x86/pat_memtype_list; echo PAT_END
vncfb probe > /tmp/t.txt 2>&1; echo "PROBE_RC=$?"
echo TABLE_BEGIN; cat /tmp/t.txt; echo TABLE_END
vncfb probe --json > /tmp/p.json 2> /tmp/p.err; echo "JSON_RC=$?"
echo JSON_BEGIN; cat /tmp/p.json; echo JSON_END; cat /tmp/p.err
vncfb --demo --view-only --exit-after 2 -v > /tmp/s1.log 2>&1
echo "S1_RC=$?"; grep -E 'blit thread|probe|warning|error' /tmp/s1.log | sed 's/^/S1 /'
vncfb --demo --view-only --exit-after 2 -v --cpu 0 > /tmp/s2.log 2>&1
echo "S2_RC=$?"; grep -E 'blit thread|probe|warning|error' /tmp/s2.log | sed 's/^/S2 /'
'''

p = subprocess.run([vmrun, "-q", "--smp", "2", "--fb", "vesa",
                    "--bin", VNCFB + ":/bin/vncfb", "--cmd", GUEST,
                    "--timeout", "240"],
                   capture_output=True, text=True, timeout=300)
out = p.stdout.replace("\r", "")
if p.returncode == 125:
    print("the VM did not start:\n" + p.stderr[-2000:], file=sys.stderr)
    sys.exit(1)
check(p.returncode == 0, "guest script exit %d" % p.returncode,
      out + p.stderr[-2000:])


def between(a, b):
    m = re.search(re.escape(a) + r"\n(.*?)\n" + re.escape(b), out, re.S)
    return m.group(1) if m else ""


check("PROBE_RC=0" in out, "vncfb probe failed", out)
table = between("TABLE_BEGIN", "TABLE_END")
check(table.startswith("output fbdev "), "probe did not use /dev/fb0", table)
rows = {l.split()[0]: l.split() for l in table.splitlines()
        if re.match(r"\s+[01]\s+\d", l)}
check(set(rows) == {"0", "1"}, "table rows for cores 0 and 1", table)
m = re.search(r"choice: core (\d)", table)
check(m is not None, "no choice line", table)

check("JSON_RC=0" in out, "vncfb probe --json failed", out)
try:
    res = json.loads(between("JSON_BEGIN", "JSON_END"))
except ValueError:
    res = None
check(res is not None, "probe --json is not JSON", out)
if res:
    cores = {c["cpu"]: c for c in res["cores"]}
    check(res["output"] == "fbdev", "JSON output %r" % res["output"])
    for c in (0, 1):
        check(cores.get(c, {}).get("state") in ("measured", "stopped-early")
              and cores[c]["ran_on"] == c and cores[c]["fb_ms"] > 0,
              "core %d not measured on core %d" % (c, c), json.dumps(res))
    check(res["chosen"] in (0, 1), "JSON chosen %r" % res["chosen"])

# The kernel's memory type. Without debugfs: one quiet line, nothing in
# the table.
quiet = between("QUIET_BEGIN", "QUIET_END")
check("QUIET_RC=0" in out, "vncfb probe -v failed", quiet)
check(len([l for l in quiet.splitlines() if "kernel memory type" in l]) == 1
      and "memory unknown: debugfs is not mounted" in quiet and
      "the kernel maps it" not in quiet,
      "without debugfs: not one quiet line", quiet)
# With it: what the guest's PAT list says for vesafb's range, read here
# independently of fbdev/cpu/pat.c.
pat = between("PAT_BEGIN", "PAT_END")
if res and res.get("video_memory"):
    start = res["video_memory"]["start"]
    end = start + res["video_memory"]["length"]
    types = set()
    for l in pat.splitlines():
        m = re.match(r"PAT: \[mem 0x([0-9a-f]+)-0x([0-9a-f]+)\] (\S+)", l)
        if m and int(m.group(1), 16) < end and int(m.group(2), 16) > start:
            types.add(m.group(3))
    check(len(types) == 1, "vesafb range 0x%x-0x%x in the PAT list: %s"
          % (start, end, types), pat)
    want = types.pop() if len(types) == 1 else "?"
    check((res.get("memtype") or {}).get("name") == want and
          res["memtype_note"] is None,
          "JSON memtype %r, the kernel says %r" % (res.get("memtype"), want),
          json.dumps(res))
    check("video memory: 0x%x-0x%x (%d KiB); the kernel maps it %s"
          % (start, end - 1, (end - start) >> 10, want) in table,
          "table: no memory type line for %s" % want, table)
    check(res["uncached"] is False and res["warning"] is None,
          "vesafb under TCG called uncached", json.dumps(res))
    if want.startswith("uncached"):
        # Under TCG memory types cost nothing: the table says so.
        check("the writes are combined all the same" in table,
              "table: uncached type without the measured verdict", table)
else:
    check(False, "JSON has no video_memory for vesafb", json.dumps(res))

# The session's own probe and where its blit thread really runs.
check("S1_RC=0" in out, "session failed", out)
m = re.search(r"S1 vncfb: (?:\[[^]]*\] )?blit thread on core (\d+):", out)
check(m is not None, "session did not log its choice", out)
if m:
    check(re.search(r"S1 .*blit thread runs on core %s, as pinned"
                    % m.group(1), out) is not None,
          "session blit thread does not run on its chosen core %s"
          % m.group(1), out)
check("S2_RC=0" in out and
      re.search(r"S2 .*blit thread runs on core 0, as pinned", out),
      "--cpu 0 session not pinned to core 0", out)
check(re.search(r"S2 .*probe: core", out) is None,
      "--cpu 0 session ran the probe", out)

finish()
