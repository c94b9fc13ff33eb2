/* Reconnect policy: exponential backoff and what is retried. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "app/reconnect.h"

void reconnect_init(struct reconnect *r, enum reconnect_mode mode)
{
	r->mode = mode;
	r->connected = false;
	r->failures = 0;
	r->next_ns = 0;
}

unsigned reconnect_delay_s(unsigned failures)
{
	unsigned d = 1;

	while (failures-- > 0 && d < RECONNECT_MAX_DELAY_S)
		d *= 2;
	return d < RECONNECT_MAX_DELAY_S ? d : RECONNECT_MAX_DELAY_S;
}

bool reconnect_retryable(enum vnc_error err, bool established)
{
	switch (err) {
	case VNC_ERR_RESOLVE:
	case VNC_ERR_CONNECT:
	case VNC_ERR_CLOSED:
		return true;
	case VNC_ERR_PROTOCOL:
		return established;
	case VNC_OK:
	case VNC_ERR_AUTH:
	case VNC_ERR_RESOURCE:
	case VNC_ERR_INTERRUPTED:
	case VNC_ERR_TRUST:
		break;
	}
	return false;
}

bool reconnect_again(const struct reconnect *r, enum vnc_error err,
		     bool established)
{
	if (r->mode == RECONNECT_NO)
		return false;
	if (!r->connected && r->mode != RECONNECT_ALWAYS)
		return false;
	return reconnect_retryable(err, established);
}

unsigned reconnect_schedule(struct reconnect *r, uint64_t now_ns)
{
	unsigned d = reconnect_delay_s(r->failures);

	r->failures++;
	r->next_ns = now_ns + (uint64_t)d * 1000000000u;
	return d;
}

void reconnect_done(struct reconnect *r)
{
	r->connected = true;
	r->failures = 0;
	r->next_ns = 0;
}

void reconnect_status(char *buf, size_t len, const char *server,
		      const char *reason, unsigned left)
{
	char tail[48];
	size_t room, n;

	if (!len)
		return;
	if (!reason || !*reason) {
		snprintf(buf, len, "reconnecting to %s in %u s", server, left);
		return;
	}
	snprintf(tail, sizeof(tail), " - reconnecting in %u s", left);
	n = strlen(reason);
	room = len > strlen(tail) ? len - strlen(tail) - 1 : 0;
	/* The countdown always shows; a long reason loses its end. */
	if (n > room)
		snprintf(buf, len, "%.*s...%s", room > 3 ? (int)(room - 3) : 0,
			 reason, tail);
	else
		snprintf(buf, len, "%s%s", reason, tail);
}
