/* Remote resize (client/app/remote_resize.h) over hand-built server
 * streams read by vncfb's reader: the ask once the server shows it takes
 * SetDesktopSize, each answer RFB defines (success, prohibited, out of
 * resources, invalid layout, forwarded, an unknown status), no answer,
 * no ExtendedDesktopSize at all, another client's size, reconnects and
 * new targets, no display (none yet, unplugged) and one plugged back,
 * hostile layouts; the one line each failure logs, and that
 * nothing is ever asked twice for one target on one connection. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "../check.h"
#include "app/remote_resize.h"
#include "util/log.h"
#include "rfbgen.h"

#define SEC 1000000000ull

/* What the policy sent, and the clock it runs on. */
struct rig {
	struct fix f;
	struct remote_resize rr;
	uint64_t now;
	int sends;
	uint32_t sw, sh;
	unsigned sn;
	struct vnc_screen ss[REMOTE_RESIZE_MAX_HEADS];
	int fail_send;
	char err[2048]; /* stderr while the rig ran */
	int saved_fd;
	FILE *cap;
};

static int rig_send(void *ctx, uint32_t w, uint32_t h,
		    const struct vnc_screen *s, unsigned n)
{
	struct rig *g = ctx;

	g->sends++;
	g->sw = w;
	g->sh = h;
	g->sn = n;
	memcpy(g->ss, s, n * sizeof(*s));
	return g->fail_send ? -1 : 0;
}

static void rig_layout(void *ctx, const struct vnc_layout *l)
{
	struct rig *g = ctx;

	remote_resize_layout(&g->rr, l, g->now);
}

/* stderr into a file, so that the lines logged can be checked. */
static void capture(struct rig *g)
{
	fflush(stderr);
	g->cap = tmpfile();
	if (!g->cap)
		abort();
	g->saved_fd = dup(2);
	dup2(fileno(g->cap), 2);
}

static const char *captured(struct rig *g)
{
	size_t n;

	fflush(stderr);
	rewind(g->cap);
	n = fread(g->err, 1, sizeof(g->err) - 1, g->cap);
	g->err[n] = '\0';
	return g->err;
}

static int lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* A session on a server of sw x sh, for one head of hw x hh. */
static void rig_open(struct rig *g, uint32_t sw, uint32_t sh, uint32_t hw,
		     uint32_t hh)
{
	struct remote_resize_config cfg = {.enabled = true,
					   .server = "srv:1",
					   .fallback = "fit",
					   .send = rig_send,
					   .ctx = g};
	struct rect head = {0, 0, (int32_t)hw, (int32_t)hh};

	memset(g, 0, sizeof(*g));
	g->now = 100 * SEC;
	fix_open(&g->f, "xrgb8888", sw, sh);
	g->f.on_layout = rig_layout;
	g->f.layout_ctx = g;
	remote_resize_init(&g->rr, &cfg);
	CHECK(remote_resize_set_heads(&g->rr, &head, 1, g->now) == 0);
	remote_resize_connected(&g->rr, sw, sh);
	capture(g);
}

static void rig_close(struct rig *g)
{
	char line[512];

	fflush(stderr);
	dup2(g->saved_fd, 2);
	close(g->saved_fd);
	/* A CHECK that failed while stderr was captured said so there. */
	rewind(g->cap);
	while (fgets(line, sizeof(line), g->cap))
		if (!strncmp(line, "FAIL ", 5))
			fputs(line, stderr);
	fclose(g->cap);
	fix_free(&g->f);
}

/* An update of one ExtendedDesktopSize rectangle with n screens (from
 * scr, or one covering the desktop with id 7 and flags 3). */
static void eds(struct buf *s, unsigned reason, unsigned status, unsigned w,
		unsigned h, const struct vnc_screen *scr, unsigned n)
{
	fbu(s, 1);
	rhdr(s, reason, status, w, h, RFB_ENC_EXTDESKTOPSIZE);
	u8(s, scr ? n : 1);
	put(s, "\0\0\0", 3);
	if (!scr) {
		u32(s, 7);
		u16(s, 0), u16(s, 0), u16(s, w), u16(s, h);
		u32(s, 3);
		return;
	}
	for (unsigned i = 0; i < n; i++) {
		u32(s, scr[i].id);
		u16(s, scr[i].x), u16(s, scr[i].y);
		u16(s, scr[i].w), u16(s, scr[i].h);
		u32(s, scr[i].flags);
	}
}

