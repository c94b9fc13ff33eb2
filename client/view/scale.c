/* The scaler: set-up (filter tables, the path for a ratio, the kernel
 * set for the CPU) and drawing rows through the kernels (scale_kern.h). */
#include "config.h"

#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "view/scale.h"
#include "view/scale_kern.h"
#include "util/cpu.h"

/* Filter tables for one axis: output i is the sum over k < taps of
 * w[i * taps + k] * source[start[i] + k] / 65536. */
struct scale_axis {
	uint32_t src, dst;
	unsigned taps;
	unsigned real_taps; /* taps before padding to even */
	uint32_t unit;	    /* src / gcd(src, dst): what wi sum to */
	int32_t *start;
	uint16_t *w;
	uint16_t *wi; /* exact overlaps, in 1/unit of an output */
};

/* Integer ratios on both axes (zoom, identity) replicate pixels in any
 * format; anything else averages areas on 8-bit channels (32 bpp formats
 * with byte channels directly, others through xrgb8888 and back):
 * through the gather path where it applies and the kernels have it
 * (exact), else a vertical then horizontal fixed-point filter (vsum,
 * hsum). */
struct scaler {
	struct pixfmt fmt;
	uint32_t rw, rh, dw, dh;
	bool replicate;
	bool bytewise; /* 32 bpp, channels on byte boundaries */
	bool fast16;   /* 16 bpp little-endian, 4..8 bits a channel */
	struct scale_axis x, y;
	const struct scale_kernels *kern; /* the set chosen at creation */
	bool exact; /* use the gather path e (struct scale_exact) */
	struct scale_exact e;
	uint16_t *hw;	      /* x weights, each repeated per channel */
	uint16_t *vsum;	      /* vertical sums, 4 per source pixel */
	uint8_t *conv;	      /* source rows as xrgb8888 (!bytewise) */
	uint8_t *line;	      /* one output row as xrgb8888 (!bytewise) */
	uint32_t *lut;	      /* 8/16 bpp value -> xrgb8888 */
	uint32_t *pack;	      /* 3 x 256: channel value -> its bits */
	const uint8_t **rowp; /* per-row tap lists, y.taps long */
	uint16_t *roww;
	/* Both axes exactly 3:2 and bytewise, with kernels that have it:
	 * output rows 2k and 2k+1 come together from source rows 3k..3k+2
	 * (the p32 kernels, scale_kern.h) and are kept for the next call. */
	bool p32;
	uint8_t *p32_line[2];	 /* rows 2k, 2k+1; dw pixels each */
	const uint8_t *p32_src;	 /* the picture they were drawn from */
	int64_t p32_pair;	 /* k, -1: none */
	uint32_t p32_g0, p32_g1; /* output pairs drawn */
	/* Both axes exactly 2:1 and bytewise: each output row from two
	 * source rows in one pass (the p21 kernels). */
	bool p21;
};

/* --- Kernel sets --- */

static const struct scale_kernels *kern;

#ifdef VNCFB_SIMD_X86
static bool has_ssse3(void)
{
	return cpu_has(CPU_SSSE3);
}

static bool has_avx2(void)
{
	return cpu_has(CPU_AVX2);
}
#endif

#ifdef VNCFB_SIMD_NEON
static bool has_neon(void)
{
	return cpu_has(CPU_NEON);
}
#endif

/* Every set by name, and what it needs of the CPU (NULL: nothing). */
static const struct {
	const struct scale_kernels *k;
	bool (*usable)(void);
} kernel_sets[] = {
    {&scale_kernels_c, NULL},
#ifdef VNCFB_SIMD_X86
    {&scale_kernels_sse2, NULL},
    {&scale_kernels_ssse3, has_ssse3},
    {&scale_kernels_avx2, has_avx2},
#endif
#ifdef VNCFB_SIMD_NEON
    {&scale_kernels_neon, has_neon},
#endif
};

#define KERNEL_SETS (sizeof(kernel_sets) / sizeof(kernel_sets[0]))

/* The last usable set: they are listed from the slowest. */
static const struct scale_kernels *kernels_best(void)
{
	size_t i = KERNEL_SETS;

	while (--i > 0 && kernel_sets[i].usable && !kernel_sets[i].usable())
		;
	return kernel_sets[i].k;
}

