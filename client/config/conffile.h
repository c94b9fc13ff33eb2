/* Config files: `key = value` lines with the keys of opts_set(), read from
 * the system file and then the user's file, under the command line.
 * (Not "config.h": that name is meson's generated build configuration.)
 * Main thread, after opts_parse() and before anything starts. */
#ifndef VNCFB_CONFFILE_H
#define VNCFB_CONFFILE_H

#include <stdbool.h>
#include <stdio.h>

#include "config/opts.h"

/* Read the system file, then the user file, so that the user file wins,
 * through opts_set(o, ..., from_cli = false) so that the command line wins
 * over both. A missing default file is skipped; a missing --config FILE is
 * an error. Every bad line is reported ("FILE:LINE: ..."), and each value
 * that took effect is noted with opts_set_origin(). With report, also
 * print each file, whether it was read, and its settings there
 * (--check-config).
 * Returns 0, or -EINVAL after reporting (a usage error: exit 2). */
int conffile_load(struct options *o, FILE *report);

#endif
