/* The demo's Open H.264 server (--demo --encodings h264): the same
 * animated scene, sent as Open H.264 rectangles encoded by libavcodec.
 * libvncserver has no H.264 encoder and no hook for one, so this is a
 * small RFB 3.8 server of its own (security None, one client at a time)
 * on one thread. Built with libavcodec only (VNCFB_HAVE_H264).
 *
 * Threads: start and stop on the main thread; frames any thread. */
#ifndef VNCFB_DEMO_H264_H
#define VNCFB_DEMO_H264_H

#include <stdint.h>

struct demo_h264;

/* Serve w x h (even) on 127.0.0.1, the first free port from 5900; *port
 * set. NULL on failure (logged). */
struct demo_h264 *demo_h264_start(int w, int h, int *port);
/* Frames sent so far. */
uint64_t demo_h264_frames(const struct demo_h264 *d);
/* Stop the thread and free. NULL: no-op. */
void demo_h264_stop(struct demo_h264 *d);

#endif
