/* The test server's JPEG encoding (21) rectangles, as TigerVNC 1.16's
 * server sends them (libvncserver has no encoder for it): the
 * framebuffer's top and bottom halves as JPEG images, written straight
 * to each client that offered encoding 21, outside libvncserver's own
 * updates (the server is single-threaded). Not part of vncfb.
 *
 * Modes of "jpeg MODE QUALITY" (testserver.c):
 *   whole    both halves with their tables
 *   reuse    the top with its tables, the bottom without (reusing them)
 *   tables   a tables-only datastream, then both halves without tables
 *   notables both halves without tables and none before: a bad stream
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <rfb/rfb.h>

#include "testserver_jpeg.h"

#define ENC_JPEG 21

static int pseudo[] = {ENC_JPEG, 0};

static rfbBool jpeg_new_client(rfbClientPtr cl, void **data)
{
	(void)cl;
	*data = NULL;
	return TRUE;
}

/* libvncserver hands encodings it does not know to its extensions. */
static rfbBool jpeg_enable(rfbClientPtr cl, void **data, int enc)
{
	(void)cl;
	if (enc != ENC_JPEG)
		return FALSE;
	*data = (void *)1;
	return TRUE;
}

static rfbProtocolExtension jpeg_ext = {
    .newClient = jpeg_new_client,
    .enablePseudoEncoding = jpeg_enable,
    .pseudoEncodings = pseudo,
};

void jpeg_register(void)
{
	rfbRegisterProtocolExtension(&jpeg_ext);
}

enum { WHOLE, NO_TABLES, TABLES_ONLY };

/* Rows y0..y0+h of fb (R,G,B,X bytes) as JPEG, appended to out. */
static void jpeg_image(const uint32_t *fb, int w, int y0, int h, int kind,
		     int quality, unsigned char **out, unsigned long *len)
{
	struct jpeg_compress_struct ci;
	struct jpeg_error_mgr err;

	ci.err = jpeg_std_error(&err);
	jpeg_create_compress(&ci);
	jpeg_mem_dest(&ci, out, len);
	ci.image_width = (JDIMENSION)w;
	ci.image_height = (JDIMENSION)h;
	ci.input_components = 4;
	ci.in_color_space = JCS_EXT_RGBX;
	jpeg_set_defaults(&ci);
	jpeg_set_quality(&ci, quality, TRUE);
	if (kind == TABLES_ONLY) {
		jpeg_write_tables(&ci);
	} else {
		if (kind == NO_TABLES)
			jpeg_suppress_tables(&ci, TRUE);
		jpeg_start_compress(&ci, kind == WHOLE);
		while (ci.next_scanline < ci.image_height) {
			JSAMPROW row = (JSAMPROW)(fb + (size_t)(y0 + (int)
						   ci.next_scanline) * w);

			jpeg_write_scanlines(&ci, &row, 1);
		}
		jpeg_finish_compress(&ci);
	}
	jpeg_destroy_compress(&ci);
}

static void put_rect(uint8_t *p, int x, int y, int w, int h)
{
	const int v[4] = {x, y, w, h};

	for (int i = 0; i < 4; i++) {
		p[2 * i] = (uint8_t)(v[i] >> 8);
		p[2 * i + 1] = (uint8_t)v[i];
	}
	p[8] = p[9] = p[10] = 0;
	p[11] = ENC_JPEG;
}

int jpeg_send(rfbScreenInfoPtr screen, const uint32_t *fb, int w, int h,
	      const char *mode, int quality)
{
	int kinds[3], n = 0, half = h / 2, sent = 0;
	unsigned char *img[3] = {NULL, NULL, NULL};
	unsigned long len[3] = {0, 0, 0};
	size_t total = 4;
	uint8_t *msg, *p;
	rfbClientIteratorPtr it;
	rfbClientPtr cl;

	if (strcmp(mode, "whole") == 0) {
		kinds[n++] = WHOLE, kinds[n++] = WHOLE;
	} else if (strcmp(mode, "reuse") == 0) {
		kinds[n++] = WHOLE, kinds[n++] = NO_TABLES;
	} else if (strcmp(mode, "tables") == 0) {
		kinds[n++] = TABLES_ONLY, kinds[n++] = NO_TABLES;
		kinds[n++] = NO_TABLES;
	} else if (strcmp(mode, "notables") == 0) {
		kinds[n++] = NO_TABLES, kinds[n++] = NO_TABLES;
	} else {
		return -1;
	}
	for (int i = 0; i < n; i++) {
		/* The tables-only datastream goes as a whole-desktop
		 * rectangle; the images are the halves after it. */
		int part = n == 3 ? i - 1 : i;
		int y0 = part <= 0 ? 0 : half, hh = part <= 0 ? half : h - half;

		if (kinds[i] == TABLES_ONLY)
			y0 = 0, hh = h;
		jpeg_image(fb, w, y0, hh, kinds[i], quality, &img[i], &len[i]);
		total += 12 + len[i];
	}
	msg = malloc(total);
	if (!msg)
		return -1;
	msg[0] = 0, msg[1] = 0, msg[2] = 0, msg[3] = (uint8_t)n;
	p = msg + 4;
	for (int i = 0; i < n; i++) {
		int part = n == 3 ? i - 1 : i;

		if (kinds[i] == TABLES_ONLY)
			put_rect(p, 0, 0, w, h);
		else
			put_rect(p, 0, part == 0 ? 0 : half, w,
				 part == 0 ? half : h - half);
		memcpy(p + 12, img[i], len[i]);
		p += 12 + len[i];
		free(img[i]);
	}
	it = rfbGetClientIterator(screen);
	while ((cl = rfbClientIteratorNext(it))) {
		void *on = rfbGetExtensionClientData(cl, &jpeg_ext);

		if (on && rfbWriteExact(cl, (char *)msg, (int)total) == 1)
			sent++;
	}
	rfbReleaseClientIterator(it);
	free(msg);
	return sent;
}
