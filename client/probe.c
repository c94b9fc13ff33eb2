/* The core probe: per-core framebuffer write timing and the choice of the
 * blit thread's core; also the `vncfb probe` command. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "console.h"
#include "json.h"
#include "log.h"
#include "opts.h"
#include "output.h"
#include "platform.h"
#include "probe.h"
#include "signals.h"
#include "stats.h"

/* Long enough for a core to leave its idle clock; short enough that many
 * cores still start quickly. */
#define WARMUP_NS 4000000ull
/* One timed write should take about this long on any core: short enough
 * that a busy machine rarely preempts the probe in the middle of one (a
 * preempted sample would look slow for the wrong reason), long enough for
 * the clock to resolve. Slow cores therefore write fewer rows per sample. */
#define SAMPLE_TARGET_NS 300000ull
/* Rows timed once to size the samples of a core. */
#define CALIBRATE_ROWS 4u
/* A core is clearly slow once its median time is this many times the
 * fastest core's so far; then it gets no more samples. */
#define EARLY_STOP_FACTOR 4.0
/* Neither the budget nor the early stop cuts a core below this many
 * samples: on a shared machine one sample in a few can be preempted, and
 * the median of five still ignores two of them. Samples are short
 * (SAMPLE_TARGET_NS), so this costs little even on a slow core. */
#define MIN_SAMPLES 5

struct job {
	struct output *out;
	clockid_t clock;	/* what samples are timed with */
	uint8_t *ram;		/* control buffer, stripe_rows * stride */
	const uint8_t *src;	/* one row of what the screen shows anyway */
	uint32_t stripe_rows;	/* most rows a sample writes */
	size_t row_bytes;
	int cpu;		/* -1: stay unpinned */
	int samples;
	bool budgeted;
	double best_row_ns;	/* fastest core so far, per row; 0: none */
	uint64_t *fb_ns, *ram_ns;
	struct probe_core *res;
};

static uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* clock_getres() promises 1 ns whatever the kernel really accounts: a
 * guest whose sched_clock runs on jiffies (an unstable TSC, as under
 * QEMU's TCG) advances thread CPU time only at the tick, and every
 * 300 us sample then reads 0 (seen in CI). So spin up to
 * CLOCK_CHECK_NS of wall time and require the thread clock to move in
 * steps of at most CLOCK_STEP_NS. */
#define CLOCK_CHECK_NS 1000000ull
#define CLOCK_STEP_NS 20000ull
static bool thread_clock_fine(void)
{
	uint64_t t0 = monotonic_ns(), c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	uint64_t c = c0, prev;

	/* Wait for one step boundary, then time the next step. */
	while (c == c0 && monotonic_ns() - t0 < CLOCK_CHECK_NS)
		c = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	prev = c;
	while (c == prev && monotonic_ns() - t0 < CLOCK_CHECK_NS)
		c = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	return c != prev && c - prev <= CLOCK_STEP_NS;
}

/* Samples are timed in the probe thread's own CPU time where the platform
 * keeps it finely: time the thread spends preempted (by another task, or
 * by the hypervisor where the kernel accounts steal time) then does not
 * count, while stalls on slow memory do (the core is busy waiting). Else
 * wall time, and the median has to absorb preemption alone. */
static clockid_t pick_clock(void)
{
	struct timespec res;

	if (clock_getres(CLOCK_THREAD_CPUTIME_ID, &res) == 0 &&
	    res.tv_sec == 0 && res.tv_nsec <= 1000 && thread_clock_fine())
		return CLOCK_THREAD_CPUTIME_ID;
	return CLOCK_MONOTONIC;
}

/* Keep the compiler from dropping stores nobody reads back. */
static inline void clobber(void *p)
{
	__asm__ __volatile__("" : : "r"(p) : "memory");
}

static void write_fb(const struct job *j, uint32_t rows)
{
	struct output *o = j->out;
	uint32_t y;

	/* Through the output's own row writer, exactly as the blitter
	 * writes, so whatever makes a core slow applies here too. */
	for (y = 0; y < rows; y++)
		output_write_row(o, o->map + (size_t)y * o->stride, j->src,
				 j->row_bytes);
}

static void write_ram(const struct job *j, uint32_t rows)
{
	size_t stride = j->out->stride;
	uint32_t y;

	for (y = 0; y < rows; y++)
		memcpy(j->ram + (size_t)y * stride, j->src, j->row_bytes);
	clobber(j->ram);
}

static double median_so_far(const uint64_t *v, int n, uint64_t *tmp)
{
	memcpy(tmp, v, (size_t)n * sizeof(*v));
	return stats_median_u64(tmp, (size_t)n);
}

/* Rows per sample on this core: about SAMPLE_TARGET_NS of writing, from
 * one timed write of a few rows (after an untimed one that takes the page
 * faults). A preempted calibration only makes the samples smaller. */
static uint32_t calibrate(const struct job *j)
{
	uint32_t n = CALIBRATE_ROWS < j->stripe_rows ? CALIBRATE_ROWS
						     : j->stripe_rows;
	uint64_t a, t;
	double rows;

	write_fb(j, n);
	a = clock_ns(j->clock);
	write_fb(j, n);
	t = clock_ns(j->clock) - a;
	if (t == 0)
		return j->stripe_rows;
	rows = (double)SAMPLE_TARGET_NS * n / (double)t;
	if (rows >= j->stripe_rows)
		return j->stripe_rows;
	return rows < 1 ? 1 : (uint32_t)rows;
}

static void *probe_thread(void *arg)
{
	struct job *j = arg;
	struct probe_core *c = j->res;
	uint64_t t0 = monotonic_ns(), deadline, *tmp, shortest = UINT64_MAX;
	uint32_t rows;
	int n = 0, tries;
	bool stopped = false;

	deadline = t0 + (uint64_t)PROBE_BUDGET_MS * 1000000u;
	if (j->cpu >= 0) {
		int err = platform_pin_thread(pthread_self(), j->cpu);

		if (err < 0) {
			c->state = PROBE_PIN_FAILED;
			c->pin_error = err;
			return NULL;
		}
		/* Pinning oneself normally migrates at once; give the
		 * scheduler a few chances before calling it unverified. */
		for (tries = 0;
		     tries < 100 && platform_current_cpu() != j->cpu; tries++)
			sched_yield();
	}
	tmp = j->fb_ns + j->samples;
	/* Spin so the core's clock ramps up before anything is timed. */
	while (monotonic_ns() - t0 < WARMUP_NS)
		;
	rows = calibrate(j);
	/* One untimed pass at the sample size: TLB, cache ownership. */
	write_fb(j, rows);
	write_ram(j, rows);
	while (n < j->samples) {
		uint64_t a = clock_ns(j->clock), b, e;

		write_fb(j, rows);
		b = clock_ns(j->clock);
		write_ram(j, rows);
		e = clock_ns(j->clock);
		j->fb_ns[n] = b - a;
		j->ram_ns[n] = e - b;
		n++;
		/* Predict the next sample from the shortest so far: the last
		 * one may have been preempted. */
		if (e - a < shortest)
			shortest = e - a;
		if (n < MIN_SAMPLES)
			continue;
		if (j->budgeted && monotonic_ns() + shortest > deadline)
			break;
		if (j->best_row_ns > 0 &&
		    n < j->samples &&
		    median_so_far(j->fb_ns, n, tmp) / rows >
			    EARLY_STOP_FACTOR * j->best_row_ns) {
			stopped = true;
			break;
		}
	}
	c->ran_on = platform_current_cpu();
	if (j->cpu >= 0 && c->ran_on != j->cpu)
		c->ran_on = -1;
	c->samples = n;
	c->sample_rows = rows;
	/* Per row, then in the units of the table: one whole stripe. */
	c->fb_ms = stats_median_u64(j->fb_ns, (size_t)n) / rows *
		   j->stripe_rows / 1e6;
	c->ram_ms = stats_median_u64(j->ram_ns, (size_t)n) / rows *
		    j->stripe_rows / 1e6;
	c->state = stopped ? PROBE_STOPPED : PROBE_MEASURED;
	c->elapsed_ms = (double)(monotonic_ns() - t0) / 1e6;
	/* The stores may be streaming ones (mem output): ordered before the
	 * thread ends. Nothing to show: the stripe was black already. */
	output_copy_stream_end();
	return NULL;
}

static void finish_core(struct probe_core *c, const struct probe_result *res)
{
	double scale = (double)res->height / res->stripe_rows;

	if (c->state != PROBE_MEASURED && c->state != PROBE_STOPPED)
		return;
	/* A RAM write faster than the clock can tell still gives a finite
	 * ratio. */
	c->ratio = c->fb_ms / (c->ram_ms > 1e-6 ? c->ram_ms : 1e-6);
	c->frame_ms = c->fb_ms * scale;
	c->ram_frame_ms = c->ram_ms * scale;
}

static int run_job(struct job *j)
{
	pthread_t t;
	int err;

	err = pthread_create(&t, NULL, probe_thread, j);
	if (err) {
		log_error("pthread_create (probe thread): %s", strerror(err));
		return -err;
	}
	pthread_join(t, NULL);
	return 0;
}

static bool measured(const struct probe_core *c)
{
	return c->state == PROBE_MEASURED || c->state == PROBE_STOPPED;
}

static bool memtype_known(const struct probe_result *res)
{
	return res->phys_len && !res->memtype_err;
}

/* What the kernel says about the output's video memory: the probe
 * measures the symptom, the kernel's table names the cause. Unreadable is
 * not worth more than a quiet line. */
static void lookup_memtype(const struct output *out, struct probe_result *res)
{
	res->phys_start = out->phys_start;
	res->phys_len = out->phys_len;
	res->memtype_err = -ENODATA;
	snprintf(res->memtype_why, sizeof(res->memtype_why),
		 "the output has no physical video memory range");
	if (!out->phys_len)
		return;
	res->memtype_err = platform_memtype(out->phys_start, out->phys_len,
					    &res->memtype, res->memtype_why,
					    sizeof(res->memtype_why));
	if (res->memtype_err == 0)
		log_debug("kernel memory type of the video memory at 0x%" PRIx64
			  "-0x%" PRIx64 ": %s%s%s",
			  res->phys_start, res->phys_start + res->phys_len - 1,
			  res->memtype.name,
			  res->memtype.mixed ? " (and others)" : "",
			  res->memtype.partial ? " (listed in part)" : "");
	else
		log_debug("kernel memory type of the video memory unknown: %s",
			  res->memtype_why);
}

int probe_run(struct output *out, int samples, struct probe_result *res)
{
	struct job j;
	uint64_t t0 = monotonic_ns();
	int i, ret = 0;
	uint8_t *src = NULL;
	double best = 0;

	memset(res, 0, sizeof(*res));
	res->chosen = -1;
	res->main_cpu = platform_current_cpu();
	res->width = out->width;
	res->height = out->height;
	res->budgeted = samples <= 0;
	res->samples = samples > 0 ? samples : PROBE_DEFAULT_SAMPLES;
	res->ncores = platform_cpu_count();
	res->cores = calloc((size_t)res->ncores, sizeof(*res->cores));

	memset(&j, 0, sizeof(j));
	j.out = out;
	j.clock = pick_clock();
	res->cpu_clock = j.clock == CLOCK_THREAD_CPUTIME_ID;
	j.row_bytes = (size_t)out->width * pixfmt_bytes(&out->fmt);
	j.stripe_rows = (uint32_t)(PROBE_STRIPE_BYTES / j.row_bytes);
	if (j.stripe_rows < 1)
		j.stripe_rows = 1;
	if (j.stripe_rows > out->height)
		j.stripe_rows = out->height;
	res->stripe_rows = j.stripe_rows;
	res->stripe_bytes = j.row_bytes * j.stripe_rows;
	j.samples = res->samples;
	j.budgeted = res->budgeted;
	j.fb_ns = calloc((size_t)res->samples * 3, sizeof(uint64_t));
	j.ram_ns = j.fb_ns ? j.fb_ns + 2 * res->samples : NULL;
	/* The probe writes black: the screen shows black anyway until the
	 * first update (the blitter's first pass paints it), and zero is
	 * what the blitter itself uses for black. */
	src = calloc(1, j.row_bytes);
	j.ram = malloc(out->stride * j.stripe_rows);
	if (!res->cores || !j.fb_ns || !src || !j.ram) {
		log_error("cannot allocate memory for the core probe");
		ret = -ENOMEM;
		goto out;
	}
	memset(j.ram, 0, out->stride * j.stripe_rows);
	j.src = src;

	for (i = 0; i < res->ncores; i++) {
		struct probe_core *c = &res->cores[i];

		c->cpu = i;
		c->ran_on = -1;
		if (!platform_cpu_online(i)) {
			c->state = PROBE_OFFLINE;
			continue;
		}
		j.cpu = i;
		j.res = c;
		/* fb_ms is per stripe; the thread compares per row. */
		j.best_row_ns = best * 1e6 / j.stripe_rows;
		ret = run_job(&j);
		if (ret < 0)
			goto out;
		if (c->state == PROBE_PIN_FAILED && c->pin_error == -EPERM) {
			res->pin_denied = true;
			res->pin_error = c->pin_error;
			break;
		}
		finish_core(c, res);
		if (measured(c) && (best == 0 || c->fb_ms < best))
			best = c->fb_ms;
	}
	if (res->pin_denied) {
		/* Nothing can be pinned: measure where the scheduler puts us,
		 * so the table still says how fast the output is. */
		memset(res->cores, 0, sizeof(*res->cores));
		res->ncores = 1;
		res->cores[0].cpu = -1;
		res->cores[0].ran_on = -1;
		j.cpu = -1;
		j.res = &res->cores[0];
		j.best_row_ns = 0;
		ret = run_job(&j);
		if (ret < 0)
			goto out;
		finish_core(&res->cores[0], res);
	}
	probe_choose(res);
	lookup_memtype(out, res);
out:
	res->elapsed_ms = (double)(monotonic_ns() - t0) / 1e6;
	free(j.fb_ns);
	free(j.ram);
	free(src);
	if (ret < 0)
		probe_free(res);
	return ret;
}

void probe_free(struct probe_result *res)
{
	free(res->cores);
	res->cores = NULL;
	res->ncores = 0;
}

void probe_choose(struct probe_result *res)
{
	const struct probe_core *best = NULL, *alt = NULL;
	int i;

	res->chosen = -1;
	for (i = 0; i < res->ncores; i++) {
		const struct probe_core *c = &res->cores[i];

		if (c->cpu >= 0 && measured(c) &&
		    (!best || c->fb_ms < best->fb_ms))
			best = c;
	}
	if (!best) {
		snprintf(res->reason, sizeof(res->reason), "%s",
			 res->pin_denied ? "pinning is not permitted"
					 : "no core could be measured");
		return;
	}
	if (best->cpu == res->main_cpu) {
		/* The main thread decodes; a core of nearly the same speed
		 * without that load serves the blitter better. */
		for (i = 0; i < res->ncores; i++) {
			const struct probe_core *c = &res->cores[i];

			if (c == best || c->cpu < 0 || !measured(c) ||
			    c->fb_ms > best->fb_ms * (1 + PROBE_TIE))
				continue;
			if (!alt || c->fb_ms < alt->fb_ms)
				alt = c;
		}
	}
	if (alt) {
		res->chosen = alt->cpu;
		snprintf(res->reason, sizeof(res->reason),
			 "within %d%% of core %d, which runs the main thread",
			 (int)(PROBE_TIE * 100 + 0.5), best->cpu);
	} else {
		res->chosen = best->cpu;
		snprintf(res->reason, sizeof(res->reason),
			 "fastest framebuffer writes");
	}
	for (i = 0; i < res->ncores; i++) {
		struct probe_core *c = &res->cores[i];
		const struct probe_core *ch = alt ? alt : best;

		c->slow = measured(c) && c->cpu >= 0 &&
			  c->ratio > PROBE_SLOW_FACTOR * ch->ratio;
	}
}

static const struct probe_core *chosen_core(const struct probe_result *res)
{
	int i;

	for (i = 0; i < res->ncores; i++)
		if (res->chosen >= 0 && res->cores[i].cpu == res->chosen)
			return &res->cores[i];
	return NULL;
}

/* The measurement the uncached verdict rests on: the chosen core, or the
 * one unpinned measurement when pinning is not permitted. */
static const struct probe_core *reference_core(const struct probe_result *res)
{
	const struct probe_core *ch = chosen_core(res);

	if (ch)
		return ch;
	if (res->pin_denied && res->ncores == 1 && measured(&res->cores[0]))
		return &res->cores[0];
	return NULL;
}

bool probe_uncached(const struct probe_result *res)
{
	const struct probe_core *ref = reference_core(res);

	return ref && ref->ratio > PROBE_UNCACHED_RATIO;
}

/* "cores 1, 3" for the slow ones; the count, and the worst slowdown
 * against the chosen core in *worst. */
static int slow_cores(const struct probe_result *res, char *list, size_t len,
		      double *worst)
{
	const struct probe_core *ch = chosen_core(res);
	size_t used = 0;
	int i, n = 0;

	list[0] = '\0';
	*worst = 0;
	for (i = 0; ch && i < res->ncores; i++) {
		const struct probe_core *c = &res->cores[i];

		if (!c->slow)
			continue;
		if (used < len)
			used += (size_t)snprintf(list + used, len - used,
						 "%s%d", n ? ", " : "", c->cpu);
		if (c->fb_ms / ch->fb_ms > *worst)
			*worst = c->fb_ms / ch->fb_ms;
		n++;
	}
	return n;
}

static void uncached_warning(const struct probe_result *res, char *buf,
			     size_t len)
{
	const struct probe_core *ref = reference_core(res);
	const struct memtype *mt = &res->memtype;
	char where[32], kernel[64] = "", list[128];
	double worst;
	int n = slow_cores(res, list, sizeof(list), &worst);
	size_t l;

	if (ref->cpu >= 0)
		snprintf(where, sizeof(where), "chosen core %d", ref->cpu);
	else
		snprintf(where, sizeof(where), "unpinned");
	if (memtype_known(res))
		snprintf(kernel, sizeof(kernel), "; the kernel maps it %s%s",
			 mt->name, mt->mixed ? " (in part)" : "");
	if (memtype_known(res) && mt->kind == MEMTYPE_WRITE_COMBINING &&
	    !mt->mixed)
		/* The kernel says the mapping is right: the device is slow. */
		snprintf(buf, len,
			 "writing the framebuffer takes %.0fx as long as RAM "
			 "(%s: %.1f ms a frame; write-combining memory takes "
			 "1-3x), although the kernel maps it write-combining: "
			 "the device or its bus is slow, not the mapping",
			 ref->ratio, where, ref->frame_ms);
	else
		snprintf(buf, len,
			 "the whole framebuffer mapping looks uncached: "
			 "writing it takes %.0fx as long as RAM (%s: %.1f ms a "
			 "frame; write-combining memory takes 1-3x)%s; %s",
			 ref->ratio, where, ref->frame_ms, kernel,
			 platform_uncached_hint());
	l = strlen(buf);
	if (n && l < len)
		snprintf(buf + l, len - l, "; core%s %s slower still (up to "
			 "%.0fx), avoided", n > 1 ? "s" : "", list, worst);
}

bool probe_warning(const struct probe_result *res, char *buf, size_t len)
{
	const struct probe_core *ch = chosen_core(res);
	char list[128];
	double worst;
	int n;

	if (probe_uncached(res)) {
		uncached_warning(res, buf, len);
		return true;
	}
	n = slow_cores(res, list, sizeof(list), &worst);
	if (!n)
		return false;
	snprintf(buf, len,
		 "the framebuffer is much slower to write from core%s %s "
		 "(up to %.0fx slower than from core %d, while RAM is as fast "
		 "there): likely that core maps it with another memory type "
		 "(PAT/MTRR setup); vncfb avoids %s",
		 n > 1 ? "s" : "", list, worst, ch->cpu,
		 n > 1 ? "them" : "it");
	return true;
}

void probe_online_list(char *buf, size_t len)
{
	int i, n = platform_cpu_count(), start = -1;
	size_t used = 0;

	buf[0] = '\0';
	for (i = 0; i <= n; i++) {
		bool on = i < n && platform_cpu_online(i);

		if (on && start < 0)
			start = i;
		if (!on && start >= 0) {
			int w;

			if (start == i - 1)
				w = snprintf(buf + used, len - used, "%s%d",
					     used ? "," : "", start);
			else
				w = snprintf(buf + used, len - used, "%s%d-%d",
					     used ? "," : "", start, i - 1);
			if (w < 0 || (size_t)w >= len - used)
				return;
			used += (size_t)w;
			start = -1;
		}
	}
	if (!used)
		snprintf(buf, len, "none");
}

int probe_online_count(void)
{
	int i, n = platform_cpu_count(), on = 0;

	for (i = 0; i < n; i++)
		on += platform_cpu_online(i);
	return on ? on : 1;
}

static const char *verdict(const struct probe_result *res,
			   const struct probe_core *c, char *buf, size_t len)
{
	const struct probe_core *ch = chosen_core(res);

	switch (c->state) {
	case PROBE_OFFLINE:
		return "offline or not allowed";
	case PROBE_PIN_FAILED:
		snprintf(buf, len, "cannot pin: %s", strerror(-c->pin_error));
		return buf;
	default:
		break;
	}
	if (c->cpu < 0)
		return "unpinned (pinning not permitted)";
	if (c->cpu == res->chosen)
		snprintf(buf, len, "chosen");
	else if (c->slow && ch)
		snprintf(buf, len, "SLOW: %.0fx the chosen core's time, "
			 "avoided", c->fb_ms / ch->fb_ms);
	else
		snprintf(buf, len, "ok");
	if (c->state == PROBE_STOPPED) {
		size_t l = strlen(buf);

		snprintf(buf + l, len - l, " (stopped after %d samples)",
			 c->samples);
	}
	if (c->ran_on < 0) {
		size_t l = strlen(buf);

		snprintf(buf + l, len - l, " (placement unverified)");
	}
	return buf;
}

/* The whole mapping: the kernel's memory type and the verdict on it. */
static void print_mapping(const struct probe_result *res, FILE *f)
{
	const struct probe_core *ref = reference_core(res);
	const struct memtype *mt = &res->memtype;
	bool uc = memtype_known(res) && (mt->kind == MEMTYPE_UNCACHED ||
					 mt->kind == MEMTYPE_UNCACHED_MINUS);
	char where[32];

	if (res->phys_len) {
		fprintf(f, "video memory: 0x%" PRIx64 "-0x%" PRIx64
			   " (%" PRIu64 " KiB)",
			res->phys_start, res->phys_start + res->phys_len - 1,
			res->phys_len >> 10);
		if (memtype_known(res))
			fprintf(f, "; the kernel maps it %s%s%s", mt->name,
				mt->mixed ? " (in part: other types too)" : "",
				mt->partial ? " (listed in part)" : "");
		fputc('\n', f);
	}
	if (!ref)
		return;
	if (ref->cpu >= 0)
		snprintf(where, sizeof(where), "on core %d", ref->cpu);
	else
		snprintf(where, sizeof(where), "unpinned");
	if (probe_uncached(res))
		fprintf(f, "mapping: looks uncached: %.0fx RAM %s, above %.0fx "
			   "(write-combining video memory takes 1-3x)\n",
			ref->ratio, where, PROBE_UNCACHED_RATIO);
	else if (uc)
		fprintf(f, "mapping: %.1fx RAM %s although %s: the writes are "
			   "combined all the same (a write-combining MTRR, or "
			   "an emulated device)\n",
			ref->ratio, where, mt->name);
}

void probe_print_table(const struct probe_result *res,
		       const struct output *out, int configured_cpu, FILE *f)
{
	char fbuf[64], vbuf[96];
	double maxf = 0;
	int i;

	fprintf(f, "output %s %ux%u %s; stripe of %u rows (%.2f MiB); ",
		out->impl->name, res->width, res->height,
		pixfmt_name(&out->fmt, fbuf, sizeof(fbuf)), res->stripe_rows,
		(double)res->stripe_bytes / (1 << 20));
	if (res->budgeted)
		fprintf(f, "up to %d samples per core within %d ms\n\n",
			res->samples, PROBE_BUDGET_MS);
	else
		fprintf(f, "%d sample%s per core\n\n", res->samples,
			res->samples == 1 ? "" : "s");
	fprintf(f, "%4s %10s %10s %8s %12s %12s  %s\n", "core", "fb ms",
		"RAM ms", "fb/RAM", "fb ms/frame", "RAM ms/frame", "verdict");
	for (i = 0; i < res->ncores; i++) {
		const struct probe_core *c = &res->cores[i];
		char core[16];

		if (c->cpu < 0)
			snprintf(core, sizeof(core), "any");
		else
			snprintf(core, sizeof(core), "%d", c->cpu);
		if (!measured(c)) {
			fprintf(f, "%4s %10s %10s %8s %12s %12s  %s\n", core,
				"-", "-", "-", "-", "-",
				verdict(res, c, vbuf, sizeof(vbuf)));
			continue;
		}
		fprintf(f, "%4s %10.3f %10.3f %7.1fx %12.2f %12.2f  %s\n",
			core, c->fb_ms, c->ram_ms, c->ratio, c->frame_ms,
			c->ram_frame_ms, verdict(res, c, vbuf, sizeof(vbuf)));
		if (c->frame_ms > maxf)
			maxf = c->frame_ms;
	}
	if (maxf > 0) {
		fprintf(f, "\nfull-frame framebuffer write, ms (shorter is "
			   "better):\n");
		for (i = 0; i < res->ncores; i++) {
			const struct probe_core *c = &res->cores[i];
			int k, bar;

			if (!measured(c))
				continue;
			bar = (int)(c->frame_ms / maxf * 40 + 0.5);
			if (bar < 1)
				bar = 1;
			if (c->cpu < 0)
				fprintf(f, "%4s |", "any");
			else
				fprintf(f, "%4d |", c->cpu);
			for (k = 0; k < bar; k++)
				fputc('#', f);
			fprintf(f, " %.2f\n", c->frame_ms);
		}
	}
	fputc('\n', f);
	if (res->chosen >= 0)
		fprintf(f, "choice: core %d (%s)", res->chosen, res->reason);
	else if (res->pin_denied)
		fprintf(f, "choice: none, the blit thread runs unpinned "
			   "(pinning: %s%s%s)",
			strerror(-res->pin_error),
			platform_pin_hint() ? "; " : "",
			platform_pin_hint() ? platform_pin_hint() : "");
	else
		fprintf(f, "choice: none (%s)", res->reason);
	if (res->main_cpu >= 0)
		fprintf(f, "; main thread on core %d", res->main_cpu);
	fprintf(f, "; probe took %.0f ms\n", res->elapsed_ms);
	print_mapping(res, f);
	if (configured_cpu >= 0) {
		if (platform_cpu_online(configured_cpu)) {
			fprintf(f, "configured: core %d (--cpu or config) "
				   "overrides the choice\n",
				configured_cpu);
		} else {
			char on[128];

			probe_online_list(on, sizeof(on));
			fprintf(f, "configured: core %d, which is offline or "
				   "not allowed (online cores: %s); a session "
				   "would refuse it\n",
				configured_cpu, on);
		}
	}
}

static const char *state_name(enum probe_state s)
{
	switch (s) {
	case PROBE_OFFLINE:
		return "offline";
	case PROBE_MEASURED:
		return "measured";
	case PROBE_STOPPED:
		return "stopped-early";
	case PROBE_PIN_FAILED:
		return "pin-failed";
	}
	return "?";
}

static void print_json_memtype(const struct probe_result *res, FILE *f)
{
	const struct memtype *mt = &res->memtype;

	if (res->phys_len)
		fprintf(f, "  \"video_memory\": {\"start\": %" PRIu64
			   ", \"length\": %" PRIu64 "},\n",
			res->phys_start, res->phys_len);
	else
		fprintf(f, "  \"video_memory\": null,\n");
	fprintf(f, "  \"memtype\": ");
	if (memtype_known(res)) {
		fprintf(f, "{\"name\": ");
		json_write_string(f, mt->name);
		fprintf(f, ", \"mixed\": %s, \"partial\": %s}",
			mt->mixed ? "true" : "false",
			mt->partial ? "true" : "false");
	} else {
		fprintf(f, "null");
	}
	fprintf(f, ",\n  \"memtype_note\": ");
	if (!memtype_known(res))
		json_write_string(f, res->memtype_why);
	else
		fprintf(f, "null");
}

void probe_print_json(const struct probe_result *res,
		      const struct output *out, int configured_cpu, FILE *f)
{
	char fbuf[64], warn[PROBE_WARNING_LEN];
	int i;

	fprintf(f, "{\n  \"output\": ");
	json_write_string(f, out->impl->name);
	fprintf(f, ",\n  \"width\": %u,\n  \"height\": %u,\n  \"format\": ",
		res->width, res->height);
	json_write_string(f, pixfmt_name(&out->fmt, fbuf, sizeof(fbuf)));
	fprintf(f,
		",\n  \"stripe_rows\": %u,\n  \"stripe_bytes\": %zu,\n"
		"  \"samples\": %d,\n  \"budgeted\": %s,\n"
		"  \"main_cpu\": %d,\n  \"pin_denied\": %s,\n"
		"  \"clock\": \"%s\",\n",
		res->stripe_rows, res->stripe_bytes, res->samples,
		res->budgeted ? "true" : "false", res->main_cpu,
		res->pin_denied ? "true" : "false",
		res->cpu_clock ? "thread-cpu" : "monotonic");
	if (res->chosen >= 0)
		fprintf(f, "  \"chosen\": %d,\n", res->chosen);
	else
		fprintf(f, "  \"chosen\": null,\n");
	fprintf(f, "  \"reason\": ");
	json_write_string(f, res->reason);
	fprintf(f, ",\n  \"configured_cpu\": ");
	if (configured_cpu >= 0)
		fprintf(f, "%d", configured_cpu);
	else
		fprintf(f, "null");
	fprintf(f, ",\n  \"warning\": ");
	if (probe_warning(res, warn, sizeof(warn)))
		json_write_string(f, warn);
	else
		fprintf(f, "null");
	fprintf(f, ",\n  \"uncached\": %s,\n  \"uncached_ratio\": %.1f,\n",
		probe_uncached(res) ? "true" : "false", PROBE_UNCACHED_RATIO);
	print_json_memtype(res, f);
	fprintf(f, ",\n  \"elapsed_ms\": %.3f,\n  \"cores\": [",
		res->elapsed_ms);
	for (i = 0; i < res->ncores; i++) {
		const struct probe_core *c = &res->cores[i];

		fprintf(f, "%s\n    {\"cpu\": %d, \"state\": \"%s\"",
			i ? "," : "", c->cpu, state_name(c->state));
		if (c->state == PROBE_PIN_FAILED) {
			fprintf(f, ", \"error\": ");
			json_write_string(f, strerror(-c->pin_error));
		}
		if (measured(c))
			fprintf(f,
				", \"ran_on\": %d, \"samples\": %d, "
				"\"fb_ms\": %.4f, \"ram_ms\": %.4f, "
				"\"ratio\": %.2f, \"frame_ms\": %.3f, "
				"\"sample_rows\": %u, "
				"\"ram_frame_ms\": %.3f, \"elapsed_ms\": %.2f, "
				"\"slow\": %s",
				c->ran_on, c->samples, c->fb_ms, c->ram_ms,
				c->ratio, c->frame_ms, c->sample_rows,
				c->ram_frame_ms,
				c->elapsed_ms, c->slow ? "true" : "false");
		fputc('}', f);
	}
	fprintf(f, "\n  ]\n}\n");
}

/* The placement decision, for every command that starts a blit thread:
 * what probe_run chose, with the table at debug level, the warning and
 * one line saying where the thread goes and why. */
int probe_pick_core(struct output *out, int samples)
{
	struct probe_result res;
	const struct probe_core *slowest = NULL, *ch = NULL;
	char warn[PROBE_WARNING_LEN];
	int i, cpu;

	if (probe_run(out, samples, &res) < 0) {
		log_warn("the core probe failed: the blit thread runs "
			 "unpinned");
		return -1;
	}
	for (i = 0; i < res.ncores; i++) {
		const struct probe_core *c = &res.cores[i];

		if (!measured(c))
			continue;
		log_debug("probe: core %d: fb %.3f ms, RAM %.3f ms per %u-row "
			  "stripe, ratio %.1f, %.2f ms per frame, %d samples, "
			  "ran on core %d",
			  c->cpu, c->fb_ms, c->ram_ms, res.stripe_rows,
			  c->ratio, c->frame_ms, c->samples, c->ran_on);
		if (c->cpu == res.chosen)
			ch = c;
		else if (!slowest || c->frame_ms > slowest->frame_ms)
			slowest = c;
	}
	if (probe_warning(&res, warn, sizeof(warn)))
		log_warn("%s", warn);
	cpu = res.chosen;
	if (res.pin_denied) {
		log_warn("cannot pin threads to cores (%s)%s%s: the blit "
			 "thread runs unpinned",
			 strerror(-res.pin_error),
			 platform_pin_hint() ? "; " : "",
			 platform_pin_hint() ? platform_pin_hint() : "");
	} else if (ch && slowest) {
		log_debug("blit thread on core %d: %s, %.2f ms per frame there "
			 "(slowest: core %d, %.2f ms); probe took %.0f ms",
			 cpu, res.reason, ch->frame_ms, slowest->cpu,
			 slowest->frame_ms, res.elapsed_ms);
	} else if (ch) {
		log_debug("blit thread on core %d (%.2f ms per frame there)",
			 cpu, ch->frame_ms);
	} else {
		log_warn("the core probe found no usable core (%s): the blit "
			 "thread runs unpinned",
			 res.reason);
	}
	probe_free(&res);
	return cpu;
}

int probe_command(const struct options *o)
{
	struct output out;
	struct output desc;
	struct probe_result res;
	char warn[PROBE_WARNING_LEN];
	int ret;

	if (signals_setup() < 0)
		return 1;
	if (console_open(&out, o->output) < 0)
		return 1;
	ret = probe_run(&out, o->samples, &res);
	/* Describe the output from a copy: the console must be back in text
	 * mode before the table is printed on it. */
	desc = out;
	console_close(&out);
	if (ret < 0)
		return 1;
	if (o->json_file) {
		/* --json=FILE: the table on the terminal, JSON in FILE. */
		FILE *f = fopen(o->json_file, "w");

		if (!f) {
			log_error("cannot write %s: %s", o->json_file,
				  strerror(errno));
			probe_free(&res);
			return 1;
		}
		probe_print_json(&res, &desc, o->cpu, f);
		if (fclose(f) != 0) {
			log_error("cannot write %s: %s", o->json_file,
				  strerror(errno));
			probe_free(&res);
			return 1;
		}
		probe_print_table(&res, &desc, o->cpu, stdout);
	} else if (o->json) {
		probe_print_json(&res, &desc, o->cpu, stdout);
	} else {
		probe_print_table(&res, &desc, o->cpu, stdout);
	}
	fflush(stdout);
	if (probe_warning(&res, warn, sizeof(warn)))
		log_warn("%s", warn);
	if (res.pin_denied)
		log_warn("cannot pin threads to cores (%s)%s%s: a session "
			 "runs its blit thread unpinned",
			 strerror(-res.pin_error),
			 platform_pin_hint() ? "; " : "",
			 platform_pin_hint() ? platform_pin_hint() : "");
	ret = res.chosen >= 0 || res.pin_denied ? 0 : 1;
	probe_free(&res);
	return ret;
}
