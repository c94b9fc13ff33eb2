/* vncfb bench --record: a relay thread between the server's socket and a
 * socketpair that libvncclient reads, keeping every byte the server sent;
 * after each message libvncclient handled, the main thread works out how
 * far it consumed (bytes delivered, minus those still in the socketpair,
 * minus libvncclient's own buffer) and writes that message to the file. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/be.h"
#include "util/log.h"
#include "output/output.h"
#include "net/passwd.h"
#include "app/pipeline.h"
#include "tools/replay/recorder.h"
#include "tools/replay/recording.h"
#include "util/rect.h"
#include "console/signals.h"
#include "net/vnc.h"

/* The relay stops reading from the server while this much it read has
 * not reached libvncclient yet. */
#define TAP_AHEAD (32u << 20)
#define TAP_CHUNK (256u << 10)
/* The relay's buffer drops consumed bytes once this many have piled up at
 * its front (a memmove of what is left). */
#define TAP_COMPACT (16u << 20)

struct arrival {
	uint64_t end; /* stream offset just past a chunk the relay read */
	uint64_t t_ns;
};

/* The tap on the socket. Stream offsets count the server's bytes from the
 * connection's first. */
struct tap {
	int server; /* TCP socket to the server */
	int mine;   /* the relay's end of the socketpair */
	int theirs; /* libvncclient's end (vnc.c owns it) */
	int stop[2];
	pthread_t thread;
	bool running;
	pthread_mutex_t lock;
	/* Under lock: the server's bytes from stream offset base on. */
	uint8_t *buf;
	size_t len, cap;
	uint64_t base;
	uint64_t delivered; /* written into the socketpair */
	struct arrival *arr;
	size_t n_arr, cap_arr;
	int err;	 /* errno of a failed relay read or write */
	bool server_eof; /* and all of it delivered: socketpair shut */
	/* Relay thread only: client -> server bytes, and a read chunk. */
	uint8_t up[4096];
	size_t up_len;
	uint8_t chunk[TAP_CHUNK];
};

struct recorder {
	struct options *o;
	struct tap tap;
	struct vnc_client *vc;
	struct rec_writer *w;
	struct pixfmt fmt;
	uint8_t *fb; /* libvncclient decodes here */
	uint32_t fb_w, fb_h;
	uint8_t *cover; /* per pixel: touched by this update */
	/* A copy of fb when --updates was reached inside a vnc_dispatch
	 * that went on decoding what was already buffered. */
	uint8_t *snap;
	uint32_t snap_w, snap_h;
	uint8_t *name;	    /* ServerInit's, for the header */
	uint64_t start_off; /* stream offset of ServerInit's end */
	uint64_t last_end;  /* stream offset past the last message written */
	uint64_t t0;
	size_t messages, updates, full;
	uint64_t max_updates;
	bool done, failed;
};

/* --- the tap --- */

static void tap_shut(struct tap *t)
{
	shutdown(t->mine, SHUT_WR);
	t->server_eof = true;
}

/* Relay thread, under lock: keep n bytes the server sent. */
static int tap_keep(struct tap *t, const uint8_t *p, size_t n, uint64_t now)
{
	uint64_t end;

	if (t->len + n > t->cap) {
		size_t cap = t->cap ? t->cap : TAP_CHUNK;
		uint8_t *b;

		while (cap < t->len + n)
			cap *= 2;
		b = realloc(t->buf, cap);
		if (!b)
			return -ENOMEM;
		t->buf = b;
		t->cap = cap;
	}
	memcpy(t->buf + t->len, p, n);
	t->len += n;
	end = t->base + t->len;
	if (t->n_arr == t->cap_arr) {
		size_t cap = t->cap_arr ? t->cap_arr * 2 : 256;
		struct arrival *a = realloc(t->arr, cap * sizeof(*a));

		if (!a)
			return -ENOMEM;
		t->arr = a;
		t->cap_arr = cap;
	}
	t->arr[t->n_arr++] = (struct arrival){.end = end, .t_ns = now};
	return 0;
}

