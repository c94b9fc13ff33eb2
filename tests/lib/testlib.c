/* The C tests' shared helpers: see testlib.h. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "testlib.h"

int testlib_listen(bool v6, int *port)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int fd, one = 1, err;

	memset(&ss, 0, sizeof(ss));
	if (v6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_addr = in6addr_loopback;
		s6->sin6_port = htons((uint16_t)*port);
		len = sizeof(*s6);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

		s4->sin_family = AF_INET;
		s4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		s4->sin_port = htons((uint16_t)*port);
		len = sizeof(*s4);
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, len) < 0 || listen(fd, 16) < 0 ||
	    getsockname(fd, (struct sockaddr *)&ss, &len) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	*port = ntohs(v6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
			 : ((struct sockaddr_in *)&ss)->sin_port);
	return fd;
}

int testlib_ppm_write(const char *path, int w, int h, const uint8_t *rgb)
{
	FILE *f = fopen(path, "wb");
	size_t n = (size_t)w * (size_t)h * 3;
	int err = 0;

	if (!f)
		return -errno;
	if (fprintf(f, "P6\n%d %d\n255\n", w, h) < 0 ||
	    fwrite(rgb, 1, n, f) != n)
		err = -EIO;
	if (fclose(f) && !err)
		err = -errno;
	return err;
}

int testlib_ppm_read(const char *path, int *w, int *h, uint8_t **rgb)
{
	FILE *f = fopen(path, "rb");
	int max = 0, err = -EINVAL;
	size_t n;

	*rgb = NULL;
	if (!f)
		return -errno;
	if (fscanf(f, "P6 %d %d %d", w, h, &max) != 3 || max != 255 ||
	    *w <= 0 || *h <= 0 || *w > 8192 || *h > 8192 || fgetc(f) == EOF) {
		fprintf(stderr, "%s: not a binary PPM of maxval 255\n", path);
		goto out;
	}
	n = (size_t)*w * (size_t)*h * 3;
	*rgb = malloc(n);
	if (!*rgb) {
		err = -ENOMEM;
		goto out;
	}
	if (fread(*rgb, 1, n, f) != n) {
		fprintf(stderr, "%s: cut short\n", path);
		free(*rgb);
		*rgb = NULL;
		goto out;
	}
	err = 0;
out:
	fclose(f);
	return err;
}

void testlib_pixfmt32(uint8_t out[16])
{
	static const uint8_t pf[16] = {32, 24, 0, 1, 0, 255, 0, 255,
				       0, 255, 16, 8, 0, 0, 0, 0};

	memcpy(out, pf, sizeof(pf));
}

double testlib_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}
