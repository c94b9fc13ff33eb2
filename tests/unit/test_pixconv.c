/* The converters chosen once per format pair against pixfmt_convert_row
 * (their specification), byte for byte, for every pair of the named
 * formats, their other byte order and R,G,B bytes; and the kind chosen
 * (on AArch64, that the NEON kernels are the ones compared). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "shadow/pixconv.h"
#include "shadow/pixfmt.h"

static const char *const names[] = {
    "xrgb8888", "bgrx8888", "xbgr8888", "rgb565",
    "xrgb1555", "rgb888",   "bgr888",	"rgb332",
};
#define N (sizeof(names) / sizeof(names[0]))
#define PIXELS 777

int main(void)
{
	struct pixfmt all[2 * N + 1];
	size_t n = 0;
	uint8_t src[PIXELS * 4], want[PIXELS * 4 + 4], got[PIXELS * 4 + 4];
	uint32_t seed = 99;

	for (size_t i = 0; i < N; i++) {
		pixfmt_from_name(names[i], &all[n++]);
		if (all[n - 1].bpp > 8) {
			all[n] = all[n - 1];
			all[n].big_endian = !all[n].big_endian;
			n++;
		}
	}
	pixconv_rgb_bytes(&all[n++]);
	for (size_t i = 0; i < sizeof(src); i++) {
		seed = seed * 1103515245u + 12345u;
		src[i] = (uint8_t)(seed >> 16);
	}
	for (size_t d = 0; d < n; d++)
		for (size_t s = 0; s < n; s++) {
			struct pixconv c;
			char dn[64], sn[64];

			pixconv_init(&c, &all[d], &all[s]);
			memset(want, 0xee, sizeof(want));
			memset(got, 0xee, sizeof(got));
			pixfmt_convert_row(&all[d], want, &all[s], src, PIXELS);
			/* Every length, so that SIMD tails are seen. */
			for (size_t len = PIXELS - 20; len <= PIXELS; len++) {
				memset(got, 0xee, sizeof(got));
				pixfmt_convert_row(&all[d], want, &all[s], src,
						   len);
				memset(want + len * (all[d].bpp / 8), 0xee,
				       sizeof(want) - len * (all[d].bpp / 8));
				pixconv_row(&c, got, src, len);
				CHECK(!memcmp(want, got, sizeof(want)),
				      "%s (%s) -> %s (%s), %zu: differs (%s)",
				      pixfmt_name(&all[s], sn, sizeof(sn)),
				      all[s].big_endian ? "be" : "le",
				      pixfmt_name(&all[d], dn, sizeof(dn)),
				      all[d].big_endian ? "be" : "le", len,
				      c.kind);
				memset(got, 0xee, sizeof(got));
				c.row_c(&c, got, src, len);
				CHECK(!memcmp(want, got, sizeof(want)),
				      "C path %zu differs", len);
			}
		}
	{
		struct pixfmt x, p, t, b;
		struct pixconv c;

		pixfmt_from_name("xrgb8888", &x);
		pixfmt_from_name("rgb565", &p);
		pixfmt_from_name("rgb888", &t);
		pixfmt_from_name("bgrx8888", &b);
		pixconv_init(&c, &x, &x);
		CHECK(!strcmp(c.kind, "copy"));
		pixconv_init(&c, &t, &x);
		CHECK(!strcmp(c.kind, "shuffle"), "xrgb8888 -> rgb888 %s",
		      c.kind);
		pixconv_init(&c, &b, &x);
		CHECK(!strcmp(c.kind, "shuffle"));
		pixconv_init(&c, &p, &x);
		CHECK(!strcmp(c.kind, "table"));
#ifdef __aarch64__
		/* The NEON kernels the comparisons above checked: the
		 * shuffles, and 8-bit channels into 16 bpp either order. */
		CHECK(c.row != c.row_c, "xrgb8888 -> rgb565: no NEON kernel");
		p.big_endian = true;
		pixconv_init(&c, &p, &x);
		CHECK(c.row != c.row_c, "xrgb8888 -> rgb565 be: no NEON");
		pixconv_init(&c, &t, &x);
		CHECK(c.row != c.row_c, "xrgb8888 -> rgb888: no NEON kernel");
		pixconv_init(&c, &b, &x);
		CHECK(c.row != c.row_c, "xrgb8888 -> bgrx8888: no NEON");
		pixconv_rgb_bytes(&t);
		pixconv_init(&c, &x, &t);
		CHECK(c.row != c.row_c, "R,G,B -> xrgb8888: no NEON kernel");
#endif
	}
	/* And against pixels worked out by hand, not by the pack and
	 * unpack the converters and their specification share: a 5- or
	 * 6-bit channel widened by repeating its bits (0x1f is 0xff, 1 is
	 * 0x08), narrowed by dropping the low ones. */
	{
		static const struct {
			const char *from, *to;
			uint8_t in[4], out[4];
		} hand[] = {
		    /* rgb565 little-endian to xrgb8888 (B,G,R,X bytes) */
		    {"rgb565", "xrgb8888", {0x1f, 0xf8}, {0xff, 0x00, 0xff, 0}},
		    {"rgb565", "xrgb8888", {0x41, 0x08}, {0x08, 0x08, 0x08, 0}},
		    {"rgb565", "xrgb8888", {0xe0, 0x07}, {0x00, 0xff, 0x00, 0}},
		    {"rgb565", "xrgb8888", {0x10, 0x84}, {0x84, 0x82, 0x84, 0}},
		    /* 200,15,45 to rgb565: 25,3,5 */
		    {"xrgb8888", "rgb565", {0x2d, 0x0f, 0xc8, 0}, {0x65, 0xc8}},
		    {"xrgb1555", "xrgb8888", {0x21, 0x04}, {0x08, 0x08, 0x08, 0}},
		    {"rgb332", "xrgb8888", {0x25}, {0x55, 0x24, 0x24, 0}},
		};

		for (size_t i = 0; i < sizeof(hand) / sizeof(hand[0]); i++) {
			struct pixfmt sf, df;
			struct pixconv c;
			uint8_t px[8] = {0};

			pixfmt_from_name(hand[i].from, &sf);
			pixfmt_from_name(hand[i].to, &df);
			pixconv_init(&c, &df, &sf);
			pixconv_row(&c, px, hand[i].in, 1);
			CHECK(!memcmp(px, hand[i].out, df.bpp / 8),
			      "%s %02x%02x to %s: %02x %02x %02x %02x",
			      hand[i].from, hand[i].in[1], hand[i].in[0],
			      hand[i].to, px[0], px[1], px[2], px[3]);
		}
	}
	return failures != 0;
}
