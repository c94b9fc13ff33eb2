/* A minimal RFB server side (rfbmini.h). */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tools/demo/rfbmini.h"
#include "util/be.h"

/* How often a waiting read looks at stop. */
#define POLL_MS 50

void rfbmini_rect(uint8_t b[12], int x, int y, int w, int h, int32_t enc)
{
	be16_put(b, (unsigned)x);
	be16_put(b + 2, (unsigned)y);
	be16_put(b + 4, (unsigned)w);
	be16_put(b + 6, (unsigned)h);
	be32_put(b + 8, (uint32_t)enc);
}

/* Move n bytes: send them from out, or (out NULL) read them into in,
 * looking at stop between polls. The one loop both directions share:
 * EINTR retried, a short transfer continued, 0 or an error -1. */
static int rfbmini_xfer(int fd, const uint8_t *out, uint8_t *in, size_t n,
			const atomic_bool *stop)
{
	size_t done = 0;

	while (done < n) {
		ssize_t k;

		if (out) {
			k = send(fd, out + done, n - done, MSG_NOSIGNAL);
		} else {
			struct pollfd pf = {.fd = fd, .events = POLLIN};

			if (stop && atomic_load(stop))
				return -1;
			if (poll(&pf, 1, POLL_MS) == 0)
				continue;
			k = read(fd, in + done, n - done);
		}
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		done += (size_t)k;
	}
	return 0;
}

int rfbmini_put(int fd, const void *p, size_t n)
{
	return rfbmini_xfer(fd, p, NULL, n, NULL);
}

/* All n bytes: 0, or -1 (the peer went, an error, or stop). */
static int rfbmini_get(int fd, void *p, size_t n, const atomic_bool *stop)
{
	return rfbmini_xfer(fd, NULL, p, n, stop);
}

int rfbmini_handshake(int fd, int w, int h, const char *name,
		      const atomic_bool *stop)
{
	size_t nl = strlen(name) > 64 ? 64 : strlen(name);
	uint8_t b[24 + 64];

	if (rfbmini_put(fd, "RFB 003.008\n", 12) < 0 ||
	    rfbmini_get(fd, b, 12, stop) < 0)
		return -1;
	b[0] = 1;
	b[1] = 1; /* None */
	if (rfbmini_put(fd, b, 2) < 0 || rfbmini_get(fd, b, 1, stop) < 0 ||
	    b[0] != 1)
		return -1;
	memset(b, 0, sizeof(b));
	if (rfbmini_put(fd, b, 4) < 0 || rfbmini_get(fd, b, 1, stop) < 0)
		return -1;
	memset(b, 0, sizeof(b));
	be16_put(b, (unsigned)w);
	be16_put(b + 2, (unsigned)h);
	b[4] = 32; /* xrgb8888 little-endian, true colour */
	b[5] = 24;
	b[7] = 1;
	be16_put(b + 8, 255);
	be16_put(b + 10, 255);
	be16_put(b + 12, 255);
	b[14] = 16;
	b[15] = 8;
	be32_put(b + 20, (uint32_t)nl);
	memcpy(b + 24, name, nl);
	return rfbmini_put(fd, b, 24 + nl);
}

/* Read and drop n bytes. */
static int drop(int fd, uint32_t n, const atomic_bool *stop)
{
	uint8_t sink[256];

	while (n) {
		uint32_t k = n < sizeof(sink) ? n : sizeof(sink);

		if (rfbmini_get(fd, sink, k, stop) < 0)
			return -1;
		n -= k;
	}
	return 0;
}

static int set_encodings(int fd, struct rfbmini_in *in,
			 const atomic_bool *stop)
{
	uint8_t b[4];
	unsigned n;

	if (rfbmini_get(fd, b, 3, stop) < 0)
		return -1;
	n = (unsigned)b[1] << 8 | b[2];
	in->h264 = false;
	in->ext_mouse = false;
	for (unsigned i = 0; i < n; i++) {
		int32_t e;

		if (rfbmini_get(fd, b, 4, stop) < 0)
			return -1;
		e = (int32_t)((uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
			      (uint32_t)b[2] << 8 | b[3]);
		in->h264 |= e == RFBMINI_ENC_H264;
		in->ext_mouse |= e == RFBMINI_ENC_EXT_MOUSE;
	}
	return 0;
}

/* A PointerEvent: mask, x, y, and with ExtendedMouseButtons confirmed
 * and bit 7 set one more byte (bit 0 back, bit 1 forward). */
static int pointer(int fd, struct rfbmini_in *in, const atomic_bool *stop)
{
	uint8_t b[5], ext = 0;

	if (rfbmini_get(fd, b, 5, stop) < 0)
		return -1;
	if (in->ext_confirmed && (b[0] & 0x80)) {
		if (rfbmini_get(fd, &ext, 1, stop) < 0)
			return -1;
		b[0] &= 0x7f;
	}
	in->buttons = b[0] | (uint32_t)(ext & 3) << 7;
	in->x = b[1] << 8 | b[2];
	in->y = b[3] << 8 | b[4];
	return 2;
}

int rfbmini_msg(int fd, struct rfbmini_in *in, const atomic_bool *stop)
{
	uint8_t t, b[8];

	if (rfbmini_get(fd, &t, 1, stop) < 0)
		return -1;
	switch (t) {
	case 0: /* SetPixelFormat */
		return drop(fd, 19, stop);
	case 2: /* SetEncodings */
		return set_encodings(fd, in, stop);
	case 3: /* FramebufferUpdateRequest */
		return drop(fd, 9, stop) < 0 ? -1 : 1;
	case 4: /* KeyEvent: down, padding, keysym */
		if (rfbmini_get(fd, b, 7, stop) < 0)
			return -1;
		in->key_down = b[0] != 0;
		in->keysym = (uint32_t)b[3] << 24 | (uint32_t)b[4] << 16 |
			     (uint32_t)b[5] << 8 | b[6];
		return 3;
	case 5: /* PointerEvent */
		return pointer(fd, in, stop);
	case 6: /* ClientCutText */
		if (rfbmini_get(fd, b, 7, stop) < 0)
			return -1;
		return drop(fd,
			    (uint32_t)b[3] << 24 | (uint32_t)b[4] << 16 |
				(uint32_t)b[5] << 8 | b[6],
			    stop);
	default:
		return -1;
	}
}

int rfbmini_client_msg(int fd, bool *h264, const atomic_bool *stop)
{
	struct rfbmini_in in = {.h264 = *h264};
	int r = rfbmini_msg(fd, &in, stop);

	*h264 = in.h264;
	return r >= 2 ? 0 : r;
}