/* Feed one built stream, then empty it. */
static int feed(struct rig *g, struct buf *s)
{
	int n = fix_feed(&g->f, s);

	s->n = 0;
	if (n >= 0)
		remote_resize_update(&g->rr, g->now);
	return n;
}

/* The server takes the request: the desktop becomes the screen's size, a
 * full update of it is asked for, and nothing is asked again, whatever
 * the server (or another client) does later. */
static void test_success(void)
{
	struct buf s = {0};
	struct rig g;

	rig_open(&g, 1280, 1024, 1920, 1080);
	CHECK(g.rr.state == RR_WAITING);
	eds(&s, RFB_EDS_SERVER, 0, 1280, 1024, NULL, 0);
	CHECK(feed(&g, &s) == 1, "first layout: %s", g.f.why);
	CHECK(g.sends == 1 && g.sw == 1920 && g.sh == 1080 && g.sn == 1,
	      "asked %d times for %ux%u, %u screens", g.sends, g.sw, g.sh,
	      g.sn);
	CHECK(g.ss[0].id == 7 && g.ss[0].flags == 3 && g.ss[0].x == 0 &&
		  g.ss[0].y == 0 && g.ss[0].w == 1920 && g.ss[0].h == 1080,
	      "the server's one screen keeps its id and flags: id %u flags "
	      "%u at %u,%u %ux%u",
	      g.ss[0].id, g.ss[0].flags, g.ss[0].x, g.ss[0].y, g.ss[0].w,
	      g.ss[0].h);
	CHECK(g.rr.state == RR_PENDING);
	CHECK(remote_resize_due(&g.rr) == g.now + REMOTE_RESIZE_ANSWER_NS);
	/* Interleaved: a change that is not the answer is shown, and the
	 * answer still awaited. */
	eds(&s, RFB_EDS_SERVER, 0, 1280, 1024, NULL, 0);
	CHECK(feed(&g, &s) == 1 && g.rr.state == RR_PENDING);
	g.f.log[0] = '\0';
	g.now += SEC;
	eds(&s, RFB_EDS_THIS_CLIENT, RFB_EDS_OK, 1920, 1080, NULL, 0);
	CHECK(feed(&g, &s) == 1, "answer: %s", g.f.why);
	CHECK(!strcmp(g.f.log, "request 1280x1024 resize 1920x1080 "
			       "request-full 1920x1080 layout 1/0 1920x1080 1 "
			       "done"),
	      "events: %s", g.f.log);
	CHECK(g.rr.state == RR_DONE && remote_resize_due(&g.rr) == 0);
	CHECK(g.f.fb.w == 1920 && g.f.fb.h == 1080);
	/* The full update's answer (reason 0), a ping's, another client's
	 * size: shown, never fought. */
	eds(&s, RFB_EDS_SERVER, 0, 1920, 1080, NULL, 0);
	eds(&s, RFB_EDS_OTHER_CLIENT, 0, 800, 600, NULL, 0);
	CHECK(feed(&g, &s) == 2 && g.f.fb.w == 800 && g.f.fb.h == 600,
	      "another client's size shown: %ux%u", g.f.fb.w, g.f.fb.h);
	remote_resize_tick(&g.rr, g.now + 60 * SEC);
	CHECK(g.sends == 1, "asked %d times", g.sends);
	CHECK(!strcmp(captured(&g), ""), "success is quiet: %s", g.err);
	rig_close(&g);

	/* Already the screen's size: nothing to ask. */
	rig_open(&g, 1920, 1080, 1920, 1080);
	eds(&s, RFB_EDS_SERVER, 0, 1920, 1080, NULL, 0);
	CHECK(feed(&g, &s) == 1 && g.sends == 0 && g.rr.state == RR_DONE);
	rig_close(&g);
	free(s.p);
}

/* Each refusal: one line naming the server, what was asked, why, and
 * what is shown instead; the desktop keeps its size; no second ask. */
