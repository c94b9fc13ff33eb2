/* Fuzz harness: a socketpair stands in for the server, a pump thread
 * feeds it the input, and vncfb's real pipeline (vnc.c, shadow, damage,
 * blitter, mem output) consumes it on this thread. Built as two libFuzzer
 * targets: the whole session (fuzz_server) and the handshake with the
 * client's security settings varied (fuzz_handshake, -DFUZZ_HANDSHAKE).
 * The session's remote resize (remote_resize.h) answers the server's
 * layouts, writing SetDesktopSize for the output's size; asking twice on
 * one connection is a bug the fuzzer sees as a crash. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "app/remote_resize.h"
#include "blit/blit.h"
#include "shadow/damage.h"
#include "harness.h"
#include "util/log.h"
#include "output/output.h"
#include "shadow/shadow.h"
#include "net/vnc.h"

static const char *const outputs[4] = {
	"mem:96x64:xrgb8888",
	"mem:96x64:rgb565",
	"mem:96x64:bgrx8888",
	"mem:96x64:rgb888",
};

struct pipeline {
	struct output out;
	struct shadow shadow;
	struct damage damage;
	struct blitter *blit;
	struct fuzz_result *res;
	uint8_t *cursor;	/* copy of the last shape: ASan checks sizes */
	struct vnc_client *vc;	/* once connected */
	struct remote_resize rr;
	int asks;
};

/* A shadow larger than this is refused, as a session refuses one it
 * cannot allocate: zeroing 800 MB under ASan took the fuzzer past its
 * timeout (regress/fuzz-desktop-800MiB). */
#define HARNESS_MAX_SHADOW ((size_t)64 << 20)

static uint8_t *ev_resize(void *ctx, uint32_t w, uint32_t h)
{
	struct pipeline *p = ctx;
	uint8_t *pix;

	if ((size_t)w * h * pixfmt_bytes(&p->shadow.fmt) > HARNESS_MAX_SHADOW)
		return NULL;
	pix = shadow_resize(&p->shadow, w, h);

	if (pix) {
		blit_reset_view(p->blit);
		remote_resize_desktop(&p->rr, w, h);
	}
	return pix;
}

static void ev_damage(void *ctx, const struct rect *r)
{
	struct pipeline *p = ctx;

	/* vnc.c promises clipped rectangles; a broken promise is a bug in
	 * vncfb, so make the fuzzer see it as a crash. */
	if (r->x < 0 || r->y < 0 || r->w <= 0 || r->h <= 0 ||
	    (uint64_t)r->x + (uint64_t)r->w > p->shadow.width ||
	    (uint64_t)r->y + (uint64_t)r->h > p->shadow.height) {
		fprintf(stderr, "damage %d,%d %dx%d outside %ux%u\n", r->x,
			r->y, r->w, r->h, p->shadow.width, p->shadow.height);
		abort();
	}
	damage_add(&p->damage, r);
	p->res->damage++;
}

static void ev_update_done(void *ctx)
{
	struct pipeline *p = ctx;
	struct damage_set set;
	struct blit_stats st;

	/* The blitter's pass, on this thread so a run is deterministic. */
	damage_kick(&p->damage);
	if (damage_take(&p->damage, &set, 0) >= 0)
		blit_pass(p->blit, &set, &st);
	p->res->updates++;
	remote_resize_update(&p->rr, 0);
	/* The first layout's deadline is over at once: a server that sends
	 * one later still gets asked then. */
	remote_resize_tick(&p->rr, REMOTE_RESIZE_ANSWER_NS);
}

static void ev_cursor(void *ctx, int xhot, int yhot, int w, int h,
		      const uint8_t *pixels, const uint8_t *mask)
{
	struct pipeline *p = ctx;
	size_t bpp = pixfmt_bytes(&p->shadow.fmt);
	size_t n = (size_t)w * (size_t)h;
	uint8_t *c = realloc(p->cursor, n * (bpp + 1));

	if (!c)
		return;
	p->cursor = c;
	memcpy(c, pixels, n * bpp);
	memcpy(c + n * bpp, mask, n);
	p->res->cursors++;
}

static void ev_cursor_pos(void *ctx, int x, int y)
{
}

static void ev_layout(void *ctx, const struct vnc_layout *l)
{
	struct pipeline *p = ctx;

	remote_resize_layout(&p->rr, l, 0);
}

static int rr_send(void *ctx, uint32_t w, uint32_t h,
		   const struct vnc_screen *s, unsigned n)
{
	struct pipeline *p = ctx;

	if (++p->asks > 1) {
		fprintf(stderr, "remote resize asked %d times\n", p->asks);
		abort();
	}
	return p->vc ? vnc_set_desktop_size(p->vc, w, h, s, n) : -1;
}

static void ev_bell(void *ctx)
{
}

static char *get_password(void *ctx)
{
	return ctx ? strdup("fuzz") : NULL;
}

struct pump {
	int fd;
	const uint8_t *p;
	size_t n;
};

/* The "server": write the input, swallow what the client says, and hang
 * up after the last byte so the session ends. */
