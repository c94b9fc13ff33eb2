/* The scaler: draws rows of a remote picture at another size, by pixel
 * replication for integer ratios and by area averaging (a box filter)
 * otherwise, with the fastest kernels the CPU has (scale_kern.h).
 *
 * Threads: a scaler's buffers belong to whoever holds the lock guarding
 * it (the blitter's, in blit.c); different scalers are independent.
 * scale_simd_set is not thread-safe (before any scaler is made);
 * scale_simd_name and the accessors, any thread. */
#ifndef VNCFB_SCALE_H
#define VNCFB_SCALE_H

#include <stddef.h>
#include <stdint.h>

#include "shadow/pixfmt.h"

struct scaler;

/* A scaler for a rw x rh picture in format fmt (the shadow's) drawn dw x
 * dh large, with the kernels of scale_simd_set (or the best). 0 with
 * *out set, or -EINVAL (a size 0) / -ENOMEM with *out NULL. */
int scaler_create(struct scaler **out, const struct pixfmt *fmt, uint32_t rw,
		  uint32_t rh, uint32_t dw, uint32_t dh);
/* NULL is a no-op. */
void scaler_destroy(struct scaler *sc);

/* How a scaler draws, chosen at scaler_create from the ratio, the format
 * and the kernels. */
enum scaler_path {
	/* Integer ratios on both axes (zoom, identity): pixels replicated,
	 * any format. */
	SCALER_REPLICATE,
	/* Both axes exactly 3:2, 32 bpp with byte channels: two output
	 * rows at a time from three source rows (also scaler_direct). */
	SCALER_PAIR32,
	/* Both axes exactly 2:1, 32 bpp with byte channels: each output
	 * row from two source rows in one pass (also scaler_direct). */
	SCALER_PAIR21,
	/* The gather path with byte weights: exactly the box filter. */
	SCALER_EXACT,
	/* The gather path with 15-bit weights (ratios too fine for
	 * bytes): within 1 of the box filter. */
	SCALER_WIDE,
	/* A vertical then horizontal fixed-point filter, any ratio:
	 * within 1 of the box filter. */
	SCALER_GENERAL,
};

enum scaler_path scaler_path(const struct scaler *sc);
/* The kernel set it draws with: "c", "sse2", "ssse3", "avx2" or "neon". */
const char *scaler_kernels(const struct scaler *sc);

/* Draw desktop row y (0 <= y < dh), columns [x0, x1) (x1 - x0 pixels in
 * the picture's format), reading the picture at src with stride bytes per
 * row. Returns where the row is: out (room for x1 - x0 pixels), or the
 * scaler's own buffer, valid until the next call. Work on source rows is
 * cached from one call to the next: call scaler_start whenever the
 * picture may have changed. */
void scaler_start(struct scaler *sc);
const uint8_t *scaler_row(struct scaler *sc, const uint8_t *src,
			  size_t stride, uint32_t y, uint32_t x0, uint32_t x1,
			  uint8_t *out);
/* Draw desktop rows from y on (at most rows of them), columns [x0, x1),
 * straight into out, a write-only mapping with ostride bytes a row (x1 -
 * x0 pixels each): with streaming stores where the CPU has them, so call
 * output_copy_stream_end() before the pixels must be visible. Returns the
 * rows drawn: 2 on SCALER_PAIR32 from an even y, 1 on SCALER_PAIR21, 0
 * (nothing drawn: use scaler_row) otherwise. Needs no scaler_start. */
unsigned scaler_direct(struct scaler *sc, const uint8_t *src, size_t stride,
		       uint32_t y, uint32_t x0, uint32_t x1, uint8_t *out,
		       size_t ostride, uint32_t rows);

/* Which kernels the scalers made from now on use: "c", "sse2", "ssse3",
 * "avx2" (x86-64 only), "neon" (AArch64 only), or "auto" (the best the
 * CPU has, the default).
 * For tests and benchmarks. 0, or -ENOTSUP when this CPU/build lacks it.
 * Not thread-safe: call before scaling starts. */
int scale_simd_set(const char *name);
const char *scale_simd_name(void);

#endif
