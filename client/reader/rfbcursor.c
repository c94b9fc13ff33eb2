/* The cursor pseudo-encodings (rfbread_priv.h), read for the
 * message reader. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "decode/decode.h"
#include "util/guardmem.h"
#include "util/log.h"
#include "wire/rfb.h"
#include "reader/rfbread_priv.h"

/* A decoded shape to the session: pix (w*hh shadow pixels, then at
 * mask w*hh alpha bytes, one allocation the caller frees), cut down
 * around the hot spot when too large to show. */
static void show_cursor(struct rfb_reader *r, uint32_t xhot, uint32_t yhot,
			uint32_t w, uint32_t hh, uint8_t *pix, uint8_t *mask)
{
	const struct dec_fmt *f = &r->fmt;
	uint32_t x0 = 0, y0 = 0, cw, ch;

	if (xhot >= w || yhot >= hh) {
		log_debug("ignoring a %ux%u cursor shape with its hot spot at "
			  "%u,%u",
			  w, hh, xhot, yhot);
		return;
	}
	/* Too large to show: the part around the hot spot. */
	cw = w < RFB_MAX_CURSOR ? w : RFB_MAX_CURSOR;
	ch = hh < RFB_MAX_CURSOR ? hh : RFB_MAX_CURSOR;
	if (cw < w) {
		x0 = xhot > cw / 2 ? xhot - cw / 2 : 0;
		x0 = x0 + cw > w ? w - cw : x0;
	}
	if (ch < hh) {
		y0 = yhot > ch / 2 ? yhot - ch / 2 : 0;
		y0 = y0 + ch > hh ? hh - ch : y0;
	}
	if (cw < w || ch < hh) {
		for (uint32_t y = 0; y < ch; y++) {
			memmove(pix + (size_t)y * cw * f->bpp,
				pix + ((size_t)(y0 + y) * w + x0) * f->bpp,
				(size_t)cw * f->bpp);
		}
		for (uint32_t y = 0; y < ch; y++)
			memmove(pix + (size_t)cw * ch * f->bpp + (size_t)y * cw,
				mask + (size_t)(y0 + y) * w + x0, cw);
		mask = pix + (size_t)cw * ch * f->bpp;
		log_debug("cursor shape %ux%u cut to %ux%u", w, hh, cw, ch);
	}
	r->ev.cursor_shape(r->ev.ctx, (int)(xhot - x0), (int)(yhot - y0),
			   (int)cw, (int)ch, pix, mask);
}

int rfb_cursor_shape(struct rfb_reader *r, const struct dec_hdr *h)
{
	const struct dec_fmt *f = &r->fmt;
	/* Its pixels come in the wire's format. */
	const struct dec_fmt *wf = r->wired ? &r->wfmt : f;
	struct dec_job *j = &r->job;
	size_t body, n;
	uint32_t w = h->w, hh = h->h;
	uint8_t *pix, *wpix;
	int err;

	if (w > RFB_MAX_CURSOR_READ || hh > RFB_MAX_CURSOR_READ)
		return bad_rect(r, h, "a cursor larger than %dx%d",
				RFB_MAX_CURSOR_READ, RFB_MAX_CURSOR_READ);
	body = dec_cursor_size(wf, h->enc, w, hh);
	dec_job_unref(j);
	j->in_place = false;
	j->data.len = 0;
	j->data.limit = 0;
	if (body && !dec_take(&r->dc, j, body, &err))
		return err == DEC_EOF
			   ? closed(r)
			   : fail(r, VNC_ERR_RESOURCE, "%s", r->dc.why);
	if (!r->ev.cursor_shape || w == 0 || hh == 0)
		return 0;
	n = (size_t)w * hh;
	pix = guard_calloc(n * (f->bpp + 1));
	wpix = wf != f ? guard_calloc(n * (wf->bpp + 1)) : pix;
	if (!pix || !wpix) {
		if (wpix != pix)
			guard_free(wpix);
		guard_free(pix);
		return fail(r, VNC_ERR_RESOURCE, "out of memory for a cursor");
	}
	dec_cursor_shape(wf, h->enc, w, hh, j->data.p, wpix,
			 wpix + n * wf->bpp);
	if (wpix != pix) {
		pixconv_row(&r->from_wire, pix, wpix, n);
		memcpy(pix + n * f->bpp, wpix + n * wf->bpp, n);
		guard_free(wpix);
	}
	show_cursor(r, h->x, h->y, w, hh, pix, pix + n * f->bpp);
	guard_free(pix);
	return 0;
}

