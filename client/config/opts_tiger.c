/* TigerVNC compatibility (TIGERVNC COMPATIBILITY in vncfb(1)): the server
 * forms of its vncviewer and its -Parameters, each mapped onto one of
 * vncfb's keys, warned about or refused. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/log.h"
#include "config/opts.h"
#include "config/opts_priv.h"
#include "net/vnc_enc.h"

int opts_parse_target(const char *s, char **host, int *port)
{
	const char *h = s, *rest;
	size_t hlen;
	long n;

	if (!s || !*s)
		return -EINVAL;
	if (*s == '[') {
		const char *close = strchr(s, ']');

		if (!close || close == s + 1)
			return -EINVAL;
		h = s + 1;
		hlen = (size_t)(close - h);
		rest = close + 1;
		if (*rest && *rest != ':')
			return -EINVAL;
	} else {
		const char *colon = strchr(s, ':');

		/* A bare IPv6 address with several colons and no brackets
		 * is ambiguous; ask for brackets. */
		if (colon && strchr(colon + 1, ':') &&
		    strncmp(colon, "::", 2) != 0)
			return -EINVAL;
		hlen = colon ? (size_t)(colon - s) : strlen(s);
		rest = s + hlen;
	}
	if (*rest == '\0') {
		*port = 5900;
	} else if (rest[1] == ':') {
		if (opts_parse_int(rest + 2, 1, 65535, &n) < 0)
			return -EINVAL;
		*port = (int)n;
	} else {
		/* vncviewer's rule: a display number below 100, else the
		 * port itself. */
		if (opts_parse_int(rest + 1, 0, 65535, &n) < 0)
			return -EINVAL;
		*port = n < 100 ? 5900 + (int)n : (int)n;
	}
	/* No host (":1", "::5901") is this machine, as for vncviewer. */
	*host = hlen ? strndup(h, hlen) : strdup("localhost");
	return *host ? 0 : -ENOMEM;
}

/* What vncfb does with one of TigerVNC vncviewer's parameters. */
enum tiger_kind {
	TV_KEY,		/* what: the vncfb key of the same meaning */
	TV_ACCEPT,	/* what vncfb always does: the opposite is warned */
	TV_IGNORE,	/* means nothing on a console: warned, why */
	TV_REFUSE,	/* unsafe to ignore: a usage error, why */
	TV_ENCODING,	/* PreferredEncoding: that one first */
	TV_NOJPEG,	/* NoJPEG: lossless, whatever QualityLevel says */
	TV_AUTOSELECT,	/* AutoSelect=0: the encodings stay as given */
	TV_MONITORS,	/* FullScreenMode=All (or AllMonitors): drm:all */
};

struct tiger {
	const char *name;	/* as vncviewer(1) spells it, any case */
	bool takes_value;	/* else a boolean: -Name, -Name=0 */
	enum tiger_kind kind;
	const char *what;	/* the key, or why (for the message) */
};

/* Reasons several parameters share. */
#define WHY_FORMAT "vncfb asks for the screen's own pixel format (or 8 bits)"
#define WHY_FULL "vncfb always fills the screen"
#define WHY_ONE "vncfb shows one screen, the console's"
#define WHY_SELECTED                                                           \
	"vncfb names monitors by connector: --connector HDMI-A-1,HDMI-A-2 "     \
	"shows one desktop across those"
#define WHY_RESIZE "vncfb asks for the screen's own size (see --remote-resize)"
#define WHY_CLIP "a console has no clipboard"
#define WHY_CURSOR "vncfb draws the server's cursor shape (see --server-cursor)"
#define WHY_KEYS "vncfb's hotkeys are fixed (HOTKEYS in vncfb(1))"
#define WHY_ADDR "vncfb connects to the addresses the name resolves to"

/* vncviewer(1) of TigerVNC 1.13: -Name, -Name=value, -Name value (with
 * one or two dashes); the man page's TIGERVNC table says the same (see
 * tests/ship/docs.py). */
