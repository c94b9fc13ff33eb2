/* A built-in 5x7 bitmap font for the status line (no font files on a bare
 * console). Upper case only; lower case maps onto it. Any thread. */
#ifndef VNCFB_FONT_H
#define VNCFB_FONT_H

#include <stdint.h>

#define FONT_W 5
#define FONT_H 7
/* Horizontal advance: glyph plus one column of space. */
#define FONT_ADVANCE (FONT_W + 1)

/* FONT_H rows for c, bit (FONT_W - 1 - x) set where column x is ink.
 * Characters without a glyph get a hollow box. */
const uint8_t *font_glyph(char c);

#endif
