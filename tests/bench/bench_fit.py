#!/usr/bin/env python3
"""vncfb bench --workload fit: a desktop 3/2 the output's size drawn scaled
to fit and the output-size desktop drawn 1:1 are measured in the same run,
labelled as such, and the scaled/unscaled full-frame target follows from
the numbers beside it. Nothing here asserts speed."""
import os
import re
import subprocess
import sys

from benchcheck import check, close, failures, finish, run_bench

VNCFB = os.environ.get("VNCFB")
OW, OH = 320, 180
DW, DH = 480, 270
DURATION = 1.0


def first_cpu():
    try:
        return min(os.sched_getaffinity(0))
    except AttributeError:
        return 0


def usage_errors():
    p = subprocess.run([VNCFB, "bench", "--workload", "fullframe,fits"],
                       capture_output=True, text=True, timeout=30)
    lines = [l for l in p.stderr.splitlines() if l.strip()]
    check(p.returncode == 2, f"unknown workload: exit {p.returncode}")
    check(len(lines) == 1 and "'fits'" in lines[0] and
          re.search(r"\bfit\)", lines[0]) is not None,
          f"unknown workload: want one line naming 'fits' and listing "
          f"fit: {p.stderr!r}")
    # 3/2 of the largest mem output is more than the bench serves.
    p = subprocess.run([VNCFB, "bench", "-o", "mem:8192x8192",
                        "--workload", "fit"],
                       capture_output=True, text=True, timeout=30)
    lines = [l for l in p.stderr.splitlines() if l.strip()]
    check(p.returncode == 2, f"fit too large: exit {p.returncode}")
    check(len(lines) == 1 and "fit" in lines[0] and
          "12288x12288" in lines[0] and "too large" in lines[0],
          f"fit too large: want one line naming the size: {p.stderr!r}")


