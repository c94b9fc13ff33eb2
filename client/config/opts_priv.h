/* What the files of the options (client/config/opts*.c, one job each) share with
 * one another; nothing else includes it: the rest of vncfb has opts.h.
 *
 * Threads: the main thread, before anything starts (as opts.h). */
#ifndef VNCFB_OPTS_PRIV_H
#define VNCFB_OPTS_PRIV_H

#include <stdbool.h>

#include "config/opts.h"

/* The keys of opts_set(), in the order of key_names[] (opts.c); the bits of
 * cli_set and the slots of origin[]. */
enum key_id {
	K_OUTPUT,
	K_SCREENSHOT,
	K_EXIT_AFTER,
	K_ENCODINGS,
	K_QUALITY,
	K_COMPRESS,
	K_VIEW_ONLY,
	K_PASSWD,
	K_CPU,
	K_INPUT,
	K_KEYMAP,
	K_SERVER_CURSOR,
	K_SAMPLES,
	K_DURATION,
	K_WORKLOAD,
	K_SCALE,
	K_RECONNECT,
	K_CA,
	K_INSECURE,
	K_USER,
	K_TIMEOUT,
	K_CONNECTOR,
	K_MODE,
	K_SERVER,
	K_DECODE_THREADS,
	K_REMOTE_RESIZE,
	K_LAYOUT,
	K_TOUCH_HEAD,
	K_USERNAME,
	K_PASSWORD_FILE,
	K_FINGERPRINT,
	K_SECURITY,
	K_KNOWN_HOSTS,
	/* Signage: --rotate. */
	K_ROTATE,
	/* Touch: --touch. */
	K_TOUCH,
	K_COUNT
};
_Static_assert(K_COUNT <= OPTS_MAX_KEYS, "cli_set and origin[] per key");

/* opts.c: the keys. */

/* The id of a key by its name, or -1. */
int opts_key_id(const char *key);
/* Values as both the command line and the config files take them:
 * a decimal in [lo, hi]; 1/yes/true/on or 0/no/false/off, in any case.
 * 0 or -EINVAL. */
int opts_parse_int(const char *v, long lo, long hi, long *out);
int opts_parse_bool(const char *v, bool *out);
/* *dst becomes a copy of v: 0 or -ENOMEM. */
int opts_set_str(char **dst, const char *v);
/* The same for a file name, with "~", "~/..." and "~NAME/..." expanded
 * (no shell does that for --passwd=~/x or a config file's value): 0,
 * -EINVAL with *why, or -ENOMEM. */
int opts_set_path(char **dst, const char *v, const char **why);

/* opts_cli.c: the command line. */

/* Print "vncfb: MESSAGE (see vncfb --help)"; returns -EINVAL (exit 2). */
int opts_usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
/* Whether key means something to the command being parsed: 0, or a usage
 * error naming the option as_typed. */
int opts_check_mode(const struct options *o, const char *key,
		    const char *as_typed);
/* opts_set() from the command line: the command checked, a bad value a
 * usage error naming the option as_typed. */
int opts_set_cli(struct options *o, const char *key, const char *val,
		 const char *as_typed);

/* opts_output.c: the output spec. */

/* The spec the commands open (o->output), from what was given (opts.h):
 * -o as it is; --connector and --mode go into a drm spec (and ask for
 * one); --demo without -o draws into memory where there is no console
 * ("auto"). 0, or -EINVAL with *why. */
int opts_compose_output(struct options *o, const char **why);
/* Set *dst, one of the strings opts_compose_output() reads, and compose;
 * on failure the old value stays. */
int opts_set_output_part(struct options *o, char **dst, const char *v,
			 const char **why);
/* Why output_check_spec() refused v, in words (static storage). */
const char *opts_output_why(const char *v);

/* opts_tiger.c: TigerVNC compatibility. */

/* One of vncviewer's parameters, -name[=val]. i: where argv is; moved on
 * past a value taken from the next argument. A NoJPEG sets *no_jpeg,
 * applied once the whole line is read. Returns 0, -ENOENT when name is
 * none of them, or -EINVAL after a usage error. */
int opts_set_tiger(struct options *o, const char *name, const char *val,
		   int argc, char **argv, int *i, bool *no_jpeg);

/* opts_usage.c: what vncfb says about itself (and opts_usage()). */

/* --version: vncfb's version, its platform and the libraries built in. */
void opts_version(void);

#endif
