/* The emulated link of vncfb bench --link (client/tools/link/link.h),
 * checked for what it promises, not timed as a benchmark:
 *
 * * the spec: units, either order, either part, and one-line refusals;
 * * delay: a byte echoed through a 100 ms link comes back after at least
 *   100 ms, every time (never sooner: that is the bound a test relies
 *   on), and the median of five within 100 ms + SLACK_MS (a loaded 2-core
 *   machine wakes the relay late, but a link that held each way for the
 *   whole round trip would take 200);
 * * rate: 2 MiB through a 40 Mbit/s link arrive no faster than the rate
 *   (at most RATE_OVER above it: the first chunk's granularity) and at
 *   least RATE_UNDER of it: the relay loses the time it is not scheduled,
 *   which on a shared 2-core machine is much, but a rate taken as bytes
 *   for bits would be an eighth;
 * * every byte arrives, in order, both ways at once, and a half-close
 *   travels after the data it follows; the counters count them. */
#include "config.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../check.h"
#include "testlib.h"
#include "tools/link/link.h"
#include "util/clock.h"
#include "util/stats.h"

#define SLACK_MS 70
#define ECHOES 5
#define RATE_OVER 1.03
#define RATE_UNDER 0.25
#define BULK (2u << 20)

static void parse_checks(void)
{
	struct link_config c;
	char why[200];

	CHECK(link_parse("60ms,50mbit", &c, why, sizeof(why)) == 0, "%s", why);
	CHECK(c.rtt_ns == 60000000u && c.rate_bps == 50000000u);
	CHECK(link_parse("1gbit,2.5ms", &c, why, sizeof(why)) == 0, "%s", why);
	CHECK(c.rtt_ns == 2500000u && c.rate_bps == 1000000000u);
	CHECK(link_parse("150ms", &c, why, sizeof(why)) == 0);
	CHECK(c.rtt_ns == 150000000u && c.rate_bps == 0);
	CHECK(link_parse("20MBIT", &c, why, sizeof(why)) == 0);
	CHECK(c.rtt_ns == 0 && c.rate_bps == 20000000u);
	CHECK(link_parse("1s,500kbit", &c, NULL, 0) == 0);
	CHECK(c.rtt_ns == 1000000000u && c.rate_bps == 500000u);
	CHECK(link_parse("60", &c, why, sizeof(why)) == -EINVAL &&
		  strstr(why, "'60': expected a round trip"),
	      "%s", why);
	CHECK(link_parse("60ms,70ms", &c, why, sizeof(why)) == -EINVAL &&
		  !strcmp(why, "two round trips"),
	      "%s", why);
	CHECK(link_parse("1mbit,2mbit", &c, why, sizeof(why)) == -EINVAL);
	CHECK(link_parse("-5ms", &c, why, sizeof(why)) == -EINVAL);
	CHECK(link_parse("", &c, why, sizeof(why)) == -EINVAL);
	CHECK(link_parse("60ms,", &c, why, sizeof(why)) == -EINVAL);
	CHECK(link_parse("11s", &c, why, sizeof(why)) == -EINVAL);
	CHECK(link_parse("10bit", &c, why, sizeof(why)) == -EINVAL);
	c = (struct link_config){60000000u, 50000000u};
	link_describe(&c, why, sizeof(why));
	CHECK(!strcmp(why, "60 ms round trip, 50 Mbit/s each way"), "%s", why);
}

static int listener(int *port)
{
	int fd;

	*port = 0;
	fd = testlib_listen(false, port);
	if (fd < 0) {
		fprintf(stderr, "listener: %s\n", strerror(-fd));
		exit(1);
	}
	return fd;
}

