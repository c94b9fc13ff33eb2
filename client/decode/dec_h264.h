/* Open H.264 (encoding 50, dec_h264.c): the decoder contexts a
 * connection keeps, one per rectangle position, and what the rest of the
 * program may ask of them. Built only with libavcodec (VNCFB_HAVE_H264).
 *
 * Threads: the table is the reader's (the main thread's): read() and
 * dec_h264_free, once no job can run, there. A context is advanced only
 * by decode(), on whichever thread the pool runs its jobs, one job at a
 * time. dec_h264_version and dec_h264_au_end: any thread. */
#ifndef VNCFB_DEC_H264_H
#define VNCFB_DEC_H264_H

#include <stddef.h>
#include <stdint.h>

/* Contexts kept at most; the least recently used goes past this
 * (rfbproto leaves the number to the client; TigerVNC keeps 64). */
#define DEC_H264_MAX_CTX 64
/* And the live contexts' rectangles cover at most this many times the
 * desktop's pixels (each keeps its reference frames). */
#define DEC_H264_AREA 4

struct dec_h264;

/* "libavcodec 59.37.100, libswscale 6.7.100" (--version). */
const char *dec_h264_version(void);
/* The length of the Annex B access unit at the start of p[0..n): the
 * bytes up to the next picture's first NAL unit, or n. */
size_t dec_h264_au_end(const uint8_t *p, size_t n);

#endif
