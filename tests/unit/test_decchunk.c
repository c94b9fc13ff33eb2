/* The shared chunks of the server's bytes (client/decode/decchunk.h):
 * reads and spans give the stream's bytes in order, across chunks and
 * past a chunk's size; a span a job holds is never overwritten; what was
 * read past a message goes back to the source; idle chunks are trimmed. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "decode/decchunk.h"
#include "../check.h"

#define STREAM ((size_t)24 << 20)

static uint8_t at(size_t i)
{
	return (uint8_t)(i * 2654435761u >> 13);
}

static int same(const uint8_t *p, size_t off, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != at(off + i))
			return 0;
	return 1;
}

/* Small reads and spans of every size in turn, some kept as a job would
 * keep them while later ones are read: every byte in order, and a kept
 * span still holds its bytes at the end. */
static void test_order(const uint8_t *data, size_t window)
{
	struct vnc_mem_source m;
	struct dec_chunks *ch;
	struct vnc_source *s;
	struct dec_chunk *kept[8] = {0};
	uint8_t *kp[8];
	size_t koff[8], klen[8], off = 0, nk = 0;
	uint8_t small[16];
	unsigned seed = 7;
	int err, bad = 0;

	vnc_mem_source_init(&m, data, STREAM);
	m.window = window;
	CHECK_EQ(dec_chunks_create(&m.base, &ch), 0);
	s = dec_chunks_source(ch);
	while (off + (6u << 20) < STREAM) {
		size_t n, have, len;
		uint8_t *p;

		seed = seed * 1103515245u + 12345u;
		n = 1 + seed % sizeof(small);
		if (vnc_source_read(s, small, n) < 0 || !same(small, off, n))
			bad++;
		off += n;
		/* A span: mostly rectangles of up to 300 KiB, now and then
		 * one past a chunk. */
		len = seed % 7 == 0 ? (5u << 20) + seed % 4096
				    : (seed >> 8) % (300u << 10);
		CHECK_EQ(dec_chunks_open(ch, seed % 2 ? len : 0), 0);
		for (size_t want = 0; want < len;) {
			want = want + 1 + (seed >> 4) % 70000;
			if (want > len)
				want = len;
			p = dec_chunks_need(ch, want, &have, &err);
			if (!p || have < want || !same(p, off, want)) {
				bad++;
				break;
			}
		}
		if (!bad) {
			struct dec_chunk *k = dec_chunks_close(ch, len, &p);

			if (len && (!k || !same(p, off, len)))
				bad++;
			if (k && nk < 8 && seed % 3 == 0) {
				kept[nk] = k;
				kp[nk] = p;
				koff[nk] = off;
				klen[nk++] = len;
			} else {
				dec_chunk_put(k);
			}
		}
		off += len;
		if (seed % 5 == 0)
			CHECK_EQ(dec_chunks_settle(ch), 0);
		if (bad)
			break;
	}
	CHECK(bad == 0, "window %zu: the bytes at %zu are not the stream's",
	      window, off);
	for (size_t i = 0; i < nk; i++) {
		CHECK(same(kp[i], koff[i], klen[i]),
		      "window %zu: kept span %zu (%zu bytes at %zu) changed",
		      window, i, klen[i], koff[i]);
		dec_chunk_put(kept[i]);
	}
	/* What was read ahead goes back: the source is where the parsers
	 * stopped. */
	CHECK_EQ(dec_chunks_settle(ch), 0);
	CHECK(m.consumed == off, "window %zu: source at %zu, parsed %zu",
	      window, m.consumed, off);
	dec_chunks_destroy(ch);
}

/* Nothing reads past an open span; a failing source fails a span. */
static void test_misuse(const uint8_t *data)
{
	struct vnc_mem_source m;
	struct dec_chunks *ch;
	uint8_t b[4], *p;
	size_t have;
	int err = 0;

	vnc_mem_source_init(&m, data, 1000);
	CHECK_EQ(dec_chunks_create(&m.base, &ch), 0);
	CHECK_EQ(dec_chunks_open(ch, 0), 0);
	CHECK(vnc_source_read(dec_chunks_source(ch), b, 4) < 0,
	      "a read inside an open span");
	p = dec_chunks_need(ch, 2000, &have, &err);
	CHECK(!p && err == -EIO, "a span past the source's end: %d", err);
	CHECK(!dec_chunks_close(ch, 0, &p), "an empty span holds a chunk");
	dec_chunks_destroy(ch);
}

/* Idle chunks go once trimmed; a large one being filled too. */
static void test_trim(const uint8_t *data)
{
	struct vnc_mem_source m;
	struct dec_chunks *ch;
	struct dec_chunk *k[4];
	uint8_t *p;
	size_t have;
	int err;

	vnc_mem_source_init(&m, data, STREAM);
	CHECK_EQ(dec_chunks_create(&m.base, &ch), 0);
	for (int i = 0; i < 4; i++) {
		CHECK_EQ(dec_chunks_open(ch, 3u << 20), 0);
		CHECK(dec_chunks_need(ch, 3u << 20, &have, &err) != NULL);
		k[i] = dec_chunks_close(ch, 3u << 20, &p);
	}
	for (int i = 0; i < 4; i++)
		dec_chunk_put(k[i]);
	CHECK(dec_chunks_kept(ch) >= 4 * DEC_CHUNK_SIZE,
	      "%zu bytes kept after four chunks", dec_chunks_kept(ch));
	dec_chunks_trim(ch, DEC_CHUNK_SIZE);
	CHECK(dec_chunks_kept(ch) <= DEC_CHUNK_SIZE, "%zu bytes kept",
	      dec_chunks_kept(ch));
	/* A span of 9 MiB, then nothing in its chunk. */
	CHECK_EQ(dec_chunks_open(ch, 0), 0);
	CHECK(dec_chunks_need(ch, 9u << 20, &have, &err) != NULL);
	dec_chunk_put(dec_chunks_close(ch, 9u << 20, &p));
	CHECK_EQ(dec_chunks_settle(ch), 0);
	CHECK(dec_chunks_kept(ch) > (9u << 20), "%zu bytes kept",
	      dec_chunks_kept(ch));
	dec_chunks_trim(ch, DEC_CHUNK_SIZE);
	CHECK(dec_chunks_kept(ch) <= DEC_CHUNK_SIZE,
	      "%zu bytes kept after a large span", dec_chunks_kept(ch));
	dec_chunks_destroy(ch);
}

