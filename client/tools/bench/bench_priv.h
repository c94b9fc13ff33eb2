/* What the parts of vncfb bench share: the runs it plans and measures,
 * and the calls between bench.c (planning, the command), bench_meter.c
 * (one measured connection through the pipeline) and bench_report.c
 * (tables, histograms, targets, JSON, CSV).
 *
 * Threads: main thread, except the run's samples that the drawing
 * thread's on_pass hook appends to while a connection is measured. */
#ifndef VNCFB_BENCH_PRIV_H
#define VNCFB_BENCH_PRIV_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "tools/bench/benchsrv.h"
#include "tools/link/link.h"
#include "config/opts.h"
#include "output/output.h"
#include "shadow/pixfmt.h"
#include "tools/replay/replaysrv.h"
#include "view/view.h"
#include "util/stats.h"

/* Cores one bench measures at most (--cpu each), unpinned included. */
#define MAX_CONFIGS 65
/* The fit workload's desktop against the output, per dimension: 1080p
 * on a 720p screen, the case users ask for most. */
#define FIT_NUM 3
#define FIT_DEN 2
#define FIT_TARGET 2.0
/* --replay: the run's workload number. */
#define BENCH_REPLAY (-2)

enum run_kind {
	RUN_PIPELINE, /* the real blitter */
	/* Reference: the same stream, but each pass is one memcpy of the
	 * bytes the blitter would write, from the same core, under the
	 * same load (decoder and server running). */
	RUN_MEMCPY,
	RUN_BARE, /* reference: decode only, no blitter */
};

struct run {
	int workload; /* enum bench_workload, -1: remote server,
		       * BENCH_REPLAY: the --replay pump */
	enum run_kind kind;
	/* fit workload: served by the 3/2 server and drawn scaled to fit;
	 * false: the output-size server, 1:1. */
	bool scaled;
	enum scale_mode scale; /* what the blitter is set to */
	unsigned zoom;
	uint32_t desk_w, desk_h; /* the remote desktop */
	int cpu;		 /* requested blit core, -1: unpinned */
	int actual_cpu;		 /* where the blit thread last ran */
	char encoding[200];	 /* what the server used */
	uint64_t enc_rects[BENCHSRV_ENCODINGS]; /* rects sent, per encoding */
	uint64_t server_bytes; /* sent by the server, whole connections */
	int segments;	       /* connections measured */
	/* Updates and window (ns) per slice, in round order: slices of one
	 * round ran back to back, so their ratio sees the same machine. A
	 * replay's slices end with the recording, so they differ in length. */
	struct samples slice_updates, slice_ns;
	double window_s;
	uint64_t updates;   /* measured updates, all drawn */
	uint64_t bytes_out; /* into the mapping by measured passes */
	uint64_t passes;
	/* Per update. */
	struct samples total, decode, queue, blit;
	/* Per pass holding measured updates. */
	struct samples pass_ns, pass_bytes;
	/* CPU time of the drawing thread per pass (between two on_pass
	 * calls: waking, the pass, the bookkeeping): what the pass cost
	 * without the time it was preempted. */
	struct samples pass_cpu;
	/* The same two for the passes that drew the whole desktop (its
	 * place on the screen): the blitter coalesces and splits, and a
	 * partial pass is no full-frame blit. */
	struct samples full_ns, full_cpu;
	/* Passes the output showed with a page flip (blit_stats.shown_ns:
	 * the drm output), and for each the time from the pass's end to the
	 * flip event. */
	uint64_t flips;
	struct samples flip_ns;
	uint64_t cpu_main_ns, cpu_blit_ns, cpu_proc_ns;
	/* memcpy of the median pass's bytes, same core, same buffers, with
	 * nothing else running (what contention costs: compare with the
	 * RUN_MEMCPY run's passes). */
	uint64_t ref_bytes;
	struct samples memcpy_ns;
	struct summary s_total, s_decode, s_queue, s_blit, s_pass, s_memcpy;
	struct summary s_pass_cpu, s_full, s_full_cpu, s_flip;
	/* Pipeline runs: the RUN_MEMCPY run of the same workload and core. */
	const struct run *ref;
	/* Scaled fit runs: the 1:1 run on the same core. */
	const struct run *unscaled;
	/* --link: bytes it carried to the client within the windows; and
	 * (a replay) each update's age when shown, from the pump beginning
	 * to send it to its last rectangle in the output. Full-frame
	 * updates within the windows. */
	uint64_t link_bytes;
	/* Of the bytes read within the windows, those of rectangle
	 * payload (updates less their headers: what carried pixels), and
	 * all (fences and headers too). */
	uint64_t payload_bytes, rx_bytes;
	struct samples age;
	struct summary s_age;
	uint64_t full_updates;
	/* Ratios (NAN when not applicable). */
	double r_memcpy, r_memcpy_cpu, r_bare, r_best;
	double r_fit_cpu, r_fit_wall; /* full-frame medians, scaled/1:1 */
};

