/* jpeg_rgb (rfbgen.h): JPEGs made with libjpeg for the decoder tests
 * (test_decode_jpeg.c, test_decode_tight.c, test_bounds_codecs.c). */
#include "config.h"

#include "../check.h"
#include "rfbgen.h"

#include <jpeglib.h>

void jpeg_rgb(const uint8_t *rgb, uint32_t w, uint32_t h, int tables,
	      int quality, unsigned restart, struct buf *out)
{
	struct jpeg_compress_struct ci;
	struct jpeg_error_mgr err;
	unsigned char *jpg = NULL;
	unsigned long len = 0;

	ci.err = jpeg_std_error(&err);
	jpeg_create_compress(&ci);
	jpeg_mem_dest(&ci, &jpg, &len);
	ci.image_width = w;
	ci.image_height = h;
	ci.input_components = 3;
	ci.in_color_space = JCS_RGB;
	jpeg_set_defaults(&ci);
	jpeg_set_quality(&ci, quality, TRUE);
	ci.restart_in_rows = (int)restart;
	if (tables == TABLES_ONLY) {
		jpeg_write_tables(&ci);
	} else {
		if (tables == TABLES_NONE)
			jpeg_suppress_tables(&ci, TRUE);
		jpeg_start_compress(&ci, tables == TABLES_ALL);
		while (ci.next_scanline < h) {
			JSAMPROW row =
			    (JSAMPROW)rgb + (size_t)ci.next_scanline * w * 3;

			jpeg_write_scanlines(&ci, &row, 1);
		}
		jpeg_finish_compress(&ci);
	}
	jpeg_destroy_compress(&ci);
	put(out, jpg, len);
	free(jpg);
}
