#!/usr/bin/env python3
"""`vncfb probe` on a mem output with one core made uncached (slow-cpu=N):
the probe must pick the other core, report a high fb/RAM ratio for the
slow one and warn; with every core uncached (uncached) it must say the
whole mapping looks uncached; without either, no warning. The slowdown is
about 50x on this machine, so the thresholds (ratio > 5, the probe's 8x)
leave a wide margin."""
import json
import os
import signal
import subprocess
import sys

from common import TMP, VNCFB, check, env, finish, need_two_cores, run

need_two_cores()
SPEC = "mem:1920x1080:xrgb8888"


def probe_json(extra, *args):
    rc, out, err = run(["probe", "-o", SPEC + extra, "--json"] + list(args))
    check(rc == 0, "probe %s: exit %d" % (extra, rc), err)
    try:
        return json.loads(out), err
    except ValueError:
        check(False, "probe %s: not JSON" % extra, out)
        finish()


for slow, fast in ((1, 0), (0, 1)):
    res, err = probe_json(",slow-cpu=%d" % slow)
    cores = {c["cpu"]: c for c in res["cores"]}
    what = "slow-cpu=%d" % slow
    check(res["chosen"] == fast, "%s: chose %r, not core %d"
          % (what, res["chosen"], fast), json.dumps(res, indent=1))
    check(cores[slow]["ratio"] > 5, "%s: core %d ratio %.2f, not > 5"
          % (what, slow, cores[slow]["ratio"]))
    check(cores[fast]["ratio"] < 5, "%s: core %d ratio %.2f, not < 5"
          % (what, fast, cores[fast]["ratio"]))
    check(cores[slow]["slow"] and not cores[fast]["slow"],
          "%s: slow flags wrong" % what)
    check(cores[slow]["frame_ms"] > 5 * cores[fast]["frame_ms"],
          "%s: frame times %.3f vs %.3f" % (what, cores[slow]["frame_ms"],
                                            cores[fast]["frame_ms"]))
    for c in (0, 1):
        check(cores[c]["ran_on"] == c, "%s: probe for core %d ran on %r"
              % (what, c, cores[c]["ran_on"]))
        check(1 <= cores[c]["samples"] <= 9, "%s: core %d took %d samples"
              % (what, c, cores[c]["samples"]))
    check(res["stripe_rows"] * 1920 * 4 <= (1 << 20) and
          res["stripe_rows"] > 0, "%s: stripe of %d rows"
          % (what, res["stripe_rows"]))
    check(res["warning"] and ("core %d" % slow) in res["warning"] and
          "PAT" in res["warning"], "%s: warning %r" % (what, res["warning"]))
    check(err.count("warning:") == 1 and ("core %d" % slow) in err,
          "%s: one warning on stderr expected" % what, err)
    check(res["uncached"] is False and "looks uncached" not in err,
          "%s: one slow core called uncached" % what, err)

# Core 1 is probed after the fast core 0, so it is clearly slow early (or
# the budget cuts it, on a busy machine); its samples are smaller than
# the fast core's so that each one stays short. Each core sizes its
# samples from a timed write, so a hiccup during core 0's may leave it
# below the stripe: a slowdown of about 50x still leaves core 1's samples
# far smaller.
res, _ = probe_json(",slow-cpu=1")
cores = {c["cpu"]: c for c in res["cores"]}
check(cores[1]["samples"] < 9, "slow core 1 was not stopped early: %s %d "
      "samples" % (cores[1]["state"], cores[1]["samples"]))
check(4 * cores[1]["sample_rows"] <= cores[0]["sample_rows"] <=
      res["stripe_rows"], "sample sizes: core 0 %d rows, core 1 %d rows, "
      "stripe %d" % (cores[0]["sample_rows"], cores[1]["sample_rows"],
                     res["stripe_rows"]))

# No slow core: either core, no warning.
for i in range(2):
    res, err = probe_json("")
    check(res["chosen"] in (0, 1), "plain: chose %r" % res["chosen"])
    check(res["warning"] is None and "warning" not in err,
          "plain: unexpected warning", err + str(res["warning"]))
    check(all(not c["slow"] for c in res["cores"]), "plain: a core is slow",
          json.dumps(res, indent=1))
    check(res["uncached"] is False and res["uncached_ratio"] == 8.0,
          "plain: uncached %r" % res["uncached"])
    check(res["video_memory"] is None and res["memtype"] is None and
          "no physical video memory" in res["memtype_note"],
          "plain: memtype of a mem output", json.dumps(res, indent=1))

# Every core uncached: one warning for the whole mapping, with what it
# costs (the chosen core's ratio) and what to check; --json carries it.
res, err = probe_json(",uncached")
cores = {c["cpu"]: c for c in res["cores"]}
check(res["chosen"] in (0, 1), "uncached: chose %r" % res["chosen"])
ratio = cores[res["chosen"]]["ratio"]
check(all(c["ratio"] > 8 for c in res["cores"]) and
      not any(c["slow"] for c in res["cores"]),
      "uncached: ratios and slow flags", json.dumps(res, indent=1))
