/* Seed corpus generator: records what a libvncserver server sends to a
 * client that asks for one encoding (plus cursor shapes, bell, cut text,
 * CopyRect and a desktop resize), and writes it as a fuzz input: one
 * format byte (see harness.h), then the server's bytes.
 *
 * The server runs in inetd mode on one end of a socketpair; this program
 * plays the client on the other end with hand-written RFB messages, so no
 * port is used. Run by hand to refresh tests/fuzz/corpus (see
 * doc/testing.md); the output is committed. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rfb/rfb.h>

#define W 64
#define H 48

struct rec {
	uint8_t *buf;
	size_t len, cap;
};

struct recipe {
	const char *name;
	int fmt;		/* harness format byte: 0 xrgb8888, 1 rgb565 */
	int32_t encs[12];	/* terminated by 0x7fffffff */
};

#define END 0x7fffffff
/* Pseudo-encodings every recipe adds. */
static const int32_t pseudo[] = {
	rfbEncodingRichCursor, rfbEncodingPointerPos, rfbEncodingNewFBSize,
	rfbEncodingLastRect,   rfbEncodingKeyboardLedState,
};

static const struct recipe recipes[] = {
	{ "raw-32", 0, { rfbEncodingRaw, END } },
	{ "raw-16", 1, { rfbEncodingRaw, END } },
	{ "copyrect-32", 0, { rfbEncodingCopyRect, rfbEncodingRaw, END } },
	{ "rre-32", 0, { rfbEncodingRRE, END } },
	{ "corre-32", 0, { rfbEncodingCoRRE, END } },
	{ "hextile-32", 0, { rfbEncodingHextile, END } },
	{ "hextile-16", 1, { rfbEncodingHextile, END } },
	{ "zlib-32", 0, { rfbEncodingZlib, END } },
	{ "zlib-16", 1, { rfbEncodingZlib, END } },
	{ "tight-32", 0, { rfbEncodingTight, rfbEncodingCompressLevel6, END } },
	{ "tight-16", 1, { rfbEncodingTight, rfbEncodingCompressLevel1, END } },
	{ "tight-jpeg-32", 0,
	  { rfbEncodingTight, rfbEncodingQualityLevel5, END } },
	{ "zrle-32", 0, { rfbEncodingZRLE, END } },
	{ "zrle-16", 1, { rfbEncodingZRLE, END } },
	{ "zywrle-32", 0,
	  { rfbEncodingZYWRLE, rfbEncodingQualityLevel3, END } },
	{ "ultra-32", 0, { rfbEncodingUltra, END } },
	{ "xcursor-32", 0, { rfbEncodingRaw, rfbEncodingXCursor, END } },
};

