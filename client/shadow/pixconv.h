/* Row converters between two true-colour pixel formats, chosen once per
 * pair: a copy when they are equal, a byte shuffle when every channel is
 * 8 bits on a byte boundary (24 and 32 bpp), per-channel tables for the
 * rest; SSSE3 for R,G,B bytes into 32 bpp on x86-64, NEON for the
 * shuffles and 8-bit channels into 16 bpp on AArch64. Every path gives
 * exactly what pixfmt_convert_row gives (the specification, and the
 * tests' reference); pixfmt_convert_row itself is not for per-frame use.
 *
 * Threads: pixconv_init on one thread; a converter is read-only after it,
 * so any number of threads may use one. */
#ifndef VNCFB_PIXCONV_H
#define VNCFB_PIXCONV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "shadow/pixfmt.h"

struct pixconv;
typedef void (*pixconv_fn)(const struct pixconv *c, uint8_t *dst,
			   const uint8_t *src, size_t n);

struct pixconv {
	pixconv_fn row;
	pixconv_fn row_c; /* the same in plain C (tests: SIMD checks) */
	const char *kind; /* "copy", "shuffle" or "table" (tests) */
	uint8_t sbytes, dbytes;
	bool sbig, dbig; /* byte order of the source, the destination */
	/* Shuffle: destination byte i (memory order) is source byte pos[i],
	 * or 0 where pos[i] is 0xff. */
	uint8_t pos[4];
	uint8_t sh[4];	 /* to 32 bpp: source byte k's shift */
	uint8_t ctl[16]; /* 3 -> 4 bytes: pshufb's control */
	/* Tables: source channel c is (v >> shift[c]) & mask[c]; tab[c]
	 * holds its bits in the destination value. */
	uint8_t shift[3];
	uint32_t mask[3];
	uint32_t tab[3][256];
};

/* The converter from sf to df (both valid true-colour formats). */
void pixconv_init(struct pixconv *c, const struct pixfmt *df,
		  const struct pixfmt *sf);

static inline void pixconv_row(const struct pixconv *c, uint8_t *dst,
			       const uint8_t *src, size_t n)
{
	c->row(c, dst, src, n);
}

/* The source format of R,G,B byte triples (JPEG output, Tight's
 * TPIXEL): 24 bpp with red in the first byte. */
void pixconv_rgb_bytes(struct pixfmt *f);

#endif