int scale_simd_set(const char *name)
{
	size_t i;

	if (!strcmp(name, "auto")) {
		kern = kernels_best();
		return 0;
	}
	for (i = 0; i < KERNEL_SETS; i++) {
		if (strcmp(name, kernel_sets[i].k->name))
			continue;
		if (kernel_sets[i].usable && !kernel_sets[i].usable())
			return -ENOTSUP;
		kern = kernel_sets[i].k;
		return 0;
	}
	return -ENOTSUP;
}

const char *scale_simd_name(void)
{
	if (!kern)
		kern = kernels_best();
	return kern->name;
}

/* --- Scaler set-up --- */

/* Box filter weights for n source pixels onto d outputs. In units of 1/d
 * source pixel, source pixel i spans [i*d, (i+1)*d) and output o spans
 * [o*n, (o+1)*n); a tap weighs its overlap. Weights are quantised from
 * the cumulative sum so that each output's weights add up to 65536. */
static int axis_init(struct scale_axis *a, uint32_t n, uint32_t d,
		     bool even_taps)
{
	unsigned taps = 1, k;
	uint32_t o, g = n, r = d;

	while (r) {
		uint32_t t = g % r;

		g = r;
		r = t;
	}
	a->src = n;
	a->dst = d;
	a->unit = n / g;
	for (o = 0; o < d; o++) {
		uint64_t lo = (uint64_t)o * n, hi = lo + n;
		unsigned t = (unsigned)((hi + d - 1) / d - lo / d);

		if (t > taps)
			taps = t;
	}
	a->real_taps = taps;
	if (even_taps && (taps & 1))
		taps++;
	a->taps = taps;
	a->start = calloc(d, sizeof(*a->start));
	a->w = calloc((size_t)d * taps, sizeof(*a->w));
	a->wi = calloc((size_t)d * taps, sizeof(*a->wi));
	if (!a->start || !a->w || !a->wi)
		return -ENOMEM;
	for (o = 0; o < d; o++) {
		uint64_t lo = (uint64_t)o * n, hi = lo + n, cum = 0, prev = 0;
		uint64_t first = lo / d, end = (hi + d - 1) / d;

		a->start[o] = (int32_t)first;
		for (k = 0; k < taps && first + k < end; k++) {
			uint64_t p0 = (first + k) * d, p1 = p0 + d, q, ov;

			/* Overlaps are differences of multiples of n and d,
			 * so multiples of their gcd. */
			ov = (p1 < hi ? p1 : hi) - (p0 > lo ? p0 : lo);
			a->wi[(size_t)o * taps + k] = (uint16_t)(ov / g);
			cum += ov;
			q = (cum * 65536 + n / 2) / n;
			a->w[(size_t)o * taps + k] =
			    (uint16_t)(q - prev > 65535 ? 65535 : q - prev);
			prev = q;
		}
	}
	return 0;
}

static void axis_finish(struct scale_axis *a)
{
	free(a->start);
	free(a->w);
	free(a->wi);
	a->start = NULL;
	a->w = NULL;
	a->wi = NULL;
}

static bool fmt_bytewise(const struct pixfmt *f)
{
	return f->bpp == 32 && f->r_bits == 8 && f->g_bits == 8 &&
	       f->b_bits == 8 && !(f->r_shift % 8) && !(f->g_shift % 8) &&
	       !(f->b_shift % 8);
}

/* 8-bit channel to bits wide, rounded: averaging then truncating would
 * darken every filtered pixel. */
static uint32_t chan_round(uint32_t v, unsigned bits)
{
	uint32_t max = (1u << bits) - 1;

	return ((v & 0xff) * max + 127) / 255;
}

static uint32_t xrgb(const struct pixfmt *f, uint32_t px)
{
	uint8_t r, g, b;

	pixfmt_unpack(f, px, &r, &g, &b);
	return (uint32_t)r << 16 | (uint32_t)g << 8 | b;
}

/* round(x / n) = (x + n / 2) * magic >> (16 + shift) for every sum the
 * exact path can make; searched and checked here rather than trusted. */
static bool find_magic(struct scale_exact *e, uint32_t n)
{
	uint32_t s, x, top = 255 * n + n / 2;

	if (top > 65535)
		return false;
	for (s = 0; s < 16; s++) {
		uint64_t m = ((1ull << (16 + s)) + n - 1) / n;

		if (m > 65535)
			break;
		for (x = n / 2; x <= top; x++)
			if (((x * m) >> (16 + s)) != x / n)
				break;
		if (x > top) {
			e->bias = (uint16_t)(n / 2);
			e->magic = (uint16_t)m;
			e->shift = s;
			return true;
		}
	}
	return false;
}