static void test_refused(void)
{
	static const struct {
		unsigned status;
		const char *why;
	} cases[] = {
	    {RFB_EDS_PROHIBITED, "resizing is administratively prohibited"},
	    {RFB_EDS_NO_RESOURCES, "out of resources"},
	    {RFB_EDS_INVALID, "invalid screen layout"},
	    {99, "unknown status 99"},
	};
	struct buf s = {0};
	struct rig g;
	char want[300];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		rig_open(&g, 1280, 1024, 1920, 1080);
		eds(&s, RFB_EDS_SERVER, 0, 1280, 1024, NULL, 0);
		CHECK(feed(&g, &s) == 1 && g.sends == 1);
		/* A failure's size and screens are undefined: garbage. */
		eds(&s, RFB_EDS_THIS_CLIENT, cases[i].status, 0, 65535, NULL,
		    0);
		CHECK(feed(&g, &s) == 1, "status %u: %s", cases[i].status,
		      g.f.why);
		CHECK(g.rr.state == RR_FAILED && g.f.fb.w == 1280 &&
			  g.f.fb.h == 1024,
		      "status %u: state %d, desktop %ux%u", cases[i].status,
		      g.rr.state, g.f.fb.w, g.f.fb.h);
		snprintf(want, sizeof(want),
			 "vncfb: srv:1 refused to resize its desktop to "
			 "1920x1080 (%s): showing 1280x1024 with --scale fit\n",
			 cases[i].why);
		CHECK(!strcmp(captured(&g), want), "status %u: logged \"%s\"",
		      cases[i].status, g.err);
		/* Later layouts (pings, the server's own) ask nothing. */
		eds(&s, RFB_EDS_SERVER, 0, 1280, 1024, NULL, 0);
		eds(&s, RFB_EDS_SERVER, 0, 1024, 768, NULL, 0);
		CHECK(feed(&g, &s) == 2 && g.sends == 1 && g.f.fb.w == 1024,
		      "status %u: asked %d times", cases[i].status, g.sends);
		CHECK(lines(captured(&g)) == 1, "one line: %s", g.err);
		rig_close(&g);
	}
	free(s.p);
}

/* No answer: pending until the deadline, then one line; a late answer is
 * shown as any change is. */
static void test_no_answer(void)
{
	struct buf s = {0};
	struct rig g;

	rig_open(&g, 1280, 1024, 1920, 1080);
	eds(&s, RFB_EDS_SERVER, 0, 1280, 1024, NULL, 0);
	CHECK(feed(&g, &s) == 1 && g.sends == 1);
	/* Updates keep coming, none with the answer. */
	fbu(&s, 1);
	rhdr(&s, 0, 0, 1, 1, RFB_ENC_RAW);
	put(&s, "abcd", 4);
	CHECK(feed(&g, &s) == 1);
	remote_resize_tick(&g.rr, g.now + REMOTE_RESIZE_ANSWER_NS - 1);
	CHECK(g.rr.state == RR_PENDING && !strcmp(captured(&g), ""));
	remote_resize_tick(&g.rr, g.now + REMOTE_RESIZE_ANSWER_NS);
	CHECK(g.rr.state == RR_FAILED);
	CHECK(!strcmp(captured(&g),
		      "vncfb: srv:1 did not answer the request to resize its "
		      "desktop to 1920x1080 within 5 s: showing 1280x1024 "
		      "with --scale fit\n"),
	      "logged \"%s\"", g.err);
	eds(&s, RFB_EDS_THIS_CLIENT, RFB_EDS_OK, 1920, 1080, NULL, 0);
	CHECK(feed(&g, &s) == 1 && g.f.fb.w == 1920 && g.sends == 1,
	      "late answer: %ux%u, %d asks", g.f.fb.w, g.f.fb.h, g.sends);
	remote_resize_tick(&g.rr, g.now + 100 * SEC);
	CHECK(lines(captured(&g)) == 1, "one line: %s", g.err);
	rig_close(&g);
	free(s.p);
}

/* Forwarded (QEMU passes the request to its guest): the size asked for,
 * when it comes as the server's own change, is the answer; else one line
 * after the longer deadline. */
