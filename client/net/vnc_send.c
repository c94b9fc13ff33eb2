/* The messages vncfb writes through libvncclient: the pixel format and
 * the encodings, update requests, keys and pointer, each under a write
 * deadline. Part of the libvncclient wrapper (vnc_priv.h). */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "wire/rfb.h"
#include "net/vnc_enc.h"
#include "net/vnc_priv.h"

/* The encodings list offers at most this many of its names. */
#define MAX_LISTED 40

void vnc_set_format(rfbClient *cl, const struct pixfmt *f)
{
	cl->format.bitsPerPixel = f->bpp;
	cl->format.depth = (uint8_t)(f->r_bits + f->g_bits + f->b_bits);
	if (cl->format.depth > f->bpp)
		cl->format.depth = f->bpp;
	cl->format.bigEndian = f->big_endian;
	cl->format.trueColour = 1;
	cl->format.redMax = (uint16_t)((1u << f->r_bits) - 1);
	cl->format.greenMax = (uint16_t)((1u << f->g_bits) - 1);
	cl->format.blueMax = (uint16_t)((1u << f->b_bits) - 1);
	cl->format.redShift = f->r_shift;
	cl->format.greenShift = f->g_shift;
	cl->format.blueShift = f->b_shift;
}

/* SetPixelFormat + SetEncodings written by us, not SetFormatAndEncodings:
 * libvncclient 0.9.14 always offers ExtendedDesktopSize and then, when it
 * decodes, ignores QEMU's screen id 0. vncfb's reader handles both
 * DesktopSize and ExtendedDesktopSize, whatever the screen ids. */
bool vnc_send_format(struct vnc_client *vc)
{
	/* rfbClientSwap*IfLE expect a variable named client. */
	rfbClient *client = vc->cl, *cl = client;
	rfbSetPixelFormatMsg spf;
	union {
		char bytes[sz_rfbSetEncodingsMsg + 64 * 4];
		rfbSetEncodingsMsg msg;
	} buf;
	uint32_t encs[64];
	int32_t listed[MAX_LISTED];
	size_t nlisted, k;
	int n = 0, i;
	bool tight = false, zlibish = false;

	memset(&spf, 0, sizeof(spf));
	spf.type = rfbSetPixelFormat;
	spf.format = cl->format;
	spf.format.redMax = rfbClientSwap16IfLE(spf.format.redMax);
	spf.format.greenMax = rfbClientSwap16IfLE(spf.format.greenMax);
	spf.format.blueMax = rfbClientSwap16IfLE(spf.format.blueMax);
	if (!WriteToRFBServer(cl, (char *)&spf, sz_rfbSetPixelFormatMsg))
		return false;

	nlisted = vnc_enc_numbers(vc->encodings, listed, MAX_LISTED);
	for (k = 0; k < nlisted; k++) {
		/* H.264 is vncfb's reader's (libvncclient has no decoder),
		 * and lossy: from the default list only with --quality. */
		if (listed[k] == RFB_ENC_H264 &&
		    (!vc->rd || (!vc->cfg.encodings && vc->cfg.quality < 0)))
			continue;
		encs[n++] = (uint32_t)listed[k];
		if (listed[k] == rfbEncodingTight)
			tight = true;
		if (listed[k] == rfbEncodingTight ||
		    listed[k] == rfbEncodingZlib ||
		    listed[k] == rfbEncodingZRLE)
			zlibish = true;
	}
	if (zlibish && vc->cfg.compress >= 0)
		encs[n++] = (uint32_t)(rfbEncodingCompressLevel0 +
				       vc->cfg.compress);
	if (tight && vc->cfg.quality >= 0)
		encs[n++] = (uint32_t)(rfbEncodingQualityLevel0 +
				       vc->cfg.quality);
	if (vc->cfg.local_cursor) {
		encs[n++] = (uint32_t)rfbEncodingXCursor;
		encs[n++] = (uint32_t)rfbEncodingRichCursor;
		encs[n++] = (uint32_t)rfbEncodingPointerPos;
	}
	encs[n++] = (uint32_t)rfbEncodingNewFBSize;
	/* vncfb's reader takes QEMU's screen id 0 (libvncclient 0.9.14
	 * does not: the reference mode goes without) and desktop names. */
	if (vc->rd) {
		encs[n++] = (uint32_t)RFB_ENC_EXTDESKTOPSIZE;
		encs[n++] = (uint32_t)RFB_ENC_DESKTOPNAME;
	}
	encs[n++] = (uint32_t)rfbEncodingLastRect;
	encs[n++] = (uint32_t)rfbEncodingKeyboardLedState;
	if (!vc->cfg.view_only)
		encs[n++] = (uint32_t)rfbEncodingQemuExtendedKeyEvent;

	memset(&buf, 0, sizeof(buf));
	buf.msg.type = rfbSetEncodings;
	buf.msg.nEncodings = rfbClientSwap16IfLE((uint16_t)n);
	for (i = 0; i < n; i++) {
		uint32_t v = rfbClientSwap32IfLE(encs[i]);

		memcpy(&buf.bytes[sz_rfbSetEncodingsMsg + i * 4], &v, 4);
	}
	return WriteToRFBServer(cl, buf.bytes, sz_rfbSetEncodingsMsg + n * 4);
}

