/* The status line: one line of text in a bar along the bottom of the
 * screen ("reconnecting to HOST in 4 s"), in the built-in font, scaled up
 * on large screens. Drawn by the blit thread (see blit_set_status). */
#ifndef VNCFB_STATUSLINE_H
#define VNCFB_STATUSLINE_H

#include <stdint.h>

#include "output/output.h"
#include "util/rect.h"

/* Colours of the bar (8-bit channels). */
#define STATUS_BG_R 24
#define STATUS_BG_G 24
#define STATUS_BG_B 24
#define STATUS_FG_R 255
#define STATUS_FG_G 208
#define STATUS_FG_B 0

/* Integer scale of the font for this output, and the bar's rectangle. */
int statusline_scale(const struct output *out);
void statusline_rect(const struct output *out, struct rect *r);
/* Draw text into the mapping; row is scratch space of at least
 * out->width * 4 bytes. Returns the bytes written. Blit thread (or the
 * owner of the mapping). */
uint64_t statusline_draw(struct output *out, const char *text, uint8_t *row);

#endif
