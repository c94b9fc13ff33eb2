/* vncfb bench's reports: the runs, summarised and compared with their
 * references (in bench.c), as tables, latency histograms and targets
 * for the reader, and as JSON and CSV for tools. */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/bench/bench_priv.h"
#include "tools/bench/benchsrv.h"
#include "util/json.h"
#include "output/output.h"
#include "shadow/pixfmt.h"
#include "util/stats.h"
#include "view/view.h"

/* Width of the "run" column, at least. */
#define LABEL_MIN 15
#define NS_PER_MS 1e6

double bench_ms(uint64_t ns)
{
	return (double)ns / NS_PER_MS;
}

const char *bench_workload_name(const struct run *r)
{
	if (r->workload == BENCH_REPLAY)
		return "replay";
	return r->workload < 0 ? "remote" : benchsrv_workload_name(r->workload);
}

const char *bench_kind_name(const struct run *r)
{
	return r->kind == RUN_BARE     ? "bare"
	       : r->kind == RUN_MEMCPY ? "memcpy"
				       : "pipeline";
}

void bench_cpu_label(const struct run *r, char *buf, size_t len)
{
	if (r->cpu < 0)
		snprintf(buf, len, "unpinned");
	else
		snprintf(buf, len, "core %d", r->cpu);
}

/* What the "run" column says: the kind and core, and for the fit
 * workload which desktop went onto which screen. */
void bench_run_label(const struct bench *b, const struct run *r, char *buf,
		     size_t len)
{
	const char *pre = r->kind == RUN_MEMCPY ? "memcpy " : "";
	char where[24], view[48] = "";

	if (r->workload == BENCH_FIT) {
		if (r->kind == RUN_BARE) {
			snprintf(buf, len, "bare decode %ux%u", r->desk_w,
				 r->desk_h);
			return;
		}
		if (r->scaled)
			snprintf(view, sizeof(view), "%ux%u->%ux%u ", r->desk_w,
				 r->desk_h, b->out.width, b->out.height);
		else
			snprintf(view, sizeof(view), "1:1 %ux%u ", b->out.width,
				 b->out.height);
	}
	if (r->kind == RUN_BARE) {
		snprintf(buf, len, "bare decode");
		return;
	}
	bench_cpu_label(r, where, sizeof(where));
	snprintf(buf, len, "%s%s%s", pre, view, where);
}

/* The throughput table also says where a pinned blitter really ran. */
static void run_label_ran(const struct bench *b, const struct run *r, char *buf,
			  size_t len)
{
	size_t k;

	bench_run_label(b, r, buf, len);
	k = strlen(buf);
	if (r->kind == RUN_PIPELINE && r->cpu >= 0 && r->actual_cpu >= 0 &&
	    r->actual_cpu != r->cpu && k < len)
		snprintf(buf + k, len - k, " (ran %d)", r->actual_cpu);
}

static int label_width(const struct bench *b)
{
	char lab[LABEL_LEN];
	int i, w = LABEL_MIN;

	for (i = 0; i < b->n_runs; i++) {
		run_label_ran(b, &b->runs[i], lab, sizeof(lab));
		if ((int)strlen(lab) > w)
			w = (int)strlen(lab);
	}
	return w;
}

static double ups(const struct run *r)
{
	return r->window_s > 0 ? (double)r->updates / r->window_s : 0;
}

static double mbps(const struct run *r)
{
	return r->window_s > 0 ? (double)r->bytes_out / r->window_s / 1e6 : 0;
}

double bench_cpu_pct(const struct run *r)
{
	return r->window_s > 0 ? (double)(r->cpu_main_ns + r->cpu_blit_ns) /
				     (r->window_s * 1e9) * 100
			       : 0;
}

static double cpu_us_per_update(const struct run *r, uint64_t ns)
{
	return r->updates ? (double)ns / 1e3 / (double)r->updates : NAN;
}

/* A table's cell: v to three decimals, or three significant digits
 * where sig; "-" where there is no value (NAN). */
static void fmt_num(char *buf, size_t len, double v, bool sig)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, sig ? "%.3g" : "%.3f", v);
}

/* v of the summary s in ms, "-" where s holds no samples. */
static double summary_ms(const struct summary *s, uint64_t v)
{
	return s->n ? bench_ms(v) : NAN;
}

static void fmt_ms(char *buf, size_t len, const struct summary *s, uint64_t v)
{
	fmt_num(buf, len, summary_ms(s, v), false);
}

/* Full-frame updates per second (a replay's frames). */
static double fps(const struct run *r)
{
	return r->window_s > 0 ? (double)r->full_updates / r->window_s : NAN;
}

/* What the link carried to the client, per second; and as a share of its
 * rate. NAN without a link (or a rate). */