static void *pump_run(void *arg)
{
	struct pump *pu = arg;
	char sink[4096];
	bool done = pu->n == 0;

	if (done)
		shutdown(pu->fd, SHUT_WR);
	for (;;) {
		struct pollfd pfd = { pu->fd, POLLIN | (done ? 0 : POLLOUT),
				      0 };
		ssize_t k;

		if (poll(&pfd, 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd.revents & (POLLIN | POLLHUP | POLLERR)) {
			k = read(pu->fd, sink, sizeof(sink));
			if (k < 0 && (errno == EAGAIN || errno == EINTR))
				continue;
			if (k <= 0)
				break;
		}
		if (!done && (pfd.revents & POLLOUT)) {
			k = send(pu->fd, pu->p, pu->n, MSG_NOSIGNAL);
			if (k < 0 && (errno == EAGAIN || errno == EINTR))
				continue;
			if (k < 0)
				break;
			pu->p += k;
			pu->n -= (size_t)k;
			if (pu->n == 0) {
				done = true;
				shutdown(pu->fd, SHUT_WR);
			}
		}
	}
	close(pu->fd);
	return NULL;
}

const char *fuzz_error_name(int error)
{
	static const char *const names[] = {
		[VNC_OK] = "ok",
		[VNC_ERR_RESOLVE] = "resolve",
		[VNC_ERR_CONNECT] = "connect",
		[VNC_ERR_AUTH] = "auth",
		[VNC_ERR_PROTOCOL] = "protocol",
		[VNC_ERR_CLOSED] = "closed",
		[VNC_ERR_RESOURCE] = "resource",
	};

	if (error < 0 || error >= (int)(sizeof(names) / sizeof(names[0])))
		return "?";
	return names[error];
}

static int run(const uint8_t *data, size_t size, struct fuzz_result *res,
	       bool handshake_only)
{
	struct pipeline p;
	struct pixfmt sfmt;
	struct vnc_config cfg;
	struct vnc_events ev;
	struct vnc_client *vc;
	struct pump pu;
	pthread_t th;
	enum vnc_error err = VNC_OK;
	int sv[2], ret = -1;

	memset(res, 0, sizeof(*res));
	if (size < 1)
		return 0;
	memset(&p, 0, sizeof(p));
	p.res = res;
	if (output_open(&p.out, outputs[data[0] & 3]) < 0)
		return -1;
	pixfmt_shadow_for(&p.out.fmt, &sfmt);
	if (shadow_init(&p.shadow, &sfmt) < 0)
		goto out_output;
	if (damage_init(&p.damage) < 0)
		goto out_shadow;
	if (!(p.blit = blit_create(&p.out, &p.shadow, &p.damage, -1)))
		goto out_damage;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		perror("socketpair");
		goto out_blit;
	}
	fcntl(sv[1], F_SETFL, O_NONBLOCK);
	pu = (struct pump){ sv[1], data + 1, size - 1 };
	if (pthread_create(&th, NULL, pump_run, &pu) != 0) {
		close(sv[0]);
		close(sv[1]);
		goto out_blit;
	}

	memset(&cfg, 0, sizeof(cfg));
	cfg.host = "fuzz";
	cfg.port = 5900;
	cfg.quality = 5;
	cfg.compress = -1;
	cfg.local_cursor = true;
	cfg.fmt = sfmt;
	cfg.read_timeout_s = 5;
	cfg.get_password = get_password;
	cfg.password_ctx = &cfg;
	if (handshake_only) {
		cfg.insecure = data[0] & FUZZ_HS_INSECURE;
		cfg.ca_file = data[0] & FUZZ_HS_CA ? VNCFB_FUZZ_CA : NULL;
		if (data[0] & FUZZ_HS_NOPASS)
			cfg.password_ctx = NULL;
		cfg.view_only = data[0] & FUZZ_HS_VIEWONLY;
	}
	ev = (struct vnc_events){ .ctx = &p,
				  .resize = ev_resize,
				  .damage = ev_damage,
				  .update_done = ev_update_done,
				  .cursor_shape = ev_cursor,
				  .cursor_pos = ev_cursor_pos,
				  .bell = ev_bell,
				  .layout = ev_layout };
	{
		struct remote_resize_config rc = { .enabled = true,
						   .server = "fuzz",
						   .fallback = "none",
						   .send = rr_send,
						   .ctx = &p };
		struct rect head = { 0, 0, (int32_t)p.out.width,
				     (int32_t)p.out.height };

		remote_resize_init(&p.rr, &rc);
		remote_resize_set_heads(&p.rr, &head, 1, 0);
	}
	vc = vnc_connect_fd(&cfg, &ev, sv[0], &err);
	if (vc) {
		res->connected = 1;
		p.vc = vc;
		remote_resize_connected(&p.rr, p.shadow.width,
					p.shadow.height);
		while (!handshake_only && vnc_dispatch(vc, &err) == 0)
			;
		vnc_destroy(vc);
	}
	pthread_join(th, NULL);
	res->error = err;
	res->width = p.shadow.width;
	res->height = p.shadow.height;
	ret = 0;
out_blit:
	blit_destroy(p.blit);
out_damage:
	damage_finish(&p.damage);
out_shadow:
	shadow_finish(&p.shadow);
out_output:
	output_close(&p.out);
	free(p.cursor);
	return ret;
}

int fuzz_run(const uint8_t *data, size_t size, struct fuzz_result *res)
{
	return run(data, size, res, false);
}

int fuzz_handshake(const uint8_t *data, size_t size,
		   struct fuzz_result *res)
{
	return run(data, size, res, true);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool once;
	struct fuzz_result res;

	if (!once) {
		once = true;
		if (!getenv("VNCFB_FUZZ_VERBOSE"))
			log_set_level(LOG_SILENT);
		signal(SIGPIPE, SIG_IGN);
	}
#ifdef FUZZ_HANDSHAKE
	fuzz_handshake(data, size, &res);
#else
	fuzz_run(data, size, &res);
#endif
	return 0;
}
