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
#define RFB_ENC_ZLIBHEX 8
#define RFB_ENC_ULTRA 9
#define RFB_ENC_TRLE 15
#define RFB_ENC_ZRLE 16
#define RFB_ENC_ZYWRLE 17
#define RFB_ENC_JPEG 21
#define RFB_ENC_ULTRAZIP ((int32_t)0xFFFF0009)
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
#define RFB_ENC_CURSOR_ALPHA (-314)
#define RFB_ENC_EXT_MOUSE (-316)
#define RFB_ENC_LEDSTATE ((int32_t)0xFFFE0000)
#define RFB_ENC_FENCE (-312)
#define RFB_ENC_CONTINUOUS (-313)

/* The ContinuousUpdates and Fence extensions' messages: the client's
 * EnableContinuousUpdates and the server's EndOfContinuousUpdates share a
 * number, as ClientFence and ServerFence do. */
#define RFB_MSG_CONTINUOUS 150
#define RFB_MSG_FENCE 248
#define RFB_FENCE_BLOCK_BEFORE (1u << 0)
#define RFB_FENCE_BLOCK_AFTER (1u << 1)
#define RFB_FENCE_SYNC_NEXT (1u << 2)
#define RFB_FENCE_REQUEST (1u << 31)
/* The flags a fence may carry that vncfb knows. */
#define RFB_FENCE_KNOWN                                                        \
	(RFB_FENCE_BLOCK_BEFORE | RFB_FENCE_BLOCK_AFTER | RFB_FENCE_SYNC_NEXT |\
	 RFB_FENCE_REQUEST)
#define RFB_FENCE_MAX_PAYLOAD 64

/* Client messages vncfb writes itself: update requests, keys, the pointer
 * (for ExtendedMouseButtons' form), QEMU's extended key event,
 * SetDesktopSize (the ExtendedDesktopSize extension). */
#define RFB_MSG_UPDATE_REQUEST 3
#define RFB_MSG_KEY 4
#define RFB_MSG_POINTER 5
#define RFB_MSG_QEMU 255
#define RFB_QEMU_KEY 0
#define RFB_MSG_SET_DESKTOP_SIZE 251

/* An ExtendedDesktopSize rectangle's x: why the layout changed (a value
 * not listed is a server-side change); its y, for RFB_EDS_THIS_CLIENT:
 * the status of this client's SetDesktopSize (a value not listed is an
 * unknown failure). */
enum {
	RFB_EDS_SERVER = 0,
	RFB_EDS_THIS_CLIENT = 1,
	RFB_EDS_OTHER_CLIENT = 2,
};
enum {
	RFB_EDS_OK = 0,
	RFB_EDS_PROHIBITED = 1,
	RFB_EDS_NO_RESOURCES = 2,
	RFB_EDS_INVALID = 3,
	RFB_EDS_FORWARDED = 4,
};
/* The screens of one layout: a U8 count on the wire. */
#define RFB_MAX_SCREENS 255

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
