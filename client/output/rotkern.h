/* The rotation kernels: a block of pixels turned by a quarter turn
 * (rotate.h's enum rotation) from one buffer into another. The C version
 * says what each does; a per-ISA one (SSE2 for 4-byte pixels,
 * AVX2 for 4- and 2-byte ones) is picked
 * once by rotkern_pick and must give the same bytes.
 *
 * Threads: pure functions, any thread; rotkern_pick once before use
 * (main thread), or let rotate_block pick on first use (idempotent). */
#ifndef VNCFB_ROTKERN_H
#define VNCFB_ROTKERN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Copy the w x h pixels at src (rows sstride bytes apart) turned by rot
 * clockwise quarter turns (0-3) into dst (rows dstride bytes apart): for
 * rot 1 and 3 dst is h wide and w tall, else w x h. Source pixel (i, j)
 * (column i, row j) lands at dst column, row:
 *   rot 1: (h-1-j, i)   rot 2: (w-1-i, h-1-j)   rot 3: (j, w-1-i).
 * bpp 1, 2, 3 or 4. Buffers must not overlap. */
typedef void rotate_block_fn(uint8_t *dst, size_t dstride, const uint8_t *src,
			     size_t sstride, uint32_t w, uint32_t h,
			     unsigned bpp, unsigned rot);

/* The reference: pixel by pixel. */
rotate_block_fn rotate_block_c;
/* The part of such a block at source (i0, j0), sw x sh, through the
 * reference, where it goes in the whole block's dst: the edges a
 * per-ISA kernel leaves. */
void rotate_part(uint8_t *dst, size_t dstride, const uint8_t *src,
		 size_t sstride, uint32_t w, uint32_t h, unsigned bpp,
		 unsigned rot, uint32_t i0, uint32_t j0, uint32_t sw,
		 uint32_t sh);
/* The one in use (per-ISA where there is one; the C version else). */
void rotate_block(uint8_t *dst, size_t dstride, const uint8_t *src,
		  size_t sstride, uint32_t w, uint32_t h, unsigned bpp,
		  unsigned rot);
/* The same into write-only memory (a mapping nobody reads back, written
 * by the blitter alone): the kernel's stores are non-temporal where they
 * are aligned, so that the turned pixels go to memory once, without a
 * tile between. false, having done nothing, when the kernel in use has
 * no such stores (turn into a cached tile and stream its rows then).
 * The caller fences (output_copy_stream_end) before the pass is
 * shown. */
bool rotate_block_stream(uint8_t *dst, size_t dstride, const uint8_t *src,
			 size_t sstride, uint32_t w, uint32_t h, unsigned bpp,
			 unsigned rot);
/* Whether rotate_block_stream takes pixels of bpp bytes. */
bool rotate_can_stream(unsigned bpp);
/* Which kernel rotate_block uses ("c", "sse2", "avx2"), and forcing one
 * ("c" for tests and vncfb bench; NULL: the best). 0 or -ENOENT. */
const char *rotkern_name(void);
int rotkern_force(const char *name);

#endif
