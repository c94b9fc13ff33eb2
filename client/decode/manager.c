/* The decode manager (manager.h): jobs, their order and the pool. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/decchunk.h"
#include "decode/decode.h"
#include "decode/decpool.h"
#include "decode/manager.h"
#include "shadow/damage.h"

/* A rectangle read, on its way through the decode pool. */
struct pjob {
	struct dec_job j;
	const struct decoder *d;
	struct dec_manager *m;
	struct dec_fb fb; /* the shadow when it was read */
	struct dec_hdr h;
	unsigned upd;	   /* its update's slot in upd_jobs */
	struct pjob *next; /* on the free list */
};

/* Data buffers kept on the free list for the next jobs, at most: past
 * that a finished job's buffer is freed. As much as the pool lets jobs in
 * flight hold, so that a steady stream reuses its buffers instead of
 * freeing and allocating some on every update. */
#define PJOB_KEEP_BYTES ((size_t)DECPOOL_MAX_BYTES)
/* After an update, the free list keeps twice the data the largest of the
 * last PJOB_KEEP_UPDATES updates read (buffers grow by doubling), and
 * PJOB_KEEP_FLOOR whatever they read: a burst's buffers go once ordinary
 * updates follow, a stream whose updates vary in size does not allocate
 * again, and many small rectangles do not free and allocate theirs. */
#define PJOB_KEEP_UPDATES 64
#define PJOB_KEEP_FLOOR ((size_t)4 << 20)
/* Updates read whose jobs may still be decoding, at most: past that the
 * reader waits for the oldest. */
#define UPD_RING 64

struct dec_manager {
	struct dec_ctx *dc; /* the reader's: reads, direct encodings */
	struct dec_chunks *chunks;
	struct dec_manager_ops ops;
	void *ctx;
	struct dec_job job; /* the direct encodings' */
	/* The pool (inline until dec_manager_set_threads) and one context
	 * per worker, sharing dc's streams. */
	struct decpool *pool;
	struct dec_ctx *wc;
	unsigned nwc;
	const struct decoder *direct_d; /* the direct rectangle's */
	const struct dec_hdr *direct_h;
	/* Taken by the pool's threads: */
	pthread_mutex_t lock;
	struct pjob *free;	/* jobs to reuse */
	size_t kept;		/* their data buffers' bytes */
	/* Main thread: data bytes the current update's jobs read; the most
	 * an update read lately, and for how many updates it has stood. */
	size_t upd_data, keep;
	unsigned keep_age;
	struct damage_set done; /* decoded since the last flush */
	/* Jobs of each update not yet decoded (slot: its number modulo
	 * UPD_RING), under lock; main thread: the number of the update
	 * being read and of the first not yet reported whole. */
	unsigned upd_jobs[UPD_RING];
	uint64_t upd_seq, upd_shown;
	char why[320];
};

static struct dec_ctx *ctx_of(struct dec_manager *m, unsigned worker)
{
	return worker < m->nwc ? &m->wc[worker] : m->dc;
}

void dec_rect_why(char *buf, size_t len, const struct dec_hdr *h, int ret,
		  const char *detail)
{
	if (ret == DEC_NOMEM)
		snprintf(buf, len,
			 "ran vncfb out of memory with a %s rectangle %ux%u "
			 "(%s)",
			 h->name, h->w, h->h, detail);
	else
		snprintf(buf, len, "sent a bad %s rectangle %ux%u at %u,%u: %s",
			 h->name, h->w, h->h, h->x, h->y, detail);
}

static int pool_failed(struct dec_manager *m, int ret)
{
	const char *why;

	decpool_error(m->pool, &why);
	snprintf(m->why, sizeof(m->why), "%s", why);
	return ret;
}

/* A worker (or the main thread, inline) decodes a job read earlier. */
static int job_run(void *arg, unsigned worker, char *why, size_t len)
{
	struct pjob *pj = arg;
	struct dec_ctx *c = ctx_of(pj->m, worker);
	int ret;

	c->why[0] = '\0';
	c->fb = pj->fb;
	ret = pj->d->decode(c, &pj->j);
	if (ret != DEC_OK && ret != DEC_EOF)
		dec_rect_why(why, len, &pj->h, ret, c->why);
	return ret;
}

static void job_put(struct dec_manager *m, struct pjob *pj)
{
	dec_job_unref(&pj->j);
	pthread_mutex_lock(&m->lock);
	if (m->kept + pj->j.data.cap > PJOB_KEEP_BYTES)
		dec_buf_free(&pj->j.data);
	m->kept += pj->j.data.cap;
	pj->next = m->free;
	m->free = pj;
	pthread_mutex_unlock(&m->lock);
}

static void job_release(void *arg)
{
	struct pjob *pj = arg;
	struct dec_manager *m = pj->m;

	pthread_mutex_lock(&m->lock);
	m->upd_jobs[pj->upd]--;
	pthread_mutex_unlock(&m->lock);
	job_put(m, pj);
}

