/* vncfb bench: drive the real pipeline (libvncclient -> shadow -> damage ->
 * pinned blitter -> output) against deterministic workloads and time every
 * update; measure the references (memcpy, bare decode, each core) in the
 * same run and print them as ratios. This file plans the runs, drives
 * them and compares them with their references; bench_meter.c measures one
 * connection, bench_report.c reports. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/bench/bench.h"
#include "tools/bench/bench_priv.h"
#include "tools/bench/benchsrv.h"
#include "console/console.h"
#include "util/log.h"
#include "output/output.h"
#include "net/vnc_enc.h"
#include "shadow/pixfmt.h"
#include "platform/platform.h"
#include "placement/probe.h"
#include "tools/link/link.h"
#include "tools/replay/recorder.h"
#include "tools/replay/replaysrv.h"
#include "console/signals.h"
#include "util/stats.h"

#define DEFAULT_OUTPUT "mem:1920x1080:xrgb8888"
/* Raw on loopback costs the server least, so the numbers are about vncfb
 * rather than the codec; CopyRect makes scroll what it is on real
 * desktops. --encodings changes it. */
#define DEFAULT_ENCODINGS "copyrect raw"
#define DEFAULT_WORKLOADS "fullframe,scroll,typing,idle,fit"
#define DEFAULT_DURATION 3.0
/* --replay: plays per configuration, and the longest one may last. */
#define REPLAY_PLAYS 3
#define REPLAY_PLAY_S 60.0
/* Each configuration is measured in slices of this length, the
 * configurations of a workload taking turns, so that the machine's drift
 * (other tenants, frequency) hits all of them alike. */
#define SEGMENT_S 0.5
/* The fit server holds three frames and the client two more: refuse
 * desktops whose frame is larger (an 8K output's is 285 MiB), and sides
 * beyond what vnc.c accepts. */
#define FIT_MAX_FRAME (320u << 20)
#define FIT_MAX_DIM 16384

/* --json/--csv FILE ("-": standard output), opened before measuring so
 * that a bad path fails at once. */
