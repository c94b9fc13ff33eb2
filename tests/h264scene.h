/* The picture the Open H.264 test programs encode (tests/integration/
 * h264server.c, tests/fuzz/mkh264seeds.c; tests/bench/xanim.c's wave
 * scene, the same animation for Xvnc's Tight JPEG): red and green
 * gradients across and down, a blue wave moving along the diagonal,
 * R,G,B bytes.
 * Pure functions of their arguments; any thread. */
#ifndef VNCFB_TESTS_H264SCENE_H
#define VNCFB_TESTS_H264SCENE_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

/* w x h of rgb (3 bytes a pixel, rows packed): the wave at phase, one
 * period of it every 2 pi * period pixels of x + y. */
static inline void h264scene_wave(uint8_t *rgb, int w, int h, long phase,
				  double period)
{
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			uint8_t *p = rgb + ((size_t)y * w + x) * 3;

			p[0] = (uint8_t)(x * 255 / (w - 1));
			p[1] = (uint8_t)(y * 255 / (h - 1));
			p[2] = (uint8_t)(128 +
					 100 * sin((x + y + phase) / period));
		}
}

/* h264server's frame t at w x h: the wave and a red box that crosses
 * the screen (the same family as tests/unit/test_h264.c's). */
static inline void h264scene_frame(uint8_t *rgb, int w, int h,
				   unsigned long t)
{
	int bw = w / 8 > 16 ? w / 8 : 16;
	int bx = (int)((t * 7) % (unsigned long)(w > bw ? w - bw : 1));

	h264scene_wave(rgb, w, h, (long)(t * 3), 15.0);
	for (int y = h / 3; y < h && y < h / 3 + bw; y++)
		for (int x = bx; x < w && x < bx + bw; x++) {
			uint8_t *p = rgb + ((size_t)y * w + x) * 3;

			p[0] = 240;
			p[1] = 32;
			p[2] = 32;
		}
}

#endif
