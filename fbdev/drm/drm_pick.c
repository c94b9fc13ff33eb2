/* The DRM output's choices, without a device (drm.h). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <drm_fourcc.h>

#include "drm.h"

/* Largest mode we take from a user: the drm core's own limit. */
#define MODE_MAX_DIM 16384
#define MODE_MAX_HZ 1000

static int parse_u32(const char *s, size_t n, uint32_t max, uint32_t *out)
{
	uint32_t v = 0;
	size_t i;

	if (n == 0)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		v = v * 10 + (uint32_t)(s[i] - '0');
		if (v > max)
			return -EINVAL;
	}
	*out = v;
	return 0;
}

int drm_mode_parse(const char *v, uint32_t *w, uint32_t *h, uint32_t *hz)
{
	const char *x = strpbrk(v, "xX"), *at;

	*hz = 0;
	if (!x || parse_u32(v, (size_t)(x - v), MODE_MAX_DIM, w) < 0 || !*w)
		return -EINVAL;
	at = strchr(x + 1, '@');
	if (parse_u32(x + 1, at ? (size_t)(at - x - 1) : strlen(x + 1),
		      MODE_MAX_DIM, h) < 0 ||
	    !*h)
		return -EINVAL;
	if (at &&
	    (parse_u32(at + 1, strlen(at + 1), MODE_MAX_HZ, hz) < 0 || !*hz))
		return -EINVAL;
	return 0;
}

/* The length of name's CARD: part ("card1" of "card1:HDMI-A-1"), 0
 * without one. */
static size_t card_len(const char *name)
{
	const char *c = strchr(name, ':');

	return c ? (size_t)(c - name) : 0;
}

/* name's NAME part. */
static const char *name_part(const char *name)
{
	const char *c = strchr(name, ':');

	return c ? c + 1 : name;
}

/* Whether name is [cardN:]NAME: a card of /dev/dri/card0..15 at most,
 * and a NAME. */
static bool good_name(const char *name)
{
	size_t k = card_len(name), i;

	if (!*name_part(name) || strchr(name_part(name), ':'))
		return false;
	if (!strchr(name, ':'))
		return true;
	if (k < 5 || k > 6 || strncmp(name, "card", 4))
		return false;
	for (i = 4; i < k; i++)
		if (name[i] < '0' || name[i] > '9')
			return false;
	return atoi(name + 4) < DRM_MAX_CARDS && (k == 5 || name[4] != '0');
}

bool drm_name_eq(const char *a, const char *b)
{
	size_t ka = card_len(a), kb = card_len(b);

	if (strcasecmp(name_part(a), name_part(b)))
		return false;
	return !ka || !kb || (ka == kb && !strncasecmp(a, b, ka));
}

/* Why a mode item is refused, for both --mode and the spec's mode=. */
#define MODE_GRAMMAR                                                           \
	"WIDTHxHEIGHT[@HZ] for every head, or [CARD:]NAME:WIDTHxHEIGHT[@HZ] "  \
	"for connector NAME's (e.g. 1920x1080@60, HDMI-A-1:1280x1024, "        \
	"card1:DP-1:1920x1080)"

/* One item of mode= (n bytes at it) into s. */
static int parse_mode_item(const char *it, size_t n, bool *bare,
			   struct drm_spec *s, char *why, size_t len)
{
	char item[64], *colon;
	struct drm_mode_want w;
	size_t nlen;
	int i;

	if (n >= sizeof(item)) {
		snprintf(why, len, "bad mode '%.*s...': " MODE_GRAMMAR, 16, it);
		return -EINVAL;
	}
	memcpy(item, it, n);
	item[n] = '\0';
	/* The last colon: the name may have its card's before it. */
	colon = strrchr(item, ':');
	nlen = colon ? (size_t)(colon - item) : 0;
	if ((colon && (!nlen || nlen >= sizeof(s->named[0].name))) ||
	    drm_mode_parse(colon ? colon + 1 : item, &w.width, &w.height,
			   &w.hz) < 0) {
		snprintf(why, len, "bad mode '%s': " MODE_GRAMMAR, item);
		return -EINVAL;
	}
	if (colon) {
		*colon = '\0';
		if (!good_name(item)) {
			snprintf(why, len,
				 "bad connector '%s' in mode '%.*s': a card is "
				 "cardN (e.g. card1:HDMI-A-1:1920x1080)",
				 item, (int)n, it);
			return -EINVAL;
		}
	}
	if (!colon) {
		if (*bare) {
			snprintf(why, len,
				 "two modes for every head (%ux%u and %s): "
				 "NAME:WIDTHxHEIGHT[@HZ] gives one connector "
				 "its own",
				 s->mode.width, s->mode.height, item);
			return -EINVAL;
		}
		*bare = true;
		s->mode = w;
		return 0;
	}
	for (i = 0; i < s->nnamed; i++)
		if (drm_name_eq(s->named[i].name, item)) {
			snprintf(why, len, "a mode for %s given twice",
				 s->named[i].name);
			return -EINVAL;
		}
	if (s->nnamed == DRM_MAX_HEADS) {
		snprintf(why, len, "modes for at most %d connectors",
			 DRM_MAX_HEADS);
		return -EINVAL;
	}
	memcpy(s->named[s->nnamed].name, item, nlen + 1);
	s->named[s->nnamed++].want = w;
	return 0;
}

