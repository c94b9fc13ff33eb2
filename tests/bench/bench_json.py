#!/usr/bin/env python3
"""vncfb bench: the JSON/CSV have the documented shape and every ratio is
computed from the measurements next to it (real samples, consistent
numbers, the slow-cpu core really slower). Nothing here asserts speed."""
import math
import os
import subprocess
import sys

from benchcheck import check, close, finish, run_bench

VNCFB = os.environ.get("VNCFB")
DURATION = 1.0
W, H = 640, 480


def online_cpus():
    try:
        return sorted(os.sched_getaffinity(0))
    except AttributeError:
        return list(range(os.cpu_count() or 1))


def usage_errors():
    for args, word in ((["--workload", "nosuch"], "nosuch"),
                       (["--cpu", "4000"], "4000"),
                       (["--duration", "-1"], "-1")):
        p = subprocess.run([VNCFB, "bench"] + args, capture_output=True,
                           text=True, timeout=30)
        lines = [l for l in p.stderr.splitlines() if l.strip()]
        check(p.returncode == 2, f"bench {args}: exit {p.returncode}, want 2")
        check(len(lines) == 1 and word in lines[0],
              f"bench {args}: want one line naming {word!r}: {p.stderr!r}")


def early_passes():
    """Decoded on the main thread, a tight update arrives as several
    rectangles, and on a live output the blitter draws the first ones while
    the rest are decoded. Those passes are blits of the measured stream
    too: each update's frame is counted once, whichever passes drew it."""
    got = run_bench(VNCFB, ["-o", f"mem:{W}x{H}:xrgb8888", "--cpu", "0",
                            "--workload", "fullframe", "--encodings",
                            "tight", "--decode-threads", "1",
                            "--duration", "1"], 60)
    if got is None:
        return
    frame = W * H * 4
    for r in got[1]["runs"]:
        if r["kind"] == "bare":
            continue
        name = f"tight, one decoding thread: {r['kind']}/{r['cpu']}"
        n = r["updates"]
        per = r["bytes_out"] / (n * frame) if n else 0
        check(0.75 <= per <= 1.25 and r["passes"] >= n * 0.75,
              f"{name}: {per:.2f} frames an update ({n} updates, "
              f"{r['passes']} passes)")


def summary_ok(name, s):
    if s["n"] == 0:
        return
    check(s["min"] <= s["median"] <= s["p95"] <= s["p99"] <= s["max"],
          f"{name}: quantiles out of order {s}")
    check(s["min"] >= 0, f"{name}: negative time {s}")