static double link_bps(const struct bench *b, const struct run *r)
{
	return b->link && r->window_s > 0 ? (double)r->link_bytes / r->window_s
					  : NAN;
}

static double link_use(const struct bench *b, const struct run *r)
{
	return b->link && b->link_cfg.rate_bps
		   ? link_bps(b, r) * 8 / (double)b->link_cfg.rate_bps
		   : NAN;
}

/* The share of the link's rate that carried rectangle payload (pixels,
 * not headers or fences): the link's use times the payload's share of
 * the bytes read in the windows. The share, not the payload's bytes
 * over the window: an update that came partly before the window (read
 * in it) would count bytes the link carried earlier. NAN without a
 * rate. */
static double pixel_use(const struct bench *b, const struct run *r)
{
	return r->rx_bytes ? link_use(b, r) * (double)r->payload_bytes /
				 (double)r->rx_bytes
			   : NAN;
}

/* Plays shorter than this many round trips (or than SHORT_PLAY_S)
 * measure how a stream starts and ends more than how it goes: the
 * queues that fill and drain, the last update's decoding. */
#define SHORT_PLAY_RTTS 20
#define SHORT_PLAY_S 1.0

static void print_short_plays(const struct bench *b, FILE *rep)
{
	double least = 0, rtt_s = (double)b->link_cfg.rtt_ns / 1e9;
	int i;

	if (!b->link)
		return;
	for (i = 0; i < b->n_runs; i++) {
		const struct run *r = &b->runs[i];
		double w;

		if (r->kind != RUN_PIPELINE || r->segments <= 0)
			continue;
		w = r->window_s / r->segments;
		if (least == 0 || w < least)
			least = w;
	}
	if (least > 0 &&
	    (least < SHORT_PLAY_S || least < SHORT_PLAY_RTTS * rtt_s))
		fprintf(rep,
			"(plays of %.2f s on average, short against the "
			"%.0f ms round trip: the link's use and\n the rates "
			"above weigh how the stream starts and ends; a "
			"recording of several\n seconds on the link measures "
			"its steady state)\n",
			least, rtt_s * 1e3);
}

/* Over a link, or from a replay: what the viewer showed, how fast, how
 * old, and how much of the link it used. */
static void print_link_table(struct bench *b, FILE *rep, int lw)
{
	char d[80];
	int i;

	if (!b->link && !b->replay)
		return;
	if (b->link)
		link_describe(&b->link_cfg, d, sizeof(d));
	fprintf(rep, "\nWhat the viewer showed, %s%s\n",
		b->link ? "through a link of " : "with no link",
		b->link ? d : "");
	fprintf(rep, "%-9s %-*s %9s %9s %10s %6s %6s %8s %8s\n", "workload", lw,
		"run", "updates/s", "frames/s", "MB/s link", "use", "pixels",
		"age med", "age p99");
	for (i = 0; i < b->n_runs; i++) {
		struct run *r = &b->runs[i];
		char lab[LABEL_LEN], c[6][24];

		if (r->kind != RUN_PIPELINE)
			continue;
		bench_run_label(b, r, lab, sizeof(lab));
		if (b->link)
			snprintf(c[0], 24, "%.3f", link_bps(b, r) / 1e6);
		else
			snprintf(c[0], 24, "-");
		if (isnan(link_use(b, r)))
			snprintf(c[1], 24, "-");
		else
			snprintf(c[1], 24, "%.0f%%", link_use(b, r) * 100);
		if (isnan(pixel_use(b, r)))
			snprintf(c[5], 24, "-");
		else
			snprintf(c[5], 24, "%.0f%%", pixel_use(b, r) * 100);
		fmt_ms(c[2], 24, &r->s_age, r->s_age.median);
		fmt_ms(c[3], 24, &r->s_age, r->s_age.p99);
		if (b->replay)
			snprintf(c[4], 24, "%.2f", fps(r));
		else
			snprintf(c[4], 24, "-");
		fprintf(rep, "%-9s %-*s %9.2f %9s %10s %6s %6s %8s %8s\n",
			bench_workload_name(r), lw, lab, ups(r), c[4], c[0],
			c[1], c[5], c[2], c[3]);
	}
	fprintf(rep, "(frames/s: updates of the whole desktop; MB/s link: "
		     "what the link carried to the viewer,\n use: as a share "
		     "of its rate; pixels: the share that was rectangle "
		     "payload, headers\n and fences left out; age, ms: the "
		     "pump begins to send an update -> its last\n rectangle "
		     "in the output)\n");
	print_short_plays(b, rep);
}

/* Three significant digits: passes range from microseconds to tens of
 * milliseconds. */
static void fmt_ms3(char *buf, size_t len, const struct summary *s, uint64_t v)
{
	fmt_num(buf, len, summary_ms(s, v), true);
}

