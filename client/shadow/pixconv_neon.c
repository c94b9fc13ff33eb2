/* The pixel converters' NEON kernels (pixconv_kern.h), AArch64 only: 16
 * pixels a step through the de-interleaving loads and interleaving
 * stores (one register per byte of the pixel), the tail by c->row_c. */
#include "config.h"

#include <arm_neon.h>

#include "shadow/pixconv_kern.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "pixconv_neon.c: to16 stores assume a little-endian CPU"
#endif

/* Destination byte d of the shuffle: source plane pos[d], or zeros (plane
 * 4) where pos[d] is 0xff. */
static inline unsigned plane_of(const struct pixconv *c, unsigned d)
{
	return c->pos[d] == 0xff ? 4 : c->pos[d];
}

/* One function per (source, destination) size, so that the loads and
 * stores are the fixed-size ones. */
#define SHUFFLE_FN(SB, DB)                                                     \
	static void shuffle_##SB##_##DB##_neon(const struct pixconv *c,        \
					       uint8_t *dst,                   \
					       const uint8_t *src, size_t n)   \
	{                                                                      \
		const unsigned p0 = plane_of(c, 0), p1 = plane_of(c, 1),       \
			       p2 = plane_of(c, 2),                            \
			       p3 = DB == 4 ? plane_of(c, 3) : 4;              \
		uint8x16_t pl[5];                                              \
		uint8x16x##DB##_t out;                                         \
		size_t i = 0;                                                  \
                                                                               \
		pl[3] = pl[4] = vdupq_n_u8(0);                                 \
		for (; i + 16 <= n; i += 16, src += 16 * SB, dst += 16 * DB) { \
			uint8x16x##SB##_t in = vld##SB##q_u8(src);              \
                                                                               \
			for (unsigned k = 0; k < SB; k++)                      \
				pl[k] = in.val[k];                             \
			out.val[0] = pl[p0];                                   \
			out.val[1] = pl[p1];                                   \
			out.val[2] = pl[p2];                                   \
			SHUFFLE_PLANE3_##DB;                                   \
			vst##DB##q_u8(dst, out);                               \
		}                                                              \
		(void)p3;                                                      \
		c->row_c(c, dst, src, n - i);                                  \
	}
#define SHUFFLE_PLANE3_3 (void)0
#define SHUFFLE_PLANE3_4 (out.val[3] = pl[p3])

SHUFFLE_FN(3, 3)
SHUFFLE_FN(3, 4)
SHUFFLE_FN(4, 3)
SHUFFLE_FN(4, 4)

pixconv_fn pixconv_shuffle_neon(unsigned sbytes, unsigned dbytes)
{
	if (sbytes == 3)
		return dbytes == 3 ? shuffle_3_3_neon : shuffle_3_4_neon;
	return dbytes == 3 ? shuffle_4_3_neon : shuffle_4_4_neon;
}

/* 8-bit channels (24 or 32 bpp) to 16 bpp: each channel's top bits at
 * its place, tab[ch][0xff] being that channel's mask in the destination
 * (pixconv_init checks the tables are this truncation). */
struct chan_neon {
	unsigned plane;	   /* the source byte that holds it */
	int16x8_t down;	   /* -(8 - bits): to the channel's bits */
	int16x8_t up;	   /* to its place */
};

static struct chan_neon chan_neon(const struct pixconv *c, int ch)
{
	const uint32_t m = c->tab[ch][0xff];
	const int bits = __builtin_popcount(m), at = __builtin_ctz(m);
	struct chan_neon k;

	k.plane = pixconv_byte_at(c->shift[ch], c->sbytes, c->sbig);
	k.down = vdupq_n_s16((int16_t)(bits - 8));
	k.up = vdupq_n_s16((int16_t)at);
	return k;
}

static inline uint16x8_t chan_lo(uint8x16_t p, const struct chan_neon *k)
{
	return vshlq_u16(vshlq_u16(vmovl_u8(vget_low_u8(p)), k->down), k->up);
}

static inline uint16x8_t chan_hi(uint8x16_t p, const struct chan_neon *k)
{
	return vshlq_u16(vshlq_u16(vmovl_high_u8(p), k->down), k->up);
}

#define TO16_FN(SB)                                                            \
	static void to16_##SB##_neon(const struct pixconv *c, uint8_t *dst,    \
				     const uint8_t *src, size_t n)             \
	{                                                                      \
		const struct chan_neon r = chan_neon(c, 0),                    \
				       g = chan_neon(c, 1),                    \
				       b = chan_neon(c, 2);                    \
		const bool big = c->dbig;                                      \
		size_t i = 0;                                                  \
                                                                               \
		for (; i + 16 <= n; i += 16, src += 16 * SB, dst += 32) {      \
			uint8x16x##SB##_t in = vld##SB##q_u8(src);              \
			uint8x16_t pl[SB];                                     \
			uint16x8_t lo, hi;                                     \
			uint8x16_t blo, bhi;                                   \
                                                                               \
			for (unsigned k = 0; k < SB; k++)                      \
				pl[k] = in.val[k];                             \
			lo = vorrq_u16(vorrq_u16(chan_lo(pl[r.plane], &r),     \
						 chan_lo(pl[g.plane], &g)),    \
				       chan_lo(pl[b.plane], &b));              \
			hi = vorrq_u16(vorrq_u16(chan_hi(pl[r.plane], &r),     \
						 chan_hi(pl[g.plane], &g)),    \
				       chan_hi(pl[b.plane], &b));              \
			blo = vreinterpretq_u8_u16(lo);                        \
			bhi = vreinterpretq_u8_u16(hi);                        \
			if (big) {                                             \
				blo = vrev16q_u8(blo);                         \
				bhi = vrev16q_u8(bhi);                         \
			}                                                      \
			vst1q_u8(dst, blo);                                    \
			vst1q_u8(dst + 16, bhi);                               \
		}                                                              \
		c->row_c(c, dst, src, n - i);                                  \
	}

TO16_FN(3)
TO16_FN(4)

pixconv_fn pixconv_to16_neon(unsigned sbytes)
{
	return sbytes == 3 ? to16_3_neon : to16_4_neon;
}