static void exact_finish(struct scale_exact *e)
{
	free(e->gsrc);
	free(e->gidx);
	free(e->gpairs);
	free(e->gw);
	free(e->gw16);
	free(e->h);
	free(e->hrows);
	free(e->line);
	free(e->tag);
	memset(e, 0, sizeof(*e));
}

/* Set up the exact path when the ratio allows it: at most 4 taps per
 * output across (1 or 2 pairs), the 4 outputs of a group within an
 * 8-pixel window. Byte weights and one exact division where the ratio's
 * terms are small (unit_x <= 127, unit_x * unit_y <= 256), 15-bit
 * weights (wide) otherwise. 0 when set up, 1 when the ratio does not
 * qualify, -ENOMEM. Over 100 lines because the tables it fills (taps,
 * weights, the group windows) are built in one pass over the ratio's
 * period and checked against one another as they go; apart, each would
 * repeat the walk. */
static int exact_init(struct scaler *sc)
{
	struct scale_exact *e = &sc->e;
	const struct scale_axis *ax = &sc->x;
	uint32_t G, j, c, i, k, np;
	size_t hbytes;

	memset(e, 0, sizeof(*e));
	if (!sc->kern->hx || ax->real_taps > 4)
		return 1;
	np = ax->taps / 2;
	e->wide = ax->unit > 127 || (uint64_t)ax->unit * sc->y.unit > 256 ||
		  !find_magic(e, ax->unit * sc->y.unit);
	if (e->wide && !sc->kern->hxw)
		return 1;
	e->pairs = np;
	e->groups = (sc->dw + 3) / 4;
	e->gsrc = calloc(e->groups, sizeof(*e->gsrc));
	e->gidx = calloc((size_t)e->groups * np * 8, sizeof(*e->gidx));
	e->gpairs = calloc(e->groups, 1);
	if (e->wide)
		e->gw16 = calloc((size_t)e->groups * np * 32, sizeof(*e->gw16));
	else
		e->gw = calloc((size_t)e->groups * np * 32, sizeof(*e->gw));
	e->slots = sc->y.real_taps;
	/* Cache-line aligned: every 32-byte store of the horizontal pass
	 * and load of the vertical one stays within one line (calloc's
	 * 16-byte alignment split every other one across two). */
	hbytes = (size_t)e->slots * e->groups * 16 * sizeof(*e->h);
	hbytes = (hbytes + 63) & ~(size_t)63;
	e->h = aligned_alloc(64, hbytes);
	if (e->h)
		memset(e->h, 0, hbytes);
	e->hrows = calloc(e->slots, sizeof(*e->hrows));
	e->line = calloc((size_t)e->groups * 16, 1);
	e->tag = malloc(e->slots * sizeof(*e->tag));
	if (!e->gsrc || !e->gidx || !e->gpairs || (!e->gw && !e->gw16) ||
	    !e->h || !e->hrows || !e->line || !e->tag) {
		exact_finish(e);
		return -ENOMEM;
	}
	for (i = 0; i < e->slots; i++)
		e->tag[i] = -1;
	for (G = 0; G < e->groups; G++) {
		int32_t base = ax->start[G * 4];

		e->gsrc[G] = base;
		e->gpairs[G] = 1;
		for (j = 0; j < 4; j++) {
			uint32_t o = G * 4 + j, s0, cum = 0, q0 = 0;
			const uint16_t *wi = ax->wi + (size_t)o * ax->taps;

			if (o >= sc->dw)
				continue; /* index 0, weight 0 */
			s0 = (uint32_t)(ax->start[o] - base);
			for (k = 0; k < ax->taps; k++) {
				size_t at = ((size_t)G * np + k / 2) * 8 +
					    2 * j + k % 2;
				size_t wat = ((size_t)G * np + k / 2) * 32 +
					     j * 8 + k % 2;
				int32_t w = wi[k];

				if (!wi[k]) {
					e->gidx[at] = s0; /* weight 0 */
					continue;
				}
				if (s0 + k > 7) {
					exact_finish(e);
					return 1;
				}
				if (k >= 2)
					e->gpairs[G] = 2;
				e->gidx[at] = s0 + k;
				if (e->wide) {
					/* Cumulative rounding to 1/32768:
					 * the weights sum to 32768, a lone
					 * tap's capped to 32767. */
					uint32_t q;

					cum += wi[k];
					q = (cum * 32768 + ax->unit / 2) /
					    ax->unit;
					w = (int32_t)(q - q0);
					q0 = q;
					if (w > 32767)
						w = 32767;
				}
				for (c = 0; c < 4; c++) {
					if (e->wide)
						e->gw16[wat - j * 8 +
							scale_wide_at(j) +
							2 * c] = (int16_t)w;
					else
						e->gw[wat + 2 * c] = (int8_t)w;
				}
			}
		}
	}
	/* How many leading groups repeat group 0 at a constant step. */
	e->step = e->groups > 1 ? (uint32_t)(ax->start[4] - ax->start[0]) : 0;
	e->uniform = 1;
	while (e->uniform < e->groups &&
	       (uint32_t)e->uniform * 4 + 4 <= sc->dw &&
	       e->gsrc[e->uniform] ==
		   e->gsrc[0] + (int32_t)(e->uniform * e->step) &&
	       e->gpairs[e->uniform] == e->gpairs[0] &&
	       !memcmp(e->gidx + (size_t)e->uniform * np * 8, e->gidx,
		       np * 8 * sizeof(*e->gidx)) &&
	       (e->wide ? !memcmp(e->gw16 + (size_t)e->uniform * np * 32,
				  e->gw16, np * 32 * sizeof(*e->gw16))
			: !memcmp(e->gw + (size_t)e->uniform * np * 32, e->gw,
				  np * 32)))
		e->uniform++;
	return 0;
}

