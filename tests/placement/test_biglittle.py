#!/usr/bin/env python3
"""big.LITTLE, simulated: a sysfs CPU folder of our own ($VNCFB_SYSFS_CPU)
gives core 0 the capacity of a big core (1024) and core 1 that of a
little one (446, a Cortex-A53 beside an A72), and the mem output makes
core 1 slow to write (slow-cpu=1). `vncfb probe` must name each core's
class and capacity in its table and its JSON and still choose by the
measured writes; swapped capacities swap the classes; alike or absent
capacities give no class. A session's decode workers must be kept on
the big core, and on a system whose cores are alike left alone."""
import json
import os

from common import TMP, check, finish, need_two_cores, run

need_two_cores()
SPEC = "mem:1280x720:xrgb8888"


def sysfs(name, caps):
    d = os.path.join(TMP, name)
    for cpu, cap in enumerate(caps):
        os.makedirs(os.path.join(d, "cpu%d" % cpu), exist_ok=True)
        if cap is not None:
            with open(os.path.join(d, "cpu%d" % cpu, "cpu_capacity"),
                      "w") as f:
                f.write("%d\n" % cap)
    return d


def probe(extra, folder, *args):
    return run(["probe", "-o", SPEC + extra] + list(args),
               VNCFB_SYSFS_CPU=folder)


bl = sysfs("biglittle", [1024, 446])
rc, out, err = probe(",slow-cpu=1", bl, "--json")
check(rc == 0, "probe --json: exit %d" % rc, err)
res = json.loads(out) if rc == 0 else {"cores": [], "chosen": None}
cores = {c["cpu"]: c for c in res["cores"]}
check(cores.get(0, {}).get("class") == "big" and
      cores.get(0, {}).get("capacity") == 1024,
      "core 0 not big 1024", out)
check(cores.get(1, {}).get("class") == "little" and
      cores.get(1, {}).get("capacity") == 446,
      "core 1 not little 446", out)
check(res["chosen"] == 0, "chose %r, not the fast big core 0"
      % res["chosen"], out)

rc, out, err = probe(",slow-cpu=1", bl)
rows = {}
for ln in out.splitlines():  # the table's rows, before the bar chart's
    if ln.split() and ln.split()[0] in ("0", "1"):
        rows.setdefault(ln.split()[0], ln)
check(rc == 0 and "class" in out, "probe table: no class column", out)
check(" big 1024 " in rows.get("0", ""), "table row of core 0: %r"
      % rows.get("0"), out)
check(" little 446 " in rows.get("1", ""), "table row of core 1: %r"
      % rows.get("1"), out)

lb = sysfs("littlebig", [512, 1024])
rc, out, err = probe("", lb, "--json")
cores = {c["cpu"]: c for c in json.loads(out)["cores"]} if rc == 0 else {}
check(cores.get(0, {}).get("class") == "little" and
      cores.get(1, {}).get("class") == "big",
      "swapped capacities: classes %r" % {k: v.get("class")
                                          for k, v in cores.items()}, out)

for name, caps in (("alike", [1024, 1024]), ("none", [None, None])):
    rc, out, err = probe("", sysfs(name, caps), "--json")
    cores = json.loads(out)["cores"] if rc == 0 else []
    check(rc == 0 and cores and all(c["class"] is None for c in cores),
          "%s: classes given" % name, out)
    if name == "none":
        check(all(c["capacity"] is None for c in cores),
              "no cpu_capacity files: capacities given", out)

# A session: two decode workers, kept on the big core.
rc, out, err = run(["--demo", "-o", SPEC + ",slow-cpu=1", "--exit-after",
                    "2", "--decode-threads", "2", "-v"],
                   VNCFB_SYSFS_CPU=bl)
check(rc == 0 and "decode: 2 workers on the big cores 0" in err,
      "session on big.LITTLE: decode workers not kept on core 0", err)
rc, out, err = run(["--demo", "-o", SPEC, "--exit-after", "2",
                    "--decode-threads", "2", "-v"],
                   VNCFB_SYSFS_CPU=sysfs("alike", [1024, 1024]))
check(rc == 0 and "big cores" not in err,
      "cores alike: decode workers pinned", err)

finish()
