/* The test server's JPEG encoding (21) rectangles (testserver_jpeg.c).
 * Single-threaded, between libvncserver's event processing. */
#ifndef VNCFB_TESTSERVER_JPEG_H
#define VNCFB_TESTSERVER_JPEG_H

#include <stdint.h>

#include <rfb/rfb.h>

/* Take encoding 21 from the clients that offer it (before
 * rfbInitServer). */
void jpeg_register(void);
/* fb (w x h, R,G,B,X bytes) as JPEG rectangles in MODE at quality to
 * every client that offered encoding 21: how many got it, -1 for a bad
 * mode or no memory. */
int jpeg_send(rfbScreenInfoPtr screen, const uint32_t *fb, int w, int h,
	      const char *mode, int quality);

#endif
