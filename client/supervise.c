/* The supervisor process that gives the console back. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "log.h"
#include "supervise.h"

static volatile pid_t worker_pid;
static struct output *volatile supervised;

static void forward(int signo)
{
	int saved = errno;

	if (worker_pid > 0)
		kill(worker_pid, signo);
	errno = saved;
}

/* The supervisor itself got a fatal signal (most likely sent to it, as
 * to "vncfb"'s pid): the worker must not live on drawing over a restored
 * console, so it goes first; then restore and die of the same signal.
 * Async-signal-safe calls only. */
static void on_fatal(int signo)
{
	struct output *o = supervised;
	pid_t pid = worker_pid;

	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	if (o && o->impl && o->impl->emergency_restore)
		o->impl->emergency_restore(o);
	signal(signo, SIG_DFL);
	raise(signo);
}

int supervise(struct output *out, bool *parent)
{
	/* Everything the worker reacts to: quit, screenshot, and the VT
	 * switch signals the kernel sends to whoever set VT_PROCESS (the
	 * process that opened the output: this one). */
	const int fwd[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1,
			    SIGUSR2, SIGRTMIN, SIGRTMIN + 1, SIGWINCH };
	const int fatal[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT };
	struct sigaction sa;
	sigset_t block, old;
	size_t i;
	pid_t pid;
	int st;

	*parent = false;
	/* No signal may reach a half-set-up parent: block, fork, install
	 * the forwarders, unblock. */
	sigemptyset(&block);
	for (i = 0; i < sizeof(fwd) / sizeof(fwd[0]); i++)
		sigaddset(&block, fwd[i]);
	for (i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		sigaddset(&block, fatal[i]);
	sigprocmask(SIG_BLOCK, &block, &old);
	pid = fork();
	if (pid < 0) {
		int err = errno;

		sigprocmask(SIG_SETMASK, &old, NULL);
		log_error("fork: %s: running without a supervisor",
			  strerror(err));
		return -err;
	}
	if (pid == 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		return 0;
	}
	*parent = true;
	worker_pid = pid;
	supervised = out;
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = forward;
	sa.sa_flags = SA_RESTART;
	for (i = 0; i < sizeof(fwd) / sizeof(fwd[0]); i++)
		sigaction(fwd[i], &sa, NULL);
	sa.sa_handler = on_fatal;
	sa.sa_flags = SA_RESETHAND;
	for (i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		sigaction(fatal[i], &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	sigprocmask(SIG_SETMASK, &old, NULL);

	while (waitpid(pid, &st, 0) < 0) {
		if (errno != EINTR) {
			log_error("waitpid: %s", strerror(errno));
			st = 1 << 8;
			break;
		}
	}
	worker_pid = 0;
	supervised = NULL;
	/* Always: a worker that ended cleanly has restored already and the
	 * restore is idempotent; one that was killed could not. */
	if (out->impl && out->impl->emergency_restore)
		out->impl->emergency_restore(out);
	if (WIFSIGNALED(st)) {
		log_error("the session process died on signal %d (%s); the "
			  "console is restored",
			  WTERMSIG(st), strsignal(WTERMSIG(st)));
		return 1;
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