struct bench {
	struct options *opt;
	struct output out;
	struct pixfmt sfmt;
	struct benchsrv *srv;
	/* The fit workload's server, FIT_NUM/FIT_DEN the output's size;
	 * started only when that workload runs. */
	struct benchsrv *srv_fit;
	uint32_t fit_w, fit_h;
	struct replaysrv *replay; /* --replay: the server instead */
	struct link *link;	  /* --link: between the client and it */
	struct link_config link_cfg;
	char replay_out[64]; /* its output spec */
	const char *host;
	int port;
	const char *enc_list;  /* for vnc_connect, NULL: viewer default */
	const char *encodings; /* for the report */
	const char *out_spec;
	double duration;
	int workloads[BENCH_WORKLOADS];
	int n_workloads;
	int cpus[MAX_CONFIGS]; /* -1: unpinned */
	int n_cpus;
	FILE *rep;	      /* the human report: stdout, or stderr when
			       * JSON or CSV goes to stdout */
	FILE *json_f, *csv_f; /* opened before measuring */
	struct run *runs;
	int n_runs;
	int rounds;
	int cpus_online;
	int sigfd;
};

/* --link SPEC: 0, or -EINVAL after a one-line usage error. */
int bench_parse_link(const char *spec, struct link_config *cfg);
/* bench_rotate.c: vncfb bench --rotate ANGLE, a turned full-frame pass
 * against the upright one. The exit status. */
int bench_rotate(struct options *o);

/* Measure one connection of seg_s seconds of run r and add it to r
 * (bench_meter.c). 0, -EINTR after a quit signal, -1 on failure
 * (logged). */
int bench_measure(struct bench *b, struct run *r, double seg_s);

/* Report every run, summarised and compared (bench.c): the tables,
 * histograms and targets on b->rep, JSON and CSV where asked
 * (bench_report.c). */
void bench_report(struct bench *b);
/* The run's workload, "remote" for a remote server, "replay" for
 * --replay. */
const char *bench_workload_name(const struct run *r);
/* "pipeline", "memcpy" or "bare". */
const char *bench_kind_name(const struct run *r);

/* bench_report.c, for bench_targets.c: ns in milliseconds; a run's core
 * ("core 2", "unpinned"); what the "run" column says (LABEL_LEN bytes);
 * the CPU the run's threads used, in per cent of one core. */
#define LABEL_LEN 64
double bench_ms(uint64_t ns);
void bench_cpu_label(const struct run *r, char *buf, size_t len);
void bench_run_label(const struct bench *b, const struct run *r, char *buf,
		     size_t len);
double bench_cpu_pct(const struct run *r);

/* A target the report checks: what, the value measured against the
 * limit (at most or at least), and whether it was met. */
struct target {
	char what[160];
	double value, limit;
	bool at_most;
	bool met;
};

/* bench_targets.c: r's latency histogram on rep; the targets of b's runs
 * into t (max of them), their number; them, printed on rep. */
void bench_print_histogram(const struct bench *b, FILE *rep,
			   const struct run *r);
int bench_collect_targets(struct bench *b, struct target *t, int max);
void bench_print_targets(FILE *rep, const struct target *t, int n);

#endif
