/* The service manager's notification datagrams. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "console/sdnotify.h"
#include "util/log.h"

_Static_assert(sizeof(struct sockaddr_un) <= sizeof(((struct sdnotify *)0)->addr),
	       "room for the socket's address");

void sdnotify_init(struct sdnotify *n)
{
	const char *path = getenv("NOTIFY_SOCKET");
	const char *usec = getenv("WATCHDOG_USEC");
	const char *pid = getenv("WATCHDOG_PID");
	struct sockaddr_un sa;
	size_t len;

	memset(n, 0, sizeof(*n));
	n->fd = -1;
	if (!path || !*path)
		return;
	len = strlen(path);
	if ((path[0] != '/' && path[0] != '@') || len >= sizeof(sa.sun_path)) {
		log_warn("NOTIFY_SOCKET=%s: not a socket path; not telling the "
			 "service manager anything", path);
		return;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	memcpy(sa.sun_path, path, len);
	/* "@name": the abstract namespace (Linux), a NUL first. */
	if (path[0] == '@')
		sa.sun_path[0] = '\0';
	n->addr_len = (unsigned)(offsetof(struct sockaddr_un, sun_path) + len +
				 (path[0] == '@' ? 0 : 1));
	memcpy(n->addr, &sa, sizeof(sa));
	n->fd = socket(AF_UNIX, SOCK_DGRAM, 0);
	if (n->fd < 0) {
		log_warn("socket (NOTIFY_SOCKET): %s", strerror(errno));
		return;
	}
	(void)fcntl(n->fd, F_SETFD, FD_CLOEXEC);
	if (usec && *usec && (!pid || !*pid || atol(pid) == (long)getpid())) {
		char *end;
		unsigned long long us = strtoull(usec, &end, 10);

		if (!*end && us > 0)
			n->watchdog_ns = (uint64_t)us * 1000u;
	}
	log_debug("telling the service manager at %s how vncfb is (watchdog "
		  "%s)", path, n->watchdog_ns ? "on" : "off");
}

void sdnotify_finish(struct sdnotify *n)
{
	if (n->fd >= 0)
		close(n->fd);
	n->fd = -1;
}

bool sdnotify_active(const struct sdnotify *n)
{
	return n->fd >= 0;
}

int sdnotify_send(struct sdnotify *n, const char *msg)
{
	static bool said;

	if (n->fd < 0)
		return 0;
	if (sendto(n->fd, msg, strlen(msg), MSG_NOSIGNAL,
		   (const struct sockaddr *)n->addr,
		   (socklen_t)n->addr_len) < 0) {
		int err = errno;

		if (!said)
			log_warn("sendto (NOTIFY_SOCKET): %s", strerror(err));
		said = true;
		return -err;
	}
	return 0;
}

void sdnotify_ready(struct sdnotify *n)
{
	if (n->ready || n->fd < 0)
		return;
	n->ready = true;
	sdnotify_send(n, "READY=1");
}

void sdnotify_status(struct sdnotify *n, const char *text)
{
	char msg[sizeof(n->status) + 8];

	if (n->fd < 0 || !strncmp(n->status, text, sizeof(n->status) - 1))
		return;
	snprintf(n->status, sizeof(n->status), "%s", text);
	/* One line: the protocol's lines are KEY=VALUE. */
	n->status[strcspn(n->status, "\n")] = '\0';
	snprintf(msg, sizeof(msg), "STATUS=%s", n->status);
	sdnotify_send(n, msg);
}

void sdnotify_watchdog(struct sdnotify *n)
{
	if (n->watchdog_ns)
		sdnotify_send(n, "WATCHDOG=1");
}

uint64_t sdnotify_ping_ns(const struct sdnotify *n)
{
	return n->watchdog_ns / 2;
}
