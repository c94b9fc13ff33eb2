/* wsdisplay fbinfo to pixel format, mapping size and the 3-3-2 map. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shadow/pixfmt.h"
#include "wsfb_format.h"

#include "../check.h"

static struct wsfb_info rgb(uint32_t bpp, uint32_t ro, uint32_t rs, uint32_t go,
			    uint32_t gs, uint32_t bo, uint32_t bs)
{
	struct wsfb_info fi;

	memset(&fi, 0, sizeof(fi));
	fi.width = 1024;
	fi.height = 768;
	fi.bpp = bpp;
	fi.stride = 1024 * bpp / 8;
	fi.pixeltype = WSFB_FMT_RGB;
	fi.r_off = ro, fi.r_size = rs;
	fi.g_off = go, fi.g_size = gs;
	fi.b_off = bo, fi.b_size = bs;
	return fi;
}

static void test_rgb_formats(void)
{
	struct wsfb_info fi;
	struct pixfmt f;
	uint8_t px[4];
	bool cm = true;

	/* genfb on a PC: x8r8g8b8. Red must land in byte 2 of the pixel. */
	fi = rgb(32, 16, 8, 8, 8, 0, 8);
	CHECK(wsfb_pixfmt(&fi, &f, &cm, NULL, 0) == 0);
	CHECK(!cm);
	CHECK(f.bpp == 32 && f.depth == 24);
	CHECK(pixfmt_pack(&f, 0xff, 0, 0) == 0xff0000);
	CHECK(pixfmt_rfb_expressible(&f));
	pixfmt_store(&f, px, pixfmt_pack(&f, 0x12, 0x34, 0x56));
	CHECK(px[0] == 0x56 && px[1] == 0x34 && px[2] == 0x12);

	/* Blue high (some ARM display controllers): b at 16. */
	fi = rgb(32, 0, 8, 8, 8, 16, 8);
	CHECK(wsfb_pixfmt(&fi, &f, &cm, NULL, 0) == 0);
	CHECK(pixfmt_pack(&f, 0, 0, 0xff) == 0xff0000);
	CHECK(pixfmt_pack(&f, 0xff, 0, 0) == 0xff);

	/* r5g6b5 */
	fi = rgb(16, 11, 5, 5, 6, 0, 5);
	CHECK(wsfb_pixfmt(&fi, &f, &cm, NULL, 0) == 0);
	CHECK(f.bpp == 16 && f.depth == 16);
	CHECK(pixfmt_pack(&f, 0xff, 0, 0) == 0xf800);
	CHECK(pixfmt_pack(&f, 0, 0xff, 0) == 0x07e0);

	/* 24 bpp packed: drawable, but not by RFB directly. */
	fi = rgb(24, 16, 8, 8, 8, 0, 8);
	CHECK(wsfb_pixfmt(&fi, &f, &cm, NULL, 0) == 0);
	CHECK(f.bpp == 24 && !pixfmt_rfb_expressible(&f));
}

static void test_refusals(void)
{
	struct wsfb_info fi;
	struct pixfmt f;
	char why[160];
	bool cm;

	/* 10-bit channels (x2r10g10b10) */
	fi = rgb(32, 20, 10, 10, 10, 0, 10);
	why[0] = '\0';
	CHECK(wsfb_pixfmt(&fi, &f, &cm, why, sizeof(why)) == -ENOTSUP);
	CHECK(strstr(why, "10/10/10") != NULL);
	/* overlapping channels */
	fi = rgb(16, 8, 8, 4, 8, 0, 5);
	CHECK(wsfb_pixfmt(&fi, &f, &cm, why, sizeof(why)) == -EINVAL);
	CHECK(strstr(why, "overlap") != NULL);
	/* channel outside the pixel */
	fi = rgb(16, 12, 8, 5, 6, 0, 5);
	CHECK(wsfb_pixfmt(&fi, &f, &cm, why, sizeof(why)) == -EINVAL);
	/* stride below a row */
	fi = rgb(32, 16, 8, 8, 8, 0, 8);
	fi.stride = 1023 * 4;
	CHECK(wsfb_pixfmt(&fi, &f, &cm, why, sizeof(why)) == -EINVAL);
	CHECK(strstr(why, "stride") != NULL);
	/* zero and absurd sizes */
	fi = rgb(32, 16, 8, 8, 8, 0, 8);
	fi.height = 0;
	CHECK(wsfb_pixfmt(&fi, &f, &cm, why, sizeof(why)) == -EINVAL);
	fi.height = 100000;
	CHECK(wsfb_pixfmt(&fi, &f, &cm, why, sizeof(why)) == -EINVAL);
	/* 4 bpp, greyscale, YUV */
	fi = rgb(4, 0, 1, 1, 1, 2, 1);
	fi.stride = 512;
	CHECK(wsfb_pixfmt(&fi, &f, &cm, why, sizeof(why)) == -ENOTSUP);
	CHECK(strstr(why, "4 bits per pixel") != NULL);
	fi = rgb(8, 0, 0, 0, 0, 0, 0);
	fi.pixeltype = WSFB_FMT_GREYSCALE;
	CHECK(wsfb_pixfmt(&fi, &f, &cm, why, sizeof(why)) == -ENOTSUP);
	CHECK(strstr(why, "greyscale") != NULL);
	fi.pixeltype = WSFB_FMT_YUY2;
	fi.bpp = 16;
	fi.stride = 2048;
	CHECK(wsfb_pixfmt(&fi, &f, &cm, why, sizeof(why)) == -ENOTSUP);
	/* colour-indexed with a 16-entry map */
	fi = rgb(8, 0, 0, 0, 0, 0, 0);
	fi.pixeltype = WSFB_FMT_CI;
	fi.cmap_entries = 16;
	CHECK(wsfb_pixfmt(&fi, &f, &cm, why, sizeof(why)) == -ENOTSUP);
}

