/* wsdisplay framebuffer description to pixel format, mapping size and the
 * 3-3-2 colour map: plain integers, no NetBSD headers, so it is tested on
 * every platform. Pure, any thread. */
#ifndef VNCFB_NETBSD_WSFB_FORMAT_H
#define VNCFB_NETBSD_WSFB_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "shadow/pixfmt.h"

/* fbi_pixeltype values of <dev/wscons/wsconsio.h>. */
enum {
	WSFB_FMT_RGB = 0,
	WSFB_FMT_CI = 1,
	WSFB_FMT_GREYSCALE = 2,
	WSFB_FMT_YUV = 3,
	WSFB_FMT_YUY2 = 4,
};

/* The fields of struct wsdisplayio_fbinfo that vncfb uses. */
struct wsfb_info {
	uint64_t fbsize;   /* bytes, 0 when the driver does not say */
	uint64_t fboffset; /* first visible byte within the mapping */
	uint32_t width, height, stride, bpp;
	uint32_t pixeltype;
	/* WSFB_FMT_RGB: bit offsets from the least significant bit, sizes */
	uint32_t r_off, r_size, g_off, g_size, b_off, b_size;
	/* WSFB_FMT_CI: colour map entries */
	uint32_t cmap_entries;
	uint32_t flags;
};

/* Largest framebuffer side accepted from a driver. */
#define WSFB_MAX_DIM 16384

/* The old interface: WSDISPLAYIO_GINFO (width, height, depth, cmsize) plus
 * WSDISPLAYIO_LINEBYTES. Fills fi with the layout such drivers use (what
 * xf86-video-wsfb assumes): 8 bpp colour-indexed, 15/16 bpp 5-5-5/5-6-5,
 * 24/32 bpp 8-8-8 with red at bit 16. linebytes 0: width * bytes. */
void wsfb_from_ginfo(uint32_t width, uint32_t height, uint32_t depth,
		     uint32_t cmsize, uint32_t linebytes, struct wsfb_info *fi);

/* The pixel format vncfb draws in for fi. *cmap is set when the colour map
 * must be programmed with wsfb_cmap_332() (8 bpp colour-indexed). Returns 0,
 * -ENOTSUP for a layout vncfb cannot draw (greyscale, YUV, 1/2/4 bpp,
 * channels over 8 bits) or -EINVAL for inconsistent values; why goes into
 * why (may be NULL). */
int wsfb_pixfmt(const struct wsfb_info *fi, struct pixfmt *fmt, bool *cmap,
		char *why, size_t whylen);

/* Bytes to mmap: fboffset + stride * height, rounded up to pagesize,
 * checked against fbsize when known. 0 or -EINVAL (overflow, larger than
 * the framebuffer, stride below a row). */
int wsfb_map_len(const struct wsfb_info *fi, size_t pagesize, size_t *len);

/* The 256-entry 3-3-2 colour map matching pixfmt "rgb332": index bits
 * RRRGGGBB, each channel widened by bit replication as pixfmt_unpack does. */
void wsfb_cmap_332(uint8_t red[256], uint8_t green[256], uint8_t blue[256]);

#endif