static void test_forwarded(void)
{
	struct buf s = {0};
	struct rig g;

	rig_open(&g, 1280, 1024, 1920, 1080);
	eds(&s, RFB_EDS_SERVER, 0, 1280, 1024, NULL, 0);
	eds(&s, RFB_EDS_THIS_CLIENT, RFB_EDS_FORWARDED, 1280, 1024, NULL, 0);
	CHECK(feed(&g, &s) == 2 && g.rr.state == RR_FORWARDED &&
		  g.f.fb.w == 1280,
	      "forwarded: state %d", g.rr.state);
	CHECK(remote_resize_due(&g.rr) == g.now + REMOTE_RESIZE_FORWARDED_NS);
	remote_resize_tick(&g.rr, g.now + REMOTE_RESIZE_ANSWER_NS);
	CHECK(g.rr.state == RR_FORWARDED, "the short deadline does not apply");
	eds(&s, RFB_EDS_SERVER, 0, 1920, 1080, NULL, 0);
	CHECK(feed(&g, &s) == 1 && g.rr.state == RR_DONE && g.f.fb.w == 1920);
	CHECK(!strcmp(captured(&g), ""), "quiet: %s", g.err);
	rig_close(&g);

	rig_open(&g, 1280, 1024, 1920, 1080);
	eds(&s, RFB_EDS_SERVER, 0, 1280, 1024, NULL, 0);
	eds(&s, RFB_EDS_THIS_CLIENT, RFB_EDS_FORWARDED, 0, 0, NULL, 0);
	CHECK(feed(&g, &s) == 2 && g.rr.state == RR_FORWARDED,
	      "forwarded with an undefined size: %s", g.f.why);
	remote_resize_tick(&g.rr, g.now + REMOTE_RESIZE_FORWARDED_NS);
	CHECK(g.rr.state == RR_FAILED &&
		  !strcmp(captured(&g),
			  "vncfb: srv:1 forwarded the request to resize its "
			  "desktop to 1920x1080, and the desktop stayed as it "
			  "was for 10 s: showing 1280x1024 with --scale "
			  "fit\n"),
	      "logged \"%s\"", g.err);
	rig_close(&g);
	free(s.p);
}

/* A server without ExtendedDesktopSize: one line after its first update
 * when the sizes differ, none when they agree. A status-0 answer of
 * another size than asked is a failure too. */
static void test_cannot(void)
{
	struct buf s = {0};
	struct rig g;

	rig_open(&g, 1280, 1024, 1920, 1080);
	fbu(&s, 0);
	CHECK(feed(&g, &s) == 1 && g.rr.state == RR_WAITING && g.sends == 0);
	CHECK(remote_resize_due(&g.rr) == g.now + REMOTE_RESIZE_ANSWER_NS);
	remote_resize_tick(&g.rr, g.now + REMOTE_RESIZE_ANSWER_NS - 1);
	CHECK(g.rr.state == RR_WAITING && !strcmp(captured(&g), ""));
	remote_resize_tick(&g.rr, g.now + REMOTE_RESIZE_ANSWER_NS);
	CHECK(g.rr.state == RR_FAILED && g.sends == 0);
	CHECK(!strcmp(captured(&g),
		      "vncfb: srv:1 cannot resize its desktop to 1920x1080 (no "
		      "ExtendedDesktopSize in its first update): showing "
		      "1280x1024 with --scale fit\n"),
	      "logged \"%s\"", g.err);
	fbu(&s, 0);
	CHECK(feed(&g, &s) == 1 && lines(captured(&g)) == 1);
	/* A layout later still: asked then, once; its refusal adds no
	 * line. */
	eds(&s, RFB_EDS_SERVER, 0, 1024, 768, NULL, 0);
	CHECK(feed(&g, &s) == 1 && g.sends == 1 && g.rr.state == RR_PENDING,
	      "late layout: %d asks, state %d", g.sends, g.rr.state);
	eds(&s, RFB_EDS_THIS_CLIENT, RFB_EDS_INVALID, 0, 0, NULL, 0);
	eds(&s, RFB_EDS_SERVER, 0, 1280, 1024, NULL, 0);
	CHECK(feed(&g, &s) == 2 && g.sends == 1 && g.rr.state == RR_FAILED &&
		  lines(captured(&g)) == 1,
	      "refused after all: %d asks: %s", g.sends, g.err);
	rig_close(&g);

	/* QEMU's way: an update without the layout, the layout in the
	 * next one just after: asked, no line. */
	rig_open(&g, 1280, 1024, 1920, 1080);
	fbu(&s, 0);
	CHECK(feed(&g, &s) == 1 && g.rr.state == RR_WAITING);
	g.now += SEC / 100;
	eds(&s, RFB_EDS_SERVER, 0, 1280, 1024, NULL, 0);
	eds(&s, RFB_EDS_THIS_CLIENT, RFB_EDS_FORWARDED, 0, 0, NULL, 0);
	CHECK(feed(&g, &s) == 2 && g.sends == 1 && g.rr.state == RR_FORWARDED &&
		  !strcmp(captured(&g), ""),
	      "QEMU: %d asks, state %d: %s", g.sends, g.rr.state, g.err);
	rig_close(&g);

	/* The late layout has the screen's size already: nothing to ask. */
	rig_open(&g, 1280, 1024, 1920, 1080);
	fbu(&s, 0);
	CHECK(feed(&g, &s) == 1);
	remote_resize_tick(&g.rr, g.now + REMOTE_RESIZE_ANSWER_NS);
	CHECK(g.rr.state == RR_FAILED);
	eds(&s, RFB_EDS_SERVER, 0, 1920, 1080, NULL, 0);
	CHECK(feed(&g, &s) == 1 && g.sends == 0 && g.rr.state == RR_DONE,
	      "late layout in place: %d asks, state %d", g.sends, g.rr.state);
	rig_close(&g);

	rig_open(&g, 1920, 1080, 1920, 1080);
	fbu(&s, 0);
	CHECK(feed(&g, &s) == 1);
	remote_resize_tick(&g.rr, g.now + REMOTE_RESIZE_ANSWER_NS);
	CHECK(g.rr.state == RR_DONE && !strcmp(captured(&g), ""),
	      "same size: %s", g.err);
	rig_close(&g);

	rig_open(&g, 1280, 1024, 1920, 1080);
	eds(&s, RFB_EDS_SERVER, 0, 1280, 1024, NULL, 0);
	eds(&s, RFB_EDS_THIS_CLIENT, RFB_EDS_OK, 1600, 900, NULL, 0);
	CHECK(feed(&g, &s) == 2 && g.f.fb.w == 1600 && g.rr.state == RR_FAILED,
	      "other size: %ux%u state %d", g.f.fb.w, g.f.fb.h, g.rr.state);
	CHECK(!strcmp(captured(&g),
		      "vncfb: srv:1 resized its desktop to 1600x900 instead "
		      "of 1920x1080: showing 1600x900 with --scale fit\n"),
	      "logged \"%s\"", g.err);
	rig_close(&g);
	free(s.p);
}

