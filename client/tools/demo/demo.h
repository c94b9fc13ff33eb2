/* The embedded demo: a libvncserver on a loopback port serving an animated
 * scene, so vncfb can show something with no server around. The server
 * runs on its own threads (libvncserver's event loop and an animator);
 * demo_* calls are main-thread only. */
#ifndef VNCFB_DEMO_H
#define VNCFB_DEMO_H

#include <stdint.h>

#include "app/session.h"

/* The session's server for --demo: serves on 127.0.0.1 (first free port
 * from 5900); its report says what happened (frames served, updates
 * received, the output they were drawn on). */
extern const struct session_server demo_server;

/* The scene itself, for tests: draw frame n of a w x h xrgb8888 picture. */
void demo_draw(uint32_t *px, int w, int h, int stride_px, uint64_t n);

#endif
