/* A VNC server for the console tests: a fixed test picture (exactly
 * representable at the depth asked for), every key and pointer event
 * logged on stdout, on 127.0.0.1 at a free port ("READY <port>").
 *
 *   testserver [--size WxH] [--depth 15|16|24] [--cursor] [--qemu-keys]
 *              [--resize] [--dump FILE.ppm]
 *
 * Lines: "READY <port>", "SENT" after the first framebuffer update,
 * "KEY <down> 0x<keysym>", "PTR <x> <y> <mask>", with --qemu-keys (QEMU
 * extended key events offered, as QEMU's own server does) "XKEY <down>
 * 0x<keysym> 0x<xt code>" for those, "GONE" when the client
 * leaves. --resize honours a client's SetDesktopSize (the picture drawn
 * anew at that size, "SETDESKTOPSIZE <w>x<h>" then "RESIZED <w>x<h>");
 * without it the answer is libvncserver's "prohibited". --dump writes
 * the picture and exits (the test's reference: the picture as QEMU's
 * screendump of the guest shows it). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <rfb/rfb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int depth = 24;
static int sent_once;
static int clients;

/* Channel value v kept to what a bits-wide channel reproduces exactly
 * (bit replication, which is how QEMU and vncfb expand). */
static unsigned quant(unsigned v, unsigned bits)
{
	unsigned a = v >> (8 - bits);

	return ((a << (8 - bits)) | (a >> (2 * bits - 8))) & 0xff;
}

static void pattern(int x, int y, int w, int h, unsigned char *rgb)
{
	static const unsigned char bars[8][3] = {
	    {255, 255, 255}, {255, 255, 0}, {0, 255, 255}, {0, 255, 0},
	    {255, 0, 255},   {255, 0, 0},   {0, 0, 255},   {0, 0, 0},
	};
	unsigned r, g, b;

	if (y < h / 3) {
		const unsigned char *c = bars[(x * 8) / w];

		r = c[0];
		g = c[1];
		b = c[2];
	} else if (y < 2 * h / 3) {
		/* Ramps: every channel value appears. */
		unsigned v = (unsigned)(x * 256 / w);
		int band = (y - h / 3) * 4 / (h / 3 + 1);

		r = band == 0 || band == 3 ? v : 0;
		g = band == 1 || band == 3 ? v : 0;
		b = band == 2 || band == 3 ? v : 0;
	} else {
		/* Texture that differs from pixel to pixel, so an offset or
		 * stride error cannot hide. */
		r = (unsigned)(x ^ y) & 0xff;
		g = (unsigned)(x * 3 + y * 5) & 0xff;
		b = (unsigned)(x * y) & 0xff;
	}
	if (depth == 15 || depth == 16) {
		r = quant(r, 5);
		g = quant(g, depth == 16 ? 6 : 5);
		b = quant(b, 5);
	}
	rgb[0] = (unsigned char)r;
	rgb[1] = (unsigned char)g;
	rgb[2] = (unsigned char)b;
}

static int dump(const char *path, int w, int h)
{
	FILE *f = fopen(path, "wb");
	unsigned char rgb[3];
	int x, y;

	if (!f) {
		fprintf(stderr, "testserver: %s: %s\n", path, strerror(errno));
		return 1;
	}
	fprintf(f, "P6\n%d %d\n255\n", w, h);
	for (y = 0; y < h; y++)
		for (x = 0; x < w; x++) {
			pattern(x, y, w, h, rgb);
			/* As QEMU's screendump shows it: its VGA draws 15 bpp
			 * lines itself with the low bits zero (31 is 248),
			 * where 16 bpp is a shared surface that expands by
			 * replication. */
			if (depth == 15) {
				rgb[0] &= 0xf8;
				rgb[1] &= 0xf8;
				rgb[2] &= 0xf8;
			}
			fwrite(rgb, 1, 3, f);
		}
	return fclose(f) == 0 ? 0 : 1;
}

