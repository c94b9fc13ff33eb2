/* The decode pool: ordering by overlap and stream, worker threads, the
 * byte cap (decpool.h). */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "decode/decpool.h"
#include "util/clock.h"
#include "util/cpu.h"
#include "util/log.h"
#include "platform/platform.h"

/* A queued or running job, on the list in submission order. */
struct node {
	struct decpool_job job;
	struct node *prev, *next;
	bool running;
};

struct worker {
	struct decpool *pool;
	pthread_t thread;
	unsigned index;
};

struct decpool {
	struct decpool_config cfg;
	unsigned threads;
	pthread_mutex_t lock;
	pthread_cond_t work; /* workers: a job may have become runnable */
	pthread_cond_t idle; /* submitter: a job finished */
	/* Under lock: */
	struct node *head, *tail; /* unfinished jobs, oldest first */
	struct node *free;	  /* unused nodes */
	unsigned queued;	  /* nodes on the list */
	size_t bytes;		  /* their job.bytes */
	bool stop;
	int err;
	char why[DECPOOL_WHY_LEN];
	struct node nodes[DECPOOL_MAX_JOBS];
	struct worker workers[DECPOOL_MAX_THREADS];
};

static bool overlap(const struct rect *a, const struct rect *b)
{
	struct rect i;

	return rect_intersect(a, b, &i);
}

bool decpool_conflict(const struct decpool_job *a, const struct decpool_job *b)
{
	return (a->streams & b->streams) || overlap(&b->r, &a->r) ||
	       overlap(&b->r, &a->src) || overlap(&b->src, &a->r);
}

/* Whether j must wait for a job on the list before stop (NULL: all).
 * Under lock. */
static bool blocked(const struct decpool *p, const struct decpool_job *j,
		    const struct node *stop)
{
	for (const struct node *n = p->head; n && n != stop; n = n->next)
		if (decpool_conflict(&n->job, j))
			return true;
	return false;
}

/* The oldest queued job nothing earlier holds back, or NULL. Under lock.
 * The stream bits of everything before a candidate are collected on the
 * way, so a long run of one stream's jobs costs a mask test each. */
static struct node *runnable(struct decpool *p)
{
	uint32_t streams = 0;

	for (struct node *n = p->head; n; n = n->next) {
		if (!n->running && !(n->job.streams & streams) &&
		    !blocked(p, &n->job, n))
			return n;
		streams |= n->job.streams;
	}
	return NULL;
}

/* After a failure: a queued job to drop, or NULL. Under lock. */
static struct node *droppable(struct decpool *p)
{
	if (!p->err)
		return NULL;
	for (struct node *n = p->head; n; n = n->next)
		if (!n->running)
			return n;
	return NULL;
}

/* Record the first failure. Under lock. */
static void fail(struct decpool *p, int err, const char *why)
{
	if (p->err)
		return;
	p->err = err < 0 ? err : -EIO;
	snprintf(p->why, sizeof(p->why), "%s", why[0] ? why : "failed");
}

static void unlink_node(struct decpool *p, struct node *n)
{
	if (n->prev)
		n->prev->next = n->next;
	else
		p->head = n->next;
	if (n->next)
		n->next->prev = n->prev;
	else
		p->tail = n->prev;
	p->queued--;
	p->bytes -= n->job.bytes;
	n->next = p->free;
	p->free = n;
}

static void release(const struct decpool_job *j)
{
	if (j->release)
		j->release(j->arg);
}

/* Run j on this thread as worker w: 0 or run's error (reason in why).
 * Without the lock. */
static int run_job(struct decpool *p, const struct decpool_job *j, unsigned w,
		   char *why)
{
	int err;

	why[0] = '\0';
	err = j->run(j->arg, w, why, DECPOOL_WHY_LEN);
	if (err == 0 && p->cfg.done && !rect_empty(&j->r))
		p->cfg.done(p->cfg.ctx, &j->r);
	return err;
}

