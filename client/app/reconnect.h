/* Reconnect policy: which failures are retried, and when. Pure; main
 * thread. The session (session.c) drives it. */
#ifndef VNCFB_RECONNECT_H
#define VNCFB_RECONNECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/opts.h"
#include "net/vnc.h"

/* Backoff: 1 s, doubling, capped here. */
#define RECONNECT_MAX_DELAY_S 30
/* Connect timeout for attempts. Liveness uses --timeout (the session's
 * read timeout): a connection silent that long gets a 1x1 non-incremental
 * update request, which any server must answer, and is dropped when it is
 * still silent as long again; a stalled handshake times out the same. */
#define RECONNECT_CONNECT_TIMEOUT_MS 5000

struct reconnect {
	enum reconnect_mode mode;
	bool connected;		/* a connection has succeeded */
	unsigned failures;	/* failed attempts since the last success */
	uint64_t next_ns;	/* monotonic time of the next attempt */
};

void reconnect_init(struct reconnect *r, enum reconnect_mode mode);
/* Seconds to wait before attempt number failures + 1. */
unsigned reconnect_delay_s(unsigned failures);
/* Whether an error is worth retrying. established: the session had been
 * running (a mid-session protocol error is retried; one in the handshake,
 * like a version or security-type refusal, is not). Authentication
 * failures never are: retrying would lock accounts. Nor are resource
 * refusals (the same desktop would be refused again). */
bool reconnect_retryable(enum vnc_error err, bool established);
/* Whether to try again after err: a retryable error, and reconnecting is
 * on; before any connection succeeded (a kiosk booting faster than its
 * server) only with RECONNECT_ALWAYS. */
bool reconnect_again(const struct reconnect *r, enum vnc_error err,
		     bool established);
/* The connection was lost or an attempt failed at now_ns: schedule the
 * next attempt. Returns the delay in seconds. */
unsigned reconnect_schedule(struct reconnect *r, uint64_t now_ns);
/* An attempt succeeded. */
void reconnect_done(struct reconnect *r);
/* The status line while waiting: "REASON - reconnecting in N s", the
 * reason shortened to fit len, or "reconnecting to SERVER in N s" when
 * reason is empty. */
void reconnect_status(char *buf, size_t len, const char *server,
		      const char *reason, unsigned left);

#endif
