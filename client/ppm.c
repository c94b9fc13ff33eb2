/* PPM writer and a strict reader (sizes capped, header checked). */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "ppm.h"

int ppm_write(const char *path, uint32_t w, uint32_t h, const uint8_t *rgb)
{
	char tmp[4096];
	FILE *f;
	size_t n = (size_t)w * h * 3;
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
	if (fprintf(f, "P6\n%u %u\n255\n", w, h) < 0 ||
	    fwrite(rgb, 1, n, f) != n) {
		err = errno ? errno : EIO;
		fclose(f);
		unlink(tmp);
		log_error("cannot write screenshot %s: %s", path,
			  strerror(err));
		return -err;
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
