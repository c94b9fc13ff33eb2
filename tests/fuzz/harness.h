/* The fuzz harness: arbitrary server bytes through libvncclient, vnc.c's
 * callbacks, the shadow, damage and the blitter into a mem output. Used by
 * the libFuzzer target and by the replay driver that CI runs. */
#ifndef VNCFB_FUZZ_HARNESS_H
#define VNCFB_FUZZ_HARNESS_H

#include <stddef.h>
#include <stdint.h>

/* Input layout: byte 0 selects the client's pixel format (low 2 bits:
 * xrgb8888, rgb565, bgrx8888, rgb888 output), the rest is what the
 * "server" sends, from its first byte ("RFB 003.008\n") on.
 *
 * fuzz_handshake (the handshake target) also takes the client's security
 * settings from byte 0 (FUZZ_HS_*) and ends the session once the
 * handshake is over: versions, security types, VeNCrypt sub-types,
 * reasons, VNC authentication, ServerInit and the desktop name. */
#define FUZZ_HS_INSECURE 0x04	/* --insecure */
#define FUZZ_HS_CA 0x08		/* --ca (the test CA), else the default */
#define FUZZ_HS_NOPASS 0x10	/* no password to give */
#define FUZZ_HS_VIEWONLY 0x20	/* --view-only */
struct fuzz_result {
	int connected;		/* handshake completed */
	int error;		/* enum vnc_error that ended the session */
	unsigned long updates;	/* complete FramebufferUpdates */
	unsigned long damage;	/* rectangles handed to the blitter */
	unsigned long cursors;	/* cursor shapes accepted */
	uint32_t width, height;	/* remote desktop size at the end */
};

int fuzz_run(const uint8_t *data, size_t size, struct fuzz_result *res);
int fuzz_handshake(const uint8_t *data, size_t size,
		   struct fuzz_result *res);
const char *fuzz_error_name(int error);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