static int relay_from_server(struct tap *t)
{
	ssize_t n = read(t->server, t->chunk, sizeof(t->chunk));
	int err = 0;

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	pthread_mutex_lock(&t->lock);
	if (n > 0)
		err = tap_keep(t, t->chunk, (size_t)n, monotonic_ns());
	else if (n < 0)
		err = -errno;
	if (err)
		t->err = -err;
	if (n <= 0 || err) {
		/* What was read still goes to libvncclient first. */
		if (t->delivered == t->base + t->len || err)
			tap_shut(t);
		else
			t->server_eof = true;
	}
	pthread_mutex_unlock(&t->lock);
	return err;
}

static void relay_to_client(struct tap *t)
{
	ssize_t n;

	/* Under the lock, so that delivered and the socketpair's queue
	 * agree whenever the main thread looks at them. */
	pthread_mutex_lock(&t->lock);
	n = send(t->mine, t->buf + (t->delivered - t->base),
		 (size_t)(t->base + t->len - t->delivered), MSG_NOSIGNAL);
	if (n > 0)
		t->delivered += (uint64_t)n;
	else if (n < 0 && errno != EAGAIN && errno != EINTR)
		t->err = errno;
	if (t->server_eof && t->delivered == t->base + t->len)
		tap_shut(t);
	pthread_mutex_unlock(&t->lock);
}

static void *relay_thread(void *arg)
{
	struct tap *t = arg;

	for (;;) {
		struct pollfd pfd[3];
		uint64_t ahead;
		bool eof;
		int ret;

		pthread_mutex_lock(&t->lock);
		ahead = t->base + t->len - t->delivered;
		eof = t->server_eof;
		ret = t->err;
		pthread_mutex_unlock(&t->lock);
		if (ret)
			break;
		pfd[0] = (struct pollfd){.fd = t->stop[0], .events = POLLIN};
		pfd[1] = (struct pollfd){.fd = t->server, .events = 0};
		if (!eof && ahead < TAP_AHEAD)
			pfd[1].events |= POLLIN;
		if (t->up_len)
			pfd[1].events |= POLLOUT;
		pfd[2] = (struct pollfd){.fd = t->mine, .events = 0};
		if (t->up_len < sizeof(t->up))
			pfd[2].events |= POLLIN;
		if (ahead)
			pfd[2].events |= POLLOUT;
		/* A closed server would report POLLHUP forever. */
		if (!pfd[1].events)
			pfd[1].fd = -1;
		ret = poll(pfd, 3, -1);
		if (ret < 0 && errno != EINTR)
			break;
		if (ret <= 0)
			continue;
		if (pfd[0].revents)
			break;
		if (pfd[1].revents & (POLLIN | POLLHUP | POLLERR) &&
		    (pfd[1].events & POLLIN) && relay_from_server(t) < 0)
			break;
		if (pfd[2].revents & POLLOUT)
			relay_to_client(t);
		if (pfd[2].revents & (POLLIN | POLLHUP)) {
			ssize_t n = read(t->mine, t->up + t->up_len,
					 sizeof(t->up) - t->up_len);

			if (n == 0 ||
			    (n < 0 && errno != EAGAIN && errno != EINTR))
				break; /* libvncclient is gone */
			if (n > 0)
				t->up_len += (size_t)n;
		}
		if (pfd[1].revents & POLLOUT && t->up_len) {
			ssize_t n =
			    send(t->server, t->up, t->up_len, MSG_NOSIGNAL);

			if (n > 0) {
				memmove(t->up, t->up + n,
					t->up_len - (size_t)n);
				t->up_len -= (size_t)n;
			} else if (n < 0 && errno != EAGAIN && errno != EINTR) {
				pthread_mutex_lock(&t->lock);
				t->err = errno;
				tap_shut(t);
				pthread_mutex_unlock(&t->lock);
			}
		}
	}
	/* Whatever stopped the relay, libvncclient must not wait for more. */
	shutdown(t->mine, SHUT_RDWR);
	return NULL;
}

