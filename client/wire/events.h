/* What the reader of a connection reports to whoever shows it: the
 * events of a decoded stream, and why a connection ended. The reader
 * (reader/rfbread.h) raises them, the connection (net/vnc.h) passes them
 * on, the pipeline (app/) handles them.
 *
 * Threads: the callbacks run on the connection's thread (the main
 * thread), never on a decoding worker. */
#ifndef VNCFB_EVENTS_H
#define VNCFB_EVENTS_H

#include <stdint.h>

#include "util/rect.h"
#include "wire/rfb.h"

/* One screen of a desktop's layout (RFB's SCREEN), in desktop pixels. */
struct vnc_screen {
	uint32_t id;
	uint16_t x, y, w, h;
	uint32_t flags;
};

/* An ExtendedDesktopSize rectangle as the server sent it: reason and
 * status (RFB_EDS_*, any value), the desktop's size and its screens.
 * After a failed request (reason RFB_EDS_THIS_CLIENT, status not
 * RFB_EDS_OK) the rest is undefined, as RFB says. Nothing in it is
 * checked: screens may lie outside the desktop, overlap or be empty. */
struct vnc_layout {
	unsigned reason, status;
	uint32_t width, height;
	unsigned n;
	struct vnc_screen screens[RFB_MAX_SCREENS];
};

struct vnc_events {
	void *ctx;
	/* The remote desktop is (now) w x h: return a zeroed buffer of
	 * w*h*bpp/8 bytes in the shadow format (the old one is no longer
	 * used by libvncclient), or NULL to refuse (logged). */
	uint8_t *(*resize)(void *ctx, uint32_t w, uint32_t h);
	/* Pixels of r (clipped) are decoded into the buffer. */
	void (*damage)(void *ctx, const struct rect *r);
	/* A whole FramebufferUpdate has been decoded. */
	void (*update_done)(void *ctx);
	/* Optional: cursor shape in the shadow format (straight colour),
	 * mask 1 byte/pixel of alpha (0 transparent, 255 opaque, between:
	 * blended). Sizes already checked against the caps.
	 * The buffers are valid only during the call: copy them. */
	void (*cursor_shape)(void *ctx, int xhot, int yhot, int w, int h,
			     const uint8_t *pixels, const uint8_t *mask);
	/* Optional: the server moved the pointer. */
	void (*cursor_pos)(void *ctx, int x, int y);
	/* Optional. */
	void (*bell)(void *ctx);
	/* Optional: an ExtendedDesktopSize rectangle came (after the resize
	 * it brings, if any): the server takes SetDesktopSize. */
	void (*layout)(void *ctx, const struct vnc_layout *l);
	/* Optional: a line for the status line (auto-select changed the
	 * quality); valid during the call. */
	void (*note)(void *ctx, const char *text);
};

/* Why a session ended; sessions use it to decide about retrying. */
enum vnc_error {
	VNC_OK = 0,
	VNC_ERR_RESOLVE,	/* name did not resolve */
	VNC_ERR_CONNECT,	/* TCP connect failed / timed out */
	VNC_ERR_AUTH,		/* authentication refused */
	VNC_ERR_PROTOCOL,	/* version, security type, bad data */
	VNC_ERR_CLOSED,		/* the server closed the connection */
	VNC_ERR_RESOURCE,	/* out of memory, desktop too large */
	VNC_ERR_INTERRUPTED,	/* abort_fd or end_ns: not an error; not
				 * logged, never retried */
	VNC_ERR_TRUST,		/* the server's key or certificate is not
				 * the one trusted (trust.h): never
				 * retried */
};

#endif
