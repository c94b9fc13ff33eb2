/* The server's bytes in shared chunks: a source over another one that
 * reads it in large pieces into reused 4 MiB chunks, so that the
 * rectangles the decode pool draws later point into those bytes instead
 * of each taking a copy.
 *
 * The reader reads every message through dec_chunks_source(); a decoder
 * whose job keeps the rectangle's bytes as they came (raw, hextile, TRLE,
 * Tight, ZRLE...) opens a span at its first byte, grows it with
 * dec_chunks_need (the span's bytes stay contiguous: a span that outgrows
 * its chunk moves, with what was read past it, to a fresh chunk) and
 * closes it, which gives the job a reference on the chunk. Bytes read
 * past a rectangle stay in the chunk for the next one (no copy back);
 * at the end of each message dec_chunks_settle gives what was read past
 * it back to the source below, so that its owner, which polls the
 * socket, sees them.
 *
 * Threads: everything on the thread that reads the connection, but
 * dec_chunk_put, which any thread may call (a worker done with a job). */
#ifndef VNCFB_DECCHUNK_H
#define VNCFB_DECCHUNK_H

#include <stddef.h>
#include <stdint.h>

#include "wire/vncsrc.h"

/* A chunk's size: a span that needs more gets a chunk of its own. */
#define DEC_CHUNK_SIZE ((size_t)4 << 20)
/* What one read asks for past what the parser needs. */
#define DEC_CHUNK_AHEAD ((size_t)64 << 10)
/* How far into a chunk a direct parser reads before what is left slides
 * back to its start (dec_chunks_consume): within the L2 cache of the
 * cores of the day, with the read ahead. */
#define DEC_CHUNK_SLIDE ((size_t)256 << 10)

struct dec_chunk;
struct dec_chunks;

/* 0 with *out, or -ENOMEM. under stays the caller's. */
int dec_chunks_create(struct vnc_source *under, struct dec_chunks **out);
/* Once no job holds a chunk any more (the pool is gone). NULL: no-op. */
void dec_chunks_destroy(struct dec_chunks *ch);
struct vnc_source *dec_chunks_source(struct dec_chunks *ch);
/* Bytes the parser has taken so far (read through the source, and spans
 * closed), whatever was read ahead of it: where it is in the stream. */
uint64_t dec_chunks_taken(const struct dec_chunks *ch);

/* Open a span at the next unread byte; most bounds its length (0: not
 * known), so that a span that will not fit starts in a fresh chunk with
 * nothing to move. 0 or -ENOMEM. */
int dec_chunks_open(struct dec_chunks *ch, uint64_t most);
/* The open span holds at least n bytes (read from below as needed, up to
 * DEC_CHUNK_AHEAD more as have arrived): its first byte, valid until the
 * next call, with *have the bytes there from it (>= n); NULL with *err
 * -EIO when the source failed (its owner says why), -ENOMEM when memory
 * ran out. */
uint8_t *dec_chunks_need(struct dec_chunks *ch, size_t n, size_t *have,
			 int *err);
/* A parser that draws as it reads (decoder.read_draw) is done with the
 * open span's first n bytes (n at most what dec_chunks_need gave): the
 * span starts after them, and once DEC_CHUNK_SLIDE bytes of the chunk
 * are behind it and no job holds the chunk, dec_chunks_need slides what
 * is left back to the chunk's start. A rectangle of any size is then
 * read through the same few hundred KiB, which stay in the cache,
 * instead of through megabytes of chunks that do not. */
void dec_chunks_consume(struct dec_chunks *ch, size_t n);
/* The span's first len bytes are read (the rest is the next message's):
 * close it and return its chunk with a reference for the caller (put it
 * with dec_chunk_put), and in *p its first byte. len 0 (or no open span):
 * NULL. */
struct dec_chunk *dec_chunks_close(struct dec_chunks *ch, size_t len,
				   uint8_t **p);
/* Give back what was read past the last message to the source below:
 * 0, or -1 out of memory. */
int dec_chunks_settle(struct dec_chunks *ch);
/* Free idle chunks while more than keep bytes are kept (a large chunk
 * being filled, once empty, too). */
void dec_chunks_trim(struct dec_chunks *ch, size_t keep);
/* The bytes of the chunks kept: idle ones and the one being filled. */
size_t dec_chunks_kept(struct dec_chunks *ch);

/* Drop a reference (any thread); NULL: no-op. */
void dec_chunk_put(struct dec_chunk *k);

#endif
