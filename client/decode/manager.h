/* The decode manager: what the message reader hands a rectangle to once
 * its header is read (TigerVNC's DecodeManager beside its CMsgReader).
 * It reads a rectangle of a pooled encoding (dec_read_job) and queues it
 * on the pool (decpool.h); runs a direct one on the reader's thread once
 * what it overlaps is drawn; keeps the jobs' buffers for the next ones;
 * counts each update's jobs so that updates are reported whole and in
 * order; and hands damage to its owner (the reader, reader/rfbread.c).
 *
 * Threads: the reader's thread calls everything, and the ops' damage and
 * update_done run on it; drawn runs on whichever thread decoded the
 * rectangle (a worker, or the reader's inline). */
#ifndef VNCFB_DEC_MANAGER_H
#define VNCFB_DEC_MANAGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "decode/decchunk.h"
#include "decode/decode.h"
#include "util/rect.h"

/* A rectangle's header, as messages name it. */
struct dec_hdr {
	uint32_t x, y, w, h;
	int32_t enc;
	char encbuf[16];
	const char *name;
};

struct dec_manager_ops {
	/* Optional: rc's pixels are written (any thread): the owner copies
	 * them on (e.g. from the wire's format into the shadow). */
	void (*drawn)(void *ctx, const struct rect *rc);
	/* rc is decoded and drawn; every rectangle of the oldest update
	 * not yet reported is (the reader's thread). */
	void (*damage)(void *ctx, const struct rect *rc);
	void (*update_done)(void *ctx);
};

struct dec_manager;

/* A manager reading through dc (the reader's context, its frame buffer
 * the decoders' target) over chunks, inline until
 * dec_manager_set_threads: 0 or -errno. */
int dec_manager_create(struct dec_ctx *dc, struct dec_chunks *chunks,
		       const struct dec_manager_ops *ops, void *ctx,
		       struct dec_manager **out);
/* After a drain (or a failure): no job is left. */
void dec_manager_destroy(struct dec_manager *m);
/* A pool of threads (0 or 1: inline) in place of the current one, which
 * must be idle: 0, or -errno and the current one kept. */
int dec_manager_set_threads(struct dec_manager *m, unsigned threads);
unsigned dec_manager_threads(const struct dec_manager *m);
/* Whether a worker is free: a pool of threads with no job unfinished. */
bool dec_manager_idle(struct dec_manager *m);
/* CPU time the pool's workers spent decoding. */
uint64_t dec_manager_cpu_ns(const struct dec_manager *m);
/* Bytes of data buffers kept for the next jobs (the chunks' included). */
size_t dec_manager_kept(struct dec_manager *m);

/* The calls below return 0 or a DEC_* failure, with the reason (for
 * DEC_BAD and DEC_NOMEM) in dec_manager_why. */
/* Rectangle h at rc in decoder d's encoding, of the update being read:
 * read now and decoded by the pool (deferred), or read and drawn now,
 * after what it overlaps (direct). */
int dec_manager_deferred(struct dec_manager *m, const struct decoder *d,
			 const struct dec_hdr *h, const struct rect *rc);
int dec_manager_direct(struct dec_manager *m, const struct decoder *d,
		       const struct dec_hdr *h, const struct rect *rc);
/* Every rectangle read is decoded and reported. */
int dec_manager_drain(struct dec_manager *m);
/* What the pool decoded so far is reported, without waiting. */
int dec_manager_report_ready(struct dec_manager *m);
/* After a failure: wait for the jobs, report nothing. */
void dec_manager_stop(struct dec_manager *m);
const char *dec_manager_why(const struct dec_manager *m);

/* The update being read is over (its rectangles may still decode). */
void dec_manager_update_end(struct dec_manager *m);
/* Updates read are not all reported yet. */
bool dec_manager_behind(const struct dec_manager *m);
/* Another update may be read before these are whole. */
bool dec_manager_room(const struct dec_manager *m);
/* After an update, all its jobs back on the free list (drained): free
 * the data buffers past what the next updates are likely to need. */
void dec_manager_trim(struct dec_manager *m);

/* The reason for a rectangle that failed with ret (DEC_BAD, DEC_NOMEM),
 * the decoder's detail given, into buf. */
void dec_rect_why(char *buf, size_t len, const struct dec_hdr *h, int ret,
		  const char *detail);

#endif
