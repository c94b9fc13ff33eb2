/* What the SSSE3 and AVX2 kernels of the 3:2 and 2:1 paths share
 * (scale_ssse3.c, scale_avx2.c): where streaming stores may start, and
 * how far ahead to prefetch the source rows. x86-64 only.
 *
 * Threads: pure functions, any thread. */
#ifndef VNCFB_SCALE_X86_H
#define VNCFB_SCALE_X86_H

#include <immintrin.h>

#include "view/scale_kern.h"

/* The pairs before the first whole cache line of o0 (nt), and whether
 * streaming stores can be used at all: they need 32-byte alignment, so
 * rows whose distance is not a multiple of 32 bytes, or pixels off 8-byte
 * alignment, take plain stores. */
static inline bool scale_p32_head(uint8_t *o0, uint8_t *o1, const uint8_t *r0,
				  const uint8_t *r1, const uint8_t *r2,
				  uint32_t *g, uint32_t g1, bool nt)
{
	if (!nt || ((uintptr_t)o0 | (uintptr_t)o1) & 7 ||
	    ((uintptr_t)o0 ^ (uintptr_t)o1) & 31)
		return false;
	for (; *g < g1 && ((uintptr_t)(o0 + (size_t)*g * 8) & 63); (*g)++)
		scale_p32_one(o0 + (size_t)*g * 8, o1 + (size_t)*g * 8,
			      r0 + (size_t)*g * 12, r1 + (size_t)*g * 12,
			      r2 + (size_t)*g * 12);
	return true;
}

/* How far ahead in each source row to prefetch: 10 lines. In the live
 * pipeline (vncfb bench --workload fit) the decoder and the server stream
 * the next frame through memory on the other core while this runs, so
 * the source is seldom in cache; 640 bytes measured best there, against
 * 384 and 1024 (doc/performance.md). */
#define SCALE_AHEAD 640

/* A step reads at most 1.5 lines of each source row: two lines at p keep
 * every line asked for. A prefetch never faults, so past the picture's
 * end is harmless. Call it from the kernel's loop itself: GCC 12 dropped
 * every prefetch of the 3:2 kernels while a helper (p32_ahead) made these
 * calls for their three rows, always_inline or not. */
static inline void scale_ahead(const uint8_t *p)
{
	_mm_prefetch((const char *)p, _MM_HINT_T0);
	_mm_prefetch((const char *)p + 64, _MM_HINT_T0);
}

/* The outputs before o's first whole cache line (nt), in C; *nt stays
 * only where the pixels are 4-byte aligned. Returns the next output. */
static inline uint32_t scale_p21_head(uint8_t *o, const uint8_t *a,
				      const uint8_t *b, uint32_t n, bool *nt)
{
	uint32_t i = 0;

	if (*nt && ((uintptr_t)o & 3))
		*nt = false;
	for (; *nt && i < n && ((uintptr_t)(o + (size_t)i * 4) & 63); i++)
		scale_p21_c(o + (size_t)i * 4, a + (size_t)i * 8,
			    b + (size_t)i * 8, 1, false);
	return i;
}

#endif
