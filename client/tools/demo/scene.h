/* The demo's animated scene, drawn by the demo servers (demo.c in
 * libvncserver's framebuffer, demo_h264.c into its encoder) and the
 * tests.
 *
 * Threads: any (pure). */
#ifndef VNCFB_SCENE_H
#define VNCFB_SCENE_H

#include <stdint.h>

/* Draw frame n of a w x h xrgb8888 picture (R in the low byte, as
 * libvncserver's default format has it). */
void demo_draw(uint32_t *px, int w, int h, int stride_px, uint64_t n);

#endif
