/* The core probe: per-core framebuffer write timing and the choice of the
 * blit thread's core; also the `vncfb probe` command (its table, JSON and
 * warnings: probe_report.c). */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/clock.h"
#include "util/log.h"
#include "output/output.h"
#include "platform/platform.h"
#include "placement/probe.h"
#include "console/signals.h"
#include "util/stats.h"

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
	bool quit; /* a quit signal stopped the thread */
};

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
static uint32_t calibrate(const struct job *j, clockid_t clock)
{
	uint32_t n = CALIBRATE_ROWS < j->stripe_rows ? CALIBRATE_ROWS
						     : j->stripe_rows;
	uint64_t a, t;
	double rows;

	write_fb(j, n);
	a = clock_ns(clock);
	write_fb(j, n);
	t = clock_ns(clock) - a;
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
	clockid_t clock = j->clock;
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
	/* The thread clock can be fine on the main thread's core and stuck
	 * on this one (a guest's per-core sched_clock: seen in CI, every
	 * sample of core 0 read 0 ns while core 1's were right, and core 1
	 * was called infinitely slower). Checked again here, pinned. */
	if (clock == CLOCK_THREAD_CPUTIME_ID && !thread_clock_fine())
		clock = CLOCK_MONOTONIC;
	c->wall_clock = clock != j->clock;
	rows = calibrate(j, clock);
	/* One untimed pass at the sample size: TLB, cache ownership. */
	write_fb(j, rows);
	write_ram(j, rows);
	while (n < j->samples) {
		uint64_t a, b, e;

		/* On a slow mapping with many cores and --samples 1000 the
		 * probe runs for seconds: a quit must not wait for it. */
		if (signals_quit_pending()) {
			j->quit = true;
			break;
		}
		a = clock_ns(clock);

		write_fb(j, rows);
		b = clock_ns(clock);
		write_ram(j, rows);
		e = clock_ns(clock);
		if ((b == a || e == b) && clock != CLOCK_MONOTONIC) {
			/* A write of rows takes microseconds: a clock that
			 * did not move is not resolving here after all. Start
			 * this core again in wall time. */
			clock = CLOCK_MONOTONIC;
			c->wall_clock = true;
			n = 0;
			shortest = UINT64_MAX;
			continue;
		}
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

/* One core's timing on its own thread: 0, -EINTR when a quit signal
 * stopped it, or -errno (logged). */
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
	return j->quit ? -EINTR : 0;
}

/* A core found slow is timed once more before it is called so: on a busy
 * machine a neighbour's burst during one core's framebuffer samples alone
 * can look like a mapping problem (seen: 8x on the mem output, whose
 * "framebuffer" is RAM, under a parallel test run), while a mapping that
 * is really slow is as slow the second time. The second timing stands.
 * 0, or -errno as run_job. */
static int confirm_slow(struct job *j, struct probe_result *res, double best)
{
	bool again = false;
	int i, ret;

	for (i = 0; i < res->ncores; i++) {
		struct probe_core *c = &res->cores[i];

		if (!c->slow)
			continue;
		j->cpu = c->cpu;
		j->res = c;
		j->best_row_ns = best * 1e6 / j->stripe_rows;
		ret = run_job(j);
		if (ret < 0)
			return ret;
		finish_core(c, res);
		again = true;
	}
	if (again)
		probe_choose(res);
	return 0;
}

void probe_classify(struct probe_result *res)
{
	int *cap = calloc((size_t)res->ncores, sizeof(int));
	enum cpu_class *cls = calloc((size_t)res->ncores, sizeof(*cls));
	int i;

	for (i = 0; i < res->ncores; i++) {
		res->cores[i].capacity = platform_cpu_capacity(res->cores[i].cpu);
		res->cores[i].cls = CPU_CLASS_SAME;
	}
	if (!cap || !cls) {
		/* Only the classes are lost: every core "alike". */
		free(cap);
		free(cls);
		return;
	}
	for (i = 0; i < res->ncores; i++)
		cap[i] = res->cores[i].capacity;
	cpu_classify(cap, res->ncores, cls);
	for (i = 0; i < res->ncores; i++)
		res->cores[i].cls = cls[i];
	free(cap);
	free(cls);
}

bool probe_measured(const struct probe_core *c)
{
	return c->state == PROBE_MEASURED || c->state == PROBE_STOPPED;
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
	log_debug("probe: timing %d cores, %d samples each%s, %u-row stripe",
		  probe_online_count(), res->samples,
		  res->budgeted ? " at most" : "", j.stripe_rows);

	for (i = 0; i < res->ncores; i++)
		res->cores[i].cpu = i;
	probe_classify(res);
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
		if (probe_measured(c) && (best == 0 || c->fb_ms < best))
			best = c->fb_ms;
	}
	if (res->pin_denied) {
		/* Nothing can be pinned: measure where the scheduler puts us,
		 * so the table still says how fast the output is. */
		memset(res->cores, 0, sizeof(*res->cores));
		res->ncores = 1;
		res->cores[0].cpu = -1;
		res->cores[0].ran_on = -1;
		res->cores[0].capacity = -1;
		j.cpu = -1;
		j.res = &res->cores[0];
		j.best_row_ns = 0;
		ret = run_job(&j);
		if (ret < 0)
			goto out;
		finish_core(&res->cores[0], res);
	}
	probe_choose(res);
	ret = confirm_slow(&j, res, best);
	if (ret < 0)
		goto out;
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

		if (c->cpu >= 0 && probe_measured(c) &&
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

			if (c == best || c->cpu < 0 || !probe_measured(c) ||
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

		c->slow = probe_measured(c) && c->cpu >= 0 &&
			  c->ratio > PROBE_SLOW_FACTOR * ch->ratio;
	}
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

/* The placement decision, for every command that starts a blit thread:
 * what probe_run chose, with the table at debug level, the warning and
 * one line saying where the thread goes and why. */
int probe_pick_core(struct output *out, int samples)
{
	struct probe_result res;
	const struct probe_core *slowest = NULL, *ch = NULL;
	char warn[PROBE_WARNING_LEN];
	int i, cpu, err;

	err = probe_run(out, samples, &res);
	if (err == -EINTR) {
		/* The caller's main loop reads the quit next. */
		log_debug("core probe interrupted");
		return -1;
	}
	if (err < 0) {
		log_warn("the core probe failed: the blit thread runs "
			 "unpinned");
		return -1;
	}
	for (i = 0; i < res.ncores; i++) {
		const struct probe_core *c = &res.cores[i];

		if (!probe_measured(c))
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
		char why[PROBE_PIN_REASON_LEN];

		log_warn("cannot pin threads to cores (%s): the blit thread "
			 "runs unpinned",
			 probe_pin_reason(res.pin_error, why, sizeof(why)));
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
