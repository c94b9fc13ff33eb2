/* A crash keeps both its report and the console: a child plays vncfb
 * (console_open with an output whose emergency restore is recorded, and
 * the supervisor), then crashes: a wild read (SIGSEGV), a heap overflow
 * (only a sanitizer sees it), abort(). Built twice. In the sanitizer build
 * (crash-report-asan) AddressSanitizer's own report, naming the crashing
 * function, must come out; in the plain build the child dies of the
 * signal itself. In both, the console is restored by vncfb's handler where
 * it gets to run, and always by the supervisor once the child is gone. */
#include "config.h"

#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "console/console.h"
#include "util/log.h"
#include "output/output.h"
#include "console/supervise.h"

#if defined(__SANITIZE_ADDRESS__)
#define ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ASAN 1
#endif
#endif
#ifndef ASAN
#define ASAN 0
#endif

static int restore_pipe[2];
static pid_t crasher;
static int fails;

/* 'I' from the crashing process's own handler, 'S' from the supervisor
 * once the crashing process is gone. */
static void record_restore(struct output *out)
{
	char c = getpid() == crasher ? 'I' : getppid() == crasher ? '?' : 'S';

	if (write(restore_pipe[1], &c, 1) != 1)
		_exit(98);
}

static struct output_impl fake_impl;

enum how { SEGV, HEAP, ABORT };

static volatile int *volatile wild = (int *)16;
/* Unknown to the compiler, so only ASan sees the overflow. */
static volatile size_t heap_size = 16;

__attribute__((noinline)) static int crash_segv(void)
{
	return *wild;
}

__attribute__((noinline)) static int crash_heap(void)
{
	size_t n = heap_size;
	volatile char *p = malloc(n);

	p[n] = 1;
	return p[0];
}

static void vncfb_role(enum how how)
{
	struct output out;

	crasher = getpid();
	log_set_level(LOG_ERROR);
	if (console_open(&out, "mem:64x48", 0) < 0)
		_exit(90);
	/* The mem output with a console to give back. */
	fake_impl = *out.impl;
	fake_impl.emergency_restore = record_restore;
	out.impl = &fake_impl;
	if (supervise_start(&out) < 0)
		_exit(91);
	switch (how) {
	case SEGV:
		crash_segv();
		break;
	case HEAP:
		crash_heap();
		break;
	case ABORT:
		abort();
	}
	_exit(99);
}

static void run(const char *name, enum how how, const char *report,
		const char *frame, bool own_restore)
{
	int errp[2], st;
	char err[65536], got[8];
	size_t n = 0;
	ssize_t k;
	pid_t pid;
	struct pollfd p = { 0, POLLIN, 0 };
	size_t ng = 0;

	if (pipe(errp) < 0)
		abort();
	pid = fork();
	if (pid == 0) {
		close(errp[0]);
		dup2(errp[1], 2);
		vncfb_role(how);
	}
	close(errp[1]);
	while (n < sizeof(err) - 1 &&
	       (k = read(errp[0], err + n, sizeof(err) - 1 - n)) > 0)
		n += (size_t)k;
	err[n] = '\0';
	close(errp[0]);
	waitpid(pid, &st, 0);
	/* The supervisor restores on its own time. */
	p.fd = restore_pipe[0];
	while (ng < sizeof(got) && poll(&p, 1, 2000) > 0 &&
	       read(restore_pipe[0], got + ng, 1) == 1) {
		ng++;
		if (got[ng - 1] == 'S')
			break;
	}
	if (!WIFSIGNALED(st) && !(WIFEXITED(st) && WEXITSTATUS(st) != 0 &&
				  WEXITSTATUS(st) < 90)) {
		fprintf(stderr, "FAIL %s: status %#x\n", name, st);
		fails++;
	}
	if (report && (!strstr(err, report) || !strstr(err, frame))) {
		fprintf(stderr, "FAIL %s: no \"%s\" report naming %s; stderr "
			"was:\n%s\n", name, report, frame, err);
		fails++;
	}
	if (!report && strstr(err, "Sanitizer")) {
		fprintf(stderr, "FAIL %s: a sanitizer report in a plain "
			"build:\n%s\n", name, err);
		fails++;
	}
	if (ng == 0 || got[ng - 1] != 'S') {
		fprintf(stderr, "FAIL %s: the supervisor did not restore "
			"(%.*s)\n", name, (int)ng, got);
		fails++;
	}
	if (own_restore && (ng == 0 || got[0] != 'I')) {
		fprintf(stderr, "FAIL %s: vncfb's handler did not restore "
			"(%.*s)\n", name, (int)ng, got);
		fails++;
	}
	printf("%s: status %#x, restores %.*s, %zu bytes of report\n", name,
	       st, (int)ng, got, n);
}

int main(void)
{
	if (pipe(restore_pipe) < 0)
		return 1;
	/* The supervisor's restore must not wait for a console. */
	unsetenv("VNCFB_NO_SUPERVISOR");
	if (ASAN) {
		run("SIGSEGV", SEGV, "AddressSanitizer: SEGV on unknown address",
		    "crash_segv", true);
		/* ASan reports, then aborts (abort_on_error=1): the
		 * handler restores on the way out. */
		run("heap overflow", HEAP,
		    "AddressSanitizer: heap-buffer-overflow", "crash_heap",
		    true);
	} else {
		run("SIGSEGV", SEGV, NULL, NULL, true);
	}
	run("abort", ABORT, NULL, NULL, true);
	printf("crash-report (%s build): %s\n", ASAN ? "ASan" : "plain",
	       fails ? "FAILED" : "ok");
	return fails ? 1 : 0;
}
