/* The tests' reference box filter: exact area averages in doubles,
 * written independently of client/view/scale.c. */
#ifndef VNCFB_TEST_REF_BOX_H
#define VNCFB_TEST_REF_BOX_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "shadow/pixfmt.h"

/* The reference: exact area average in doubles, per 8-bit channel, of
 * the source unpacked with pixfmt_unpack. out is w*h*3 doubles. */
static inline void ref_box(const struct pixfmt *f, const uint8_t *src,
			   size_t stride, uint32_t rw, uint32_t rh, uint32_t dw,
			   uint32_t dh, double *out)
{
	unsigned bpp = pixfmt_bytes(f);
	double sx = (double)rw / dw, sy = (double)rh / dh;
	uint32_t X, Y, i, j;

	for (Y = 0; Y < dh; Y++) {
		double y0 = Y * sy, y1 = (Y + 1) * sy;

		for (X = 0; X < dw; X++) {
			double x0 = X * sx, x1 = (X + 1) * sx, acc[3] = {0};
			double area = 0;
			int c;

			for (j = (uint32_t)floor(y0); j < rh && j < y1; j++) {
				double wy = fmin(j + 1, y1) - fmax(j, y0);

				if (wy <= 0)
					continue;
				for (i = (uint32_t)floor(x0); i < rw && i < x1;
				     i++) {
					double wx =
					    fmin(i + 1, x1) - fmax(i, x0);
					uint8_t ch[3];

					if (wx <= 0)
						continue;
					pixfmt_unpack(
					    f,
					    pixfmt_load(f, src + j * stride +
							       i * bpp),
					    &ch[0], &ch[1], &ch[2]);
					for (c = 0; c < 3; c++)
						acc[c] += wx * wy * ch[c];
					area += wx * wy;
				}
			}
			for (c = 0; c < 3; c++)
				out[((size_t)Y * dw + X) * 3 + c] =
				    acc[c] / area;
		}
	}
}

#endif