static uint32_t field(uint32_t v, unsigned bits, unsigned shift)
{
	return (v >> shift) & ((1u << bits) - 1);
}

/* 8/16 bpp to xrgb8888 in small (L1-sized) tables: the channel fields of
 * a pixel are the OR of those of its two bytes (shifts and masks
 * distribute over OR), so lut[0..255] and lut[256..511] give the raw
 * fields of the low and high byte packed as r << 16 | g << 8 | b, and
 * lut[512..1279] expand raw r, g, b to 8 bits. */
static int lut_init(struct scaler *sc)
{
	const struct pixfmt *f = &sc->fmt;
	uint32_t i, b;

	sc->lut = malloc(1280 * sizeof(*sc->lut));
	if (!sc->lut)
		return -ENOMEM;
	for (b = 0; b < 2; b++) {
		for (i = 0; i < 256; i++) {
			uint32_t v = i << (8 * b);

			sc->lut[b * 256 + i] =
			    field(v, f->r_bits, f->r_shift) << 16 |
			    field(v, f->g_bits, f->g_shift) << 8 |
			    field(v, f->b_bits, f->b_shift);
		}
	}
	for (i = 0; i < 256; i++) {
		uint8_t r, g, b8;

		pixfmt_unpack(f,
			      (i & ((1u << f->r_bits) - 1)) << f->r_shift |
				  (i & ((1u << f->g_bits) - 1)) << f->g_shift |
				  (i & ((1u << f->b_bits) - 1)) << f->b_shift,
			      &r, &g, &b8);
		sc->lut[512 + i] = (uint32_t)r << 16;
		sc->lut[768 + i] = (uint32_t)g << 8;
		sc->lut[1024 + i] = b8;
	}
	return 0;
}

/* Everything the filtering paths need (not replicate). 0 or -ENOMEM; the
 * caller frees what was made either way. */
