/* The test server's Open H.264 sibling: an RFB 3.8 server (no security)
 * on loopback that sends its animation as Open H.264 rectangles encoded
 * by libavcodec (client/tools/demo/h264enc.h, the demo's). Not part of
 * vncfb.
 *
 * libvncserver 0.9.14 cannot be the base: it has no H.264, no hook for an
 * encoding of its own and hands extensions only the messages it does not
 * know, so this server speaks the little RFB it needs itself (the demo's
 * client/tools/demo/rfbmini.h).
 *
 * usage: h264server [--size WxH] [--timeout SECS] [--fps N]
 *
 * It prints "READY <port>" once a client can connect (one client at a
 * time). Every FramebufferUpdateRequest is answered with the next frame
 * of the animation (at most --fps a second, default 30) as one Open
 * H.264 rectangle of the whole desktop, the first an IDR frame; a client
 * that did not offer encoding 50 gets raw rectangles.
 *
 * Commands, one per line on stdin:
 *   pause | play      stop the animation (requests get the same frame
 *                     again as an empty update) or go on
 *   dump FILE         the last frame sent, as binary PPM: "DUMPED FILE"
 *   stats             "STATS h264 <rects>", "STATS raw <rects>",
 *                     "STATS end"
 *   reset             the next frame with ResetContext, from a new
 *                     encoder (its own SPS, an IDR frame)
 *   resetall          a control rectangle (length 0, ResetAllContexts)
 *                     first, then a new encoder as for reset
 *   contexts N        next update: N tiles of 16x16 (N <= the desktop's
 *                     tiles), each its own context and IDR frame, then
 *                     the last tile again (a P frame): "CONTEXTS N";
 *                     the next frame then starts a new stream (reset)
 *   big               from now on, frames 16 pixels wider and taller
 *                     than the desktop (the client crops them)
 *   small             the next frame 16 pixels narrower than its
 *                     rectangle (a bad stream)
 *   cut               the next rectangle stops half-way through its
 *                     data and the connection is closed
 *   quit              leave (also on end of input)
 * and it prints "CLIENT connected", "CLIENT gone", "FRAME <n>" every 30
 * frames sent. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "config.h"

#include "testlib.h"
#include "tools/demo/h264enc.h"
#include "tools/demo/rfbmini.h"
#include "util/be.h"
#include "../h264scene.h"

#define ENC_H264 RFBMINI_ENC_H264
#define TILE 16

static int W = 320, H = 240, fps = 30;
static uint8_t *cur; /* the last frame sent, R,G,B */
static uint8_t *big; /* the frame encoded, when larger */
static struct h264enc *enc;
static int enc_w, enc_h;
static unsigned long frame_no, n_h264, n_raw;
static bool paused, want_big, want_small, want_cut, want_reset, want_resetall;
static int want_contexts;
static bool h264_ok;

static int fbu_hdr(int fd, unsigned n)
{
	uint8_t b[4] = {0, 0, 0, 0};

	be16_put(b + 2, n);
	return rfbmini_put(fd, b, 4);
}

static int h264_rect(int fd, int x, int y, int w, int h, uint32_t flags,
		     const uint8_t *data, size_t len, bool cut)
{
	uint8_t b[20];

	rfbmini_rect(b, x, y, w, h, ENC_H264);
	be32_put(b + 12, (uint32_t)len);
	be32_put(b + 16, flags);
	if (rfbmini_put(fd, b, 20) < 0 ||
	    rfbmini_put(fd, data, cut ? len / 2 : len) < 0)
		return -1;
	n_h264++;
	return cut ? -1 : 0;
}

static int new_encoder(int w, int h)
{
	h264enc_destroy(enc);
	enc = h264enc_create(w, h, 20);
	enc_w = w;
	enc_h = h;
	if (!enc)
		return -1;
	return 0;
}

