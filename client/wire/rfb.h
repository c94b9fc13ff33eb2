/* RFB protocol numbers for vncfb's own message reader and decoders (RFC
 * 6143 and the community extensions), and the limits vncfb puts on what a
 * server may announce. No rfbClient here: the wrapper (client/net/vnc_priv.h) keeps that.
 *
 * Threads: constants only. */
#ifndef VNCFB_RFB_H
#define VNCFB_RFB_H

#include <stdint.h>

/* Server-to-client message types. */
enum {
	RFB_MSG_FB_UPDATE = 0,
	RFB_MSG_COLOUR_MAP = 1,
	RFB_MSG_BELL = 2,
	RFB_MSG_CUT_TEXT = 3,
};

/* Encodings and pseudo-encodings (signed, as on the wire). */
#define RFB_ENC_RAW 0
#define RFB_ENC_COPYRECT 1
#define RFB_ENC_RRE 2
#define RFB_ENC_CORRE 4
#define RFB_ENC_HEXTILE 5
#define RFB_ENC_ZLIB 6
#define RFB_ENC_TIGHT 7
#define RFB_ENC_ULTRA 9
#define RFB_ENC_TRLE 15
#define RFB_ENC_ZRLE 16
#define RFB_ENC_ZYWRLE 17
#define RFB_ENC_H264 50 /* Open H.264 */
#define RFB_ENC_COMPRESS0 (-256)
#define RFB_ENC_XCURSOR (-240)
#define RFB_ENC_RICHCURSOR (-239)
#define RFB_ENC_POINTERPOS (-232)
#define RFB_ENC_LASTRECT (-224)
#define RFB_ENC_DESKTOPSIZE (-223)
#define RFB_ENC_QUALITY0 (-32)
#define RFB_ENC_QEMU_KEYS (-258)
#define RFB_ENC_EXTDESKTOPSIZE (-308)
#define RFB_ENC_DESKTOPNAME (-307)
#define RFB_ENC_LEDSTATE ((int32_t)0xFFFE0000)

/* Client message vncfb writes itself: QEMU's extended key event. */
#define RFB_MSG_QEMU 255
#define RFB_QEMU_KEY 0

/* Remote desktops larger than this are refused: RFB allows 65535x65535,
 * which would be a 16 GiB shadow. */
#define RFB_MAX_DIM 16384
#define RFB_MAX_FB_BYTES ((uint64_t)1 << 30)
/* Cursor shapes are shown up to this size a side; larger ones up to
 * RFB_MAX_CURSOR_READ are cut down around the hot spot, beyond that they
 * are a protocol error. */
#define RFB_MAX_CURSOR 256
#define RFB_MAX_CURSOR_READ 1024
/* ServerCutText longer than this ends the connection; shorter is read
 * and dropped (a console has no clipboard). */
#define RFB_MAX_CUT_TEXT ((uint32_t)16 << 20)
/* The bytes of one rectangle vncfb keeps before decoding it (a raw
 * hextile update of an 8K desktop is 133 MB). */
#define RFB_MAX_RECT_DATA ((size_t)512 << 20)
/* Desktop names (ServerInit's is libvncclient's; the pseudo-encoding's is
 * ours). */
#define RFB_MAX_NAME 4096

#endif