static void set_nonblock(int fd)
{
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

/* vnc_config.wrap_fd: put the relay between the server and libvncclient. */
static int tap_attach(void *ctx, int fd)
{
	struct tap *t = ctx;
	int sv[2], err;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		log_error("socketpair: %s", strerror(errno));
		goto err_fd;
	}
	if (pipe(t->stop) < 0) {
		log_error("pipe: %s", strerror(errno));
		goto err_pair;
	}
	t->server = fd;
	t->mine = sv[0];
	t->theirs = sv[1];
	set_nonblock(t->server);
	set_nonblock(t->mine);
	err = pthread_create(&t->thread, NULL, relay_thread, t);
	if (err) {
		log_error("pthread_create (record tap): %s", strerror(err));
		goto err_pipe;
	}
	t->running = true;
	return sv[1];

err_pipe:
	close(t->stop[0]);
	close(t->stop[1]);
err_pair:
	close(sv[0]);
	close(sv[1]);
err_fd:
	close(fd);
	t->server = t->mine = t->theirs = -1;
	return -1;
}

static void tap_detach(struct tap *t)
{
	if (t->running) {
		if (write(t->stop[1], "x", 1) < 0)
			log_debug("record tap: stop: %s", strerror(errno));
		pthread_join(t->thread, NULL);
		close(t->stop[0]);
		close(t->stop[1]);
		close(t->mine);
		close(t->server);
		t->running = false;
	}
	free(t->buf);
	free(t->arr);
	t->buf = NULL;
	t->arr = NULL;
}

/* Main thread: the stream offset up to which libvncclient has consumed
 * the server's bytes, given what it holds in its own buffer. */
static int tap_consumed(struct tap *t, size_t unread, uint64_t *off)
{
	int inq = 0, ret = 0;

	pthread_mutex_lock(&t->lock);
	if (ioctl(t->theirs, FIONREAD, &inq) < 0 || inq < 0 ||
	    (uint64_t)inq + unread > t->delivered ||
	    t->delivered - (uint64_t)inq - unread < t->base) {
		ret = -EIO;
	} else {
		*off = t->delivered - (uint64_t)inq - unread;
	}
	pthread_mutex_unlock(&t->lock);
	if (ret < 0)
		log_error("record tap: cannot tell where libvncclient is in "
			  "the stream (FIONREAD: %s)",
			  errno ? strerror(errno) : "inconsistent");
	return ret;
}

/* Main thread, under lock: the bytes [from, to) and when the first came;
 * then forget what is before to. */
typedef int (*take_fn)(void *ctx, const uint8_t *p, size_t n, uint64_t t_ns);

static int tap_take(struct tap *t, uint64_t from, uint64_t to, take_fn fn,
		    void *ctx)
{
	size_t i, k;
	uint64_t when = 0;
	int ret = 0;

	pthread_mutex_lock(&t->lock);
	if (from < t->base || to < from || to > t->base + t->len) {
		ret = -EIO;
		goto out;
	}
	for (i = 0; i < t->n_arr; i++)
		if (t->arr[i].end > from) {
			when = t->arr[i].t_ns;
			break;
		}
	if (fn)
		ret = fn(ctx, t->buf + (from - t->base), (size_t)(to - from),
			 when);
	/* Drop what is consumed, in bulk. */
	for (k = 0; k < t->n_arr && t->arr[k].end <= to; k++)
		;
	if (k) {
		memmove(t->arr, t->arr + k, (t->n_arr - k) * sizeof(*t->arr));
		t->n_arr -= k;
	}
	if (to - t->base >= TAP_COMPACT || to - t->base > t->len / 2) {
		size_t drop = (size_t)(to - t->base);

		memmove(t->buf, t->buf + drop, t->len - drop);
		t->len -= drop;
		t->base = to;
	}
out:
	pthread_mutex_unlock(&t->lock);
	return ret;
}

/* --- the session's events --- */

static uint8_t *ev_resize(void *ctx, uint32_t w, uint32_t h)
{
	struct recorder *rc = ctx;
	size_t bytes = (size_t)w * h * pixfmt_bytes(&rc->fmt);
	uint8_t *fb = calloc(1, bytes), *cover = calloc(1, (size_t)w * h);

	if (!fb || !cover) {
		free(fb);
		free(cover);
		log_error("cannot allocate %zu bytes for a %ux%u desktop",
			  bytes, w, h);
		return NULL;
	}
	free(rc->fb);
	free(rc->cover);
	rc->fb = fb;
	rc->cover = cover;
	rc->fb_w = w;
	rc->fb_h = h;
	return fb;
}