static void fmt_ratio(char *buf, size_t len, double v)
{
	fmt_num(buf, len, v, false);
}

/* The fit workload: what a full-frame pass costs scaled and 1:1. */
static void print_fit_table(struct bench *b, int lw)
{
	FILE *rep = b->rep;
	int i;

	for (i = 0; i < b->n_runs; i++)
		if (b->runs[i].workload == BENCH_FIT &&
		    b->runs[i].kind == RUN_PIPELINE)
			break;
	if (i == b->n_runs)
		return;
	fprintf(rep,
		"\nFull-frame blits, %d:%d desktop scaled to fit against "
		"1:1, ms per pass\n",
		FIT_NUM, FIT_DEN);
	fprintf(rep, "%-9s %-*s %7s %8s %8s %8s %8s %8s %8s\n", "workload", lw,
		"run", "full", "cpu", "cpu p99", "wall", "wall p99", "/1:1 cpu",
		"/1:1 wall");
	for (i = 0; i < b->n_runs; i++) {
		struct run *r = &b->runs[i];
		char lab[LABEL_LEN], c[6][24];

		if (r->workload != BENCH_FIT || r->kind != RUN_PIPELINE)
			continue;
		bench_run_label(b, r, lab, sizeof(lab));
		fmt_ms3(c[0], 24, &r->s_full_cpu, r->s_full_cpu.median);
		fmt_ms3(c[1], 24, &r->s_full_cpu, r->s_full_cpu.p99);
		fmt_ms3(c[2], 24, &r->s_full, r->s_full.median);
		fmt_ms3(c[3], 24, &r->s_full, r->s_full.p99);
		fmt_ratio(c[4], 24, r->r_fit_cpu);
		fmt_ratio(c[5], 24, r->r_fit_wall);
		fprintf(rep, "%-9s %-*s %7zu %8s %8s %8s %8s %8s %8s\n",
			bench_workload_name(r), lw, lab, r->s_full.n, c[0],
			c[1], c[2], c[3], r->scaled ? c[4] : "-",
			r->scaled ? c[5] : "-");
	}
	fprintf(rep,
		"(full: passes that drew the desktop's whole place on the "
		"screen (coalesced or split passes\n"
		" are left out); cpu: the drawing thread's CPU time per such "
		"pass, wall: start to end;\n"
		" /1:1 cpu, /1:1 wall: the scaled run's medians over the 1:1 "
		"run's on the same core, the\n"
		" same frames from a desktop of the output's size, measured in "
		"the same rounds)\n");
}

/* An output that reports when a pass reached the display (the drm
 * output's page flips): how often, and how long after the pass. */
static void print_flip_table(struct bench *b, int lw)
{
	FILE *rep = b->rep;
	int i;

	for (i = 0; i < b->n_runs; i++)
		if (b->runs[i].flips)
			break;
	if (i == b->n_runs)
		return;
	fprintf(rep, "\nShown on the display (%s), per pass\n",
		b->out.impl->name);
	fprintf(rep, "%-9s %-*s %7s %8s %9s %9s %9s\n", "workload", lw, "run",
		"passes", "shown", "shown/s", "to shown", "p99");
	for (i = 0; i < b->n_runs; i++) {
		struct run *r = &b->runs[i];
		char lab[LABEL_LEN], c[3][24];

		if (!r->flips)
			continue;
		bench_run_label(b, r, lab, sizeof(lab));
		snprintf(c[0], 24, "%.1f",
			 r->window_s > 0 ? (double)r->flips / r->window_s : 0);
		fmt_ms3(c[1], 24, &r->s_flip, r->s_flip.median);
		fmt_ms3(c[2], 24, &r->s_flip, r->s_flip.p99);
		fprintf(rep, "%-9s %-*s %7llu %8llu %9s %9s %9s\n",
			bench_workload_name(r), lw, lab,
			(unsigned long long)r->passes,
			(unsigned long long)r->flips, c[0], c[1], c[2]);
	}
	fprintf(rep,
		"(shown: passes the output put on the display (a page flip, "
		"or the commit of a dirty\n"
		" rectangle); shown/s: over the window; to shown: ms from the "
		"pass's end to the flip event,\n"
		" median and p99)\n");
}

