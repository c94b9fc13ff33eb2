/* The messages vncfb writes itself (client/net/vnc_send.c), byte for
 * byte against RFB's layout written out here: a ClientFence (flags
 * big-endian, the payload's length, the payload) and an
 * EnableContinuousUpdates. Read back from the other end of a socket
 * pair. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../check.h"
#include "net/vnc_priv.h"

static int sv[2];

static void expect_bytes(const char *what, const uint8_t *want, size_t n)
{
	uint8_t got[128];
	ssize_t k = read(sv[1], got, sizeof(got));

	CHECK(k == (ssize_t)n, "%s: %zd bytes, want %zu", what, k, n);
	if (k == (ssize_t)n)
		for (size_t i = 0; i < n; i++)
			CHECK(got[i] == want[i], "%s: byte %zu is 0x%02x, want "
			      "0x%02x", what, i, got[i], want[i]);
}

int main(void)
{
	struct vnc_client *vc = calloc(1, sizeof(*vc));
	uint8_t payload[64];

	if (!vc || socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0) {
		perror("test_vnc_send");
		return 1;
	}
	vc->cl = rfbGetClient(8, 3, 4);
	vc->cl->sock = sv[0];
	vnc_stream_init(&vc->stream, vc->cl, NULL);

	{
		static const uint8_t want[] = {248,  0,    0,   0,   0x80, 0x01,
					       0x02, 0x04, 3,   'a', 'b',  'c'};

		CHECK_EQ(vnc_send_fence(vc, 0x80010204u, (const uint8_t *)"abc",
					3),
			 0);
		expect_bytes("ClientFence", want, sizeof(want));
	}
	/* The largest payload, and none. */
	for (unsigned i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)(i * 7);
	{
		uint8_t want[9 + 64] = {248, 0, 0, 0, 0, 0, 0, 0x07, 64};

		memcpy(want + 9, payload, 64);
		CHECK_EQ(vnc_send_fence(vc, 7, payload, 64), 0);
		expect_bytes("ClientFence of 64 bytes", want, sizeof(want));
	}
	CHECK(vnc_send_fence(vc, 7, payload, 65) < 0);
	{
		static const uint8_t want[] = {248, 0, 0, 0, 0x40, 0, 0, 0, 0};

		CHECK_EQ(vnc_send_fence(vc, 0x40000000u, NULL, 0), 0);
		expect_bytes("empty ClientFence", want, sizeof(want));
	}
	{
		static const uint8_t want[] = {150, 1, 0, 0, 0, 0,
					       0x07, 0x80, 0x04, 0x38};

		CHECK_EQ(vnc_send_continuous(vc, true, 1920, 1080), 0);
		expect_bytes("EnableContinuousUpdates", want, sizeof(want));
	}
	vc->cl->sock = -1;
	vnc_stream_free(&vc->stream);
	rfbClientCleanup(vc->cl);
	free(vc);
	close(sv[0]);
	close(sv[1]);
	return check_done("vnc_send");
}
