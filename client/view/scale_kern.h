/* The scaler's kernels (inside the scaler only: scale.c and the
 * scale_*.c kernel files): the row operations of each scaling path, as a
 * table per instruction set. scale_c.c holds the C versions, which
 * specify every path; scale_sse2.c, scale_ssse3.c and scale_avx2.c
 * (x86-64 only, each built with its own -m flag, see client/meson.build)
 * and scale_neon.c (AArch64 only) compute the same integers, so they
 * agree bit for bit (tests/scale checks it).
 *
 * Fixed point (vsum, hsum): a vertical sum holds a channel value times
 * 256 (8.8), each tap contributing floor(p * 256 * w / 65536); the
 * horizontal pass sums floor(v * w / 65536) and rounds to 8 bits. Weights
 * sum to 65536 (65535 for a lone tap, which still reproduces p exactly),
 * so the result is within 1 of the exact box filter: the floors lose
 * under taps/256.
 *
 * Gather path, exact (hx, vx): integer weights; sums exact in 16 bits,
 * one division rounded to nearest. Wide (hxw, vxw): 15-bit horizontal
 * weights, >> 7 to 8.8, then the fixed-point vertical sum.
 *
 * Threads: the kernels are pure functions of their arguments, and the
 * tables constant: any thread. */
#ifndef VNCFB_SCALE_KERN_H
#define VNCFB_SCALE_KERN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "shadow/pixfmt.h"

/* meson builds the x86 kernel files where this is set (config.h), the
 * NEON ones where VNCFB_SIMD_NEON is. */
#if defined(VNCFB_SIMD_X86) && !defined(__x86_64__)
#error "VNCFB_SIMD_X86 set for a compiler that does not target x86-64"
#endif
#if defined(VNCFB_SIMD_NEON) && !defined(__aarch64__)
#error "VNCFB_SIMD_NEON set for a compiler that does not target AArch64"
#endif

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

/* Where output j (0..3) of a group keeps its 8 weights among a pair's 32
 * in gw16: outputs 0, 2, 1, 3, as hxw_avx2 multiplies them (one lane of
 * a register holds output 0 or 1, the other output 2 or 3). */
static inline unsigned scale_wide_at(unsigned j)
{
	return (j & 1) * 16 + (j >> 1) * 8;
}

/* The fixed-point path: vsum weighs n source rows into 8.8 sums, values
 * [from, to) of v; hsum filters outputs [x0, x1) across from them (taps
 * per output from start[], weights hw repeated per channel). */
typedef void (*vsum_fn)(uint16_t *v, const uint8_t *const *rows,
			const uint16_t *w, unsigned n, size_t from, size_t to);
typedef void (*hsum_fn)(uint8_t *out, const uint16_t *v, const int32_t *start,
			const uint16_t *hw, unsigned taps, uint32_t x0,
			uint32_t x1);

/* The gather path: hx fills groups [g0, g1) of a horizontal row (16
 * int16 per group: 4 outputs x 4 channels, sums of weight x channel);
 * vx combines n such rows and divides, values [from, to) (multiples of
 * 16), into out[0 .. to - from). */
typedef void (*hx_fn)(int16_t *h, const uint8_t *row, uint32_t rw,
		      const struct scale_exact *e, uint32_t g0, uint32_t g1);
typedef void (*vx_fn)(uint8_t *out, const int16_t *const *rows,
		      const uint16_t *w, unsigned n,
		      const struct scale_exact *e, size_t from, size_t to);

/* The 3:2 path: both axes exactly 3:2 (1080p to 720p, 4K to 1440p), 32 bpp
 * with byte channels. Source pixels 3g..3g+2 make outputs 2g and 2g+1
 * with weights (2, 1) and (1, 2) on each axis, so a 3x3 block makes a 2x2
 * one, each output sum(wy * wx * p) / 9 rounded: the exact path's
 * integers. One pass over three source rows writes both output rows, so
 * every source pixel is read once and no intermediate row goes through
 * memory: the general path reads each row into a horizontal row, stores
 * it and loads it back, and its vertical pass runs per output row.
 * p32 writes pairs [g0, g1) of output rows o0 and o1 (pixels 2 * g0 ..
 * 2 * g1 - 1) from source rows r0, r1, r2; all pointers at pixel 0. nt:
 * o0 and o1 are a write-only mapping (output.h), for streaming stores. */
typedef void (*p32_fn)(uint8_t *o0, uint8_t *o1, const uint8_t *r0,
		       const uint8_t *r1, const uint8_t *r2, uint32_t g0,
		       uint32_t g1, bool nt);

/* The 2:1 path: both axes exactly 2:1 (4K to 1080p), 32 bpp with byte
 * channels: each output the rounded mean of a 2x2 block, (sum + 2) / 4,
 * the exact path's integers. One output row from source rows a and b:
 * n outputs into o from 2n pixels of each (all at their first pixel). */
typedef void (*p21_fn)(uint8_t *o, const uint8_t *a, const uint8_t *b,
		       uint32_t n, bool nt);

