/* What the files of the options share (opts.c: the keys and their setters,
 * opts_usage.c: --help and --version); nothing outside client/opts*.c
 * includes it.
 *
 * Threads: the main thread, before anything starts (as opts.h). */
#ifndef VNCFB_OPTS_PRIV_H
#define VNCFB_OPTS_PRIV_H

/* --version: vncfb's version, its platform and the libraries built in. */
void opts_version(void);

#endif
