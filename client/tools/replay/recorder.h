/* vncfb bench --record FILE HOST: connect to a real server through a tap
 * on the socket and save what it sends after ServerInit, message by
 * message (recording.h), for vncfb bench --replay. libvncclient parses the
 * stream (vnc.c's message hook marks where each message ended), so the
 * boundaries are the library's own. Plain TCP only: the tap sees TLS as
 * ciphertext, so an encrypted connection is refused.
 *
 * Threads: recorder_run is the main thread's; the tap runs a relay thread
 * of its own between the server and libvncclient's socket. */
#ifndef VNCFB_RECORDER_H
#define VNCFB_RECORDER_H

#include "config/opts.h"

/* Exit status: 0 recorded, 1 runtime failure, 2 usage error. */
int recorder_run(struct options *o);

#endif
