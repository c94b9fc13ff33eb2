/* `vncfb probe`: which core writes the screen fastest, as a table or
 * JSON (placement/probe.h does the timing).
 *
 * Threads: main thread only. */
#ifndef VNCFB_PROBE_CMD_H
#define VNCFB_PROBE_CMD_H

struct options;

/* Open the output, probe, print, close. Returns the exit status. */
int probe_command(const struct options *o);

#endif
