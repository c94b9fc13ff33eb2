/* The rotation kernels: the reference in C and the choice of one. */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "output/rotkern.h"
#include "util/cpu.h"

#ifdef VNCFB_SIMD_X86
rotate_block_fn rotate_block_sse2;
rotate_block_fn rotate_block_avx2, rotate_block_avx2_nt;

static bool has_avx2(void)
{
	return cpu_has(CPU_AVX2);
}
#endif

/* One pixel of bpp bytes. */
static inline void put_px(uint8_t *d, const uint8_t *s, unsigned bpp)
{
	switch (bpp) {
	case 4:
		memcpy(d, s, 4);
		break;
	case 2:
		memcpy(d, s, 2);
		break;
	case 3:
		memcpy(d, s, 3);
		break;
	default:
		*d = *s;
	}
}

void rotate_block_c(uint8_t *dst, size_t dstride, const uint8_t *src,
		    size_t sstride, uint32_t w, uint32_t h, unsigned bpp,
		    unsigned rot)
{
	uint32_t i, j;

	for (j = 0; j < h; j++) {
		const uint8_t *s = src + (size_t)j * sstride;

		for (i = 0; i < w; i++, s += bpp) {
			uint32_t dx, dy;

			switch (rot & 3) {
			case 1:
				dx = h - 1 - j;
				dy = i;
				break;
			case 2:
				dx = w - 1 - i;
				dy = h - 1 - j;
				break;
			case 3:
				dx = j;
				dy = w - 1 - i;
				break;
			default:
				dx = i;
				dy = j;
			}
			put_px(dst + (size_t)dy * dstride + (size_t)dx * bpp,
			       s, bpp);
		}
	}
}

void rotate_part(uint8_t *dst, size_t dstride, const uint8_t *src,
		 size_t sstride, uint32_t w, uint32_t h, unsigned bpp,
		 unsigned rot, uint32_t i0, uint32_t j0, uint32_t sw,
		 uint32_t sh)
{
	uint32_t dx, dy;

	if (!sw || !sh)
		return;
	switch (rot & 3) {
	case 1:
		dx = h - j0 - sh;
		dy = i0;
		break;
	case 2:
		dx = w - i0 - sw;
		dy = h - j0 - sh;
		break;
	case 3:
		dx = j0;
		dy = w - i0 - sw;
		break;
	default:
		dx = i0;
		dy = j0;
	}
	rotate_block_c(dst + (size_t)dy * dstride + (size_t)dx * bpp, dstride,
		       src + (size_t)j0 * sstride + (size_t)i0 * bpp, sstride,
		       sw, sh, bpp, rot);
}

/* Listed from the slowest: the last usable one is the best. */
static const struct {
	const char *name;
	rotate_block_fn *fn;
	rotate_block_fn *nt;	/* non-temporal stores; NULL: none */
	bool (*usable)(void);
} kernels[] = {
	{ "c", rotate_block_c, NULL, NULL },
#ifdef VNCFB_SIMD_X86
	{ "sse2", rotate_block_sse2, NULL, NULL },
	{ "avx2", rotate_block_avx2, rotate_block_avx2_nt, has_avx2 },
#endif
};

#define NKERNELS (sizeof(kernels) / sizeof(kernels[0]))

/* Index into kernels, -1 until picked. */
static _Atomic int chosen = -1;

static int best(void)
{
	int i = (int)NKERNELS;

	while (--i > 0 && kernels[i].usable && !kernels[i].usable())
		;
	return i;
}

static int pick(void)
{
	int k = chosen;

	if (k < 0) {
		k = best();
		chosen = k;
	}
	return k;
}

void rotate_block(uint8_t *dst, size_t dstride, const uint8_t *src,
		  size_t sstride, uint32_t w, uint32_t h, unsigned bpp,
		  unsigned rot)
{
	kernels[pick()].fn(dst, dstride, src, sstride, w, h, bpp, rot);
}

bool rotate_can_stream(unsigned bpp)
{
	/* The streaming kernels turn 2- and 4-byte pixels in registers;
	 * the rest would be the reference's pixel stores. */
	return kernels[pick()].nt && (bpp == 2 || bpp == 4);
}

bool rotate_block_stream(uint8_t *dst, size_t dstride, const uint8_t *src,
			 size_t sstride, uint32_t w, uint32_t h, unsigned bpp,
			 unsigned rot)
{
	if (!rotate_can_stream(bpp))
		return false;
	kernels[pick()].nt(dst, dstride, src, sstride, w, h, bpp, rot);
	return true;
}

const char *rotkern_name(void)
{
	int k = chosen;

	return kernels[k < 0 ? best() : k].name;
}

int rotkern_force(const char *name)
{
	size_t i;

	if (!name) {
		chosen = best();
		return 0;
	}
	for (i = 0; i < NKERNELS; i++)
		if (!strcmp(kernels[i].name, name) &&
		    (!kernels[i].usable || kernels[i].usable())) {
			chosen = (int)i;
			return 0;
		}
	return -ENOENT;
}