static void ev_damage(void *ctx, const struct rect *r)
{
	struct recorder *rc = ctx;
	int y;

	for (y = r->y; y < r->y + r->h; y++)
		memset(rc->cover + (size_t)y * rc->fb_w + r->x, 1,
		       (size_t)r->w);
}

static void ev_update_done(void *ctx)
{
	(void)ctx;
}

static bool covered(struct recorder *rc)
{
	size_t n = (size_t)rc->fb_w * rc->fb_h;
	bool all = memchr(rc->cover, 0, n) == NULL;

	memset(rc->cover, 0, n);
	return all;
}

/* tap_take's callback: the message's flags, then the message. */
static int write_message(void *ctx, const uint8_t *p, size_t n, uint64_t t)
{
	struct recorder *rc = ctx;
	unsigned flags = 0;
	int err;

	if (p[0] == 0) {
		flags = REC_UPDATE;
		if (covered(rc))
			flags |= REC_FULL;
	}
	err =
	    rec_writer_message(rc->w, p, n, flags, t > rc->t0 ? t - rc->t0 : 0);
	if (err == 0 && (flags & REC_UPDATE)) {
		rc->updates++;
		rc->full += (flags & REC_FULL) != 0;
	}
	return err;
}

static int take_snapshot(struct recorder *rc)
{
	size_t bytes = (size_t)rc->fb_w * rc->fb_h * pixfmt_bytes(&rc->fmt);

	rc->snap = malloc(bytes);
	if (!rc->snap) {
		log_error("out of memory");
		return -ENOMEM;
	}
	memcpy(rc->snap, rc->fb, bytes);
	rc->snap_w = rc->fb_w;
	rc->snap_h = rc->fb_h;
	return 0;
}

/* vnc.c's message hook: one more message handled; write it out. */
static void on_message(void *ctx)
{
	struct recorder *rc = ctx;
	uint64_t end;
	int err;

	if (rc->done || rc->failed)
		return;
	if (tap_consumed(&rc->tap, vnc_unread(rc->vc), &end) < 0 ||
	    end <= rc->last_end) {
		rc->failed = true;
		return;
	}
	err = tap_take(&rc->tap, rc->last_end, end, write_message, rc);
	if (err < 0) {
		if (err == -EIO)
			log_error("record tap: lost track of the stream");
		rc->failed = true;
		return;
	}
	rc->last_end = end;
	rc->messages++;
	if (rc->max_updates && rc->updates >= rc->max_updates) {
		rc->done = true;
		if (take_snapshot(rc) < 0)
			rc->failed = true;
	}
}

/* --- set-up --- */

/* ServerInit is the last thing the handshake read, ending at end: find
 * it from the name libvncclient kept (which stops at a NUL), and copy out
 * the format and the name (into rc->name). */
static int find_server_init(struct recorder *rc, uint64_t end,
			    struct rec_header *h)
{
	struct tap *t = &rc->tap;
	const char *name = vnc_desktop_name(rc->vc);
	size_t nl = strlen(name), len, l;
	const uint8_t *si = NULL;
	int ret = -EIO;

	pthread_mutex_lock(&t->lock);
	if (end < t->base || end > t->base + t->len)
		goto out;
	len = (size_t)(end - t->base);
	for (l = nl; l <= REC_MAX_NAME && 24 + l <= len; l++) {
		si = t->buf + len - 24 - l;
		if (be16_get(si) == vnc_width(rc->vc) &&
		    be16_get(si + 2) == vnc_height(rc->vc) &&
		    be32_get(si + 20) == l && memcmp(si + 24, name, nl) == 0)
			break;
	}
	if (l > REC_MAX_NAME || 24 + l > len)
		goto out;
	rc->name = malloc(l ? l : 1);
	if (!rc->name) {
		ret = -ENOMEM;
		goto out;
	}
	memcpy(rc->name, si + 24, l);
	h->width = be16_get(si);
	h->height = be16_get(si + 2);
	memcpy(h->server_pf, si + 4, 16);
	h->name = rc->name;
	h->name_len = (uint32_t)l;
	ret = 0;
out:
	pthread_mutex_unlock(&t->lock);
	return ret;
}

