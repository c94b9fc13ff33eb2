/* The pixel converters' SIMD kernels (inside the converters only:
 * pixconv.c and the kernel files pixconv_<isa>.c, each built with its own
 * instruction set). Each is specified by the C row it replaces, which
 * pixconv_init keeps in row_c; the unit test compares the two. SSSE3 on
 * x86-64, NEON on AArch64.
 *
 * Threads: any, as pixconv_row. */
#ifndef VNCFB_PIXCONV_KERN_H
#define VNCFB_PIXCONV_KERN_H

#include <stddef.h>
#include <stdint.h>

#include "shadow/pixconv.h"

/* The memory byte that holds bits [shift, shift + 8) of a pixel of n
 * bytes in the given order. */
static inline unsigned pixconv_byte_at(unsigned shift, unsigned n, bool big)
{
	return big ? n - 1 - shift / 8 : shift / 8;
}

#ifdef VNCFB_SIMD_X86
/* 3 -> 4 bytes (Tight's R,G,B and JPEG's into a 32 bpp shadow) by c->ctl:
 * four pixels a pshufb, the tail by c->row_c. */
void pixconv_shuffle_3_4_ssse3(const struct pixconv *c, uint8_t *dst,
			       const uint8_t *src, size_t n);
#endif

#ifdef VNCFB_SIMD_NEON
/* pixconv_neon.c. The byte shuffles between 3 and 4 bytes (either way,
 * and each to itself) by c->pos, 16 pixels a step. */
pixconv_fn pixconv_shuffle_neon(unsigned sbytes, unsigned dbytes);
/* 24 or 32 bpp with 8-bit channels to 16 bpp (xrgb8888 -> rgb565 and
 * the like, either byte order): the table path's converter where its
 * tables are plain truncation (pixconv_init checks). */
pixconv_fn pixconv_to16_neon(unsigned sbytes);
#endif

#endif
