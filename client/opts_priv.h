/* What the files of the options share: opts.c (the keys, their setters and
 * the command line), opts_output.c (the output spec), opts_tiger.c
 * (TigerVNC's forms and parameters) and opts_usage.c (--help, --version).
 * Nothing outside client/opts*.c includes it.
 *
 * Threads: the main thread, before anything starts (as opts.h). */
#ifndef VNCFB_OPTS_PRIV_H
#define VNCFB_OPTS_PRIV_H

#include <stdbool.h>

#include "opts.h"

/* Values as both the command line and the config files take them:
 * a decimal in [lo, hi]; 1/yes/true/on or 0/no/false/off, in any case.
 * 0 or -EINVAL. */
int opts_parse_int(const char *v, long lo, long hi, long *out);
int opts_parse_bool(const char *v, bool *out);

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

/* One of vncviewer's parameters, -name[=val] (opts_tiger.c). i: where argv
 * is; moved on past a value taken from the next argument. A NoJPEG sets
 * *no_jpeg, applied once the whole line is read. Returns 0, -ENOENT when
 * name is none of them, or -EINVAL after a usage error. */
int opts_set_tiger(struct options *o, const char *name, const char *val,
		   int argc, char **argv, int *i, bool *no_jpeg);

/* --version: vncfb's version, its platform and the libraries built in. */
void opts_version(void);

#endif