static void die(const char *what)
{
	fprintf(stderr, "seedgen: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void put(int fd, const void *p, size_t n)
{
	if (write(fd, p, n) != (ssize_t)n)
		die("write");
}

/* Let the server handle what the client sent and collect its answer. */
static void pump(rfbScreenInfoPtr s, int fd, struct rec *r)
{
	int idle = 0;

	while (idle < 3) {
		uint8_t buf[65536];
		ssize_t k;

		rfbProcessEvents(s, 20000);
		k = read(fd, buf, sizeof(buf));
		if (k > 0) {
			if (r->len + (size_t)k > r->cap) {
				r->cap = (r->len + (size_t)k) * 2;
				r->buf = realloc(r->buf, r->cap);
				if (!r->buf)
					die("realloc");
			}
			memcpy(r->buf + r->len, buf, (size_t)k);
			r->len += (size_t)k;
			idle = 0;
		} else {
			idle++;
		}
	}
}

static void draw(uint8_t *fb, int w, int h, int phase)
{
	int x, y;

	for (y = 0; y < h; y++)
		for (x = 0; x < w; x++) {
			uint8_t *p = fb + ((size_t)y * w + x) * 4;

			if (y < h / 2) {	/* gradient: JPEG, zywrle */
				p[0] = (uint8_t)(x * 4 + phase);
				p[1] = (uint8_t)(y * 8);
				p[2] = (uint8_t)(255 - x * 4);
			} else if (x < w / 2) {	/* solid blocks: rre, hextile */
				p[0] = (x / 8 + y / 8) & 1 ? 200 : 20;
				p[1] = (uint8_t)(phase * 3);
				p[2] = 90;
			} else {		/* text-like: palette tiles */
				int on = ((x * 7 + y * 3 + phase) % 5) == 0;

				p[0] = on ? 255 : 0;
				p[1] = on ? 255 : 0;
				p[2] = on ? 255 : 0;
			}
			p[3] = 0;
		}
}

/* The SetPixelFormat body for recipe format fmt: bpp, depth, big-endian,
 * true-colour, the three maxima (16-bit, big-endian), the three shifts,
 * padding. */
static void client_format(uint8_t *pf, int fmt)
{
	static const uint8_t formats[2][16] = {
	    {32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 16, 8, 0}, /* xrgb8888 */
	    {16, 16, 0, 1, 0, 31, 0, 63, 0, 31, 11, 5, 0},    /* rgb565 */
	};

	memcpy(pf, formats[fmt == 1], 16);
}

static void send_request(int fd, int incremental, int w, int h)
{
	uint8_t m[10] = { rfbFramebufferUpdateRequest, (uint8_t)incremental,
			  0, 0, 0, 0, (uint8_t)(w >> 8), (uint8_t)w,
			  (uint8_t)(h >> 8), (uint8_t)h };

	put(fd, m, sizeof(m));
}

static void quiet(const char *fmt, ...)
{
}

static void record(const struct recipe *rc, const char *dir)
{
	static const char *cur_src = "  xx    "
				     " xxxx   "
				     "xxxxxx  "
				     "  xx    "
				     "  xx    ";
	static const char *cur_mask = " xxxx   "
				      "xxxxxx  "
				      "xxxxxxx "
				      " xxxx   "
				      " xxxx   ";
	uint8_t *fb = calloc(W * H, 4), *fb2 = calloc(40 * 30, 4);
	rfbScreenInfoPtr s;
	rfbCursorPtr cur;
	struct rec r = { 0 };
	uint8_t msg[256];
	int sv[2], argc = 0, n = 0, i;
	char path[512];
	FILE *f;

	if (!fb || !fb2)
		die("calloc");
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
		die("socketpair");
	fcntl(sv[1], F_SETFL, O_NONBLOCK);
	draw(fb, W, H, 0);
	s = rfbGetScreen(&argc, NULL, W, H, 8, 3, 4);
	s->frameBuffer = (char *)fb;
	s->desktopName = "vncfb seed";
	s->inetdSock = sv[0];
	s->port = 0;
	s->ipv6port = 0;
	s->httpDir = NULL;
	rfbInitServer(s);

	/* Handshake: version, security None, shared, then format and
	 * encodings. */
	put(sv[1], "RFB 003.008\n", 12);
	pump(s, sv[1], &r);
	msg[0] = rfbNoAuth;
	put(sv[1], msg, 1);
	pump(s, sv[1], &r);
	msg[0] = 1;
	put(sv[1], msg, 1);
	pump(s, sv[1], &r);
	memset(msg, 0, sizeof(msg));
	msg[0] = rfbSetPixelFormat;
	client_format(msg + 4, rc->fmt);
	put(sv[1], msg, 20);
	msg[0] = rfbSetEncodings;
	msg[1] = 0;
	for (i = 0; rc->encs[i] != END; i++, n++) {
		uint32_t e = (uint32_t)rc->encs[i];

		msg[4 + n * 4] = (uint8_t)(e >> 24);
		msg[5 + n * 4] = (uint8_t)(e >> 16);
		msg[6 + n * 4] = (uint8_t)(e >> 8);
		msg[7 + n * 4] = (uint8_t)e;
	}
	for (i = 0; i < (int)(sizeof(pseudo) / sizeof(pseudo[0])); i++, n++) {
		uint32_t e = (uint32_t)pseudo[i];

		msg[4 + n * 4] = (uint8_t)(e >> 24);
		msg[5 + n * 4] = (uint8_t)(e >> 16);
		msg[6 + n * 4] = (uint8_t)(e >> 8);
		msg[7 + n * 4] = (uint8_t)e;
	}
	msg[2] = (uint8_t)(n >> 8);
	msg[3] = (uint8_t)n;
	put(sv[1], msg, 4 + (size_t)n * 4);
	send_request(sv[1], 0, W, H);
	pump(s, sv[1], &r);

	/* A cursor, a change, a CopyRect, bell and cut text. */
	cur = rfbMakeXCursor(8, 5, (char *)cur_src, (char *)cur_mask);
	cur->xhot = 2;
	cur->yhot = 1;
	rfbSetCursor(s, cur);
	draw(fb, W, H, 7);
	rfbMarkRectAsModified(s, 0, 0, W, H / 2 + 8);
	send_request(sv[1], 1, W, H);
	pump(s, sv[1], &r);
	rfbDoCopyRect(s, 8, 30, 40, 46, 4, -6);
	send_request(sv[1], 1, W, H);
	pump(s, sv[1], &r);
	rfbSendBell(s);
	rfbSendServerCutText(s, "vncfb seed clipboard", 20);
	pump(s, sv[1], &r);

	/* A smaller desktop, then a full update of it. */
	draw(fb2, 40, 30, 3);
	rfbNewFramebuffer(s, (char *)fb2, 40, 30, 8, 3, 4);
	send_request(sv[1], 1, 40, 30);
	pump(s, sv[1], &r);
	send_request(sv[1], 0, 40, 30);
	pump(s, sv[1], &r);

	snprintf(path, sizeof(path), "%s/%s", dir, rc->name);
	f = fopen(path, "wb");
	if (!f)
		die(path);
	msg[0] = (uint8_t)rc->fmt;
	if (fwrite(msg, 1, 1, f) != 1 || fwrite(r.buf, 1, r.len, f) != r.len ||
	    fclose(f) != 0)
		die(path);
	printf("%-16s %6zu bytes\n", rc->name, r.len + 1);

	rfbShutdownServer(s, TRUE);
	close(sv[1]);
	rfbScreenCleanup(s);
	free(r.buf);
	free(fb);
	free(fb2);
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc != 2) {
		fprintf(stderr, "usage: seedgen OUTDIR\n");
		return 2;
	}
	rfbLog = quiet;
	rfbErr = quiet;
	for (i = 0; i < sizeof(recipes) / sizeof(recipes[0]); i++)
		record(&recipes[i], argv[1]);
	return 0;
}