/* The pixel format to ask for: -o's, as vncfb bench would on it. */
static int record_format(const struct options *o, struct pixfmt *f)
{
	const char *spec = o->output;
	struct pixfmt of;
	uint32_t w, h;
	int slow;
	bool uncached;

	if (!spec) {
		pixfmt_from_name("xrgb8888", f);
		return 0;
	}
	if (strncmp(spec, "mem:", 4) != 0 && strcmp(spec, "mem") != 0) {
		fprintf(stderr,
			"vncfb: --record takes the pixel format to "
			"ask for from -o mem:WxH:FORMAT, not '%s'\n",
			spec);
		return -EINVAL;
	}
	if (output_mem_parse(spec[3] ? spec + 4 : NULL, &w, &h, &of, &slow,
			     &uncached) < 0) {
		fprintf(stderr, "vncfb: bad -o '%s'\n", spec);
		return -EINVAL;
	}
	pixfmt_shadow_for(&of, f);
	return 0;
}

static int connect_server(struct recorder *rc, struct rec_header *h)
{
	struct options *o = rc->o;
	struct vnc_config cfg;
	struct vnc_events ev;
	enum vnc_error verr;
	uint64_t end;

	/* What the viewer would ask for, watching only, with no cursor
	 * shapes. TLS is refused once connected, with a line of its own;
	 * the policy for getting that far is the viewer's. */
	pipeline_vnc_config_fmt(o, &rc->fmt, &cfg);
	cfg.view_only = true;
	cfg.local_cursor = false;
	cfg.wrap_fd = tap_attach;
	cfg.wrap_ctx = &rc->tap;
	ev = (struct vnc_events){.ctx = rc,
				 .resize = ev_resize,
				 .damage = ev_damage,
				 .update_done = ev_update_done};
	rc->vc = vnc_connect(&cfg, &ev, &verr);
	if (!rc->vc)
		return -1;
	rc->t0 = monotonic_ns();
	if (vnc_encrypted(rc->vc)) {
		log_error("%s:%d uses TLS (VeNCrypt): vncfb bench --record "
			  "needs the plain stream, so it records only "
			  "unencrypted connections",
			  o->host, o->port);
		return -1;
	}
	if (tap_consumed(&rc->tap, vnc_unread(rc->vc), &end) < 0 ||
	    find_server_init(rc, end, h) < 0) {
		log_error("record tap: cannot find ServerInit in what %s:%d "
			  "sent",
			  o->host, o->port);
		return -1;
	}
	h->client_fmt = rc->fmt;
	h->quality = o->quality;
	h->compress = o->compress;
	snprintf(h->encodings, sizeof(h->encodings), "%s",
		 o->encodings ? o->encodings : "");
	rc->start_off = rc->last_end = end;
	return 0;
}

enum stop_reason { STOP_DONE, STOP_TIME, STOP_SIGNAL, STOP_CLOSED };

static int record_loop(struct recorder *rc, int sigfd, enum stop_reason *why)
{
	uint64_t deadline = 0;
	enum vnc_error verr;

	if (rc->o->exit_after > 0)
		deadline = monotonic_ns() + (uint64_t)(rc->o->exit_after * 1e9);
	for (;;) {
		struct pollfd pfd[2] = {
		    {.fd = sigfd, .events = POLLIN},
		    {.fd = vnc_fd(rc->vc), .events = POLLIN},
		};
		int timeout = -1, ret;

		if (rc->done) {
			*why = STOP_DONE;
			return 0;
		}
		if (deadline) {
			uint64_t now = monotonic_ns();

			if (now >= deadline) {
				*why = STOP_TIME;
				return 0;
			}
			timeout = (int)((deadline - now + 999999) / 1000000);
		}
		ret = poll(pfd, 2, vnc_poll_timeout(rc->vc, timeout));
		if (ret < 0 && errno != EINTR) {
			log_error("poll: %s", strerror(errno));
			return -1;
		}
		if (ret < 0)
			continue;
		if ((pfd[0].revents & POLLIN) && signals_take(sigfd, NULL)) {
			*why = STOP_SIGNAL;
			return 0;
		}
		if (vnc_poll_ready(rc->vc, pfd[1].revents)) {
			if (vnc_dispatch(rc->vc, &verr) < 0) {
				if (verr != VNC_ERR_CLOSED || rc->failed)
					return -1;
				*why = STOP_CLOSED;
				return 0;
			}
			if (rc->failed)
				return -1;
		}
	}
}

