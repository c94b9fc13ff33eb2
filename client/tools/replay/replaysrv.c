/* The replay pump: the server side of RFB over a recording. Here the
 * recording, the loopback socket and the thread that accepts one client
 * at a time (served by replaysrv_conn.c), the check of what a client
 * decoded, and vncfb bench --replay FILE --serve PORT. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/log.h"
#include "net/vnc_enc.h"
#include "tools/replay/replaysrv.h"
#include "tools/replay/replaysrv_priv.h"
#include "console/signals.h"

/* Mean difference per channel (0-255) allowed between two decodes of a
 * lossy recording's last picture: what the integration tests allow a
 * JPEG picture against the server's. */
#define LOSSY_MAX_ERR 6.0

/* --- the recording --- */

struct replaysrv *replaysrv_open(const char *path)
{
	struct replaysrv *s = calloc(1, sizeof(*s));
	size_t i, seen = 0;

	if (!s) {
		log_error("out of memory");
		return NULL;
	}
	s->listen_fd = s->stop[0] = s->stop[1] = -1;
	s->rec = recording_open(path);
	if (!s->rec) {
		free(s);
		return NULL;
	}
	s->h = recording_header(s->rec);
	rec_pf_to_wire(&s->h->client_fmt, s->client_pf);
	s->lossy = s->h->quality >= 0;
	s->updates = recording_updates(s->rec);
	s->update_full = calloc(s->updates + 1, sizeof(*s->update_full));
	s->sent_ns = calloc(s->updates + 1, sizeof(*s->sent_ns));
	if (!s->update_full || !s->sent_ns) {
		log_error("out of memory");
		replaysrv_close(s);
		return NULL;
	}
	for (i = 0; i < recording_messages(s->rec); i++) {
		struct rec_message m;

		recording_message(s->rec, i, &m);
		if (!(m.flags & REC_UPDATE))
			continue;
		s->update_full[seen] = m.flags & REC_FULL;
		if (seen++ > 0 && (m.flags & REC_FULL))
			s->full_after_first++;
	}
	return s;
}

size_t replaysrv_updates(const struct replaysrv *s)
{
	return s->updates;
}

/* An output spec matching the recording: "mem:WxH:FORMAT". */
static void replaysrv_output_spec(const struct replaysrv *s, char *buf,
				  size_t len)
{
	char name[64];

	snprintf(buf, len, "mem:%ux%u:%s", s->h->width, s->h->height,
		 pixfmt_name(&s->h->client_fmt, name, sizeof(name)));
}

/* 0 when a client in fmt can be served; else -EINVAL, logged. */
static int replaysrv_check_format(const struct replaysrv *s,
				  const struct pixfmt *fmt)
{
	char a[64], b[64];

	if (pixfmt_equal(fmt, &s->h->client_fmt))
		return 0;
	log_error("replay: vncfb would ask for %s, the recording is in %s "
		  "(record once per format: vncfb bench --record -o "
		  "mem:WxH:FORMAT)",
		  pixfmt_name(fmt, a, sizeof(a)),
		  pixfmt_name(&s->h->client_fmt, b, sizeof(b)));
	return -EINVAL;
}

/* --- the pump --- */

int replaysrv_wait(struct pollfd pfd[2], int timeout_ms)
{
	if (poll(pfd, 2, timeout_ms) < 0) {
		if (errno == EINTR)
			return 1;
		log_error("replay: poll: %s", strerror(errno));
		return -1;
	}
	return pfd[0].revents ? -1 : 0;
}

static void *pump_thread(void *arg)
{
	struct replaysrv *s = arg;

	for (;;) {
		struct pollfd pfd[2] = {
		    {.fd = s->stop[0], .events = POLLIN},
		    {.fd = s->listen_fd, .events = POLLIN},
		};
		int fd, one = 1, ret;

		ret = replaysrv_wait(pfd, -1);
		if (ret < 0)
			break;
		if (ret > 0)
			continue;
		if (!(pfd[1].revents & POLLIN))
			continue;
		fd = accept(s->listen_fd, NULL, NULL);
		if (fd < 0) {
			if (errno != EINTR && errno != EAGAIN &&
			    errno != ECONNABORTED)
				log_warn("replay: accept: %s", strerror(errno));
			continue;
		}
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
		fcntl(fd, F_SETFD, FD_CLOEXEC);
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		replaysrv_serve_client(s, fd);
		close(fd);
	}
	return NULL;
}