/* What was measured: the output, the server, the encodings, the plan. */
static void print_header(struct bench *b, FILE *rep)
{
	char fb[64];

	fprintf(rep, "\nvncfb bench: output %s %ux%u %s (stride %zu), ",
		b->out.impl->name, b->out.width, b->out.height,
		pixfmt_name(&b->out.fmt, fb, sizeof(fb)), b->out.stride);
	if (b->srv)
		fprintf(rep, "embedded server %ux%u, ", b->out.width,
			b->out.height);
	if (b->srv_fit)
		fprintf(rep, "and %ux%u for fit, ", b->fit_w, b->fit_h);
	else if (b->replay)
		fprintf(rep, "replay %s, ", b->opt->replay_file);
	else
		fprintf(rep, "server %s:%d, ", b->host, b->port);
	if (b->replay)
		fprintf(rep,
			"encodings \"%s\",\n%d interleaved plays per "
			"configuration (at most %.1f s each), %d cores "
			"online\n",
			b->encodings, b->rounds, b->duration / b->rounds,
			b->cpus_online);
	else
		fprintf(rep,
			"encodings \"%s\",\n%.1f s per configuration (in %d "
			"interleaved slices), %d cores online\n",
			b->encodings, b->duration, b->rounds, b->cpus_online);
	if (b->replay)
		replaysrv_describe(b->replay, b->opt->replay_file, rep);
	if (b->out.slow_cpu >= 0)
		fprintf(rep,
			"mem output slow-cpu=%d: writes from that core are "
			"flushed line by line, like uncached memory\n",
			b->out.slow_cpu);
}

/* Latency per update, from its first byte to its last rectangle drawn. */
static void print_latency(struct bench *b, FILE *rep, int lw)
{
	int i;

	print_link_table(b, rep, lw);
	fprintf(rep, "\nLatency per update, ms: first byte received -> last "
		     "rectangle in the output\n");
	fprintf(rep, "%-9s %-*s %7s %8s %8s %8s %8s %8s | %7s %7s %7s\n",
		"workload", lw, "run", "updates", "min", "median", "p95", "p99",
		"max", "rx+dec", "queue", "blit");
	for (i = 0; i < b->n_runs; i++) {
		struct run *r = &b->runs[i];
		char lab[LABEL_LEN], c[8][24];
		bool bare = r->kind == RUN_BARE;

		bench_run_label(b, r, lab, sizeof(lab));
		fmt_ms(c[0], 24, &r->s_total, r->s_total.min);
		fmt_ms(c[1], 24, &r->s_total, r->s_total.median);
		fmt_ms(c[2], 24, &r->s_total, r->s_total.p95);
		fmt_ms(c[3], 24, &r->s_total, r->s_total.p99);
		fmt_ms(c[4], 24, &r->s_total, r->s_total.max);
		fmt_ms(c[5], 24, &r->s_decode, r->s_decode.median);
		fmt_ms(c[6], 24, &r->s_queue, r->s_queue.median);
		fmt_ms(c[7], 24, &r->s_blit, r->s_blit.median);
		fprintf(rep,
			"%-9s %-*s %7llu %8s %8s %8s %8s %8s | %7s %7s %7s\n",
			bench_workload_name(r), lw, lab,
			(unsigned long long)r->updates, c[0], c[1], c[2], c[3],
			c[4], c[5], bare ? "-" : c[6], bare ? "-" : c[7]);
	}
	fprintf(rep, "(rx+dec, queue, blit: medians of the three parts. bare "
		     "decode: no blitter, latency ends when decoded.\n"
		     " memcpy: the blitter replaced by one memcpy of the same "
		     "bytes per pass, same core, same stream)\n");
}

/* Updates and bytes per second, CPU per update, against the bare loop. */
static void print_throughput(struct bench *b, FILE *rep, int lw)
{
	int i;

	fprintf(rep, "\nThroughput and CPU\n");
	fprintf(rep, "%-9s %-*s %8s %8s %10s %10s %7s %7s\n", "workload", lw,
		"run", "upd/s", "MB/s", "cpu us/up", "blit us/up", "cpu %",
		"/bare");
	for (i = 0; i < b->n_runs; i++) {
		struct run *r = &b->runs[i];
		char lab[LABEL_LEN], c[2][24];

		run_label_ran(b, r, lab, sizeof(lab));
		fmt_ratio(c[0], 24, r->r_bare);
		if (r->updates)
			snprintf(c[1], 24, "%.1f",
				 cpu_us_per_update(r, r->cpu_main_ns +
							  r->cpu_blit_ns));
		else
			snprintf(c[1], 24, "-");
		fprintf(rep, "%-9s %-*s %8.1f %8.1f %10s %10.1f %7.2f %7s\n",
			bench_workload_name(r), lw, lab, ups(r), mbps(r), c[1],
			r->updates ? cpu_us_per_update(r, r->cpu_blit_ns) : 0.0,
			bench_cpu_pct(r), c[0]);
	}
	fprintf(rep,
		"(upd/s: updates whose first byte came in the window; MB/s: "
		"into the output; cpu us/up: decoder +\n"
		" drawing threads per update; blit us/up: the drawing thread "
		"alone; cpu %%: both, as %% of one core;\n"
		" /bare: updates/s against the bare decode loop on the same "
		"stream, median over the rounds of\n"
		" slices measured back to back)\n");
}