static void test_cmap(void)
{
	struct wsfb_info fi;
	struct pixfmt f;
	uint8_t r[256], g[256], b[256];
	bool cm = false;
	unsigned i;

	fi = rgb(8, 0, 0, 0, 0, 0, 0);
	fi.pixeltype = WSFB_FMT_CI;
	fi.cmap_entries = 256;
	CHECK(wsfb_pixfmt(&fi, &f, &cm, NULL, 0) == 0);
	CHECK(cm);
	CHECK(f.bpp == 8 && f.r_bits == 3 && f.g_bits == 3 && f.b_bits == 2);
	CHECK(pixfmt_rfb_expressible(&f));
	wsfb_cmap_332(r, g, b);
	/* Every pixel value the shadow holds shows the colour RFB meant. */
	for (i = 0; i < 256; i++) {
		uint8_t er, eg, eb;

		pixfmt_unpack(&f, i, &er, &eg, &eb);
		CHECK(r[i] == er && g[i] == eg && b[i] == eb);
	}
	CHECK(r[0] == 0 && g[0] == 0 && b[0] == 0);
	CHECK(r[255] == 255 && g[255] == 255 && b[255] == 255);
	CHECK(r[0xe0] == 255 && g[0xe0] == 0 && b[0xe0] == 0);
	CHECK(r[0x03] == 0 && g[0x03] == 0 && b[0x03] == 255);
	/* packing pure colours lands on those indices */
	CHECK(pixfmt_pack(&f, 255, 0, 0) == 0xe0);
	CHECK(pixfmt_pack(&f, 0, 0, 255) == 0x03);
}

static void test_ginfo(void)
{
	struct wsfb_info fi;
	struct pixfmt f;
	bool cm;

	wsfb_from_ginfo(800, 600, 16, 0, 1664, &fi);
	CHECK(fi.stride == 1664 && fi.bpp == 16);
	CHECK(wsfb_pixfmt(&fi, &f, &cm, NULL, 0) == 0);
	CHECK(pixfmt_pack(&f, 0xff, 0, 0) == 0xf800);

	wsfb_from_ginfo(800, 600, 15, 0, 0, &fi);
	CHECK(fi.stride == 1600 && fi.bpp == 16);
	CHECK(wsfb_pixfmt(&fi, &f, &cm, NULL, 0) == 0);
	CHECK(pixfmt_pack(&f, 0xff, 0, 0) == 0x7c00);

	wsfb_from_ginfo(640, 480, 32, 0, 0, &fi);
	CHECK(fi.stride == 2560);
	CHECK(wsfb_pixfmt(&fi, &f, &cm, NULL, 0) == 0);
	CHECK(pixfmt_pack(&f, 0xff, 0, 0) == 0xff0000 && !cm);

	wsfb_from_ginfo(640, 480, 24, 0, 0, &fi);
	CHECK(fi.stride == 1920 && fi.bpp == 24);
	CHECK(wsfb_pixfmt(&fi, &f, &cm, NULL, 0) == 0);

	wsfb_from_ginfo(640, 480, 8, 256, 640, &fi);
	CHECK(wsfb_pixfmt(&fi, &f, &cm, NULL, 0) == 0 && cm);

	wsfb_from_ginfo(640, 480, 1, 0, 80, &fi);
	CHECK(wsfb_pixfmt(&fi, &f, &cm, NULL, 0) == -ENOTSUP);
}

static void test_map_len(void)
{
	struct wsfb_info fi = rgb(32, 16, 8, 8, 8, 0, 8);
	size_t len = 0;

	CHECK(wsfb_map_len(&fi, 4096, &len) == 0);
	CHECK(len == 1024u * 768 * 4);
	/* visible part after an offset: still covered, page rounded */
	fi.fboffset = 100;
	CHECK(wsfb_map_len(&fi, 4096, &len) == 0);
	CHECK(len == 1024u * 768 * 4 + 4096);
	/* fbsize smaller than offset + mode */
	fi.fbsize = 1024u * 768 * 4;
	CHECK(wsfb_map_len(&fi, 4096, &len) == -EINVAL);
	fi.fbsize = 1024u * 768 * 4 + 100;
	CHECK(wsfb_map_len(&fi, 4096, &len) == 0);
	/* absurd offset */
	fi.fbsize = 0;
	fi.fboffset = (uint64_t)1 << 50;
	CHECK(wsfb_map_len(&fi, 4096, &len) == -EINVAL);
	fi.fboffset = 0;
	CHECK(wsfb_map_len(&fi, 3000, &len) == -EINVAL);
	fi.stride = 16;
	CHECK(wsfb_map_len(&fi, 4096, &len) == -EINVAL);
}

int main(void)
{
	test_rgb_formats();
	test_refusals();
	test_cmap();
	test_ginfo();
	test_map_len();
	if (failures) {
		fprintf(stderr, "%d checks failed\n", failures);
		return 1;
	}
	printf("wsfb_format: all checks passed\n");
	return 0;
}
