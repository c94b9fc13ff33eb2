/* The embedded demo: a libvncserver on a loopback port serving an animated
 * scene, so vncfb can show something with no server around. The server
 * runs on its own threads (libvncserver's event loop and an animator);
 * demo_* calls are main-thread only. */
#ifndef VNCFB_DEMO_H
#define VNCFB_DEMO_H

#include <stdbool.h>
#include <stdint.h>

struct demo;
struct output;

/* Start serving on 127.0.0.1 (first free port from 5900). where names the
 * output it will be shown on, for the report; h264: in Open H.264
 * (demo_h264.h), where vncfb is built with libavcodec. NULL on failure
 * (logged). */
struct demo *demo_start(const char *where, bool h264);
int demo_port(const struct demo *d);
/* Print what happened (frames served, updates received, output). */
void demo_report(struct demo *d, uint64_t updates, const struct output *out);
void demo_stop(struct demo *d);

/* The scene itself, for tests: draw frame n of a w x h xrgb8888 picture. */
void demo_draw(uint32_t *px, int w, int h, int stride_px, uint64_t n);

#endif
