/* vncfb: a VNC client for the console framebuffer. Entry point: options,
 * then a session, the probe or the benchmark. */
#include "config.h"

#include <stdlib.h>

#include "tools/bench/bench.h"
#include "config/conffile.h"
#include "util/log.h"
#include "config/opts.h"
#include "config/preflight.h"
#include "net/trust.h"
#include "tools/probe/probe_cmd.h"
#include "app/session.h"
#include "tools/demo/demo.h"

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
	/* Config files fill in what the command line left unset; what a run
	 * would refuse is found before anything opens. */
	ret = conffile_load(&o, o.check_config ? stdout : NULL);
	ret = ret < 0 || opts_finish(&o) < 0 ? 2 : preflight_check(&o);
	if (ret || o.check_config) {
		/* --check-config: any problem is one of configuration. */
		if (o.check_config && !ret && o.mode == MODE_VIEW) {
			struct trust_opts t = { .pin = o.fingerprint,
						.store = o.known_hosts };

			ret = trust_show(&t) < 0 ? 2 : 0;
		}
		if (o.check_config)
			ret = ret ? 2 : printf("configuration OK\n") < 0;
		opts_free(&o);
		return ret;
	}
	switch (o.mode) {
	case MODE_VIEW:
		ret = session_run(&o, NULL);
		break;
	case MODE_DEMO:
		ret = session_run(&o, &demo_server);
		break;
	case MODE_PROBE:
		ret = probe_command(&o);
		break;
	case MODE_BENCH:
		ret = bench_run(&o);
		break;
	}
	opts_free(&o);
	return ret;
}
