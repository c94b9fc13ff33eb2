/* Command line and option values. Every option is a key with a setter, so
 * the command line and the config files share one validation path. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "decpool.h"
#include "log.h"
#include "opts.h"
#include "output.h"
#include "pixfmt.h"
#include "platform.h"
#include "view.h"
#include "vnc_enc.h"

void opts_defaults(struct options *o)
{
	memset(o, 0, sizeof(*o));
	o->mode = MODE_VIEW;
	o->port = 5900;
	o->quality = -1;
	o->compress = -1;
	o->cpu = CPU_AUTO;
	o->samples = 0;
	o->scale_mode = SCALE_NONE;
	o->scale_zoom = 1;
	o->reconnect = RECONNECT_LOST;
	o->timeout = 10;
	o->serve_port = -1;
}

void opts_free(struct options *o)
{
	free(o->target);
	free(o->host);
	free(o->output);
	free(o->output_arg);
	free(o->connector);
	free(o->drm_mode);
	free(o->screenshot);
	free(o->encodings);
	free(o->passwd_file);
	free(o->config);
	free(o->input);
	free(o->keymap);
	free(o->json_file);
	free(o->csv_file);
	free(o->workloads);
	free(o->ca_file);
	free(o->user);
	free(o->record_file);
	free(o->replay_file);
	for (size_t i = 0; i < OPTS_MAX_KEYS; i++)
		free(o->origin[i]);
	memset(o, 0, sizeof(*o));
}

static int set_str(char **dst, const char *v)
{
	char *s = strdup(v);

	if (!s)
		return -ENOMEM;
	free(*dst);
	*dst = s;
	return 0;
}

static int parse_int(const char *v, long lo, long hi, long *out)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(v, &end, 10);
	if (errno || end == v || *end != '\0' || n < lo || n > hi)
		return -EINVAL;
	*out = n;
	return 0;
}

/* The words vncviewer takes too, in any case. */
static int parse_bool(const char *v, bool *out)
{
	if (!strcmp(v, "1") || !strcasecmp(v, "yes") ||
	    !strcasecmp(v, "true") || !strcasecmp(v, "on")) {
		*out = true;
		return 0;
	}
	if (!strcmp(v, "0") || !strcasecmp(v, "no") ||
	    !strcasecmp(v, "false") || !strcasecmp(v, "off")) {
		*out = false;
		return 0;
	}
	return -EINVAL;
}

/* "~" and "~/..." are the home of the user vncfb runs as ($HOME, else the
 * password database: a service may have no HOME), "~NAME/..." NAME's; the
 * shell does not expand --passwd=~/x or a config file's value. */
static int set_path(char **dst, const char *v, const char **why)
{
	const char *rest, *home = NULL;
	struct passwd *pw;
	char *s;

	if (!*v) {
		*why = "expected a file name";
		return -EINVAL;
	}
	if (v[0] != '~')
		return set_str(dst, v);
	rest = v + strcspn(v, "/");
	if (rest == v + 1) {
		home = getenv("HOME");
		if (!home || !*home) {
			pw = getpwuid(getuid());
			home = pw ? pw->pw_dir : NULL;
		}
	} else {
		char name[256];

		if ((size_t)(rest - v - 1) >= sizeof(name)) {
			*why = "no such user for ~NAME";
			return -EINVAL;
		}
		memcpy(name, v + 1, (size_t)(rest - v - 1));
		name[rest - v - 1] = '\0';
		pw = getpwnam(name);
		home = pw ? pw->pw_dir : NULL;
	}
	if (!home) {
		*why = rest == v + 1 ? "no home directory for ~"
				     : "no such user for ~NAME";
		return -EINVAL;
	}
	if (asprintf(&s, "%s%s", home, rest) < 0)
		return -ENOMEM;
	free(*dst);
	*dst = s;
	return 0;
}

/* A screenshot is PPM or PNG, by its name. */
static bool image_name_ok(const char *v)
{
	const char *dot = strrchr(v, '.');

	return dot && !strchr(dot, '/') &&
	       (!strcasecmp(dot, ".ppm") || !strcasecmp(dot, ".pnm") ||
		!strcasecmp(dot, ".png"));
}

enum key_id {
	K_OUTPUT,
	K_SCREENSHOT,
	K_EXIT_AFTER,
	K_ENCODINGS,
	K_QUALITY,
	K_COMPRESS,
	K_VIEW_ONLY,
	K_PASSWD,
	K_CPU,
	K_INPUT,
	K_KEYMAP,
	K_SERVER_CURSOR,
	K_SAMPLES,
	K_DURATION,
	K_WORKLOAD,
	K_SCALE,
	K_RECONNECT,
	K_CA,
	K_INSECURE,
	K_USER,
	K_TIMEOUT,
	K_CONNECTOR,
	K_MODE,
	K_SERVER,
	K_DECODE_THREADS,
	K_COUNT
};

static const char *const key_names[K_COUNT] = {
	[K_OUTPUT] = "output",	       [K_SCREENSHOT] = "screenshot",
	[K_EXIT_AFTER] = "exit-after", [K_ENCODINGS] = "encodings",
	[K_QUALITY] = "quality",       [K_COMPRESS] = "compress",
	[K_VIEW_ONLY] = "view-only",   [K_PASSWD] = "passwd",
	[K_CPU] = "cpu",	       [K_INPUT] = "input",
	[K_KEYMAP] = "keymap",	       [K_SERVER_CURSOR] = "server-cursor",
	[K_SAMPLES] = "samples",       [K_DURATION] = "duration",
	[K_WORKLOAD] = "workload",
	[K_SCALE] = "scale",
	[K_RECONNECT] = "reconnect",   [K_CA] = "ca",
	[K_INSECURE] = "insecure",     [K_USER] = "user",
	[K_TIMEOUT] = "timeout",       [K_SERVER] = "server",
	[K_CONNECTOR] = "connector",   [K_MODE] = "mode",
	[K_DECODE_THREADS] = "decode-threads",
};

