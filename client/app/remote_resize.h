/* Remote resize (--remote-resize): a server that takes SetDesktopSize
 * (it sent an ExtendedDesktopSize rectangle) is asked for a desktop of
 * the screen's size, one screen per output, once per connection and
 * target; a refusal of any kind, or no answer, is said in one line and
 * the desktop is shown as it is, through the --scale mode. A size the
 * server chooses later (another client, its own) is shown, never fought.
 *
 * Threads: main thread only (the session's, which owns the connection);
 * the layout and update events come from inside vnc_dispatch, the ticks
 * from the session's poll loop. Pure logic over an ops table and the
 * caller's clock, so that tests drive it with hand-built streams. */
#ifndef VNCFB_REMOTE_RESIZE_H
#define VNCFB_REMOTE_RESIZE_H

#include <stdbool.h>
#include <stdint.h>

#include "net/vnc.h"
#include "util/rect.h"

/* Outputs one desktop may span. */
#define REMOTE_RESIZE_MAX_HEADS 16
/* How long a server may take to answer SetDesktopSize (RFB: "as soon as
 * possible"), and how long a request it forwarded (QEMU, to its guest)
 * may take to become a new size. */
#define REMOTE_RESIZE_ANSWER_NS 5000000000ull
#define REMOTE_RESIZE_FORWARDED_NS 10000000000ull

enum remote_resize_state {
	RR_OFF,	      /* disabled, or nothing to ask for */
	RR_WAITING,   /* for the server's first layout (or its absence) */
	RR_PENDING,   /* asked, no answer yet */
	RR_FORWARDED, /* the server passed the request on */
	RR_DONE,      /* the desktop has the size asked for */
	RR_FAILED,    /* refused, unanswered, or not possible: shown as it
		       * is until the target or the connection changes */
};

struct remote_resize_config {
	bool enabled;
	/* For the messages: the server as the user named it, and how the
	 * desktop is shown when it keeps another size ("--scale fit"). */
	const char *server;
	const char *fallback;
	/* Write SetDesktopSize; 0, or -1 when the connection failed (its
	 * owner hears of that from the connection itself). */
	int (*send)(void *ctx, uint32_t w, uint32_t h,
		    const struct vnc_screen *s, unsigned n);
	void *ctx;
};

struct remote_resize {
	struct remote_resize_config cfg;
	enum remote_resize_state state;
	/* What the outputs want: their rectangles in desktop pixels. */
	struct rect heads[REMOTE_RESIZE_MAX_HEADS];
	unsigned nheads;
	/* The connection: the desktop's size, whether the server takes
	 * SetDesktopSize and its last layout. */
	bool connected, supported, first_update;
	bool asked; /* SetDesktopSize written on this connection */
	bool said;  /* its line logged, for this connection and target */
	uint32_t cur_w, cur_h;
	struct vnc_layout server;
	/* The request in flight: its size, and when to stop waiting. */
	uint32_t ask_w, ask_h;
	uint64_t deadline_ns;
};

void remote_resize_init(struct remote_resize *rr,
			const struct remote_resize_config *cfg);
/* The outputs' rectangles in the desktop (at start, after a mode change
 * or a hot-plug). A target that differs from the last may be asked for
 * again, at once when the server is known to take it. 0, or -EINVAL for
 * no heads, too many, or a desktop RFB cannot describe (logged). */
int remote_resize_set_heads(struct remote_resize *rr, const struct rect *heads,
			    unsigned n, uint64_t now_ns);
/* The outputs are gone (no display left): nothing is asked for until
 * set_heads gives a target again, which then counts as a new one. */
void remote_resize_clear_heads(struct remote_resize *rr);
/* A connection begins with a w x h desktop (before its first message):
 * what the last one knew is forgotten, and the new one is asked again. */
void remote_resize_connected(struct remote_resize *rr, uint32_t w, uint32_t h);
void remote_resize_disconnected(struct remote_resize *rr);
/* The desktop's size changed (any reason). */
void remote_resize_desktop(struct remote_resize *rr, uint32_t w, uint32_t h);
/* The layout event of the connection. */
void remote_resize_layout(struct remote_resize *rr, const struct vnc_layout *l,
			  uint64_t now_ns);
/* A whole FramebufferUpdate: no ExtendedDesktopSize rectangle within
 * REMOTE_RESIZE_ANSWER_NS of the first one says the server cannot be
 * asked (remote_resize_tick). */
void remote_resize_update(struct remote_resize *rr, uint64_t now_ns);
/* The answer's (or the first layout's) deadline: when it passes, one
 * line and the fallback. */
void remote_resize_tick(struct remote_resize *rr, uint64_t now_ns);
/* When remote_resize_tick has work, or 0. */
uint64_t remote_resize_due(const struct remote_resize *rr);

#endif
