/* Unit test: pixel format names, validity, what RFB can express, pack and
 * unpack with bit replication, load/store byte order, row conversion. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "../check.h"
#include "shadow/pixfmt.h"

static struct pixfmt fmt(const char *name)
{
	struct pixfmt f;

	memset(&f, 0, sizeof(f));
	CHECK_EQ(pixfmt_from_name(name, &f), 0);
	return f;
}

static void test_names(void)
{
	static const char *names[] = {"xrgb8888", "bgrx8888", "rgb565",
				      "rgb888",	  "bgr888",   "xrgb1555",
				      "rgb332"};
	struct pixfmt f;
	char buf[64];
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		f = fmt(names[i]);
		CHECK(pixfmt_valid(&f));
		CHECK(strcmp(pixfmt_name(&f, buf, sizeof(buf)), names[i]) == 0);
	}
	CHECK_EQ(pixfmt_from_name("rgb999", &f), -EINVAL);
	CHECK_EQ(pixfmt_from_name("", &f), -EINVAL);
	CHECK_EQ(pixfmt_from_name("XRGB8888x", &f), -EINVAL);

	f = fmt("xrgb8888");
	CHECK_EQ(f.bpp, 32);
	CHECK_EQ(f.r_shift, 16);
	CHECK_EQ(f.g_shift, 8);
	CHECK_EQ(f.b_shift, 0);
	f = fmt("rgb565");
	CHECK_EQ(f.bpp, 16);
	CHECK(f.r_bits == 5 && f.g_bits == 6 && f.b_bits == 5);
	CHECK(f.r_shift == 11 && f.g_shift == 5 && f.b_shift == 0);

	/* An odd layout gets a descriptive name. */
	f = (struct pixfmt){32, 24, 20, 10, 0, 8, 8, 8, false};
	pixfmt_name(&f, buf, sizeof(buf));
	CHECK(strstr(buf, "32bpp") != NULL);
}

static void test_valid_expressible(void)
{
	struct pixfmt f, s;

	f = fmt("xrgb8888");
	CHECK(pixfmt_rfb_expressible(&f));
	f = fmt("bgrx8888");
	CHECK(pixfmt_rfb_expressible(&f));
	f = fmt("rgb565");
	CHECK(pixfmt_rfb_expressible(&f));
	f = fmt("rgb332");
	CHECK(pixfmt_rfb_expressible(&f));
	/* 24 bpp packed is not an RFB format: the shadow is xrgb8888. */
	f = fmt("rgb888");
	CHECK(!pixfmt_rfb_expressible(&f));
	pixfmt_shadow_for(&f, &s);
	CHECK(s.bpp == 32 && s.r_shift == 16 && s.g_shift == 8 &&
	      s.b_shift == 0);
	f = fmt("rgb565");
	pixfmt_shadow_for(&f, &s);
	CHECK(pixfmt_equal(&f, &s));

	/* Invalid layouts: overlapping channels, channel past bpp, 0 or 9
	 * bits, odd bpp. */
	f = fmt("xrgb8888");
	f.g_shift = 12;
	CHECK(!pixfmt_valid(&f) && !pixfmt_rfb_expressible(&f));
	f = fmt("xrgb8888");
	f.r_shift = 28;
	CHECK(!pixfmt_valid(&f));
	f = fmt("xrgb8888");
	f.b_bits = 0;
	CHECK(!pixfmt_valid(&f));
	f = fmt("xrgb8888");
	f.b_bits = 9;
	CHECK(!pixfmt_valid(&f));
	f = fmt("rgb565");
	f.bpp = 12;
	CHECK(!pixfmt_valid(&f));
	f = fmt("rgb565");
	f.r_shift = 12;
	CHECK(!pixfmt_valid(&f));
}

