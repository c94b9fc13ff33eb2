/* Command line and option values. Every option is a key with a setter, so
 * the command line and the config files share one validation path. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "opts.h"
#include "output.h"
#include "platform.h"
#include "scale.h"
#include "vnc.h"

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
	o->reconnect = true;
	o->timeout = 10;
	o->serve_port = -1;
}

void opts_free(struct options *o)
{
	free(o->target);
	free(o->host);
	free(o->output);
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

static int parse_bool(const char *v, bool *out)
{
	if (!strcmp(v, "1") || !strcmp(v, "yes") || !strcmp(v, "true") ||
	    !strcmp(v, "on")) {
		*out = true;
		return 0;
	}
	if (!strcmp(v, "0") || !strcmp(v, "no") || !strcmp(v, "false") ||
	    !strcmp(v, "off")) {
		*out = false;
		return 0;
	}
	return -EINVAL;
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
	[K_TIMEOUT] = "timeout",
};

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
	int id, ret = 0;
	long n;
	bool b;

	for (id = 0; id < K_COUNT; id++)
		if (key_names[id] && !strcmp(key_names[id], key))
			break;
	if (id == K_COUNT)
		return -ENOENT;
	if (!from_cli && (o->cli_set & (1ull << id)))
		return 0;
	*why = NULL;
	switch (id) {
	case K_OUTPUT:
		ret = output_check_spec(v);
		if (ret < 0) {
			*why = "expected mem:WIDTHxHEIGHT[:FORMAT] (FORMAT: "
			       "xrgb8888, bgrx8888, rgb565, rgb888), "
			       "fbdev[:DEVICE] or wsdisplay[:DEVICE]";
			ret = -EINVAL;
			break;
		}
		ret = set_str(&o->output, v);
		break;
	case K_SCREENSHOT:
		ret = set_str(&o->screenshot, v);
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
		ret = set_str(&o->passwd_file, v);
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
			       "1-16";
			ret = -EINVAL;
			break;
		}
		o->scale_mode = (int)mode;
		o->scale_zoom = zoom;
		break;
	}
	case K_RECONNECT:
	case K_INSECURE:
		if (parse_bool(v, &b) < 0) {
			*why = "expected yes or no";
			ret = -EINVAL;
		} else if (id == K_RECONNECT) {
			o->reconnect = b;
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
		ret = set_str(&o->ca_file, v);
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
	}
	if (ret == 0 && from_cli)
		o->cli_set |= 1ull << id;
	return ret;
}

bool opts_from_cli(const struct options *o, const char *key)
{
	int id;

	for (id = 0; id < K_COUNT; id++)
		if (key_names[id] && !strcmp(key_names[id], key))
			return (o->cli_set & (1ull << id)) != 0;
	return false;
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
		if (hlen == 0)
			return -EINVAL;
	}
	if (*rest == '\0') {
		*port = 5900;
	} else if (rest[1] == ':') {
		if (parse_int(rest + 2, 1, 65535, &n) < 0)
			return -EINVAL;
		*port = (int)n;
	} else {
		if (parse_int(rest + 1, 0, 65535 - 5900, &n) < 0)
			return -EINVAL;
		*port = 5900 + (int)n;
	}
	*host = strndup(h, hlen);
	return *host ? 0 : -ENOMEM;
}

void opts_usage(void)
{
	printf("usage: vncfb [OPTIONS] HOST[:DISPLAY] | HOST::PORT | "
	       "[IPV6]:DISPLAY\n"
	       "       vncfb --demo [OPTIONS]\n"
	       "       vncfb probe [-o SPEC] [--samples N] [--json]\n"
	       "       vncfb bench [-o SPEC] [--cpu auto|N|each] "
	       "[--workload NAME,...]\n"
	       "                   [--encodings LIST] [--duration SECS] "
	       "[--json FILE] [--csv FILE] [HOST]\n"
	       "       vncfb bench --record FILE [--updates N] "
	       "[--exit-after SECS] [-o mem:WxH:FMT] HOST\n"
	       "       vncfb bench --replay FILE [--repeat N] "
	       "[--serve PORT] [-o SPEC]\n"
	       "\n"
	       "  -o, --output SPEC      mem:WIDTHxHEIGHT[:FORMAT] (FORMAT: "
	       "xrgb8888 (default),\n"
	       "                         bgrx8888, rgb565, rgb888); "
	       "fbdev[:DEVICE]; wsdisplay[:DEVICE]\n"
	       "      --screenshot FILE  on exit (and on SIGUSR1) write what "
	       "the output shows (PPM)\n"
	       "      --exit-after SECS  leave cleanly after SECS seconds\n"
	       "      --encodings LIST   e.g. \"tight zrle hextile copyrect "
	       "raw\", in preference order\n"
	       "      --quality N        allow lossy JPEG (tight) at quality "
	       "0-9\n"
	       "      --compress N       zlib level 0-9\n"
	       "      --view-only        send no input\n"
	       "      --passwd FILE      VNC password file (vncpasswd "
	       "format); else $VNCFB_PASSWORD,\n"
	       "                         else a prompt on the terminal\n"
	       "      --cpu auto|N       core for the blit thread\n"
	       "      --config FILE      read options from FILE (key = "
	       "value)\n"
	       "      --check-config     check the config files, list their "
	       "settings, exit\n"
	       "      --input DEV,...    input devices (default: all "
	       "keyboards and pointers)\n"
	       "      --keymap L[:V]     keyboard layout (default "
	       "$XKB_DEFAULT_LAYOUT or us)\n"
	       "      --server-cursor    let the server draw the cursor\n"
	       "      --scale MODE       none (1:1, panned), fit (keep aspect), "
	       "fill (stretch),\n"
	       "                         or N: zoom by N (pixel "
	       "replication)\n"
	       "      --no-reconnect     exit when the server goes away "
	       "(default: keep the\n"
	       "                         picture and retry, backing off to "
	       "30 s)\n"
	       "      --timeout SECS     a server silent this long is pinged, "
	       "and dropped\n"
	       "                         when still silent as long again "
	       "(default 10)\n"
	       "      --ca FILE          CA certificates (PEM) to verify a "
	       "VeNCrypt/TLS server\n"
	       "      --insecure         TLS without certificate "
	       "verification (warned)\n"
	       "      --user NAME        started as root: drop to NAME after "
	       "opening the devices\n"
	       "      --demo             show a built-in animated VNC "
	       "server\n"
	       "  -v, --verbose;  -q, --quiet;  -h, --help;  -V, "
	       "--version\n");
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
	const char *key;	/* opts_set key, or NULL for special */
	bool takes_value;
	const char *flag_value;	/* value of a flag; NULL: "yes" */
};