/* Each drawing run's passes against the memcpy of the same bytes. */
static void print_blit(struct bench *b, FILE *rep, int lw)
{
	int i;

	fprintf(rep, "\nBlit against its references, medians per pass, ms\n");
	fprintf(rep, "%-9s %-*s %7s %8s %8s %8s %8s %8s %7s %7s %6s\n",
		"workload", lw, "run", "passes", "wall", "cpu", "memcpy",
		"mc cpu", "quiet", "/memcpy", "/mc cpu", "/best");
	for (i = 0; i < b->n_runs; i++) {
		struct run *r = &b->runs[i];
		const struct run *f = r->ref;
		char lab[LABEL_LEN], c[8][24];

		if (r->kind == RUN_BARE || !r->s_pass.n)
			continue;
		bench_run_label(b, r, lab, sizeof(lab));
		fmt_ms3(c[0], 24, &r->s_pass, r->s_pass.median);
		fmt_ms3(c[1], 24, &r->s_pass_cpu, r->s_pass_cpu.median);
		snprintf(c[2], 24, "-");
		snprintf(c[3], 24, "-");
		if (f) {
			fmt_ms3(c[2], 24, &f->s_pass, f->s_pass.median);
			fmt_ms3(c[3], 24, &f->s_pass_cpu, f->s_pass_cpu.median);
		}
		fmt_ms3(c[4], 24, &r->s_memcpy, r->s_memcpy.median);
		fmt_ratio(c[5], 24, r->r_memcpy);
		fmt_ratio(c[6], 24, r->r_memcpy_cpu);
		fmt_ratio(c[7], 24, r->r_best);
		fprintf(rep,
			"%-9s %-*s %7llu %8s %8s %8s %8s %8s %7s %7s %6s\n",
			bench_workload_name(r), lw, lab,
			(unsigned long long)r->passes, c[0], c[1], c[2], c[3],
			c[4], c[5], c[6], c[7]);
	}
	fprintf(rep,
		"(wall: pass start to end; cpu: the drawing thread's CPU time "
		"for the pass (no preemption);\n"
		" memcpy, mc cpu: the same for the memcpy run on the same core "
		"and stream; quiet: one memcpy of the\n"
		" median pass's bytes with nothing else running; /memcpy, /mc "
		"cpu: blit over memcpy; /best: wall\n"
		" against the fastest pinned core)\n");
}

/* The rectangles the server sent, by encoding, per run. */
static void print_encodings(struct bench *b, FILE *rep, int lw)
{
	int i;

	fprintf(rep,
		"\nServer encodings (rectangles sent, all slices including "
		"each connection's first full update):\n");
	for (i = 0; i < b->n_runs; i++) {
		struct run *r = &b->runs[i];
		char lab[LABEL_LEN];

		bench_run_label(b, r, lab, sizeof(lab));
		fprintf(rep, "  %-9s %-*s %s\n", bench_workload_name(r), lw,
			lab, r->encoding);
	}
}

static void print_tables(struct bench *b)
{
	int lw = label_width(b);
	int i;

	print_header(b, b->rep);
	print_latency(b, b->rep, lw);
	print_throughput(b, b->rep, lw);
	for (i = 0; i < b->n_runs; i++)
		if (b->runs[i].kind != RUN_BARE && b->runs[i].s_pass.n)
			break;
	/* Nothing was drawn (idle): no blit tables. */
	if (i < b->n_runs) {
		print_blit(b, b->rep, lw);
		print_fit_table(b, lw);
		print_flip_table(b, lw);
	}
	print_encodings(b, b->rep, lw);
}

static void json_summary(FILE *f, const char *name, const struct summary *s,
			 bool comma)
{
	if (!s->n)
		fprintf(f, "\"%s\": {\"n\": 0}", name);
	else
		fprintf(f,
			"\"%s\": {\"n\": %zu, \"min\": %.6f, \"median\": "
			"%.6f, \"p95\": %.6f, \"p99\": %.6f, \"max\": %.6f}",
			name, s->n, bench_ms(s->min), bench_ms(s->median),
			bench_ms(s->p95), bench_ms(s->p99), bench_ms(s->max));
	if (comma)
		fputs(", ", f);
}

static void json_num(FILE *f, const char *name, double v, bool comma)
{
	if (isnan(v) || isinf(v))
		fprintf(f, "\"%s\": null", name);
	else
		fprintf(f, "\"%s\": %.6f", name, v);
	if (comma)
		fputs(", ", f);
}