static int filter_init(struct scaler *sc)
{
	const struct pixfmt *fmt = &sc->fmt;
	uint32_t rw = sc->rw, rh = sc->rh, dw = sc->dw, dh = sc->dh;
	size_t i;
	unsigned k;
	int err;

	sc->bytewise = fmt_bytewise(fmt);
	sc->fast16 = fmt->bpp == 16 && !fmt->big_endian && fmt->r_bits >= 4 &&
		     fmt->g_bits >= 4 && fmt->b_bits >= 4;
	if (axis_init(&sc->x, rw, dw, true) < 0 ||
	    axis_init(&sc->y, rh, dh, false) < 0)
		return -ENOMEM;
	sc->hw = malloc((size_t)dw * sc->x.taps * 4 * sizeof(*sc->hw));
	/* Padding taps (weight 0) may read past the last pixel. */
	sc->vsum = calloc(((size_t)rw + sc->x.taps + 4) * 4, sizeof(*sc->vsum));
	sc->rowp = calloc(sc->y.taps, sizeof(*sc->rowp));
	sc->roww = calloc(sc->y.taps, sizeof(*sc->roww));
	if (!sc->hw || !sc->vsum || !sc->rowp || !sc->roww)
		return -ENOMEM;
	for (i = 0; i < (size_t)dw * sc->x.taps; i++)
		for (k = 0; k < 4; k++)
			sc->hw[i * 4 + k] = sc->x.w[i];
	err = exact_init(sc);
	if (err < 0)
		return -ENOMEM;
	sc->exact = err == 0;
	sc->p32 = sc->bytewise && sc->kern->p32 &&
		  (uint64_t)rw * 2 == (uint64_t)dw * 3 &&
		  (uint64_t)rh * 2 == (uint64_t)dh * 3;
	if (sc->p32) {
		/* Whole cache lines: the kernel stores 32 bytes at a time. */
		size_t lb = ((size_t)dw * 4 + 63) & ~(size_t)63;

		sc->p32_line[0] = aligned_alloc(64, lb);
		sc->p32_line[1] = aligned_alloc(64, lb);
		if (!sc->p32_line[0] || !sc->p32_line[1])
			return -ENOMEM;
		sc->p32_pair = -1;
	}
	sc->p21 = sc->bytewise && sc->kern->p21 && (uint64_t)rw == 2ull * dw &&
		  (uint64_t)rh == 2ull * dh;
	if (!sc->bytewise) {
		sc->conv = malloc((size_t)rw * 4 * sc->y.taps);
		sc->line = malloc((size_t)dw * 4);
		if (!sc->conv || !sc->line)
			return -ENOMEM;
		sc->pack = malloc(3 * 256 * sizeof(*sc->pack));
		if (!sc->pack)
			return -ENOMEM;
		for (i = 0; i < 256; i++) {
			sc->pack[i] = chan_round((uint32_t)i, fmt->r_bits)
				      << fmt->r_shift;
			sc->pack[256 + i] = chan_round((uint32_t)i, fmt->g_bits)
					    << fmt->g_shift;
			sc->pack[512 + i] = chan_round((uint32_t)i, fmt->b_bits)
					    << fmt->b_shift;
		}
		if (fmt->bpp <= 16 && lut_init(sc) < 0)
			return -ENOMEM;
	}
	return 0;
}

int scaler_create(struct scaler **out, const struct pixfmt *fmt, uint32_t rw,
		  uint32_t rh, uint32_t dw, uint32_t dh)
{
	struct scaler *sc;
	int err;

	*out = NULL;
	if (!rw || !rh || !dw || !dh)
		return -EINVAL;
	sc = calloc(1, sizeof(*sc));
	if (!sc)
		return -ENOMEM;
	if (!kern)
		kern = kernels_best();
	/* Required of every set; the other kernels are optional. */
	assert(kern->vsum && kern->hsum && kern->unpack16 && kern->pack16);
	sc->fmt = *fmt;
	sc->rw = rw;
	sc->rh = rh;
	sc->dw = dw;
	sc->dh = dh;
	sc->kern = kern;
	sc->replicate = dw % rw == 0 && dh % rh == 0;
	if (!sc->replicate) {
		err = filter_init(sc);
		if (err < 0) {
			scaler_destroy(sc);
			return err;
		}
	}
	*out = sc;
	return 0;
}

void scaler_destroy(struct scaler *sc)
{
	if (!sc)
		return;
	exact_finish(&sc->e);
	axis_finish(&sc->x);
	axis_finish(&sc->y);
	free(sc->hw);
	free(sc->vsum);
	free(sc->conv);
	free(sc->line);
	free(sc->lut);
	free(sc->pack);
	free(sc->rowp);
	free(sc->roww);
	free(sc->p32_line[0]);
	free(sc->p32_line[1]);
	free(sc);
}

enum scaler_path scaler_path(const struct scaler *sc)
{
	/* In the order scaler_row tries them. */
	if (sc->replicate)
		return SCALER_REPLICATE;
	if (sc->p32)
		return SCALER_PAIR32;
	if (sc->p21)
		return SCALER_PAIR21;
	if (sc->exact)
		return sc->e.wide ? SCALER_WIDE : SCALER_EXACT;
	return SCALER_GENERAL;
}

const char *scaler_kernels(const struct scaler *sc)
{
	return sc->kern->name;
}

/* --- Drawing --- */

