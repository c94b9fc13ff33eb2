/* The scalers that draw the remote desktop at another size (struct view
 * in view.h says which): pixel replication for integer zoom, area
 * averaging (box filter) otherwise.
 *
 * Threads: a struct scaler's buffers belong to whoever holds the lock
 * guarding it (the blitter's, in blit.c). */
#ifndef VNCFB_SCALE_H
#define VNCFB_SCALE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pixfmt.h"

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

/* The gather path, for reductions up to about 5:3 (and any enlargement):
 * a horizontal pass per source row (cached) in groups of 4 outputs, each
 * group gathering its taps from one 8-pixel window, then a vertical pass
 * per output row. Exact (byte weights, one rounded division by unit_x *
 * unit_y) where the ratio's reduced terms are small, as 1080p to 720p
 * (3:2 on both axes); wide (below) otherwise. */
struct scale_exact {
	uint32_t groups; /* ceil(dw / 4) */
	int32_t *gsrc;	 /* per group: first pixel of its window */
	uint32_t *gidx;	 /* per group and pair: 8 window indices */
	int8_t *gw;	 /* per group and pair: 32 weights */
	/* wide: ratios too fine for byte weights. The same windows with
	 * 15-bit weights (gw16, 32 per group, summing to 32768), the rows
	 * in 8.8 fixed point and the vertical weights of y.w: within 1 of
	 * the box filter instead of exact. */
	bool wide;
	int16_t *gw16;
	unsigned pairs;	      /* tap pairs per output: gidx, gw and gw16 hold
			       * this many sets of 8 / 32 / 32 per group */
	uint8_t *gpairs;      /* per group: the sets it needs (1 or 2) */
	uint32_t uniform;     /* groups [0, uniform) repeat group 0... */
	uint32_t step;	      /* ...each window step pixels further */
	size_t ahead;	      /* bytes to the source row to prefetch */
	uint16_t bias, magic; /* round(x / N) = (x + bias) * magic >> */
	unsigned shift;	      /* (16 + shift) */
	unsigned slots;	      /* cached horizontal rows */
	int16_t *h;
	const int16_t **hrows;
	uint8_t *line;	     /* groups * 16 bytes */
	int32_t *tag;	     /* source row held by each slot, -1: none */
	const uint8_t *csrc; /* what the cache was computed for */
	uint32_t cg0, cg1;
};

/* Draws rows of a rw x rh picture scaled to dw x dh. Integer ratios on
 * both axes (zoom, identity) replicate pixels in any format; anything else
 * averages areas on 8-bit channels (32 bpp formats with byte channels
 * directly, others through xrgb8888 and back): through the gather path
 * where it applies and the kernels have it (exact), else a vertical then
 * horizontal fixed-point filter (vsum, hsum). */
struct scaler {
	struct pixfmt fmt;
	uint32_t rw, rh, dw, dh;
	bool replicate;
	bool bytewise; /* 32 bpp, channels on byte boundaries */
	bool fast16;   /* 16 bpp little-endian, 4..8 bits a channel */
	struct scale_axis x, y;
	const void *kern; /* the kernel set chosen at init */
	bool exact;	  /* use the gather path e (struct scale_exact) */
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
	 * (see p32 in scale.c) and are kept for the next call. */
	bool p32;
	uint8_t *p32_line[2]; /* rows 2k, 2k+1; dw pixels each */
	const uint8_t *p32_src; /* the picture they were drawn from */
	int64_t p32_pair;	/* k, -1: none */
	uint32_t p32_g0, p32_g1; /* output pairs drawn */
	/* Both axes exactly 2:1 and bytewise: each output row from two
	 * source rows in one pass (see p21 in scale.c). */
	bool p21;
};

/* 0 or -ENOMEM / -EINVAL (sizes 0). fmt is the picture's format (the
 * shadow's). */
int scaler_init(struct scaler *sc, const struct pixfmt *fmt, uint32_t rw,
		uint32_t rh, uint32_t dw, uint32_t dh);
void scaler_finish(struct scaler *sc);
/* Draw desktop row y (0 <= y < dh), columns [x0, x1) (x1 - x0 pixels in
 * sc->fmt), reading the picture at src with stride bytes per row. Returns
 * where the row is: out (room for x1 - x0 pixels), or the scaler's own
 * buffer, valid until the next call. Work on source rows is cached from
 * one call to the next: call scaler_start whenever the picture may have
 * changed. */
void scaler_start(struct scaler *sc);
const uint8_t *scaler_row(struct scaler *sc, const uint8_t *src,
			  size_t stride, uint32_t y, uint32_t x0, uint32_t x1,
			  uint8_t *out);
/* Draw desktop rows from y on (at most rows of them), columns [x0, x1),
 * straight into out, a write-only mapping with ostride bytes a row (x1 -
 * x0 pixels each): with streaming stores where the CPU has them, so call
 * output_copy_stream_end() before the pixels must be visible. Returns the
 * rows drawn: 2 on the 3:2 path (sc->p32) from an even y, 1 on the 2:1
 * path (sc->p21), 0 (nothing drawn: use scaler_row) otherwise. Needs no
 * scaler_start. */
unsigned scaler_direct(struct scaler *sc, const uint8_t *src, size_t stride,
		       uint32_t y, uint32_t x0, uint32_t x1, uint8_t *out,
		       size_t ostride, uint32_t rows);

/* Which kernels run: "c", "sse2", "avx2" (x86-64 only), or "auto" (the
 * best the CPU has, the default). For tests and benchmarks. 0, or
 * -ENOTSUP when this CPU/build lacks it. Not thread-safe: call before
 * scaling starts. */
int scale_simd_set(const char *name);
const char *scale_simd_name(void);

#endif
