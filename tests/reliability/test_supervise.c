/* The supervisor with a fake console output: however vncfb (here a child
 * of this test playing it) ends, by exit without restoring, SIGSEGV,
 * SIGKILL or abort, the supervisor calls the output's restore exactly
 * once, after vncfb is gone, and vncfb's exit status stays its own; after
 * supervise_done (vncfb restored itself) it restores nothing; quit
 * signals do not take the supervisor down first. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/log.h"
#include "output/output.h"
#include "console/supervise.h"

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
	/* Runs in the supervisor: record the call, and whether vncfb (its
	 * parent) was already gone. */
	char c = getppid() == *(pid_t *)out->priv ? 'L' : 'R';

	if (write(restore_pipe[1], &c, 1) != 1)
		abort();
}

static const struct output_impl fake_impl = {
	.name = "fake",
	.open = fake_open,
	.close = fake_close,
	.emergency_restore = fake_restore,
};

enum how { EXIT3, SEGV, KILL, ABORT, CLEAN, TERM_GROUP };

static void vncfb_role(enum how how)
{
	struct output out;
	pid_t me = getpid();

	memset(&out, 0, sizeof(out));
	out.impl = &fake_impl;
	out.priv = &me;
	if (supervise_start(&out) < 0)
		_exit(90);
	usleep(20000);
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
	case CLEAN:
		supervise_done();
		_exit(0);
	case TERM_GROUP:
		/* Ctrl+C / systemd: the whole group at once. The supervisor
		 * must outlive vncfb to restore. */
		signal(SIGTERM, SIG_DFL);
		kill(0, SIGTERM);
		pause();
		break;
	}
	_exit(99);
}

static void run(const char *name, enum how how, int want_exit, int want_sig,
		bool want_restore)
{
	struct pollfd p = { restore_pipe[0], POLLIN, 0 };
	char buf[8];
	ssize_t n = 0;
	pid_t pid;
	int st;

	pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		vncfb_role(how);
	}
	waitpid(pid, &st, 0);
	if (want_sig ? !WIFSIGNALED(st) || WTERMSIG(st) != want_sig
		     : !WIFEXITED(st) || WEXITSTATUS(st) != want_exit) {
		fprintf(stderr, "FAIL %s: status %#x\n", name, st);
		fails++;
	}
	/* The supervisor acts on its own time: wait a little. */
	if (poll(&p, 1, want_restore ? 2000 : 300) > 0)
		n = read(restore_pipe[0], buf, sizeof(buf));
	if (want_restore && (n != 1 || buf[0] != 'R')) {
		fprintf(stderr, "FAIL %s: restore %s\n", name,
			n == 0 ? "not called"
			: buf[0] == 'L' ? "called while vncfb lived"
					: "called more than once");
		fails++;
	} else if (!want_restore && n != 0) {
		fprintf(stderr, "FAIL %s: restored after supervise_done\n",
			name);
		fails++;
	} else {
		printf("%-10s ok (%s)\n", name,
		       want_restore ? "console restored" : "nothing to do");
	}
}

int main(void)
{
	if (pipe(restore_pipe) < 0)
		return 1;
	log_set_level(LOG_ERROR);
	run("exit", EXIT3, 3, 0, true);
	run("SIGSEGV", SEGV, 0, SIGSEGV, true);
	run("SIGKILL", KILL, 0, SIGKILL, true);
	run("abort", ABORT, 0, SIGABRT, true);
	run("clean", CLEAN, 0, 0, false);
	run("SIGTERM-all", TERM_GROUP, 0, SIGTERM, true);
	return fails ? 1 : 0;
}