static void replicate_row(const struct scaler *sc, const uint8_t *src,
			  size_t stride, uint32_t y, uint32_t x0, uint32_t x1,
			  uint8_t *out)
{
	unsigned bpp = pixfmt_bytes(&sc->fmt), fx = sc->dw / sc->rw;
	const uint8_t *row = src + (size_t)(y / (sc->dh / sc->rh)) * stride;
	uint32_t x;

	if (fx == 1) {
		memcpy(out, row + (size_t)x0 * bpp, (size_t)(x1 - x0) * bpp);
		return;
	}
	if (bpp == 4 && fx == 2 && x0 % 2 == 0 && sc->kern->dup2) {
		sc->kern->dup2(out, row + (size_t)(x0 / 2) * 4, x1 - x0);
		return;
	}
	if (bpp == 4) {
		uint32_t *o = (uint32_t *)(void *)out;
		const uint8_t *s = row + (size_t)(x0 / fx) * 4;
		uint32_t run = fx - x0 % fx; /* copies left of *s */

		/* Source pixel by source pixel, no division per output. */
		for (x = x0; x < x1; s += 4, run = fx) {
			uint32_t p, k;

			memcpy(&p, s, 4);
			if (run > x1 - x)
				run = x1 - x;
			for (k = 0; k < run; k++)
				*o++ = p;
			x += run;
		}
		return;
	}
	for (x = x0; x < x1; x++, out += bpp)
		memcpy(out, row + (size_t)(x / fx) * bpp, bpp);
}

static void to_xrgb(const struct scaler *sc, const uint8_t *src, uint32_t a,
		    uint32_t b, uint8_t *dst)
{
	const struct pixfmt *f = &sc->fmt;
	unsigned bpp = pixfmt_bytes(f);
	uint32_t x, *d = (uint32_t *)(void *)dst;

	const uint32_t *lo = sc->lut, *hi = lo + 256, *er = lo + 512,
		       *eg = lo + 768, *eb = lo + 1024;

	if (sc->fast16) {
		sc->kern->unpack16(d + a, src + (size_t)a * 2, b - a, f);
		return;
	}

	if (bpp <= 2) {
		/* Byte order: which byte holds the value's low bits. */
		unsigned l = bpp == 2 && f->big_endian ? 1 : 0;

		for (x = a; x < b; x++) {
			const uint8_t *p = src + (size_t)x * bpp;
			uint32_t t = lo[p[l]] | (bpp == 2 ? hi[p[1 - l]] : 0);

			d[x] = er[t >> 16] | eg[(t >> 8) & 0xff] | eb[t & 0xff];
		}
		return;
	}
	for (x = a; x < b; x++)
		d[x] = xrgb(f, pixfmt_load(f, src + (size_t)x * bpp));
}

static void from_xrgb(const struct scaler *sc, const uint8_t *line, uint32_t n,
		      uint8_t *out)
{
	const struct pixfmt *f = &sc->fmt;
	unsigned bpp = pixfmt_bytes(f);
	const uint32_t *s = (const uint32_t *)(const void *)line;
	const uint32_t *pr = sc->pack, *pg = pr + 256, *pb = pr + 512;
	uint32_t i;

	if (sc->fast16) {
		sc->kern->pack16(out, s, n, f);
		return;
	}

	for (i = 0; i < n; i++, out += bpp) {
		uint32_t v = s[i];

		v = pr[(v >> 16) & 0xff] | pg[(v >> 8) & 0xff] | pb[v & 0xff];
		if (bpp == 2 && !f->big_endian) {
			out[0] = (uint8_t)v;
			out[1] = (uint8_t)(v >> 8);
		} else if (bpp == 1) {
			out[0] = (uint8_t)v;
		} else {
			pixfmt_store(f, out, v);
		}
	}
}

void scaler_start(struct scaler *sc)
{
	unsigned i;

	for (i = 0; i < sc->e.slots; i++)
		sc->e.tag[i] = -1;
	sc->e.csrc = NULL;
	sc->p32_pair = -1;
}

/* Both rows of y's pair, for the whole groups of 4 pairs that cover
 * [x0, x1) (the kernel's step), unless the last call drew them. */