/* Destroyed while its chunk holds a span too large to keep idle (an RRE
 * rectangle of 2048x2048 subrectangles): the chunk is freed, once. */
static void test_destroy_large(void)
{
	size_t n = (size_t)40 << 20;
	uint8_t *big = malloc(n), *p;
	struct vnc_mem_source m;
	struct dec_chunks *ch;
	size_t have;
	int err;

	if (!big) {
		CHECK(0, "no memory for %zu bytes", n);
		return;
	}
	for (size_t i = 0; i < n; i++)
		big[i] = at(i);
	vnc_mem_source_init(&m, big, n);
	CHECK_EQ(dec_chunks_create(&m.base, &ch), 0);
	CHECK_EQ(dec_chunks_open(ch, 0), 0);
	p = dec_chunks_need(ch, (size_t)36 << 20, &have, &err);
	CHECK(p && same(p, 0, (size_t)36 << 20), "a span of 36 MiB");
	dec_chunk_put(dec_chunks_close(ch, (size_t)36 << 20, &p));
	CHECK_EQ(dec_chunks_settle(ch), 0);
	dec_chunks_destroy(ch);
	free(big);
}

/* A direct parser's span (dec_chunks_consume): 20 MiB read in pieces of
 * up to a tile, every byte the stream's, through one chunk (nothing
 * fresh taken); a chunk a job holds does not slide under it. */
static void test_consume(const uint8_t *data)
{
	const size_t len = (size_t)20 << 20;
	struct vnc_mem_source m;
	struct dec_chunks *ch;
	struct dec_chunk *held;
	uint8_t *p, *first = NULL, *hp;
	size_t have, done = 0, spread = 0, hoff;
	unsigned seed = 3;
	int err, bad = 0;

	vnc_mem_source_init(&m, data, STREAM);
	m.window = 70000;
	CHECK_EQ(dec_chunks_create(&m.base, &ch), 0);
	CHECK_EQ(dec_chunks_open(ch, 0), 0);
	while (done < len) {
		size_t n = 1 + (seed = seed * 1103515245u + 12345u) % 1025;

		if (n > len - done)
			n = len - done;
		p = dec_chunks_need(ch, n, &have, &err);
		if (!p || have < n || !same(p, done, n)) {
			bad++;
			break;
		}
		if (!first)
			first = p;
		if ((size_t)(p - first) > spread)
			spread = (size_t)(p - first);
		/* Taken and drawn: given up before the next need. */
		dec_chunks_consume(ch, n);
		done += n;
	}
	CHECK(bad == 0, "consumed span: the bytes at %zu are not the stream's",
	      done);
	CHECK(spread <= DEC_CHUNK_SLIDE + DEC_CHUNK_AHEAD + 1025,
	      "a consumed span reached %zu bytes into its chunk", spread);
	CHECK(dec_chunks_kept(ch) == DEC_CHUNK_SIZE, "%zu bytes of chunks",
	      dec_chunks_kept(ch));
	dec_chunk_put(dec_chunks_close(ch, 0, &p));
	/* A job holds what is before the next span: it stays as it was. */
	CHECK_EQ(dec_chunks_open(ch, 0), 0);
	CHECK((p = dec_chunks_need(ch, 1000, &have, &err)) != NULL);
	held = dec_chunks_close(ch, 1000, &hp);
	CHECK(held && same(hp, done, 1000), "a held span");
	hoff = done;
	done += 1000;
	CHECK_EQ(dec_chunks_open(ch, 0), 0);
	for (size_t i = 0; i < ((size_t)2 << 20) && !bad; i += 1000) {
		p = dec_chunks_need(ch, 1000, &have, &err);
		if (!p || !same(p, done, 1000))
			bad++;
		dec_chunks_consume(ch, 1000);
		done += 1000;
	}
	CHECK(bad == 0 && same(hp, hoff, 1000),
	      "a span held by a job was overwritten");
	dec_chunk_put(dec_chunks_close(ch, 0, &p));
	dec_chunk_put(held);
	CHECK_EQ(dec_chunks_settle(ch), 0);
	CHECK(m.consumed == done, "source at %zu, parsed %zu", m.consumed,
	      done);
	dec_chunks_destroy(ch);
}

int main(void)
{
	uint8_t *data = malloc(STREAM);

	if (!data)
		return 99;
	for (size_t i = 0; i < STREAM; i++)
		data[i] = at(i);
	test_order(data, 0);
	test_order(data, 61);
	test_order(data, 100000);
	test_misuse(data);
	test_trim(data);
	test_destroy_large();
	test_consume(data);
	free(data);
	return check_done("decchunk");
}
