/* Console safety for every command that opens an output (console.h). */
#include "config.h"

#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "console/console.h"
#include "console/supervise.h"

/* The open output, for the fatal-signal handler. */
static struct output *volatile fatal_output;

static const int fatal_sigs[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT,
				  SIGQUIT };
#define NFATAL (sizeof(fatal_sigs) / sizeof(fatal_sigs[0]))
/* What each fatal signal did before vncfb took it: the default action, or
 * a sanitizer's handler, whose report must still come out. */
static struct sigaction prev_action[NFATAL];
static bool guarded;

/* Restore the console, then hand the signal on to its previous owner. A
 * fault is handed on by returning: the instruction runs again and faults
 * into the previous handler with its own context, which is what a
 * sanitizer's stack trace needs. A signal that was sent (abort(), kill)
 * is raised again, and arrives there once this handler returns. */
static void on_fatal(int signo, siginfo_t *info, void *uc)
{
	struct output *o = fatal_output;
	size_t i;

	(void)uc;
	if (o && o->impl && o->impl->emergency_restore)
		o->impl->emergency_restore(o);
	for (i = 0; i < NFATAL && fatal_sigs[i] != signo; i++)
		;
	if (i < NFATAL)
		sigaction(signo, &prev_action[i], NULL);
	else
		signal(signo, SIG_DFL);
	if (info && info->si_code > 0 && signo != SIGABRT && signo != SIGQUIT)
		return;
	raise(signo);
}

static void guard_fatal_signals(void)
{
	struct sigaction sa;
	size_t i;

	if (guarded)
		return;
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_sigaction = on_fatal;
	sa.sa_flags = SA_SIGINFO;
	for (i = 0; i < NFATAL; i++) {
		sigaction(fatal_sigs[i], &sa, &prev_action[i]);
		/* vncfb dies of these once the console is back, as before. */
		if (!(prev_action[i].sa_flags & SA_SIGINFO) &&
		    prev_action[i].sa_handler == SIG_IGN)
			prev_action[i].sa_handler = SIG_DFL;
	}
	guarded = true;
}

int console_open(struct output *out, const char *spec, unsigned flags)
{
	const char *off = getenv("VNCFB_NO_SUPERVISOR");
	int ret;

	guard_fatal_signals();
	ret = output_open_flags(out, spec, flags);
	if (ret < 0)
		return ret;
	fatal_output = out;
	/* Only an output with a console to give back needs the process
	 * that outlives a SIGKILL. */
	if (out->impl->emergency_restore && !(off && *off == '1'))
		supervise_start(out);
	return 0;
}

void console_close(struct output *out)
{
	fatal_output = NULL;
	output_close(out);
	supervise_done();
}
