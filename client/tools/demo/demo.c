/* Embedded demo server: colour bars, a gradient that drifts and a bouncing
 * square, redrawn at 30 frames a second on loopback. */
#include "config.h"

#include <arpa/inet.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rfb/rfb.h>

#include "net/vnc_enc.h"
#include "tools/demo/demo.h"
#include "tools/demo/scene.h"
#ifdef VNCFB_HAVE_H264
#include "tools/demo/demo_h264.h"
#endif
#include "util/log.h"
#include "output/output.h"

#define DEMO_W 800
#define DEMO_H 600

struct demo {
	rfbScreenInfoPtr screen;
	uint32_t *fb;
	pthread_t animator;
	atomic_bool stop;
	atomic_uint_fast64_t frames;
	char where[64];
	/* --encodings h264: the Open H.264 server instead (demo_h264.h). */
	struct demo_h264 *h264;
	int h264_port;
};

static void quiet_log(const char *fmt, ...)
{
	(void)fmt;
}

static void *animate(void *arg)
{
	struct demo *d = arg;
	uint64_t n = 0;
	struct timespec next;

	clock_gettime(CLOCK_MONOTONIC, &next);
	while (!atomic_load(&d->stop)) {
		next.tv_nsec += 1000000000 / 30;
		if (next.tv_nsec >= 1000000000) {
			next.tv_nsec -= 1000000000;
			next.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
		n++;
		demo_draw(d->fb, DEMO_W, DEMO_H, DEMO_W, n);
		/* The top half only changes where the box is. */
		rfbMarkRectAsModified(d->screen, 0, 0, DEMO_W, DEMO_H);
		atomic_fetch_add(&d->frames, 1);
	}
	return NULL;
}

static void *demo_start(const struct options *o, const char *where,
			int *port)
{
	struct demo *d = calloc(1, sizeof(*d));
	bool h264 = vnc_encodings_name(o->encodings, "h264");
	int argc = 0;

	if (!d)
		return NULL;
	snprintf(d->where, sizeof(d->where), "%s", where);
	if (h264) {
#ifdef VNCFB_HAVE_H264
		d->h264 = demo_h264_start(DEMO_W, DEMO_H, &d->h264_port);
		if (!d->h264)
			goto err_free;
		log_info("demo: serving an animated %dx%d scene in Open H.264 "
			 "on 127.0.0.1:%d",
			 DEMO_W, DEMO_H, d->h264_port);
		*port = d->h264_port;
		return d;
#else
		log_error("demo: Open H.264 needs a vncfb built with "
			  "libavcodec");
		goto err_free;
#endif
	}
	rfbLog = quiet_log;
	rfbErr = quiet_log;
	d->fb = calloc((size_t)DEMO_W * DEMO_H, 4);
	if (!d->fb)
		goto err_free;
	d->screen = rfbGetScreen(&argc, NULL, DEMO_W, DEMO_H, 8, 3, 4);
	if (!d->screen)
		goto err_fb;
	d->screen->desktopName = "vncfb demo";
	d->screen->frameBuffer = (char *)d->fb;
	d->screen->alwaysShared = TRUE;
	d->screen->autoPort = TRUE;
	d->screen->listenInterface = htonl(INADDR_LOOPBACK);
	d->screen->listen6Interface = "::1";
	d->screen->httpDir = NULL;
	demo_draw(d->fb, DEMO_W, DEMO_H, DEMO_W, 0);
	rfbInitServer(d->screen);
	if (d->screen->listenSock == RFB_INVALID_SOCKET) {
		log_error("demo: cannot listen on 127.0.0.1 (ports 5900-5999 "
			  "busy?)");
		goto err_screen;
	}
	rfbRunEventLoop(d->screen, -1, TRUE);
	if (pthread_create(&d->animator, NULL, animate, d) != 0) {
		log_error("demo: pthread_create failed");
		goto err_shutdown;
	}
	log_info("demo: serving an animated %dx%d scene on 127.0.0.1:%d "
		 "(display :%d)",
		 DEMO_W, DEMO_H, d->screen->port, d->screen->port - 5900);
	*port = d->screen->port;
	return d;

err_shutdown:
	rfbShutdownServer(d->screen, TRUE);
err_screen:
	rfbScreenCleanup(d->screen);
err_fb:
	free(d->fb);
err_free:
	free(d);
	return NULL;
}

static uint64_t demo_frames(const struct demo *d)
{
#ifdef VNCFB_HAVE_H264
	if (d->h264)
		return demo_h264_frames(d->h264);
#endif
	return atomic_load(&d->frames);
}

static void demo_report(void *srv, uint64_t updates,
			const struct output *out)
{
	struct demo *d = srv;
	char fbuf[64];

	log_info("demo: server drew %llu frames; vncfb received %llu updates "
		 "and drew them on %s %ux%u %s",
		 (unsigned long long)demo_frames(d),
		 (unsigned long long)updates, out->impl->name, out->width,
		 out->height, pixfmt_name(&out->fmt, fbuf, sizeof(fbuf)));
}

static void demo_stop(void *srv)
{
	struct demo *d = srv;

	if (!d)
		return;
#ifdef VNCFB_HAVE_H264
	if (d->h264) {
		demo_h264_stop(d->h264);
		free(d);
		return;
	}
#endif
	atomic_store(&d->stop, true);
	pthread_join(d->animator, NULL);
	rfbShutdownServer(d->screen, TRUE);
	rfbScreenCleanup(d->screen);
	free(d->fb);
	free(d);
}

const struct session_server demo_server = {
	.start = demo_start,
	.report = demo_report,
	.stop = demo_stop,
};
