/* Screenshot writers (PPM, PNG) and a strict PPM reader (sizes capped,
 * header checked). */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <zlib.h>

#include "util/log.h"
#include "util/be.h"
#include "util/ppm.h"

struct image {
	uint32_t w, h;
	const uint8_t *rgb;
};

static int put_ppm(FILE *f, const struct image *im)
{
	size_t n = (size_t)im->w * im->h * 3;

	if (fprintf(f, "P6\n%u %u\n255\n", im->w, im->h) < 0 ||
	    fwrite(im->rgb, 1, n, f) != n)
		return -(errno ? errno : EIO);
	return 0;
}

/* One chunk: length, type, data, CRC of type and data. */
static int put_chunk(FILE *f, const char *type, const uint8_t *data,
		     size_t len)
{
	uint8_t b[4];
	uLong crc = crc32(0, (const Bytef *)type, 4);

	/* crc32(crc, NULL, 0) would restart at the initial value. */
	if (len)
		crc = crc32(crc, data, (uInt)len);
	be32_put(b, (uint32_t)len);
	if (fwrite(b, 1, 4, f) != 4 || fwrite(type, 1, 4, f) != 4 ||
	    (len && fwrite(data, 1, len, f) != len))
		return -(errno ? errno : EIO);
	be32_put(b, (uint32_t)crc);
	return fwrite(b, 1, 4, f) == 4 ? 0 : -(errno ? errno : EIO);
}

#define PNG_IDAT_MAX 65536

/* Rows with filter type 0 (none) through deflate, one IDAT chunk per
 * filled buffer: the image is never held twice. */
static int put_png(FILE *f, const struct image *im)
{
	static const uint8_t sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n',
					0x1a, '\n' };
	size_t rowlen = (size_t)im->w * 3;
	uint8_t ihdr[13], *out, *row;
	z_stream z;
	uint32_t y;
	int ret, zr = Z_OK;

	memset(&z, 0, sizeof(z));
	if (deflateInit(&z, 6) != Z_OK)
		return -ENOMEM;
	out = malloc(PNG_IDAT_MAX);
	row = malloc(rowlen + 1);
	if (!out || !row) {
		ret = -ENOMEM;
		goto done;
	}
	be32_put(ihdr, im->w);
	be32_put(ihdr + 4, im->h);
	ihdr[8] = 8;	/* bits per channel */
	ihdr[9] = 2;	/* RGB */
	ihdr[10] = ihdr[11] = ihdr[12] = 0;
	ret = fwrite(sig, 1, 8, f) == 8 ? 0 : -(errno ? errno : EIO);
	if (ret == 0)
		ret = put_chunk(f, "IHDR", ihdr, sizeof(ihdr));
	z.next_out = out;
	z.avail_out = PNG_IDAT_MAX;
	row[0] = 0;	/* filter type: none */
	for (y = 0; y <= im->h && ret == 0; y++) {
		int flush = y < im->h ? Z_NO_FLUSH : Z_FINISH;

		if (y < im->h) {
			memcpy(row + 1, im->rgb + (size_t)y * rowlen, rowlen);
			z.next_in = row;
			z.avail_in = (uInt)(rowlen + 1);
		}
		do {
			zr = deflate(&z, flush);
			if (zr == Z_STREAM_ERROR) {
				ret = -EIO;
				break;
			}
			if (z.avail_out == 0 || zr == Z_STREAM_END) {
				ret = put_chunk(f, "IDAT", out,
						PNG_IDAT_MAX - z.avail_out);
				z.next_out = out;
				z.avail_out = PNG_IDAT_MAX;
			}
		} while (ret == 0 &&
			 (z.avail_in > 0 ||
			  (flush == Z_FINISH && zr != Z_STREAM_END)));
	}
	if (ret == 0)
		ret = put_chunk(f, "IEND", NULL, 0);
done:
	deflateEnd(&z);
	free(row);
	free(out);
	return ret;
}

/* A temporary file beside path, renamed over it when complete: a reader
 * (a test polling for SIGUSR1's result) never sees half a picture. */
static int write_atomic(const char *path, const struct image *im,
			int (*put)(FILE *f, const struct image *im))
{
	char tmp[4096];
	FILE *f;
	int err;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp%ld", path, (long)getpid()) >=
	    (int)sizeof(tmp))
		return -ENAMETOOLONG;
	f = fopen(tmp, "wb");
	if (!f) {
		err = errno;
		log_error("cannot write screenshot %s: %s", path,
			  strerror(err));
		return -err;
	}
	errno = 0;
	err = put(f, im);
	if (err < 0) {
		fclose(f);
		unlink(tmp);
		log_error("cannot write screenshot %s: %s", path,
			  strerror(-err));
		return err;
	}
	if (fclose(f) != 0 || rename(tmp, path) < 0) {
		err = errno;
		unlink(tmp);
		log_error("cannot write screenshot %s: %s", path,
			  strerror(err));
		return -err;
	}
	return 0;
}

/* Write w x h RGB (3 bytes/pixel) atomically (temp file + rename).
 * 0 or -errno (logged). */
static int ppm_write(const char *path, uint32_t w, uint32_t h,
		     const uint8_t *rgb)
{
	struct image im = { w, h, rgb };

	return write_atomic(path, &im, put_ppm);
}

/* The same as PNG (8-bit RGB, zlib-compressed). */
static int png_write(const char *path, uint32_t w, uint32_t h,
		     const uint8_t *rgb)
{
	struct image im = { w, h, rgb };

	return write_atomic(path, &im, put_png);
}

int image_write(const char *path, uint32_t w, uint32_t h, const uint8_t *rgb)
{
	const char *dot = strrchr(path, '.');

	if (dot && !strcasecmp(dot, ".png"))
		return png_write(path, w, h, rgb);
	return ppm_write(path, w, h, rgb);
}

static int read_num(FILE *f, uint32_t *out)
{
	int c;
	uint64_t v = 0;
	int digits = 0;

	for (;;) {
		c = fgetc(f);
		if (c == '#') {
			while (c != '\n' && c != EOF)
				c = fgetc(f);
			continue;
		}
		if (!isspace(c))
			break;
	}
	while (c != EOF && isdigit(c)) {
		v = v * 10 + (uint64_t)(c - '0');
		if (v > 1000000 || ++digits > 8)
			return -EINVAL;
		c = fgetc(f);
	}
	if (digits == 0 || (c != EOF && !isspace(c)))
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

int ppm_read(const char *path, uint32_t *w, uint32_t *h, uint8_t **rgb)
{
	FILE *f = fopen(path, "rb");
	uint32_t maxval;
	size_t n;
	int ret = -EINVAL;

	*rgb = NULL;
	if (!f)
		return -errno;
	if (fgetc(f) != 'P' || fgetc(f) != '6')
		goto out;
	if (read_num(f, w) < 0 || read_num(f, h) < 0 ||
	    read_num(f, &maxval) < 0 || maxval != 255 || *w == 0 ||
	    *h == 0 || *w > 65536 || *h > 65536)
		goto out;
	n = (size_t)*w * *h * 3;
	*rgb = malloc(n);
	if (!*rgb) {
		ret = -ENOMEM;
		goto out;
	}
	if (fread(*rgb, 1, n, f) != n) {
		free(*rgb);
		*rgb = NULL;
		goto out;
	}
	ret = 0;
out:
	fclose(f);
	return ret;
}