static int open_out(const char *path, FILE **f)
{
	*f = NULL;
	if (!path)
		return 0;
	if (!strcmp(path, "-")) {
		*f = stdout;
		return 0;
	}
	*f = fopen(path, "w");
	if (!*f) {
		log_error("cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

static int close_out(FILE *f, const char *path)
{
	int bad;

	if (!f)
		return 0;
	bad = ferror(f);
	if (f == stdout)
		bad |= fflush(f) != 0;
	else
		bad |= fclose(f) != 0;
	if (bad) {
		log_error("cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* --- set-up --- */

int bench_parse_link(const char *spec, struct link_config *cfg)
{
	char why[160];

	if (link_parse(spec, cfg, why, sizeof(why)) == 0)
		return 0;
	fprintf(stderr,
		"vncfb: bad value '%s' for --link: %s (see vncfb "
		"--help)\n",
		spec, why);
	return -EINVAL;
}

static int parse_workloads(struct bench *b, const char *list)
{
	const char *p = list;

	b->n_workloads = 0;
	while (*p) {
		size_t n = strcspn(p, ", ");
		int w, i;

		if (n > 0) {
			w = benchsrv_workload_from_name(p, n);
			if (w < 0) {
				fprintf(stderr,
					"vncfb: unknown workload '%.*s' "
					"(expected fullframe, scroll, typing, "
					"idle or fit)\n",
					(int)n, p);
				return -EINVAL;
			}
			for (i = 0; i < b->n_workloads; i++)
				if (b->workloads[i] == w)
					break;
			if (i == b->n_workloads)
				b->workloads[b->n_workloads++] = w;
		}
		p += n;
		p += strspn(p, ", ");
	}
	if (!b->n_workloads) {
		fprintf(stderr, "vncfb: --workload needs at least one name\n");
		return -EINVAL;
	}
	return 0;
}

static void *pin_thread(void *arg)
{
	int *cpu_err = arg;

	*cpu_err = platform_pin_thread(pthread_self(), *cpu_err);
	return NULL;
}

/* Whether a thread may be pinned to cpu: 0 or -errno. */
static int try_pin(int cpu)
{
	pthread_t t;
	int v = cpu, err;

	err = pthread_create(&t, NULL, pin_thread, &v);
	if (err)
		return -err;
	pthread_join(t, NULL);
	return v;
}

static int plan_cpus(struct bench *b)
{
	int c, n = platform_cpu_count(), cpu = b->opt->cpu;

	b->n_cpus = 0;
	for (c = 0; c < n; c++)
		b->cpus_online += platform_cpu_online(c);
	if (cpu == CPU_EACH) {
		int err = 0;

		for (c = 0; c < n && b->n_cpus < MAX_CONFIGS - 1; c++) {
			if (!platform_cpu_online(c))
				continue;
			err = try_pin(c);
			if (err == -EPERM || err == -EACCES)
				break;
			b->cpus[b->n_cpus++] = c;
		}
		if (err == -EPERM || err == -EACCES) {
			/* NetBSD lets only root set affinity by default. */
			char why[PROBE_PIN_REASON_LEN];

			log_warn("cannot pin threads to cores (%s): --cpu "
				 "each measures unpinned only",
				 probe_pin_reason(err, why, sizeof(why)));
			b->n_cpus = 0;
		}
		b->cpus[b->n_cpus++] = -1;
		return 0;
	}
	if (cpu == CPU_AUTO) {
		b->cpus[b->n_cpus++] =
		    probe_pick_core(&b->out, b->opt->samples);
		return 0;
	}
	if (!platform_cpu_online(cpu)) {
		fprintf(
		    stderr,
		    "vncfb: --cpu %d: no such online core (%d configured)\n",
		    cpu, n);
		return -EINVAL;
	}
	b->cpus[b->n_cpus++] = cpu;
	return 0;
}

static bool wants_fit(const struct bench *b)
{
	int i;

	for (i = 0; i < b->n_workloads; i++)
		if (b->workloads[i] == BENCH_FIT)
			break;
	return i < b->n_workloads;
}

/* The embedded server's desktop: the output's size, or with several
 * heads (mem:WxH,heads=N, drm:all) the heads side by side, as the
 * pipeline lays them out without --layout, so each head draws its own
 * full frames. */
static uint32_t desk_width(const struct output *out)
{
	uint32_t w = out->width;
	unsigned i;

	for (i = 1; i < output_nheads(out); i++)
		w += out->heads[i]->width;
	return w;
}

/* The fit workload's desktop: FIT_NUM/FIT_DEN the output in each
 * dimension, so fit fills the screen exactly (no borders) when the
 * output's sides are even. Too large for the bench: asked for, a usage
 * error (-EINVAL); in the default list, left out with a warning. */
static int plan_fit(struct bench *b, bool asked)
{
	uint64_t w = (uint64_t)b->out.width * FIT_NUM / FIT_DEN;
	uint64_t h = (uint64_t)b->out.height * FIT_NUM / FIT_DEN;
	uint64_t frame = w * h * pixfmt_bytes(&b->sfmt);
	int i, k;

	if (w <= FIT_MAX_DIM && h <= FIT_MAX_DIM && frame <= FIT_MAX_FRAME) {
		b->fit_w = (uint32_t)w;
		b->fit_h = (uint32_t)h;
		return 0;
	}
	if (asked) {
		fprintf(stderr,
			"vncfb: --workload fit: a %llux%llu desktop (%d/%d of "
			"the output) is too large for the bench (%llu MiB a "
			"frame, at most %u; %d a side); use a smaller -o\n",
			(unsigned long long)w, (unsigned long long)h, FIT_NUM,
			FIT_DEN, (unsigned long long)(frame >> 20),
			FIT_MAX_FRAME >> 20, FIT_MAX_DIM);
		return -EINVAL;
	}
	log_warn("bench: leaving out the fit workload: its %llux%llu "
		 "desktop is too large",
		 (unsigned long long)w, (unsigned long long)h);
	for (i = k = 0; i < b->n_workloads; i++)
		if (b->workloads[i] != BENCH_FIT)
			b->workloads[k++] = b->workloads[i];
	b->n_workloads = k;
	return 0;
}

static int start_fit_server(struct bench *b)
{
	b->srv_fit = benchsrv_start(b->fit_w, b->fit_h, &b->sfmt);
	return b->srv_fit ? 0 : -1;
}

/* Which desktop a run sees and how the blitter draws it: the viewer's
 * --scale, except in the fit workload, which forces its two views. */
static void plan_view(const struct bench *b, struct run *r)
{
	if (r->workload == BENCH_FIT) {
		r->scale = r->scaled ? SCALE_FIT : SCALE_NONE;
		r->zoom = 1;
	} else {
		r->scale = (enum scale_mode)b->opt->scale_mode;
		r->zoom = b->opt->scale_zoom;
	}
	/* A remote server's size is known once connected (ev_resize). */
	if (b->srv) {
		r->desk_w = r->scaled ? b->fit_w : desk_width(&b->out);
		r->desk_h = r->scaled ? b->fit_h : b->out.height;
	}
}

/* updates/s of r against o: the median over rounds of the ratio of their
 * slices' rates (measured back to back), so that a burst of load from
 * elsewhere weighs on one round, not on the result. NAN when no round has
 * updates on both sides. */
static double paired_ratio(const struct run *r, const struct run *o)
{
	size_t k, n = 0, max = r->slice_updates.n;
	double *v, ret = NAN;

	v = malloc((max ? max : 1) * sizeof(*v));
	if (!v)
		return NAN;
	for (k = 0; k < max && k < o->slice_updates.n; k++)
		if (o->slice_updates.v[k] > 0 && r->slice_ns.v[k] > 0 &&
		    o->slice_ns.v[k] > 0)
			v[n++] = (double)r->slice_updates.v[k] /
				 (double)r->slice_ns.v[k] /
				 ((double)o->slice_updates.v[k] /
				  (double)o->slice_ns.v[k]);
	if (n > 0)
		ret = stats_median_double(v, n);
	free(v);
	return ret;
}

/* A scaled fit run against the 1:1 run on its core: full-frame passes. */
static void fit_ratios(struct run *r, const struct run *o)
{
	r->unscaled = o;
	if (r->s_full_cpu.n && o->s_full_cpu.n && o->s_full_cpu.median)
		r->r_fit_cpu =
		    (double)r->s_full_cpu.median / (double)o->s_full_cpu.median;
	if (r->s_full.n && o->s_full.n && o->s_full.median)
		r->r_fit_wall =
		    (double)r->s_full.median / (double)o->s_full.median;
}

/* Summarise every run and set its ratios against its references. */
static void compare(struct bench *b)
{
	int i, j;

	for (i = 0; i < b->n_runs; i++) {
		struct run *r = &b->runs[i];

		stats_summarize(&r->total, &r->s_total);
		stats_summarize(&r->decode, &r->s_decode);
		stats_summarize(&r->queue, &r->s_queue);
		stats_summarize(&r->blit, &r->s_blit);
		stats_summarize(&r->pass_ns, &r->s_pass);
		stats_summarize(&r->pass_cpu, &r->s_pass_cpu);
		stats_summarize(&r->full_ns, &r->s_full);
		stats_summarize(&r->flip_ns, &r->s_flip);
		stats_summarize(&r->full_cpu, &r->s_full_cpu);
		stats_summarize(&r->memcpy_ns, &r->s_memcpy);
		stats_summarize(&r->age, &r->s_age);
	}
	for (i = 0; i < b->n_runs; i++) {
		struct run *r = &b->runs[i];
		uint64_t best = 0;

		if (r->kind == RUN_BARE)
			continue;
		for (j = 0; j < b->n_runs; j++) {
			struct run *o = &b->runs[j];

			if (o->workload != r->workload)
				continue;
			if (r->kind == RUN_PIPELINE && r->scaled &&
			    o->kind == RUN_PIPELINE && !o->scaled &&
			    o->cpu == r->cpu)
				fit_ratios(r, o);
			/* The fit workload's two streams have a reference
			 * each; scaled and 1:1 are no rivals for /best. */
			if (o->scaled != r->scaled)
				continue;
			if (o->kind == RUN_BARE)
				r->r_bare = paired_ratio(r, o);
			if (r->kind == RUN_PIPELINE && o->kind == RUN_MEMCPY &&
			    o->cpu == r->cpu) {
				r->ref = o;
				if (r->s_pass.n && o->s_pass.n &&
				    o->s_pass.median)
					r->r_memcpy = (double)r->s_pass.median /
						      (double)o->s_pass.median;
				if (r->s_pass_cpu.n && o->s_pass_cpu.n &&
				    o->s_pass_cpu.median)
					r->r_memcpy_cpu =
					    (double)r->s_pass_cpu.median /
					    (double)o->s_pass_cpu.median;
			}
			if (o->kind == RUN_PIPELINE && o->cpu >= 0 &&
			    o->s_pass.n && (!best || o->s_pass.median < best))
				best = o->s_pass.median;
		}
		if (r->kind == RUN_PIPELINE && best && r->s_pass.n &&
		    b->n_cpus > 1)
			r->r_best = (double)r->s_pass.median / (double)best;
	}
}

static void free_runs(struct bench *b)
{
	int i;

	for (i = 0; i < b->n_runs; i++) {
		struct run *r = &b->runs[i];

		stats_free(&r->total);
		stats_free(&r->decode);
		stats_free(&r->queue);
		stats_free(&r->blit);
		stats_free(&r->pass_ns);
		stats_free(&r->pass_cpu);
		stats_free(&r->full_ns);
		stats_free(&r->full_cpu);
		stats_free(&r->flip_ns);
		stats_free(&r->slice_updates);
		stats_free(&r->slice_ns);
		stats_free(&r->pass_bytes);
		stats_free(&r->memcpy_ns);
		stats_free(&r->age);
	}
	free(b->runs);
}

/* What the options ask of the runs: how long, in which encodings, on
 * which output, with which workloads. 0, or the exit status (logged). */
static int plan_bench(struct bench *b, struct options *o)
{
	b->opt = o;
	b->duration = o->duration > 0 ? o->duration : DEFAULT_DURATION;
	if (o->replay_file) {
		/* It sets the encodings the recorder asked for. */
		b->replay = replaysrv_for_bench(o, b->replay_out,
						sizeof(b->replay_out));
		if (!b->replay)
			return 1;
		b->duration = (o->duration > 0 ? o->duration : REPLAY_PLAY_S) *
			      (o->repeat ? o->repeat : REPLAY_PLAYS);
	}
	/* A real server is measured with what the viewer would ask for. */
	b->enc_list = o->encodings	    ? o->encodings
		      : o->host || b->replay ? NULL
					     : DEFAULT_ENCODINGS;
	b->encodings = b->enc_list ? b->enc_list : "viewer default";
	b->out_spec = o->output	  ? o->output
		      : b->replay ? b->replay_out
				  : DEFAULT_OUTPUT;
	if (o->host && o->workloads) {
		log_error("--workload needs the embedded server (drop HOST)");
		return 2;
	}
	if (!o->host && !b->replay &&
	    parse_workloads(b, o->workloads ? o->workloads
					    : DEFAULT_WORKLOADS) < 0)
		return 2;
	/* The report goes where the machine-readable output does not. */
	b->rep = (o->json_file && !strcmp(o->json_file, "-")) ||
			 (o->csv_file && !strcmp(o->csv_file, "-"))
		     ? stderr
		     : stdout;
	if (open_out(o->json_file, &b->json_f) < 0 ||
	    open_out(o->csv_file, &b->csv_f) < 0)
		return 1;
	return 0;
}

/* Start what the runs connect to (the embedded server, the replay pump,
 * or nothing for a real server) and say how many workloads it serves.
 * 0 or -1 (logged). */
static int start_source(struct bench *b, int *n_wl)
{
	const struct options *o = b->opt;

	*n_wl = 1;
	if (o->host) {
		b->host = o->host;
		b->port = o->port;
	} else if (b->replay) {
		replaysrv_set_push(b->replay, (enum push_mode)o->push,
				   o->link ? b->link_cfg.rtt_ns / 2 : 0);
		if (replaysrv_start(b->replay, 0, true) < 0)
			return -1;
		b->host = "127.0.0.1";
		b->port = replaysrv_port(b->replay);
	} else {
		b->srv = benchsrv_start(desk_width(&b->out), b->out.height,
					&b->sfmt);
		if (!b->srv)
			return -1;
		b->host = "127.0.0.1";
		b->port = benchsrv_port(b->srv);
		*n_wl = b->n_workloads;
		if (wants_fit(b) && start_fit_server(b) < 0)
			return -1;
	}
	if (o->link) {
		char d[80];

		/* The runs connect to it; b->host and b->port stay the
		 * server's, for the report. */
		b->link = link_start(&b->link_cfg, 0, b->host, b->port);
		if (!b->link)
			return -1;
		link_describe(&b->link_cfg, d, sizeof(d));
		log_info("bench: through an emulated link: %s", d);
	}
	return 0;
}

/* The runs of workload wl into rs: per core the blitter, then (except
 * when nothing is drawn) the memcpy reference; then the bare decode
 * loop. fit: per core the scaled blitter and the 1:1 one it is priced
 * against; then the bare decode of the scaled stream. Over --link, the
 * blitter alone. Returns how many. */
static int plan_runs(struct bench *b, int wl, struct run *rs)
{
	int j, n = 0;

	for (j = 0; j < b->n_cpus; j++) {
		if (wl == BENCH_FIT) {
			rs[n].kind = RUN_PIPELINE;
			rs[n].scaled = true;
			rs[n++].cpu = b->cpus[j];
			rs[n].kind = RUN_PIPELINE;
			rs[n++].cpu = b->cpus[j];
			continue;
		}
		rs[n].kind = RUN_PIPELINE;
		rs[n++].cpu = b->cpus[j];
		/* The references price the render path, which a link does
		 * not change: over one, the viewer alone. */
		if (wl == BENCH_IDLE || b->link)
			continue;
		rs[n].kind = RUN_MEMCPY;
		rs[n++].cpu = b->cpus[j];
	}
	/* libvncclient's decoders have no Open H.264. */
	if (!b->link && !vnc_encodings_name(b->opt->encodings, "h264")) {
		rs[n].kind = RUN_BARE;
		rs[n].scaled = wl == BENCH_FIT;
		rs[n++].cpu = -1;
	} else if (!b->link && b->n_runs == 0) {
		log_info("bench: no bare loop: libvncclient's decoders have no "
			 "Open H.264 (tests/bench/bench_h264 compares with a "
			 "bare libavcodec loop)");
	}
	for (j = 0; j < n; j++) {
		rs[j].workload = wl;
		rs[j].actual_cpu = -1;
		rs[j].r_memcpy = rs[j].r_memcpy_cpu = NAN;
		rs[j].r_bare = rs[j].r_best = NAN;
		rs[j].r_fit_cpu = rs[j].r_fit_wall = NAN;
		plan_view(b, &rs[j]);
	}
	return n;
}

/* Every run of every workload, slice by slice, rotating who goes first
 * each round. 0 or -1 (logged). */
static int measure_all(struct bench *b, int n_wl)
{
	const struct options *o = b->opt;
	int i, j, k, nconf, rounds;

	b->runs = calloc((size_t)n_wl * (size_t)(2 * b->n_cpus + 1),
			 sizeof(*b->runs));
	if (!b->runs) {
		log_error("bench: out of memory");
		return -1;
	}
	rounds = (int)ceil(b->duration / SEGMENT_S - 1e-9);
	if (b->replay) /* a play per slice */
		rounds = o->repeat ? o->repeat : REPLAY_PLAYS;
	if (rounds < 1)
		rounds = 1;
	b->rounds = rounds;
	for (i = 0; i < n_wl; i++) {
		int wl = o->host    ? -1
			 : b->replay ? BENCH_REPLAY
				     : b->workloads[i];
		struct run *rs = &b->runs[b->n_runs];

		nconf = plan_runs(b, wl, rs);
		log_info("bench: %s: %d configurations, %d slice%s of %.2f s "
			 "each",
			 bench_workload_name(rs), nconf, rounds,
			 rounds > 1 ? "s" : "", b->duration / rounds);
		for (k = 0; k < rounds; k++)
			for (j = 0; j < nconf; j++)
				if (bench_measure(b, &rs[(j + k) % nconf],
						  b->duration / rounds) < 0)
					return -1;
		b->n_runs += nconf;
	}
	return 0;
}

int bench_run(struct options *o)
{
	struct bench b;
	int ret, n_wl;

	if (o->record_file)
		return recorder_run(o);
	if (o->rotate)
		return bench_rotate(o);
	memset(&b, 0, sizeof(b));
	if (o->link && bench_parse_link(o->link, &b.link_cfg) < 0)
		return 2;
	if (o->replay_file && o->serve_port >= 0)
		return replaysrv_serve(o, o->link ? &b.link_cfg : NULL);
	ret = plan_bench(&b, o);
	if (ret)
		goto out_files;
	ret = 1;
	b.sigfd = signals_setup();
	if (b.sigfd < 0)
		goto out_files;
	if (console_open(&b.out, b.out_spec, 0) < 0)
		goto out_files;
	pixfmt_shadow_for(&b.out.fmt, &b.sfmt);
	ret = 2;
	if (b.replay && replaysrv_check_bench(b.replay, &b.sfmt) < 0)
		goto out_output;
	if (!o->host && !b.replay && wants_fit(&b) &&
	    plan_fit(&b, o->workloads != NULL) < 0)
		goto out_output;
	if (plan_cpus(&b) < 0)
		goto out_output;
	ret = 1;
	if (start_source(&b, &n_wl) < 0)
		goto out_server;
	if (measure_all(&b, n_wl) < 0)
		goto out_runs;
	compare(&b);
	bench_report(&b);
	ret = 0;
out_runs:
	free_runs(&b);
out_server:
	link_stop(b.link);
	benchsrv_stop(b.srv_fit);
	benchsrv_stop(b.srv);
out_output:
	console_close(&b.out);
out_files:
	if (close_out(b.json_f, o->json_file) < 0 ||
	    close_out(b.csv_f, o->csv_file) < 0)
		ret = ret ? ret : 1;
	replaysrv_close(b.replay);
	return ret;
}
