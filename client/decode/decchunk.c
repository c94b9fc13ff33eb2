/* The server's bytes in shared, reused chunks (decchunk.h). */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "decode/decchunk.h"
#include "util/log.h"
#include "wire/rfb.h"

/* Idle standard chunks kept at most (bytes): what the pool lets queued
 * jobs hold, so that a steady stream allocates none. */
#define KEEP_MAX ((size_t)32 << 20)

struct dec_chunk {
	atomic_uint refs;
	size_t cap;
	struct dec_chunks *owner;
	struct dec_chunk *next; /* on the idle list */
	uint8_t data[];
};

struct dec_chunks {
	struct vnc_source base; /* what the reader reads */
	struct vnc_source *under;
	/* The chunk being filled (our reference), the next byte to parse
	 * and the end of what was read; the open span's first byte. */
	struct dec_chunk *cur;
	size_t pos, fill, start;
	bool open;
	/* The open span gave bytes up (dec_chunks_consume): its parser
	 * holds no pointer into it across dec_chunks_need, so it may
	 * slide. */
	bool consumed;
	uint64_t taken;	      /* bytes the parser has taken, in all */
	pthread_mutex_t lock; /* the idle list, taken by any thread */
	struct dec_chunk *idle;
	size_t idle_bytes;
};

static struct dec_chunks *of(struct vnc_source *s)
{
	return (struct dec_chunks *)(void *)s;
}

static void chunk_free(struct dec_chunk *k)
{
	free(k);
}

void dec_chunk_put(struct dec_chunk *k)
{
	struct dec_chunks *ch;

	if (!k ||
	    atomic_fetch_sub_explicit(&k->refs, 1, memory_order_acq_rel) != 1)
		return;
	ch = k->owner;
	pthread_mutex_lock(&ch->lock);
	if (ch->idle_bytes + k->cap <= KEEP_MAX) {
		k->next = ch->idle;
		ch->idle = k;
		ch->idle_bytes += k->cap;
		k = NULL;
	}
	pthread_mutex_unlock(&ch->lock);
	chunk_free(k);
}

/* A chunk of at least size bytes (DEC_CHUNK_SIZE at least) with one
 * reference, or NULL. */
static struct dec_chunk *chunk_get(struct dec_chunks *ch, size_t size)
{
	struct dec_chunk *k, **at;

	if (size < DEC_CHUNK_SIZE)
		size = DEC_CHUNK_SIZE;
	pthread_mutex_lock(&ch->lock);
	for (at = &ch->idle; *at && (*at)->cap < size; at = &(*at)->next)
		;
	k = *at;
	if (k) {
		*at = k->next;
		ch->idle_bytes -= k->cap;
	}
	pthread_mutex_unlock(&ch->lock);
	if (!k) {
		if (size > SIZE_MAX - sizeof(*k))
			return NULL;
		k = malloc(sizeof(*k) + size);
		if (!k)
			return NULL;
		k->cap = size;
		k->owner = ch;
	}
	atomic_init(&k->refs, 1);
	k->next = NULL;
	return k;
}

/* Nobody else holds the chunk and nothing is buffered in it: start it
 * over from its first byte (the common case without workers). */
static void rewind_idle(struct dec_chunks *ch)
{
	if (ch->cur && ch->pos == ch->fill && !ch->open &&
	    atomic_load_explicit(&ch->cur->refs, memory_order_acquire) == 1)
		ch->pos = ch->fill = 0;
}

/* Bytes from off on (off <= pos: the open span's, or the unread ones)
 * into a fresh chunk with room for want bytes from there: 0 or
 * -ENOMEM. */
