/* The decode pool: runs rectangle decodes on worker threads in the order
 * the protocol needs and no more, as TigerVNC's decode manager does.
 *
 * A job says what it touches: the pixels it writes (r), the pixels it
 * reads (src: CopyRect) and the zlib streams whose state it advances
 * (streams, a bit set). Jobs are submitted in server order. A job runs as
 * soon as no earlier unfinished job conflicts with it: its r overlaps
 * their r or src, its src overlaps their r, or it shares a stream bit
 * with them. Everything else runs at once, on any free worker. A "direct"
 * job (an encoding that draws while it reads) runs on the submitting
 * thread once its conflicts are finished. When a job's run has returned,
 * the pool reports its rectangle (config done): damage reaches the
 * blitter only once the pixels are in the shadow.
 *
 * The first job that fails (run < 0, with a reason) fails the pool: the
 * jobs still queued are dropped, and every later call returns that error,
 * so the owner reports it once and ends the connection.
 *
 * Threads: 0 or 1 asks for no threads at all: every job runs inline on
 * the submitting thread, in order. With N >= 2 the pool starts N workers,
 * unpinned (they inherit the creating thread's affinity, which is never
 * the blit thread's pin), but on a big.LITTLE system (cores of different
 * capacity, platform_cpu_capacity) each may run on the big cores only:
 * decoding is the pipeline's heaviest work. One thread (the one that owns the connection)
 * calls everything here; run, release and done run on the workers or on
 * that thread, with run's worker index naming the scratch state it may
 * use (decpool_slots). */
#ifndef VNCFB_DECPOOL_H
#define VNCFB_DECPOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/rect.h"

/* Room for a failing job's reason. */
#define DECPOOL_WHY_LEN 256
/* Default cap on the bytes queued jobs hold (decpool_config.max_bytes):
 * a few full 1080p frames of compressed data. */
#define DECPOOL_MAX_BYTES (32u << 20)
/* Jobs queued at most (each scheduling step looks at all of them). */
#define DECPOOL_MAX_JOBS 256
/* Worker threads at most, and at most by default: past a few, the main
 * thread reading the socket is the limit. */
#define DECPOOL_MAX_THREADS 16
#define DECPOOL_AUTO_MAX 4

struct decpool_job {
	struct rect r;	  /* pixels written */
	struct rect src;  /* pixels read (CopyRect), else empty */
	uint32_t streams; /* stream bits whose state run advances */
	size_t bytes;	  /* memory held until release, for the cap */
	/* Decode: 0, or < 0 with a reason (one phrase) in why. worker is
	 * in [0, decpool_slots()): the state it may use alone. */
	int (*run)(void *arg, unsigned worker, char *why, size_t len);
	/* Optional: the job is over (run, or dropped after a failure). */
	void (*release)(void *arg);
	void *arg;
};

struct decpool_config {
	/* Decoding threads: 0 or 1 inline, else that many workers (at most
	 * DECPOOL_MAX_THREADS). */
	unsigned threads;
	/* Cap on queued jobs' bytes (0: DECPOOL_MAX_BYTES); submit waits
	 * while it is reached. A larger job alone still runs. */
	size_t max_bytes;
	/* Optional: a job's run succeeded, its pixels in r are written.
	 * Any thread; the pool holds no lock. */
	void (*done)(void *ctx, const struct rect *r);
	void *ctx;
};

struct decpool;

/* 0 with *out, or -errno (no thread left running). */
int decpool_create(const struct decpool_config *cfg, struct decpool **out);
/* Wait for every job, stop the workers, free. NULL: no-op. */
void decpool_destroy(struct decpool *p);

/* Worker threads running (0 inline). */
unsigned decpool_threads(const struct decpool *p);
/* CPU time the workers have used so far, ns (0 inline, or NULL). */
uint64_t decpool_cpu_ns(const struct decpool *p);
/* Worker indices run may be given: the workers 0..threads-1, then the
 * submitting thread (decpool_submitter). */
unsigned decpool_slots(const struct decpool *p);
unsigned decpool_submitter(const struct decpool *p);

/* Queue j (copied) behind the earlier jobs: 0, or the pool's error (j is
 * released, not run). Waits while the queue is full. */
int decpool_submit(struct decpool *p, const struct decpool_job *j);
/* Run j on this thread (worker decpool_submitter) once no earlier
 * unfinished job conflicts with it; then done. 0 or the pool's error
 * (its own failure included). */
int decpool_direct(struct decpool *p, const struct decpool_job *j);
/* Wait until every submitted job is over: 0 or the pool's error. */
int decpool_drain(struct decpool *p);
/* The pool's error (0 if none) and its reason. */
int decpool_error(struct decpool *p, const char **why);
/* Jobs submitted and not over yet (0 inline). */
unsigned decpool_pending(struct decpool *p);

/* The default number of decoding threads (for decpool_config.threads)
 * with online usable cores and the blit thread pinned to blit_cpu (-1:
 * unpinned). Measured on 2 cores: doc/decode-threads.md. */
unsigned decpool_auto_threads(int online, int blit_cpu);
/* Whether the reader should draw copy-bound rectangles itself
 * (decoder.copy_bound) with online usable cores: when no core is left
 * beside the reader's and the blitter's. Measured on 2 cores:
 * doc/decode-threads.md. */
bool decpool_copies_direct(int online);

/* Whether b, submitted after a, must wait for it (the rule above). */
bool decpool_conflict(const struct decpool_job *a, const struct decpool_job *b);

#endif