/* One run's object of the "runs" array, without its closing "}". */
static void write_json_run(struct bench *b, FILE *f, struct run *r)
{
	char lab[LABEL_LEN + 16], sc[16];

	fprintf(f, "    {\"workload\": \"%s\", \"kind\": \"%s\", ",
		bench_workload_name(r), bench_kind_name(r));
	snprintf(lab, sizeof(lab), "%s ", bench_workload_name(r));
	bench_run_label(b, r, lab + strlen(lab), sizeof(lab) - strlen(lab));
	fprintf(f, "\"label\": ");
	json_write_string(f, lab);
	fprintf(f,
		", \"desktop\": {\"width\": %u, \"height\": %u}, "
		"\"scale\": ",
		r->desk_w, r->desk_h);
	if (r->kind == RUN_BARE)
		fprintf(f, "null, ");
	else
		fprintf(f, "\"%s\", ",
			scale_name(r->scale, r->zoom, sc, sizeof(sc)));
	if (r->kind == RUN_BARE || r->cpu < 0)
		fprintf(f, "\"cpu\": null, ");
	else
		fprintf(f, "\"cpu\": %d, ", r->cpu);
	fprintf(f, "\"actual_cpu\": %d, \"encoding\": ", r->actual_cpu);
	json_write_string(f, r->encoding);
	fprintf(f,
		", \"server_bytes\": %llu, \"window_s\": %.6f, "
		"\"updates\": %llu, \"passes\": %llu, \"bytes_out\": "
		"%llu, ",
		(unsigned long long)r->server_bytes, r->window_s,
		(unsigned long long)r->updates,
		(unsigned long long)r->passes,
		(unsigned long long)r->bytes_out);
	json_num(f, "updates_per_s", ups(r), true);
	fprintf(f, "\"slice_updates\": [");
	for (size_t k = 0; k < r->slice_updates.n; k++)
		fprintf(f, "%s%llu", k ? ", " : "",
			(unsigned long long)r->slice_updates.v[k]);
	/* To the nanosecond: a short play's rate (a bare decode of a few
	 * updates is well under a millisecond) stays exact from here. */
	fprintf(f, "], \"slice_s\": [");
	for (size_t k = 0; k < r->slice_ns.n; k++)
		fprintf(f, "%s%.9f", k ? ", " : "",
			(double)r->slice_ns.v[k] / 1e9);
	fprintf(f, "], ");
	json_num(f, "mb_per_s", mbps(r), true);
	fprintf(f, "\n     \"full_updates\": %llu, ",
		(unsigned long long)r->full_updates);
	json_num(f, "frames_per_s", b->replay ? fps(r) : NAN, true);
	json_num(f, "link_bytes_per_s", link_bps(b, r), true);
	json_num(f, "link_use", link_use(b, r), true);
	json_num(f, "pixel_use", pixel_use(b, r), true);
	json_summary(f, "age_ms", &r->s_age, true);
	fprintf(f, "\n     \"latency_ms\": {");
	json_summary(f, "total", &r->s_total, true);
	json_summary(f, "recv_decode", &r->s_decode, true);
	json_summary(f, "queue", &r->s_queue, true);
	json_summary(f, "blit", &r->s_blit, false);
	fprintf(f, "},\n     ");
	json_summary(f, "pass_ms", &r->s_pass, true);
	json_summary(f, "pass_cpu_ms", &r->s_pass_cpu, true);
	fprintf(f, "\n     ");
	json_summary(f, "full_pass_ms", &r->s_full, true);
	json_summary(f, "full_pass_cpu_ms", &r->s_full_cpu, true);
	fprintf(f, "\n     \"flips\": %llu, ",
		(unsigned long long)r->flips);
	json_num(f, "flips_per_s",
		 r->window_s > 0 ? (double)r->flips / r->window_s : NAN,
		 true);
	json_summary(f, "blit_end_to_flip_ms", &r->s_flip, true);
	fprintf(f, "\n     \"memcpy_quiet\": {\"bytes\": %llu, ",
		(unsigned long long)r->ref_bytes);
	json_summary(f, "ms", &r->s_memcpy, false);
	fprintf(f, "},\n     \"cpu_time\": {");
	json_num(f, "main_ms", bench_ms(r->cpu_main_ns), true);
	json_num(f, "blit_ms", bench_ms(r->cpu_blit_ns), true);
	json_num(f, "process_ms", bench_ms(r->cpu_proc_ns), true);
	json_num(f, "us_per_update",
		 cpu_us_per_update(r, r->cpu_main_ns + r->cpu_blit_ns),
		 true);
	json_num(f, "pct_of_core", bench_cpu_pct(r), false);
	fprintf(f, "},\n     \"ratios\": {");
	json_num(f, "blit_vs_memcpy", r->r_memcpy, true);
	json_num(f, "blit_vs_memcpy_cpu", r->r_memcpy_cpu, true);
	json_num(f, "updates_vs_bare", r->r_bare, true);
	json_num(f, "blit_vs_best_core", r->r_best, true);
	json_num(f, "full_cpu_vs_unscaled", r->r_fit_cpu, true);
	json_num(f, "full_wall_vs_unscaled", r->r_fit_wall, false);
}

