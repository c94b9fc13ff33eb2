/* Unit test: the decode pool's ordering (overlap, CopyRect sources,
 * streams), concurrency of independent jobs (observed), completion after
 * the writes, drain, the byte cap, failures, direct and inline jobs; and
 * random jobs on a small framebuffer against the same jobs run serially.
 *
 * Ordering is checked without trusting the clock: a job that must run
 * first waits (up to HOLD_MS) for the job that must not start before it
 * ends; if that one starts anyway, the first job sees it. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../check.h"
#include "util/clock.h"
#include "decode/decpool.h"

/* How long a first job waits for a second that must not start. */
#define HOLD_MS 150
/* How long a job waits for one that should run beside it. */
#define MEET_MS 3000

static atomic_uint seq;

struct tjob {
	int id;
	struct rect r, src;
	uint32_t streams;
	size_t bytes;
	int fail; /* run returns -EIO with "job N failed" */
	/* Wait up to wait_ms for *wait_for to become non-zero, recording
	 * whether it did. */
	atomic_int *wait_for;
	int wait_ms;
	atomic_int seen;
	atomic_int started, ended, released, done_calls;
	atomic_uint start_seq, end_seq;
	atomic_int worker;
	atomic_int written;   /* the job's "pixels", set last in run */
	int done_after_write; /* done saw written set */
	pthread_t thread;
};

static pthread_t main_thread;
static atomic_int slot_busy[DECPOOL_MAX_THREADS + 1];
static atomic_int slot_clash;

/* Whether *flag became non-zero within ms. */
static int wait_flag(atomic_int *flag, int ms)
{
	uint64_t until = monotonic_ns() + (uint64_t)ms * 1000000;

	while (!atomic_load(flag)) {
		if (monotonic_ns() > until)
			return 0;
		usleep(200);
	}
	return 1;
}

static int trun(void *arg, unsigned worker, char *why, size_t len)
{
	struct tjob *t = arg;

	if (atomic_fetch_add(&slot_busy[worker], 1) != 0)
		atomic_store(&slot_clash, 1);
	t->thread = pthread_self();
	atomic_store(&t->worker, (int)worker);
	atomic_store(&t->start_seq, atomic_fetch_add(&seq, 1) + 1);
	atomic_store(&t->started, 1);
	if (t->wait_for)
		atomic_store(&t->seen, wait_flag(t->wait_for, t->wait_ms));
	atomic_store(&t->written, 1);
	atomic_store(&t->end_seq, atomic_fetch_add(&seq, 1) + 1);
	atomic_store(&t->ended, 1);
	atomic_fetch_sub(&slot_busy[worker], 1);
	if (t->fail) {
		snprintf(why, len, "job %d failed", t->id);
		return -EIO;
	}
	return 0;
}

static void trelease(void *arg)
{
	struct tjob *t = arg;

	atomic_fetch_add(&t->released, 1);
}

/* The done callback finds the job by the rectangle's x (the tests give
 * every job its own). */
static struct tjob *all_jobs[64];
static int n_all;

static void tdone(void *ctx, const struct rect *r)
{
	atomic_int *calls = ctx;

	atomic_fetch_add(calls, 1);
	for (int i = 0; i < n_all; i++) {
		struct tjob *t = all_jobs[i];

		if (t->r.x == r->x && t->r.y == r->y) {
			t->done_after_write = atomic_load(&t->written);
			atomic_fetch_add(&t->done_calls, 1);
		}
	}
}

static struct tjob *tj(int id, struct rect r)
{
	struct tjob *t = calloc(1, sizeof(*t));

	t->id = id;
	t->r = r;
	all_jobs[n_all++] = t;
	return t;
}

static void tj_free_all(void)
{
	for (int i = 0; i < n_all; i++)
		free(all_jobs[i]);
	n_all = 0;
}