#define M_VIEW (1u << MODE_VIEW)
#define M_DEMO (1u << MODE_DEMO)
#define M_PROBE (1u << MODE_PROBE)
#define M_BENCH (1u << MODE_BENCH)
#define M_SESSION (M_VIEW | M_DEMO)

/* The commands each key means something to, on the command line (0: all).
 * A config file serves every command, so there a key for another one is
 * no error. */
_Static_assert(K_COUNT <= OPTS_MAX_KEYS, "cli_set and origin[] per key");
_Static_assert(DECPOOL_MAX_THREADS == 16, "decode-threads says 1-16");

static const unsigned key_modes[K_COUNT] = {
	[K_SCREENSHOT] = M_SESSION,
	[K_EXIT_AFTER] = M_SESSION | M_BENCH,
	[K_ENCODINGS] = M_SESSION | M_BENCH, [K_QUALITY] = M_SESSION | M_BENCH,
	[K_COMPRESS] = M_SESSION | M_BENCH, [K_VIEW_ONLY] = M_SESSION,
	[K_PASSWD] = M_VIEW | M_BENCH,	    [K_INPUT] = M_SESSION,
	[K_KEYMAP] = M_SESSION,		    [K_SERVER_CURSOR] = M_SESSION,
	[K_DURATION] = M_BENCH,		    [K_WORKLOAD] = M_BENCH,
	[K_SCALE] = M_SESSION | M_BENCH,    [K_RECONNECT] = M_VIEW,
	[K_CA] = M_VIEW | M_BENCH,	    [K_INSECURE] = M_VIEW | M_BENCH,
	[K_USER] = M_SESSION,		    [K_TIMEOUT] = M_VIEW,
	[K_SERVER] = M_VIEW | M_BENCH,
	[K_DECODE_THREADS] = M_SESSION | M_BENCH,
};

static int key_id(const char *key)
{
	int id;

	for (id = 0; id < K_COUNT; id++)
		if (key_names[id] && !strcmp(key_names[id], key))
			return id;
	return -1;
}

static int parse_seconds(const char *v, double *out)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(v, &end);
	if (errno || end == v || *end != '\0' || !(d > 0) || d > 1e7)
		return -EINVAL;
	*out = d;
	return 0;
}

/* Append ",key=value" (or "key=value" right after the colon) to *spec. */
static int add_item(char **spec, const char *key, const char *value)
{
	size_t len = strlen(*spec);
	char *s;

	if (!value)
		return 0;
	if (asprintf(&s, "%s%s%s=%s", *spec, (*spec)[len - 1] == ':' ? "" : ",",
		     key, value) < 0)
		return -ENOMEM;
	free(*spec);
	*spec = s;
	return 0;
}

/* The spec the commands open, from what was given: -o as it is;
 * --connector and --mode go into a drm spec (and ask for one); --demo
 * without -o draws into memory where there is no console ("auto"). 0, or
 * -EINVAL with *why. */
static int compose_output(struct options *o, const char **why)
{
	const char *given = o->output_arg;
	bool console = !given || !strcmp(given, "default") ||
		       !strcmp(given, "auto");
	char *spec = NULL;

	if (!o->connector && !o->drm_mode) {
		if (given || o->mode == MODE_DEMO)
			spec = strdup(given ? given : "auto");
		if ((given || o->mode == MODE_DEMO) && !spec)
			return -ENOMEM;
	} else {
		if (!console && (strncmp(given, "drm", 3) ||
				 (given[3] && given[3] != ':'))) {
			*why = "--connector and --mode are for the drm output "
			       "(-o drm)";
			return -EINVAL;
		}
		if (asprintf(&spec, "%s%s", console ? "drm" : given,
			     console || !given[3] ? ":" : "") < 0)
			return -ENOMEM;
		if (add_item(&spec, "connector", o->connector) < 0 ||
		    add_item(&spec, "mode", o->drm_mode) < 0) {
			free(spec);
			return -ENOMEM;
		}
		if (output_check_spec(spec) < 0) {
			free(spec);
			*why = "the drm output (Linux) takes --connector NAME "
			       "(e.g. HDMI-A-1) and --mode WIDTHxHEIGHT[@HZ] "
			       "(e.g. 1920x1080@60)";
			return -EINVAL;
		}
	}
	free(o->output);
	o->output = spec;
	return 0;
}

/* Set one of the strings compose_output reads, and compose; on failure
 * the old value stays. */
static int set_output_part(struct options *o, char **dst, const char *v,
			   const char **why)
{
	char *old = *dst, *s = strdup(v);
	int ret;

	if (!s)
		return -ENOMEM;
	*dst = s;
	ret = compose_output(o, why);
	if (ret < 0) {
		*dst = old;
		free(s);
		return ret;
	}
	free(old);
	return 0;
}

/* The outputs of the platforms vncfb is built for, to tell a user who
 * names another platform's what this one has. */