static void test_pack_unpack(void)
{
	struct pixfmt x = fmt("xrgb8888"), b = fmt("bgrx8888");
	struct pixfmt p = fmt("rgb565"), q = fmt("xrgb1555");
	uint8_t r, g, bl;
	unsigned v, bad = 0;

	CHECK_EQ(pixfmt_pack(&x, 0x12, 0x34, 0x56), 0x123456);
	CHECK_EQ(pixfmt_pack(&b, 0x12, 0x34, 0x56), 0x56341200u);
	CHECK_EQ(pixfmt_pack(&p, 255, 255, 255), 0xffff);
	CHECK_EQ(pixfmt_pack(&p, 0xf8, 0, 0), 0xf800);
	CHECK_EQ(pixfmt_pack(&p, 0, 0xfc, 0), 0x07e0);
	CHECK_EQ(pixfmt_pack(&p, 0, 0, 0xf8), 0x001f);
	CHECK_EQ(pixfmt_pack(&q, 255, 255, 255), 0x7fff);

	pixfmt_unpack(&x, 0xff123456u, &r, &g, &bl);
	CHECK(r == 0x12 && g == 0x34 && bl == 0x56);
	pixfmt_unpack(&p, 0xffff, &r, &g, &bl);
	CHECK(r == 255 && g == 255 && bl == 255);
	/* Bit replication: 5-bit 10000b -> 10000100b, 6-bit 100000b ->
	 * 10000010b, 5-bit 00001b -> 00001000b. */
	pixfmt_unpack(&p, 0x10 << 11 | 0x20 << 5 | 0x01, &r, &g, &bl);
	CHECK_EQ(r, 0x84);
	CHECK_EQ(g, 0x82);
	CHECK_EQ(bl, 0x08);
	/* Every 5- and 6-bit level: unpack gives (v << 3 | v >> 2) and
	 * packing that back gives v. */
	for (v = 0; v < 32; v++) {
		pixfmt_unpack(&p, v << 11 | v, &r, &g, &bl);
		if (r != (uint8_t)(v << 3 | v >> 2) || bl != r ||
		    pixfmt_pack(&p, r, 0, bl) != (v << 11 | v))
			bad++;
	}
	for (v = 0; v < 64; v++) {
		pixfmt_unpack(&p, v << 5, &r, &g, &bl);
		if (g != (uint8_t)(v << 2 | v >> 4) ||
		    pixfmt_pack(&p, 0, g, 0) != v << 5)
			bad++;
	}
	CHECK_EQ(bad, 0);
	/* 2-bit blue (rgb332): 01b -> 01010101b. */
	{
		struct pixfmt c = fmt("rgb332");

		pixfmt_unpack(&c, 0x01, &r, &g, &bl);
		CHECK_EQ(bl, 0x55);
		pixfmt_unpack(&c, 0xe0, &r, &g, &bl);
		CHECK_EQ(r, 0xff);
	}
}

static void test_load_store(void)
{
	struct pixfmt x = fmt("xrgb8888"), p = fmt("rgb565");
	struct pixfmt t = fmt("rgb888");
	uint8_t buf[4] = {0};

	pixfmt_store(&x, buf, 0x00112233);
	CHECK(buf[0] == 0x33 && buf[1] == 0x22 && buf[2] == 0x11 &&
	      buf[3] == 0);
	CHECK_EQ(pixfmt_load(&x, buf), 0x00112233);
	memset(buf, 0xee, sizeof(buf));
	pixfmt_store(&t, buf, 0x112233);
	/* rgb888: B, G, R in memory; the fourth byte untouched. */
	CHECK(buf[0] == 0x33 && buf[1] == 0x22 && buf[2] == 0x11 &&
	      buf[3] == 0xee);
	CHECK_EQ(pixfmt_load(&t, buf), 0x112233);
	pixfmt_store(&p, buf, 0xf81f);
	CHECK(buf[0] == 0x1f && buf[1] == 0xf8);
	CHECK_EQ(pixfmt_load(&p, buf), 0xf81f);
	/* Big-endian layouts load and store the other way round. */
	x.big_endian = true;
	pixfmt_store(&x, buf, 0x00112233);
	CHECK(buf[0] == 0 && buf[1] == 0x11 && buf[2] == 0x22 &&
	      buf[3] == 0x33);
	CHECK_EQ(pixfmt_load(&x, buf), 0x00112233);
}

#define N 7