/* Long options and the vncviewer spellings users type from habit. */
static const struct alias aliases[] = {
	{ "output", "output", true },
	{ "screenshot", "screenshot", true },
	{ "exit-after", "exit-after", true },
	{ "encodings", "encodings", true },
	{ "quality", "quality", true },
	{ "compress", "compress", true },
	{ "compresslevel", "compress", true },
	{ "view-only", "view-only", false },
	{ "viewonly", "view-only", false },
	{ "passwd", "passwd", true },
	{ "cpu", "cpu", true },
	{ "input", "input", true },
	{ "keymap", "keymap", true },
	{ "server-cursor", "server-cursor", false },
	{ "samples", "samples", true },
	{ "duration", "duration", true },
	{ "workload", "workload", true },
	{ "scale", "scale", true },
	{ "reconnect", "reconnect", false },
	{ "no-reconnect", "reconnect", false, "no" },
	{ "ca", "ca", true },
	{ "insecure", "insecure", false },
	{ "user", "user", true },
	{ "timeout", "timeout", true },
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

	if (o->mode != MODE_BENCH &&
	    (rec || rep || o->serve_port >= 0 || o->updates || o->repeat))
		return usage_error("--record, --replay, --serve, --updates and "
				   "--repeat are vncfb bench options");
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

int opts_parse(struct options *o, int argc, char **argv)
{
	int i = 1;

	if (argc > 1 && !strcmp(argv[1], "probe")) {
		o->mode = MODE_PROBE;
		i = 2;
	} else if (argc > 1 && !strcmp(argv[1], "bench")) {
		o->mode = MODE_BENCH;
		i = 2;
	}
	for (; i < argc; i++) {
		const char *a = argv[i], *name, *val = NULL;
		char namebuf[64];
		size_t k;
		int ret;

		if (a[0] != '-' || a[1] == '\0') {
			if (o->target)
				return usage_error("unexpected argument '%s'", a);
			if (set_str(&o->target, a) < 0)
				return -ENOMEM;
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
			o->mode = MODE_DEMO;
			continue;
		}
		if (!strcmp(a, "--check-config")) {
			o->check_config = true;
			continue;
		}
		if (!strcmp(a, "--json") && o->mode == MODE_PROBE) {
			o->json = true;
			continue;
		}
		if (!strcmp(a, "-o")) {
			name = "output";
			if (i + 1 >= argc)
				return usage_error("%s needs a value", a);
			val = argv[++i];
			goto set;
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
		name = namebuf;
		if (!strcmp(name, "config") || !strcmp(name, "json") ||
		    !strcmp(name, "csv")) {
			char **dst = !strcmp(name, "config") ? &o->config
				     : !strcmp(name, "json") ? &o->json_file
							     : &o->csv_file;

			if (!val && i + 1 >= argc)
				return usage_error("--%s needs a value", name);
			if (!val)
				val = argv[++i];
			if (set_str(dst, val) < 0)
				return -ENOMEM;
			continue;
		}
		if (is_bench_file_option(name)) {
			if (!val && i + 1 >= argc)
				return usage_error("--%s needs a value", name);
			if (!val)
				val = argv[++i];
			ret = bench_file_option(o, name, val);
			if (ret < 0)
				return ret;
			continue;
		}
		for (k = 0; k < sizeof(aliases) / sizeof(aliases[0]); k++)
			if (!strcmp(aliases[k].name, name))
				break;
		if (k == sizeof(aliases) / sizeof(aliases[0]))
			return usage_error("unknown option '%s'", a);
		if (aliases[k].takes_value) {
			if (!val) {
				if (i + 1 >= argc)
					return usage_error("%s needs a value", a);
				val = argv[++i];
			}
		} else if (!val) {
			val = aliases[k].flag_value ? aliases[k].flag_value
						    : "yes";
		}
		name = aliases[k].key;
set: {
		const char *why = NULL;

		ret = opts_set(o, name, val, true, &why);
		if (ret == -EINVAL) {
			fprintf(stderr,
				"vncfb: bad value '%s' for %s: %s (see vncfb "
				"--help)\n",
				val, a, why ? why : "invalid");
			return -EINVAL;
		}
		if (ret < 0)
			return ret;
	}
	}
	if (o->mode == MODE_VIEW && !o->target && !o->check_config)
		return usage_error("no server given: vncfb HOST[:DISPLAY] "
				   "(or --demo)");
	if (o->mode == MODE_DEMO && o->target)
		return usage_error("--demo takes no server ('%s')", o->target);
	if (o->mode == MODE_PROBE && o->target)
		return usage_error("probe takes no server ('%s')", o->target);
	if (check_bench_files(o) < 0)
		return -EINVAL;
	if (o->target && opts_parse_target(o->target, &o->host, &o->port) < 0)
		return usage_error("bad server '%s': expected HOST[:DISPLAY], "
				   "HOST::PORT or [IPV6]:DISPLAY", o->target);
	return 0;
}