static struct decpool_job as_job(struct tjob *t)
{
	return (struct decpool_job){.r = t->r,
				    .src = t->src,
				    .streams = t->streams,
				    .bytes = t->bytes,
				    .run = trun,
				    .release = trelease,
				    .arg = t};
}

static atomic_int done_calls;

static struct decpool *mkpool(unsigned threads, size_t max_bytes)
{
	struct decpool_config cfg = {.threads = threads,
				     .max_bytes = max_bytes,
				     .done = tdone,
				     .ctx = &done_calls};
	struct decpool *p;
	int err = decpool_create(&cfg, &p);

	CHECK_EQ(err, 0);
	return p;
}

static int submit(struct decpool *p, struct tjob *t)
{
	struct decpool_job j = as_job(t);

	return decpool_submit(p, &j);
}

static const struct rect empty = {0, 0, 0, 0};

/* What a job touches. */
struct spec {
	struct rect r, src;
	uint32_t streams;
};

/* a, then b, on a 4-worker pool, drained; a waits up to wait_ms for b
 * to start (and records in a->seen whether it did). Destroyed by the
 * caller (pair_end). */
static struct decpool *pair_run(struct spec sa, struct spec sb, int wait_ms,
				struct tjob **pa, struct tjob **pb)
{
	struct decpool *p = mkpool(4, 0);
	struct tjob *a = tj(1, sa.r), *b = tj(2, sb.r);

	a->src = sa.src;
	a->streams = sa.streams;
	b->src = sb.src;
	b->streams = sb.streams;
	a->wait_for = &b->started;
	a->wait_ms = wait_ms;
	CHECK_EQ(submit(p, a), 0);
	CHECK_EQ(submit(p, b), 0);
	CHECK_EQ(decpool_drain(p), 0);
	CHECK_EQ(atomic_load(&a->released) + atomic_load(&b->released), 2);
	*pa = a;
	*pb = b;
	return p;
}

static void pair_end(struct decpool *p)
{
	decpool_destroy(p);
	tj_free_all();
}

/* a is submitted first and must end before b starts. */
static void check_ordered(const char *what, struct spec sa, struct spec sb)
{
	struct tjob *a, *b;
	struct decpool *p = pair_run(sa, sb, HOLD_MS, &a, &b);

	CHECK(!atomic_load(&a->seen),
	      "%s: the second job started while the first ran", what);
	CHECK(atomic_load(&b->start_seq) > atomic_load(&a->end_seq),
	      "%s: start %u, first ended %u", what, atomic_load(&b->start_seq),
	      atomic_load(&a->end_seq));
	pair_end(p);
}

/* a and b are submitted in order and must run at the same time. */
static void check_concurrent(const char *what, struct spec sa, struct spec sb)
{
	struct tjob *a, *b;
	struct decpool *p = pair_run(sa, sb, MEET_MS, &a, &b);

	CHECK(atomic_load(&a->seen),
	      "%s: the second job did not run beside the first", what);
	CHECK(a->worker != b->worker, "%s: both ran as worker %d", what,
	      a->worker);
	pair_end(p);
}

static void test_ordering(void)
{
	struct rect a = {0, 0, 64, 64}, over = {32, 32, 64, 64},
		    apart = {100, 0, 64, 64}, edge = {64, 0, 16, 16};
	struct spec sa = {a, empty, 0}, sover = {over, empty, 0},
		    sapart = {apart, empty, 0};

	check_ordered("overlap", sa, sover);
	check_ordered("same rect", sa, sa);
	/* CopyRect reading what the first writes. */
	check_ordered("src after write", sa, (struct spec){apart, over, 0});
	/* Writing what a CopyRect before it reads. */
	check_ordered("write after src", (struct spec){apart, over, 0}, sa);
	check_ordered("stream", (struct spec){a, empty, 1u << 2},
		      (struct spec){apart, empty, 1u << 2});
	check_ordered("streams", (struct spec){a, empty, 0x3},
		      (struct spec){apart, empty, 0x6});

	check_concurrent("apart", sa, sapart);
	check_concurrent("touching edges", sa, (struct spec){edge, empty, 0});
	check_concurrent("other streams", (struct spec){a, empty, 1u << 0},
			 (struct spec){apart, empty, 1u << 1});
	/* Two CopyRects reading the same pixels. */
	check_concurrent("shared source", (struct spec){apart, over, 0},
			 (struct spec){{200, 0, 8, 8}, over, 0});
}

