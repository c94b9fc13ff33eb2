/* The pixel converters' SIMD kernels (inside the converters only:
 * pixconv.c and the kernel files pixconv_<isa>.c, each built with its own
 * instruction set). Each is specified by the C row it replaces, which
 * pixconv_init keeps in row_c; the unit test compares the two.
 *
 * Threads: any, as pixconv_row. */
#ifndef VNCFB_PIXCONV_KERN_H
#define VNCFB_PIXCONV_KERN_H

#include <stddef.h>
#include <stdint.h>

#include "shadow/pixconv.h"

#ifdef VNCFB_SIMD_X86
/* 3 -> 4 bytes (Tight's R,G,B and JPEG's into a 32 bpp shadow) by c->ctl:
 * four pixels a pshufb, the tail by c->row_c. */
void pixconv_shuffle_3_4_ssse3(const struct pixconv *c, uint8_t *dst,
			       const uint8_t *src, size_t n);
#endif

#endif