static void write_json(struct bench *b, FILE *f, const struct target *t, int nt)
{
	char fb[64];
	int i;

	fprintf(f, "{\n  \"vncfb_bench\": 1,\n  \"version\": ");
	json_write_string(f, VNCFB_VERSION);
	fprintf(f, ",\n  \"output\": {\"spec\": ");
	json_write_string(f, b->out_spec);
	fprintf(f, ", \"name\": ");
	json_write_string(f, b->out.impl->name);
	fprintf(f,
		", \"width\": %u, \"height\": %u, \"format\": \"%s\", "
		"\"stride\": %zu, \"slow_cpu\": %d},\n",
		b->out.width, b->out.height,
		pixfmt_name(&b->out.fmt, fb, sizeof(fb)), b->out.stride,
		b->out.slow_cpu);
	fprintf(f, "  \"server\": ");
	if (b->srv) {
		fprintf(f, "\"embedded\"");
	} else {
		char hp[300];

		snprintf(hp, sizeof(hp), "%s:%d", b->host, b->port);
		json_write_string(f, hp);
	}
	fprintf(f, ",\n  \"fit_desktop\": ");
	if (b->srv_fit)
		fprintf(f, "{\"width\": %u, \"height\": %u}", b->fit_w,
			b->fit_h);
	else
		fprintf(f, "null");
	fprintf(f, ",\n  \"encodings\": ");
	json_write_string(f, b->encodings);
	fprintf(f, ",\n  \"link\": ");
	if (b->link)
		fprintf(f,
			"{\"rtt_ms\": %.6f, \"rate_bit_per_s\": %llu, "
			"\"queue_bytes\": %u}",
			(double)b->link_cfg.rtt_ns / 1e6,
			(unsigned long long)b->link_cfg.rate_bps,
			LINK_QUEUE_BYTES);
	else
		fprintf(f, "null");
	fprintf(f, ",\n  \"push\": ");
	if (b->replay)
		fprintf(f, "\"%s\"",
			b->opt->push == PUSH_FAST	? "fast"
			: b->opt->push == PUSH_RECORDED ? "recorded"
							: "requests");
	else
		fprintf(f, "null");
	fprintf(f,
		",\n  \"duration_s\": %.3f,\n  \"slices\": %d,\n  "
		"\"cpus_online\": %d,\n",
		b->duration, b->rounds, b->cpus_online);
	fprintf(f, "  \"runs\": [\n");
	for (i = 0; i < b->n_runs; i++) {
		write_json_run(b, f, &b->runs[i]);
		fprintf(f, "}}%s\n", i + 1 < b->n_runs ? "," : "");
	}
	fprintf(f, "  ],\n  \"targets\": [\n");
	for (i = 0; i < nt; i++) {
		fprintf(f, "    {\"what\": ");
		json_write_string(f, t[i].what);
		fprintf(f, ", ");
		json_num(f, "value", t[i].value, true);
		fprintf(f, "\"limit\": %g, \"op\": \"%s\", \"met\": %s}%s\n",
			t[i].limit,
			t[i].at_most ? "<=" : ">=", t[i].met ? "true" : "false",
			i + 1 < nt ? "," : "");
	}
	fprintf(f, "  ]\n}\n");
}

static void csv_num(FILE *f, double v)
{
	if (isnan(v) || isinf(v))
		fputs(",", f);
	else
		fprintf(f, ",%.6f", v);
}

static void csv_ms(FILE *f, const struct summary *s, uint64_t v)
{
	csv_num(f, summary_ms(s, v));
}