/* A job waiting for an earlier one does not hold back a later
 * independent one. */
static void test_skip_ahead(void)
{
	struct decpool *p = mkpool(2, 0);
	struct tjob *a = tj(1, (struct rect){0, 0, 10, 10}),
		    *b = tj(2, (struct rect){5, 5, 10, 10}),
		    *c = tj(3, (struct rect){50, 50, 10, 10});

	a->wait_for = &c->started;
	a->wait_ms = MEET_MS;
	CHECK_EQ(submit(p, a), 0);
	CHECK_EQ(submit(p, b), 0);
	CHECK_EQ(submit(p, c), 0);
	CHECK_EQ(decpool_drain(p), 0);
	CHECK(atomic_load(&a->seen), "the independent third job waited");
	CHECK(atomic_load(&b->start_seq) > atomic_load(&a->end_seq));
	decpool_destroy(p);
	tj_free_all();
}

/* done comes once per job, after its writes, only for jobs that
 * succeeded. */
static void test_done(void)
{
	struct decpool *p = mkpool(3, 0);
	struct tjob *t[12];

	atomic_store(&done_calls, 0);
	/* All made before any runs: done reads the list. */
	for (int i = 0; i < 12; i++) {
		t[i] = tj(i, (struct rect){i * 10, 0, 10, 10});
		t[i]->wait_for = &t[i]->seen; /* never set: a short delay */
		t[i]->wait_ms = 2;
	}
	for (int i = 0; i < 12; i++)
		CHECK_EQ(submit(p, t[i]), 0);
	CHECK_EQ(decpool_drain(p), 0);
	CHECK_EQ(atomic_load(&done_calls), 12);
	for (int i = 0; i < 12; i++) {
		CHECK_EQ(atomic_load(&t[i]->done_calls), 1);
		CHECK(t[i]->done_after_write, "job %d: done before its writes",
		      i);
	}
	decpool_destroy(p);
	tj_free_all();
}

static void test_drain(void)
{
	struct decpool *p = mkpool(2, 0);
	struct tjob *t[8];
	int ended = 0;

	for (int i = 0; i < 8; i++) {
		t[i] = tj(i, (struct rect){0, 0, 4, 4});
		t[i]->wait_for = &t[i]->seen;
		t[i]->wait_ms = 5;
	}
	for (int i = 0; i < 8; i++)
		CHECK_EQ(submit(p, t[i]), 0);
	CHECK_EQ(decpool_drain(p), 0);
	for (int i = 0; i < 8; i++)
		ended +=
		    atomic_load(&t[i]->ended) && atomic_load(&t[i]->released);
	CHECK_EQ(ended, 8);
	/* Drained: the pool is empty and takes more. */
	CHECK_EQ(decpool_drain(p), 0);
	decpool_destroy(p);
	tj_free_all();
}

/* The first failure: its reason once, later calls fail with it, queued
 * jobs dropped (released, never run), done not called for it. A gate job
 * keeps running meanwhile, so that the failure happens with jobs queued
 * behind a running one. */