static int dial(int port)
{
	struct sockaddr_in sa;
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;

	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sa.sin_port = htons((uint16_t)port);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		perror("dial");
		exit(1);
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

/* Through a link to a server of ours: the client's socket and the
 * server's end of the same connection. */
static struct link *connect_through(const struct link_config *cfg, int *cli,
				    int *srv)
{
	int port, lfd = listener(&port);
	struct link *l = link_start(cfg, 0, "127.0.0.1", port);

	if (!l)
		exit(1);
	*cli = dial(link_port(l));
	*srv = accept(lfd, NULL, NULL);
	close(lfd);
	if (*srv < 0) {
		perror("accept");
		exit(1);
	}
	return l;
}

/* The counters once down has reached want, or after a second. */
static void counts_settle(struct link *l, uint64_t want, struct link_counts *n)
{
	int i;

	for (i = 0; i < 100; i++) {
		link_counts(l, n);
		if (n->down >= want)
			return;
		usleep(10000);
	}
}

static void delay_checks(void)
{
	struct link_config cfg = {.rtt_ns = 100000000u};
	struct link_counts n;
	uint64_t rtts[ECHOES];
	int cli, srv, k;
	struct link *l = connect_through(&cfg, &cli, &srv);

	for (k = 0; k < ECHOES; k++) {
		uint64_t t0 = monotonic_ns(), up, rtt;
		char b = (char)('a' + k), got = 0, back = 0;

		CHECK(send(cli, &b, 1, 0) == 1);
		CHECK(recv(srv, &got, 1, 0) == 1 && got == b);
		up = monotonic_ns() - t0;
		CHECK(send(srv, &got, 1, 0) == 1);
		CHECK(recv(cli, &back, 1, 0) == 1 && back == b);
		rtt = monotonic_ns() - t0;
		CHECK(up >= 50000000u, "one way took %.1f ms, under 50",
		      (double)up / 1e6);
		CHECK(rtt >= 100000000u, "round trip %.1f ms, under 100",
		      (double)rtt / 1e6);
		rtts[k] = rtt;
	}
	stats_sort_u64(rtts, ECHOES);
	CHECK(rtts[ECHOES / 2] < (100 + SLACK_MS) * 1000000ull,
	      "round trip %.1f ms (median), over %d",
	      (double)rtts[ECHOES / 2] / 1e6, 100 + SLACK_MS);
	printf("link: 100 ms asked, %.1f ms measured (median of %d)\n",
	       (double)rtts[ECHOES / 2] / 1e6, ECHOES);
	/* The relay counts a write after making it. */
	counts_settle(l, ECHOES, &n);
	CHECK(n.up == ECHOES && n.down == ECHOES && n.connections == 1,
	      "counts up %llu down %llu connections %llu",
	      (unsigned long long)n.up, (unsigned long long)n.down,
	      (unsigned long long)n.connections);
	close(cli);
	close(srv);
	link_stop(l);
}

struct sender {
	int fd;
	size_t len;
	uint8_t seed;
};

static uint8_t pattern(size_t i, uint8_t seed)
{
	return (uint8_t)(i * 131 + (i >> 13) + seed);
}

/* Send len bytes of the pattern, then half-close. */
static void *send_thread(void *arg)
{
	struct sender *s = arg;
	uint8_t buf[8192];
	size_t off = 0;

	while (off < s->len) {
		size_t n =
		    s->len - off < sizeof(buf) ? s->len - off : sizeof(buf);
		ssize_t k;

		for (size_t i = 0; i < n; i++)
			buf[i] = pattern(off + i, s->seed);
		k = send(s->fd, buf, n, 0);
		if (k <= 0)
			break;
		off += (size_t)k;
		/* What was not sent goes again, recomputed. */
	}
	shutdown(s->fd, SHUT_WR);
	return NULL;
}

/* Read to EOF, checking the pattern: bytes in order; the time from the
 * first byte to the last. */
static size_t receive(int fd, uint8_t seed, size_t *bad, uint64_t *span)
{
	uint8_t buf[16384];
	size_t got = 0;
	uint64_t first = 0;
	ssize_t k;

	*bad = 0;
	while ((k = recv(fd, buf, sizeof(buf), 0)) > 0) {
		if (!got)
			first = monotonic_ns();
		for (ssize_t i = 0; i < k; i++)
			if (buf[i] != pattern(got + (size_t)i, seed))
				(*bad)++;
		got += (size_t)k;
	}
	*span = monotonic_ns() - first;
	return got;
}

static void rate_checks(void)
{
	struct link_config cfg = {.rtt_ns = 20000000u, .rate_bps = 40000000u};
	struct sender up, down;
	pthread_t tu, td;
	struct link_counts n;
	size_t got, bad;
	uint64_t span, span2;
	double rate;
	int cli, srv;
	struct link *l = connect_through(&cfg, &cli, &srv);

	/* Both ways at once: the server's stream is the rate-measured one,
	 * the client's a smaller one beside it. */
	down = (struct sender){.fd = srv, .len = BULK, .seed = 7};
	up = (struct sender){.fd = cli, .len = BULK / 4, .seed = 3};
	pthread_create(&td, NULL, send_thread, &down);
	pthread_create(&tu, NULL, send_thread, &up);
	got = receive(cli, 7, &bad, &span);
	CHECK(got == BULK && bad == 0, "down: %zu of %u bytes, %zu wrong", got,
	      BULK, bad);
	got = receive(srv, 3, &bad, &span2);
	CHECK(got == BULK / 4 && bad == 0, "up: %zu of %u bytes, %zu wrong",
	      got, BULK / 4, bad);
	pthread_join(td, NULL);
	pthread_join(tu, NULL);
	/* From the first byte's arrival to the last's: the bytes after the
	 * first chunk (16 KiB at most) went at the rate. */
	rate = (double)(BULK - (16u << 10)) * 8 / ((double)span / 1e9);
	CHECK(rate <= RATE_OVER * 40e6, "%.2f Mbit/s through a 40 Mbit/s link",
	      rate / 1e6);
	CHECK(rate >= RATE_UNDER * 40e6,
	      "%.2f Mbit/s through a 40 Mbit/s link (under %.0f%%)", rate / 1e6,
	      RATE_UNDER * 100);
	printf("link: 40 Mbit/s asked, %.2f Mbit/s measured\n", rate / 1e6);
	counts_settle(l, BULK, &n);
	CHECK(n.down == BULK && n.up == BULK / 4, "counts down %llu up %llu",
	      (unsigned long long)n.down, (unsigned long long)n.up);
	close(cli);
	close(srv);
	link_stop(l);
}

/* A client that leaves: the relay drops the connection, and the next one
 * is served. */
static void reconnect_checks(void)
{
	struct link_config cfg = {.rtt_ns = 2000000u, .rate_bps = 100000000u};
	int port, lfd = listener(&port), k;
	struct link *l = link_start(&cfg, 0, "127.0.0.1", port);
	struct link_counts n;

	CHECK(l != NULL);
	if (!l)
		return;
	for (k = 0; k < 3; k++) {
		int cli = dial(link_port(l)), srv = accept(lfd, NULL, NULL);
		char b = 0;

		CHECK(send(cli, "x", 1, 0) == 1);
		CHECK(recv(srv, &b, 1, 0) == 1 && b == 'x');
		close(cli);
		CHECK(recv(srv, &b, 1, 0) == 0, "no EOF after the client left");
		close(srv);
	}
	link_counts(l, &n);
	CHECK(n.connections == 3 && n.up == 3);
	close(lfd);
	link_stop(l);
	link_stop(NULL);
}

int main(void)
{
	parse_checks();
	delay_checks();
	rate_checks();
	reconnect_checks();
	return check_done("link");
}
