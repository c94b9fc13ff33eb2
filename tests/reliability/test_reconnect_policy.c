/* Reconnect policy: the backoff sequence, which errors are retried, the
 * first connection under reconnect always, the status line text. */
#include <stdio.h>
#include <string.h>

#include "app/reconnect.h"
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
	/* A changed certificate or key: never, even once connected. */
	CHECK(!reconnect_retryable(VNC_ERR_TRUST, true), "trust retried");
	CHECK(!reconnect_retryable(VNC_ERR_TRUST, false), "trust retried");
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

	/* The first connection: retried only under reconnect always; once
	 * connected, as any other. */
	reconnect_init(&r, RECONNECT_LOST);
	CHECK(!reconnect_again(&r, VNC_ERR_CONNECT, false),
	      "first connection retried without always");
	reconnect_init(&r, RECONNECT_ALWAYS);
	CHECK(reconnect_again(&r, VNC_ERR_CONNECT, false),
	      "always: refused first connection not retried");
	CHECK(reconnect_again(&r, VNC_ERR_RESOLVE, false),
	      "always: unresolved first connection not retried");
	CHECK(!reconnect_again(&r, VNC_ERR_AUTH, false),
	      "always: auth failure retried");
	CHECK(!reconnect_again(&r, VNC_ERR_PROTOCOL, false),
	      "always: handshake refusal retried");
	reconnect_init(&r, RECONNECT_LOST);
	reconnect_done(&r);
	CHECK(reconnect_again(&r, VNC_ERR_CONNECT, false),
	      "a failed reconnect attempt not retried");
	CHECK(reconnect_again(&r, VNC_ERR_CLOSED, true), "lost not retried");
	reconnect_init(&r, RECONNECT_NO);
	reconnect_done(&r);
	CHECK(!reconnect_again(&r, VNC_ERR_CLOSED, true),
	      "--no-reconnect retried");

	/* The status line: why, then the countdown, which always fits. */
	{
		char buf[128], small[40];
		const char *why = "cannot connect to 192.0.2.1:5901: "
				  "Connection refused";

		reconnect_status(buf, sizeof(buf), "h:1", "", 4);
		CHECK(!strcmp(buf, "reconnecting to h:1 in 4 s"), "'%s'", buf);
		reconnect_status(buf, sizeof(buf), "h:1", why, 16);
		CHECK(!strcmp(buf, "cannot connect to 192.0.2.1:5901: "
				   "Connection refused - reconnecting in 16 s"),
		      "'%s'", buf);
		reconnect_status(small, sizeof(small), "h:1", why, 30);
		CHECK(strlen(small) == sizeof(small) - 1 &&
			      strstr(small, "... - reconnecting in 30 s") &&
			      !strncmp(small, "cannot", 6),
		      "shortened '%s'", small);
	}

	reconnect_init(&r, RECONNECT_LOST);
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