/* Ask again after a reconnect and for a new target (a mode change, a
 * hot-plug); the same target on the same connection never twice. */
static void test_again(void)
{
	struct buf s = {0};
	struct rig g;
	struct rect head = {0, 0, 1600, 900};

	rig_open(&g, 1280, 1024, 1920, 1080);
	eds(&s, RFB_EDS_SERVER, 0, 1280, 1024, NULL, 0);
	eds(&s, RFB_EDS_THIS_CLIENT, RFB_EDS_PROHIBITED, 0, 0, NULL, 0);
	CHECK(feed(&g, &s) == 2 && g.sends == 1 && g.rr.state == RR_FAILED);
	/* Reconnected: the new connection's first layout asks again. */
	remote_resize_disconnected(&g.rr);
	remote_resize_connected(&g.rr, 1280, 1024);
	CHECK(g.rr.state == RR_WAITING && g.sends == 1);
	eds(&s, RFB_EDS_SERVER, 0, 1280, 1024, NULL, 0);
	eds(&s, RFB_EDS_THIS_CLIENT, RFB_EDS_OK, 1920, 1080, NULL, 0);
	CHECK(feed(&g, &s) == 2 && g.sends == 2 && g.rr.state == RR_DONE,
	      "after a reconnect: %d asks, state %d", g.sends, g.rr.state);
	/* The same target again: nothing. A new one: asked at once. */
	CHECK(remote_resize_set_heads(&g.rr, &(struct rect){0, 0, 1920, 1080},
				      1, g.now) == 0 &&
	      g.sends == 2);
	CHECK(remote_resize_set_heads(&g.rr, &head, 1, g.now) == 0);
	CHECK(g.sends == 3 && g.sw == 1600 && g.sh == 900 &&
		  g.rr.state == RR_PENDING,
	      "new target: %d asks for %ux%u", g.sends, g.sw, g.sh);
	/* A write that fails (the connection is going): no retry. */
	rig_close(&g);

	rig_open(&g, 1280, 1024, 1920, 1080);
	g.fail_send = 1;
	eds(&s, RFB_EDS_SERVER, 0, 1280, 1024, NULL, 0);
	eds(&s, RFB_EDS_SERVER, 0, 1280, 1024, NULL, 0);
	CHECK(feed(&g, &s) == 2 && g.sends == 1 && g.rr.state == RR_FAILED);
	rig_close(&g);

	/* Disabled (--no-remote-resize, --view-only): never asks. */
	{
		struct remote_resize rr;
		struct remote_resize_config cfg = {.enabled = false,
						   .server = "x",
						   .fallback = "none",
						   .send = rig_send,
						   .ctx = &g};
		struct vnc_layout l = {.width = 10, .height = 10};

		g.sends = 0;
		remote_resize_init(&rr, &cfg);
		CHECK(remote_resize_set_heads(&rr, &head, 1, 0) == 0);
		remote_resize_connected(&rr, 10, 10);
		remote_resize_layout(&rr, &l, 0);
		remote_resize_update(&rr, 0);
		CHECK(g.sends == 0 && rr.state == RR_OFF);
	}
	free(s.p);
}