static const struct {
	const char *name, *platform;
} foreign_outputs[] = {
	{ "drm", "Linux" },
	{ "fbdev", "Linux" },
	{ "wsdisplay", "NetBSD" },
};

/* Why an output spec was refused, in words (static storage). */
static const char *output_why(const char *v)
{
	static char msg[384];
	char specs[128], names[128] = "", *end;
	size_t len = strcspn(v, ":"), i, n = 0;
	const char *name;
	unsigned long w, h;

	output_platform_specs(specs, sizeof(specs));
	if (len == 3 && !strncmp(v, "mem", 3)) {
		w = strtoul(v + 4, &end, 10);
		h = *end == 'x' || *end == 'X' ? strtoul(end + 1, NULL, 10) : 0;
		if (w > OUTPUT_MEM_MAX_DIM || h > OUTPUT_MEM_MAX_DIM) {
			snprintf(msg, sizeof(msg),
				 "a mem output is at most %ux%u",
				 OUTPUT_MEM_MAX_DIM, OUTPUT_MEM_MAX_DIM);
			return msg;
		}
		for (i = 0; (name = pixfmt_name_at(i)) && n < sizeof(names);
		     i++)
			n += (size_t)snprintf(names + n, sizeof(names) - n,
					      "%s%s", i ? ", " : "", name);
		snprintf(msg, sizeof(msg),
			 "expected mem:WIDTHxHEIGHT[:FORMAT][,slow-cpu=N]"
			 "[,uncached], sides 1-%u, FORMAT one of %s",
			 OUTPUT_MEM_MAX_DIM, names);
		return msg;
	}
	for (i = 0; i < sizeof(foreign_outputs) / sizeof(foreign_outputs[0]);
	     i++) {
		if (strlen(foreign_outputs[i].name) == len &&
		    !strncmp(foreign_outputs[i].name, v, len)) {
			snprintf(msg, sizeof(msg),
				 "%s is the %s console; this vncfb (%s) has "
				 "%s%smem:WIDTHxHEIGHT[:FORMAT]",
				 foreign_outputs[i].name,
				 foreign_outputs[i].platform, VNCFB_SYSTEM,
				 specs, *specs ? " and " : "");
			return msg;
		}
	}
	snprintf(msg, sizeof(msg),
		 "expected %s%smem:WIDTHxHEIGHT[:FORMAT] (FORMAT: xrgb8888, "
		 "rgb565, ...)",
		 specs, *specs ? " or " : "");
	return msg;
}