def main():
    if not VNCFB:
        print("VNCFB not set", file=sys.stderr)
        return 1
    usage_errors()
    cpu = first_cpu()
    scaled_lab = f"fit {DW}x{DH}->{OW}x{OH} core {cpu}"
    plain_lab = f"fit 1:1 {OW}x{OH} core {cpu}"
    bare_lab = f"fit bare decode {DW}x{DH}"
    # --scale fill must not change what fit compares.
    got = run_bench(VNCFB, ["-o", f"mem:{OW}x{OH}", "--workload", "fit",
                            "--cpu", str(cpu), "--scale", "fill",
                            "--duration", str(DURATION)], 120)
    if got is None:
        return 1
    out, j, rows = got

    # The text report: both runs in every table, the target line.
    def row_re(label):
        wl, rest = label.split(" ", 1)
        return re.compile(rf"^{wl}\s+{re.escape(rest)}\s+\d", re.M)

    for lab in (scaled_lab, plain_lab, bare_lab):
        check(len(row_re(lab).findall(out)) >= 2,
              f"report lacks table rows for {lab!r}")
    check("Full-frame blits" in out, "report lacks the full-frame table")
    check(f"and {DW}x{DH} for fit" in out,
          "report header does not name the fit server's size")
    m = re.search(r"^\s+fit 3:2 full-frame blit cpu scaled/unscaled, "
                  rf"core {cpu}\s+([0-9]+\.[0-9]+) <= 2\s+(met|NOT MET)$",
                  out, re.M)
    check(m is not None, "report lacks the fit target line")

    check(j["fit_desktop"] == {"width": DW, "height": DH},
          f"fit_desktop {j['fit_desktop']}")
    runs = [r for r in j["runs"] if r["workload"] == "fit"]
    check(len(runs) == len(j["runs"]) == 3, f"{len(j['runs'])} runs")
    by = {r["label"]: r for r in runs}
    check(set(by) == {scaled_lab, plain_lab, bare_lab},
          f"labels {sorted(by)}")
    if failures:
        return 1
    s, u, b = by[scaled_lab], by[plain_lab], by[bare_lab]
    check(s["kind"] == "pipeline" and s["cpu"] == cpu and
          s["scale"] == "fit", f"scaled run: {s['kind']} {s['cpu']} "
          f"{s['scale']}")
    check(u["kind"] == "pipeline" and u["cpu"] == cpu and
          u["scale"] == "none", f"1:1 run: {u['kind']} {u['cpu']} "
          f"{u['scale']}")
    check(b["kind"] == "bare" and b["scale"] is None, "bare run")
    # The desktop sizes are what the client was sent.
    for r, w, h in ((s, DW, DH), (u, OW, OH), (b, DW, DH)):
        check(r["desktop"] == {"width": w, "height": h},
              f"{r['label']}: desktop {r['desktop']}")
        check(r["updates"] > 0, f"{r['label']}: no updates")
        # Every update is the whole desktop, raw.
        check(r["server_bytes"] >= r["updates"] * w * h * 4,
              f"{r['label']}: {r['server_bytes']} bytes for "
              f"{r['updates']} updates of {w}x{h}")
    frame = OW * OH * 4
    for r in (s, u):
        full, fcpu = r["full_pass_ms"], r["full_pass_cpu_ms"]
        check(full["n"] > 0 and fcpu["n"] == full["n"],
              f"{r['label']}: full passes {full['n']}/{fcpu['n']}")
        check(full["n"] <= r["passes"], f"{r['label']}: more full passes "
              f"than passes")
        check(r["bytes_out"] >= full["n"] * frame,
              f"{r['label']}: {r['bytes_out']} bytes out for {full['n']} "
              f"full passes")
        for x in (full, fcpu):
            if x["n"]:
                check(x["min"] <= x["median"] <= x["p99"] <= x["max"],
                      f"{r['label']}: quantiles out of order {x}")
    check(u["ratios"]["full_cpu_vs_unscaled"] is None and
          u["ratios"]["updates_vs_bare"] is None,
          "the 1:1 run has no scaled/unscaled or bare ratio")
    want = s["full_pass_cpu_ms"]["median"] / u["full_pass_cpu_ms"]["median"]
    got = s["ratios"]["full_cpu_vs_unscaled"]
    check(close(got, want), f"full_cpu_vs_unscaled {got}, want {want}")
    want_w = s["full_pass_ms"]["median"] / u["full_pass_ms"]["median"]
    check(close(s["ratios"]["full_wall_vs_unscaled"], want_w),
          f"full_wall_vs_unscaled {s['ratios']['full_wall_vs_unscaled']}, "
          f"want {want_w}")
    t = [x for x in j["targets"] if x["what"].startswith("fit 3:2")]
    check(len(t) == 1, f"want one fit target: {t}")
    if t:
        t = t[0]
        check(t["what"] ==
              f"fit 3:2 full-frame blit cpu scaled/unscaled, core {cpu}",
              f"target name {t['what']!r}")
        check(close(t["value"], got) and t["limit"] == 2 and
              t["op"] == "<=" and t["met"] == (t["value"] <= 2),
              f"fit target entry wrong: {t}")
        if m:
            check(close(float(m.group(1)), t["value"], rel=2e-3) and
                  (m.group(2) == "met") == t["met"],
                  "text target line disagrees with JSON")

    check(len(rows) == 3, f"CSV has {len(rows)} rows")
    for r in rows:
        jr = by.get(r["label"])
        check(jr is not None, f"CSV label {r['label']!r} not in JSON")
        if not jr:
            continue
        check(int(r["desktop_width"]) == jr["desktop"]["width"] and
              int(r["full_passes"]) == jr["full_pass_ms"]["n"],
              f"CSV row {r['label']} disagrees with JSON")
        if jr is s:
            check(close(float(r["full_cpu_vs_unscaled"]), got),
                  "CSV full_cpu_vs_unscaled disagrees with JSON")

    return finish("bench fit: both views measured and labelled, ratio consistent")


if __name__ == "__main__":
    sys.exit(main())
