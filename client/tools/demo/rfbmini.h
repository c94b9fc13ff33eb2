/* The little of an RFB 3.8 server that the demo's Open H.264 server, the
 * tests' h264server and tests/vm's ptrserver need, over a blocking
 * socket: the handshake (security None), the client's messages read
 * (pointer events kept, the rest dropped), and the big-endian numbers
 * of the wire. libvncserver cannot send Open
 * H.264 (demo_h264.h says why).
 *
 * Threads: one connection per thread. stop (may be NULL) is polled
 * while a read waits, so another thread can end it. */
#ifndef VNCFB_RFBMINI_H
#define VNCFB_RFBMINI_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RFBMINI_ENC_H264 50
#define RFBMINI_ENC_EXT_MOUSE (-316)

/* What rfbmini_msg has learnt of the client. */
struct rfbmini_in {
	bool h264;	/* its SetEncodings offered Open H.264 */
	bool ext_mouse;	/* ... and ExtendedMouseButtons */
	/* Set by the server once it has confirmed ExtendedMouseButtons:
	 * a PointerEvent with bit 7 set then has one more byte. */
	bool ext_confirmed;
	/* The last PointerEvent: buttons bit N-1 for button N (1..9;
	 * 8 and 9 from the extended byte). */
	int x, y;
	uint32_t buttons;
	/* The last KeyEvent. */
	bool key_down;
	uint32_t keysym;
};

/* A rectangle header: x, y, w, h, encoding. */
void rfbmini_rect(uint8_t b[12], int x, int y, int w, int h, int32_t enc);
/* All n bytes: 0, or -1 (the peer went, or an error). */
int rfbmini_put(int fd, const void *p, size_t n);
/* Version, security None, ClientInit, ServerInit of a w x h desktop in
 * xrgb8888 (little-endian) named name: 0 or -1. */
int rfbmini_handshake(int fd, int w, int h, const char *name,
		      const atomic_bool *stop);
/* One client message: 1 for a FramebufferUpdateRequest, 0 for another
 * (SetEncodings sets *h264: whether it offers Open H.264), -1 when the
 * client went or sent a type it does not know. */
int rfbmini_client_msg(int fd, bool *h264, const atomic_bool *stop);
/* The same, keeping what it reads in in: 1 for a
 * FramebufferUpdateRequest, 2 for a PointerEvent, 3 for a KeyEvent, 0
 * for another, -1. */
int rfbmini_msg(int fd, struct rfbmini_in *in, const atomic_bool *stop);

#endif