static int move_to_fresh(struct dec_chunks *ch, size_t off, size_t want)
{
	size_t keep = ch->cur ? ch->fill - off : 0;
	size_t size = want < keep ? keep : want;
	struct dec_chunk *k;

	/* A span past a chunk grows by doubling, as a buffer would (up to
	 * the most a rectangle may hold). */
	if (size > DEC_CHUNK_SIZE && keep <= RFB_MAX_RECT_DATA / 2 &&
	    size < 2 * keep)
		size = 2 * keep;
	if (size > SIZE_MAX - DEC_CHUNK_AHEAD)
		return -ENOMEM;
	k = chunk_get(ch, size + DEC_CHUNK_AHEAD);
	if (!k) {
		log_error("out of memory for %zu bytes of the server's data",
			  size + DEC_CHUNK_AHEAD);
		return -ENOMEM;
	}
	if (keep)
		memcpy(k->data, ch->cur->data + off, keep);
	if (ch->cur) {
		ch->pos -= off;
		if (ch->open)
			ch->start -= off;
	}
	ch->fill = keep;
	dec_chunk_put(ch->cur);
	ch->cur = k;
	return 0;
}

/* The chunk holds bytes up to end (end <= cap): read what is missing,
 * and what else has arrived up to DEC_CHUNK_AHEAD past it. */
static int fill_to(struct dec_chunks *ch, size_t end)
{
	size_t min, max;
	ptrdiff_t got;

	if (ch->fill >= end)
		return 0;
	min = end - ch->fill;
	max = ch->cur->cap - ch->fill;
	if (max > min + DEC_CHUNK_AHEAD)
		max = min + DEC_CHUNK_AHEAD;
	got =
	    vnc_source_read_some(ch->under, ch->cur->data + ch->fill, min, max);
	if (got < 0)
		return -EIO;
	ch->fill += (size_t)got;
	return 0;
}

static int src_read(struct vnc_source *s, void *buf, size_t n)
{
	struct dec_chunks *ch = of(s);
	size_t have = ch->cur ? ch->fill - ch->pos : 0;
	uint8_t *p = buf;

	/* Nothing reads past an open span (decchunk.h). */
	if (ch->open)
		return -1;
	ch->taken += n;
	if (have >= n) {
		if (n)
			memcpy(p, ch->cur->data + ch->pos, n);
		ch->pos += n;
		return 0;
	}
	if (have) {
		memcpy(p, ch->cur->data + ch->pos, have);
		ch->pos += have;
		p += have;
		n -= have;
	}
	/* Nothing buffered now: a large read goes straight into buf. */
	if (n >= DEC_CHUNK_AHEAD)
		return vnc_source_read(ch->under, p, n);
	rewind_idle(ch);
	if ((!ch->cur || ch->cur->cap - ch->pos < n) &&
	    move_to_fresh(ch, ch->pos, n) != 0)
		return -1;
	if (fill_to(ch, ch->pos + n) != 0)
		return -1;
	memcpy(p, ch->cur->data + ch->pos, n);
	ch->pos += n;
	return 0;
}

static bool src_abandoned(const struct vnc_source *s)
{
	return vnc_source_abandoned(
	    ((const struct dec_chunks *)(const void *)s)->under);
}

static const struct vnc_source_ops chunk_ops = {
    .read = src_read,
    .abandoned = src_abandoned,
};

int dec_chunks_create(struct vnc_source *under, struct dec_chunks **out)
{
	struct dec_chunks *ch = calloc(1, sizeof(*ch));

	if (!ch)
		return -ENOMEM;
	if (pthread_mutex_init(&ch->lock, NULL) != 0) {
		free(ch);
		return -ENOMEM;
	}
	ch->base.ops = &chunk_ops;
	ch->under = under;
	*out = ch;
	return 0;
}

void dec_chunks_destroy(struct dec_chunks *ch)
{
	if (!ch)
		return;
	/* The chunk being filled goes back like any other (or is freed, when
	 * the idle list has no room for it): it is no longer ours to look at.
	 */
	dec_chunk_put(ch->cur);
	ch->cur = NULL;
	dec_chunks_trim(ch, 0);
	pthread_mutex_destroy(&ch->lock);
	free(ch);
}

struct vnc_source *dec_chunks_source(struct dec_chunks *ch)
{
	return &ch->base;
}

uint64_t dec_chunks_taken(const struct dec_chunks *ch)
{
	return ch->taken;
}