static const uint8_t *p32_row(struct scaler *sc, const uint8_t *src,
			      size_t stride, uint32_t y, uint32_t x0,
			      uint32_t x1)
{
	uint32_t k = y / 2, g0 = (x0 / 2) & ~3u, g1 = ((x1 + 1) / 2 + 3) & ~3u;

	if (g1 > sc->dw / 2)
		g1 = sc->dw / 2;
	if (src != sc->p32_src || (int64_t)k != sc->p32_pair ||
	    g0 < sc->p32_g0 || g1 > sc->p32_g1) {
		const uint8_t *r0 = src + (size_t)3 * k * stride;

		sc->kern->p32(sc->p32_line[0], sc->p32_line[1], r0, r0 + stride,
			      r0 + 2 * stride, g0, g1, false);
		sc->p32_src = src;
		sc->p32_pair = k;
		sc->p32_g0 = g0;
		sc->p32_g1 = g1;
	}
	return sc->p32_line[y & 1] + (size_t)x0 * 4;
}

static void exact_row(struct scaler *sc, const uint8_t *src, size_t stride,
		      uint32_t y, uint32_t x0, uint32_t x1, uint8_t *out)
{
	const struct scale_kernels *k_ = sc->kern;
	struct scale_exact *e = &sc->e;
	hx_fn hx = e->wide ? k_->hxw : k_->hx;
	vx_fn vx = e->wide ? k_->vxw : k_->vx;
	const uint16_t *wy =
	    (e->wide ? sc->y.w : sc->y.wi) + (size_t)y * sc->y.taps;
	uint32_t g0 = x0 / 4, g1 = (x1 + 3) / 4;
	uint32_t first = (uint32_t)sc->y.start[y], r, cx0, cx1;
	unsigned k, n = 0;

	if (src != e->csrc || g0 != e->cg0 || g1 != e->cg1) {
		scaler_start(sc);
		e->csrc = src;
		e->cg0 = g0;
		e->cg1 = g1;
	}
	/* Every pixel the groups' windows may read. */
	cx0 = (uint32_t)e->gsrc[g0];
	cx1 = (uint32_t)e->gsrc[g1 - 1] + 8;
	if (cx1 > sc->rw)
		cx1 = sc->rw;
	for (k = 0; k < sc->y.taps; k++) {
		unsigned slot;
		int16_t *h;

		if (!wy[k])
			continue;
		r = first + k;
		/* An output row's taps are consecutive rows: distinct
		 * slots. */
		slot = r % e->slots;
		h = e->h + (size_t)slot * e->groups * 16;
		if (e->tag[slot] != (int32_t)r) {
			const uint8_t *row = src + (size_t)r * stride;

			if (!sc->bytewise) {
				to_xrgb(sc, row, cx0, cx1, sc->conv);
				row = sc->conv;
			}
			/* The decoder has just written the shadow on
			 * another core: fetch two rows ahead. */
			e->ahead =
			    sc->bytewise && r + 2 < sc->rh ? 2 * stride : 0;
			hx(h, row, sc->rw, e, g0, g1);
			e->tag[slot] = (int32_t)r;
		}
		e->hrows[n] = h;
		sc->roww[n++] = wy[k];
	}
	if (sc->bytewise && x0 % 4 == 0) {
		/* Whole groups straight into out, the last partial one
		 * through the line buffer. */
		uint32_t gfull = x1 / 4;

		if (gfull > g0)
			vx(out, e->hrows, sc->roww, n, e, (size_t)g0 * 16,
			   (size_t)gfull * 16);
		if (gfull < g1) {
			vx(e->line, e->hrows, sc->roww, n, e,
			   (size_t)gfull * 16, (size_t)g1 * 16);
			memcpy(out + (size_t)(gfull - g0) * 16, e->line,
			       (size_t)(x1 - gfull * 4) * 4);
		}
		return;
	}
	vx(e->line, e->hrows, sc->roww, n, e, (size_t)g0 * 16, (size_t)g1 * 16);
	if (sc->bytewise)
		memcpy(out, e->line + (size_t)(x0 - g0 * 4) * 4,
		       (size_t)(x1 - x0) * 4);
	else
		from_xrgb(sc, e->line + (size_t)(x0 - g0 * 4) * 4, x1 - x0,
			  out);
}