/* The picture at w x h into fb (4 bytes a pixel, as the screen's). */
static void fill(char *fb, int w, int h)
{
	unsigned char rgb[3];
	int x, y;

	for (y = 0; y < h; y++)
		for (x = 0; x < w; x++) {
			unsigned char *p =
			    (unsigned char *)fb + ((size_t)y * w + x) * 4;

			pattern(x, y, w, h, rgb);
			p[0] = rgb[0];
			p[1] = rgb[1];
			p[2] = rgb[2];
			p[3] = 0;
		}
}

/* --resize: the desktop becomes what the client asks for. */
static int on_set_desktop_size(int w, int h, int n,
			       struct rfbExtDesktopScreen *scr, rfbClientPtr cl)
{
	char *old = cl->screen->frameBuffer, *fb;

	printf("SETDESKTOPSIZE %dx%d\n", w, h);
	fflush(stdout);
	if (w < 8 || h < 8 || w > 4096 || h > 4096)
		return rfbExtDesktopSize_OutOfResources;
	fb = malloc((size_t)w * h * 4);
	if (!fb)
		return rfbExtDesktopSize_OutOfResources;
	fill(fb, w, h);
	rfbNewFramebuffer(cl->screen, fb, w, h, 8, 3, 4);
	free(old);
	printf("RESIZED %dx%d\n", w, h);
	fflush(stdout);
	return rfbExtDesktopSize_Success;
}

static void on_key(rfbBool down, rfbKeySym sym, rfbClientPtr cl)
{
	printf("KEY %d 0x%lx\n", down ? 1 : 0, (unsigned long)sym);
	fflush(stdout);
}

static void on_ptr(int mask, int x, int y, rfbClientPtr cl)
{
	printf("PTR %d %d %d\n", x, y, mask);
	fflush(stdout);
	rfbDefaultPtrAddEvent(mask, x, y, cl);
}

/* QEMU extended key events: a client that asks for the pseudo-encoding
 * gets QEMU's answer, a FramebufferUpdate with one rectangle of that
 * encoding, and may then send rfbQemuEvent messages (libvncserver 0.9.14
 * knows neither: a protocol extension does both). */
static int qemu_encodings[] = {(int)rfbEncodingQemuExtendedKeyEvent, 0};

static rfbBool qemu_enable(rfbClientPtr cl, void **data, int enc)
{
	struct {
		rfbFramebufferUpdateMsg m;
		rfbFramebufferUpdateRectHeader r;
	} ack;

	if (enc != (int)rfbEncodingQemuExtendedKeyEvent)
		return FALSE;
	memset(&ack, 0, sizeof(ack));
	ack.m.type = rfbFramebufferUpdate;
	ack.m.nRects = Swap16IfLE(1);
	ack.r.encoding = Swap32IfLE(rfbEncodingQemuExtendedKeyEvent);
	return rfbWriteExact(cl, (char *)&ack,
			     sz_rfbFramebufferUpdateMsg +
				 sz_rfbFramebufferUpdateRectHeader) == 1;
}

static rfbBool qemu_message(rfbClientPtr cl, void *data,
			    const rfbClientToServerMsg *msg)
{
	rfbQemuExtendedKeyEventMsg k;

	if (msg->type != rfbQemuEvent)
		return FALSE;
	k.type = msg->type;
	if (rfbReadExact(cl, (char *)&k + 1,
			 sz_rfbQemuExtendedKeyEventMsg - 1) <= 0) {
		rfbCloseClient(cl);
		return TRUE;
	}
	if (k.subtype == 0) {
		printf("XKEY %d 0x%lx 0x%lx\n", Swap16IfLE(k.down) ? 1 : 0,
		       (unsigned long)Swap32IfLE(k.keysym),
		       (unsigned long)Swap32IfLE(k.keycode));
		fflush(stdout);
	}
	return TRUE;
}

static rfbProtocolExtension qemu_keys = {
    .pseudoEncodings = qemu_encodings,
    .enablePseudoEncoding = qemu_enable,
    .handleMessage = qemu_message,
};

static void on_sent(rfbClientPtr cl, int result)
{
	if (!sent_once && result) {
		sent_once = 1;
		printf("SENT\n");
		fflush(stdout);
	}
}

static void on_gone(rfbClientPtr cl)
{
	clients--;
	sent_once = 0;
	printf("GONE\n");
	fflush(stdout);
}

