/* Stand-in for NetBSD's <dev/wscons/wsconsio.h> so netbsd/wsdisplay.c can
 * be built on Linux against a fake ioctl() (tests/netbsd/test_wsdisplay.c).
 * Only the names and fields wsdisplay.c uses; the request numbers are
 * arbitrary. The real header is checked by netbsd_check.sh instead. */
#ifndef FAKE_WSCONSIO_H
#define FAKE_WSCONSIO_H

#include <stdint.h>
#include <sys/sysmacros.h>
#include <sys/types.h>

#define WSDISPLAYIO_GINFO 0x7701UL
#define WSDISPLAYIO_GETCMAP 0x7702UL
#define WSDISPLAYIO_PUTCMAP 0x7703UL
#define WSDISPLAYIO_SMODE 0x7704UL
#define WSDISPLAYIO_GETACTIVESCREEN 0x7705UL
#define WSDISPLAYIO_LINEBYTES 0x7706UL
#define WSDISPLAYIO_GET_FBINFO 0x7707UL

#define WSDISPLAYIO_MODE_EMUL 0
#define WSDISPLAYIO_MODE_MAPPED 1
#define WSDISPLAYIO_MODE_DUMBFB 2

#define WSFB_RGB 0
#define WSFB_CI 1
#define WSFB_GREYSCALE 2
#define WSFB_YUV 3

struct wsdisplay_fbinfo {
	u_int height, width, depth, cmsize;
};

struct wsdisplay_cmap {
	u_int index, count;
	u_char *red, *green, *blue;
};

struct wsdisplayio_fbinfo {
	uint64_t fbi_fbsize;
	uint64_t fbi_fboffset;
	uint32_t fbi_width, fbi_height, fbi_stride, fbi_bitsperpixel;
	uint32_t fbi_pixeltype;
	union _fbi_subtype {
		struct _fbi_rgbmasks {
			uint32_t red_offset, red_size;
			uint32_t green_offset, green_size;
			uint32_t blue_offset, blue_size;
			uint32_t alpha_offset, alpha_size;
		} fbi_rgbmasks;
		struct _fbi_cmapinfo {
			uint32_t cmap_entries;
		} fbi_cmapinfo;
	} fbi_subtype;
	uint32_t fbi_flags;
};

#endif
