/* vncfb: a VNC client for the console framebuffer. Entry point: options,
 * then a session, the probe or the benchmark. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "opts.h"
#include "session.h"

int main(int argc, char **argv)
{
	struct options o;
	int ret;

	opts_defaults(&o);
	ret = opts_parse(&o, argc, argv);
	if (ret != 0) {
		opts_free(&o);
		return ret > 0 ? 0 : 2;
	}
	if (o.verbose)
		log_set_level(LOG_DEBUG);
	else if (o.quiet)
		log_set_level(LOG_WARN);
	switch (o.mode) {
	case MODE_VIEW:
	case MODE_DEMO:
		if (o.mode == MODE_DEMO && o.exit_after <= 0 &&
		    (!o.output || !strncmp(o.output, "mem", 3)))
			o.exit_after = 0;
		ret = session_run(&o);
		break;
	default:
		log_error("this command is not available yet");
		ret = 1;
		break;
	}
	opts_free(&o);
	return ret;
}