int opts_set(struct options *o, const char *key, const char *v,
	     bool from_cli, const char **why)
{
	int id = key_id(key), ret = 0;
	long n;
	bool b;

	if (id < 0)
		return -ENOENT;
	if (!from_cli && (o->cli_set & (1ull << id)))
		return 0;
	*why = NULL;
	switch (id) {
	case K_OUTPUT:
		if (output_check_spec(v) < 0) {
			*why = output_why(v);
			ret = -EINVAL;
			break;
		}
		ret = set_output_part(o, &o->output_arg, v, why);
		break;
	case K_CONNECTOR:
		ret = set_output_part(o, &o->connector, v, why);
		break;
	case K_MODE:
		ret = set_output_part(o, &o->drm_mode, v, why);
		break;
	case K_SCREENSHOT:
		if (*v && !image_name_ok(v)) {
			*why = "expected a file name ending in .ppm or .png";
			ret = -EINVAL;
			break;
		}
		ret = set_path(&o->screenshot, v, why);
		break;
	case K_EXIT_AFTER:
		if (parse_seconds(v, &o->exit_after) < 0) {
			*why = "expected a positive number of seconds";
			ret = -EINVAL;
		}
		break;
	case K_DURATION:
		if (parse_seconds(v, &o->duration) < 0) {
			*why = "expected a positive number of seconds";
			ret = -EINVAL;
		}
		break;
	case K_ENCODINGS: {
		const char *bad;

		if (vnc_check_encodings(v, &bad) < 0) {
			*why = "expected names from: raw copyrect rre corre "
			       "hextile zlib tight trle zrle zywrle ultra";
			ret = -EINVAL;
			break;
		}
		ret = set_str(&o->encodings, v);
		break;
	}
	case K_QUALITY:
		if (parse_int(v, 0, 9, &n) < 0) {
			*why = "expected 0-9";
			ret = -EINVAL;
		} else {
			o->quality = (int)n;
		}
		break;
	case K_COMPRESS:
		if (parse_int(v, 0, 9, &n) < 0) {
			*why = "expected 0-9";
			ret = -EINVAL;
		} else {
			o->compress = (int)n;
		}
		break;
	case K_VIEW_ONLY:
		if (parse_bool(v, &b) < 0) {
			*why = "expected yes or no";
			ret = -EINVAL;
		} else {
			o->view_only = b;
		}
		break;
	case K_SERVER_CURSOR:
		if (parse_bool(v, &b) < 0) {
			*why = "expected yes or no";
			ret = -EINVAL;
		} else {
			o->server_cursor = b;
		}
		break;
	case K_PASSWD:
		ret = set_path(&o->passwd_file, v, why);
		break;
	case K_CPU:
		if (!strcmp(v, "auto")) {
			o->cpu = CPU_AUTO;
		} else if (!strcmp(v, "each") && o->mode == MODE_BENCH) {
			o->cpu = CPU_EACH;
		} else if (parse_int(v, 0, 4095, &n) < 0) {
			*why = "expected auto or a core number";
			ret = -EINVAL;
		} else {
			o->cpu = (int)n;
		}
		break;
	case K_DECODE_THREADS:
		if (!strcmp(v, "auto")) {
			o->decode_threads = DECODE_THREADS_AUTO;
		} else if (parse_int(v, 1, DECPOOL_MAX_THREADS, &n) < 0) {
			*why = "expected auto or 1-16";
			ret = -EINVAL;
		} else {
			o->decode_threads = (int)n;
		}
		break;
	case K_INPUT:
		ret = set_str(&o->input, v);
		break;
	case K_KEYMAP:
		if (!*v) {
			*why = "expected LAYOUT[:VARIANT]";
			ret = -EINVAL;
			break;
		}
		ret = set_str(&o->keymap, v);
		break;
	case K_SAMPLES:
		if (parse_int(v, 1, 1000, &n) < 0) {
			*why = "expected 1-1000";
			ret = -EINVAL;
		} else {
			o->samples = (int)n;
		}
		break;
	case K_WORKLOAD:
		ret = set_str(&o->workloads, v);
		break;
	case K_SCALE: {
		enum scale_mode mode;
		unsigned zoom;

		if (scale_parse(v, &mode, &zoom) < 0) {
			*why = "expected none, fit, fill or a zoom factor "
			       "N, 1-16 (1 is none)";
			ret = -EINVAL;
			break;
		}
		o->scale_mode = (int)mode;
		o->scale_zoom = zoom;
		break;
	}
	case K_RECONNECT:
		if (!strcasecmp(v, "always")) {
			o->reconnect = RECONNECT_ALWAYS;
		} else if (parse_bool(v, &b) < 0) {
			*why = "expected yes, no or always";
			ret = -EINVAL;
		} else {
			o->reconnect = b ? RECONNECT_LOST : RECONNECT_NO;
		}
		break;
	case K_INSECURE:
		if (parse_bool(v, &b) < 0) {
			*why = "expected yes or no";
			ret = -EINVAL;
		} else {
			o->insecure = b;
		}
		break;
	case K_CA:
		if (!*v) {
			*why = "expected a PEM file of CA certificates";
			ret = -EINVAL;
			break;
		}
		ret = set_path(&o->ca_file, v, why);
		break;
	case K_TIMEOUT:
		if (parse_int(v, 1, 3600, &n) < 0) {
			*why = "expected 1-3600 seconds";
			ret = -EINVAL;
		} else {
			o->timeout = (int)n;
		}
		break;
	case K_USER:
		if (!*v) {
			*why = "expected a user name";
			ret = -EINVAL;
			break;
		}
		ret = set_str(&o->user, v);
		break;
	case K_SERVER: {
		char *host;
		int port;

		ret = opts_parse_target(v, &host, &port);
		if (ret == -EINVAL) {
			*why = "expected HOST[:DISPLAY], HOST::PORT or "
			       "[IPV6]:DISPLAY";
			break;
		}
		if (ret == 0)
			ret = set_str(&o->target, v);
		if (ret < 0) {
			free(host);
			break;
		}
		free(o->host);
		o->host = host;
		o->port = port;
		break;
	}
	}
	if (ret == 0 && from_cli) {
		o->cli_set |= 1ull << id;
		free(o->origin[id]);
		o->origin[id] = NULL;
	}
	return ret;
}

bool opts_from_cli(const struct options *o, const char *key)
{
	int id = key_id(key);

	return id >= 0 && (o->cli_set & (1ull << id)) != 0;
}

int opts_set_origin(struct options *o, const char *key, const char *where)
{
	int id = key_id(key);
	char *s;

	if (id < 0 || (o->cli_set & (1ull << id)))
		return 0;
	s = strdup(where);
	if (!s)
		return -ENOMEM;
	free(o->origin[id]);
	o->origin[id] = s;
	return 0;
}

const char *opts_origin(const struct options *o, const char *key)
{
	int id = key_id(key);

	return id >= 0 ? o->origin[id] : NULL;
}

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
		if (parse_int(rest + 2, 1, 65535, &n) < 0)
			return -EINVAL;
		*port = (int)n;
	} else {
		/* vncviewer's rule: a display number below 100, else the
		 * port itself. */
		if (parse_int(rest + 1, 0, 65535, &n) < 0)
			return -EINVAL;
		*port = n < 100 ? 5900 + (int)n : (int)n;
	}
	/* No host (":1", "::5901") is this machine, as for vncviewer. */
	*host = hlen ? strndup(h, hlen) : strdup("localhost");
	return *host ? 0 : -ENOMEM;
}

/* Grouped as the man page's OPTIONS; tests/ship/docs.py keeps this, the
 * man page and the tables below in step. At most 80 columns. */