/* No display (none yet at start, or unplugged): nothing is asked for,
 * whatever the server shows; a display plugged in is asked for once,
 * even at the size of the one before (the desktop may have changed
 * meanwhile), and never again for itself. */
static void test_unplugged(void)
{
	struct rect head = {0, 0, 1920, 1080};
	struct buf s = {0};
	struct rig g;

	rig_open(&g, 1280, 1024, 1920, 1080);
	eds(&s, RFB_EDS_SERVER, 0, 1280, 1024, NULL, 0);
	eds(&s, RFB_EDS_THIS_CLIENT, RFB_EDS_OK, 1920, 1080, NULL, 0);
	CHECK(feed(&g, &s) == 2 && g.sends == 1 && g.rr.state == RR_DONE);
	/* Unplugged; another client's size meanwhile is left alone. */
	remote_resize_clear_heads(&g.rr);
	CHECK(g.rr.state == RR_OFF && remote_resize_due(&g.rr) == 0);
	eds(&s, RFB_EDS_OTHER_CLIENT, 0, 800, 600, NULL, 0);
	CHECK(feed(&g, &s) == 1 && g.sends == 1 && g.f.fb.w == 800,
	      "no display: %d asks", g.sends);
	remote_resize_tick(&g.rr, g.now + 60 * SEC);
	CHECK(g.sends == 1);
	/* The same display back: asked at once, once. */
	CHECK(remote_resize_set_heads(&g.rr, &head, 1, g.now) == 0);
	CHECK(g.sends == 2 && g.sw == 1920 && g.sh == 1080 &&
		  g.rr.state == RR_PENDING,
	      "plugged back: %d asks for %ux%u, state %d", g.sends, g.sw, g.sh,
	      g.rr.state);
	CHECK(remote_resize_set_heads(&g.rr, &head, 1, g.now) == 0 &&
	      g.sends == 2);
	/* Refused now: one line; the next plug asks (and says) once more. */
	eds(&s, RFB_EDS_THIS_CLIENT, RFB_EDS_PROHIBITED, 0, 0, NULL, 0);
	CHECK(feed(&g, &s) == 1 && g.rr.state == RR_FAILED);
	remote_resize_clear_heads(&g.rr);
	CHECK(remote_resize_set_heads(&g.rr, &head, 1, g.now) == 0 &&
	      g.sends == 3);
	eds(&s, RFB_EDS_THIS_CLIENT, RFB_EDS_PROHIBITED, 0, 0, NULL, 0);
	CHECK(feed(&g, &s) == 1 && g.sends == 3 && g.rr.state == RR_FAILED);
	CHECK(lines(captured(&g)) == 2, "two refusals, two lines: %s", g.err);
	rig_close(&g);

	/* Connected with no display at all (vncfb started before one was
	 * plugged in): the server's layouts ask nothing; the first display
	 * is asked for at once. */
	rig_open(&g, 1280, 1024, 1920, 1080);
	remote_resize_clear_heads(&g.rr);
	remote_resize_disconnected(&g.rr);
	remote_resize_connected(&g.rr, 1280, 1024);
	CHECK(g.rr.state == RR_OFF);
	eds(&s, RFB_EDS_SERVER, 0, 1280, 1024, NULL, 0);
	CHECK(feed(&g, &s) == 1 && g.sends == 0, "no display: %d asks",
	      g.sends);
	CHECK(remote_resize_set_heads(&g.rr, &head, 1, g.now) == 0 &&
	      g.sends == 1 && g.rr.state == RR_PENDING);
	rig_close(&g);
	free(s.p);
}

/* Several heads: one screen each, keeping the ids of the server's screens
 * that match, taking over the others, fresh ids that collide with none. */