static const struct tiger tiger_params[] = {
	{ "ViewOnly", false, TV_KEY, "view-only" },
	{ "PasswordFile", true, TV_KEY, "passwd" },
	{ "passwd", true, TV_KEY, "passwd" },
	{ "QualityLevel", true, TV_KEY, "quality" },
	{ "CompressLevel", true, TV_KEY, "compress" },
	{ "X509CA", true, TV_KEY, "ca" },
	{ "ReconnectOnError", false, TV_KEY, "reconnect" },
	{ "PreferredEncoding", true, TV_ENCODING, NULL },
	{ "NoJPEG", false, TV_NOJPEG, NULL },
	{ "FullColor", false, TV_ACCEPT, WHY_FORMAT },
	{ "FullColour", false, TV_ACCEPT, WHY_FORMAT },
	{ "Shared", false, TV_ACCEPT,
	  "vncfb always shares the desktop with other viewers" },
	{ "FullScreen", false, TV_IGNORE, WHY_FULL },
	{ "Maximize", false, TV_IGNORE, WHY_FULL },
	{ "FullScreenMode", true, TV_MONITORS, NULL },
	{ "FullScreenAllMonitors", false, TV_MONITORS, NULL },
	{ "FullScreenSelectedMonitors", true, TV_IGNORE, WHY_SELECTED },
	{ "geometry", true, TV_IGNORE,
	  "the picture takes the whole screen (see --scale)" },
	{ "DesktopSize", true, TV_IGNORE, WHY_RESIZE },
	{ "RemoteResize", false, TV_KEY, "remote-resize" },
	{ "display", true, TV_IGNORE,
	  "vncfb draws on the console, not on an X display" },
	{ "AcceptClipboard", false, TV_IGNORE, WHY_CLIP },
	{ "SendClipboard", false, TV_IGNORE, WHY_CLIP },
	{ "SetPrimary", false, TV_IGNORE, WHY_CLIP },
	{ "SendPrimary", false, TV_IGNORE, WHY_CLIP },
	{ "MaxCutText", true, TV_IGNORE, WHY_CLIP },
	{ "AlwaysCursor", false, TV_IGNORE, WHY_CURSOR },
	{ "DotWhenNoCursor", false, TV_IGNORE, WHY_CURSOR },
	{ "CursorType", true, TV_IGNORE, WHY_CURSOR },
	{ "EmulateMiddleButton", false, TV_IGNORE,
	  "vncfb sends the buttons as they are pressed" },
	{ "PointerEventInterval", true, TV_IGNORE,
	  "vncfb sends pointer motion as it comes" },
	{ "ShortcutModifiers", true, TV_IGNORE, WHY_KEYS },
	{ "MenuKey", true, TV_IGNORE, WHY_KEYS },
	{ "FullscreenSystemKeys", false, TV_IGNORE,
	  "every key but vncfb's hotkeys goes to the server" },
	{ "AutoSelect", false, TV_AUTOSELECT, "encodings" },
	{ "CustomCompressLevel", false, TV_IGNORE,
	  "CompressLevel alone sets the level" },
	{ "LowColorLevel", true, TV_IGNORE, WHY_FORMAT },
	{ "LowColourLevel", true, TV_IGNORE, WHY_FORMAT },
	{ "AlertOnFatalError", false, TV_IGNORE,
	  "errors are one line on standard error" },
	{ "Log", true, TV_IGNORE, "use -v or -q" },
	{ "UseIPv4", false, TV_IGNORE, WHY_ADDR },
	{ "UseIPv6", false, TV_IGNORE, WHY_ADDR },
	{ "via", true, TV_REFUSE,
	  "vncfb makes no SSH tunnel: run ssh -f -N -L 5999:HOST:PORT "
	  "GATEWAY, then vncfb localhost::5999" },
	{ "listen", false, TV_REFUSE,
	  "vncfb does not take reverse connections" },
	{ "SecurityTypes", true, TV_KEY, "security" },
	{ "X509CRL", true, TV_REFUSE,
	  "vncfb does not check certificate revocation lists" },
	{ "GnuTLSPriority", true, TV_REFUSE,
	  "vncfb's TLS takes no GnuTLS priority string" },
};