static void test_error(unsigned threads)
{
	struct decpool *p = mkpool(threads, 0);
	struct tjob *gate = tj(1, (struct rect){200, 200, 8, 8});
	struct tjob *bad = tj(2, (struct rect){4, 4, 8, 8});
	struct tjob *bad2 = tj(3, (struct rect){6, 6, 8, 8});
	struct tjob *dep = tj(4, (struct rect){200, 204, 8, 8});
	struct tjob *late = tj(5, (struct rect){100, 100, 8, 8});
	atomic_int go = 0;
	const char *why;
	int err;

	bad->fail = 1;
	bad2->fail = 1;
	atomic_store(&done_calls, 0);
	if (threads >= 2) {
		gate->wait_for = &go;
		gate->wait_ms = MEET_MS;
	}
	CHECK_EQ(submit(p, gate), 0);
	submit(p, bad);
	submit(p, bad2);
	submit(p, dep); /* waits for the gate, then is dropped */
	if (threads >= 2) {
		CHECK(wait_flag(&bad->ended, MEET_MS), "the failing job "
						       "never ran");
		/* Room for a wrong worker to run bad2 or dep. */
		wait_flag(&bad2->started, HOLD_MS);
		atomic_store(&go, 1);
	}
	err = decpool_drain(p);
	CHECK_EQ(err, -EIO);
	CHECK_EQ(decpool_error(p, &why), -EIO);
	CHECK(strcmp(why, "job 2 failed") == 0, "why: \"%s\"", why);
	CHECK(!atomic_load(&bad2->started), "a job ran after a failure");
	CHECK(!atomic_load(&dep->started), "a job ran after a failure");
	CHECK_EQ(atomic_load(&bad2->released), 1);
	CHECK_EQ(atomic_load(&dep->released), 1);
	CHECK_EQ(atomic_load(&bad->done_calls), 0);
	CHECK_EQ(atomic_load(&gate->done_calls), 1);
	CHECK_EQ(submit(p, late), -EIO);
	CHECK(!atomic_load(&late->started), "a job ran after a failure");
	CHECK_EQ(atomic_load(&late->released), 1);
	{
		struct decpool_job j = as_job(late);

		CHECK_EQ(decpool_direct(p, &j), -EIO);
	}
	CHECK_EQ(atomic_load(&late->released), 2);
	CHECK_EQ(decpool_error(p, &why), -EIO);
	CHECK(strcmp(why, "job 2 failed") == 0, "why: \"%s\"", why);
	decpool_destroy(p);
	tj_free_all();
}

/* Two jobs failing side by side: the first failure's reason stays. */
static void test_first_error(void)
{
	struct decpool *p = mkpool(2, 0);
	struct tjob *a = tj(1, (struct rect){0, 0, 8, 8});
	struct tjob *b = tj(2, (struct rect){50, 0, 8, 8});
	const char *why;

	a->fail = 1;
	b->fail = 1;
	/* Both run; b fails first, then a. */
	b->wait_for = &a->started;
	b->wait_ms = MEET_MS;
	a->wait_for = &b->ended;
	a->wait_ms = MEET_MS;
	CHECK_EQ(submit(p, a), 0);
	CHECK_EQ(submit(p, b), 0);
	CHECK_EQ(decpool_drain(p), -EIO);
	CHECK(atomic_load(&a->seen) && atomic_load(&b->seen));
	CHECK_EQ(decpool_error(p, &why), -EIO);
	CHECK(strcmp(why, "job 2 failed") == 0, "why: \"%s\"", why);
	decpool_destroy(p);
	tj_free_all();
}

/* A failing direct job fails the pool too. */
static void test_direct_error(void)
{
	struct decpool *p = mkpool(2, 0);
	struct tjob *d = tj(1, (struct rect){0, 0, 8, 8});
	struct tjob *after = tj(2, (struct rect){50, 0, 8, 8});
	struct decpool_job j;
	const char *why;

	d->fail = 1;
	j = as_job(d);
	CHECK_EQ(decpool_direct(p, &j), -EIO);
	CHECK_EQ(submit(p, after), -EIO);
	CHECK(!atomic_load(&after->started));
	CHECK_EQ(decpool_drain(p), -EIO);
	CHECK_EQ(decpool_error(p, &why), -EIO);
	CHECK(strcmp(why, "job 1 failed") == 0, "why: \"%s\"", why);
	decpool_destroy(p);
	tj_free_all();
}