def main():
    if not VNCFB:
        print("VNCFB not set", file=sys.stderr)
        return 1
    usage_errors()
    early_passes()
    cpus = online_cpus()
    slow = 1 if 1 in cpus and len(cpus) > 1 else None
    spec = f"mem:{W}x{H}:xrgb8888" + (f",slow-cpu={slow}" if slow else "")
    got = run_bench(VNCFB, ["-o", spec, "--cpu", "each", "--workload",
                            "fullframe,typing,idle", "--duration",
                            str(DURATION)], 150)
    if got is None:
        return 1
    out, j, rows = got
    check("Latency per update" in out and "histogram" in out and
          "Targets" in out, "text report lacks table, histogram or targets")

    o = j["output"]
    check(o["name"] == "mem" and o["width"] == W and o["height"] == H and
          o["format"] == "xrgb8888" and o["stride"] >= W * 4,
          f"output block wrong: {o}")
    check(o["slow_cpu"] == (slow if slow is not None else -1),
          f"slow_cpu {o['slow_cpu']}")
    check(j["server"] == "embedded", "server should be embedded")
    check(j["fit_desktop"] is None, "fit server started without fit")
    check(j["cpus_online"] == len(cpus), f"cpus_online {j['cpus_online']}")
    check(close(j["duration_s"], DURATION), "duration_s")
    runs = j["runs"]

    def find(wl, kind, cpu):
        return [r for r in runs if r["workload"] == wl and
                r["kind"] == kind and r["cpu"] == cpu]

    # Every configuration of --cpu each is there, once.
    for wl in ("fullframe", "typing", "idle"):
        for c in cpus + [None]:
            check(len(find(wl, "pipeline", c)) == 1,
                  f"{wl}: want one pipeline run on cpu {c}")
            want = 0 if wl == "idle" else 1
            check(len(find(wl, "memcpy", c)) == want,
                  f"{wl}: want {want} memcpy run(s) on cpu {c}")
        check(len(find(wl, "bare", None)) == 1, f"{wl}: want one bare run")
    check(len(runs) == 3 * (2 * len(cpus) + 3) - (len(cpus) + 1),
          f"unexpected number of runs: {len(runs)}")
    check(len(rows) == len(runs), "CSV has one row per run")

    frame = W * H * 4
    for r in runs:
        name = f"{r['workload']}/{r['kind']}/{r['cpu']}"
        lat = r["latency_ms"]
        n = r["updates"]
        check(close(r["window_s"], DURATION, rel=1e-6, abs_=1e-5),
              f"{name}: window {r['window_s']}")
        check(close(r["updates_per_s"], n / r["window_s"]),
              f"{name}: updates_per_s not updates/window")
        check(close(r["mb_per_s"], r["bytes_out"] / r["window_s"] / 1e6),
              f"{name}: mb_per_s not bytes/window")
        for k in ("total", "recv_decode", "queue", "blit"):
            summary_ok(f"{name} {k}", lat[k])
        summary_ok(f"{name} pass", r["pass_ms"])
        check(lat["total"]["n"] == n and lat["recv_decode"]["n"] == n,
              f"{name}: one latency sample per update")
        check(len(r["slice_updates"]) == j["slices"] and
              sum(r["slice_updates"]) == n,
              f"{name}: slices {r['slice_updates']} vs {n} updates")
        if r["workload"] == "idle":
            check(n == 0, f"{name}: idle got {n} updates")
        else:
            check(n > 0, f"{name}: no updates measured")
            check(r["server_bytes"] > 0, f"{name}: server sent nothing")
        cpu = r["cpu_time"]
        ms = cpu["main_ms"] + cpu["blit_ms"]
        # The process's clock leaves out what its threads running on
        # another core have used since their last tick, the thread clocks
        # do not: the two agree to a tick (at most 10 ms) per reading.
        check(ms >= 0 and
              cpu["process_ms"] >= cpu["main_ms"] - 2 * 10.0 * j["slices"],
              f"{name}: cpu times {cpu}")
        check(close(cpu["pct_of_core"],
                    ms / (r["window_s"] * 1000) * 100, abs_=1e-4),
              f"{name}: pct_of_core inconsistent")
        if n:
            check(close(cpu["us_per_update"], ms * 1000 / n, abs_=1e-3),
                  f"{name}: us_per_update inconsistent")
        if r["kind"] == "bare":
            check(r["bytes_out"] == 0 and r["passes"] == 0,
                  f"{name}: bare run drew something")
            check(lat["queue"]["n"] == 0, f"{name}: bare run has a queue")
            continue
        # Each latency is exactly rx+dec + queue + blit.
        if n:
            t, d, q, b = (lat[k] for k in ("total", "recv_decode", "queue",
                                           "blit"))
            check(t["min"] + 1e-5 >= d["min"] + q["min"] + b["min"],
                  f"{name}: total.min below the sum of the parts' minima")
            check(t["max"] <= d["max"] + q["max"] + b["max"] + 1e-5,
                  f"{name}: total.max above the sum of the parts' maxima")
            check(r["passes"] > 0 and r["pass_ms"]["n"] == r["passes"] and
                  r["pass_cpu_ms"]["n"] == r["passes"], f"{name}: passes")
            summary_ok(f"{name} pass cpu", r["pass_cpu_ms"])
            check(r["passes"] <= n, f"{name}: more passes than updates")
        if r["workload"] == "fullframe" and r["passes"]:
            # Every fullframe pass rewrites the whole output.
            check(r["bytes_out"] == r["passes"] * frame,
                  f"{name}: {r['bytes_out']} bytes in {r['passes']} passes")
        if r["kind"] != "pipeline":
            continue
        # Ratios from the raw numbers beside them.
        ratios = r["ratios"]
        ref = find(r["workload"], "memcpy", r["cpu"])
        if ref and r["pass_ms"]["n"]:
            check(close(ratios["blit_vs_memcpy"],
                        r["pass_ms"]["median"] /
                        ref[0]["pass_ms"]["median"], rel=1e-3),
                  f"{name}: blit_vs_memcpy {ratios['blit_vs_memcpy']}")
            check(close(ratios["blit_vs_memcpy_cpu"],
                        r["pass_cpu_ms"]["median"] /
                        ref[0]["pass_cpu_ms"]["median"], rel=1e-3),
                  f"{name}: blit_vs_memcpy_cpu "
                  f"{ratios['blit_vs_memcpy_cpu']}")
            q = r["memcpy_quiet"]
            check(q["bytes"] > 0 and q["ms"]["n"] > 0,
                  f"{name}: no quiet memcpy samples")
        else:
            check(ratios["blit_vs_memcpy"] is None,
                  f"{name}: blit_vs_memcpy without a reference")
        bare = find(r["workload"], "bare", None)[0]
        pairs = sorted(a / b for a, b in zip(r["slice_updates"],
                                             bare["slice_updates"]) if b)
        if pairs:
            k = len(pairs)
            med = pairs[k // 2] if k % 2 else \
                (pairs[k // 2 - 1] + pairs[k // 2]) / 2
            check(close(ratios["updates_vs_bare"], med),
                  f"{name}: updates_vs_bare {ratios['updates_vs_bare']} "
                  f"is not the median of the paired slices {pairs}")
        else:
            check(ratios["updates_vs_bare"] is None,
                  f"{name}: updates_vs_bare without paired slices")
        pinned = [x["pass_ms"]["median"] for x in runs
                  if x["workload"] == r["workload"] and
                  x["kind"] == "pipeline" and x["cpu"] is not None and
                  x["pass_ms"]["n"]]
        if pinned and r["pass_ms"]["n"] and len(cpus) > 1:
            check(close(ratios["blit_vs_best_core"],
                        r["pass_ms"]["median"] / min(pinned), rel=1e-3),
                  f"{name}: blit_vs_best_core {ratios['blit_vs_best_core']}")
        row = [x for x in rows if x["workload"] == r["workload"] and
               x["kind"] == "pipeline" and
               x["cpu"] == ("" if r["cpu"] is None else str(r["cpu"]))]
        check(len(row) == 1 and int(row[0]["updates"]) == n and
              (n == 0 or close(float(row[0]["lat_median_ms"]),
                               lat["total"]["median"])),
              f"{name}: CSV row disagrees with JSON")

    if slow is not None:
        fast = 0 if slow != 0 else cpus[-1]
        s = find("fullframe", "pipeline", slow)[0]["pass_ms"]["median"]
        f = find("fullframe", "pipeline", fast)[0]["pass_ms"]["median"]
        check(s > 2 * f, f"slow-cpu core {slow} blit {s} ms is not clearly "
              f"slower than core {fast}'s {f} ms")
        t = [x for x in j["targets"] if "slow-cpu" in x["what"] and
             x["what"].startswith("fullframe")]
        check(len(t) == 1 and close(t[0]["value"], s / f, rel=1e-3) and
              t[0]["met"] == (t[0]["value"] >= 5),
              f"slow-cpu target entry wrong: {t}")
    for t in j["targets"]:
        want = t["value"] <= t["limit"] if t["op"] == "<=" else \
            t["value"] >= t["limit"]
        check(t["met"] == want, f"target {t['what']}: met flag wrong")
        check(not math.isnan(t["value"]), f"target {t['what']}: NaN")

    return finish("bench JSON/CSV consistent")


if __name__ == "__main__":
    sys.exit(main())
