/* TCP connect for a VNC connection (vnc_tcp.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/clock.h"
#include "net/guard.h"
#include "util/log.h"
#include "net/vnc_tcp.h"

void vnc_tcp_peer(char *buf, size_t len, const char *host, int port)
{
	if (strchr(host, ':'))
		snprintf(buf, len, "[%s]:%d", host, port);
	else
		snprintf(buf, len, "%s:%d", host, port);
}

int vnc_tcp_connect(const struct vnc_tcp_dest *dst, int timeout_ms,
		    const char *peer, enum vnc_error *err)
{
	const char *host = dst->host;
	int port = dst->port;
	struct addrinfo hints, *res, *ai;
	char portstr[16];
	int fd = -1, ret, saved = ECONNREFUSED;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_ADDRCONFIG;
	snprintf(portstr, sizeof(portstr), "%d", port);
	ret = getaddrinfo(host, portstr, &hints, &res);
	if (ret == EAI_ADDRFAMILY || ret == EAI_NONAME || ret == EAI_FAIL ||
	    ret == EAI_AGAIN) {
		/* AI_ADDRCONFIG hides ::1 on hosts with only loopback. */
		hints.ai_flags = 0;
		ret = getaddrinfo(host, portstr, &hints, &res);
	}
	if (ret != 0) {
		log_error("cannot resolve %s: %s", host,
			  ret == EAI_SYSTEM ? strerror(errno)
					    : gai_strerror(ret));
		*err = VNC_ERR_RESOLVE;
		return -1;
	}
	for (ai = res; ai; ai = ai->ai_next) {
		struct pollfd pfd[2];
		int flags, soerr = 0, wait;
		uint64_t until = monotonic_ns() + (uint64_t)timeout_ms * 1000000u;
		socklen_t sl = sizeof(soerr);

		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC,
			    ai->ai_protocol);
		if (fd < 0) {
			saved = errno;
			continue;
		}
		flags = fcntl(fd, F_GETFL);
		fcntl(fd, F_SETFL, flags | O_NONBLOCK);
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0 &&
		    errno != EINPROGRESS) {
			saved = errno;
			goto next;
		}
		/* Waits that a quit signal or --exit-after cut short. */
		pfd[0] = (struct pollfd){ .fd = fd, .events = POLLOUT };
		pfd[1] = (struct pollfd){ .fd = dst->abort_fd, .events = POLLIN };
		do {
			uint64_t now = monotonic_ns(), end = until;

			if (dst->end_ns && dst->end_ns < end)
				end = dst->end_ns;
			wait = end > now ? (int)((end - now + 999999) / 1000000)
					 : 0;
			ret = poll(pfd, dst->abort_fd > 0 ? 2 : 1, wait);
			if (guard_check(dst->abort_fd, dst->end_ns) !=
			    GUARD_NONE) {
				close(fd);
				freeaddrinfo(res);
				*err = VNC_ERR_INTERRUPTED;
				return -1;
			}
		} while ((ret < 0 && errno == EINTR) ||
			 (ret > 0 && !(pfd[0].revents)));
		if (ret == 0) {
			saved = ETIMEDOUT;
			goto next;
		}
		if (ret < 0 ||
		    getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) < 0) {
			saved = errno;
			goto next;
		}
		if (soerr) {
			saved = soerr;
			goto next;
		}
		fcntl(fd, F_SETFL, flags);
		{
			int one = 1;

			setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one,
				   sizeof(one));
		}
		freeaddrinfo(res);
		return fd;
next:
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	log_error("cannot connect to %s: %s", peer, strerror(saved));
	*err = VNC_ERR_CONNECT;
	return -1;
}
