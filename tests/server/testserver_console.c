/* The console tests' parts of the test server: see testserver_console.h.
 * Not part of vncfb. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rfb/rfb.h>

#include "testserver_console.h"

/* Channel value v kept to what a bits-wide channel reproduces exactly
 * (bit replication, which is how QEMU and vncfb expand). */
static unsigned quant(unsigned v, unsigned bits)
{
	unsigned a = v >> (8 - bits);

	return ((a << (8 - bits)) | (a >> (2 * bits - 8))) & 0xff;
}

void console_bars(int x, int y, int w, int h, int depth, unsigned char *rgb)
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

rfbCursorPtr console_arrow(rfbScreenInfoPtr s)
{
	/* An arrow-ish shape with transparent holes. */
	static char src[] = "xxxxxxxx"
			    "xxxxxxx "
			    "xxxxxx  "
			    "xxxxx   "
			    "xxxx    "
			    "xxx     "
			    "xx      "
			    "x       ";
	rfbCursorPtr c = rfbMakeXCursor(8, 8, src, src);
	uint32_t *rich = calloc(64, 4);
	int i;

	if (!c || !rich) {
		free(rich);
		return c;
	}
	/* Solid red where the mask is set. The pixels are given in the
	 * server's format: libvncserver 0.9.14 turns 16-bit X cursor
	 * colours into rich pixels without scaling them. */
	for (i = 0; i < 64; i++)
		rich[i] = 0xffu << s->serverFormat.redShift;
	c->richSource = (unsigned char *)rich;
	c->cleanupRichSource = TRUE;
	c->xhot = 0;
	c->yhot = 0;
	return c;
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

void console_qemu_keys(void)
{
	rfbRegisterProtocolExtension(&qemu_keys);
}
