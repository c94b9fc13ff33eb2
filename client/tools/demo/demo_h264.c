/* The demo's Open H.264 server (demo_h264.h). */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tools/demo/scene.h"
#include "tools/demo/demo_h264.h"
#include "tools/demo/h264enc.h"
#include "tools/demo/rfbmini.h"
#include "util/be.h"
#include "util/clock.h"
#include "util/log.h"

#define FPS 30
/* How often the thread looks at the stop flag while it waits. */
#define POLL_MS 50

struct demo_h264 {
	int w, h, ls;
	pthread_t thread;
	atomic_bool stop;
	atomic_uint_fast64_t frames;
	uint32_t *px;
	uint8_t *rgb;
};

/* Frame n of the scene as one Open H.264 rectangle. */
static int send_frame(struct demo_h264 *d, int fd, struct h264enc *e,
		      uint64_t n)
{
	uint8_t hdr[24] = {0, 0, 0, 1}; /* FramebufferUpdate, 1 rectangle */
	const uint8_t *data;
	size_t len;

	demo_draw(d->px, d->w, d->h, d->w, n);
	/* demo_draw's pixels have R in the low byte. */
	for (size_t i = 0; i < (size_t)d->w * d->h; i++) {
		d->rgb[i * 3] = (uint8_t)d->px[i];
		d->rgb[i * 3 + 1] = (uint8_t)(d->px[i] >> 8);
		d->rgb[i * 3 + 2] = (uint8_t)(d->px[i] >> 16);
	}
	if (h264enc_frame(e, d->rgb, (size_t)d->w * 3, n == 0, &data, &len) < 0)
		return -1;
	rfbmini_rect(hdr + 4, 0, 0, d->w, d->h, RFBMINI_ENC_H264);
	be32_put(hdr + 16, (uint32_t)len);
	be32_put(hdr + 20, n == 0 ? 1 : 0); /* a new stream a client */
	if (rfbmini_put(fd, hdr, sizeof(hdr)) < 0 ||
	    rfbmini_put(fd, data, len) < 0)
		return -1;
	atomic_fetch_add(&d->frames, 1);
	return 0;
}

/* One client, until it goes or the demo stops: a frame for each request,
 * at most FPS a second. */
static void serve(struct demo_h264 *d, int fd)
{
	struct h264enc *e = NULL;
	bool h264 = false, pending = false;
	uint64_t n = 0, next = 0;
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (rfbmini_handshake(fd, d->w, d->h, "vncfb demo (Open H.264)",
			      &d->stop) < 0)
		return;
	e = h264enc_create(d->w, d->h, 23);
	if (!e)
		return;
	while (!atomic_load(&d->stop)) {
		struct pollfd pf = {.fd = fd, .events = POLLIN};
		uint64_t now = monotonic_ns();
		int wait = POLL_MS;

		if (pending && next > now && (next - now) / 1000000 < POLL_MS)
			wait = (int)((next - now) / 1000000) + 1;
		else if (pending && next <= now)
			wait = 0;
		if (poll(&pf, 1, wait) > 0) {
			int r = rfbmini_client_msg(fd, &h264, &d->stop);

			if (r < 0)
				break;
			pending |= r == 1;
		}
		if (!pending || monotonic_ns() < next)
			continue;
		if (!h264) {
			log_error("demo: the client did not offer Open H.264");
			break;
		}
		if (send_frame(d, fd, e, n++) < 0)
			break;
		pending = false;
		next = monotonic_ns() + 1000000000u / FPS;
	}
	h264enc_destroy(e);
}

static void *run(void *arg)
{
	struct demo_h264 *d = arg;

	while (!atomic_load(&d->stop)) {
		struct pollfd pf = {.fd = d->ls, .events = POLLIN};
		int fd;

		if (poll(&pf, 1, POLL_MS) <= 0)
			continue;
		fd = accept(d->ls, NULL, NULL);
		if (fd < 0)
			continue;
		serve(d, fd);
		close(fd);
	}
	return NULL;
}

struct demo_h264 *demo_h264_start(int w, int h, int *port)
{
	struct demo_h264 *d = calloc(1, sizeof(*d));
	int one = 1, p;

	if (!d)
		return NULL;
	d->w = w;
	d->h = h;
	d->px = calloc((size_t)w * h, 4);
	d->rgb = calloc((size_t)w * h, 3);
	d->ls = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (!d->px || !d->rgb || d->ls < 0) {
		log_error("demo: out of memory or sockets");
		goto fail;
	}
	setsockopt(d->ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	for (p = 5900; p < 6000; p++) {
		struct sockaddr_in a = {.sin_family = AF_INET,
					.sin_port = htons((uint16_t)p)};

		a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		if (bind(d->ls, (struct sockaddr *)&a, sizeof(a)) == 0)
			break;
	}
	if (p == 6000 || listen(d->ls, 1) < 0) {
		log_error("demo: cannot listen on 127.0.0.1 (ports 5900-5999 "
			  "busy?)");
		goto fail;
	}
	if (pthread_create(&d->thread, NULL, run, d) != 0) {
		log_error("demo: pthread_create failed");
		goto fail;
	}
	*port = p;
	return d;
fail:
	if (d->ls >= 0)
		close(d->ls);
	free(d->px);
	free(d->rgb);
	free(d);
	return NULL;
}

uint64_t demo_h264_frames(const struct demo_h264 *d)
{
	return atomic_load(&d->frames);
}

void demo_h264_stop(struct demo_h264 *d)
{
	if (!d)
		return;
	atomic_store(&d->stop, true);
	pthread_join(d->thread, NULL);
	close(d->ls);
	free(d->px);
	free(d->rgb);
	free(d);
}
