/* Console safety for every command that opens an output (console.h). */
#include "config.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "console.h"
#include "supervise.h"

/* The open output, for the fatal-signal handler. */
static struct output *volatile fatal_output;

static void on_fatal(int signo)
{
	struct output *o = fatal_output;

	if (o && o->impl && o->impl->emergency_restore)
		o->impl->emergency_restore(o);
	signal(signo, SIG_DFL);
	raise(signo);
}

static void guard_fatal_signals(void)
{
	static const int fatal_sigs[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE,
					  SIGABRT, SIGQUIT };
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_fatal;
	sa.sa_flags = SA_RESETHAND;
	for (i = 0; i < sizeof(fatal_sigs) / sizeof(fatal_sigs[0]); i++)
		sigaction(fatal_sigs[i], &sa, NULL);
}

int console_open(struct output *out, const char *spec)
{
	const char *off = getenv("VNCFB_NO_SUPERVISOR");
	int ret;

	guard_fatal_signals();
	ret = output_open(out, spec);
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