int replaysrv_start(struct replaysrv *s, int port, bool quiet)
{
	struct sockaddr_in sa;
	socklen_t sl = sizeof(sa);
	int one = 1, err;

	s->quiet = quiet;
	s->listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s->listen_fd < 0) {
		log_error("replay: socket: %s", strerror(errno));
		return -errno;
	}
	setsockopt(s->listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sa.sin_port = htons((uint16_t)port);
	if (bind(s->listen_fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		err = -errno;
		log_error("replay: cannot listen on 127.0.0.1:%d: %s", port,
			  strerror(errno));
		return err;
	}
	if (listen(s->listen_fd, 8) < 0 ||
	    getsockname(s->listen_fd, (struct sockaddr *)&sa, &sl) < 0) {
		err = -errno;
		log_error("replay: listen: %s", strerror(errno));
		return err;
	}
	s->port = ntohs(sa.sin_port);
	if (pipe(s->stop) < 0) {
		err = -errno;
		log_error("replay: pipe: %s", strerror(errno));
		return err;
	}
	err = pthread_create(&s->thread, NULL, pump_thread, s);
	if (err) {
		log_error("replay: pthread_create: %s", strerror(err));
		return -err;
	}
	s->running = true;
	return 0;
}

int replaysrv_port(const struct replaysrv *s)
{
	return s->port;
}

void replaysrv_close(struct replaysrv *s)
{
	if (!s)
		return;
	if (s->running) {
		if (write(s->stop[1], "x", 1) < 0)
			log_debug("replay: stop: %s", strerror(errno));
		pthread_join(s->thread, NULL);
	}
	if (s->stop[0] >= 0) {
		close(s->stop[0]);
		close(s->stop[1]);
	}
	if (s->listen_fd >= 0)
		close(s->listen_fd);
	recording_close(s->rec);
	free(s->update_full);
	free((void *)s->sent_ns);
	free(s);
}

void replaysrv_set_push(struct replaysrv *s, enum push_mode push,
			uint64_t return_ns)
{
	s->push = push;
	s->return_ns = return_ns;
}

uint64_t replaysrv_sent_ns(const struct replaysrv *s, size_t k)
{
	return k < s->updates ? atomic_load(&s->sent_ns[k]) : 0;
}

bool replaysrv_update_full(const struct replaysrv *s, size_t k)
{
	return k < s->updates && s->update_full[k];
}

/* --- vncfb bench --replay --- */

struct replaysrv *replaysrv_for_bench(struct options *o, char *out_spec,
				      size_t len)
{
	struct replaysrv *s = replaysrv_open(o->replay_file);

	if (!s)
		return NULL;
	if (!o->encodings && s->h->encodings[0]) {
		o->encodings = strdup(s->h->encodings);
		if (!o->encodings) {
			log_error("out of memory");
			replaysrv_close(s);
			return NULL;
		}
	}
	if (!opts_from_cli(o, "quality"))
		o->quality = s->h->quality;
	if (!opts_from_cli(o, "compress"))
		o->compress = s->h->compress;
	replaysrv_output_spec(s, out_spec, len);
	return s;
}

int replaysrv_check_bench(const struct replaysrv *s, const struct pixfmt *fmt)
{
	/* The first update is set-up; the measurement needs two more. */
	if (s->updates < 3) {
		log_error("replay: the recording holds %zu updates; the bench "
			  "needs at least 3",
			  s->updates);
		return -EINVAL;
	}
	return replaysrv_check_format(s, fmt);
}

/* --- checking what a client decoded --- */

static struct who_stats *who_get(struct replaysrv *s, const char *who)
{
	int i;

	for (i = 0; i < s->n_who; i++)
		if (!strcmp(s->who[i].who, who))
			return &s->who[i];
	if (s->n_who == MAX_WHO)
		return NULL;
	snprintf(s->who[s->n_who].who, sizeof(s->who[0].who), "%s", who);
	return &s->who[s->n_who++];
}

static uint32_t rgb_at(const struct pixfmt *f, const uint8_t *p)
{
	uint8_t r, g, b;

	pixfmt_unpack(f, pixfmt_load(f, p), &r, &g, &b);
	return (uint32_t)r << 16 | (uint32_t)g << 8 | b;
}

int replaysrv_play_done(struct replaysrv *s, const char *who, uint64_t updates,
			const uint8_t *pix, size_t stride, uint32_t w,
			uint32_t h)
{
	const struct pixfmt *f = &s->h->client_fmt;
	struct who_stats *st = who_get(s, who);
	const uint8_t *want;
	uint32_t fw, fh, x, y;
	unsigned bpp = pixfmt_bytes(f);
	uint64_t sum = 0;
	double err;

	if (!st)
		return 0;
	st->plays++;
	if (updates < s->updates)
		return 0;
	st->complete++;
	want = recording_final(s->rec, &fw, &fh);
	if (!want || !pix)
		return 0;
	if (fw != w || fh != h) {
		log_error("replay: %s: the desktop ended %ux%u, the recorder's "
			  "%ux%u",
			  who, w, h, fw, fh);
		return -1;
	}
	for (y = 0; y < h; y++) {
		const uint8_t *a = pix + (size_t)y * stride;
		const uint8_t *b = want + (size_t)y * w * bpp;

		if (!memcmp(a, b, (size_t)w * bpp))
			continue;
		for (x = 0; x < w; x++) {
			uint32_t ga = rgb_at(f, a + x * bpp);
			uint32_t gb = rgb_at(f, b + x * bpp);
			int k;

			if (ga == gb)
				continue;
			if (!s->lossy) {
				log_error("replay: %s: the picture after the "
					  "last update differs from the "
					  "recorder's, first at (%u,%u): "
					  "#%06x, recorded #%06x",
					  who, x, y, ga, gb);
				return -1;
			}
			for (k = 0; k < 24; k += 8) {
				int d = (int)((ga >> k) & 255) -
					(int)((gb >> k) & 255);

				sum += (uint64_t)(d < 0 ? -d : d);
			}
		}
	}
	st->checked++;
	err = (double)sum / ((double)w * h * 3);
	if (err > st->worst)
		st->worst = err;
	if (err > LOSSY_MAX_ERR) {
		log_error("replay: %s: the picture after the last update is "
			  "%.2f per channel from the recorder's (at most %.0f "
			  "for JPEG)",
			  who, err, LOSSY_MAX_ERR);
		return -1;
	}
	return 0;
}

void replaysrv_describe(const struct replaysrv *s, const char *path, FILE *f)
{
	const struct rec_header *h = s->h;
	char fmt[64];

	fprintf(f,
		"replay of %s: %ux%u %s, \"%.*s\", %zu updates (%zu of the "
		"whole desktop after the first), %.1f MB, recorded asking "
		"for %s%s",
		path, h->width, h->height,
		pixfmt_name(&h->client_fmt, fmt, sizeof(fmt)),
		(int)(h->name_len > 60 ? 60 : h->name_len),
		(const char *)h->name, s->updates, s->full_after_first,
		(double)recording_bytes(s->rec) / 1e6,
		h->encodings[0] ? h->encodings
				: "the viewer's default "
				  "encodings",
		h->quality >= 0 ? ""
		/* Open H.264 is lossy whatever the quality. */
		: vnc_encodings_name(h->encodings, "h264")
		    ? ", lossy (Open H.264)"
		    : ", lossless");
	if (h->quality >= 0)
		fprintf(f, ", quality %d", h->quality);
	if (h->compress >= 0)
		fprintf(f, ", compress %d", h->compress);
	fprintf(f, "\n");
}

void replaysrv_report(const struct replaysrv *s, FILE *f)
{
	int i;

	if (!s->n_who)
		return;
	fprintf(f, "\nReplay: the picture after the last update against the "
		   "recorder's\n");
	for (i = 0; i < s->n_who; i++) {
		const struct who_stats *w = &s->who[i];

		fprintf(f, "  %-12s %u of %u plays complete", w->who,
			w->complete, w->plays);
		if (!w->checked)
			fprintf(f, ", none checked\n");
		else if (s->lossy)
			fprintf(f,
				", %u checked: mean error at most %.3f per "
				"channel\n",
				w->checked, w->worst);
		else
			fprintf(f, ", %u checked: identical\n", w->checked);
	}
	fprintf(f, "(a play is complete when the client handled every "
		   "recorded update before --duration)\n");
}

/* --- vncfb bench --replay FILE --serve PORT --- */

int replaysrv_serve(struct options *o, const struct link_config *link)
{
	static const char *const push[] = {
	    [PUSH_REQUESTS] = "one update per request, no continuous updates "
			      "or fences",
	    [PUSH_RECORDED] = "continuous updates and fences offered, pushed "
			      "at the recorded pace",
	    [PUSH_FAST] = "continuous updates and fences offered, pushed as "
			  "fast as the link takes them",
	};
	struct replaysrv *s;
	struct link *l = NULL;
	uint64_t deadline = 0;
	int sigfd, ret = 1;

	sigfd = signals_setup();
	if (sigfd < 0)
		return 1;
	s = replaysrv_open(o->replay_file);
	if (!s)
		return 1;
	replaysrv_set_push(s, (enum push_mode)o->push,
			   link ? link->rtt_ns / 2 : 0);
	/* Through a link, the link has the port asked for and the pump one
	 * of its own behind it. */
	if (replaysrv_start(s, link ? 0 : o->serve_port, false) < 0)
		goto out;
	if (link) {
		l = link_start(link, o->serve_port, "127.0.0.1", s->port);
		if (!l)
			goto out;
	}
	printf("replay: serving %s on 127.0.0.1:%d\n", o->replay_file,
	       l ? link_port(l) : s->port);
	if (l) {
		char d[80];

		link_describe(link, d, sizeof(d));
		printf("replay: through an emulated link: %s\n", d);
	}
	printf("replay: %s\n", push[o->push]);
	replaysrv_describe(s, o->replay_file, stdout);
	fflush(stdout);
	if (o->exit_after > 0)
		deadline = monotonic_ns() + (uint64_t)(o->exit_after * 1e9);
	for (;;) {
		struct pollfd pfd = {.fd = sigfd, .events = POLLIN};
		int timeout = -1;
		unsigned char sig[16];
		ssize_t k, i;

		if (deadline) {
			uint64_t now = monotonic_ns();

			if (now >= deadline)
				break;
			timeout = (int)((deadline - now + 999999) / 1000000);
		}
		if (poll(&pfd, 1, timeout) <= 0)
			continue;
		k = read(sigfd, sig, sizeof(sig));
		for (i = 0; i < k; i++)
			if (sig[i] != SIGUSR1)
				break;
		if (i < k)
			break;
	}
	ret = 0;
out:
	link_stop(l);
	replaysrv_close(s);
	return ret;
}
