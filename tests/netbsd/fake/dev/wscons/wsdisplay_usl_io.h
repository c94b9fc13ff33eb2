/* Stand-in for NetBSD's <dev/wscons/wsdisplay_usl_io.h>: see
 * wsconsio.h beside it. */
#ifndef FAKE_WSDISPLAY_USL_IO_H
#define FAKE_WSDISPLAY_USL_IO_H

#define VT_SETMODE 0x7601UL
#define VT_GETMODE 0x7602UL
#define VT_RELDISP 0x7603UL
#define VT_ACTIVATE 0x7604UL
#define VT_WAITACTIVE 0x7605UL

#define VT_AUTO 0
#define VT_PROCESS 1
#define VT_FALSE 0
#define VT_TRUE 1
#define VT_ACKACQ 2

struct vt_mode {
	char mode, waitv;
	short relsig, acqsig, frsig;
};

#endif
