/* The supervisor with a fake console output: however the worker ends
 * (exit status, SIGSEGV, SIGKILL, abort), the parent calls the output's
 * restore exactly once afterwards and passes on a fitting status; quit
 * signals sent to the parent reach the worker. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "log.h"
#include "output.h"
#include "supervise.h"

static int restore_pipe[2];
static int fails;

static int fake_open(struct output *out, const char *arg)
{
	return 0;
}

static void fake_close(struct output *out)
{
}

static void fake_restore(struct output *out)
{
	/* Runs in the supervisor, after waitpid: record the call. */
	char c = 'R';

	if (write(restore_pipe[1], &c, 1) != 1)
		abort();
}

static const struct output_impl fake_impl = {
	.name = "fake",
	.open = fake_open,
	.close = fake_close,
	.emergency_restore = fake_restore,
};

static volatile sig_atomic_t got_term;

static void on_term(int signo)
{
	got_term = 1;
}

enum how { EXIT3, SEGV, KILL, ABORT, FORWARD };

static void worker(enum how how)
{
	switch (how) {
	case EXIT3:
		_exit(3);
	case SEGV:
		signal(SIGSEGV, SIG_DFL);
		raise(SIGSEGV);
		break;
	case KILL:
		raise(SIGKILL);
		break;
	case ABORT:
		abort();
	case FORWARD: {
		struct sigaction sa;
		int i;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_term;
		sigaction(SIGTERM, &sa, NULL);
		/* As from systemd: SIGTERM to the main (supervisor) pid. */
		kill(getppid(), SIGTERM);
		for (i = 0; i < 500 && !got_term; i++)
			usleep(10000);
		_exit(got_term ? 7 : 9);
	}
	}
	_exit(99);
}

static void run(const char *name, enum how how, int want_status)
{
	struct output out;
	bool parent;
	char buf[8];
	ssize_t n;
	int status;

	memset(&out, 0, sizeof(out));
	out.impl = &fake_impl;
	status = supervise(&out, &parent);
	if (!parent) {
		worker(how);
		_exit(98);
	}
	n = read(restore_pipe[0], buf, sizeof(buf));
	if (n != 1 || buf[0] != 'R') {
		fprintf(stderr, "FAIL %s: restore called %zd times\n", name,
			n < 0 ? 0 : n);
		fails++;
	}
	if (status != want_status) {
		fprintf(stderr, "FAIL %s: status %d, want %d\n", name, status,
			want_status);
		fails++;
	}
	printf("%-8s status %d, console restored\n", name, status);
}

/* SIGSEGV sent to the supervisor itself (as "kill -SEGV $(pidof
 * vncfb)" would): it must take the worker down, restore, and die of the
 * signal. The supervisor is a child of this test here. */
static void run_fatal_to_supervisor(void)
{
	int wp[2], st;
	pid_t sup, wk = 0;
	char c;

	if (pipe(wp) < 0)
		return;
	sup = fork();
	if (sup == 0) {
		struct output out;
		bool parent;

		memset(&out, 0, sizeof(out));
		out.impl = &fake_impl;
		supervise(&out, &parent);
		if (!parent) {
			pid_t me = getpid();

			if (write(wp[1], &me, sizeof(me)) != sizeof(me))
				_exit(97);
			for (;;)
				pause();
		}
		_exit(96);
	}
	if (read(wp[0], &wk, sizeof(wk)) != sizeof(wk)) {
		fprintf(stderr, "FAIL fatal: no worker\n");
		fails++;
		return;
	}
	usleep(50000);
	kill(sup, SIGSEGV);
	waitpid(sup, &st, 0);
	if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGSEGV) {
		fprintf(stderr, "FAIL fatal: supervisor status %#x\n", st);
		fails++;
	}
	if (kill(wk, 0) == 0 || errno != ESRCH) {
		fprintf(stderr, "FAIL fatal: the worker outlived the "
				"supervisor\n");
		fails++;
		kill(wk, SIGKILL);
	}
	usleep(10000);
	if (read(restore_pipe[0], &c, 1) != 1) {
		fprintf(stderr, "FAIL fatal: console not restored\n");
		fails++;
	}
	printf("%-8s supervisor died of SIGSEGV, worker gone, console "
	       "restored\n", "fatal");
	close(wp[0]);
	close(wp[1]);
}

int main(void)
{
	if (pipe(restore_pipe) < 0)
		return 1;
	/* Non-blocking: a missing restore must fail, not hang. */
	fcntl(restore_pipe[0], F_SETFL, O_NONBLOCK);
	log_set_level(LOG_ERROR);
	run("exit", EXIT3, 3);
	run("SIGSEGV", SEGV, 1);
	run("SIGKILL", KILL, 1);
	run("abort", ABORT, 1);
	run("forward", FORWARD, 7);
	run_fatal_to_supervisor();
	return fails ? 1 : 0;
}