/* A direct job runs on the submitting thread, as the submitter's worker,
 * after the earlier jobs it conflicts with, beside the others. */
static void test_direct(void)
{
	struct decpool *p = mkpool(2, 0);
	struct tjob *a = tj(1, (struct rect){0, 0, 16, 16});
	struct tjob *d = tj(2, (struct rect){8, 8, 16, 16});
	struct tjob *b = tj(3, (struct rect){0, 0, 16, 16});
	struct tjob *e = tj(4, (struct rect){100, 0, 16, 16});
	struct decpool_job j;

	atomic_store(&done_calls, 0);
	a->wait_for = &d->started;
	a->wait_ms = HOLD_MS;
	CHECK_EQ(submit(p, a), 0);
	j = as_job(d);
	CHECK_EQ(decpool_direct(p, &j), 0);
	CHECK(!atomic_load(&a->seen), "a direct job ran beside a job it "
				      "overlaps");
	CHECK(atomic_load(&d->ended), "a direct job had not run on return");
	CHECK(pthread_equal(d->thread, main_thread), "not on the submitter");
	CHECK_EQ(atomic_load(&d->worker), (int)decpool_submitter(p));
	CHECK_EQ(atomic_load(&d->done_calls), 1);
	CHECK(d->done_after_write);

	b->wait_for = &e->started;
	b->wait_ms = MEET_MS;
	CHECK_EQ(submit(p, b), 0);
	j = as_job(e);
	CHECK_EQ(decpool_direct(p, &j), 0);
	CHECK_EQ(decpool_drain(p), 0);
	CHECK(atomic_load(&b->seen), "an independent direct job waited");
	decpool_destroy(p);
	tj_free_all();
}

/* The byte cap: the submitter waits while queued jobs hold it; a job
 * larger than the cap still runs alone. */
static void test_cap(void)
{
	struct decpool *p = mkpool(2, 100);
	struct tjob *a = tj(1, (struct rect){0, 0, 8, 8});
	struct tjob *b = tj(2, (struct rect){50, 0, 8, 8});
	struct tjob *big = tj(3, (struct rect){100, 0, 8, 8});
	atomic_int returned = 0;

	a->bytes = 60;
	b->bytes = 60;
	a->wait_for = &returned;
	a->wait_ms = HOLD_MS;
	CHECK_EQ(submit(p, a), 0);
	CHECK_EQ(submit(p, b), 0);
	atomic_store(&returned, 1);
	CHECK(!atomic_load(&a->seen), "a submit over the cap did not wait");
	CHECK(atomic_load(&a->ended));
	big->bytes = 1000;
	CHECK_EQ(decpool_drain(p), 0);
	CHECK_EQ(submit(p, big), 0);
	CHECK_EQ(decpool_drain(p), 0);
	CHECK(atomic_load(&big->ended), "a job over the cap never ran");
	decpool_destroy(p);
	tj_free_all();
}

/* More jobs than DECPOOL_MAX_JOBS queued behind one: the submitter waits
 * for room, nothing is lost. */
static void test_many(void)
{
	enum { N = DECPOOL_MAX_JOBS * 3 };
	struct decpool *p = mkpool(2, 0);
	static struct tjob t[N];
	int ran = 0;

	memset(t, 0, sizeof(t));
	for (int i = 0; i < N; i++) {
		t[i].id = i;
		t[i].r = (struct rect){i % 7, 0, 1, 1};
		t[i].streams = 1u << (i % 3);
		CHECK_EQ(submit(p, &t[i]), 0);
	}
	CHECK_EQ(decpool_drain(p), 0);
	for (int i = 0; i < N; i++)
		ran += atomic_load(&t[i].ended) &&
		       atomic_load(&t[i].released) == 1;
	CHECK_EQ(ran, N);
	decpool_destroy(p);
}

