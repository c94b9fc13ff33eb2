/* Tight's JPEG rectangles: libjpeg(-turbo) with its own memory source
 * (safe on truncated and hostile data), decoding several scanlines at a
 * time straight into the shadow in an extended colour space that is the
 * shadow's layout (JCS_EXT_BGRX and friends, JCS_RGB565), or into R,G,B
 * rows converted by the format's table converter (decode.h). */
#include "config.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>

#include "decode/decode_priv.h"

#if !defined(JCS_EXTENSIONS) || !defined(JCS_ALPHA_EXTENSIONS)
#error "vncfb needs libjpeg-turbo's extended colour spaces"
#endif

/* Rows per jpeg_read_scanlines call (libjpeg gives what it has). */
#define JPEG_ROWS 16

struct dec_jpeg {
	struct jpeg_decompress_struct ci;
	struct jpeg_error_mgr mgr;
	struct jpeg_progress_mgr progress;
	jmp_buf env;
	const struct dec_ctx *c; /* the latest draw, for progress() */
	bool abandoned;		 /* left because dec_check said so */
};

static bool host_big(void)
{
	const uint16_t one = 1;

	return *(const uint8_t *)&one == 0;
}

int dec_jpeg_space(const struct pixfmt *pf);

int dec_jpeg_space(const struct pixfmt *pf)
{
	if (pf->bpp == 32 && pf->r_bits == 8 && pf->g_bits == 8 &&
	    pf->b_bits == 8 && pf->r_shift % 8 == 0 && pf->g_shift % 8 == 0 &&
	    pf->b_shift % 8 == 0) {
		/* Memory byte of each channel. */
		unsigned r = pf->r_shift / 8, g = pf->g_shift / 8,
			 b = pf->b_shift / 8;

		if (pf->big_endian)
			r = 3 - r, g = 3 - g, b = 3 - b;
		/* A CursorWithAlpha's R,G,B,A (depth 32: the fourth byte
		 * is alpha): opaque, libjpeg-turbo setting it to 0xff. */
		if (pf->depth == 32 && r == 0 && g == 1 && b == 2)
			return JCS_EXT_RGBA;
		if (r == 0 && g == 1 && b == 2)
			return JCS_EXT_RGBX;
		if (r == 2 && g == 1 && b == 0)
			return JCS_EXT_BGRX;
		if (r == 1 && g == 2 && b == 3)
			return JCS_EXT_XRGB;
		if (r == 3 && g == 2 && b == 1)
			return JCS_EXT_XBGR;
		return -1;
	}
	/* libjpeg-turbo writes RGB565 in the host's byte order. */
	if (pf->bpp == 16 && pf->r_bits == 5 && pf->g_bits == 6 &&
	    pf->b_bits == 5 && pf->r_shift == 11 && pf->g_shift == 5 &&
	    pf->b_shift == 0 && pf->big_endian == host_big())
		return JCS_RGB565;
	return -1;
}

/* Bytes a pixel of space takes as libjpeg-turbo writes it. */
static unsigned space_bytes(J_COLOR_SPACE space)
{
	switch (space) {
	case JCS_RGB565:
		return 2;
	case JCS_EXT_RGB:
		return 3;
	default:
		return 4;
	}
}

static void fail(j_common_ptr ci)
{
	struct dec_jpeg *j = (struct dec_jpeg *)ci->client_data;

	longjmp(j->env, 1);
}

/* Called by libjpeg in every jpeg_read_scanlines and within its own long
 * passes (a progressive image's scans, inside jpeg_start_decompress):
 * the decode stops there once the connection is given up. */
static void progress(j_common_ptr ci)
{
	struct dec_jpeg *j = (struct dec_jpeg *)ci->client_data;

	if (j->c && dec_check(j->c) != DEC_OK) {
		j->abandoned = true;
		longjmp(j->env, 1);
	}
}

static void quiet(j_common_ptr ci, int level)
{
	(void)ci;
	(void)level;
}

void dec_jpeg_free(struct dec_jpeg *j)
{
	if (!j)
		return;
	jpeg_destroy_decompress(&j->ci);
	free(j);
}