/* 16 bpp little-endian formats with 4..8 bits per channel (rgb565,
 * xrgb1555) to and from xrgb8888, n pixels. Bit replication on the way
 * in and rounding on the way out, the same integers as pixfmt_unpack and
 * the scaler's chan_round. */
typedef void (*unpack16_fn)(uint32_t *d, const uint8_t *src, uint32_t n,
			    const struct pixfmt *f);
typedef void (*pack16_fn)(uint8_t *out, const uint32_t *s, uint32_t n,
			  const struct pixfmt *f);

/* Pixel doubling of 32 bpp pixels (zoom 2): n outputs into out, output i
 * being source pixel i / 2 from s. */
typedef void (*dup2_fn)(uint8_t *out, const uint8_t *s, uint32_t n);

/* One instruction set's kernels. Required: vsum, hsum, unpack16, pack16.
 * The others NULL where the set lacks the path, which the scaler then
 * leaves to the general one. */
struct scale_kernels {
	const char *name;
	vsum_fn vsum;
	hsum_fn hsum;
	hx_fn hx; /* NULL: no exact path with these kernels */
	vx_fn vx;
	hx_fn hxw; /* NULL: no wide path */
	vx_fn vxw;
	unpack16_fn unpack16;
	pack16_fn pack16;
	p32_fn p32;   /* NULL: 3:2 through the general path */
	p21_fn p21;   /* NULL: 2:1 likewise */
	dup2_fn dup2; /* NULL: the scaler's own pixel replication */
};

/* scale_c.c: the C versions, also the tails of the SIMD kernels. */
extern const struct scale_kernels scale_kernels_c;
void scale_vsum_c(uint16_t *v, const uint8_t *const *rows, const uint16_t *w,
		  unsigned n, size_t from, size_t to);
void scale_hsum_c(uint8_t *out, const uint16_t *v, const int32_t *start,
		  const uint16_t *hw, unsigned taps, uint32_t x0, uint32_t x1);
void scale_hx_c(int16_t *h, const uint8_t *row, uint32_t rw,
		const struct scale_exact *e, uint32_t g0, uint32_t g1);
void scale_hxw_c(int16_t *h, const uint8_t *row, uint32_t rw,
		 const struct scale_exact *e, uint32_t g0, uint32_t g1);
void scale_vx_c(uint8_t *out, const int16_t *const *rows, const uint16_t *w,
		unsigned n, const struct scale_exact *e, size_t from,
		size_t to);
void scale_vxw_c(uint8_t *out, const int16_t *const *rows, const uint16_t *w,
		 unsigned n, const struct scale_exact *e, size_t from,
		 size_t to);
/* One pair of the 3:2 path: p, q the two outputs of each row, a, b, d
 * the three source pixels of each row. */
void scale_p32_one(uint8_t *p, uint8_t *q, const uint8_t *a, const uint8_t *b,
		   const uint8_t *d);
void scale_p32_c(uint8_t *o0, uint8_t *o1, const uint8_t *r0, const uint8_t *r1,
		 const uint8_t *r2, uint32_t g0, uint32_t g1, bool nt);
void scale_p21_c(uint8_t *o, const uint8_t *a, const uint8_t *b, uint32_t n,
		 bool nt);
void scale_unpack16_c(uint32_t *d, const uint8_t *src, uint32_t n,
		      const struct pixfmt *f);
void scale_pack16_c(uint8_t *out, const uint32_t *s, uint32_t n,
		    const struct pixfmt *f);

#ifdef VNCFB_SIMD_X86
/* scale_sse2.c (x86-64's baseline): the fixed-point path and the 16 bpp
 * conversions, shared with the SSSE3 set and the AVX2 kernels' tails. */
extern const struct scale_kernels scale_kernels_sse2;
void scale_vsum_sse2(uint16_t *v, const uint8_t *const *rows, const uint16_t *w,
		     unsigned n, size_t from, size_t to);
void scale_hsum_sse2(uint8_t *out, const uint16_t *v, const int32_t *start,
		     const uint16_t *hw, unsigned taps, uint32_t x0,
		     uint32_t x1);
void scale_unpack16_sse2(uint32_t *d, const uint8_t *src, uint32_t n,
			 const struct pixfmt *f);
void scale_pack16_sse2(uint8_t *out, const uint32_t *s, uint32_t n,
		       const struct pixfmt *f);
void scale_dup2_sse2(uint8_t *out, const uint8_t *s, uint32_t n);
/* scale_ssse3.c and scale_avx2.c: only where the CPU has them. */
extern const struct scale_kernels scale_kernels_ssse3;
extern const struct scale_kernels scale_kernels_avx2;
#endif

#ifdef VNCFB_SIMD_NEON
/* scale_neon.c (AArch64's baseline): every path but the gather's
 * horizontal pass, which stays in C (it needs a per-lane gather). */
extern const struct scale_kernels scale_kernels_neon;
#endif

#endif