void opts_usage(void)
{
	char specs[128];

	output_platform_specs(specs, sizeof(specs));
	printf("usage: vncfb [OPTIONS] HOST[:DISPLAY] | HOST::PORT | "
	       "[IPV6]:DISPLAY\n"
	       "       vncfb [OPTIONS] --config FILE   (FILE has a server = "
	       "line)\n"
	       "       vncfb --demo [OPTIONS]\n"
	       "       vncfb probe [-o SPEC] [--cpu auto|N] [--samples N] "
	       "[--json [FILE]]\n"
	       "       vncfb bench [-o SPEC] [--cpu auto|N|each] "
	       "[--workload NAME,...]\n"
	       "                   [--encodings LIST] [--duration SECS] "
	       "[--json FILE]\n"
	       "                   [--csv FILE] [HOST]\n"
	       "       vncfb bench --record FILE [--updates N] "
	       "[--exit-after SECS]\n"
	       "                   [-o mem:WxH:FORMAT] HOST\n"
	       "       vncfb bench --replay FILE [--repeat N] "
	       "[--serve PORT] [-o SPEC]\n"
	       "\n"
	       "Output:\n");
	if (*specs)
		printf("  -o, --output SPEC      %s\n"
		       "                         (default: the first that "
		       "opens), auto (the same,\n"
		       "                         else mem), or ",
		       specs);
	else
		printf("  -o, --output SPEC      ");
	printf("mem:WIDTHxHEIGHT[:FORMAT] (xrgb8888, ...)\n"
	       "      --connector NAME   drm: the connector to drive "
	       "(e.g. HDMI-A-1)\n"
	       "      --mode WxH[@HZ]    drm: the mode to set (default: the "
	       "preferred one)\n"
	       "      --scale MODE       none (1:1, panned), fit (keep "
	       "aspect), fill (stretch),\n"
	       "                         or N, 1-16: zoom by N (pixel "
	       "replication; 1 is none)\n"
	       "      --cpu auto|N       core for the blit thread (auto: "
	       "the probe's choice)\n"
	       "      --decode-threads N threads decoding rectangles, 1-16 "
	       "(1: the main thread;\n"
	       "                         default auto: from the cores)\n"
	       "      --screenshot FILE  on exit (and on SIGUSR1) write what "
	       "the output shows\n"
	       "                         to FILE.ppm (binary PPM) or "
	       "FILE.png (PNG)\n"
	       "      --exit-after SECS  leave cleanly after SECS seconds\n"
	       "      --demo             show a built-in animated VNC "
	       "server\n"
	       "Connection:\n"
	       "      --server HOST      the server, as the HOST argument "
	       "(config: server =)\n"
	       "      --encodings LIST   in preference order, e.g. \"tight "
	       "zrle copyrect raw\"\n"
	       "      --quality N        allow lossy JPEG (tight) at quality "
	       "0-9\n"
	       "      --compress N       zlib level 0-9\n"
	       "      --passwd FILE      VNC password file (vncpasswd "
	       "format); else\n"
	       "                         $VNCFB_PASSWORD, else a prompt on "
	       "the terminal\n"
	       "      --no-reconnect     exit when the server goes away "
	       "(default: keep the\n"
	       "                         picture and retry, backing off to "
	       "30 s)\n"
	       "      --reconnect always retry a first connection that "
	       "fails too (kiosks)\n"
	       "      --timeout SECS     a server silent this long is pinged, "
	       "and dropped\n"
	       "                         when still silent as long again "
	       "(default 10);\n"
	       "                         a message must be complete within "
	       "it\n"
	       "Security:\n"
	       "      --ca FILE          CA certificates (PEM): only a "
	       "VeNCrypt X509 server\n"
	       "                         with a certificate they sign is "
	       "accepted\n"
	       "      --insecure         accept anonymous TLS (the server is "
	       "unverified; warned)\n"
	       "      --user NAME        started as root: become NAME after "
	       "opening the devices\n"
	       "                         (default nobody)\n"
	       "Input:\n"
	       "      --view-only        send no input\n"
	       "      --input DEV,...    input devices (default: all "
	       "keyboards and pointers)\n"
	       "      --keymap L[:V]     keyboard layout (default "
	       "$XKB_DEFAULT_LAYOUT or us)\n"
	       "      --server-cursor    let the server draw the cursor\n"
	       "Configuration:\n"
	       "      --config FILE      read FILE instead of the user's "
	       "config file\n"
	       "      --check-config     check the config files and what a "
	       "run needs, list the\n"
	       "                         files read and their settings, "
	       "exit\n"
	       "probe and bench:\n"
	       "      --samples N        probe: timed samples per core "
	       "(1-1000)\n"
	       "      --json [FILE]      probe: the table as JSON, to FILE "
	       "(--json=FILE) or\n"
	       "                         standard output\n"
	       "      --json FILE        bench: write the results as JSON "
	       "(-: standard output)\n"
	       "      --csv FILE         bench: write the results as CSV "
	       "(-: standard output)\n"
	       "      --workload LIST    bench: fullframe,scroll,typing,idle,"
	       "fit (default all)\n"
	       "      --duration SECS    bench: time per configuration "
	       "(default 3)\n"
	       "      --record FILE      bench: save what HOST sends, for "
	       "--replay\n"
	       "      --updates N        --record: stop after N updates\n"
	       "      --replay FILE      bench: measure vncfb and the bare "
	       "loop on a recording\n"
	       "      --repeat N         --replay: plays per configuration "
	       "(default 3)\n"
	       "      --serve PORT       --replay: serve it to another "
	       "viewer on 127.0.0.1:PORT\n"
	       "\n"
	       "  -v, --verbose;  -q, --quiet;  -h, --help;  -V, --version\n"
	       "  TigerVNC's parameters work too (-ViewOnly, -PasswordFile "
	       "FILE, ...)\n"
	       "Config keys, hotkeys, TigerVNC parameters, environment and "
	       "exit status:\n"
	       "see vncfb(1).\n");
}

static void version(void)
{
	printf("vncfb %s (%s)\n", VNCFB_VERSION, VNCFB_SYSTEM);
	printf("built with libvncclient %s, zlib %s, libjpeg-turbo %s\n",
	       VNCFB_LIBVNC_VERSION, VNCFB_ZLIB_VERSION,
	       VNCFB_TURBOJPEG_VERSION);
}

