/* Quit and screenshot signals through a self-pipe (signals.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "util/log.h"
#include "console/signals.h"

/* Handlers only write one byte. */
static int sig_pipe[2] = { -1, -1 };
/* Written on a quit signal and never read: stays readable. */
static int quit_pipe[2] = { -1, -1 };
/* Set on a quit signal, for loops on any thread that poll no fd. */
static atomic_bool quit_seen;

_Static_assert(ATOMIC_BOOL_LOCK_FREE == 2,
	       "a signal handler may store only a lock-free atomic");

static void on_signal(int signo)
{
	int saved = errno;
	unsigned char c = (unsigned char)signo;

	if (sig_pipe[1] >= 0 && write(sig_pipe[1], &c, 1) < 0) {
		/* Pipe full: a quit is already pending. */
	}
	if (signo != SIGUSR1) {
		atomic_store(&quit_seen, true);
		if (quit_pipe[1] >= 0 && write(quit_pipe[1], &c, 1) < 0) {
			/* Full: readable already. */
		}
	}
	errno = saved;
}

static int make_pipe(int p[2])
{
	if (pipe(p) < 0) {
		log_error("pipe: %s", strerror(errno));
		return -1;
	}
	for (int i = 0; i < 2; i++) {
		fcntl(p[i], F_SETFL, fcntl(p[i], F_GETFL) | O_NONBLOCK);
		fcntl(p[i], F_SETFD, FD_CLOEXEC);
	}
	return 0;
}

int signals_quit_fd(void)
{
	return quit_pipe[0];
}

int signals_take(int fd, bool *usr1)
{
	unsigned char sig[16];
	ssize_t k = read(fd, sig, sizeof(sig));
	int quit = 0;

	for (ssize_t i = 0; i < k; i++) {
		if (sig[i] == SIGUSR1 && usr1)
			*usr1 = true;
		else if (sig[i] != SIGUSR1 && !quit)
			quit = sig[i];
	}
	return quit;
}

bool signals_quit_pending(void)
{
	return atomic_load_explicit(&quit_seen, memory_order_relaxed);
}

int signals_setup(void)
{
	static const int quit_sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGUSR1 };
	struct sigaction sa;
	size_t i;

	if (sig_pipe[0] < 0 && make_pipe(sig_pipe) < 0)
		return -1;
	if (quit_pipe[0] < 0 && make_pipe(quit_pipe) < 0)
		return -1;
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	for (i = 0; i < sizeof(quit_sigs) / sizeof(quit_sigs[0]); i++)
		sigaction(quit_sigs[i], &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	return sig_pipe[0];
}