static const char *const stop_words[] = {
    [STOP_DONE] = "--updates reached",
    [STOP_TIME] = "--exit-after reached",
    [STOP_SIGNAL] = "interrupted",
    [STOP_CLOSED] = "the server closed the connection",
};

int recorder_run(struct options *o)
{
	struct recorder rc;
	struct rec_header h;
	enum stop_reason why = STOP_DONE;
	uint64_t t_start;
	int sigfd, ret = 1;
	char fmt[64];

	memset(&rc, 0, sizeof(rc));
	memset(&h, 0, sizeof(h));
	rc.o = o;
	rc.tap.server = rc.tap.mine = rc.tap.theirs = -1;
	rc.max_updates = (uint64_t)o->updates;
	pthread_mutex_init(&rc.tap.lock, NULL);
	if (record_format(o, &rc.fmt) < 0) {
		ret = 2;
		goto out;
	}
	if (o->passwd_file && passwd_check_file(o->passwd_file) < 0)
		goto out;
	sigfd = signals_setup();
	if (sigfd < 0)
		goto out;
	t_start = monotonic_ns();
	if (connect_server(&rc, &h) < 0)
		goto out_vnc;
	rc.w = rec_writer_create(o->record_file, &h);
	if (!rc.w)
		goto out_vnc;
	/* Nothing after ServerInit has been consumed yet: the handshake
	 * ends with the client's messages. */
	if (tap_take(&rc.tap, rc.start_off, rc.start_off, NULL, NULL) < 0)
		goto out_vnc;
	vnc_set_message_hook(rc.vc, on_message, &rc);
	if (record_loop(&rc, sigfd, &why) < 0)
		goto out_vnc;
	if (rc.updates == 0) {
		log_error("%s:%d sent no framebuffer update (%s): nothing "
			  "recorded",
			  o->host, o->port, stop_words[why]);
		goto out_vnc;
	}
	if (rc.snap)
		ret = rec_writer_finish(
		    rc.w, rc.snap, (size_t)rc.snap_w * pixfmt_bytes(&rc.fmt),
		    rc.snap_w, rc.snap_h);
	else
		ret = rec_writer_finish(rc.w, rc.fb,
					(size_t)rc.fb_w * pixfmt_bytes(&rc.fmt),
					rc.fb_w, rc.fb_h);
	rc.w = NULL;
	if (ret < 0) {
		ret = 1;
		goto out_vnc;
	}
	printf("recorded %zu messages (%zu updates, %zu of the whole "
	       "desktop) from %s:%d, %ux%u %s, %.1f MB in %.1f s, to %s "
	       "(%s)\n",
	       rc.messages, rc.updates, rc.full, o->host, o->port, h.width,
	       h.height, pixfmt_name(&rc.fmt, fmt, sizeof(fmt)),
	       (double)(rc.last_end - rc.start_off) / 1e6,
	       (double)(monotonic_ns() - t_start) / 1e9, o->record_file,
	       stop_words[why]);
	fflush(stdout);
	ret = 0;
out_vnc:
	rec_writer_abort(rc.w);
	vnc_destroy(rc.vc);
	tap_detach(&rc.tap);
out:
	pthread_mutex_destroy(&rc.tap.lock);
	free(rc.fb);
	free(rc.cover);
	free(rc.snap);
	free(rc.name);
	return ret;
}
