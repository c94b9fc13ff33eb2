/* What the DRM VM tests look at besides the screendump:
 *
 *   drmpeek crtc [CARD]        "CRTC fb F mode WxH@HZ" of the first
 *                              connected connector's CRTC ("CRTC off"
 *                              when it shows nothing)
 *   drmpeek crtcs [CARD]       every CRTC, one line each: "CRTC N fb F
 *                              mode WxH@HZ on NAME[,NAME]" (N its index
 *                              in the card's list, the connectors on it),
 *                              or "CRTC N off"
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

/* The connectors whose encoder drives crtc_id, "A,B", into buf. */
static void crtc_connectors(int fd, drmModeRes *res, uint32_t crtc_id,
			    char *buf, size_t len)
{
	size_t used = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < res->count_connectors; i++) {
		drmModeConnector *c =
		    drmModeGetConnector(fd, res->connectors[i]);
		drmModeEncoder *e = c && c->encoder_id
					? drmModeGetEncoder(fd, c->encoder_id)
					: NULL;

		if (e && e->crtc_id == crtc_id && used + 1 < len)
			used += (size_t)snprintf(
			    buf + used, len - used, "%s%s-%u", used ? "," : "",
			    drmModeGetConnectorTypeName(c->connector_type)
				?: "Unknown",
			    c->connector_type_id);
		if (used >= len)
			used = len - 1;
		drmModeFreeEncoder(e);
		drmModeFreeConnector(c);
	}
}

static int crtcs(int fd)
{
	drmModeRes *res = drmModeGetResources(fd);
	char names[128];
	int i;

	if (!res) {
		perror("drmModeGetResources");
		return 1;
	}
	for (i = 0; i < res->count_crtcs; i++) {
		drmModeCrtc *cr = drmModeGetCrtc(fd, res->crtcs[i]);

		if (!cr || !cr->buffer_id || !cr->mode_valid) {
			printf("CRTC %d off\n", i);
		} else {
			crtc_connectors(fd, res, cr->crtc_id, names,
					sizeof(names));
			printf("CRTC %d fb %u mode %ux%u@%u on %s\n", i,
			       cr->buffer_id, cr->mode.hdisplay,
			       cr->mode.vdisplay, cr->mode.vrefresh,
			       names[0] ? names : "nothing");
		}
		drmModeFreeCrtc(cr);
	}
	drmModeFreeResources(res);
	return 0;
}

int main(int argc, char **argv)
{
	const char *card = "/dev/dri/card0";
	int fd;

	if (argc < 2 ||
	    (strcmp(argv[1], "crtc") && strcmp(argv[1], "crtcs") &&
	     strcmp(argv[1], "hold")) ||
	    (!strcmp(argv[1], "hold") && argc < 3)) {
		fprintf(stderr, "usage: drmpeek crtc [CARD] | crtcs [CARD] | "
				"hold SECS [CARD]\n");
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
	if (!strcmp(argv[1], "crtcs"))
		return crtcs(fd);
	if (!drmIsMaster(fd) && drmSetMaster(fd) < 0) {
		fprintf(stderr, "drmpeek: drmSetMaster: %s\n", strerror(errno));
		return 1;
	}
	printf("HOLDING\n");
	fflush(stdout);
	sleep((unsigned)atoi(argv[2]));
	return 0;
}