static struct dec_jpeg *jpeg_state(struct dec_ctx *c)
{
	struct dec_jpeg *j = c->work.jpeg;

	if (j)
		return j;
	j = calloc(1, sizeof(*j));
	if (!j)
		return NULL;
	j->ci.err = jpeg_std_error(&j->mgr);
	j->mgr.error_exit = fail;
	j->mgr.emit_message = quiet;
	j->progress.progress_monitor = progress;
	j->ci.client_data = j;
	if (setjmp(j->env)) {
		free(j);
		return NULL;
	}
	jpeg_create_decompress(&j->ci);
	j->ci.progress = &j->progress;
	c->work.jpeg = j;
	return j;
}

int dec_jpeg_draw(struct dec_ctx *c, const uint8_t *data, size_t len,
		  const struct rect *r)
{
	const struct dec_fb *fb = &c->fb;
	const struct dec_fmt *f = fb->fmt;
	uint32_t x = (uint32_t)r->x, y = (uint32_t)r->y, w = (uint32_t)r->w;
	const bool direct = f->jpeg_space >= 0;
	struct dec_jpeg *j = jpeg_state(c);
	j_decompress_ptr ci;
	uint8_t *rgb = NULL;
	JSAMPROW rows[JPEG_ROWS];
	int ret;

	if (!j)
		return dec_bad(c, "out of memory for a JPEG decompressor");
	if (!direct) {
		rgb = dec_scratch(c, (size_t)w * 3 * JPEG_ROWS);
		if (!rgb)
			return DEC_NOMEM;
	}
	ci = &j->ci;
	j->c = c;
	j->abandoned = false;
	if (setjmp(j->env)) {
		char msg[JMSG_LENGTH_MAX];

		jpeg_abort_decompress(ci);
		if (j->abandoned)
			return DEC_EOF;
		j->mgr.format_message((j_common_ptr)ci, msg);
		return dec_bad(c, "invalid JPEG data (%s)", msg);
	}
	jpeg_mem_src(ci, data, (unsigned long)len);
	jpeg_read_header(ci, TRUE);
	if (ci->image_width != (JDIMENSION)r->w ||
	    ci->image_height != (JDIMENSION)r->h) {
		jpeg_abort_decompress(ci);
		return dec_bad(c, "a %ux%u JPEG image in it",
			       (unsigned)ci->image_width,
			       (unsigned)ci->image_height);
	}
	ci->out_color_space =
	    direct ? (J_COLOR_SPACE)f->jpeg_space : JCS_EXT_RGB;
	ci->dither_mode = JDITHER_NONE;
	jpeg_start_decompress(ci);
	/* RGB565 counts 3 components in its 2 bytes. */
	if (ci->output_width != w ||
	    ci->output_components != (direct && f->bpp == 4 ? 4 : 3)) {
		jpeg_abort_decompress(ci);
		return dec_bad(c, "JPEG output of an unexpected layout");
	}
	while (ci->output_scanline < ci->output_height) {
		JDIMENSION line = ci->output_scanline, got;
		unsigned n = ci->output_height - line;

		if (n > JPEG_ROWS)
			n = JPEG_ROWS;
		for (unsigned i = 0; i < n; i++)
			rows[i] = direct ? dec_fb_at(fb, x, y + line + i)
					 : rgb + (size_t)i * w * 3;
		/* What libjpeg writes, in the colour space it was told. */
		ret = dec_bound(c, "jpeg_read_scanlines", direct ? r : NULL,
				rows[0], direct ? fb->stride : (size_t)w * 3, n,
				(size_t)ci->output_width *
				    space_bytes(ci->out_color_space));
		if (ret != DEC_OK) {
			jpeg_abort_decompress(ci);
			return ret;
		}
		got = jpeg_read_scanlines(ci, rows, n);
		if (got == 0) {
			jpeg_abort_decompress(ci);
			return dec_bad(c, "JPEG data stops at row %u", line);
		}
		if (!direct)
			for (unsigned i = 0; i < got; i++)
				pixconv_row(&f->from_rgb,
					    dec_fb_at(fb, x, y + line + i),
					    rgb + (size_t)i * w * 3, w);
	}
	jpeg_finish_decompress(ci);
	return DEC_OK;
}