int dec_chunks_open(struct dec_chunks *ch, uint64_t most)
{
	rewind_idle(ch);
	if (!ch->cur ||
	    (most && most <= DEC_CHUNK_SIZE && ch->cur->cap - ch->pos < most)) {
		int ret = move_to_fresh(ch, ch->pos, (size_t)most);

		if (ret != 0)
			return ret;
	}
	ch->start = ch->pos;
	ch->open = true;
	ch->consumed = false;
	return 0;
}

void dec_chunks_consume(struct dec_chunks *ch, size_t n)
{
	if (!ch->open || n > ch->fill - ch->start)
		return;
	ch->start += n;
	ch->pos = ch->start;
	ch->taken += n;
	ch->consumed = true;
}

/* The open span far into a chunk only it uses, with little read of it
 * yet (a direct parser's, after dec_chunks_consume): back to the chunk's
 * start, so that the same memory is read into again. */
static void slide_back(struct dec_chunks *ch)
{
	size_t left = ch->fill - ch->start;

	if (!ch->consumed || ch->start < DEC_CHUNK_SLIDE ||
	    left > DEC_CHUNK_SLIDE / 4 ||
	    atomic_load_explicit(&ch->cur->refs, memory_order_acquire) != 1)
		return;
	memmove(ch->cur->data, ch->cur->data + ch->start, left);
	ch->fill = left;
	ch->start = ch->pos = 0;
}

uint8_t *dec_chunks_need(struct dec_chunks *ch, size_t n, size_t *have,
			 int *err)
{
	int ret;

	slide_back(ch);
	if (ch->cur->cap - ch->start < n) {
		ret = move_to_fresh(ch, ch->start, n);
		if (ret != 0) {
			*err = ret;
			return NULL;
		}
	}
	ret = fill_to(ch, ch->start + n);
	if (ret != 0) {
		*err = ret;
		return NULL;
	}
	*have = ch->fill - ch->start;
	return ch->cur->data + ch->start;
}

struct dec_chunk *dec_chunks_close(struct dec_chunks *ch, size_t len,
				   uint8_t **p)
{
	if (!ch->open)
		return NULL;
	ch->open = false;
	ch->pos = ch->start + len;
	ch->taken += len;
	if (len == 0)
		return NULL;
	atomic_fetch_add_explicit(&ch->cur->refs, 1, memory_order_relaxed);
	*p = ch->cur->data + ch->start;
	return ch->cur;
}

int dec_chunks_settle(struct dec_chunks *ch)
{
	size_t n = ch->cur ? ch->fill - ch->pos : 0;

	if (n && vnc_source_unread(ch->under, ch->cur->data + ch->pos, n) < 0)
		return -1;
	ch->fill = ch->pos;
	return 0;
}

void dec_chunks_trim(struct dec_chunks *ch, size_t keep)
{
	size_t cur;

	/* A large chunk being filled goes too once nothing is in it. */
	rewind_idle(ch);
	if (ch->cur && ch->cur->cap > DEC_CHUNK_SIZE && ch->fill == 0 &&
	    !ch->open &&
	    atomic_load_explicit(&ch->cur->refs, memory_order_acquire) == 1 &&
	    dec_chunks_kept(ch) > keep) {
		chunk_free(ch->cur);
		ch->cur = NULL;
		ch->pos = ch->fill = 0;
	}
	cur = ch->cur ? ch->cur->cap : 0;
	pthread_mutex_lock(&ch->lock);
	while (ch->idle && ch->idle_bytes + cur > keep) {
		struct dec_chunk *k = ch->idle;

		ch->idle = k->next;
		ch->idle_bytes -= k->cap;
		chunk_free(k);
	}
	pthread_mutex_unlock(&ch->lock);
}

size_t dec_chunks_kept(struct dec_chunks *ch)
{
	size_t n;

	pthread_mutex_lock(&ch->lock);
	n = ch->idle_bytes;
	pthread_mutex_unlock(&ch->lock);
	return n + (ch->cur ? ch->cur->cap : 0);
}