/* mode=: blank-separated items, as --layout's. */
static int parse_modes(const char *v, struct drm_spec *s, char *why, size_t len)
{
	const char *p = v;
	bool bare = false;

	memset(&s->mode, 0, sizeof(s->mode));
	s->nnamed = 0;
	for (;;) {
		size_t n;

		p += strspn(p, " \t");
		if (!*p)
			break;
		n = strcspn(p, " \t");
		if (parse_mode_item(p, n, &bare, s, why, len) < 0)
			return -EINVAL;
		p += n;
	}
	if (!bare && !s->nnamed) {
		snprintf(why, len, "no mode given: " MODE_GRAMMAR);
		return -EINVAL;
	}
	return 0;
}

/* With connector= the modes' names are among its. */
static int check_mode_names(const struct drm_spec *s, char *why, size_t len)
{
	char names[DRM_MAX_HEADS * 34];
	size_t used = 0;
	int i, k;

	for (i = 0; s->nheads && i < s->nnamed; i++) {
		for (k = 0; k < s->nheads; k++)
			if (drm_name_eq(s->named[i].name, s->heads[k]))
				break;
		if (k < s->nheads)
			continue;
		names[0] = '\0';
		for (k = 0; k < s->nheads && used < sizeof(names); k++)
			used += (size_t)snprintf(names + used,
						 sizeof(names) - used, "%s%s",
						 k ? ", " : "", s->heads[k]);
		snprintf(why, len,
			 "a mode for %s, which is not a connector named (%s)",
			 s->named[i].name, names);
		return -EINVAL;
	}
	return 0;
}

/* connector=NAME[+NAME...]: the heads in order, each named once. */
static int parse_heads(const char *v, struct drm_spec *s, char *why, size_t len)
{
	const char *p = v;
	int i;

	if (s->all) {
		snprintf(why, len, "all and connector= exclude each other");
		return -EINVAL;
	}
	s->nheads = 0;
	do {
		size_t n = strcspn(p, "+");

		if (!n || n >= sizeof(s->heads[0])) {
			snprintf(why, len,
				 "connector=[CARD:]NAME[+[CARD:]NAME...], e.g. "
				 "HDMI-A-1 or card1:HDMI-A-1");
			return -EINVAL;
		}
		if (s->nheads == DRM_MAX_HEADS) {
			snprintf(why, len, "at most %d connectors",
				 DRM_MAX_HEADS);
			return -EINVAL;
		}
		memcpy(s->heads[s->nheads], p, n);
		s->heads[s->nheads][n] = '\0';
		if (!good_name(s->heads[s->nheads])) {
			snprintf(
			    why, len,
			    "bad connector '%s': [CARD:]NAME, a card being "
			    "cardN (e.g. card1:HDMI-A-1)",
			    s->heads[s->nheads]);
			return -EINVAL;
		}
		for (i = 0; i < s->nheads; i++)
			if (drm_name_eq(s->heads[i], s->heads[s->nheads])) {
				snprintf(why, len, "connector %s given twice",
					 s->heads[i]);
				return -EINVAL;
			}
		s->nheads++;
		p += n;
	} while (*p++ == '+');
	memcpy(s->connector, s->heads[0], sizeof(s->connector));
	return 0;
}

/* One item of the spec; n is its length. */
static int parse_item(const char *it, size_t n, struct drm_spec *s, char *why,
		      size_t len)
{
	char v[256];
	const char *eq = memchr(it, '=', n);
	size_t klen = eq ? (size_t)(eq - it) : n, vlen = eq ? n - klen - 1 : 0;

	if (n == 0)
		return 0;
	if (n == 3 && !strncmp(it, "all", 3)) {
		if (s->nheads) {
			snprintf(why, len,
				 "all and connector= exclude each "
				 "other");
			return -EINVAL;
		}
		s->all = true;
		return 0;
	}
	if (!eq) {
		if (n >= sizeof(s->device)) {
			snprintf(why, len, "device path too long");
			return -EINVAL;
		}
		memcpy(s->device, it, n);
		s->device[n] = '\0';
		return 0;
	}
	if (vlen >= sizeof(v)) {
		snprintf(why, len, "value too long");
		return -EINVAL;
	}
	memcpy(v, eq + 1, vlen);
	v[vlen] = '\0';
	if (klen == 9 && !strncmp(it, "connector", 9)) {
		if (parse_heads(v, s, why, len) < 0)
			return -EINVAL;
	} else if (klen == 4 && !strncmp(it, "mode", 4)) {
		if (parse_modes(v, s, why, len) < 0)
			return -EINVAL;
	} else if (klen == 7 && !strncmp(it, "buffers", 7)) {
		if (strcmp(v, "1") && strcmp(v, "2")) {
			snprintf(why, len, "buffers=1 or buffers=2");
			return -EINVAL;
		}
		s->buffers = v[0] - '0';
	} else {
		snprintf(why, len,
			 "unknown drm option '%.*s' (connector=, all, "
			 "mode=, buffers=)",
			 (int)klen, it);
		return -EINVAL;
	}
	return 0;
}

