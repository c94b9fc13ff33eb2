/* Asking the server for the screen's size (remote_resize.h). */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "app/remote_resize.h"
#include "util/log.h"
#include "wire/rfb.h"

void remote_resize_init(struct remote_resize *rr,
			const struct remote_resize_config *cfg)
{
	memset(rr, 0, sizeof(*rr));
	rr->cfg = *cfg;
	rr->state = RR_OFF;
}

/* The desktop the heads span: from 0,0 to their far corner. */
static void want_size(const struct remote_resize *rr, uint32_t *w, uint32_t *h)
{
	*w = *h = 0;
	for (unsigned i = 0; i < rr->nheads; i++) {
		const struct rect *r = &rr->heads[i];

		if ((uint32_t)(r->x + r->w) > *w)
			*w = (uint32_t)(r->x + r->w);
		if ((uint32_t)(r->y + r->h) > *h)
			*h = (uint32_t)(r->y + r->h);
	}
}

static bool same_geometry(const struct vnc_screen *s, const struct rect *r)
{
	return s->x == r->x && s->y == r->y && s->w == r->w && s->h == r->h;
}

static bool id_taken(const struct vnc_screen *s, unsigned n, uint32_t id)
{
	for (unsigned i = 0; i < n; i++)
		if (s[i].id == id)
			return true;
	return false;
}

/* One screen per head. A head keeps the id and flags of a server screen
 * of its geometry (RFB: the id tells a moved screen from a new one), else
 * takes over one the layout no longer needs, in order, else gets an id
 * no screen has. */
static void build_layout(const struct remote_resize *rr, struct vnc_screen *out)
{
	const struct vnc_layout *sv = &rr->server;
	bool used[RFB_MAX_SCREENS] = {false}, done[REMOTE_RESIZE_MAX_HEADS];
	unsigned i, k, next = 0;

	for (i = 0; i < rr->nheads; i++) {
		const struct rect *r = &rr->heads[i];

		done[i] = false;
		out[i] = (struct vnc_screen){.x = (uint16_t)r->x,
					     .y = (uint16_t)r->y,
					     .w = (uint16_t)r->w,
					     .h = (uint16_t)r->h};
		for (k = 0; k < sv->n && !done[i]; k++) {
			if (used[k] || !same_geometry(&sv->screens[k], r))
				continue;
			used[k] = done[i] = true;
			out[i].id = sv->screens[k].id;
			out[i].flags = sv->screens[k].flags;
		}
	}
	for (i = 0; i < rr->nheads; i++) {
		if (done[i])
			continue;
		while (next < sv->n && used[next])
			next++;
		if (next < sv->n) {
			used[next] = done[i] = true;
			out[i].id = sv->screens[next].id;
			out[i].flags = sv->screens[next].flags;
			continue;
		}
		/* A fresh id: not the server's nor another head's. */
		for (uint32_t id = 1;; id++) {
			if (!id_taken(sv->screens, sv->n, id) &&
			    !id_taken(out, i, id)) {
				out[i].id = id;
				break;
			}
		}
		done[i] = true;
	}
}

/* Whether the server's layout already is what the heads want. */
static bool in_place(const struct remote_resize *rr, uint32_t w, uint32_t h)
{
	const struct vnc_layout *sv = &rr->server;

	if (rr->cur_w != w || rr->cur_h != h)
		return false;
	/* With one head, any layout of the right size will do: the screens
	 * of a single panel's desktop are the server's business. */
	if (rr->nheads == 1)
		return true;
	if (sv->n != rr->nheads)
		return false;
	for (unsigned i = 0; i < rr->nheads; i++) {
		bool found = false;

		for (unsigned k = 0; k < sv->n && !found; k++)
			found = same_geometry(&sv->screens[k], &rr->heads[i]);
		if (!found)
			return false;
	}
	return true;
}

/* The server is known to take SetDesktopSize: ask, unless it is in
 * place already. */
static void ask(struct remote_resize *rr, uint64_t now)
{
	struct vnc_screen s[REMOTE_RESIZE_MAX_HEADS];
	uint32_t w, h;

	want_size(rr, &w, &h);
	if (in_place(rr, w, h)) {
		log_debug("remote desktop already %ux%u: nothing to ask", w, h);
		rr->state = RR_DONE;
		return;
	}
	build_layout(rr, s);
	rr->ask_w = w;
	rr->ask_h = h;
	rr->asked = true;
	if (rr->cfg.send(rr->cfg.ctx, w, h, s, rr->nheads) < 0) {
		/* The connection is going: the next one asks again. */
		rr->state = RR_FAILED;
		return;
	}
	log_debug("asked %s for a %ux%u desktop (%u screen%s)", rr->cfg.server,
		  w, h, rr->nheads, rr->nheads == 1 ? "" : "s");
	rr->state = RR_PENDING;
	rr->deadline_ns = now + REMOTE_RESIZE_ANSWER_NS;
}

