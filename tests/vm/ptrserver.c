/* A VNC server for the pointer tests of the console: it logs every
 * PointerEvent with all nine buttons, which testserver.c (libvncserver)
 * cannot. libvncserver 0.9.14 reads every PointerEvent as 6 bytes, so
 * ExtendedMouseButtons' 7-byte form would put it out of step with the
 * stream; this server speaks RFB itself (client/tools/demo/rfbmini.h).
 * Not part of vncfb.
 *
 *   ptrserver [--size WxH] [--ext]
 *
 * It listens on 127.0.0.1 at a free port, prints "READY <port>", takes
 * one client, answers its first FramebufferUpdateRequest with a grey
 * desktop (raw) and prints "SENT"; later requests get no answer (the
 * picture never changes). With --ext, and a client that offers
 * ExtendedMouseButtons (-316), that first update also confirms it (a
 * pseudo-rectangle of -316: "EXTMOUSE confirmed"), and from then on a
 * PointerEvent with bit 7 set is read in the 7-byte form. Without --ext
 * every PointerEvent is read as 6 bytes and its mask logged as sent, bit
 * 7 included, so a client that sent the extended form anyway shows up
 * (a mask of 128 or more, and its extra byte read as a message).
 *
 * Lines: "READY <port>", "OFFERED extmouse yes|no" at each
 * SetEncodings, "EXTMOUSE confirmed", "SENT", "PTR <x> <y> <mask>" (bit
 * N-1 for button N), "KEY <down> 0x<keysym>", "GONE" (the client went,
 * or sent a message type it does not know). */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "testlib.h"
#include "tools/demo/rfbmini.h"
#include "util/be.h"

static int listen_any(void)
{
	int port = 0, ls = testlib_listen(false, &port);

	if (ls < 0) {
		fprintf(stderr, "ptrserver: listen: %s\n", strerror(-ls));
		exit(1);
	}
	printf("READY %d\n", port);
	return ls;
}

/* The first update: the confirmation (with ext) and the picture. */
static int first_update(int fd, int w, int h, bool ext)
{
	size_t row = (size_t)w * 4, n = (size_t)h * row;
	uint8_t hd[4 + 12 + 12];
	uint8_t *pix = malloc(n);
	size_t k = 4;
	int r;

	if (!pix)
		return -1;
	memset(pix, 0x80, n);
	hd[0] = 0;
	hd[1] = 0;
	be16_put(hd + 2, ext ? 2 : 1);
	if (ext) {
		rfbmini_rect(hd + k, 0, 0, 0, 0, RFBMINI_ENC_EXT_MOUSE);
		k += 12;
	}
	rfbmini_rect(hd + k, 0, 0, w, h, 0);
	k += 12;
	r = rfbmini_put(fd, hd, k) < 0 || rfbmini_put(fd, pix, n) < 0 ? -1 : 0;
	free(pix);
	return r;
}

static void serve(int fd, int w, int h, bool want_ext)
{
	struct rfbmini_in in = {0};
	bool sent = false;

	if (rfbmini_handshake(fd, w, h, "ptrserver", NULL) < 0)
		return;
	for (;;) {
		int r = rfbmini_msg(fd, &in, NULL);

		if (r < 0)
			break;
		if (r == 0 && !sent)
			printf("OFFERED extmouse %s\n",
			       in.ext_mouse ? "yes" : "no");
		if (r == 2)
			printf("PTR %d %d %u\n", in.x, in.y,
			       (unsigned)in.buttons);
		if (r == 3)
			printf("KEY %d 0x%x\n", in.key_down ? 1 : 0,
			       (unsigned)in.keysym);
		if (r == 1 && !sent) {
			bool ext = want_ext && in.ext_mouse;

			if (first_update(fd, w, h, ext) < 0)
				break;
			if (ext) {
				in.ext_confirmed = true;
				printf("EXTMOUSE confirmed\n");
			}
			printf("SENT\n");
			sent = true;
		}
	}
}

int main(int argc, char **argv)
{
	int w = 1024, h = 768, ls, fd;
	bool ext = false;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--ext")) {
			ext = true;
		} else if (!strcmp(argv[i], "--size") && i + 1 < argc &&
			   sscanf(argv[++i], "%dx%d", &w, &h) == 2 && w > 0 &&
			   h > 0 && w <= 4096 && h <= 4096) {
		} else {
			fprintf(stderr,
				"usage: ptrserver [--size WxH] [--ext]\n");
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	ls = listen_any();
	fd = accept(ls, NULL, NULL);
	if (fd < 0) {
		perror("ptrserver: accept");
		return 1;
	}
	serve(fd, w, h, ext);
	printf("GONE\n");
	close(fd);
	close(ls);
	return 0;
}
