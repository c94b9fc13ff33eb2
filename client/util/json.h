/* Writing JSON by hand: the one piece that needs care, strings. For the
 * machine-readable output of vncfb probe and vncfb bench.
 *
 * Threads: any, one FILE at a time. */
#ifndef VNCFB_JSON_H
#define VNCFB_JSON_H

#include <stdio.h>

/* s as a JSON string, quotes included: '"' and '\\' escaped, control
 * characters as \u00XX, other bytes (UTF-8) as they are. */
void json_write_string(FILE *f, const char *s);

#endif
