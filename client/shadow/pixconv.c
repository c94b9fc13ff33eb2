/* Pixel row converters chosen once per format pair (pixconv.h). */
#include "config.h"

#include <string.h>

#include "shadow/pixconv.h"
#include "shadow/pixconv_kern.h"
#include "util/cpu.h"

void pixconv_rgb_bytes(struct pixfmt *f)
{
	*f = (struct pixfmt){.bpp = 24,
			     .depth = 24,
			     .r_shift = 16,
			     .g_shift = 8,
			     .b_shift = 0,
			     .r_bits = 8,
			     .g_bits = 8,
			     .b_bits = 8,
			     .big_endian = true};
}

static void conv_copy(const struct pixconv *c, uint8_t *dst, const uint8_t *src,
		      size_t n)
{
	memcpy(dst, src, n * c->dbytes);
}

/* 32 -> 24 bpp is the blitter's case for packed outputs: unrolled. */
static void shuffle_4_3(const struct pixconv *c, uint8_t *dst,
			const uint8_t *src, size_t n)
{
	const unsigned a = c->pos[0], b = c->pos[1], d = c->pos[2];

	for (size_t i = 0; i < n; i++, src += 4, dst += 3) {
		dst[0] = src[a];
		dst[1] = src[b];
		dst[2] = src[d];
	}
}

/* To 32 bpp: the pixel assembled in a register from the source bytes
 * (sh[k]: where source byte k goes, 32: nowhere), one store. */
static void shuffle_to4(const struct pixconv *c, uint8_t *dst,
			const uint8_t *src, size_t n)
{
	const unsigned sb = c->sbytes;
	const unsigned s0 = c->sh[0], s1 = c->sh[1], s2 = c->sh[2],
		       s3 = c->sh[3];

	for (size_t i = 0; i < n; i++, src += sb, dst += 4) {
		uint64_t v = (uint64_t)src[0] << s0 | (uint64_t)src[1] << s1 |
			     (uint64_t)src[2] << s2 |
			     (sb == 4 ? (uint64_t)src[3] << s3 : 0);
		uint32_t w = (uint32_t)v;

		memcpy(dst, &w, 4);
	}
}


static void shuffle_any(const struct pixconv *c, uint8_t *dst,
			const uint8_t *src, size_t n)
{
	const unsigned sb = c->sbytes, db = c->dbytes;

	for (size_t i = 0; i < n; i++, src += sb, dst += db)
		for (unsigned k = 0; k < db; k++)
			dst[k] = c->pos[k] == 0xff ? 0 : src[c->pos[k]];
}

static inline uint32_t lookup(const struct pixconv *c, uint32_t v)
{
	return c->tab[0][(v >> c->shift[0]) & c->mask[0]] |
	       c->tab[1][(v >> c->shift[1]) & c->mask[1]] |
	       c->tab[2][(v >> c->shift[2]) & c->mask[2]];
}

/* One loop per (source, destination) size, so load and store unroll. */
#define TABLE_FN(SB, DB)                                                       \
	static void table_##SB##_##DB(const struct pixconv *c, uint8_t *dst,   \
				      const uint8_t *src, size_t n)            \
	{                                                                      \
		const bool sbig = c->sbig, dbig = c->dbig;                     \
		for (size_t i = 0; i < n; i++, src += SB, dst += DB)           \
			pix_store(dst, DB, dbig, lookup(c, pix_load(src, SB, sbig)));  \
	}

TABLE_FN(1, 1)
TABLE_FN(1, 2)
TABLE_FN(1, 3)
TABLE_FN(1, 4)
TABLE_FN(2, 1)
TABLE_FN(2, 2)
TABLE_FN(2, 3)
TABLE_FN(2, 4)
TABLE_FN(3, 1)
TABLE_FN(3, 2)
TABLE_FN(3, 3)
TABLE_FN(3, 4)
TABLE_FN(4, 1)
TABLE_FN(4, 2)
TABLE_FN(4, 3)
TABLE_FN(4, 4)

static const pixconv_fn table_fns[4][4] = {
    {table_1_1, table_1_2, table_1_3, table_1_4},
    {table_2_1, table_2_2, table_2_3, table_2_4},
    {table_3_1, table_3_2, table_3_3, table_3_4},
    {table_4_1, table_4_2, table_4_3, table_4_4},
};

/* Every channel 8 bits wide on a byte boundary: a shuffle. */
static bool byte_aligned(const struct pixfmt *f)
{
	return (f->bpp == 24 || f->bpp == 32) && f->r_bits == 8 &&
	       f->g_bits == 8 && f->b_bits == 8 && f->r_shift % 8 == 0 &&
	       f->g_shift % 8 == 0 && f->b_shift % 8 == 0;
}

