/* The Linux virtual terminal under the framebuffer: graphics mode, process
 * controlled switching, and the restore path.
 *
 * Threads: main thread only, except vt_emergency_restore (any thread, from
 * a fatal-signal handler: async-signal-safe calls only). */
#ifndef VNCFB_FBDEV_VT_H
#define VNCFB_FBDEV_VT_H

#include <stdbool.h>
#include <linux/vt.h>
#include <termios.h>

#include "output/output.h"

enum vt_request {
	VT_EV_NONE = 0,
	VT_EV_RELEASE, /* the user switches away: stop drawing, then ack */
	VT_EV_ACQUIRE, /* back on our VT: ack, then redraw everything */
};

struct vt {
	int fd;	       /* /dev/ttyN, -1 without a VT */
	int num;       /* N */
	int pipe[2];   /* switch signals -> main loop */
	bool graphics; /* we set KD_GRAPHICS */
	int old_kdmode;
	bool process; /* we set VT_PROCESS */
	struct vt_mode old_mode;
	bool termios_saved;
	struct termios old_tio;
	bool active; /* our VT is shown */
};

/* Take over the active VT (or the controlling tty when that is a VT).
 * Without any VT (no /dev/tty0) returns -ENODEV after one warning, and vt
 * stays inert (fd -1); the framebuffer still works. Other errors: -errno,
 * logged. */
int vt_open(struct vt *vt);
/* Give the VT back: text mode, automatic switching, terminal settings.
 * Idempotent. */
void vt_close(struct vt *vt);
/* vt_close with only async-signal-safe calls. */
void vt_emergency_restore(struct vt *vt);
/* The fd to poll for switch requests, -1 without a VT. */
int vt_event_fd(const struct vt *vt);

/* What an output does at a VT switch besides stopping and restarting the
 * blitter (both optional). */
struct vt_switch {
	void *ctx;
	/* Drawing has stopped; the screen goes to the other VT next. */
	void (*release)(void *ctx);
	/* Back on our VT; drawing (a full redraw) resumes next. */
	void (*acquire)(void *ctx);
};

/* Handle the pending switch requests, as an output's dispatch hook: on a
 * release stop the blitter (ev), let the input go, sw->release, then let
 * the kernel switch; on an acquire the reverse. 0 or -errno (logged). */
int vt_dispatch(struct vt *vt, const struct output_events *ev,
		const struct vt_switch *sw);

/* Switch to VT n (Ctrl+Alt+Fn). Uses the open VT's fd when there is one,
 * else /dev/tty0. 0 or -errno (logged once). */
int vt_activate(int n);

#endif
