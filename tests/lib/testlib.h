/* The C tests' shared helpers (the Python tests' are testlib.py beside
 * this): a loopback listener on a free or given port, binary PPM files,
 * RFB's 32-bit pixel format, the monotonic clock. Not part of vncfb: the test servers and
 * tools use it, which do not link the client (tests/lib/meson.build).
 *
 * Threads: any thread; nothing here keeps state. */
#ifndef VNCFB_TESTS_TESTLIB_H
#define VNCFB_TESTS_TESTLIB_H

#include <stdbool.h>
#include <stdint.h>

/* A listening TCP socket (close-on-exec, SO_REUSEADDR, backlog 16) on
 * 127.0.0.1, or ::1 if v6, at *port (0: any free one; *port then says
 * which). The socket, or -errno. */
int testlib_listen(bool v6, int *port);

/* w x h RGB (3 bytes a pixel) as a binary PPM. 0 or -errno. */
int testlib_ppm_write(const char *path, int w, int h, const uint8_t *rgb);
/* A binary PPM of maxval 255 (up to 8192x8192) into *rgb (malloc'd).
 * 0, -errno, or -EINVAL for anything else (said on stderr). */
int testlib_ppm_read(const char *path, int *w, int *h, uint8_t **rgb);

/* RFB's PIXEL_FORMAT (16 bytes) for 32 bits a pixel, depth 24,
 * little-endian, true colour, red at bit 16, green 8, blue 0. */
void testlib_pixfmt32(uint8_t out[16]);

/* CLOCK_MONOTONIC in seconds. */
double testlib_now(void);

#endif
