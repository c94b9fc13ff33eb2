/* The supervisor process that gives the console back. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "util/log.h"
#include "console/supervise.h"

/* vncfb's end of the pipe; -1 without a supervisor. */
static int watch_fd = -1;

/* In the supervisor: wait for vncfb to end, then restore unless it said
 * it did so itself. Never returns. */
static void __attribute__((noreturn)) run(struct output *out, int fd)
{
	pid_t vncfb = getppid();
	char c;
	ssize_t n;
	int sig, ms;

	/* Quit signals are for vncfb (a terminal's Ctrl+C reaches the
	 * whole process group; systemd signals the whole cgroup): this
	 * process leaves only once vncfb has gone. */
	for (sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP && sig != SIGSEGV &&
		    sig != SIGBUS && sig != SIGILL && sig != SIGFPE &&
		    sig != SIGABRT && sig != SIGCHLD)
			signal(sig, SIG_IGN);
	do
		n = read(fd, &c, 1);
	while (n < 0 && errno == EINTR);
	if (n == 1 || !out->impl || !out->impl->emergency_restore)
		_exit(0);
	/* The EOF comes when vncfb's files close, a step before its exit
	 * is complete: wait (a second at most) until it is reparented away
	 * from us, so the restore never races what is left of its exit. */
	for (ms = 0; ms < 1000 && getppid() == vncfb; ms++)
		usleep(1000);
	out->impl->emergency_restore(out);
	_exit(0);
}

int supervise_start(struct output *out)
{
	int p[2];
	pid_t pid;

	if (pipe(p) < 0) {
		log_error("pipe: %s: running without a supervisor",
			  strerror(errno));
		return -errno;
	}
	pid = fork();
	if (pid < 0) {
		int err = errno;

		close(p[0]);
		close(p[1]);
		log_error("fork: %s: running without a supervisor",
			  strerror(err));
		return -err;
	}
	if (pid == 0) {
		close(p[1]);
		run(out, p[0]);
	}
	close(p[0]);
	/* Nothing vncfb starts may inherit it, or the EOF never comes. */
	fcntl(p[1], F_SETFD, FD_CLOEXEC);
	watch_fd = p[1];
	log_debug("supervisor %d keeps the console state", (int)pid);
	return 0;
}

void supervise_done(void)
{
	char c = 'd';

	if (watch_fd < 0)
		return;
	if (write(watch_fd, &c, 1) != 1) {
		/* Then it restores once more; harmless. */
	}
	close(watch_fd);
	watch_fd = -1;
}
