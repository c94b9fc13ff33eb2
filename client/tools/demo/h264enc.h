/* An Open H.264 encoder for the demo (--demo --encodings h264), the
 * tests, their server and the bench (libavcodec's libx264, else
 * openh264): constrained baseline, no frame held back, the colour space
 * written into the SPS (BT.601, limited range), SPS and PPS before every
 * IDR frame. Built with libavcodec only (VNCFB_HAVE_H264).
 *
 * Threads: one encoder per thread. */
#ifndef VNCFB_H264ENC_H
#define VNCFB_H264ENC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct h264enc;

/* An encoder of w x h frames (even sizes: 4:2:0), NULL with a line
 * logged when libavcodec has no H.264 encoder (or it fails). crf: x264's
 * constant quality (0 lossless, 18 visually lossless, 23 its default). */
struct h264enc *h264enc_create(int w, int h, int crf);
void h264enc_destroy(struct h264enc *e);
/* Which encoder: "libx264". */
const char *h264enc_name(const struct h264enc *e);
/* One frame from R,G,B byte rows (stride bytes apart): its Annex B bytes
 * in *out (valid until the next call), an IDR frame when idr. 0 or -1. */
int h264enc_frame(struct h264enc *e, const uint8_t *rgb, size_t stride,
		  bool idr, const uint8_t **out, size_t *len);

#endif
