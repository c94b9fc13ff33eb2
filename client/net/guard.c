/* The connection watchdog (guard.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/clock.h"
#include "net/guard.h"
#include "util/log.h"

#define FOREVER UINT64_MAX

struct guard {
	pthread_t th;
	int fd, abort_fd;
	uint64_t end_ns;
	int wake[2];
	_Atomic uint64_t deadline;	 /* 0: none */
	_Atomic uint64_t sleeping_until; /* what the watchdog waits for */
	_Atomic int fired;
	_Atomic bool stop;
};

static void fire(struct guard *g, enum guard_why why)
{
	int none = GUARD_NONE;

	if (atomic_compare_exchange_strong(&g->fired, &none, (int)why))
		shutdown(g->fd, SHUT_RDWR);
}

static void drain(int fd)
{
	char buf[64];

	while (read(fd, buf, sizeof(buf)) > 0)
		;
}

static void *watch(void *arg)
{
	struct guard *g = arg;

	while (!atomic_load(&g->stop)) {
		uint64_t now = monotonic_ns(), dl = atomic_load(&g->deadline);
		uint64_t until = FOREVER;
		struct pollfd pfd[2];
		int n = 0, timeout = -1;

		if (dl && now >= dl)
			fire(g, GUARD_DEADLINE);
		if (g->end_ns && now >= g->end_ns)
			fire(g, GUARD_END);
		if (atomic_load(&g->fired) == GUARD_NONE) {
			if (dl)
				until = dl;
			if (g->end_ns && g->end_ns < until)
				until = g->end_ns;
		}
		atomic_store(&g->sleeping_until, until);
		/* An arm between the load and the store: look again. */
		if (atomic_load(&g->deadline) != dl)
			continue;
		if (until != FOREVER)
			timeout = until - now < (uint64_t)1 << 40
				      ? (int)((until - now + 999999) / 1000000)
				      : 1 << 30;
		pfd[n++] = (struct pollfd){.fd = g->wake[0], .events = POLLIN};
		if (g->abort_fd > 0 && atomic_load(&g->fired) == GUARD_NONE)
			pfd[n++] = (struct pollfd){.fd = g->abort_fd,
						   .events = POLLIN};
		if (poll(pfd, (nfds_t)n, timeout) < 0) {
			if (errno == EINTR)
				continue;
			log_error("guard: poll: %s", strerror(errno));
			break;
		}
		if (pfd[0].revents & POLLIN)
			drain(g->wake[0]);
		if (n > 1 && (pfd[1].revents & (POLLIN | POLLHUP | POLLERR)))
			fire(g, GUARD_ABORT);
	}
	return NULL;
}

static void wake(struct guard *g)
{
	char c = 0;

	if (write(g->wake[1], &c, 1) < 0) {
		/* Full: a wake-up is pending anyway. */
	}
}

struct guard *guard_start(int fd, int abort_fd, uint64_t end_ns)
{
	struct guard *g = calloc(1, sizeof(*g));
	sigset_t all, old;
	int err;

	if (!g) {
		log_error("out of memory");
		return NULL;
	}
	g->fd = fd;
	g->abort_fd = abort_fd;
	g->end_ns = end_ns;
	atomic_init(&g->deadline, 0);
	atomic_init(&g->sleeping_until, 0);
	atomic_init(&g->fired, GUARD_NONE);
	atomic_init(&g->stop, false);
	if (pipe(g->wake) < 0) {
		log_error("pipe: %s", strerror(errno));
		free(g);
		return NULL;
	}
	for (int i = 0; i < 2; i++) {
		fcntl(g->wake[i], F_SETFL,
		      fcntl(g->wake[i], F_GETFL) | O_NONBLOCK);
		fcntl(g->wake[i], F_SETFD, FD_CLOEXEC);
	}
	/* Signals stay with the main thread. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(&g->th, NULL, watch, g);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		log_error("pthread_create (connection watchdog): %s",
			  strerror(err));
		close(g->wake[0]);
		close(g->wake[1]);
		free(g);
		return NULL;
	}
	return g;
}

void guard_stop(struct guard *g)
{
	if (!g)
		return;
	atomic_store(&g->stop, true);
	wake(g);
	pthread_join(g->th, NULL);
	close(g->wake[0]);
	close(g->wake[1]);
	free(g);
}

void guard_arm(struct guard *g, uint64_t deadline_ns)
{
	atomic_store(&g->deadline, deadline_ns);
	if (deadline_ns && deadline_ns < atomic_load(&g->sleeping_until))
		wake(g);
}

enum guard_why guard_fired(const struct guard *g)
{
	return (enum guard_why)atomic_load(&g->fired);
}

enum guard_why guard_check(int abort_fd, uint64_t end_ns)
{
	struct pollfd p = {.fd = abort_fd, .events = POLLIN};

	if (end_ns && monotonic_ns() >= end_ns)
		return GUARD_END;
	if (abort_fd > 0 && poll(&p, 1, 0) > 0 &&
	    (p.revents & (POLLIN | POLLHUP | POLLERR)))
		return GUARD_ABORT;
	return GUARD_NONE;
}
