/* Passwords: from a vncpasswd file (VNC authentication's 8 characters),
 * a plain-text file (--password-file), $VNCFB_PASSWORD or TigerVNC's
 * $VNC_PASSWORD, or a prompt on the terminal.
 * Never from argv, never logged. Main thread. */
#ifndef VNCFB_PASSWD_H
#define VNCFB_PASSWD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Check that path is a regular file readable by us, not readable or
 * writable by group/other (as ssh insists for keys), and in vncpasswd's
 * format (8 or 16 bytes, not a plain-text password). 0 or -errno, logged. */
int passwd_check_file(const char *path);
/* Decode the 8 obfuscated bytes vncpasswd writes. Returns a malloc'd
 * string, or NULL (logged). */
char *passwd_read_file(const char *path);

/* --password-file: the same checks of the file (regular, private), its
 * first line the password, any length (up to 4 KB). 0 or -errno and
 * the password or NULL, logged. */
int passwd_check_plain(const char *path);
char *passwd_read_plain(const char *path);

/* label on /dev/tty, a line read back (without echo unless echo): a
 * malloc'd string, or NULL when there is no terminal. */
char *passwd_prompt(const char *label, bool echo);

/* vnc_config's get_password: ctx is the --passwd path (passwd_get) or
 * the --password-file path (passwd_get_plain), or NULL: then
 * $VNCFB_PASSWORD, $VNC_PASSWORD, the terminal. */
char *passwd_get(void *ctx);
char *passwd_get_plain(void *ctx);

/* Wipe and free. */
void passwd_free(char *pw);

#endif