/* 0 and 1 threads: no threads, each job done when submit returns, on the
 * submitting thread as worker 0. */
static void test_inline(unsigned threads)
{
	struct decpool *p = mkpool(threads, 0);
	struct tjob *a = tj(1, (struct rect){0, 0, 8, 8});
	struct tjob *b = tj(2, (struct rect){50, 0, 8, 8});
	struct decpool_job j;

	atomic_store(&done_calls, 0);
	CHECK_EQ(decpool_threads(p), 0);
	CHECK_EQ(decpool_slots(p), 1);
	CHECK_EQ(decpool_submitter(p), 0);
	CHECK_EQ(submit(p, a), 0);
	CHECK(atomic_load(&a->ended) && atomic_load(&a->released),
	      "inline job not run on submit");
	CHECK(pthread_equal(a->thread, main_thread));
	CHECK_EQ(atomic_load(&a->worker), 0);
	j = as_job(b);
	CHECK_EQ(decpool_direct(p, &j), 0);
	CHECK(atomic_load(&b->ended) && pthread_equal(b->thread, main_thread));
	CHECK_EQ(atomic_load(&done_calls), 2);
	CHECK_EQ(decpool_drain(p), 0);
	decpool_destroy(p);
	tj_free_all();
	test_error(threads);
}

/* --- random jobs on a small framebuffer, against a serial run --- */

#define FB 48
#define NSTREAMS 4

struct world {
	uint32_t fb[FB * FB];
	uint32_t stream[NSTREAMS];
};

struct rjob {
	struct world *w;
	struct rect r, src;
	uint32_t streams;
	uint32_t id;
};

static uint32_t mix(uint32_t a, uint32_t b)
{
	return (a ^ b) * 0x9e3779b1u + 0x7f4a7c15u;
}

/* Like a decoder: advance its streams, then write r from (its stream
 * state and) src or its own id. */
static int rrun(void *arg, unsigned worker, char *why, size_t len)
{
	struct rjob *j = arg;
	struct world *w = j->w;
	uint32_t tmp[FB * FB], k = j->id;
	int32_t x, y;

	if (atomic_fetch_add(&slot_busy[worker], 1) != 0)
		atomic_store(&slot_clash, 1);
	for (int s = 0; s < NSTREAMS; s++)
		if (j->streams & (1u << s)) {
			w->stream[s] = mix(w->stream[s], j->id);
			k = mix(k, w->stream[s]);
		}
	if (!rect_empty(&j->src)) {
		for (y = 0; y < j->r.h; y++)
			for (x = 0; x < j->r.w; x++)
				tmp[y * FB + x] =
				    w->fb[(j->src.y + y) * FB + j->src.x + x];
		for (y = 0; y < j->r.h; y++)
			for (x = 0; x < j->r.w; x++)
				w->fb[(j->r.y + y) * FB + j->r.x + x] =
				    mix(tmp[y * FB + x], k);
	} else {
		for (y = j->r.y; y < j->r.y + j->r.h; y++)
			for (x = j->r.x; x < j->r.x + j->r.w; x++)
				w->fb[y * FB + x] = mix(w->fb[y * FB + x], k);
	}
	atomic_fetch_sub(&slot_busy[worker], 1);
	return 0;
}

