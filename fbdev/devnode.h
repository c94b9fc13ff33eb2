/* Why a device node would not open, in the words the console outputs
 * share (devnode.c): the DRM and the framebuffer device outputs.
 *
 * Threads: pure, any thread. */
#ifndef VNCFB_FBDEV_DEVNODE_H
#define VNCFB_FBDEV_DEVNODE_H

#include <stddef.h>

/* Why open(path) failed with err, as one line for the user (devnode.c):
 * what the node should be ("framebuffer"), what to check when it is
 * missing, the group to join when access is denied. */
void devnode_open_error(const char *path, int err, const char *what,
			const char *absent_hint, char *buf, size_t len);

#endif