static enum rfbNewClientAction on_new(rfbClientPtr cl)
{
	clients++;
	cl->clientGoneHook = on_gone;
	return RFB_CLIENT_ACCEPT;
}

static void usage(void)
{
	fprintf(stderr, "usage: testserver [--size WxH] [--depth 15|16|24] "
			"[--cursor] [--qemu-keys] [--resize] [--dump "
			"FILE.ppm]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	/* 8x8, hot spot 0,0: an arrow-ish shape with transparent holes. */
	static char src[] = "xxxxxxxx"
			    "xxxxxxx "
			    "xxxxxx  "
			    "xxxxx   "
			    "xxxx    "
			    "xxx     "
			    "xx      "
			    "x       ";
	int w = 1024, h = 768, i, lsock, one = 1, cursor = 0, resize = 0;
	const char *dump_path = NULL;
	struct sockaddr_in sa;
	socklen_t slen = sizeof(sa);
	rfbScreenInfoPtr s;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--size") && i + 1 < argc) {
			if (sscanf(argv[++i], "%dx%d", &w, &h) != 2 || w < 8 ||
			    h < 8 || w > 4096 || h > 4096)
				usage();
		} else if (!strcmp(argv[i], "--depth") && i + 1 < argc) {
			depth = atoi(argv[++i]);
			if (depth != 15 && depth != 16 && depth != 24)
				usage();
		} else if (!strcmp(argv[i], "--dump") && i + 1 < argc) {
			dump_path = argv[++i];
		} else if (!strcmp(argv[i], "--cursor")) {
			cursor = 1;
		} else if (!strcmp(argv[i], "--resize")) {
			resize = 1;
		} else if (!strcmp(argv[i], "--qemu-keys")) {
			rfbRegisterProtocolExtension(&qemu_keys);
		} else {
			usage();
		}
	}
	if (dump_path)
		return dump(dump_path, w, h);
	signal(SIGPIPE, SIG_IGN);
	rfbLogEnable(0);
	s = rfbGetScreen(&argc, argv, w, h, 8, 3, 4);
	if (!s)
		return 1;
	s->frameBuffer = malloc((size_t)w * h * 4);
	if (!s->frameBuffer)
		return 1;
	fill(s->frameBuffer, w, h);
	if (resize)
		s->setDesktopSizeHook = on_set_desktop_size;
	s->desktopName = "vncfb console test";
	s->kbdAddEvent = on_key;
	s->ptrAddEvent = on_ptr;
	s->displayFinishedHook = on_sent;
	s->newClientHook = on_new;
	s->autoPort = FALSE;
	s->port = 0;
	s->ipv6port = 0;
	s->alwaysShared = TRUE;
	if (cursor) {
		/* Solid red where the mask is set. The pixels are given in the
		 * server's format: libvncserver 0.9.14 turns 16-bit X cursor
		 * colours into rich pixels without scaling them. */
		rfbCursorPtr c = rfbMakeXCursor(8, 8, src, src);
		uint32_t *rich = calloc(64, 4);

		for (i = 0; i < 64; i++)
			rich[i] = 0xffu << s->serverFormat.redShift;
		c->richSource = (unsigned char *)rich;
		c->cleanupRichSource = TRUE;
		c->xhot = 0;
		c->yhot = 0;
		rfbSetCursor(s, c);
	} else {
		/* No cursor at all: the picture stays exactly the pattern
		 * whether or not the client draws cursors. */
		s->cursor = NULL;
	}
	rfbInitServer(s);

	lsock = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	setsockopt(lsock, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (lsock < 0 || bind(lsock, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(lsock, 4) < 0 ||
	    getsockname(lsock, (struct sockaddr *)&sa, &slen) < 0) {
		perror("testserver: listen on 127.0.0.1");
		return 1;
	}
	printf("READY %d\n", ntohs(sa.sin_port));
	fflush(stdout);
	for (;;) {
		struct pollfd pfd = {lsock, POLLIN, 0};

		if (poll(&pfd, 1, 0) > 0) {
			int c = accept4(lsock, NULL, NULL, SOCK_CLOEXEC);

			if (c >= 0)
				rfbNewClient(s, c);
		}
		rfbProcessEvents(s, 20000);
	}
}