static void write_csv(struct bench *b, FILE *f)
{
	char fb[64];
	int i;

	pixfmt_name(&b->out.fmt, fb, sizeof(fb));
	fprintf(f, "workload,kind,cpu,actual_cpu,output,width,height,format,"
		   "encoding,window_s,updates,updates_per_s,mb_per_s,"
		   "lat_min_ms,lat_median_ms,lat_p95_ms,lat_p99_ms,lat_max_ms,"
		   "recv_decode_median_ms,queue_median_ms,blit_median_ms,"
		   "pass_median_ms,pass_cpu_median_ms,memcpy_quiet_bytes,"
		   "memcpy_quiet_median_ms,"
		   "cpu_us_per_update,cpu_pct_of_core,blit_vs_memcpy,"
		   "blit_vs_memcpy_cpu,"
		   "updates_vs_bare,blit_vs_best_core,"
		   "label,desktop_width,desktop_height,scale,full_passes,"
		   "full_pass_median_ms,full_pass_p99_ms,"
		   "full_pass_cpu_median_ms,full_pass_cpu_p99_ms,"
		   "full_cpu_vs_unscaled,full_wall_vs_unscaled\n");
	for (i = 0; i < b->n_runs; i++) {
		struct run *r = &b->runs[i];
		char enc[sizeof(r->encoding)], lab[LABEL_LEN], sc[16];
		size_t k;

		/* No commas inside a field. */
		snprintf(enc, sizeof(enc), "%s", r->encoding);
		for (k = 0; enc[k]; k++)
			if (enc[k] == ',' || enc[k] == '"')
				enc[k] = ' ';
		fprintf(f, "%s,%s,", bench_workload_name(r),
			bench_kind_name(r));
		if (r->kind != RUN_BARE && r->cpu >= 0)
			fprintf(f, "%d", r->cpu);
		fprintf(f, ",%d,%s,%u,%u,%s,%s,%.6f,%llu", r->actual_cpu,
			b->out.impl->name, b->out.width, b->out.height, fb, enc,
			r->window_s, (unsigned long long)r->updates);
		csv_num(f, ups(r));
		csv_num(f, mbps(r));
		csv_ms(f, &r->s_total, r->s_total.min);
		csv_ms(f, &r->s_total, r->s_total.median);
		csv_ms(f, &r->s_total, r->s_total.p95);
		csv_ms(f, &r->s_total, r->s_total.p99);
		csv_ms(f, &r->s_total, r->s_total.max);
		csv_ms(f, &r->s_decode, r->s_decode.median);
		csv_ms(f, &r->s_queue, r->s_queue.median);
		csv_ms(f, &r->s_blit, r->s_blit.median);
		csv_ms(f, &r->s_pass, r->s_pass.median);
		csv_ms(f, &r->s_pass_cpu, r->s_pass_cpu.median);
		fprintf(f, ",%llu", (unsigned long long)r->ref_bytes);
		csv_ms(f, &r->s_memcpy, r->s_memcpy.median);
		csv_num(f,
			cpu_us_per_update(r, r->cpu_main_ns + r->cpu_blit_ns));
		csv_num(f, bench_cpu_pct(r));
		csv_num(f, r->r_memcpy);
		csv_num(f, r->r_memcpy_cpu);
		csv_num(f, r->r_bare);
		csv_num(f, r->r_best);
		bench_run_label(b, r, lab, sizeof(lab));
		fprintf(f, ",%s %s,%u,%u,%s,%zu", bench_workload_name(r), lab,
			r->desk_w, r->desk_h,
			r->kind == RUN_BARE
			    ? ""
			    : scale_name(r->scale, r->zoom, sc, sizeof(sc)),
			r->s_full.n);
		csv_ms(f, &r->s_full, r->s_full.median);
		csv_ms(f, &r->s_full, r->s_full.p99);
		csv_ms(f, &r->s_full_cpu, r->s_full_cpu.median);
		csv_ms(f, &r->s_full_cpu, r->s_full_cpu.p99);
		csv_num(f, r->r_fit_cpu);
		csv_num(f, r->r_fit_wall);
		fputc('\n', f);
	}
}

static void format_encodings(struct bench *b, struct run *r)
{
	size_t used = 0;
	int i, k;

	if (!b->srv) {
		snprintf(r->encoding, sizeof(r->encoding), "asked: %s",
			 b->encodings);
		return;
	}
	for (i = 0; i < BENCHSRV_ENCODINGS; i++) {
		if (!r->enc_rects[i])
			continue;
		k = snprintf(r->encoding + used, sizeof(r->encoding) - used,
			     "%s%s %llu", used ? " + " : "",
			     benchsrv_encoding_name(i),
			     (unsigned long long)r->enc_rects[i]);
		if (k < 0 || (size_t)k >= sizeof(r->encoding) - used)
			break;
		used += (size_t)k;
	}
	if (!used)
		snprintf(r->encoding, sizeof(r->encoding), "none");
}

void bench_report(struct bench *b)
{
	struct target *targets;
	int i, nt, max_targets;

	for (i = 0; i < b->n_runs; i++)
		format_encodings(b, &b->runs[i]);
	print_tables(b);
	for (i = 0; i < b->n_runs; i++)
		if (b->runs[i].kind == RUN_PIPELINE)
			bench_print_histogram(b, b->rep, &b->runs[i]);
	max_targets = 4 * b->n_runs + 1;
	targets = calloc((size_t)max_targets, sizeof(*targets));
	nt = targets ? bench_collect_targets(b, targets, max_targets) : 0;
	if (b->replay)
		replaysrv_report(b->replay, b->rep);
	bench_print_targets(b->rep, targets, nt);
	fflush(b->rep);
	if (b->json_f)
		write_json(b, b->json_f, targets, nt);
	if (b->csv_f)
		write_csv(b, b->csv_f);
	free(targets);
}
