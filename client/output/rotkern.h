/* The rotation kernels: a block of pixels turned by a quarter turn
 * (rotate.h's enum rotation) from one buffer into another. The C version
 * says what each does; a per-ISA one (SSE2 for 4-byte pixels) is picked
 * once by rotkern_pick and must give the same bytes.
 *
 * Threads: pure functions, any thread; rotkern_pick once before use
 * (main thread), or let rotate_block pick on first use (idempotent). */
#ifndef VNCFB_ROTKERN_H
#define VNCFB_ROTKERN_H

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
/* The one in use (per-ISA where there is one; the C version else). */
void rotate_block(uint8_t *dst, size_t dstride, const uint8_t *src,
		  size_t sstride, uint32_t w, uint32_t h, unsigned bpp,
		  unsigned rot);
/* Which kernel rotate_block uses ("c", "sse2"), and forcing one
 * ("c" for tests and vncfb bench; NULL: the best). 0 or -ENOENT. */
const char *rotkern_name(void);
int rotkern_force(const char *name);

#endif