static void init_shuffle(struct pixconv *c, const struct pixfmt *df,
			 const struct pixfmt *sf)
{
	const uint8_t ds[3] = {df->r_shift, df->g_shift, df->b_shift};
	const uint8_t ss[3] = {sf->r_shift, sf->g_shift, sf->b_shift};

	const uint16_t one = 1;
	const bool host_big = *(const uint8_t *)&one == 0;

	memset(c->pos, 0xff, sizeof(c->pos));
	for (int k = 0; k < 3; k++)
		c->pos[pixconv_byte_at(ds[k], c->dbytes, c->dbig)] =
		    (uint8_t)pixconv_byte_at(ss[k], c->sbytes, c->sbig);
	c->row = c->sbytes == 4 && c->dbytes == 3 ? shuffle_4_3 : shuffle_any;
	c->kind = "shuffle";
	if (c->dbytes == 4) {
		/* Source byte k to the bits of destination byte d, in the
		 * host's order of a uint32_t. */
		for (int k = 0; k < 4; k++)
			c->sh[k] = 32;
		for (int d = 0; d < 4; d++)
			if (c->pos[d] != 0xff)
				c->sh[c->pos[d]] =
				    (uint8_t)(8 * (host_big ? 3 - d : d));
		c->row = shuffle_to4;
		for (int q = 0; q < 16; q++)
			c->ctl[q] = c->pos[q % 4] == 0xff
					? 0x80
					: (uint8_t)(q / 4 * 3 + c->pos[q % 4]);
	}
	c->row_c = c->row;
#ifdef VNCFB_SIMD_X86
	if (c->sbytes == 3 && c->dbytes == 4 && cpu_has(CPU_SSSE3))
		c->row = pixconv_shuffle_3_4_ssse3;
#endif
#ifdef VNCFB_SIMD_NEON
	if (cpu_has(CPU_NEON))
		c->row = pixconv_shuffle_neon(c->sbytes, c->dbytes);
#endif
}

#ifdef VNCFB_SIMD_NEON
/* Whether the tables are plain truncation of 8-bit source channels to
 * 16 bpp, which pixconv_to16_neon computes. */
static bool tables_truncate(const struct pixconv *c, const struct pixfmt *sf)
{
	if (!byte_aligned(sf) || c->dbytes != 2)
		return false;
	for (int ch = 0; ch < 3; ch++) {
		const uint32_t m = c->tab[ch][0xff];
		const int bits = __builtin_popcount(m);
		const int at = m ? __builtin_ctz(m) : 0;

		if (c->mask[ch] != 0xff || !bits || bits > 8 ||
		    m != ((1u << bits) - 1) << at)
			return false;
		for (uint32_t v = 0; v < 256; v++)
			if (c->tab[ch][v] != (v >> (8 - bits)) << at)
				return false;
	}
	return true;
}
#endif

/* The value bits of channel value v (bits wide) in df at the channel's
 * place: the same expansion and truncation as pixfmt_unpack/pack. */
static uint32_t chan_bits(const struct pixfmt *df, int ch, uint32_t v,
			  unsigned bits)
{
	struct pixfmt one = {.bpp = 32,
			     .r_bits = (uint8_t)bits,
			     .g_bits = (uint8_t)bits,
			     .b_bits = (uint8_t)bits,
			     .r_shift = 0,
			     .g_shift = 0,
			     .b_shift = 0};
	uint8_t r, g, b;

	pixfmt_unpack(&one, v, &r, &g, &b);
	return ch == 0	 ? pixfmt_pack(df, r, 0, 0)
	       : ch == 1 ? pixfmt_pack(df, 0, g, 0)
			 : pixfmt_pack(df, 0, 0, b);
}

static void init_tables(struct pixconv *c, const struct pixfmt *df,
			const struct pixfmt *sf)
{
	const uint8_t sbits[3] = {sf->r_bits, sf->g_bits, sf->b_bits};
	const uint8_t sshift[3] = {sf->r_shift, sf->g_shift, sf->b_shift};

	for (int ch = 0; ch < 3; ch++) {
		c->shift[ch] = sshift[ch];
		c->mask[ch] = (1u << sbits[ch]) - 1;
		memset(c->tab[ch], 0, sizeof(c->tab[ch]));
		for (uint32_t v = 0; v <= c->mask[ch]; v++)
			c->tab[ch][v] = chan_bits(df, ch, v, sbits[ch]);
	}
	c->row = table_fns[c->sbytes - 1][c->dbytes - 1];
	c->row_c = c->row;
	c->kind = "table";
#ifdef VNCFB_SIMD_NEON
	if (cpu_has(CPU_NEON) && tables_truncate(c, sf))
		c->row = pixconv_to16_neon(c->sbytes);
#endif
}

void pixconv_init(struct pixconv *c, const struct pixfmt *df,
		  const struct pixfmt *sf)
{
	memset(c, 0, sizeof(*c));
	c->sbytes = sf->bpp / 8;
	c->dbytes = df->bpp / 8;
	/* One byte has no order. */
	c->sbig = c->sbytes > 1 && sf->big_endian;
	c->dbig = c->dbytes > 1 && df->big_endian;
	if (pixfmt_equal(df, sf)) {
		c->row = conv_copy;
		c->row_c = conv_copy;
		c->kind = "copy";
	} else if (byte_aligned(df) && byte_aligned(sf)) {
		init_shuffle(c, df, sf);
	} else {
		init_tables(c, df, sf);
	}
}