int drm_spec_parse(const char *arg, struct drm_spec *s, char *why, size_t len)
{
	const char *p = arg;

	memset(s, 0, sizeof(*s));
	while (p && *p) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);

		if (parse_item(p, n, s, why, len) < 0)
			return -EINVAL;
		p = comma ? comma + 1 : NULL;
	}
	return check_mode_names(s, why, len);
}

const struct drm_mode_want *drm_spec_mode(const struct drm_spec *s,
					  const char *name)
{
	int i;

	for (i = 0; name && *name && i < s->nnamed; i++)
		if (drm_name_eq(s->named[i].name, name))
			return &s->named[i].want;
	return &s->mode;
}

void drm_connector_name(uint32_t type, uint32_t type_id, char *buf, size_t len)
{
	/* The kernel's names (drm_connector.c), indexed by
	 * DRM_MODE_CONNECTOR_*, so --connector takes what
	 * /sys/class/drm shows. */
	static const char *const names[] = {
	    "Unknown",	 "VGA",	 "DVI-I",     "DVI-D",	 "DVI-A", "Composite",
	    "SVIDEO",	 "LVDS", "Component", "DIN",	 "DP",	  "HDMI-A",
	    "HDMI-B",	 "TV",	 "eDP",	      "Virtual", "DSI",	  "DPI",
	    "Writeback", "SPI",	 "USB",
	};
	const char *t =
	    type < sizeof(names) / sizeof(names[0]) ? names[type] : "Unknown";

	snprintf(buf, len, "%s-%u", t, type_id);
}

/* Whether want ([CARD:]NAME, any case) names connector c. */
static bool drm_conn_named(const struct drm_conn_info *c, const char *want)
{
	size_t k = card_len(want);

	if (strcasecmp(c->name, name_part(want)))
		return false;
	return !k || (strlen(c->card) == k && !strncasecmp(c->card, want, k));
}

int drm_find_connector(const struct drm_conn_info *c, int n, const char *want)
{
	int i, found = -ENOENT;

	for (i = 0; i < n; i++) {
		if (!drm_conn_named(&c[i], want))
			continue;
		if (found >= 0)
			return -ENOTUNIQ;
		found = i;
	}
	return found;
}

void drm_head_name(const struct drm_conn_info *c, int n, int i, char *buf,
		   size_t len)
{
	int k;

	for (k = 0; k < n; k++)
		if (k != i && strcasecmp(c[k].card, c[i].card) &&
		    !strcasecmp(c[k].name, c[i].name))
			break;
	if (k < n)
		snprintf(buf, len, "%s:%s", c[i].card, c[i].name);
	else
		snprintf(buf, len, "%s", c[i].name);
}

void drm_full_name(const struct drm_conn_info *c, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s", c->card, c->card[0] ? ":" : "", c->name);
}

int drm_choose_connector(const struct drm_conn_info *c, int n, const char *want)
{
	int i;

	if (want && *want) {
		i = drm_find_connector(c, n, want);
		if (i < 0)
			return i;
		return c[i].connected && c[i].nmodes > 0 ? i : -ENODEV;
	}
	for (i = 0; i < n; i++)
		if (c[i].connected && c[i].nmodes > 0)
			return i;
	return -ENODEV;
}

int drm_choose_heads(const struct drm_conn_info *c, int n,
		     const struct drm_spec *s, int *idx, int *bad)
{
	int i, k = 0;

	if (s->all) {
		for (i = 0; i < n && k < DRM_MAX_HEADS; i++)
			if (c[i].connected && c[i].nmodes > 0)
				idx[k++] = i;
		return k ? k : -ENODEV;
	}
	for (k = 0; k < s->nheads; k++) {
		i = drm_choose_connector(c, n, s->heads[k]);
		if (i < 0) {
			*bad = k;
			return i;
		}
		idx[k] = i;
	}
	return k;
}