static void test_heads(void)
{
	struct remote_resize rr;
	struct remote_resize_config cfg = {.enabled = true,
					   .server = "x",
					   .fallback = "none",
					   .send = rig_send};
	struct rect heads[3] = {
	    {0, 0, 1024, 768}, {1024, 0, 1024, 768}, {2048, 0, 800, 600}};
	struct vnc_layout l = {.width = 2048, .height = 768, .n = 2};
	struct rig g;

	memset(&g, 0, sizeof(g));
	cfg.ctx = &g;
	remote_resize_init(&rr, &cfg);
	CHECK(remote_resize_set_heads(&rr, heads, 3, 0) == 0);
	remote_resize_connected(&rr, 2048, 768);
	/* The server's second screen is the first head; its first is
	 * elsewhere; ids 1 and 2 taken. */
	l.screens[0] = (struct vnc_screen){2, 500, 500, 10, 10, 0};
	l.screens[1] = (struct vnc_screen){1, 0, 0, 1024, 768, 9};
	remote_resize_layout(&rr, &l, 0);
	CHECK(g.sends == 1 && g.sw == 2848 && g.sh == 768 && g.sn == 3,
	      "asked for %ux%u, %u screens", g.sw, g.sh, g.sn);
	CHECK(g.ss[0].id == 1 && g.ss[0].flags == 9, "match: id %u",
	      g.ss[0].id);
	CHECK(g.ss[1].id == 2 && g.ss[1].x == 1024 && g.ss[1].w == 1024,
	      "taken over: id %u at %u", g.ss[1].id, g.ss[1].x);
	CHECK(g.ss[2].id == 3 && g.ss[2].x == 2048 && g.ss[2].h == 600,
	      "fresh: id %u", g.ss[2].id);
	/* In place already (any order of screens): nothing. */
	remote_resize_connected(&rr, 2848, 768);
	l = (struct vnc_layout){.width = 2848, .height = 768, .n = 3};
	l.screens[0] = (struct vnc_screen){5, 2048, 0, 800, 600, 0};
	l.screens[1] = (struct vnc_screen){6, 0, 0, 1024, 768, 0};
	l.screens[2] = (struct vnc_screen){7, 1024, 0, 1024, 768, 0};
	remote_resize_layout(&rr, &l, 0);
	CHECK(g.sends == 1 && rr.state == RR_DONE);
	/* Right size, wrong screens: asked. */
	remote_resize_connected(&rr, 2848, 768);
	l.n = 1;
	remote_resize_layout(&rr, &l, 0);
	CHECK(g.sends == 2 && g.ss[2].id == 5 && g.ss[0].id == 1 &&
		  g.ss[1].id == 2,
	      "one screen of three: ids %u %u %u", g.ss[0].id, g.ss[1].id,
	      g.ss[2].id);
	/* Right size, every head's screen there and one more: asked, for
	 * three screens. */
	remote_resize_connected(&rr, 2848, 768);
	l = (struct vnc_layout){.width = 2848, .height = 768, .n = 4};
	l.screens[0] = (struct vnc_screen){5, 2048, 0, 800, 600, 0};
	l.screens[1] = (struct vnc_screen){6, 0, 0, 1024, 768, 0};
	l.screens[2] = (struct vnc_screen){7, 1024, 0, 1024, 768, 0};
	l.screens[3] = (struct vnc_screen){8, 0, 0, 10, 10, 0};
	remote_resize_layout(&rr, &l, 0);
	CHECK(g.sends == 3 && g.sn == 3 && g.ss[0].id == 6 &&
		  g.ss[1].id == 7 && g.ss[2].id == 5,
	      "a screen too many: %d asks, ids %u %u %u", g.sends, g.ss[0].id,
	      g.ss[1].id, g.ss[2].id);
	/* The server's one screen is the last head: the first two get
	 * fresh ids, neither the server's nor each other's. */
	remote_resize_connected(&rr, 800, 600);
	l = (struct vnc_layout){.width = 800, .height = 600, .n = 1};
	l.screens[0] = (struct vnc_screen){1, 2048, 0, 800, 600, 4};
	remote_resize_layout(&rr, &l, 0);
	CHECK(g.sends == 4 && g.sn == 3 && g.ss[0].id == 2 &&
		  g.ss[1].id == 3 && g.ss[2].id == 1 && g.ss[2].flags == 4,
	      "fresh ids: %d asks, ids %u %u %u", g.sends, g.ss[0].id,
	      g.ss[1].id, g.ss[2].id);
	/* Targets RFB cannot hold. */
	CHECK(remote_resize_set_heads(&rr, heads, 0, 0) == -EINVAL);
	CHECK(remote_resize_set_heads(&rr, &(struct rect){16000, 0, 1000, 10},
				      1, 0) == -EINVAL);
}

/* Hostile layouts: 255 screens with every id taken near the fresh ones,
 * screens outside the desktop or empty, an unsolicited answer, a
 * truncated list, a status-0 answer of an impossible size. */
