/* An emulated network link for vncfb bench (--link RTT,RATE): a relay on
 * loopback that forwards each connection it accepts to a server, holding
 * every byte for half the round trip in each direction and letting no
 * more through than the rate, in order, nothing lost. The host kernel may
 * have no netem, and tests may use only loopback: this is netem's delay
 * and rate in user space, with a bottleneck queue of one round trip's
 * bytes at the rate plus LINK_QUEUE_BYTES, beyond which the relay stops
 * reading and the sender's socket fills, as it would behind a real link.
 *
 * Threads: link_* calls belong to one thread (the one that started the
 * link); the relay runs in a thread of its own; link_counts may be called
 * from any thread while it runs. */
#ifndef VNCFB_LINK_H
#define VNCFB_LINK_H

#include <stddef.h>
#include <stdint.h>

/* The bottleneck's buffer beyond the bytes in flight. */
#define LINK_QUEUE_BYTES (64u << 10)

struct link_config {
	uint64_t rtt_ns;   /* round trip the link adds, half each way */
	uint64_t rate_bps; /* bits per second each way, 0: unlimited */
};

/* "60ms,50mbit", "150ms", "20mbit", "0,1gbit": a delay (s, ms or us) and
 * a rate (bit, kbit, mbit or gbit, per second), in either order, either
 * left out. 0 or -EINVAL; why (if not NULL) gets the reason. */
int link_parse(const char *spec, struct link_config *cfg, char *why,
	       size_t why_len);
/* "60 ms round trip, 50 Mbit/s each way" */
void link_describe(const struct link_config *cfg, char *buf, size_t len);

struct link;

/* Listen on 127.0.0.1:listen_port (0: a free port) and relay each client
 * to host:port (resolved now; each connection is made when a client
 * comes). NULL on failure (logged). */
struct link *link_start(const struct link_config *cfg, int listen_port,
			const char *host, int port);
int link_port(const struct link *l);
const struct link_config *link_config(const struct link *l);

struct link_counts {
	uint64_t down; /* bytes delivered from the server to clients */
	uint64_t up;   /* from clients to the server */
	uint64_t connections;
};

void link_counts(const struct link *l, struct link_counts *c);
/* Stop relaying, close every connection. NULL is a no-op. */
void link_stop(struct link *l);

#endif
