/* vncfb bench's latency histograms and targets (bench_priv.h): what
 * bench_report prints after the tables, and the targets its JSON holds. */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "tools/bench/bench_priv.h"
#include "output/output.h"
#include "util/stats.h"

#define HIST_ROWS 24

void bench_print_histogram(const struct bench *b, FILE *rep,
			   const struct run *r)
{
	/* Log-spaced buckets from the fastest sample to the slowest, at
	 * least a quarter-octave wide. */
	uint64_t counts[HIST_ROWS], maxc = 0;
	double lo, step;
	int i, first = HIST_ROWS, last = -1, shown;
	char lab[LABEL_LEN];
	size_t k;

	if (!r->s_total.n)
		return;
	lo = (double)r->s_total.min;
	if (lo < 1000)
		lo = 1000;
	step = pow((double)r->s_total.max / lo, 1.0 / HIST_ROWS) * 1.0001;
	if (step < pow(2.0, 0.25))
		step = pow(2.0, 0.25);
	memset(counts, 0, sizeof(counts));
	for (k = 0; k < r->total.n; k++) {
		double v = (double)r->total.v[k];
		int bkt = v <= lo ? 0 : (int)floor(log(v / lo) / log(step));

		if (bkt >= HIST_ROWS)
			bkt = HIST_ROWS - 1;
		counts[bkt]++;
	}
	for (i = 0; i < HIST_ROWS; i++) {
		if (counts[i] > maxc)
			maxc = counts[i];
		if (counts[i] && i < first)
			first = i;
		if (counts[i])
			last = i;
	}
	bench_run_label(b, r, lab, sizeof(lab));
	fprintf(rep, "\n%s, %s: latency histogram (%zu updates)\n",
		bench_workload_name(r), lab, r->s_total.n);
	for (i = first, shown = 0; i <= last; i++, shown++) {
		double a = lo * pow(step, i), z = lo * pow(step, i + 1);
		int bar = (int)((counts[i] * 50 + maxc - 1) / maxc);

		if (i == HIST_ROWS - 1)
			fprintf(rep, "  %8.3f -    more ms |",
				bench_ms((uint64_t)a));
		else
			fprintf(rep, "  %8.3f - %8.3f ms |",
				bench_ms((uint64_t)a), bench_ms((uint64_t)z));
		fprintf(rep, "%.*s%*s %llu\n", bar,
			"##################################################",
			50 - bar, "", (unsigned long long)counts[i]);
	}
}

static void add_target(struct target *t, int *n, int max, double value,
		       double limit, bool at_most, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));

static void add_target(struct target *t, int *n, int max, double value,
		       double limit, bool at_most, const char *fmt, ...)
{
	struct target *x;
	va_list ap;

	if (*n >= max || isnan(value))
		return;
	x = &t[(*n)++];
	x->value = value;
	x->limit = limit;
	x->at_most = at_most;
	x->met = at_most ? value <= limit : value >= limit;
	va_start(ap, fmt);
	vsnprintf(x->what, sizeof(x->what), fmt, ap);
	va_end(ap);
}

int bench_collect_targets(struct bench *b, struct target *t, int max)
{
	int n = 0, i, j;
	bool is1080 = b->out.impl == &output_mem_impl && b->out.width == 1920 &&
		      b->out.height == 1080 && b->out.fmt.bpp == 32;

	for (i = 0; i < b->n_runs; i++) {
		struct run *r = &b->runs[i];
		char lab[LABEL_LEN], where[24];

		if (r->kind != RUN_PIPELINE)
			continue;
		bench_run_label(b, r, lab, sizeof(lab));
		bench_cpu_label(r, where, sizeof(where));
		/* Unpinned may land on the slow core: no target then. */
		if (b->out.slow_cpu >= 0 && r->cpu < 0)
			continue;
		if (r->workload == BENCH_FULLFRAME &&
		    r->cpu != b->out.slow_cpu) {
			add_target(t, &n, max, r->r_memcpy, 1.05, true,
				   "fullframe blit/memcpy wall, %s%s", lab,
				   is1080 ? " (1080p mem)" : "");
			add_target(t, &n, max, r->r_memcpy_cpu, 1.05, true,
				   "fullframe blit/memcpy cpu, %s%s", lab,
				   is1080 ? " (1080p mem)" : "");
		}
		if (r->workload != BENCH_IDLE && r->cpu >= 0 &&
		    r->cpu != b->out.slow_cpu)
			add_target(t, &n, max, r->r_bare, 0.95, false,
				   "%s updates/s pinned/bare, %s",
				   bench_workload_name(r), lab);
		if (r->workload == BENCH_IDLE)
			add_target(t, &n, max, bench_cpu_pct(r), 0.5, true,
				   "idle CPU %% of a core, %s", lab);
		/* Issue 8: scaling 1080p to 720p costs at most twice a
		 * 720p blit, both measured here in the same rounds. Not on
		 * the slow-cpu core, where the writes hide the scaler. */
		if (r->workload == BENCH_FIT && r->scaled &&
		    r->cpu != b->out.slow_cpu)
			add_target(t, &n, max, r->r_fit_cpu, FIT_TARGET, true,
				   "fit %d:%d full-frame blit cpu "
				   "scaled/unscaled, %s",
				   FIT_NUM, FIT_DEN, where);
	}
	/* The slow core against the fastest other pinned core. */
	for (i = 0; b->out.slow_cpu >= 0 && i < b->n_runs; i++) {
		struct run *r = &b->runs[i];
		const struct run *best = NULL;

		if (r->kind != RUN_PIPELINE || r->cpu != b->out.slow_cpu ||
		    !r->s_pass.n)
			continue;
		for (j = 0; j < b->n_runs; j++) {
			struct run *o = &b->runs[j];

			if (o->kind == RUN_PIPELINE &&
			    o->workload == r->workload &&
			    o->scaled == r->scaled && o->cpu >= 0 &&
			    o->cpu != r->cpu && o->s_pass.n &&
			    (!best || o->s_pass.median < best->s_pass.median))
				best = o;
		}
		if (best)
			add_target(t, &n, max,
				   (double)r->s_pass.median /
				       (double)best->s_pass.median,
				   5, false,
				   "%s %sblit core %d (slow-cpu) / core %d",
				   bench_workload_name(r),
				   r->workload != BENCH_FIT ? ""
				   : r->scaled		    ? "scaled "
							    : "1:1 ",
				   r->cpu, best->cpu);
	}
	return n;
}

void bench_print_targets(FILE *rep, const struct target *t, int n)
{
	int i;

	if (!n)
		return;
	fprintf(rep, "\nTargets\n");
	for (i = 0; i < n; i++)
		fprintf(rep, "  %-58s %8.3f %s %-5g %s\n", t[i].what,
			t[i].value, t[i].at_most ? "<=" : ">=", t[i].limit,
			t[i].met ? "met" : "NOT MET");
}