static void test_hostile(void)
{
	struct vnc_screen many[RFB_MAX_SCREENS];
	struct buf s = {0};
	struct rig g;

	for (unsigned i = 0; i < RFB_MAX_SCREENS; i++)
		many[i] = (struct vnc_screen){
		    .id = i == 0 ? 0xffffffffu : i, /* 1..254 taken */
		    .x = (uint16_t)(65535 - i),
		    .y = 65535,
		    .w = (uint16_t)(i * 257),
		    .h = 0,
		    .flags = 0xffffffffu};
	/* Two heads: the second must get an id none of the 255 has. */
	{
		struct rect heads[2] = {{0, 0, 640, 480}, {640, 0, 640, 480}};
		struct remote_resize_config cfg = {.enabled = true,
						   .server = "srv:1",
						   .fallback = "none",
						   .send = rig_send};

		rig_open(&g, 1280, 1024, 1920, 1080);
		cfg.ctx = &g;
		remote_resize_init(&g.rr, &cfg);
		remote_resize_set_heads(&g.rr, heads, 2, g.now);
		remote_resize_connected(&g.rr, 1280, 1024);
	}
	eds(&s, RFB_EDS_SERVER, 0, 1280, 1024, many, RFB_MAX_SCREENS);
	CHECK(feed(&g, &s) == 1, "255 screens: %s", g.f.why);
	CHECK(g.sends == 1 && g.sn == 2 && g.ss[0].id == 0xffffffffu &&
		  g.ss[1].id == 1,
	      "ids %u %u (the server's taken over, in order)", g.ss[0].id,
	      g.ss[1].id);
	rig_close(&g);

	/* An answer nobody asked for, before the first layout: the size is
	 * shown, then the ask follows as usual. */
	rig_open(&g, 1280, 1024, 1920, 1080);
	eds(&s, RFB_EDS_THIS_CLIENT, RFB_EDS_OK, 1000, 700, many, 3);
	CHECK(feed(&g, &s) == 1 && g.f.fb.w == 1000 && g.sends == 1 &&
		  g.rr.state == RR_PENDING,
	      "unsolicited: %ux%u, %d asks", g.f.fb.w, g.f.fb.h, g.sends);
	/* Refusals and garbage reasons while pending do not end the wait
	 * on a wrong note: reason 77 is a server change (RFB). */
	eds(&s, 77, 5, 1100, 800, NULL, 0);
	CHECK(feed(&g, &s) == 1 && g.f.fb.w == 1100 && g.rr.state == RR_PENDING,
	      "unknown reason: %ux%u state %d", g.f.fb.w, g.f.fb.h, g.rr.state);
	rig_close(&g);

	/* Cut short inside the screens: the connection is gone. */
	rig_open(&g, 1280, 1024, 1920, 1080);
	eds(&s, RFB_EDS_SERVER, 0, 1280, 1024, many, 10);
	s.n -= 20;
	CHECK(fix_feed(&g.f, &s) < 0 && g.f.err == VNC_ERR_CLOSED &&
		  g.sends == 0,
	      "truncated: err %d, %d asks", g.f.err, g.sends);
	s.n = 0;
	rig_close(&g);

	/* Success with a size no desktop may have: the reader's error. */
	rig_open(&g, 1280, 1024, 1920, 1080);
	eds(&s, RFB_EDS_SERVER, 0, 1280, 1024, NULL, 0);
	CHECK(feed(&g, &s) == 1 && g.sends == 1);
	eds(&s, RFB_EDS_THIS_CLIENT, RFB_EDS_OK, 0, 1080, NULL, 0);
	CHECK(fix_feed(&g.f, &s) < 0 && g.f.err == VNC_ERR_PROTOCOL &&
		  strstr(g.f.why, "0x1080"),
	      "0 wide: err %d, %s", g.f.err, g.f.why);
	s.n = 0;
	eds(&s, RFB_EDS_THIS_CLIENT, RFB_EDS_OK, 65535, 65535, NULL, 0);
	CHECK(fix_feed(&g.f, &s) < 0 && g.f.err != VNC_OK,
	      "65535x65535: err %d, %s", g.f.err, g.f.why);
	s.n = 0;
	rig_close(&g);
	free(s.p);
}

int main(void)
{
	log_set_level(LOG_INFO);
	test_success();
	test_refused();
	test_no_answer();
	test_forwarded();
	test_cannot();
	test_again();
	test_unplugged();
	test_heads();
	test_hostile();
	return check_done("remote_resize");
}