check(res["uncached"] is True, "uncached: not flagged", json.dumps(res))
w = res["warning"] or ""
check("looks uncached" in w and "nopat" in w and "pat_memtype_list" in w and
      ("chosen core %d" % res["chosen"]) in w and
      any("%dx as long" % r in w for r in (int(ratio), int(ratio) + 1)),
      "uncached: warning %r (ratio %.2f)" % (w, ratio))
check(err.count("warning:") == 1 and "looks uncached" in err,
      "uncached: one warning on stderr expected", err)
rc, out, err = run(["probe", "-o", SPEC + ",uncached"])
check(rc == 0 and "mapping: looks uncached" in out and
      "above 8x" in out, "uncached: table", out)
check(err.count("warning:") == 1, "uncached table: one warning", err)
# Both options: still the whole mapping.
res, err = probe_json(",slow-cpu=1,uncached")
check(res["uncached"] is True and err.count("warning:") == 1,
      "slow-cpu=1,uncached: uncached %r" % res["uncached"], err)

# --samples N is honoured exactly (no budget) on the fast core.
res, _ = probe_json(",slow-cpu=1", "--samples", "5")
cores = {c["cpu"]: c for c in res["cores"]}
check(res["samples"] == 5 and not res["budgeted"] and
      cores[0]["samples"] == 5, "--samples 5: %d samples on core 0"
      % cores[0]["samples"])

# The table: one row per core, a verdict, a bar chart and the choice.
rc, out, err = run(["probe", "-o", SPEC + ",slow-cpu=1"])
check(rc == 0, "table: exit %d" % rc, err)
rows = [l.split() for l in out.splitlines()]
row = {r[0]: r for r in rows if len(r) > 5 and r[0] in ("0", "1")}
check("0" in row and "1" in row, "table: rows for cores 0 and 1", out)
if "0" in row and "1" in row:
    check(row["0"][-1] == "chosen", "table: core 0 verdict", out)
    check(row["1"][6] == "SLOW:", "table: core 1 verdict", out)
    check(float(row["1"][3].rstrip("x")) > 5, "table: core 1 ratio", out)
bars = [l for l in out.splitlines() if "|" in l]
check(len(bars) == 2 and bars[1].count("#") > bars[0].count("#") * 5,
      "table: bar chart", out)
check("choice: core 0 (fastest framebuffer writes)" in out,
      "table: choice line", out)
check("PAT" in err, "table: warning on stderr", err)

# A configured core is shown as overriding the choice.
rc, out, err = run(["probe", "-o", SPEC, "--cpu", "1"])
check(rc == 0 and "configured: core 1" in out, "probe --cpu 1", out + err)

# --json=FILE and --json FILE: the JSON in FILE, the table on the terminal.
for args in (["--json=" + os.path.join(TMP, "p1.json")],
             ["--json", os.path.join(TMP, "p2.json")]):
    path = args[-1].split("=")[-1]
    rc, out, err = run(["probe", "-o", SPEC, "--samples", "2"] + args)
    try:
        with open(path) as f:
            res = json.load(f)
    except (OSError, ValueError) as e:
        res = None
        check(False, "probe %s: no JSON in the file (%s)" % (args[0], e))
    check(rc == 0 and "choice: core" in out and
          (res is None or res.get("output") == "mem"),
          "probe %s: exit %d, table %r" % (args[0], rc, out[-200:]), err)
rc, out, err = run(["probe", "-o", SPEC, "--json=/no/such/dir/p.json"])
check(rc == 1 and "/no/such/dir/p.json" in err, "probe --json=unwritable",
      err)

# A quit signal stops the probe between two samples: no table, exit 1,
# the console given back by the normal path. 1000 samples a core take
# about 0.3 s each on this uncached mapping (the probe sizes its samples
# to 0.3 ms), so the signal lands while it times core 0.
p = subprocess.Popen([VNCFB, "probe", "-v", "-o", SPEC + ",uncached",
                      "--samples", "1000"], stdout=subprocess.PIPE,
                     stderr=subprocess.PIPE, text=True, env=env())
started = []
for line in p.stderr:
    started.append(line)
    if "probe: timing" in line:
        p.send_signal(signal.SIGTERM)
        break
out, err = p.communicate(timeout=60)
err = "".join(started) + err
check(p.returncode == 1 and "probe interrupted: no table" in err and
      "choice: core" not in out,
      "probe, SIGTERM while it times: exit %d, table %r"
      % (p.returncode, out[-200:]), err)

# Usage errors.
rc, out, err = run(["probe", "somehost"])
check(rc == 2 and "probe takes no server" in err, "probe HOST", err)
rc, out, err = run(["probe", "-o", "mem:0x0"])
check(rc == 2 and "bad value" in err, "probe -o mem:0x0", err)
rc, out, err = run(["probe", "-o", "mem:640x480,uncached=1"])
check(rc == 2 and "bad value" in err, "probe -o mem:...,uncached=1", err)
rc, out, err = run(["probe", "--samples", "0"])
check(rc == 2 and "1-1000" in err, "probe --samples 0", err)
# Options for another command are refused, not ignored.
for opt in (["--encodings", "raw"], ["--scale", "fit"], ["--view-only"]):
    rc, out, err = run(["probe"] + opt)
    check(rc == 2 and opt[0] in err and "probe" in err,
          "probe %s accepted" % opt[0], err)

finish()
