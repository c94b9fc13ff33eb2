/* The replay pump: a loopback server that plays a recording (recording.h)
 * to one client at a time. It speaks the server side of the handshake
 * (security type None) with the recorded ServerInit, then answers each
 * FramebufferUpdateRequest with the next recorded update at once, so the
 * client alone sets the pace (pipelined requests are answered in turn);
 * what the server sent unasked (Bell, cut text) goes out in its place in
 * the stream. At the end of the recording it stops: the client's zlib
 * streams (tight, zrle) carry state from the first update on, so the
 * stream cannot start over on the same connection; the connection stays
 * open, silent, until the client leaves, and the next client gets the
 * recording from the start. A client asking for another pixel format
 * than the recorded one is refused (record once per format). Continuous
 * updates and fences are offered only with replaysrv_set_push.
 *
 * vncfb bench --replay FILE drives vncfb's pipeline and the bare decode
 * loop against it; vncfb bench --replay FILE --serve PORT serves it to
 * any viewer (TigerVNC's vncviewer) and prints, per client, the updates
 * answered and the time between the requests for the second and for the
 * one past the last.
 *
 * Threads: replaysrv_* belong to one thread (the main thread); the pump
 * serves from a thread of its own. */
#ifndef VNCFB_REPLAYSRV_H
#define VNCFB_REPLAYSRV_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "config/opts.h"
#include "shadow/pixfmt.h"
#include "tools/link/link.h"
#include "tools/replay/recording.h"

struct replaysrv;

/* Open and validate path (one line on failure). */
struct replaysrv *replaysrv_open(const char *path);
/* Stop serving and close. NULL is a no-op. */
void replaysrv_close(struct replaysrv *s);

size_t replaysrv_updates(const struct replaysrv *s);

/* How updates go out (enum push_mode; before replaysrv_start): requests
 * offers neither continuous updates nor fences and answers each request
 * at once (as above); recorded and fast offer both (EndOfContinuousUpdates
 * and a ServerFence once a client's SetEncodings names them), and once a
 * client enables continuous updates push the recording, at the recorded
 * pace or as fast as the socket takes it, with a fence after each update
 * whose answer times the client. return_ns: the way back of a link in
 * front of the pump (0: none), taken off those times. */
void replaysrv_set_push(struct replaysrv *s, enum push_mode push,
			uint64_t return_ns);
/* When the pump began sending update k (from 0) to the client it serves
 * now; 0 before that. Any thread. */
uint64_t replaysrv_sent_ns(const struct replaysrv *s, size_t k);
/* Whether update k's rectangles cover the whole desktop. */
bool replaysrv_update_full(const struct replaysrv *s, size_t k);

/* Listen on 127.0.0.1:port (0: any free port) and serve from a thread.
 * quiet: no per-client lines on stdout. 0 or -errno (logged). */
int replaysrv_start(struct replaysrv *s, int port, bool quiet);
int replaysrv_port(const struct replaysrv *s);

/* vncfb bench --replay: open o->replay_file, and make the bench's client
 * ask for what the recorder asked for (encodings, quality, compress),
 * where the command line did not say otherwise; out_spec gets the output
 * for it (replaysrv_output_spec). NULL on failure (logged). */
struct replaysrv *replaysrv_for_bench(struct options *o, char *out_spec,
				      size_t len);
/* Whether the bench's client, in fmt, can play it: 0, or -EINVAL (fmt is
 * not the recorded one, or the recording is too short for the bench; a
 * usage error), logged. */
int replaysrv_check_bench(const struct replaysrv *s, const struct pixfmt *fmt);

/* One client has played the recording: updates is how many it handled;
 * when that is all of them, its picture (rows stride apart, in the
 * recorded client format) is compared with the recorder's, and the result
 * kept under who for replaysrv_report. -1 (logged) when a lossless
 * recording's picture differs, or a lossy one's by more than a JPEG
 * decode may. */
int replaysrv_play_done(struct replaysrv *s, const char *who, uint64_t updates,
			const uint8_t *pix, size_t stride, uint32_t w,
			uint32_t h);

/* What was replayed (one paragraph), and the pictures' checks. */
void replaysrv_describe(const struct replaysrv *s, const char *path, FILE *f);
void replaysrv_report(const struct replaysrv *s, FILE *f);

/* vncfb bench --replay FILE --serve PORT: serve until a signal or
 * --exit-after, through link (when not NULL) on PORT. Exit status. */
int replaysrv_serve(struct options *o, const struct link_config *link);

#endif
