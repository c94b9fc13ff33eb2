/* The picture of test_pikvm.py's kvmd-like server, encoded as PiKVM's
 * streamers hand frames to kvmd: a JPEG file (libjpeg) or one Open H.264
 * IDR frame in Annex B (client/tools/demo/h264enc.h, libavcodec). Not
 * part of vncfb.
 *
 * usage: kvmdenc jpeg PERCENT IN.ppm OUT
 *        kvmdenc h264 IN.ppm OUT
 * IN is a binary PPM (P6, maxval 255; even sizes for h264). Exit 0, or 1
 * with one line on stderr; 77 for h264 in a build without libavcodec.
 *
 * Threads: one. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>

#include "config.h"

#ifdef VNCFB_HAVE_H264
#include "testlib.h"
#include "tools/demo/h264enc.h"
#endif

/* x264's constant quality: visually lossless. */
#define CRF 18

struct image {
	int w, h;
	uint8_t *rgb;
};

static int ppm_read(const char *path, struct image *im)
{
	int err = testlib_ppm_read(path, &im->w, &im->h, &im->rgb);

	if (err == -ENOENT || err == -EACCES)
		fprintf(stderr, "%s: %s\n", path, strerror(-err));
	return err < 0 ? -1 : 0;
}

static int jpeg_write(const struct image *im, int percent, const char *path)
{
	struct jpeg_compress_struct c;
	struct jpeg_error_mgr jerr;
	FILE *f = fopen(path, "wb");

	if (!f) {
		perror(path);
		return -1;
	}
	c.err = jpeg_std_error(&jerr);
	jpeg_create_compress(&c);
	jpeg_stdio_dest(&c, f);
	c.image_width = (JDIMENSION)im->w;
	c.image_height = (JDIMENSION)im->h;
	c.input_components = 3;
	c.in_color_space = JCS_RGB;
	jpeg_set_defaults(&c);
	jpeg_set_quality(&c, percent, TRUE);
	jpeg_start_compress(&c, TRUE);
	while (c.next_scanline < c.image_height) {
		JSAMPROW row = im->rgb + (size_t)c.next_scanline * im->w * 3;

		jpeg_write_scanlines(&c, &row, 1);
	}
	jpeg_finish_compress(&c);
	jpeg_destroy_compress(&c);
	return fclose(f) == 0 ? 0 : -1;
}

static int h264_write(const struct image *im, const char *path)
{
#ifdef VNCFB_HAVE_H264
	struct h264enc *e = h264enc_create(im->w, im->h, CRF);
	const uint8_t *out;
	size_t len;
	FILE *f;
	int ret = -1;

	if (!e)
		return -1;
	if (h264enc_frame(e, im->rgb, (size_t)im->w * 3, true, &out, &len) <
	    0) {
		fprintf(stderr, "encoding the frame failed\n");
		goto out;
	}
	f = fopen(path, "wb");
	if (!f) {
		perror(path);
		goto out;
	}
	if (fwrite(out, 1, len, f) == len)
		ret = 0;
	if (fclose(f) != 0)
		ret = -1;
out:
	h264enc_destroy(e);
	return ret;
#else
	(void)im;
	(void)path;
	fprintf(stderr, "built without libavcodec: no Open H.264\n");
	exit(77);
#endif
}

int main(int argc, char **argv)
{
	struct image im = { 0 };
	int ret;

	if (argc == 5 && strcmp(argv[1], "jpeg") == 0) {
		int q = atoi(argv[2]);

		if (q < 1 || q > 100 || ppm_read(argv[3], &im) < 0)
			return 1;
		ret = jpeg_write(&im, q, argv[4]);
	} else if (argc == 4 && strcmp(argv[1], "h264") == 0) {
		if (ppm_read(argv[2], &im) < 0)
			return 1;
		ret = h264_write(&im, argv[3]);
	} else {
		fprintf(stderr, "usage: kvmdenc jpeg PERCENT IN.ppm OUT | "
				"kvmdenc h264 IN.ppm OUT\n");
		return 1;
	}
	free(im.rgb);
	return ret < 0 ? 1 : 0;
}