static void *worker_main(void *arg)
{
	struct worker *wk = arg;
	struct decpool *p = wk->pool;
	char name[16], why[DECPOOL_WHY_LEN];

	snprintf(name, sizeof(name), "vncfb-dec%u", wk->index);
	platform_name_thread(name);
	pthread_mutex_lock(&p->lock);
	for (;;) {
		struct node *n;
		int err;

		/* After a failure nothing more is drawn: drop the rest,
		 * each released before drain can see it gone. */
		while ((n = droppable(p))) {
			n->running = true;
			pthread_mutex_unlock(&p->lock);
			release(&n->job);
			pthread_mutex_lock(&p->lock);
			unlink_node(p, n);
			pthread_cond_broadcast(&p->idle);
		}
		n = runnable(p);
		if (!n) {
			if (p->stop)
				break;
			pthread_cond_wait(&p->work, &p->lock);
			continue;
		}
		n->running = true;
		pthread_mutex_unlock(&p->lock);
		err = run_job(p, &n->job, wk->index, why);
		release(&n->job);
		pthread_mutex_lock(&p->lock);
		if (err)
			fail(p, err, why);
		unlink_node(p, n);
		/* Jobs behind it may run now; the submitter may be waiting
		 * for it (drain, the cap, a direct job). */
		pthread_cond_broadcast(&p->work);
		pthread_cond_broadcast(&p->idle);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

/* On a big.LITTLE system, let the workers run on the online big cores
 * only (a little core decodes at a fraction of a big one's speed). A
 * failure to pin costs speed, not correctness: said at debug level. */
static void workers_on_big(struct decpool *p)
{
	int n = platform_cpu_count(), nbig = 0, i;
	int *cap = calloc((size_t)n, 2 * sizeof(int));
	enum cpu_class *cls = calloc((size_t)n, sizeof(*cls));
	int *big = cap ? cap + n : NULL;
	char list[128];
	size_t used = 0;

	if (!cap || !cls)
		goto out;
	for (i = 0; i < n; i++)
		cap[i] = platform_cpu_online(i) ? platform_cpu_capacity(i) : -1;
	cpu_classify(cap, n, cls);
	for (i = 0; i < n; i++) {
		if (cls[i] != CPU_CLASS_BIG)
			continue;
		big[nbig++] = i;
		if (used < sizeof(list))
			used += (size_t)snprintf(list + used,
						 sizeof(list) - used, "%s%d",
						 used ? "," : "", i);
	}
	if (!nbig)
		goto out;
	for (unsigned w = 0; w < p->threads; w++) {
		int err = platform_pin_thread_set(p->workers[w].thread, big,
						  nbig);

		if (err < 0) {
			log_debug("decode: cannot keep the workers on the big "
				  "cores %s: %s", list, strerror(-err));
			goto out;
		}
	}
	log_info("decode: %u workers on the big cores %s", p->threads, list);
out:
	free(cap);
	free(cls);
}

int decpool_create(const struct decpool_config *cfg, struct decpool **out)
{
	struct decpool *p;
	int err;

	*out = NULL;
	if (cfg->threads > DECPOOL_MAX_THREADS)
		return -EINVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->cfg = *cfg;
	if (!p->cfg.max_bytes)
		p->cfg.max_bytes = DECPOOL_MAX_BYTES;
	for (unsigned i = 0; i < DECPOOL_MAX_JOBS; i++) {
		p->nodes[i].next = p->free;
		p->free = &p->nodes[i];
	}
	err = -pthread_mutex_init(&p->lock, NULL);
	if (err)
		goto fail_free;
	err = -pthread_cond_init(&p->work, NULL);
	if (err)
		goto fail_lock;
	err = -pthread_cond_init(&p->idle, NULL);
	if (err)
		goto fail_work;
	if (cfg->threads >= 2) {
		for (unsigned i = 0; i < cfg->threads; i++) {
			struct worker *wk = &p->workers[i];

			wk->pool = p;
			wk->index = i;
			err =
			    -pthread_create(&wk->thread, NULL, worker_main, wk);
			if (err)
				goto fail_threads;
			p->threads++;
		}
		workers_on_big(p);
	}
	*out = p;
	return 0;

fail_threads:
	decpool_destroy(p);
	return err;
fail_work:
	pthread_cond_destroy(&p->work);
fail_lock:
	pthread_mutex_destroy(&p->lock);
fail_free:
	free(p);
	return err;
}

void decpool_destroy(struct decpool *p)
{
	if (!p)
		return;
	decpool_drain(p);
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_broadcast(&p->work);
	pthread_mutex_unlock(&p->lock);
	for (unsigned i = 0; i < p->threads; i++)
		pthread_join(p->workers[i].thread, NULL);
	pthread_cond_destroy(&p->idle);
	pthread_cond_destroy(&p->work);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

unsigned decpool_threads(const struct decpool *p)
{
	return p->threads;
}

uint64_t decpool_cpu_ns(const struct decpool *p)
{
	uint64_t sum = 0;
	clockid_t id;
	unsigned i;

	for (i = 0; p && i < p->threads; i++)
		if (pthread_getcpuclockid(p->workers[i].thread, &id) == 0)
			sum += clock_ns(id);
	return sum;
}

unsigned decpool_slots(const struct decpool *p)
{
	return p->threads + 1;
}

unsigned decpool_submitter(const struct decpool *p)
{
	return p->threads;
}

/* Inline: the job runs here and now, in order by construction. */
static int run_inline(struct decpool *p, const struct decpool_job *j)
{
	char why[DECPOOL_WHY_LEN];
	int err;

	if (p->err) {
		release(j);
		return p->err;
	}
	err = run_job(p, j, 0, why);
	release(j);
	if (err)
		fail(p, err, why);
	return p->err;
}

int decpool_submit(struct decpool *p, const struct decpool_job *j)
{
	struct node *n;

	if (!p->threads)
		return run_inline(p, j);
	pthread_mutex_lock(&p->lock);
	/* The cap: wait for room, but never for a job alone in the pool
	 * (it could not be run otherwise). */
	while (!p->err && p->head &&
	       (!p->free || p->bytes + j->bytes > p->cfg.max_bytes))
		pthread_cond_wait(&p->idle, &p->lock);
	if (p->err) {
		int err = p->err;

		pthread_mutex_unlock(&p->lock);
		release(j);
		return err;
	}
	n = p->free;
	p->free = n->next;
	n->job = *j;
	n->running = false;
	n->next = NULL;
	n->prev = p->tail;
	if (p->tail)
		p->tail->next = n;
	else
		p->head = n;
	p->tail = n;
	p->queued++;
	p->bytes += j->bytes;
	pthread_cond_signal(&p->work);
	pthread_mutex_unlock(&p->lock);
	return 0;
}

int decpool_direct(struct decpool *p, const struct decpool_job *j)
{
	char why[DECPOOL_WHY_LEN];
	int err;

	if (!p->threads)
		return run_inline(p, j);
	pthread_mutex_lock(&p->lock);
	while (!p->err && blocked(p, j, NULL))
		pthread_cond_wait(&p->idle, &p->lock);
	err = p->err;
	pthread_mutex_unlock(&p->lock);
	if (err) {
		release(j);
		return err;
	}
	/* Later jobs are not submitted before this returns, and earlier
	 * ones that still run touch nothing it touches. */
	err = run_job(p, j, p->threads, why);
	release(j);
	if (!err)
		return 0;
	pthread_mutex_lock(&p->lock);
	fail(p, err, why);
	err = p->err;
	pthread_cond_broadcast(&p->work);
	pthread_mutex_unlock(&p->lock);
	return err;
}

int decpool_drain(struct decpool *p)
{
	int err;

	if (!p->threads)
		return p->err;
	pthread_mutex_lock(&p->lock);
	while (p->head)
		pthread_cond_wait(&p->idle, &p->lock);
	err = p->err;
	pthread_mutex_unlock(&p->lock);
	return err;
}

int decpool_error(struct decpool *p, const char **why)
{
	int err;

	pthread_mutex_lock(&p->lock);
	err = p->err;
	pthread_mutex_unlock(&p->lock);
	*why = err ? p->why : "";
	return err;
}

unsigned decpool_pending(struct decpool *p)
{
	unsigned n;

	if (!p->threads)
		return 0;
	pthread_mutex_lock(&p->lock);
	n = p->queued;
	pthread_mutex_unlock(&p->lock);
	return n;
}

unsigned decpool_auto_threads(int online, int blit_cpu)
{
	int n;

	if (online <= 1)
		return 1;
	/* 2 cores: two workers beside the main thread and the blitter beat
	 * decoding on the main thread (doc/decode-threads.md). Above
	 * that, the blitter's core is left to it. */
	if (online == 2)
		return 2;
	n = blit_cpu >= 0 ? online - 1 : online;
	return n > DECPOOL_AUTO_MAX ? DECPOOL_AUTO_MAX : (unsigned)n;
}

bool decpool_copies_direct(int online)
{
	/* On 2 cores a worker drawing hextile shares a core with the reader
	 * or the blitter and reads the bytes from the other core's cache:
	 * 0.3-0.8x the updates/s of drawing them on the reader, at up to
	 * 1.5x the CPU (doc/decode-threads.md). */
	return online <= 2;
}
