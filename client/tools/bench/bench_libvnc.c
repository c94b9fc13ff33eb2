/* vncfb bench's reference loop: libvncclient reads and decodes the
 * server's messages with its own decoders (HandleRFBServerMessage) into
 * the same shadow, in place of vncfb's reader, so the bench can price
 * vncfb's data path against the library's. One of the files of the
 * libvncclient wrapper (tests/integration/test_rfbclient_rule.sh lists
 * them): it sees struct vnc_client. Main thread, as the connection. */
#include "config.h"

#include <stdlib.h>

#include "net/vnc_priv.h"
#include "reader/rfbread.h"
#include "tools/bench/bench_libvnc.h"
#include "util/log.h"
#include "util/rect.h"
#include "wire/rfb.h"

/* The desktop buffer (and its resizes): the session's shadow. */
static rfbBool cb_malloc_fb(rfbClient *cl)
{
	struct vnc_client *vc = vnc_from_cl(cl);
	char why[200];
	enum vnc_error e;
	uint8_t *buf;

	e = cl->width < 0 || cl->height < 0
		    ? VNC_ERR_PROTOCOL
		    : rfb_check_desktop((uint32_t)cl->width,
					(uint32_t)cl->height,
					cl->format.bitsPerPixel / 8, why,
					sizeof(why));
	if (e != VNC_OK) {
		log_error("%s %s", vc->peer, why);
		vc->logged = e;
		return FALSE;
	}
	buf = vc->ev.resize(vc->ev.ctx, (uint32_t)cl->width,
			    (uint32_t)cl->height);
	if (!buf) {
		vc->logged = VNC_ERR_RESOURCE;
		return FALSE;
	}
	cl->frameBuffer = buf;
	/* libvncclient's update region for the first request. */
	cl->updateRect.x = 0;
	cl->updateRect.y = 0;
	cl->updateRect.w = cl->width;
	cl->updateRect.h = cl->height;
	return TRUE;
}

static void cb_update(rfbClient *cl, int x, int y, int w, int h)
{
	struct vnc_client *vc = vnc_from_cl(cl);
	struct rect r = { x, y, w, h };

	if (rect_clip(&r, cl->width, cl->height))
		vc->ev.damage(vc->ev.ctx, &r);
}

static void cb_finished(rfbClient *cl)
{
	struct vnc_client *vc = vnc_from_cl(cl);

	vc->ev.update_done(vc->ev.ctx);
}

static void cb_cursor_shape(rfbClient *cl, int xhot, int yhot, int w, int h,
			    int bpp)
{
	struct vnc_client *vc = vnc_from_cl(cl);

	if (!vc->ev.cursor_shape || !cl->rcSource || !cl->rcMask)
		goto out;
	if (w <= 0 || h <= 0 || w > RFB_MAX_CURSOR || h > RFB_MAX_CURSOR ||
	    bpp != cl->format.bitsPerPixel / 8 || xhot < 0 || yhot < 0 ||
	    xhot >= w || yhot >= h) {
		log_debug("ignoring cursor shape %dx%d hot %d,%d", w, h, xhot,
			  yhot);
		goto out;
	}
	/* libvncclient's mask says 0 or 1; the cursor takes alpha. */
	for (size_t i = 0; i < (size_t)w * (size_t)h; i++)
		cl->rcMask[i] = cl->rcMask[i] ? 255 : 0;
	vc->ev.cursor_shape(vc->ev.ctx, xhot, yhot, w, h, cl->rcSource,
			    cl->rcMask);
out:
	vnc_drop_cursor_buffers(cl);
}

static rfbBool cb_cursor_pos(rfbClient *cl, int x, int y)
{
	struct vnc_client *vc = vnc_from_cl(cl);

	if (vc->ev.cursor_pos)
		vc->ev.cursor_pos(vc->ev.ctx, x, y);
	return TRUE;
}

static void cb_bell(rfbClient *cl)
{
	struct vnc_client *vc = vnc_from_cl(cl);

	if (vc->ev.bell)
		vc->ev.bell(vc->ev.ctx);
}

static void cb_cut_text(rfbClient *cl, const char *text, int len)
{
	/* Clipboard has nowhere to go on a console; drop it. */
	(void)cl;
	(void)text;
	(void)len;
}

static void setup(struct vnc_client *vc)
{
	rfbClient *cl = vc->cl;

	cl->MallocFrameBuffer = cb_malloc_fb;
	cl->GotFrameBufferUpdate = cb_update;
	cl->FinishedFrameBufferUpdate = cb_finished;
	cl->GotCursorShape = cb_cursor_shape;
	cl->HandleCursorPos = cb_cursor_pos;
	cl->Bell = cb_bell;
	cl->GotXCutText = cb_cut_text;
}

static int start(struct vnc_client *vc)
{
	return vc->cl->MallocFrameBuffer(vc->cl) ? 0 : -1;
}

static bool message(struct vnc_client *vc)
{
	return HandleRFBServerMessage(vc->cl);
}

const struct vnc_reference bench_libvnc_reference = {
	.setup = setup,
	.start = start,
	.message = message,
};
