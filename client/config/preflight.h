/* Before anything opens: what a run of the command would refuse, checked
 * at once so that a kiosk fails at start (and --check-config finds it),
 * each problem named with the config file's FILE:LINE when a file set the
 * value. Main thread, after opts_finish(). */
#ifndef VNCFB_PREFLIGHT_H
#define VNCFB_PREFLIGHT_H

#include "config/opts.h"

/* Check, for o->mode: the --cpu core is online and allowed; the password
 * file is readable, private and in vncpasswd format; the CA file is
 * readable PEM; the screenshot can be written where it is named; the
 * --user exists; the keymap compiles and the input devices open; a named
 * output's device is there and usable. Every problem is logged (one line
 * each). Returns 0, 1 when only a device is missing (a run's status: it
 * may yet appear), else 2. */
int preflight_check(const struct options *o);

#endif
