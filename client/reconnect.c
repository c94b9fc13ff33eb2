/* Reconnect policy: exponential backoff and what is retried. */
#include "config.h"

#include "reconnect.h"

void reconnect_init(struct reconnect *r, bool enabled)
{
	r->enabled = enabled;
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
		break;
	}
	return false;
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
	r->failures = 0;
	r->next_ns = 0;
}