struct alias {
	const char *name;	/* as typed, without the leading dashes */
	const char *key;	/* opts_set key; NULL: a file name only */
	bool takes_value;
	const char *flag_value;	/* value of a flag; NULL: "yes" */
	/* A flag's =VALUE (yes or no) means the opposite (--no-NAME). */
	bool negate;
	/* A flag whose next argument is its value when it is one of these
	 * words (--reconnect always). */
	const char *const *words;
};

static const char *const reconnect_words[] = { "always", "yes", "no",
					       NULL };

/* Long options; the flags opts_parse() matches first (--help, --demo,
 * ...) aside, and vncviewer's names in tiger_params below. */
static const struct alias aliases[] = {
	{ "config", NULL, true },
	{ "json", NULL, true },
	{ "csv", NULL, true },
	{ "record", NULL, true },
	{ "replay", NULL, true },
	{ "serve", NULL, true },
	{ "updates", NULL, true },
	{ "repeat", NULL, true },
	{ "output", "output", true },
	{ "screenshot", "screenshot", true },
	{ "exit-after", "exit-after", true },
	{ "server", "server", true },
	{ "encodings", "encodings", true },
	{ "quality", "quality", true },
	{ "compress", "compress", true },
	{ "view-only", "view-only", false },
	{ "passwd", "passwd", true },
	{ "cpu", "cpu", true },
	{ "decode-threads", "decode-threads", true },
	{ "input", "input", true },
	{ "keymap", "keymap", true },
	{ "server-cursor", "server-cursor", false },
	{ "samples", "samples", true },
	{ "duration", "duration", true },
	{ "workload", "workload", true },
	{ "scale", "scale", true },
	{ "reconnect", "reconnect", false, NULL, false, reconnect_words },
	{ "no-reconnect", "reconnect", false, "no", true },
	{ "ca", "ca", true },
	{ "insecure", "insecure", false },
	{ "user", "user", true },
	{ "timeout", "timeout", true },
	{ "connector", "connector", true },
	{ "mode", "mode", true },
};

/* What vncfb does with one of TigerVNC vncviewer's parameters. */
enum tiger_kind {
	TV_KEY,		/* what: the vncfb key of the same meaning */
	TV_ACCEPT,	/* what vncfb always does: the opposite is warned */
	TV_IGNORE,	/* means nothing on a console: warned, why */
	TV_REFUSE,	/* unsafe to ignore: a usage error, why */
	TV_ENCODING,	/* PreferredEncoding: that one first */
	TV_NOJPEG,	/* NoJPEG: lossless, whatever QualityLevel says */
};

struct tiger {
	const char *name;	/* as vncviewer(1) spells it, any case */
	bool takes_value;	/* else a boolean: -Name, -Name=0 */
	enum tiger_kind kind;
	const char *what;	/* the key, or why (for the message) */
};

/* Reasons several parameters share. */
#define WHY_FORMAT "vncfb always asks for the screen's own pixel format"
#define WHY_FULL "vncfb always fills the screen"
#define WHY_ONE "vncfb shows one screen, the console's"
#define WHY_RESIZE "vncfb does not resize the server's desktop (see --scale)"
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
	{ "FullScreenMode", true, TV_IGNORE, WHY_ONE },
	{ "FullScreenAllMonitors", false, TV_IGNORE, WHY_ONE },
	{ "FullScreenSelectedMonitors", true, TV_IGNORE, WHY_ONE },
	{ "geometry", true, TV_IGNORE,
	  "the picture takes the whole screen (see --scale)" },
	{ "DesktopSize", true, TV_IGNORE, WHY_RESIZE },
	{ "RemoteResize", false, TV_IGNORE, WHY_RESIZE },
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
	{ "AutoSelect", false, TV_IGNORE,
	  "vncfb offers the encodings it is given (see --encodings)" },
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
	{ "SecurityTypes", true, TV_REFUSE,
	  "vncfb picks the security type itself: --ca FILE for verified "
	  "X509 only, --insecure to allow anonymous TLS" },
	{ "X509CRL", true, TV_REFUSE,
	  "vncfb does not check certificate revocation lists" },
	{ "GnuTLSPriority", true, TV_REFUSE,
	  "vncfb's TLS takes no GnuTLS priority string" },
};

static int usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/* vncfb bench's recorder and replay options, command line only (name
 * without dashes): 0, or -EINVAL (printed). */
static int bench_file_option(struct options *o, const char *name,
			     const char *val)
{
	long n;

	if (!strcmp(name, "record") || !strcmp(name, "replay")) {
		char **dst =
		    !strcmp(name, "record") ? &o->record_file : &o->replay_file;

		if (!*val)
			return usage_error("--%s needs a file", name);
		return set_str(dst, val) < 0 ? -ENOMEM : 0;
	}
	if (!strcmp(name, "serve")) {
		if (parse_int(val, 0, 65535, &n) < 0)
			return usage_error("bad value '%s' for --serve: "
					   "expected a port 0-65535 (0: any "
					   "free one)",
					   val);
		o->serve_port = (int)n;
		return 0;
	}
	if (!strcmp(name, "updates")) {
		if (parse_int(val, 1, 100000000, &n) < 0)
			return usage_error("bad value '%s' for --updates: "
					   "expected 1-100000000",
					   val);
		o->updates = n;
		return 0;
	}
	if (!strcmp(name, "repeat")) {
		if (parse_int(val, 1, 1000, &n) < 0)
			return usage_error("bad value '%s' for --repeat: "
					   "expected 1-1000",
					   val);
		o->repeat = (int)n;
		return 0;
	}
	return usage_error("unknown option '--%s'", name);
}