/* N tiles, each a context of its own, then tile 0 again. */
static int send_contexts(int fd, int n)
{
	int cols = W / TILE, max = cols * (H / TILE);
	uint8_t *rgb = malloc(TILE * TILE * 3);
	struct h264enc *first = NULL;
	const uint8_t *d;
	size_t len;
	int ret = 0;

	if (n > max)
		n = max;
	if (fbu_hdr(fd, (unsigned)n + 1) < 0)
		ret = -1;
	for (int i = 0; i < n && ret == 0; i++) {
		struct h264enc *e = h264enc_create(TILE, TILE, 20);
		int tx = (i % cols) * TILE, ty = (i / cols) * TILE;

		for (int y = 0; y < TILE; y++)
			memcpy(rgb + (size_t)y * TILE * 3,
			       cur + ((size_t)(ty + y) * W + tx) * 3, TILE * 3);
		if (!e || h264enc_frame(e, rgb, TILE * 3, true, &d, &len) < 0 ||
		    h264_rect(fd, tx, ty, TILE, TILE, 0, d, len, false) < 0)
			ret = -1;
		h264enc_destroy(first);
		first = e;
	}
	/* The last tile again from its encoder: a P frame on its context,
	 * which the client must have kept (the most recent). */
	if (ret == 0 && first) {
		int tx = ((n - 1) % cols) * TILE, ty = ((n - 1) / cols) * TILE;

		for (int y = 0; y < TILE; y++)
			memcpy(rgb + (size_t)y * TILE * 3,
			       cur + ((size_t)(ty + y) * W + tx) * 3, TILE * 3);
		if (h264enc_frame(first, rgb, TILE * 3, false, &d, &len) < 0 ||
		    h264_rect(fd, tx, ty, TILE, TILE, 0, d, len, false) < 0)
			ret = -1;
	}
	h264enc_destroy(first);
	free(rgb);
	/* The desktop's own context may have been evicted: a new stream. */
	want_reset = true;
	printf("CONTEXTS %d\n", n);
	return ret;
}

static int send_raw(int fd)
{
	uint8_t b[12];
	uint8_t *row = malloc((size_t)W * 4);
	int ret = 0;

	if (fbu_hdr(fd, 1) < 0)
		ret = -1;
	rfbmini_rect(b, 0, 0, W, H, 0);
	if (ret == 0 && rfbmini_put(fd, b, 12) < 0)
		ret = -1;
	/* The client's format is not tracked: this server announces
	 * xrgb8888 little-endian and vncfb's shadow is that on mem. */
	for (int y = 0; y < H && ret == 0; y++) {
		for (int x = 0; x < W; x++) {
			const uint8_t *p = cur + ((size_t)y * W + x) * 3;

			row[x * 4] = p[2];
			row[x * 4 + 1] = p[1];
			row[x * 4 + 2] = p[0];
			row[x * 4 + 3] = 0;
		}
		ret = rfbmini_put(fd, row, (size_t)W * 4);
	}
	free(row);
	n_raw++;
	return ret;
}

/* The next frame, as the commands asked. */
static int send_frame(int fd, bool first)
{
	int ew = want_big ? W + 16 : W, eh = want_big ? H + 16 : H;
	uint32_t flags = 0;
	const uint8_t *d;
	size_t len;
	bool idr = first;

	if (want_contexts) {
		int n = want_contexts;

		want_contexts = 0;
		return send_contexts(fd, n);
	}
	if (!h264_ok)
		return send_raw(fd);
	if (want_small)
		ew = W - 16;
	if (!enc || ew != enc_w || eh != enc_h || want_reset || want_resetall) {
		if (new_encoder(ew, eh) < 0)
			return -1;
		idr = true;
		flags = want_reset ? 1 : 0;
		if (!first && !want_reset && !want_resetall)
			flags = 1; /* a new size: a new stream */
	}
	h264scene_frame(big, ew, eh, frame_no);
	if (h264enc_frame(enc, big, (size_t)ew * 3, idr, &d, &len) < 0)
		return -1;
	/* What the client should show: the top-left W x H. */
	for (int y = 0; y < H && y < eh; y++)
		memcpy(cur + (size_t)y * W * 3, big + (size_t)y * ew * 3,
		       (size_t)(ew < W ? ew : W) * 3);
	if (fbu_hdr(fd, want_resetall ? 2 : 1) < 0)
		return -1;
	if (want_resetall) {
		uint8_t b[20];

		rfbmini_rect(b, 0, 0, W, H, ENC_H264);
		be32_put(b + 12, 0);
		be32_put(b + 16, 2);
		if (rfbmini_put(fd, b, 20) < 0)
			return -1;
	}
	want_reset = want_resetall = want_small = false;
	if (h264_rect(fd, 0, 0, W, H, flags, d, len, want_cut) < 0)
		return -1;
	frame_no++;
	if (frame_no % 30 == 0)
		printf("FRAME %lu\n", frame_no);
	return 0;
}

static void dump(const char *path)
{
	if (testlib_ppm_write(path, W, H, cur) < 0) {
		printf("ERROR cannot write %s\n", path);
		return;
	}
	printf("DUMPED %s\n", path);
}