static void test_convert(void)
{
	static const uint8_t rgb[N][3] = {
	    {0, 0, 0},	 {255, 255, 255},    {255, 0, 0},	 {0, 255, 0},
	    {0, 0, 255}, {0x12, 0x34, 0x56}, {0x84, 0x82, 0x08},
	};
	struct pixfmt x = fmt("xrgb8888"), b = fmt("bgrx8888");
	struct pixfmt p = fmt("rgb565"), t = fmt("rgb888");
	uint8_t src[N * 4], to565[N * 2], back[N * 4], to888[N * 3];
	uint8_t tob[N * 4], again[N * 4];
	int i, bad = 0;

	for (i = 0; i < N; i++)
		pixfmt_store(&x, src + i * 4,
			     pixfmt_pack(&x, rgb[i][0], rgb[i][1], rgb[i][2]));

	/* xrgb8888 -> rgb565: the top bits of each channel. */
	pixfmt_convert_row(&p, to565, &x, src, N);
	for (i = 0; i < N; i++)
		if (pixfmt_load(&p, to565 + i * 2) !=
		    (uint32_t)((rgb[i][0] >> 3) << 11 | (rgb[i][1] >> 2) << 5 |
			       rgb[i][2] >> 3))
			bad++;
	CHECK_EQ(bad, 0);
	/* rgb565 -> xrgb8888: bit replication; exact for the values that
	 * rgb565 holds (black, white, primaries, the replicated one). */
	pixfmt_convert_row(&x, back, &p, to565, N);
	for (i = 0; i < N; i++) {
		uint8_t r, g, bl;

		pixfmt_unpack(&x, pixfmt_load(&x, back + i * 4), &r, &g, &bl);
		if (i != 5 &&
		    (r != rgb[i][0] || g != rgb[i][1] || bl != rgb[i][2]))
			bad++;
		if (i == 5 && (r != 0x10 || g != 0x34 || bl != 0x52))
			bad++;
	}
	CHECK_EQ(bad, 0);

	/* xrgb8888 -> rgb888 -> xrgb8888 is lossless; bytes are B,G,R. */
	pixfmt_convert_row(&t, to888, &x, src, N);
	for (i = 0; i < N; i++)
		if (to888[i * 3] != rgb[i][2] ||
		    to888[i * 3 + 1] != rgb[i][1] ||
		    to888[i * 3 + 2] != rgb[i][0])
			bad++;
	CHECK_EQ(bad, 0);
	memset(again, 0xaa, sizeof(again));
	pixfmt_convert_row(&x, again, &t, to888, N);
	for (i = 0; i < N; i++)
		if ((pixfmt_load(&x, again + i * 4) & 0xffffff) !=
		    (pixfmt_load(&x, src + i * 4) & 0xffffff))
			bad++;
	CHECK_EQ(bad, 0);

	/* xrgb8888 <-> bgrx8888: byte order reversed, lossless. */
	pixfmt_convert_row(&b, tob, &x, src, N);
	for (i = 0; i < N; i++)
		if (tob[i * 4 + 1] != rgb[i][0] ||
		    tob[i * 4 + 2] != rgb[i][1] || tob[i * 4 + 3] != rgb[i][2])
			bad++;
	CHECK_EQ(bad, 0);
	pixfmt_convert_row(&x, again, &b, tob, N);
	for (i = 0; i < N; i++)
		if ((pixfmt_load(&x, again + i * 4) & 0xffffff) !=
		    (pixfmt_load(&x, src + i * 4) & 0xffffff))
			bad++;
	CHECK_EQ(bad, 0);

	/* Same format: a plain copy. */
	memset(again, 0, sizeof(again));
	pixfmt_convert_row(&x, again, &x, src, N);
	CHECK(memcmp(again, src, sizeof(src)) == 0);
	/* n = 0 writes nothing. */
	memset(again, 0x5a, sizeof(again));
	pixfmt_convert_row(&p, again, &x, src, 0);
	CHECK(again[0] == 0x5a);
}

int main(void)
{
	test_names();
	test_valid_expressible();
	test_pack_unpack();
	test_load_store();
	test_convert();
	return check_done("pixfmt");
}