static bool is_bench_file_option(const char *name)
{
	return !strcmp(name, "record") || !strcmp(name, "replay") ||
	       !strcmp(name, "serve") || !strcmp(name, "updates") ||
	       !strcmp(name, "repeat");
}

/* What the recorder and the replay rule out, once the line is read. */
static int check_bench_files(const struct options *o)
{
	bool rec = o->record_file, rep = o->replay_file;

	if (o->mode == MODE_BENCH && !rec && !(rep && o->serve_port >= 0) &&
	    opts_from_cli(o, "exit-after"))
		return usage_error("--exit-after is for vncfb bench --record "
				   "and --replay --serve (a bench run has "
				   "--duration)");
	if (rec && rep)
		return usage_error("--record and --replay go in separate "
				   "runs");
	if (rec && !o->target)
		return usage_error("--record needs a server: vncfb bench "
				   "--record FILE HOST[:DISPLAY]");
	if (rep && o->target)
		return usage_error("--replay takes no server ('%s'): the "
				   "recording is the server",
				   o->target);
	if ((rec || rep) && o->workloads)
		return usage_error("--workload is for the embedded server, not "
				   "--%s",
				   rec ? "record" : "replay");
	if (o->serve_port >= 0 && !rep)
		return usage_error("--serve needs --replay FILE");
	if (o->updates && !rec)
		return usage_error("--updates needs --record");
	if (o->repeat && (!rep || o->serve_port >= 0))
		return usage_error("--repeat needs --replay (and no --serve)");
	return 0;
}

static int usage_error(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fprintf(stderr, "vncfb: %s (see vncfb --help)\n", buf);
	return -EINVAL;
}

static const char *const mode_names[] = {
	[MODE_VIEW] = "vncfb HOST",
	[MODE_DEMO] = "--demo",
	[MODE_PROBE] = "vncfb probe",
	[MODE_BENCH] = "vncfb bench",
};

/* Whether key means something to the command; a usage error if not. */
static int check_mode(const struct options *o, const char *key,
		      const char *as_typed)
{
	int id = key_id(key);
	unsigned m;

	if (id < 0 || !key_modes[id] || (key_modes[id] & (1u << o->mode)))
		return 0;
	m = key_modes[id];
	if (!(m & (m - 1)))
		return usage_error("%s is only for %s", as_typed,
				   mode_names[__builtin_ctz(m)]);
	return usage_error("%s is not for %s", as_typed, mode_names[o->mode]);
}

static int set_cli(struct options *o, const char *key, const char *val,
		   const char *as_typed)
{
	const char *why = NULL;
	int ret = check_mode(o, key, as_typed);

	if (ret < 0)
		return ret;
	ret = opts_set(o, key, val, true, &why);
	if (ret == -EINVAL) {
		fprintf(stderr,
			"vncfb: bad value '%s' for %s: %s (see vncfb "
			"--help)\n",
			val, as_typed, why ? why : "invalid");
		return -EINVAL;
	}
	return ret;
}

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
	return set_cli(o, "encodings", list, as_typed);
}

/* One of vncviewer's parameters (tiger_params). i: where argv is; moved on
 * past a value taken from the next argument. Returns 0, -ENOENT when name
 * is none of them, or -EINVAL after a usage error. */
