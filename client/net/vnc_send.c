/* The messages vncfb writes: the pixel format and the encodings, update
 * requests, keys and pointer, SetDesktopSize, each under a write deadline
 * and through the one write path (vnc_stream_write: a security layer's
 * framing goes under all of them); the reference mode's requests, keys
 * and pointer through libvncclient's. Part of the libvncclient wrapper
 * (vnc_priv.h). */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "decode/decode.h"
#include "util/be.h"
#include "wire/rfb.h"
#include "net/vnc_enc.h"
#include "net/vnc_msg.h"
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

	memset(&spf, 0, sizeof(spf));
	spf.type = rfbSetPixelFormat;
	spf.format = cl->format;
	spf.format.redMax = rfbClientSwap16IfLE(spf.format.redMax);
	spf.format.greenMax = rfbClientSwap16IfLE(spf.format.greenMax);
	spf.format.blueMax = rfbClientSwap16IfLE(spf.format.blueMax);
	if (vnc_stream_write(&vc->stream, &spf, sz_rfbSetPixelFormatMsg) < 0)
		return false;
	return vnc_send_encodings(vc);
}

bool vnc_send_encodings(struct vnc_client *vc)
{
	/* rfbClientSwap*IfLE expect a variable named client. */
	rfbClient *client = vc->cl;
	union {
		char bytes[sz_rfbSetEncodingsMsg + 64 * 4];
		rfbSetEncodingsMsg msg;
	} buf;
	uint32_t encs[64];
	int32_t listed[MAX_LISTED];
	size_t nlisted, k;
	int n = 0, i;
	bool quality = false, zlibish = false, after = false;
	const struct decoder *d;

	nlisted = vnc_enc_numbers(vc->encodings, listed, MAX_LISTED);
	for (k = 0; k < nlisted; k++) {
		d = decoder_find(listed[k]);
		if (!d)
			continue;
		/* What only vncfb's reader decodes is not offered to
		 * libvncclient's (the reference mode), and what is lossy
		 * from the default list only with --quality. */
		if ((d->flags & DEC_OWN) && !vc->rd)
			continue;
		if ((d->flags & DEC_LOSSY) && !vc->cfg.encodings &&
		    vc->cfg.quality < 0)
			continue;
		encs[n++] = (uint32_t)listed[k];
		quality |= (d->flags & DEC_QUALITY) != 0;
		after |= (d->flags & DEC_AFTER_QUALITY) != 0;
		zlibish |= (d->flags & DEC_ZLIB) != 0;
	}
	/* Lossy JPEG only with --quality, as Tight's: TigerVNC 1.16
	 * prefers the JPEG encoding (21) to Tight's JPEG for full-colour
	 * rectangles when Tight comes first, so it goes after the list. */
	for (k = 0; quality && !after && vc->cfg.quality >= 0 &&
		    (d = decoder_at(k));
	     k++)
		if ((d->flags & DEC_AFTER_QUALITY) &&
		    (vc->rd || !(d->flags & DEC_OWN)))
			encs[n++] = (uint32_t)d->enc;
	if (zlibish && vc->cfg.compress >= 0)
		encs[n++] = (uint32_t)(rfbEncodingCompressLevel0 +
				       vc->cfg.compress);
	if (quality && vc->cfg.quality >= 0)
		encs[n++] = (uint32_t)(rfbEncodingQualityLevel0 +
				       vc->cfg.quality);
	if (vc->cfg.local_cursor) {
		/* First, as TigerVNC's viewer has it: the shape its servers
		 * send with the alpha the others lack. */
		if (vc->rd)
			encs[n++] = (uint32_t)RFB_ENC_CURSOR_ALPHA;
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
	/* The reader answers fences and runs continuous updates; not while
	 * vncfb bench --record taps the socket (wrap_fd): a recording holds
	 * the server's answers to requests, which the replay pump replays
	 * (it takes no EnableContinuousUpdates, and recorded fences would
	 * ask for answers nobody is there to want). */
	if (vc->rd && !vc->cfg.wrap_fd) {
		encs[n++] = (uint32_t)RFB_ENC_FENCE;
		encs[n++] = (uint32_t)RFB_ENC_CONTINUOUS;
	}
	encs[n++] = (uint32_t)rfbEncodingLastRect;
	encs[n++] = (uint32_t)rfbEncodingKeyboardLedState;
	if (!vc->cfg.view_only)
		encs[n++] = (uint32_t)rfbEncodingQemuExtendedKeyEvent;
	/* Back and forward buttons, in the extended PointerEvent once the
	 * server confirms (vnc_msg.h). */
	if (!vc->cfg.view_only && vc->rd)
		encs[n++] = (uint32_t)RFB_ENC_EXT_MOUSE;

	vnc_enc_describe((const int32_t *)encs, (size_t)n, vc->offered,
			 sizeof(vc->offered));
	vc->offered_q = quality && vc->cfg.quality >= 0;
	memset(&buf, 0, sizeof(buf));
	buf.msg.type = rfbSetEncodings;
	buf.msg.nEncodings = rfbClientSwap16IfLE((uint16_t)n);
	for (i = 0; i < n; i++) {
		uint32_t v = rfbClientSwap32IfLE(encs[i]);

		memcpy(&buf.bytes[sz_rfbSetEncodingsMsg + i * 4], &v, 4);
	}
	return vnc_stream_write(&vc->stream, buf.bytes,
				sz_rfbSetEncodingsMsg + (size_t)n * 4) == 0;
}

/* A FramebufferUpdateRequest, under a write deadline. */
int vnc_request(struct vnc_client *vc, int x, int y, int w, int h,
		bool incremental)
{
	uint8_t m[10] = { RFB_MSG_UPDATE_REQUEST, incremental ? 1 : 0 };
	bool ok;

	vnc_begin_timed(vc, "write");
	if (vc->rd) {
		be16_put(m + 2, (uint32_t)x);
		be16_put(m + 4, (uint32_t)y);
		be16_put(m + 6, (uint32_t)w);
		be16_put(m + 8, (uint32_t)h);
		ok = vnc_stream_write(&vc->stream, m, sizeof(m)) == 0;
	} else {
		ok = SendFramebufferUpdateRequest(vc->cl, x, y, w, h,
						  incremental ? TRUE : FALSE);
	}
	vnc_done(vc);
	return ok ? 0 : -1;
}

int vnc_send_fence(struct vnc_client *vc, uint32_t flags,
		   const uint8_t *payload, unsigned len)
{
	uint8_t m[9 + RFB_FENCE_MAX_PAYLOAD] = { RFB_MSG_FENCE };
	rfbBool ok;

	if (len > RFB_FENCE_MAX_PAYLOAD)
		return -1;
	for (int i = 0; i < 4; i++)
		m[4 + i] = (uint8_t)(flags >> (24 - 8 * i));
	m[8] = (uint8_t)len;
	if (len)
		memcpy(m + 9, payload, len);
	vnc_begin_timed(vc, "write");
	ok = vnc_stream_write(&vc->stream, m, 9 + (size_t)len) == 0;
	vnc_done(vc);
	return ok ? 0 : -1;
}

int vnc_send_continuous(struct vnc_client *vc, bool enable, uint32_t w,
			uint32_t h)
{
	uint8_t m[10] = { RFB_MSG_CONTINUOUS, enable ? 1 : 0, 0, 0, 0, 0,
			  (uint8_t)(w >> 8), (uint8_t)w, (uint8_t)(h >> 8),
			  (uint8_t)h };
	rfbBool ok;

	vnc_begin_timed(vc, "write");
	ok = vnc_stream_write(&vc->stream, m, sizeof(m)) == 0;
	vnc_done(vc);
	return ok ? 0 : -1;
}

int vnc_ping(struct vnc_client *vc, enum vnc_error *err)
{
	/* Non-incremental, so the server has to answer even when nothing
	 * changed. */
	if (vnc_request(vc, 0, 0, 1, 1, false) == 0)
		return 0;
	*err = vnc_write_error(vc);
	return -1;
}

/* QEMU's extended key event, written here: libvncclient only sends it
 * once its own decoder has seen the pseudo-encoding. */
static bool qemu_key(struct vnc_client *vc, uint32_t keysym,
		     uint32_t scancode, bool down)
{
	uint8_t m[12] = { RFB_MSG_QEMU, RFB_QEMU_KEY, 0, down ? 1 : 0 };

	be32_put(m + 4, keysym);
	be32_put(m + 8, scancode);
	return vnc_stream_write(&vc->stream, m, sizeof(m)) == 0;
}

/* A KeyEvent, as libvncclient writes it (the reference mode's). */
static bool plain_key(struct vnc_client *vc, uint32_t keysym, bool down)
{
	uint8_t m[8] = { RFB_MSG_KEY, down ? 1 : 0 };

	be32_put(m + 4, keysym);
	return vnc_stream_write(&vc->stream, m, sizeof(m)) == 0;
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
	else if (vc->rd)
		ok = plain_key(vc, keysym, down);
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
	if (vc->rd) {
		uint8_t m[7];
		size_t len = vnc_pointer_msg(m, x, y, buttons, vc->ext_mouse);

		ok = vnc_stream_write(&vc->stream, m, len) == 0;
	} else {
		/* The reference mode offers no ExtendedMouseButtons. */
		ok = SendPointerEvent(vc->cl, x, y, (int)(buttons & 0xff));
	}
	vnc_done(vc);
	return ok ? 0 : -1;
}

int vnc_set_desktop_size(struct vnc_client *vc, uint32_t w, uint32_t h,
			 const struct vnc_screen *s, unsigned n)
{
	uint8_t m[8 + RFB_MAX_SCREENS * 16], *p = m + 8;
	bool ok;

	if (n > RFB_MAX_SCREENS || w > 0xffff || h > 0xffff)
		return -1;
	memset(m, 0, 8);
	m[0] = RFB_MSG_SET_DESKTOP_SIZE;
	be16_put(m + 2, w);
	be16_put(m + 4, h);
	m[6] = (uint8_t)n;
	for (unsigned i = 0; i < n; i++, p += 16) {
		be32_put(p, s[i].id);
		be16_put(p + 4, s[i].x);
		be16_put(p + 6, s[i].y);
		be16_put(p + 8, s[i].w);
		be16_put(p + 10, s[i].h);
		be32_put(p + 12, s[i].flags);
	}
	vnc_begin_timed(vc, "write");
	ok = vnc_stream_write(&vc->stream, m, (size_t)(p - m)) == 0;
	vnc_done(vc);
	return ok ? 0 : -1;
}
