/* The framebuffer device output (/dev/fbN), and its reading of the
 * device's bitfields as a pixel format, pure so it is unit-tested.
 *
 * Threads: the output's hooks as output/output.h says; the format
 * function is pure, any thread. */
#ifndef VNCFB_FBDEV_FB_H
#define VNCFB_FBDEV_FB_H

#include "output/output.h"
#include "shadow/pixfmt.h"

extern const struct output_impl fbdev_output_impl;

/* A framebuffer's bitfields as a pixfmt (host byte order). 0 or
 * -ENOTSUP. */
int fbdev_format_from_bitfields(unsigned bpp, unsigned r_off, unsigned r_len,
				unsigned g_off, unsigned g_len, unsigned b_off,
				unsigned b_len, struct pixfmt *f);

#endif