void dec_manager_trim(struct dec_manager *m)
{
	size_t limit;

	if (m->upd_data >= m->keep || ++m->keep_age >= PJOB_KEEP_UPDATES) {
		m->keep = m->upd_data;
		m->keep_age = 0;
	}
	m->upd_data = 0;
	limit = m->keep > PJOB_KEEP_FLOOR / 2 ? 2 * m->keep : PJOB_KEEP_FLOOR;
	dec_chunks_trim(m->chunks, limit);
	pthread_mutex_lock(&m->lock);
	for (struct pjob *pj = m->free; pj && m->kept > limit; pj = pj->next) {
		m->kept -= pj->j.data.cap;
		dec_buf_free(&pj->j.data);
	}
	pthread_mutex_unlock(&m->lock);
}

size_t dec_manager_kept(struct dec_manager *m)
{
	size_t n;

	pthread_mutex_lock(&m->lock);
	n = m->kept;
	pthread_mutex_unlock(&m->lock);
	return n + dec_chunks_kept(m->chunks);
}

static struct pjob *job_get(struct dec_manager *m)
{
	struct pjob *pj;

	pthread_mutex_lock(&m->lock);
	pj = m->free;
	if (pj) {
		m->free = pj->next;
		m->kept -= pj->j.data.cap;
	}
	pthread_mutex_unlock(&m->lock);
	if (!pj) {
		pj = calloc(1, sizeof(*pj));
		if (pj)
			pj->m = m;
	}
	return pj;
}

/* A rectangle's pixels are in the frame buffer (any thread). */
static void job_done(void *ctx, const struct rect *rc)
{
	struct dec_manager *m = ctx;

	if (m->ops.drawn)
		m->ops.drawn(m->ctx, rc);

	/* Inline, this is the main thread: each rectangle as it is drawn,
	 * as the session had it before there were threads. */
	if (!decpool_threads(m->pool)) {
		m->ops.damage(m->ctx, rc);
		return;
	}
	pthread_mutex_lock(&m->lock);
	damage_set_add(&m->done, rc);
	pthread_mutex_unlock(&m->lock);
}

/* Hand what is decoded to the owner, on this (the main) thread: the
 * damage, then update_done for each update now whole, oldest first. A
 * job is counted off its update after its damage is in done, so taking
 * both under one lock never reports an update before its pixels. */
static void report(struct dec_manager *m)
{
	struct damage_set s;
	unsigned whole = 0;

	pthread_mutex_lock(&m->lock);
	s = m->done;
	m->done.n = 0;
	while (m->upd_shown + whole < m->upd_seq &&
	       m->upd_jobs[(m->upd_shown + whole) % UPD_RING] == 0)
		whole++;
	pthread_mutex_unlock(&m->lock);
	for (int i = 0; i < s.n; i++)
		m->ops.damage(m->ctx, &s.rects[i]);
	for (; whole; whole--) {
		m->upd_shown++;
		m->ops.update_done(m->ctx);
	}
}

int dec_manager_drain(struct dec_manager *m)
{
	int ret = decpool_drain(m->pool);

	report(m);
	return ret < 0 ? pool_failed(m, ret) : 0;
}

void dec_manager_stop(struct dec_manager *m)
{
	decpool_drain(m->pool);
}

static void free_pool(struct dec_manager *m)
{
	decpool_destroy(m->pool);
	m->pool = NULL;
	for (unsigned i = 0; i < m->nwc; i++)
		dec_ctx_finish(&m->wc[i]);
	free(m->wc);
	m->wc = NULL;
	m->nwc = 0;
}

/* A pool of threads (0 or 1: inline) in place of the current one (which
 * must be idle), or -errno and the current one kept. */
static int make_pool(struct dec_manager *m, unsigned threads)
{
	const struct decpool_config cfg = {
	    .threads = threads, .done = job_done, .ctx = m};
	unsigned n = threads >= 2 ? threads : 0;
	struct dec_ctx *wc = NULL;
	struct decpool *pool;
	int err;

	if (n) {
		wc = calloc(n, sizeof(*wc));
		if (!wc)
			return -ENOMEM;
		for (unsigned i = 0; i < n; i++)
			dec_ctx_init_worker(&wc[i], m->dc);
	}
	/* Its workers find no job before the swap below. */
	err = decpool_create(&cfg, &pool);
	if (err < 0) {
		free(wc);
		return err;
	}
	free_pool(m);
	m->pool = pool;
	m->wc = wc;
	m->nwc = n;
	return 0;
}

int dec_manager_create(struct dec_ctx *dc, struct dec_chunks *chunks,
		       const struct dec_manager_ops *ops, void *ctx,
		       struct dec_manager **out)
{
	struct dec_manager *m = calloc(1, sizeof(*m));
	int err;