static void p32_direct(struct scaler *sc, const uint8_t *src, size_t stride,
		       uint32_t y, uint32_t x0, uint32_t x1, uint8_t *out0,
		       uint8_t *out1)
{
	const uint8_t *r0 = src + (size_t)3 * (y / 2) * stride;
	const uint8_t *r1 = r0 + stride, *r2 = r1 + stride;
	uint8_t p[8], q[8];
	uint32_t g0, g1;

	/* An odd column at either end is half a pair: drawn aside, and
	 * only its own pixel stored. */
	if (x0 % 2) {
		scale_p32_one(p, q, r0 + (size_t)(x0 / 2) * 12,
			      r1 + (size_t)(x0 / 2) * 12,
			      r2 + (size_t)(x0 / 2) * 12);
		memcpy(out0, p + 4, 4);
		memcpy(out1, q + 4, 4);
	}
	g0 = (x0 + 1) / 2;
	g1 = x1 / 2;
	if (g1 > g0)
		sc->kern->p32(out0 - (size_t)x0 * 4, out1 - (size_t)x0 * 4, r0,
			      r1, r2, g0, g1, true);
	if (x1 % 2 && x1 - 1 >= x0 + x0 % 2) {
		scale_p32_one(p, q, r0 + (size_t)g1 * 12, r1 + (size_t)g1 * 12,
			      r2 + (size_t)g1 * 12);
		memcpy(out0 + (size_t)(x1 - 1 - x0) * 4, p, 4);
		memcpy(out1 + (size_t)(x1 - 1 - x0) * 4, q, 4);
	}
}

unsigned scaler_direct(struct scaler *sc, const uint8_t *src, size_t stride,
		       uint32_t y, uint32_t x0, uint32_t x1, uint8_t *out,
		       size_t ostride, uint32_t rows)
{
	if (x1 > sc->dw || x0 >= x1 || y >= sc->dh || !rows)
		return 0;
	if (sc->p32 && y % 2 == 0 && y + 1 < sc->dh && rows >= 2) {
		p32_direct(sc, src, stride, y, x0, x1, out, out + ostride);
		return 2;
	}
	if (sc->p21) {
		const uint8_t *a =
		    src + (size_t)2 * y * stride + (size_t)x0 * 8;

		sc->kern->p21(out, a, a + stride, x1 - x0, true);
		return 1;
	}
	return 0;
}

const uint8_t *scaler_row(struct scaler *sc, const uint8_t *src, size_t stride,
			  uint32_t y, uint32_t x0, uint32_t x1, uint8_t *out)
{
	const uint8_t **rows = sc->rowp;
	uint16_t *wts = sc->roww;
	const uint16_t *wy;
	uint32_t cx0, cx1, first;
	unsigned k, n = 0, taps;

	if (x1 > sc->dw)
		x1 = sc->dw;
	if (x0 >= x1 || y >= sc->dh)
		return out;
	if (sc->replicate) {
		replicate_row(sc, src, stride, y, x0, x1, out);
		return out;
	}
	if (sc->p32)
		return p32_row(sc, src, stride, y, x0, x1);
	if (sc->p21) {
		const uint8_t *a =
		    src + (size_t)2 * y * stride + (size_t)x0 * 8;

		sc->kern->p21(out, a, a + stride, x1 - x0, false);
		return out;
	}
	if (sc->exact) {
		exact_row(sc, src, stride, y, x0, x1, out);
		return out;
	}
	/* Source columns under outputs [x0, x1), padding taps excluded. */
	cx0 = (uint32_t)sc->x.start[x0];
	cx1 = (uint32_t)sc->x.start[x1 - 1] + sc->x.taps;
	if (cx1 > sc->rw)
		cx1 = sc->rw;
	first = (uint32_t)sc->y.start[y];
	wy = sc->y.w + (size_t)y * sc->y.taps;
	taps = sc->y.taps;
	for (k = 0; k < taps; k++) {
		const uint8_t *row;

		if (!wy[k])
			continue;
		row = src + (size_t)(first + k) * stride;
		if (!sc->bytewise) {
			uint8_t *c = sc->conv + (size_t)n * sc->rw * 4;

			to_xrgb(sc, row, cx0, cx1, c);
			row = c;
		}
		rows[n] = row;
		wts[n++] = wy[k];
	}
	sc->kern->vsum(sc->vsum, rows, wts, n, (size_t)cx0 * 4,
		       (size_t)cx1 * 4);
	if (sc->bytewise) {
		sc->kern->hsum(out, sc->vsum, sc->x.start, sc->hw, sc->x.taps,
			       x0, x1);
		return out;
	}
	sc->kern->hsum(sc->line, sc->vsum, sc->x.start, sc->hw, sc->x.taps, x0,
		       x1);
	from_xrgb(sc, sc->line, x1 - x0, out);
	return out;
}
