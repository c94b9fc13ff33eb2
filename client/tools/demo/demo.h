/* The embedded demo: a libvncserver on a loopback port serving an animated
 * scene, so vncfb can show something with no server around. The server
 * runs on its own threads (libvncserver's event loop and an animator);
 * demo_* calls are main-thread only. */
#ifndef VNCFB_DEMO_H
#define VNCFB_DEMO_H

#include <stdbool.h>
#include <stdint.h>

#include "app/session.h"

/* The session's server for --demo: serves on 127.0.0.1 (first free port
 * from 5900), in Open H.264 (demo_h264.h) when --encodings names h264
 * and vncfb is built with libavcodec; its report says what happened (frames served, updates
 * received, the output they were drawn on). */
extern const struct session_server demo_server;

#endif