static uint32_t rnd(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

static struct rect rrect(uint32_t *s)
{
	int32_t w = 1 + (int32_t)(rnd(s) % 12), h = 1 + (int32_t)(rnd(s) % 12);

	return (struct rect){(int32_t)(rnd(s) % (FB - w + 1)),
			     (int32_t)(rnd(s) % (FB - h + 1)), w, h};
}

static void test_random(unsigned threads)
{
	enum { N = 3000 };
	static struct rjob jobs[N];
	static struct world par, ser;
	uint32_t s = 12345;
	struct decpool *p = mkpool(threads, 0);

	memset(&par, 0, sizeof(par));
	memset(&ser, 0, sizeof(ser));
	for (int i = 0; i < N; i++) {
		struct rjob *j = &jobs[i];

		j->w = &par;
		j->id = (uint32_t)i + 1;
		j->r = rrect(&s);
		j->src = (struct rect){0, 0, 0, 0};
		if (rnd(&s) % 5 == 0) {
			j->src = rrect(&s);
			j->src.w = j->r.w;
			j->src.h = j->r.h;
			if (j->src.x + j->src.w > FB)
				j->src.x = FB - j->src.w;
			if (j->src.y + j->src.h > FB)
				j->src.y = FB - j->src.h;
		}
		j->streams = rnd(&s) % 3 == 0 ? 1u << (rnd(&s) % NSTREAMS) : 0;
	}
	for (int i = 0; i < N; i++) {
		struct decpool_job dj = {.r = jobs[i].r,
					 .src = jobs[i].src,
					 .streams = jobs[i].streams,
					 .bytes = 100,
					 .run = rrun,
					 .arg = &jobs[i]};

		CHECK_EQ(i % 10 == 9 ? decpool_direct(p, &dj)
				     : decpool_submit(p, &dj),
			 0);
	}
	CHECK_EQ(decpool_drain(p), 0);
	decpool_destroy(p);
	for (int i = 0; i < N; i++) {
		jobs[i].w = &ser;
		rrun(&jobs[i], 0, NULL, 0);
	}
	CHECK(memcmp(par.fb, ser.fb, sizeof(par.fb)) == 0,
	      "%u threads: pixels differ from a serial run", threads);
	CHECK(memcmp(par.stream, ser.stream, sizeof(par.stream)) == 0,
	      "%u threads: stream states differ from a serial run", threads);
}

static void test_create(void)
{
	struct decpool_config cfg = {.threads = DECPOOL_MAX_THREADS + 1};
	struct decpool *p = (struct decpool *)&cfg;

	CHECK_EQ(decpool_create(&cfg, &p), -EINVAL);
	CHECK(p == NULL);
	decpool_destroy(NULL);
	cfg.threads = 3;
	CHECK_EQ(decpool_create(&cfg, &p), 0);
	CHECK_EQ(decpool_threads(p), 3);
	CHECK_EQ(decpool_slots(p), 4);
	CHECK_EQ(decpool_submitter(p), 3);
	decpool_destroy(p);
}

/* The default size: inline on one core, two workers on two, the other
 * cores than the blitter's above that, capped. */
static void test_auto(void)
{
	CHECK_EQ(decpool_auto_threads(1, -1), 1);
	CHECK_EQ(decpool_auto_threads(1, 0), 1);
	CHECK_EQ(decpool_auto_threads(2, 1), 2);
	CHECK_EQ(decpool_auto_threads(2, -1), 2);
	CHECK_EQ(decpool_auto_threads(3, 2), 2);
	CHECK_EQ(decpool_auto_threads(3, -1), 3);
	CHECK_EQ(decpool_auto_threads(4, 0), 3);
	CHECK_EQ(decpool_auto_threads(64, 0), DECPOOL_AUTO_MAX);
	/* Hextile on the reader while no core is free beside its and the
	 * blitter's. */
	CHECK(decpool_copies_direct(1));
	CHECK(decpool_copies_direct(2));
	CHECK(!decpool_copies_direct(3));
	CHECK(!decpool_copies_direct(8));
}

int main(void)
{
	main_thread = pthread_self();
	test_create();
	test_auto();
	test_ordering();
	test_skip_ahead();
	test_done();
	test_drain();
	test_error(2);
	test_error(4);
	test_first_error();
	test_direct_error();
	test_direct();
	test_cap();
	test_many();
	test_inline(0);
	test_inline(1);
	test_random(0);
	test_random(2);
	test_random(4);
	CHECK(!atomic_load(&slot_clash), "two runs shared a worker index");
	return check_done("decpool");
}
