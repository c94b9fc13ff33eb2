/* A libvncserver test server for the reliability tests: a solid colour
 * desktop on 127.0.0.1, on a given port (0: any free one). Prints
 * "READY PORT" once listening, then serves until killed. The listening
 * socket is ours (SO_REUSEADDR, so a restart can take the same port) and
 * each accepted connection is handed to libvncserver. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rfb/rfb.h>

static void quiet(const char *fmt, ...)
{
}

static void usage(void)
{
	fprintf(stderr, "usage: testserver [--port N] [--colour RRGGBB] "
			"[--size WxH] [--password PW]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static char *passwords[2];
	int port = 0, w = 64, h = 48, i, lfd, one = 1, fargc = 0;
	unsigned long colour = 0xff0000;
	struct sockaddr_in sa;
	socklen_t sl = sizeof(sa);
	rfbScreenInfoPtr s;
	uint32_t *fb;

	for (i = 1; i < argc; i++) {
		if (i + 1 >= argc)
			usage();
		if (!strcmp(argv[i], "--port"))
			port = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--colour"))
			colour = strtoul(argv[++i], NULL, 16);
		else if (!strcmp(argv[i], "--size")) {
			if (sscanf(argv[++i], "%dx%d", &w, &h) != 2)
				usage();
		} else if (!strcmp(argv[i], "--password"))
			passwords[0] = argv[++i];
		else
			usage();
	}
	if (!getenv("TESTSERVER_VERBOSE")) {
		rfbLog = quiet;
		rfbErr = quiet;
	}
	fb = malloc((size_t)w * h * 4);
	if (!fb)
		return 1;
	/* Memory order R, G, B, X for libvncserver's default 32 bpp. */
	for (i = 0; i < w * h; i++)
		fb[i] = (uint32_t)(((colour >> 16) & 0xff) |
				   (colour & 0xff00) | ((colour & 0xff) << 16));
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(lfd, 16) < 0 ||
	    getsockname(lfd, (struct sockaddr *)&sa, &sl) < 0) {
		fprintf(stderr, "testserver: 127.0.0.1:%d: %s\n", port,
			strerror(errno));
		return 1;
	}
	s = rfbGetScreen(&fargc, NULL, w, h, 8, 3, 4);
	s->frameBuffer = (char *)fb;
	s->desktopName = "vncfb testserver";
	s->port = 0;
	s->ipv6port = 0;
	s->autoPort = FALSE;
	s->httpDir = NULL;
	s->alwaysShared = TRUE;
	s->deferUpdateTime = 0;
	if (passwords[0]) {
		s->authPasswdData = passwords;
		s->passwordCheck = rfbCheckPasswordByList;
	}
	rfbInitServer(s);
	printf("READY %d\n", ntohs(sa.sin_port));
	fflush(stdout);
	for (;;) {
		struct pollfd p = { lfd, POLLIN, 0 };

		if (poll(&p, 1, 0) > 0) {
			int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);

			if (c >= 0)
				rfbNewClient(s, c);
		}
		/* Short, so a handshake is not paced by this loop (the
		 * connect cycle test makes a thousand). */
		rfbProcessEvents(s, 1000);
	}
}
