/* Reconnect policy: the backoff sequence and which errors are retried. */
#include <stdio.h>

#include "reconnect.h"
#include "../check.h"

int main(void)
{
	static const unsigned want[] = { 1, 2, 4, 8, 16, 30, 30, 30 };
	struct reconnect r;
	unsigned i, d;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		CHECK(reconnect_delay_s(i) == want[i], "delay(%u) = %u, want %u",
		      i, reconnect_delay_s(i), want[i]);
	CHECK(reconnect_delay_s(1000) == 30, "delay(1000) = %u",
	      reconnect_delay_s(1000));

	/* Lockout safety: auth is never retried, handshake refusals are
	 * not, lost connections are. */
	CHECK(!reconnect_retryable(VNC_ERR_AUTH, true), "auth retried");
	CHECK(!reconnect_retryable(VNC_ERR_AUTH, false), "auth retried");
	CHECK(!reconnect_retryable(VNC_ERR_PROTOCOL, false),
	      "handshake refusal retried");
	CHECK(reconnect_retryable(VNC_ERR_PROTOCOL, true),
	      "mid-session protocol error not retried");
	CHECK(!reconnect_retryable(VNC_ERR_RESOURCE, true),
	      "resource refusal retried");
	CHECK(reconnect_retryable(VNC_ERR_CLOSED, true), "close not retried");
	CHECK(reconnect_retryable(VNC_ERR_CONNECT, false),
	      "refused connect not retried");
	CHECK(reconnect_retryable(VNC_ERR_RESOLVE, false),
	      "resolve failure not retried");

	reconnect_init(&r, true);
	d = reconnect_schedule(&r, 1000);
	CHECK(d == 1 && r.next_ns == 1000 + 1000000000ull,
	      "first schedule %u at %llu", d, (unsigned long long)r.next_ns);
	d = reconnect_schedule(&r, 5000);
	CHECK(d == 2 && r.next_ns == 5000 + 2000000000ull,
	      "second schedule %u", d);
	reconnect_done(&r);
	CHECK(r.failures == 0 && reconnect_schedule(&r, 0) == 1,
	      "success does not reset the backoff");
	if (failures)
		return 1;
	printf("reconnect policy: ok\n");
	return 0;
}
