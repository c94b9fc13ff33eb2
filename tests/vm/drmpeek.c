/* What the DRM VM tests look at besides the screendump:
 *
 *   drmpeek crtc [CARD]        "CRTC fb F mode WxH@HZ" of the first
 *                              connected connector's CRTC ("CRTC off"
 *                              when it shows nothing)
 *   drmpeek hold SECS [CARD]   be DRM master for SECS seconds ("HOLDING"
 *                              once it is), as a compositor would
 *
 * CARD defaults to /dev/dri/card0. Exit 0, or 1 on a failed call (message
 * on stderr). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xf86drm.h>
#include <xf86drmMode.h>

static int crtc(int fd)
{
	drmModeRes *res = drmModeGetResources(fd);
	int i;

	if (!res) {
		perror("drmModeGetResources");
		return 1;
	}
	for (i = 0; i < res->count_connectors; i++) {
		drmModeConnector *c =
		    drmModeGetConnector(fd, res->connectors[i]);
		drmModeEncoder *e;
		drmModeCrtc *cr;

		if (!c || c->connection != DRM_MODE_CONNECTED) {
			drmModeFreeConnector(c);
			continue;
		}
		e = c->encoder_id ? drmModeGetEncoder(fd, c->encoder_id) : NULL;
		cr = e && e->crtc_id ? drmModeGetCrtc(fd, e->crtc_id) : NULL;
		if (!cr || !cr->buffer_id || !cr->mode_valid)
			printf("CRTC off\n");
		else
			printf("CRTC fb %u mode %ux%u@%u\n", cr->buffer_id,
			       cr->mode.hdisplay, cr->mode.vdisplay,
			       cr->mode.vrefresh);
		drmModeFreeCrtc(cr);
		drmModeFreeEncoder(e);
		drmModeFreeConnector(c);
		drmModeFreeResources(res);
		return 0;
	}
	printf("CRTC none connected\n");
	drmModeFreeResources(res);
	return 0;
}

int main(int argc, char **argv)
{
	const char *card = "/dev/dri/card0";
	int fd;

	if (argc < 2 || (strcmp(argv[1], "crtc") && strcmp(argv[1], "hold")) ||
	    (!strcmp(argv[1], "hold") && argc < 3)) {
		fprintf(stderr, "usage: drmpeek crtc [CARD] | hold SECS "
				"[CARD]\n");
		return 2;
	}
	if (argc > (strcmp(argv[1], "hold") ? 2 : 3))
		card = argv[argc - 1];
	fd = open(card, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "drmpeek: %s: %s\n", card, strerror(errno));
		return 1;
	}
	if (!strcmp(argv[1], "crtc"))
		return crtc(fd);
	if (!drmIsMaster(fd) && drmSetMaster(fd) < 0) {
		fprintf(stderr, "drmpeek: drmSetMaster: %s\n", strerror(errno));
		return 1;
	}
	printf("HOLDING\n");
	fflush(stdout);
	sleep((unsigned)atoi(argv[2]));
	return 0;
}