/* A client message through libvncclient, under a write deadline. */
int vnc_request(struct vnc_client *vc, int x, int y, int w, int h,
		bool incremental)
{
	rfbBool ok;

	vnc_begin_timed(vc, "write");
	ok = SendFramebufferUpdateRequest(vc->cl, x, y, w, h,
					  incremental ? TRUE : FALSE);
	vnc_done(vc);
	return ok ? 0 : -1;
}

int vnc_ping(struct vnc_client *vc)
{
	/* Non-incremental, so the server has to answer even when nothing
	 * changed. */
	return vnc_request(vc, 0, 0, 1, 1, false);
}

/* QEMU's extended key event, written here: libvncclient only sends it
 * once its own decoder has seen the pseudo-encoding. */
static bool qemu_key(struct vnc_client *vc, uint32_t keysym,
		     uint32_t scancode, bool down)
{
	uint8_t m[12] = { RFB_MSG_QEMU, RFB_QEMU_KEY, 0, down ? 1 : 0 };

	for (int i = 0; i < 4; i++) {
		m[4 + i] = (uint8_t)(keysym >> (24 - 8 * i));
		m[8 + i] = (uint8_t)(scancode >> (24 - 8 * i));
	}
	return WriteToRFBServer(vc->cl, (const char *)m, sizeof(m));
}

int vnc_send_key(struct vnc_client *vc, uint32_t keysym, uint32_t scancode,
		 bool down)
{
	rfbBool ok;

	if (vc->cfg.view_only)
		return 0;
	vnc_begin_timed(vc, "write");
	/* Without QEMU extended keys, the keysym alone goes. */
	if (scancode && vc->rd && vc->qemu_keys)
		ok = qemu_key(vc, keysym, scancode, down);
	else if (scancode && !vc->rd &&
		 SendExtendedKeyEvent(vc->cl, keysym, scancode,
				      down ? TRUE : FALSE))
		ok = TRUE;
	else
		ok = SendKeyEvent(vc->cl, keysym, down ? TRUE : FALSE);
	vnc_done(vc);
	return ok ? 0 : -1;
}

int vnc_send_pointer(struct vnc_client *vc, int x, int y, uint32_t buttons)
{
	rfbBool ok;

	if (vc->cfg.view_only)
		return 0;
	vnc_begin_timed(vc, "write");
	ok = SendPointerEvent(vc->cl, x, y, (int)buttons);
	vnc_done(vc);
	return ok ? 0 : -1;
}

int vnc_request_full(struct vnc_client *vc)
{
	return vnc_request(vc, 0, 0, (int)vnc_width(vc), (int)vnc_height(vc),
			   false);
}
