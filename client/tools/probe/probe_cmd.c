/* `vncfb probe`: open the output, time every core, print the table. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "config/opts.h"
#include "console/console.h"
#include "console/signals.h"
#include "placement/probe.h"
#include "tools/probe/probe_cmd.h"
#include "util/log.h"

int probe_command(const struct options *o)
{
	struct output out;
	struct output desc;
	struct probe_result res;
	char warn[PROBE_WARNING_LEN];
	char why[PROBE_PIN_REASON_LEN];
	int ret;

	if (signals_setup() < 0)
		return 1;
	if (console_open(&out, o->output, 0) < 0)
		return 1;
	ret = probe_run(&out, o->samples, &res);
	/* Describe the output from a copy: the console must be back in text
	 * mode before the table is printed on it. */
	desc = out;
	console_close(&out);
	if (ret == -EINTR)
		log_info("probe interrupted: no table");
	if (ret < 0)
		return 1;
	if (o->json_file) {
		/* --json=FILE: the table on the terminal, JSON in FILE. */
		FILE *f = fopen(o->json_file, "w");

		if (!f) {
			log_error("cannot write %s: %s", o->json_file,
				  strerror(errno));
			probe_free(&res);
			return 1;
		}
		probe_print_json(&res, &desc, o->cpu, f);
		if (fclose(f) != 0) {
			log_error("cannot write %s: %s", o->json_file,
				  strerror(errno));
			probe_free(&res);
			return 1;
		}
		probe_print_table(&res, &desc, o->cpu, stdout);
	} else if (o->json) {
		probe_print_json(&res, &desc, o->cpu, stdout);
	} else {
		probe_print_table(&res, &desc, o->cpu, stdout);
	}
	fflush(stdout);
	if (probe_warning(&res, warn, sizeof(warn)))
		log_warn("%s", warn);
	if (res.pin_denied)
		log_warn("cannot pin threads to cores (%s): a session runs "
			 "its blit thread unpinned",
			 probe_pin_reason(res.pin_error, why, sizeof(why)));
	ret = res.chosen >= 0 || res.pin_denied ? 0 : 1;
	probe_free(&res);
	return ret;
}
