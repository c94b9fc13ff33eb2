/* Dropping root: a vncfb started as root opens the console devices, then
 * becomes an unprivileged user before it talks to the network, and turns
 * off core dumps (they would hold the VNC password). Main thread, before
 * other threads start. */
#ifndef VNCFB_PRIVS_H
#define VNCFB_PRIVS_H

#include <stdbool.h>

/* The user a root-started vncfb becomes without --user. */
#define PRIVS_DEFAULT_USER "nobody"

/* No core files from this process (RLIMIT_CORE 0). 0 or -errno. */
int privs_no_core_dumps(void);
/* When running as root, switch to user (NULL: PRIVS_DEFAULT_USER): its
 * uid, gid and supplementary groups (nobody: its group and 'input'), and
 * check that root cannot be regained. Not root, or no nobody on the
 * system (warned): nothing (0). 0 or -errno, logged. */
int privs_drop(const char *user);
/* Whether privs_drop would do something. */
bool privs_are_root(void);

#endif
