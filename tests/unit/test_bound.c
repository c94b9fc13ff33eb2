/* dec_bound (decode_priv.h), the check before every write by a library
 * vncfb does not instrument: rows that stay inside the job's rectangle in
 * the format in force pass; one byte past its right or bottom edge, a
 * row spaced for another pixel size, a buffer vncfb does not know are
 * refused with a line naming the call and the rectangle. */
#include "config.h"

#include <stdlib.h>

#include "../check.h"
#include "decode/decode_priv.h"

static struct dec_ctx ctx;

static int bound(const struct rect *r, const void *p, size_t pitch,
		 size_t rows, size_t row)
{
	ctx.why[0] = '\0';
	return dec_bound(&ctx, "sws_scale", r, p, pitch, rows, row);
}

int main(void)
{
	struct pixfmt pf;
	struct dec_fmt f;
	/* A 16 x 8 desktop of 2 bytes a pixel (rgb565). */
	uint8_t *pix = calloc(16 * 8, 2), *scratch;
	const size_t stride = 32;
	const struct rect r = {4, 2, 8, 4}, full = {0, 0, 16, 8};
	uint8_t *at = pix + 2 * stride + 4 * 2;

	pixfmt_from_name("rgb565", &pf);
	dec_fmt_init(&f, &pf);
	dec_ctx_init(&ctx, NULL, &f);
	ctx.fb = (struct dec_fb){pix, stride, 16, 8, &f};
	scratch = dec_scratch(&ctx, 100);

	/* The rectangle exactly, in its format. */
	CHECK_EQ(bound(&r, at, stride, 4, 8 * 2), DEC_OK);
	CHECK_EQ(bound(&full, pix, stride, 8, stride), DEC_OK);
	/* Its pixels at 4 bytes: past its right edge. */
	CHECK_EQ(bound(&r, at, stride, 4, 8 * 4), DEC_BAD);
	CHECK(strstr(ctx.why, "sws_scale would write 4 rows of 32 bytes") &&
		  strstr(ctx.why, "8x4 at 4,2 of 2 bytes a pixel"),
	      "why: %s", ctx.why);
	/* One byte past the right edge; one row past the bottom; a row
	 * before the top; a column before the left. */
	CHECK_EQ(bound(&r, at, stride, 4, 8 * 2 + 1), DEC_BAD);
	CHECK_EQ(bound(&r, at, stride, 5, 8 * 2), DEC_BAD);
	CHECK_EQ(bound(&r, at - stride, stride, 1, 8 * 2), DEC_BAD);
	CHECK_EQ(bound(&r, at - 2, stride, 1, 8 * 2), DEC_BAD);
	CHECK_EQ(bound(&r, at + 2, stride, 1, 7 * 2), DEC_OK);
	/* Rows spaced for another pixel size. */
	CHECK_EQ(bound(&r, at, 64, 4, 8 * 2), DEC_BAD);
	/* The last row of the desktop, and one byte past its end. */
	CHECK_EQ(bound(&full, pix + 7 * stride, stride, 1, stride), DEC_OK);
	CHECK_EQ(bound(&full, pix + 7 * stride + 1, stride, 1, stride),
		 DEC_BAD);
	/* A rectangle outside the desktop is no room at all. */
	CHECK_EQ(bound(&(struct rect){12, 0, 8, 1}, pix + 24, stride, 1, 8),
		 DEC_BAD);
	/* Without a rectangle: the desktop's or the scratch's bytes. */
	CHECK_EQ(bound(NULL, pix, 0, 1, 16 * 8 * 2), DEC_OK);
	CHECK_EQ(bound(NULL, pix + 1, 0, 1, 16 * 8 * 2), DEC_BAD);
	CHECK(strstr(ctx.why, "outside vncfb's buffers"), "why: %s", ctx.why);
	CHECK(scratch != NULL);
	CHECK_EQ(bound(NULL, scratch, 50, 2, 50), DEC_OK);
	CHECK_EQ(bound(NULL, scratch, 50, 2, 51), DEC_BAD);
	CHECK_EQ(bound(NULL, scratch, 51, 2, 50), DEC_BAD);
	/* Neither. */
	{
		uint8_t other[8];

		CHECK_EQ(bound(NULL, other, 8, 1, 8), DEC_BAD);
	}
	/* Nothing to write passes. */
	CHECK_EQ(bound(&r, NULL, 0, 0, 0), DEC_OK);
	dec_ctx_finish(&ctx);
	free(pix);
	return check_done("bound");
}
