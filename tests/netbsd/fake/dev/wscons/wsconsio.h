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

/* --- input (netbsd/wscons_input.c) --- */
#include <time.h>

struct wscons_event {
	u_int type;
	int value;
	struct timespec time;
};
#define WSEVENT_VERSION 1

#define WSCONS_EVENT_KEY_UP 1
#define WSCONS_EVENT_KEY_DOWN 2
#define WSCONS_EVENT_ALL_KEYS_UP 3
#define WSCONS_EVENT_MOUSE_UP 4
#define WSCONS_EVENT_MOUSE_DOWN 5
#define WSCONS_EVENT_MOUSE_DELTA_X 6
#define WSCONS_EVENT_MOUSE_DELTA_Y 7
#define WSCONS_EVENT_MOUSE_ABSOLUTE_X 8
#define WSCONS_EVENT_MOUSE_ABSOLUTE_Y 9
#define WSCONS_EVENT_MOUSE_DELTA_Z 10
#define WSCONS_EVENT_MOUSE_DELTA_W 14
#define WSCONS_EVENT_HSCROLL 16
#define WSCONS_EVENT_VSCROLL 17

#define WSKBD_TYPE_PC_XT 3
#define WSKBD_TYPE_PC_AT 4
#define WSKBD_TYPE_USB 5

typedef uint16_t keysym_t;
typedef uint32_t kbd_t;

struct wscons_keymap {
	keysym_t command;
	keysym_t group1[2];
	keysym_t group2[2];
};

struct wskbd_map_data {
	u_int maplen;
	struct wscons_keymap *map;
};
#define WSKBDIO_MAXMAPLEN 65536

#define WSKBD_LED_CAPS 0x01
#define WSKBD_LED_NUM 0x02
#define WSKBD_LED_SCROLL 0x04

#define WSKBDIO_GTYPE 0x7801UL
#define WSKBDIO_GETENCODING 0x7802UL
#define WSKBDIO_GETMAP 0x7803UL
#define WSKBDIO_GETLEDS 0x7804UL
#define WSKBDIO_SETLEDS 0x7805UL
#define WSKBDIO_SETVERSION 0x7806UL
#define WSMOUSEIO_GTYPE 0x7807UL
#define WSMOUSEIO_SETVERSION 0x7808UL
#define WSMOUSEIO_GCALIBCOORDS 0x7809UL
#define WSMOUSEIO_GETPARAMS 0x780aUL
#define WSMUXIO_LIST_DEVICES 0x780bUL

struct wsmouse_calibcoords {
	int minx, miny, maxx, maxy;
	int samplelen;
};

enum wsmousecfg {
	WSMOUSECFG_REVERSE_SCROLLING = 0,
	WSMOUSECFG_HORIZSCROLLDIST,
	WSMOUSECFG_VERTSCROLLDIST,
};

struct wsmouse_param {
	enum wsmousecfg key;
	int value;
};

struct wsmouse_parameters {
	struct wsmouse_param *params;
	unsigned int nparams;
};

#define WSMUX_MOUSE 1
#define WSMUX_KBD 2
#define WSMUX_MAXDEV 32
struct wsmux_device {
	int type;
	int idx;
};
struct wsmux_device_list {
	int ndevices;
	struct wsmux_device devices[WSMUX_MAXDEV];
};

#endif
