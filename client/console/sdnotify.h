/* The service manager's notification protocol (systemd's sd_notify, as
 * its documentation describes the datagram): READY=1 once the first
 * picture is on the screen, STATUS= what the status line says, and
 * WATCHDOG=1 pings while the pipeline makes progress, so that a unit
 * with Type=notify and WatchdogSec= restarts a viewer that hangs.
 * Written here rather than linked from libsystemd: a few lines of POSIX
 * (one AF_UNIX datagram to $NOTIFY_SOCKET, "@" for an abstract socket),
 * no library on the NetBSD build or on a minimal image, and nothing
 * more of libsystemd is used. Without $NOTIFY_SOCKET every call is a
 * no-op.
 *
 * Threads: main thread only. */
#ifndef VNCFB_SDNOTIFY_H
#define VNCFB_SDNOTIFY_H

#include <stdbool.h>
#include <stdint.h>

struct sdnotify {
	int fd;			/* -1: no service manager to tell */
	/* struct sockaddr_un, kept opaque here. */
	unsigned char addr[112];
	unsigned addr_len;
	uint64_t watchdog_ns;	/* WATCHDOG_USEC for us, 0: none */
	bool ready;
	char status[160];	/* the last STATUS= sent */
};

/* From the environment ($NOTIFY_SOCKET, $WATCHDOG_USEC, $WATCHDOG_PID).
 * A socket that cannot be made is logged once and leaves n inert.
 * Always succeeds. */
void sdnotify_init(struct sdnotify *n);
void sdnotify_finish(struct sdnotify *n);
/* Whether a service manager listens. */
bool sdnotify_active(const struct sdnotify *n);
/* Send "READY=1" (once), "STATUS=text" (when it changed), "WATCHDOG=1". */
void sdnotify_ready(struct sdnotify *n);
void sdnotify_status(struct sdnotify *n, const char *text);
void sdnotify_watchdog(struct sdnotify *n);
/* How often to ping (half WatchdogSec, as systemd advises), 0: never. */
uint64_t sdnotify_ping_ns(const struct sdnotify *n);
/* Send one raw message ("KEY=VALUE\n..."). 0 or -errno (logged once). */
int sdnotify_send(struct sdnotify *n, const char *msg);

#endif