/* A command line: 1 to quit. */
static int command(char *line)
{
	char arg[512];
	int n;

	line[strcspn(line, "\r\n")] = '\0';
	if (!strcmp(line, "quit"))
		return 1;
	if (!strcmp(line, "pause"))
		paused = true;
	else if (!strcmp(line, "play"))
		paused = false;
	else if (!strcmp(line, "reset"))
		want_reset = true;
	else if (!strcmp(line, "resetall"))
		want_resetall = true;
	else if (!strcmp(line, "big"))
		want_big = true;
	else if (!strcmp(line, "small"))
		want_small = true;
	else if (!strcmp(line, "cut"))
		want_cut = true;
	else if (sscanf(line, "contexts %d", &n) == 1 && n > 0)
		want_contexts = n;
	else if (sscanf(line, "dump %511s", arg) == 1)
		dump(arg);
	else if (!strcmp(line, "stats"))
		printf("STATS h264 %lu\nSTATS raw %lu\nSTATS end\n", n_h264,
		       n_raw);
	else
		printf("ERROR unknown command: %s\n", line);
	return 0;
}

/* Every whole line stdin has (not stdio: poll must see what is left):
 * 1 to quit (also at the end of input). */
static int commands(void)
{
	static char buf[4096];
	static size_t have;
	ssize_t k = read(0, buf + have, sizeof(buf) - 1 - have);
	char *nl;

	if (k <= 0)
		return 1;
	have += (size_t)k;
	buf[have] = '\0';
	while ((nl = strchr(buf, '\n'))) {
		*nl = '\0';
		if (command(buf))
			return 1;
		have -= (size_t)(nl + 1 - buf);
		memmove(buf, nl + 1, have + 1);
	}
	if (have == sizeof(buf) - 1)
		have = 0; /* a line too long: dropped */
	return 0;
}

int main(int argc, char **argv)
{
	double timeout = 300, start = testlib_now();
	int ls, port = 0, one = 1;
	bool quit = false;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--size") && i + 1 < argc &&
		    sscanf(argv[i + 1], "%dx%d", &W, &H) == 2)
			i++;
		else if (!strcmp(argv[i], "--timeout") && i + 1 < argc)
			timeout = atof(argv[++i]);
		else if (!strcmp(argv[i], "--fps") && i + 1 < argc)
			fps = atoi(argv[++i]);
		else {
			fprintf(stderr, "usage: h264server [--size WxH] "
					"[--timeout SECS] [--fps N]\n");
			return 2;
		}
	}
	if (W < 32 || H < 32 || W % 2 || H % 2 || W > 4096 || H > 4096 ||
	    fps < 1) {
		fprintf(stderr, "h264server: bad size or fps\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	cur = calloc((size_t)W * H, 3);
	big = calloc((size_t)(W + 16) * (H + 16), 3);
	/* Fails here, before READY, when libavcodec has no encoder. */
	if (!cur || !big || new_encoder(W, H) < 0)
		return 1;
	printf("ENCODER %s\n", h264enc_name(enc));
	ls = testlib_listen(false, &port);
	if (ls < 0) {
		fprintf(stderr, "h264server: listen: %s\n", strerror(-ls));
		return 1;
	}
	printf("READY %d\n", port);
	while (!quit) {
		struct pollfd pf[2] = {{.fd = 0, .events = POLLIN},
				       {.fd = ls, .events = POLLIN}};
		int fd;
		bool first = true, pending = false;
		double next = 0;

		if (timeout > 0 && testlib_now() - start > timeout)
			break;
		if (poll(pf, 2, 500) <= 0)
			continue;
		if (pf[0].revents) {
			if (commands())
				break;
			continue;
		}
		fd = accept(ls, NULL, NULL);
		if (fd < 0)
			continue;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (rfbmini_handshake(fd, W, H, "h264server", NULL) < 0) {
			close(fd);
			continue;
		}
		printf("CLIENT connected\n");
		/* A fresh stream for each client. */
		h264enc_destroy(enc);
		enc = NULL;
		for (;;) {
			struct pollfd cf[2] = {{.fd = 0, .events = POLLIN},
					       {.fd = fd, .events = POLLIN}};
			int wait = 500;

			if (timeout > 0 && testlib_now() - start > timeout) {
				quit = true;
				break;
			}
			if (pending && !paused) {
				double d = next - testlib_now();

				wait = d > 0 ? (int)(d * 1000) + 1 : 0;
			}
			poll(cf, 2, wait);
			if (cf[0].revents) {
				if (commands()) {
					quit = true;
					break;
				}
			}
			if (cf[1].revents) {
				int r = rfbmini_client_msg(fd, &h264_ok, NULL);

				if (r < 0)
					break;
				if (r == 1)
					pending = true;
			}
			if (pending && (first || (!paused && testlib_now() >= next))) {
				bool cut = want_cut;

				if (send_frame(fd, first) < 0 || cut)
					break;
				first = pending = false;
				next = testlib_now() + 1.0 / fps;
			}
		}
		close(fd);
		want_cut = false;
		printf("CLIENT gone\n");
	}
	h264enc_destroy(enc);
	return 0;
}