static int set_tiger(struct options *o, const char *name, const char *val,
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
			return usage_error("%s needs a value", as_typed);
		val = argv[++*i];
	}
	if (!t->takes_value && val && parse_bool(val, &b) < 0)
		return usage_error("bad value '%s' for %s: expected 1 or 0",
				   val, as_typed);
	switch (t->kind) {
	case TV_KEY:
		return set_cli(o, t->what, t->takes_value ? val
					   : b	  ? "yes"
						  : "no",
			       as_typed);
	case TV_ENCODING:
		return prefer_encoding(o, val, as_typed);
	case TV_NOJPEG:
		*no_jpeg = b;
		return check_mode(o, "quality", as_typed);
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

/* probe --json: the table as JSON, to standard output or to FILE given as
 * --json=FILE or --json FILE (probe takes no other argument). */
static int probe_json(struct options *o, const char *val, int argc,
		      char **argv, int *i)
{
	o->json = true;
	if (!val && *i + 1 < argc && argv[*i + 1][0] != '-')
		val = argv[++*i];
	if (!val || !strcmp(val, "-"))
		return 0;
	return set_str(&o->json_file, val);
}

int opts_parse(struct options *o, int argc, char **argv)
{
	bool no_jpeg = false;
	int i = 1;

	if (argc > 1 && !strcmp(argv[1], "probe")) {
		o->mode = MODE_PROBE;
		i = 2;
	} else if (argc > 1 && !strcmp(argv[1], "bench")) {
		o->mode = MODE_BENCH;
		i = 2;
	}
	for (; i < argc; i++) {
		const char *a = argv[i], *name, *val = NULL, *why;
		char namebuf[64], typed[70];
		size_t k;
		int ret;

		if (a[0] != '-' || a[1] == '\0') {
			if (opts_from_cli(o, "server"))
				return usage_error("unexpected argument '%s'", a);
			if (o->mode == MODE_PROBE)
				return usage_error("probe takes no server "
						   "('%s')", a);
			if (o->mode == MODE_DEMO)
				return usage_error("--demo takes no server "
						   "('%s')", a);
			ret = opts_set(o, "server", a, true, &why);
			if (ret == -EINVAL)
				return usage_error("bad server '%s': expected "
						   "HOST[:DISPLAY], HOST::PORT "
						   "or [IPV6]:DISPLAY",
						   a);
			if (ret < 0)
				return ret;
			continue;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help") ||
		    !strcmp(a, "-help")) {
			opts_usage();
			return 1;
		}
		if (!strcmp(a, "-V") || !strcmp(a, "--version")) {
			version();
			return 1;
		}
		if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
			o->verbose = true;
			continue;
		}
		if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
			o->quiet = true;
			continue;
		}
		if (!strcmp(a, "--demo")) {
			if (o->mode != MODE_VIEW)
				return usage_error("--demo is not for this "
						   "command");
			if (opts_from_cli(o, "server"))
				return usage_error("--demo takes no server "
						   "('%s')",
						   o->target);
			o->mode = MODE_DEMO;
			if (compose_output(o, &(const char *){ NULL }) < 0)
				return -ENOMEM;
			continue;
		}
		if (!strcmp(a, "--check-config")) {
			o->check_config = true;
			continue;
		}
		if (!strcmp(a, "-o")) {
			if (i + 1 >= argc)
				return usage_error("%s needs a value", a);
			ret = set_cli(o, "output", argv[++i], a);
			if (ret < 0)
				return ret;
			continue;
		}
		/* --name, --name=value, and single-dash habit spellings. */
		name = a + (a[1] == '-' ? 2 : 1);
		k = strcspn(name, "=");
		if (k >= sizeof(namebuf))
			return usage_error("unknown option '%s'", a);
		memcpy(namebuf, name, k);
		namebuf[k] = '\0';
		if (name[k] == '=')
			val = name + k + 1;
		/* Messages name the option as typed, without its =value. */
		snprintf(typed, sizeof(typed), "%.*s", (int)(name - a + k), a);
		name = namebuf;
		if (o->mode == MODE_PROBE && !strcmp(name, "json")) {
			ret = probe_json(o, val, argc, argv, &i);
			if (ret < 0)
				return ret;
			continue;
		}
		for (k = 0; k < sizeof(aliases) / sizeof(aliases[0]); k++)
			if (!strcmp(aliases[k].name, name))
				break;
		if (k == sizeof(aliases) / sizeof(aliases[0])) {
			ret = set_tiger(o, name, val, argc, argv, &i,
					&no_jpeg);
			if (ret == -ENOENT)
				return usage_error("unknown option '%s'", a);
			if (ret < 0)
				return ret;
			continue;
		}
		if (aliases[k].takes_value) {
			if (!val) {
				if (i + 1 >= argc)
					return usage_error("%s needs a value",
							   typed);
				val = argv[++i];
			}
		} else if (val && aliases[k].negate) {
			bool b;

			if (parse_bool(val, &b) < 0)
				return usage_error("bad value '%s' for %s: "
						   "expected yes or no",
						   val, typed);
			val = b ? "no" : "yes";
		} else if (!val) {
			const char *const *w = aliases[k].words;

			while (w && *w && i + 1 < argc &&
			       strcasecmp(*w, argv[i + 1]))
				w++;
			if (w && *w && i + 1 < argc)
				val = argv[++i];
			else
				val = aliases[k].flag_value
					      ? aliases[k].flag_value
					      : "yes";
		}
		if (!aliases[k].key) {
			/* Files that are not settings: --config names where
			 * settings come from, --json/--csv bench's reports,
			 * --record/--replay (and theirs) bench's streams. */
			if (is_bench_file_option(name) &&
			    o->mode == MODE_BENCH) {
				ret = bench_file_option(o, name, val);
			} else if (!strcmp(name, "config")) {
				ret = set_path(&o->config, val, &why);
				if (ret == -EINVAL)
					return usage_error("bad value '%s' for "
							   "%s: %s",
							   val, typed, why);
			} else if (o->mode != MODE_BENCH) {
				return usage_error("%s is only for %s", typed,
						   !strcmp(name, "json")
							   ? "vncfb probe and "
							     "vncfb bench"
							   : "vncfb bench");
			} else {
				ret = set_str(!strcmp(name, "json")
						      ? &o->json_file
						      : &o->csv_file,
					      val);
			}
			if (ret < 0)
				return ret;
			continue;
		}
		ret = set_cli(o, aliases[k].key, val, typed);
		if (ret < 0)
			return ret;
	}
	/* NoJPEG wins over QualityLevel, whatever their order (vncviewer). */
	if (no_jpeg) {
		o->quality = -1;
		o->cli_set |= 1ull << K_QUALITY;
	}
	if (check_bench_files(o) < 0)
		return -EINVAL;
	return 0;
}

int opts_finish(struct options *o)
{
	/* A config file's server is what to view: the built-in servers of
	 * --demo and bench are not replaced by it. */
	if (o->mode != MODE_VIEW && !opts_from_cli(o, "server")) {
		free(o->target);
		free(o->host);
		o->target = o->host = NULL;
		o->port = 5900;
	}
	if (o->mode == MODE_VIEW && !o->target && !o->check_config)
		return usage_error("no server given: vncfb HOST[:DISPLAY], or "
				   "server = HOST[:DISPLAY] in the config file "
				   "(or --demo)");
	return 0;
}
