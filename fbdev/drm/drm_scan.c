/* The DRM output's cards read as one list of connectors, and the CRTC
 * choice (drm_scan.h). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <xf86drm.h>
#include <xf86drmMode.h>

#include "drm.h"
#include "drm_scan.h"

/* The CRTCs c's encoders reach, as a mask of indices in res. */
static uint32_t reach(int fd, const drmModeConnector *c)
{
	uint32_t crtcs = 0;
	int i;

	for (i = 0; i < c->count_encoders; i++) {
		drmModeEncoder *e = drmModeGetEncoder(fd, c->encoders[i]);

		if (e)
			crtcs |= e->possible_crtcs;
		drmModeFreeEncoder(e);
	}
	return crtcs;
}

static bool crtc_taken(uint32_t crtc, const uint32_t *taken, int ntaken)
{
	int i;

	for (i = 0; i < ntaken; i++)
		if (taken[i] == crtc)
			return true;
	return false;
}

uint32_t drm_pick_crtc(int fd, const drmModeRes *res, const drmModeConnector *c,
		       uint32_t ours, bool current, const uint32_t *taken,
		       int ntaken)
{
	uint32_t mask = reach(fd, c), found = 0;
	drmModeEncoder *e;
	int i;

	for (i = 0; ours && i < res->count_crtcs && i < 32; i++)
		if ((mask & (1u << i)) && res->crtcs[i] == ours &&
		    !crtc_taken(ours, taken, ntaken))
			return ours;
	if (current && c->encoder_id &&
	    (e = drmModeGetEncoder(fd, c->encoder_id))) {
		found = e->crtc_id;
		drmModeFreeEncoder(e);
		if (found && !crtc_taken(found, taken, ntaken))
			return found;
		found = 0;
	}
	for (i = 0; i < res->count_crtcs && i < 32 && !found; i++) {
		drmModeCrtc *cr;

		if (!(mask & (1u << i)) ||
		    crtc_taken(res->crtcs[i], taken, ntaken))
			continue;
		cr = drmModeGetCrtc(fd, res->crtcs[i]);
		if (cr && !cr->buffer_id)
			found = cr->crtc_id;
		drmModeFreeCrtc(cr);
	}
	return found;
}

int drm_scan_read(struct drm_scan *sc, const struct drm_card *cards, int ncards)
{
	int k, i, err = -ENODEV;

	memset(sc, 0, sizeof(*sc));
	for (k = 0; k < ncards && k < DRM_MAX_CARDS; k++) {
		drmModeRes *res = drmModeGetResources(cards[k].fd);

		if (!res) {
			err = -errno;
			continue;
		}
		sc->res[k] = res;
		for (i = 0;
		     i < res->count_connectors && sc->n < DRM_MAX_CONNECTORS;
		     i++) {
			drmModeConnector *c = drmModeGetConnector(
			    cards[k].fd, res->connectors[i]);
			struct drm_conn_info *info = &sc->info[sc->n];

			if (!c)
				continue;
			sc->conns[sc->n] = c;
			sc->card[sc->n] = k;
			drm_connector_name(c->connector_type,
					   c->connector_type_id, info->name,
					   sizeof(info->name));
			snprintf(info->card, sizeof(info->card), "%s",
				 cards[k].name);
			info->connected = c->connection == DRM_MODE_CONNECTED;
			info->nmodes = c->count_modes;
			sc->n++;
		}
	}
	for (k = 0; k < ncards && k < DRM_MAX_CARDS; k++)
		if (sc->res[k])
			return 0;
	return err;
}

void drm_scan_free(struct drm_scan *sc)
{
	int i;

	for (i = 0; i < sc->n; i++)
		drmModeFreeConnector(sc->conns[i]);
	for (i = 0; i < DRM_MAX_CARDS; i++)
		drmModeFreeResources(sc->res[i]);
	memset(sc, 0, sizeof(*sc));
}

void drm_scan_describe(const struct drm_scan *sc, char *buf, size_t len)
{
	size_t used = 0;
	char name[48];
	int i;

	buf[0] = '\0';
	for (i = 0; i < sc->n && used + 1 < len; i++) {
		drm_head_name(sc->info, sc->n, i, name, sizeof(name));
		used += (size_t)snprintf(
		    buf + used, len - used, "%s%s %s", used ? ", " : "", name,
		    sc->info[i].connected ? "connected" : "disconnected");
	}
}