/* PreferredEncoding=NAME: NAME first, then the default list without it. */
static int prefer_encoding(struct options *o, const char *name,
			   const char *as_typed)
{
	const char *bad, *p = vnc_default_encodings();
	char list[256], lower[32];
	size_t i, n;
	int len;

	for (i = 0; name[i] && i + 1 < sizeof(lower); i++)
		lower[i] = (char)tolower((unsigned char)name[i]);
	lower[i] = '\0';
	/* TigerVNC's name for Open H.264. */
	if (!strcmp(lower, "h.264"))
		strcpy(lower, "h264");
	if (name[i] || !*lower || strpbrk(lower, " ,") ||
	    vnc_check_encodings(lower, &bad) < 0) {
		fprintf(stderr,
			"vncfb: bad value '%s' for %s: vncfb decodes tight, "
			"zrle, hextile, raw and the others of --encodings "
			"(see vncfb --help)\n",
			name, as_typed);
		return -EINVAL;
	}
	len = snprintf(list, sizeof(list), "%s", lower);
	while (*p) {
		n = strcspn(p, " ");
		if (n && (n != strlen(lower) || strncmp(p, lower, n)))
			len += snprintf(list + len, sizeof(list) - (size_t)len,
					" %.*s", (int)n, p);
		p += n;
		p += strspn(p, " ");
	}
	return opts_set_cli(o, "encodings", list, as_typed);
}

/* FullScreenMode=Current|Selected|All (FullScreenAllMonitors is All):
 * vncviewer spans every monitor with one desktop for All, as drm:all
 * does; Current is the console's own screen, vncfb's default. */
static int monitors(struct options *o, const char *mode, const char *as_typed)
{
	if (!strcasecmp(mode, "All"))
		return opts_set_cli(o, "output", "drm:all", as_typed);
	if (!strcasecmp(mode, "Current"))
		return 0;
	if (!strcasecmp(mode, "Selected")) {
		log_warn("%s=Selected is ignored: %s", as_typed, WHY_SELECTED);
		return 0;
	}
	return opts_usage_error("bad value '%s' for %s: expected Current, "
				"Selected or All",
				mode, as_typed);
}

int opts_set_tiger(struct options *o, const char *name, const char *val,
		   int argc, char **argv, int *i, bool *no_jpeg)
{
	const struct tiger *t = NULL;
	char as_typed[96];
	size_t k;
	bool b = true;

	for (k = 0; k < sizeof(tiger_params) / sizeof(tiger_params[0]); k++)
		if (!strcasecmp(tiger_params[k].name, name))
			t = &tiger_params[k];
	if (!t)
		return -ENOENT;
	snprintf(as_typed, sizeof(as_typed), "-%s", t->name);
	if (t->kind == TV_REFUSE) {
		fprintf(stderr, "vncfb: %s is not supported: %s\n", as_typed,
			t->what);
		return -EINVAL;
	}
	if (t->takes_value && !val) {
		if (*i + 1 >= argc)
			return opts_usage_error("%s needs a value", as_typed);
		val = argv[++*i];
	}
	if (!t->takes_value && val && opts_parse_bool(val, &b) < 0)
		return opts_usage_error(
		    "bad value '%s' for %s: expected 1 or 0", val, as_typed);
	/* -FullColor: the user chose a pixel format, so auto-select keeps
	 * full colour (never 8-bit on a slow link); =0 is the default. */
	if (!strncasecmp(t->name, "FullColo", 8)) {
		o->full_colour = b;
		return 0;
	}
	switch (t->kind) {
	case TV_KEY:
		return opts_set_cli(o, t->what,
				    t->takes_value ? val
				    : b		   ? "yes"
						   : "no",
				    as_typed);
	case TV_ENCODING:
		return prefer_encoding(o, val, as_typed);
	case TV_NOJPEG:
		*no_jpeg = b;
		return opts_check_mode(o, "quality", as_typed);
	case TV_AUTOSELECT:
		/* vncfb chooses from the link when no encodings or quality
		 * are given (doc/network.md); AutoSelect=0 fixes the
		 * default list, as if the user had given it. */
		if (b || opts_from_cli(o, "encodings"))
			return opts_check_mode(o, "encodings", as_typed);
		return opts_set_cli(o, "encodings", vnc_default_encodings(),
				    as_typed);
	case TV_MONITORS:
		return monitors(o, t->takes_value ? val : b ? "All" : "Current",
				as_typed);
	case TV_ACCEPT:
		if (!b)
			log_warn("%s=0 is ignored: %s", as_typed, t->what);
		return 0;
	case TV_IGNORE:
	case TV_REFUSE:
		break;
	}
	log_warn("%s is ignored: %s", as_typed, t->what);
	return 0;
}
