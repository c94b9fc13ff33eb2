/* Option values. Every option is a key with a setter, so the command line
 * (opts_cli.c) and the config files (conffile.c) share one validation
 * path; which keys the command line set, and where a config file set the
 * others. */
#include "config.h"

#include <errno.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "decode/decpool.h"
#include "config/opts.h"
#include "config/opts_priv.h"
#include "output/output.h"
#include "view/view.h"
#include "net/vnc_enc.h"

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

int opts_set_str(char **dst, const char *v)
{
	char *s = strdup(v);

	if (!s)
		return -ENOMEM;
	free(*dst);
	*dst = s;
	return 0;
}

int opts_parse_int(const char *v, long lo, long hi, long *out)
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
int opts_parse_bool(const char *v, bool *out)
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
int opts_set_path(char **dst, const char *v, const char **why)
{
	const char *rest, *home = NULL;
	struct passwd *pw;
	char *s;

	if (!*v) {
		*why = "expected a file name";
		return -EINVAL;
	}
	if (v[0] != '~')
		return opts_set_str(dst, v);
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

_Static_assert(DECPOOL_MAX_THREADS == 16, "decode-threads says 1-16");

int opts_key_id(const char *key)
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

int opts_set(struct options *o, const char *key, const char *v,
	     bool from_cli, const char **why)
{
	int id = opts_key_id(key), ret = 0;
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
			*why = opts_output_why(v);
			ret = -EINVAL;
			break;
		}
		ret = opts_set_output_part(o, &o->output_arg, v, why);
		break;
	case K_CONNECTOR:
		ret = opts_set_output_part(o, &o->connector, v, why);
		break;
	case K_MODE:
		ret = opts_set_output_part(o, &o->drm_mode, v, why);
		break;
	case K_SCREENSHOT:
		if (*v && !image_name_ok(v)) {
			*why = "expected a file name ending in .ppm or .png";
			ret = -EINVAL;
			break;
		}
		ret = opts_set_path(&o->screenshot, v, why);
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

		if (vnc_check_encodings(v, &bad) < 0 &&
		    !strcasecmp(bad, "h264")) {
			*why = "h264 needs a vncfb built with libavcodec "
			       "(vncfb --version says)";
			ret = -EINVAL;
			break;
		}
		if (vnc_check_encodings(v, &bad) < 0) {
			*why = "expected names from: raw copyrect rre corre "
			       "hextile zlib tight trle zrle zywrle ultra"
#ifdef VNCFB_HAVE_H264
			       " h264"
#endif
			    ;
			ret = -EINVAL;
			break;
		}
		ret = opts_set_str(&o->encodings, v);
		break;
	}
	case K_QUALITY:
		if (opts_parse_int(v, 0, 9, &n) < 0) {
			*why = "expected 0-9";
			ret = -EINVAL;
		} else {
			o->quality = (int)n;
		}
		break;
	case K_COMPRESS:
		if (opts_parse_int(v, 0, 9, &n) < 0) {
			*why = "expected 0-9";
			ret = -EINVAL;
		} else {
			o->compress = (int)n;
		}
		break;
	case K_VIEW_ONLY:
		if (opts_parse_bool(v, &b) < 0) {
			*why = "expected yes or no";
			ret = -EINVAL;
		} else {
			o->view_only = b;
		}
		break;
	case K_SERVER_CURSOR:
		if (opts_parse_bool(v, &b) < 0) {
			*why = "expected yes or no";
			ret = -EINVAL;
		} else {
			o->server_cursor = b;
		}
		break;
	case K_PASSWD:
		ret = opts_set_path(&o->passwd_file, v, why);
		break;
	case K_CPU:
		if (!strcmp(v, "auto")) {
			o->cpu = CPU_AUTO;
		} else if (!strcmp(v, "each") && o->mode == MODE_BENCH) {
			o->cpu = CPU_EACH;
		} else if (opts_parse_int(v, 0, 4095, &n) < 0) {
			*why = "expected auto or a core number";
			ret = -EINVAL;
		} else {
			o->cpu = (int)n;
		}
		break;
	case K_DECODE_THREADS:
		if (!strcmp(v, "auto")) {
			o->decode_threads = DECODE_THREADS_AUTO;
		} else if (opts_parse_int(v, 1, DECPOOL_MAX_THREADS, &n) < 0) {
			*why = "expected auto or 1-16";
			ret = -EINVAL;
		} else {
			o->decode_threads = (int)n;
		}
		break;
	case K_INPUT:
		ret = opts_set_str(&o->input, v);
		break;
	case K_KEYMAP:
		if (!*v) {
			*why = "expected LAYOUT[:VARIANT]";
			ret = -EINVAL;
			break;
		}
		ret = opts_set_str(&o->keymap, v);
		break;
	case K_SAMPLES:
		if (opts_parse_int(v, 1, 1000, &n) < 0) {
			*why = "expected 1-1000";
			ret = -EINVAL;
		} else {
			o->samples = (int)n;
		}
		break;
	case K_WORKLOAD:
		ret = opts_set_str(&o->workloads, v);
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
		} else if (opts_parse_bool(v, &b) < 0) {
			*why = "expected yes, no or always";
			ret = -EINVAL;
		} else {
			o->reconnect = b ? RECONNECT_LOST : RECONNECT_NO;
		}
		break;
	case K_INSECURE:
		if (opts_parse_bool(v, &b) < 0) {
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
		ret = opts_set_path(&o->ca_file, v, why);
		break;
	case K_TIMEOUT:
		if (opts_parse_int(v, 1, 3600, &n) < 0) {
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
		ret = opts_set_str(&o->user, v);
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
			ret = opts_set_str(&o->target, v);
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
	int id = opts_key_id(key);

	return id >= 0 && (o->cli_set & (1ull << id)) != 0;
}

int opts_set_origin(struct options *o, const char *key, const char *where)
{
	int id = opts_key_id(key);
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
	int id = opts_key_id(key);

	return id >= 0 ? o->origin[id] : NULL;
}