/* CursorWithAlpha: a sub-encoding's number, then w x h RGBA pixels in
 * it, decoded by that encoding's decoder into a buffer of their own, in
 * stream order with the rectangles before (they may share its zlib
 * stream). */
int rfb_cursor_alpha(struct rfb_reader *r, const struct dec_hdr *h)
{
	const struct dec_fmt *f = &r->fmt;
	const struct decoder *d;
	struct dec_fb fb = r->dc.fb;
	uint32_t w = h->w, hh = h->h;
	uint8_t encb[4], *rgba, *pix;
	char name[16];
	size_t n = (size_t)w * hh;
	int32_t enc;
	int ret;

	if (w > RFB_MAX_CURSOR_READ || hh > RFB_MAX_CURSOR_READ)
		return bad_rect(r, h, "a cursor larger than %dx%d",
				RFB_MAX_CURSOR_READ, RFB_MAX_CURSOR_READ);
	if (rd(r, encb, 4) < 0)
		return -1;
	enc = (int32_t)dec_be32(encb);
	d = decoder_find(enc);
	if (!dec_cursor_alpha_enc(enc))
		return bad_rect(r, h, "its pixels in encoding %s, which cannot "
				      "carry them",
				decoder_name(enc, name, sizeof(name)));
	/* Nothing else writes while the shape is drawn, and the streams
	 * are where the rectangles before it left them. */
	if (drain(r) < 0)
		return -1;
	/* 4 MiB at most (RFB_MAX_CURSOR_READ a side), its end at a guard
	 * page where the build has them (guardmem.h). */
	rgba = guard_calloc(n * 4);
	if (!rgba)
		return fail(r, VNC_ERR_RESOURCE, "out of memory for a cursor");
	r->dc.fb = (struct dec_fb){rgba, (size_t)w * 4, w, hh, &r->rgba};
	r->job.enc = enc;
	r->job.r = (struct rect){0, 0, (int32_t)w, (int32_t)hh};
	r->job.src = (struct rect){0, 0, 0, 0};
	r->dc.why[0] = '\0';
	ret = dec_rect(&r->dc, d, &r->job);
	dec_job_unref(&r->job);
	r->dc.fb = fb;
	if (ret != DEC_OK) {
		char why[sizeof(r->dc.why) + 40];

		guard_free(rgba);
		if (ret == DEC_EOF)
			return closed(r);
		snprintf(why, sizeof(why), "%s pixels: %s",
			 decoder_name(enc, name, sizeof(name)), r->dc.why);
		dec_rect_why(r->why, sizeof(r->why), h, ret, why);
		r->err = ret == DEC_NOMEM ? VNC_ERR_RESOURCE : VNC_ERR_PROTOCOL;
		return -1;
	}
	if (!r->ev.cursor_shape || n == 0) {
		guard_free(rgba);
		return 0;
	}
	pix = guard_calloc(n * (f->bpp + 1));
	if (!pix) {
		guard_free(rgba);
		return fail(r, VNC_ERR_RESOURCE, "out of memory for a cursor");
	}
	dec_cursor_alpha(f, n, rgba, pix, pix + n * f->bpp);
	guard_free(rgba);
	show_cursor(r, h->x, h->y, w, hh, pix, pix + n * f->bpp);
	guard_free(pix);
	return 0;
}
