/* Status line: the bar's geometry and colours on a mem output, glyph
 * pixels where the font says, the blitter restoring the picture when
 * the line goes away, and the line alone on black (blit_set_blank). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blit/blit.h"
#include "shadow/damage.h"
#include "blit/font.h"
#include "output/output.h"
#include "shadow/pixfmt.h"
#include "shadow/shadow.h"
#include "blit/statusline.h"
#include "../check.h"

static uint32_t px(const struct output *o, int x, int y)
{
	return pixfmt_load(&o->fmt, o->map + (size_t)y * o->stride +
					    (size_t)x * pixfmt_bytes(&o->fmt));
}

static void check_text(const char *spec)
{
	struct output o;
	struct rect bar;
	uint8_t *row;
	uint32_t bg, fg;
	int scale, x, y, ink = 0;
	const char *text = "Ab3";

	if (output_open(&o, spec) < 0) {
		failures++;
		return;
	}
	row = calloc(o.width, 4);
	scale = statusline_scale(&o);
	statusline_rect(&o, &bar);
	CHECK(bar.h == (FONT_H + 4) * scale && bar.y + bar.h == (int)o.height &&
		      bar.w == (int)o.width,
	      "%s: bar %dx%d at y %d", spec, bar.w, bar.h, bar.y);
	statusline_draw(&o, text, row);
	bg = pixfmt_pack(&o.fmt, STATUS_BG_R, STATUS_BG_G, STATUS_BG_B);
	fg = pixfmt_pack(&o.fmt, STATUS_FG_R, STATUS_FG_G, STATUS_FG_B);
	/* Above the bar: untouched (zero). */
	CHECK(px(&o, 0, bar.y - 1) == 0, "%s: drew above the bar", spec);
	/* Every pixel of the bar is ink exactly where the glyph says. */
	for (y = 0; y < bar.h; y++)
		for (x = 0; x < (int)o.width; x++) {
			int fx = x / scale - 2, fy = y / scale - 2;
			int ch = fx / FONT_ADVANCE, gx = fx % FONT_ADVANCE;
			int want = 0;

			if (fx >= 0 && fy >= 0 && fy < FONT_H && ch < 3 &&
			    gx < FONT_W)
				want = (font_glyph(text[ch])[fy] >>
					(FONT_W - 1 - gx)) & 1;
			if (px(&o, x, bar.y + y) != (want ? fg : bg)) {
				CHECK(0, "%s: pixel %d,%d is %#x, want %s",
				      spec, x, bar.y + y, px(&o, x, bar.y + y),
				      want ? "ink" : "background");
				goto out;
			}
			ink += want;
		}
	CHECK(ink > 20 * scale * scale, "%s: only %d ink pixels", spec, ink);
out:
	free(row);
	output_close(&o);
}

/* Through the blitter: the status line over the picture, then the
 * picture back when it is cleared. */
static void check_blitter(void)
{
	struct output o;
	struct shadow sh;
	struct damage d;
	struct blitter *b;
	struct damage_set set;
	struct blit_stats st;
	struct rect bar;
	uint8_t *pix;
	uint32_t red;
	size_t i;

	if (output_open(&o, "mem:120x40:xrgb8888") < 0 ||
	    shadow_init(&sh, &o.fmt) < 0 || damage_init(&d) < 0 ||
	    !(b = blit_create(&o, &sh, &d, -1))) {
		failures++;
		return;
	}
	pix = shadow_resize(&sh, 120, 40);
	red = pixfmt_pack(&o.fmt, 255, 0, 0);
	for (i = 0; i < 120 * 40; i++)
		pixfmt_store(&o.fmt, pix + i * 4, red);
	blit_reset_view(b);
	damage_take(&d, &set, 0);
	blit_pass(b, &set, &st);
	statusline_rect(&o, &bar);
	CHECK(px(&o, 0, 39) == red, "picture not drawn");
	blit_set_status(b, "reconnecting to host in 4 s");
	damage_take(&d, &set, 0);
	blit_pass(b, &set, &st);
	CHECK(px(&o, 0, 39) == pixfmt_pack(&o.fmt, STATUS_BG_R, STATUS_BG_G,
					   STATUS_BG_B),
	      "status bar not drawn");
	CHECK(px(&o, 0, bar.y - 1) == red, "picture above the bar lost");
	blit_set_status(b, NULL);
	damage_take(&d, &set, 0);
	blit_pass(b, &set, &st);
	CHECK(px(&o, 0, 39) == red && px(&o, 60, bar.y + 3) == red,
	      "picture not restored under the bar");
	/* A stand-in display: black with the status line, then the
	 * picture back. */
	blit_set_blank(b, true);
	blit_set_status(b, "HDMI-A-1 is disconnected");
	damage_take(&d, &set, 0);
	blit_pass(b, &set, &st);
	for (i = 0; i < (size_t)bar.y * 120; i++)
		if (px(&o, (int)(i % 120), (int)(i / 120)) != 0)
			break;
	CHECK(i == (size_t)bar.y * 120, "blank: pixel %zu,%zu not black",
	      i % 120, i / 120);
	CHECK(px(&o, 0, 39) ==
		  pixfmt_pack(&o.fmt, STATUS_BG_R, STATUS_BG_G, STATUS_BG_B),
	      "blank: no status bar");
	/* Damage from the server draws nothing while blank. */
	damage_add(&d, &(struct rect){0, 0, 120, 40});
	damage_take(&d, &set, 0);
	blit_pass(b, &set, &st);
	CHECK(px(&o, 10, 10) == 0, "blank: the desktop drawn");
	blit_set_blank(b, false);
	blit_set_status(b, NULL);
	damage_take(&d, &set, 0);
	blit_pass(b, &set, &st);
	CHECK(px(&o, 10, 10) == red && px(&o, 0, 39) == red,
	      "the picture not back after blank");
	blit_destroy(b);
	damage_finish(&d);
	shadow_finish(&sh);
	output_close(&o);
}

int main(void)
{
	check_text("mem:200x60:xrgb8888");
	check_text("mem:160x40:rgb565");
	check_text("mem:1920x1200:rgb888");
	check_blitter();
	if (failures)
		return 1;
	printf("status line: ok\n");
	return 0;
}
