/* The console tests' parts of the test server (testserver.c): the bars
 * picture, exact at the depth a guest's framebuffer has, the arrow
 * cursor, QEMU's extended key events. Not part of vncfb.
 *
 * Threads: none (the server is single-threaded). */
#ifndef TESTSERVER_CONSOLE_H
#define TESTSERVER_CONSOLE_H

#include <rfb/rfb.h>

/* Pixel (x, y) of the bars picture at w x h as R, G, B, each channel
 * kept to what depth (15, 16 or 24) reproduces exactly. */
void console_bars(int x, int y, int w, int h, int depth, unsigned char *rgb);
/* An 8x8 arrow, hot spot 0,0, solid red in s's format. */
rfbCursorPtr console_arrow(rfbScreenInfoPtr s);
/* Offer QEMU's extended key events; each one printed as
 * "XKEY <down> 0x<keysym> 0x<xt code>". */
void console_qemu_keys(void);

#endif