static void give_up(struct remote_resize *rr, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* One line: what went wrong (fmt), what is shown instead. */
static void give_up(struct remote_resize *rr, const char *fmt, ...)
{
	char why[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	/* One line a connection and target: what follows (QEMU's refusal
	 * after it showed the extension late) is detail. */
	if (rr->said)
		log_debug("%s %s", rr->cfg.server, why);
	else
		log_info("%s %s: showing %ux%u with --scale %s", rr->cfg.server,
			 why, rr->cur_w, rr->cur_h, rr->cfg.fallback);
	rr->said = true;
	rr->state = RR_FAILED;
}

/* The server sent no ExtendedDesktopSize: it cannot be asked. */
static void no_extension(struct remote_resize *rr)
{
	uint32_t w, h;

	want_size(rr, &w, &h);
	if (rr->cur_w == w && rr->cur_h == h) {
		rr->state = RR_DONE;
		return;
	}
	give_up(rr,
		"cannot resize its desktop to %ux%u (no "
		"ExtendedDesktopSize in its first update)",
		w, h);
}

int remote_resize_set_heads(struct remote_resize *rr, const struct rect *heads,
			    unsigned n, uint64_t now)
{
	uint32_t w = 0, h = 0;
	bool same;

	if (!rr->cfg.enabled)
		return 0;
	if (n == 0 || n > REMOTE_RESIZE_MAX_HEADS) {
		log_error("remote resize: %u outputs (1 to %d)", n,
			  REMOTE_RESIZE_MAX_HEADS);
		return -EINVAL;
	}
	for (unsigned i = 0; i < n; i++) {
		const struct rect *r = &heads[i];

		if (r->x < 0 || r->y < 0 || r->w <= 0 || r->h <= 0 ||
		    r->x + r->w > RFB_MAX_DIM || r->y + r->h > RFB_MAX_DIM) {
			log_error("remote resize: output %u at %d,%d %dx%d is "
				  "outside a %dx%d desktop",
				  i, r->x, r->y, r->w, r->h, RFB_MAX_DIM,
				  RFB_MAX_DIM);
			return -EINVAL;
		}
		if ((uint32_t)(r->x + r->w) > w)
			w = (uint32_t)(r->x + r->w);
		if ((uint32_t)(r->y + r->h) > h)
			h = (uint32_t)(r->y + r->h);
	}
	same =
	    n == rr->nheads && !memcmp(heads, rr->heads, n * sizeof(heads[0]));
	memcpy(rr->heads, heads, n * sizeof(heads[0]));
	rr->nheads = n;
	if (same && rr->state != RR_OFF)
		return 0;
	/* A new target: asked for once more on this connection, and said
	 * again if it fails. */
	rr->said = false;
	if (rr->connected && rr->supported)
		ask(rr, now);
	else
		rr->state = RR_WAITING; /* the first layout, or its deadline */
	return 0;
}

void remote_resize_clear_heads(struct remote_resize *rr)
{
	rr->nheads = 0;
	rr->state = RR_OFF;
}

void remote_resize_connected(struct remote_resize *rr, uint32_t w, uint32_t h)
{
	rr->connected = true;
	rr->supported = false;
	rr->first_update = false;
	rr->asked = false;
	rr->said = false;
	rr->cur_w = w;
	rr->cur_h = h;
	rr->server.n = 0;
	if (rr->cfg.enabled && rr->nheads)
		rr->state = RR_WAITING;
}

void remote_resize_disconnected(struct remote_resize *rr)
{
	rr->connected = false;
	if (rr->state != RR_OFF)
		rr->state = RR_WAITING;
}

void remote_resize_desktop(struct remote_resize *rr, uint32_t w, uint32_t h)
{
	rr->cur_w = w;
	rr->cur_h = h;
}

static const char *status_name(unsigned status, char *buf, size_t len)
{
	switch (status) {
	case RFB_EDS_PROHIBITED:
		return "resizing is administratively prohibited";
	case RFB_EDS_NO_RESOURCES:
		return "out of resources";
	case RFB_EDS_INVALID:
		return "invalid screen layout";
	default:
		snprintf(buf, len, "unknown status %u", status);
		return buf;
	}
}

/* This client's answer, or a change the server made after forwarding. */
static void answered(struct remote_resize *rr, const struct vnc_layout *l,
		     uint64_t now)
{
	char buf[32];

	if (l->reason != RFB_EDS_THIS_CLIENT) {
		/* Another change came between; after a forwarded request,
		 * the size asked for is the answer. */
		if (rr->state == RR_FORWARDED && l->width == rr->ask_w &&
		    l->height == rr->ask_h)
			rr->state = RR_DONE;
		return;
	}
	switch (l->status) {
	case RFB_EDS_OK:
		if (l->width == rr->ask_w && l->height == rr->ask_h) {
			log_debug("%s resized its desktop to %ux%u",
				  rr->cfg.server, l->width, l->height);
			rr->state = RR_DONE;
		} else {
			give_up(rr,
				"resized its desktop to %ux%u instead of "
				"%ux%u",
				l->width, l->height, rr->ask_w, rr->ask_h);
		}
		return;
	case RFB_EDS_FORWARDED:
		if (rr->state == RR_PENDING) {
			log_debug("%s forwarded the request for %ux%u",
				  rr->cfg.server, rr->ask_w, rr->ask_h);
			rr->state = RR_FORWARDED;
			rr->deadline_ns = now + REMOTE_RESIZE_FORWARDED_NS;
		}
		return;
	default:
		give_up(rr, "refused to resize its desktop to %ux%u (%s)",
			rr->ask_w, rr->ask_h,
			status_name(l->status, buf, sizeof(buf)));
	}
}

void remote_resize_layout(struct remote_resize *rr, const struct vnc_layout *l,
			  uint64_t now)
{
	if (!rr->connected)
		return;
	rr->supported = true;
	/* A failed request's layout is undefined: the last one stands. */
	if (l->reason != RFB_EDS_THIS_CLIENT || l->status == RFB_EDS_OK) {
		rr->server = *l;
		rr->cur_w = l->width;
		rr->cur_h = l->height;
	}
	switch (rr->state) {
	case RR_WAITING:
		/* The first layout says the server can be asked. */
		ask(rr, now);
		break;
	case RR_PENDING:
	case RR_FORWARDED:
		answered(rr, l, now);
		break;
	case RR_FAILED:
		/* A server that said nothing of the extension at first and
		 * shows it later (QEMU sends a layout only when its size
		 * changes) is asked then, once. */
		if (!rr->asked)
			ask(rr, now);
		break;
	case RR_OFF:
	case RR_DONE:
		/* Shown as it comes: another client's size, the server's
		 * own, a late answer. */
		break;
	}
}

/* Waiting for a layout past the first update: until the deadline. */
static bool grace(const struct remote_resize *rr)
{
	return rr->state == RR_WAITING && rr->connected && rr->first_update &&
	       !rr->supported;
}

void remote_resize_update(struct remote_resize *rr, uint64_t now)
{
	if (!rr->connected || rr->first_update)
		return;
	rr->first_update = true;
	/* RFB: a server that takes SetDesktopSize answers the first full
	 * request with an ExtendedDesktopSize rectangle. QEMU sends it in
	 * an update of its own just after, other servers may be later
	 * still: without one by the deadline, the server cannot be asked
	 * (and one that comes even later is asked then). */
	if (grace(rr))
		rr->deadline_ns = now + REMOTE_RESIZE_ANSWER_NS;
}

void remote_resize_tick(struct remote_resize *rr, uint64_t now)
{
	if (grace(rr) && now >= rr->deadline_ns)
		no_extension(rr);
	else if (rr->state == RR_PENDING && now >= rr->deadline_ns)
		give_up(rr,
			"did not answer the request to resize its desktop "
			"to %ux%u within %llu s",
			rr->ask_w, rr->ask_h,
			REMOTE_RESIZE_ANSWER_NS / 1000000000ull);
	else if (rr->state == RR_FORWARDED && now >= rr->deadline_ns)
		give_up(rr,
			"forwarded the request to resize its desktop to "
			"%ux%u, and the desktop stayed as it was for %llu s",
			rr->ask_w, rr->ask_h,
			REMOTE_RESIZE_FORWARDED_NS / 1000000000ull);
}

uint64_t remote_resize_due(const struct remote_resize *rr)
{
	return rr->state == RR_PENDING || rr->state == RR_FORWARDED || grace(rr)
		   ? rr->deadline_ns
		   : 0;
}
