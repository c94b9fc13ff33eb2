/* VNC passwords: from a vncpasswd file, $VNCFB_PASSWORD, or a prompt.
 * Never from argv, never logged. Main thread. */
#ifndef VNCFB_PASSWD_H
#define VNCFB_PASSWD_H

#include <stddef.h>
#include <stdint.h>

/* Check that path is a regular file readable by us, not readable or
 * writable by group/other (as ssh insists for keys), and in vncpasswd's
 * format (8 or 16 bytes, not a plain-text password). 0 or -errno, logged. */
int passwd_check_file(const char *path);
/* Decode the 8 obfuscated bytes vncpasswd writes. Returns a malloc'd
 * string, or NULL (logged). */
char *passwd_read_file(const char *path);

/* The GetPassword callback: ctx is the --passwd path or NULL. */
char *passwd_get(void *ctx);

/* Wipe and free. */
void passwd_free(char *pw);

#endif