	if (!m)
		return -ENOMEM;
	m->dc = dc;
	m->chunks = chunks;
	m->ops = *ops;
	m->ctx = ctx;
	err = -pthread_mutex_init(&m->lock, NULL);
	if (err < 0)
		goto err_free;
	err = make_pool(m, 0);
	if (err < 0)
		goto err_lock;
	*out = m;
	return 0;

err_lock:
	pthread_mutex_destroy(&m->lock);
err_free:
	free(m);
	return err;
}

void dec_manager_destroy(struct dec_manager *m)
{
	if (!m)
		return;
	free_pool(m);
	while (m->free) {
		struct pjob *pj = m->free;

		m->free = pj->next;
		dec_buf_free(&pj->j.data);
		free(pj);
	}
	pthread_mutex_destroy(&m->lock);
	dec_job_unref(&m->job);
	dec_buf_free(&m->job.data);
	free(m);
}

int dec_manager_set_threads(struct dec_manager *m, unsigned threads)
{
	if (threads == decpool_threads(m->pool) ||
	    (threads < 2 && decpool_threads(m->pool) == 0))
		return 0;
	return make_pool(m, threads);
}

unsigned dec_manager_threads(const struct dec_manager *m)
{
	return decpool_threads(m->pool);
}

bool dec_manager_idle(struct dec_manager *m)
{
	return decpool_threads(m->pool) && decpool_pending(m->pool) == 0;
}

uint64_t dec_manager_cpu_ns(const struct dec_manager *m)
{
	return decpool_cpu_ns(m->pool);
}

const char *dec_manager_why(const struct dec_manager *m)
{
	return m->why;
}

/* A direct encoding, or a copy-bound one with copies_direct, reads and
 * draws on the main thread (the pool's submitter), once what it overlaps
 * is drawn. */
static int direct_run(void *arg, unsigned worker, char *why, size_t len)
{
	struct dec_manager *m = arg;
	int ret = dec_rect(m->dc, m->direct_d, &m->job);

	if (ret != DEC_OK && ret != DEC_EOF)
		dec_rect_why(why, len, m->direct_h, ret, m->dc->why);
	return ret;
}

int dec_manager_direct(struct dec_manager *m, const struct decoder *d,
		       const struct dec_hdr *h, const struct rect *rc)
{
	struct decpool_job pj = {.r = *rc, .run = direct_run, .arg = m};
	int ret;

	m->job.enc = h->enc;
	m->job.r = *rc;
	m->direct_d = d;
	m->direct_h = h;
	ret = decpool_direct(m->pool, &pj);
	return ret < 0 ? pool_failed(m, ret) : 0;
}

/* Read on this thread, decoded by the pool. */
int dec_manager_deferred(struct dec_manager *m, const struct decoder *d,
			 const struct dec_hdr *h, const struct rect *rc)
{
	struct pjob *pj = job_get(m);
	struct decpool_job job;
	int ret;

	if (!pj) {
		snprintf(m->why, sizeof(m->why),
			 "ran vncfb out of memory with a %s rectangle %ux%u",
			 h->name, h->w, h->h);
		return DEC_NOMEM;
	}
	pj->d = d;
	pj->h = *h;
	if (h->name == h->encbuf)
		pj->h.name = pj->h.encbuf;
	pj->fb = m->dc->fb;
	pj->j.enc = h->enc;
	pj->j.r = *rc;
	ret = dec_read_job(m->dc, d, &pj->j);
	if (ret != DEC_OK) {
		job_put(m, pj);
		dec_rect_why(m->why, sizeof(m->why), h, ret, m->dc->why);
		return ret;
	}
	m->upd_data += pj->j.data.len;
	pj->upd = (unsigned)(m->upd_seq % UPD_RING);
	pthread_mutex_lock(&m->lock);
	m->upd_jobs[pj->upd]++;
	pthread_mutex_unlock(&m->lock);
	/* A job in the chunks holds its bytes there (data.cap 0). */
	job = (struct decpool_job){
	    .r = pj->j.r,
	    .src = pj->j.src,
	    .streams = pj->j.streams,
	    .bytes = sizeof(*pj) +
		     (pj->j.data.cap ? pj->j.data.cap : pj->j.data.len),
	    .run = job_run,
	    .release = job_release,
	    .arg = pj};
	ret = decpool_submit(m->pool, &job);
	return ret < 0 ? pool_failed(m, ret) : 0;
}

int dec_manager_report_ready(struct dec_manager *m)
{
	const char *why;
	int err;

	if (m->upd_shown == m->upd_seq)
		return 0;
	err = decpool_error(m->pool, &why);
	if (err < 0) {
		snprintf(m->why, sizeof(m->why), "%s", why);
		return err;
	}
	report(m);
	return 0;
}

void dec_manager_update_end(struct dec_manager *m)
{
	m->upd_seq++;
}

bool dec_manager_behind(const struct dec_manager *m)
{
	return m->upd_shown != m->upd_seq;
}

bool dec_manager_room(const struct dec_manager *m)
{
	return m->upd_seq - m->upd_shown < UPD_RING - 1;
}
