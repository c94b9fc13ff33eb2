/* 1,000 connect/disconnect cycles through vnc_connect/vnc_dispatch/
 * vnc_destroy (what a reconnect does) against a loopback server thread
 * that plays a recorded session (a fuzz corpus file: Tight with zlib and
 * JPEG, cursor shapes, bell, cut text, a resize) and hangs up: open fds
 * must not grow at all, and heap in use (mallinfo2) must not grow between
 * cycle 100 and the end. The sanitizer build (cycles-lsan) adds
 * LeakSanitizer's verdict at exit. (libvncserver's own server spends
 * 100 ms per connection probing for WebSockets, hence the thread.)
 * Usage: test_cycles SESSION-FILE [CYCLES]. */
#include <arpa/inet.h>
#include <malloc.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/log.h"
#include "shadow/pixfmt.h"
#include "net/vnc.h"

#include "cycle_sink.h"

struct server {
	struct replay_server rs;
	uint8_t *buf;
};

static int start_server(struct server *sv, const char *path, int *port)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	if (!f) {
		perror(path);
		return -1;
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n || n < 2) {
		fprintf(stderr, "cannot read %s\n", path);
		fclose(f);
		return -1;
	}
	fclose(f);
	/* Byte 0 is the fuzz harness's format byte (0: xrgb8888). */
	sv->buf = buf;
	sv->rs.data = buf + 1;
	sv->rs.size = (size_t)n - 1;
	return replay_start(&sv->rs, port);
}

static int cycle(const struct vnc_config *cfg, struct ctx *c)
{
	const struct vnc_events ev = sink_events(c);
	enum vnc_error err;
	struct vnc_client *vc = vnc_connect(cfg, &ev, &err);
	int tries;

	if (!vc)
		return -1;
	c->done = 0;
	/* Until the server hangs up after the last update. */
	for (tries = 0; tries < 1000; tries++) {
		struct pollfd p = { vnc_fd(vc), POLLIN, 0 };

		if (poll(&p, 1, 50) > 0 && vnc_dispatch(vc, &err) < 0)
			break;
	}
	vnc_destroy(vc);
	return c->done >= 5 ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct vnc_config cfg;
	struct ctx c = { 0 };
	struct server sv;
	int cycles = argc > 2 ? atoi(argv[2]) : 1000, i, fds0, fds1, port;
	size_t heap100 = 0, heap_end;

	if (argc < 2) {
		fprintf(stderr, "usage: test_cycles SESSION-FILE [CYCLES]\n");
		return 2;
	}
	log_set_level(LOG_SILENT);
	if (start_server(&sv, argv[1], &port) < 0)
		return 1;
	cycle_config(&cfg, port);
	cfg.quality = 5;
	cfg.local_cursor = true;
	fds0 = count_fds();
	for (i = 0; i < cycles; i++) {
		if (cycle(&cfg, &c) < 0) {
			fprintf(stderr, "FAIL: cycle %d did not replay the "
					"session (%d updates)\n",
				i, c.done);
			return 1;
		}
		if (i == 99)
			heap100 = heap_in_use();
	}
	/* Counted once the server thread is done: it may still hold the
	 * last connection, waiting for the client's close to reach it. */
	shutdown(sv.rs.lfd, SHUT_RDWR);
	pthread_join(sv.rs.thread, NULL);
	fds1 = count_fds();
	heap_end = heap_in_use();
	free(c.fb);
	close(sv.rs.lfd);
	free(sv.buf);
	printf("%d cycles: fds %d -> %d, heap in use after 100 cycles %zu, "
	       "after %d %zu\n",
	       cycles, fds0, fds1, heap100, cycles, heap_end);
	if (fds1 != fds0) {
		fprintf(stderr, "FAIL: %d fds leaked\n", fds1 - fds0);
		return 1;
	}
	/* mallinfo2 sees only glibc's heap (not ASan's): 0 under ASan. */
	if (cycles > 100 && heap_end > heap100 + 16384) {
		fprintf(stderr, "FAIL: heap grew by %zu bytes over %d cycles\n",
			heap_end - heap100, cycles - 100);
		return 1;
	}
	return 0;
}