int drm_unknown_mode_name(const struct drm_conn_info *c, int n,
			  const struct drm_spec *s)
{
	int i;

	for (i = 0; i < s->nnamed; i++)
		if (drm_find_connector(c, n, s->named[i].name) < 0)
			return i;
	return -1;
}

uint32_t drm_mode_hz(const drmModeModeInfo *m)
{
	uint64_t total = (uint64_t)m->htotal * m->vtotal;

	if (m->vrefresh)
		return m->vrefresh;
	if (!total)
		return 0;
	/* clock is in kHz. */
	return (uint32_t)(((uint64_t)m->clock * 1000 + total / 2) / total);
}

static bool interlaced(const drmModeModeInfo *m)
{
	return (m->flags & DRM_MODE_FLAG_INTERLACE) != 0;
}

static bool preferred(const drmModeModeInfo *m)
{
	return (m->type & DRM_MODE_TYPE_PREFERRED) != 0;
}

/* Whether a is a better pick than b among modes that fit. */
static bool better(const drmModeModeInfo *a, const drmModeModeInfo *b)
{
	if (interlaced(a) != interlaced(b))
		return !interlaced(a);
	if (preferred(a) != preferred(b))
		return preferred(a);
	return drm_mode_hz(a) > drm_mode_hz(b);
}

int drm_choose_mode(const drmModeModeInfo *modes, int n,
		    const struct drm_mode_want *w)
{
	int i, best = -1;

	for (i = 0; i < n; i++) {
		const drmModeModeInfo *m = &modes[i];

		if (w->width &&
		    (m->hdisplay != w->width || m->vdisplay != w->height))
			continue;
		if (w->hz && drm_mode_hz(m) != w->hz)
			continue;
		if (!w->width && !preferred(m))
			continue;
		if (best < 0 || better(m, &modes[best]))
			best = i;
	}
	/* No size asked for and none preferred: drivers list the best
	 * first. */
	if (best < 0 && !w->width && n > 0)
		return 0;
	return best >= 0 ? best : -ENOENT;
}

/* Whether modes[i] looks like one listed before it. */
static bool listed(const drmModeModeInfo *modes, int i)
{
	int k;

	for (k = 0; k < i; k++)
		if (modes[k].hdisplay == modes[i].hdisplay &&
		    modes[k].vdisplay == modes[i].vdisplay &&
		    drm_mode_hz(&modes[k]) == drm_mode_hz(&modes[i]) &&
		    interlaced(&modes[k]) == interlaced(&modes[i]))
			return true;
	return false;
}

void drm_describe_modes(const drmModeModeInfo *modes, int n, char *buf,
			size_t len)
{
	size_t used = 0;
	int i;

	if (len)
		buf[0] = '\0';
	for (i = 0; i < n && used + 1 < len; i++) {
		const drmModeModeInfo *m = &modes[i];
		int k;

		if (listed(modes, i))
			continue;
		k = snprintf(buf + used, len - used, "%s%ux%u@%u%s%s",
			     used ? ", " : "", m->hdisplay, m->vdisplay,
			     drm_mode_hz(m), interlaced(m) ? "i" : "",
			     preferred(m) ? " (preferred)" : "");
		if (k < 0 || (size_t)k >= len - used) {
			/* Cut at a whole entry. */
			buf[used] = '\0';
			if (used + 5 < len)
				snprintf(buf + used, len - used, ", ...");
			return;
		}
		used += (size_t)k;
	}
}

uint32_t drm_choose_format(const uint32_t *formats, int n)
{
	bool rgb565 = false;
	int i;

	if (n == 0)
		return DRM_FORMAT_XRGB8888;
	for (i = 0; i < n; i++) {
		if (formats[i] == DRM_FORMAT_XRGB8888)
			return DRM_FORMAT_XRGB8888;
		if (formats[i] == DRM_FORMAT_RGB565)
			rgb565 = true;
	}
	return rgb565 ? DRM_FORMAT_RGB565 : 0;
}

int drm_format_pixfmt(uint32_t fourcc, struct pixfmt *f)
{
	const char *name = fourcc == DRM_FORMAT_XRGB8888 ? "xrgb8888"
			   : fourcc == DRM_FORMAT_RGB565 ? "rgb565"
							 : NULL;

	if (!name || pixfmt_from_name(name, f) < 0)
		return -ENOTSUP;
	/* DRM formats are little-endian whatever the host. */
	f->big_endian = false;
	return 0;
}

uint64_t drm_rotation_bit(unsigned turn)
{
	static const uint64_t bits[4] = {
		DRM_MODE_ROTATE_0, DRM_MODE_ROTATE_270, DRM_MODE_ROTATE_180,
		DRM_MODE_ROTATE_90,
	};

	return bits[turn & 3];
}

unsigned drm_choose_turn(bool has, uint64_t offered, unsigned want)
{
	want &= 3;
	return has && want && (offered & drm_rotation_bit(want)) ? want : 0;
}
