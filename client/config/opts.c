/* Option values. Every option is a key with a setter, so the command line
 * (opts_cli.c) and the config files (conffile.c) share one validation
 * path; which keys the command line set, and where a config file set the
 * others. */
#include "config.h"

#include <errno.h>
#include <pwd.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "decode/decpool.h"
#include "config/opts.h"
#include "config/opts_priv.h"
#include "output/output.h"
#include "platform/input.h"
#include "view/layout.h"
#include "output/rotate.h"
#include "view/view.h"
#include "net/sectype.h"
#include "net/trust.h"
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
	o->remote_resize = true;
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
	free(o->layout);
	free(o->screenshot);
	free(o->encodings);
	free(o->passwd_file);
	free(o->config);
	free(o->input);
	free(o->keymap);
	free(o->touch_head);
	free(o->rotate);
	free(o->json_file);
	free(o->csv_file);
	free(o->workloads);
	free(o->ca_file);
	free(o->user);
	free(o->username);
	free(o->password_file);
	free(o->fingerprint);
	free(o->security);
	free(o->known_hosts);
	free(o->record_file);
	free(o->replay_file);
	free(o->link);
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

/* --- the keys that are more than a value of a type --- */

static int set_output(struct options *o, const char *v, const char **why)
{
	/* What the backend said about its part, else the outputs there
	 * are. */
	static char msg[256];

	if (output_check_spec(v, msg, sizeof(msg)) < 0) {
		*why = msg[0] ? msg : opts_output_why(v);
		return -EINVAL;
	}
	return opts_set_output_part(o, &o->output_arg, v, why);
}

static int set_connector(struct options *o, const char *v, const char **why)
{
	return opts_set_output_part(o, &o->connector, v, why);
}

static int set_mode(struct options *o, const char *v, const char **why)
{
	return opts_set_output_part(o, &o->drm_mode, v, why);
}

/* The grammar here; the names against the heads once they are open. */
static int set_layout(struct options *o, const char *v, const char **why)
{
	static char msg[160];
	struct layout_spec spec;
	char *s;

	if (layout_spec_parse(v, &spec, msg, sizeof(msg)) < 0) {
		*why = msg;
		return -EINVAL;
	}
	s = *v ? strdup(v) : NULL;
	if (*v && !s)
		return -ENOMEM;
	free(o->layout);
	o->layout = s;
	return 0;
}

/* Signage: --rotate's grammar here, the names against the heads once
 * they are open. */
static int set_rotate(struct options *o, const char *v, const char **why)
{
	static char msg[160];
	char *s;

	if (rotate_check(v, msg, sizeof(msg)) < 0) {
		*why = msg;
		return -EINVAL;
	}
	s = *v ? strdup(v) : NULL;
	if (*v && !s)
		return -ENOMEM;
	free(o->rotate);
	o->rotate = s;
	return 0;
}

static int set_screenshot(struct options *o, const char *v, const char **why)
{
	if (*v && !image_name_ok(v))
		return -EINVAL;
	return opts_set_path(&o->screenshot, v, why);
}

static int set_encodings(struct options *o, const char *v, const char **why)
{
	const char *bad;

	if (vnc_check_encodings(v, &bad) < 0) {
		if (!strcasecmp(bad, "h264"))
			*why = "h264 needs a vncfb built with libavcodec "
			       "(vncfb --version says)";
		else
			*why = vnc_encodings_expected();
		return -EINVAL;
	}
	return opts_set_str(&o->encodings, v);
}

static int set_fingerprint(struct options *o, const char *v, const char **why)
{
	uint8_t fp[TRUST_FP_LEN];
	char text[TRUST_FP_TEXT];

	(void)why;
	if (trust_parse(v, fp) < 0)
		return -EINVAL;
	trust_format(fp, text);
	return opts_set_str(&o->fingerprint, text);
}

static int set_security(struct options *o, const char *v, const char **why)
{
	static char msg[200];
	const struct sectype *t[SECTYPE_MAX];
	const char *bad;
	size_t n;

	if (sectype_parse(v, t, &n, &bad) < 0) {
		snprintf(msg, sizeof(msg),
			 "%s%s%sexpected security types from: RA2_256 RA2 "
			 "RA2ne_256 RA2ne X509Plain X509Vnc X509None TLSPlain "
			 "TLSVnc TLSNone TLS DH MSLogonII VncAuth None Plain",
			 *bad ? "unknown type '" : "", bad, *bad ? "'; " : "");
		*why = msg;
		return -EINVAL;
	}
	return opts_set_str(&o->security, v);
}

static int set_cpu(struct options *o, const char *v, const char **why)
{
	long n;

	if (!strcmp(v, "auto"))
		o->cpu = CPU_AUTO;
	else if (!strcmp(v, "each") && o->mode == MODE_BENCH)
		o->cpu = CPU_EACH;
	else if (opts_parse_int(v, 0, 4095, &n) < 0)
		return -EINVAL;
	else
		o->cpu = (int)n;
	return 0;
}

static int set_decode_threads(struct options *o, const char *v,
			      const char **why)
{
	long n;

	if (!strcmp(v, "auto"))
		o->decode_threads = DECODE_THREADS_AUTO;
	else if (opts_parse_int(v, 1, DECPOOL_MAX_THREADS, &n) < 0)
		return -EINVAL;
	else
		o->decode_threads = (int)n;
	return 0;
}

static int set_scale(struct options *o, const char *v, const char **why)
{
	enum scale_mode mode;
	unsigned zoom;

	if (scale_parse(v, &mode, &zoom) < 0)
		return -EINVAL;
	o->scale_mode = (int)mode;
	o->scale_zoom = zoom;
	return 0;
}

static int set_touch(struct options *o, const char *v, const char **why)
{
	if (!strcasecmp(v, "gestures"))
		o->touch = INPUT_TOUCH_GESTURES;
	else if (!strcasecmp(v, "pointer"))
		o->touch = INPUT_TOUCH_POINTER;
	else
		return -EINVAL;
	return 0;
}

static int set_reconnect(struct options *o, const char *v, const char **why)
{
	bool b;

	if (!strcasecmp(v, "always"))
		o->reconnect = RECONNECT_ALWAYS;
	else if (opts_parse_bool(v, &b) < 0)
		return -EINVAL;
	else
		o->reconnect = b ? RECONNECT_LOST : RECONNECT_NO;
	return 0;
}

static int set_server(struct options *o, const char *v, const char **why)
{
	char *host = NULL;
	int port, ret;

	ret = opts_parse_target(v, &host, &port);
	if (ret < 0) {
		free(host);
		return ret;
	}
	ret = opts_set_str(&o->target, v);
	if (ret < 0) {
		free(host);
		return ret;
	}
	free(o->host);
	o->host = host;
	o->port = port;
	return 0;
}

/* --- the table --- */

enum key_type {
	T_INT,	   /* int, a decimal in [lo, hi] */
	T_BOOL,	   /* bool, yes/no */
	T_SECONDS, /* double, positive seconds */
	T_STR,	   /* char *, a copy */
	T_WORD,	   /* char *, a copy, not empty */
	T_PATH,	   /* char *, a file name with ~ expanded (not empty) */
	T_FN,	   /* set() does it */
};

struct key {
	const char *name;
	enum key_type type;
	size_t field; /* offsetof(struct options, ...), but T_FN */
	long lo, hi;  /* T_INT */
	/* What a refused value gets (the man page's words): "expected ..." */
	const char *why;
	/* T_FN: 0, -EINVAL (why, or *why when it sets one), -ENOMEM. */
	int (*set)(struct options *o, const char *v, const char **why);
};

#define F(field) offsetof(struct options, field)
#define YES_NO "expected yes or no"

static const struct key keys[K_COUNT] = {
    [K_OUTPUT] = {"output", T_FN, .set = set_output},
    [K_SCREENSHOT] = {"screenshot", T_FN, .set = set_screenshot,
		      .why = "expected a file name ending in .ppm or .png"},
    [K_EXIT_AFTER] = {"exit-after", T_SECONDS, F(exit_after),
		      .why = "expected a positive number of seconds"},
    /* The names come from the decoders (vnc_encodings_expected). */
    [K_ENCODINGS] = {"encodings", T_FN, .set = set_encodings},
    [K_QUALITY] = {"quality", T_INT, F(quality), 0, 9, "expected 0-9"},
    [K_COMPRESS] = {"compress", T_INT, F(compress), 0, 9, "expected 0-9"},
    [K_VIEW_ONLY] = {"view-only", T_BOOL, F(view_only), .why = YES_NO},
    [K_PASSWD] = {"passwd", T_PATH, F(passwd_file)},
    [K_CPU] = {"cpu", T_FN, .set = set_cpu,
	       .why = "expected auto or a core number"},
    [K_INPUT] = {"input", T_STR, F(input)},
    [K_KEYMAP] = {"keymap", T_WORD, F(keymap),
		  .why = "expected LAYOUT[:VARIANT]"},
    [K_SERVER_CURSOR] = {"server-cursor", T_BOOL, F(server_cursor),
			 .why = YES_NO},
    [K_SAMPLES] = {"samples", T_INT, F(samples), 1, 1000, "expected 1-1000"},
    [K_DURATION] = {"duration", T_SECONDS, F(duration),
		    .why = "expected a positive number of seconds"},
    [K_WORKLOAD] = {"workload", T_STR, F(workloads)},
    [K_SCALE] = {"scale", T_FN, .set = set_scale,
		 .why = "expected none, fit, fill or a zoom factor N, 1-16 "
			"(1 is none)"},
    [K_RECONNECT] = {"reconnect", T_FN, .set = set_reconnect,
		     .why = "expected yes, no or always"},
    [K_CA] = {"ca", T_PATH, F(ca_file),
	      .why = "expected a PEM file of CA certificates"},
    [K_INSECURE] = {"insecure", T_BOOL, F(insecure), .why = YES_NO},
    [K_USER] = {"user", T_WORD, F(user), .why = "expected a user name"},
    [K_TIMEOUT] = {"timeout", T_INT, F(timeout), 1, 3600,
		   "expected 1-3600 seconds"},
    [K_CONNECTOR] = {"connector", T_FN, .set = set_connector},
    [K_MODE] = {"mode", T_FN, .set = set_mode},
    [K_SERVER] = {"server", T_FN, .set = set_server,
		  .why = "expected HOST[:DISPLAY], HOST::PORT or "
			 "[IPV6]:DISPLAY"},
    [K_DECODE_THREADS] = {"decode-threads", T_FN, .set = set_decode_threads,
			  .why = "expected auto or 1-16"},
    [K_REMOTE_RESIZE] = {"remote-resize", T_BOOL, F(remote_resize),
			 .why = YES_NO},
    [K_LAYOUT] = {"layout", T_FN, .set = set_layout},
    [K_TOUCH_HEAD] = {"touch-head", T_WORD, F(touch_head),
		      .why = "expected a connector's name"},
    [K_USERNAME] = {"username", T_WORD, F(username),
		    .why = "expected a user name"},
    [K_PASSWORD_FILE] = {"password-file", T_PATH, F(password_file),
			 .why = "expected a file name"},
    [K_FINGERPRINT] = {"fingerprint", T_FN, .set = set_fingerprint,
		       .why = "expected SHA256: and 64 hex digits"},
    [K_SECURITY] = {"security", T_FN, .set = set_security},
    [K_KNOWN_HOSTS] = {"known-hosts", T_PATH, F(known_hosts),
		       .why = "expected a file name"},
    [K_ROTATE] = {"rotate", T_FN, .set = set_rotate},
    [K_TOUCH] = {"touch", T_FN, .set = set_touch,
		 .why = "expected gestures or pointer"},
};

#undef F

_Static_assert(DECPOOL_MAX_THREADS == 16, "decode-threads says 1-16");

int opts_key_id(const char *key)
{
	int id;

	for (id = 0; id < K_COUNT; id++)
		if (keys[id].name && !strcmp(keys[id].name, key))
			return id;
	return -1;
}

/* Set key k from v: 0, -EINVAL (*why set when the key's own words are
 * not enough), -ENOMEM. */
static int set_key(struct options *o, const struct key *k, const char *v,
		   const char **why)
{
	void *field = (char *)o + k->field;
	long n;

	switch (k->type) {
	case T_INT:
		if (opts_parse_int(v, k->lo, k->hi, &n) < 0)
			return -EINVAL;
		*(int *)field = (int)n;
		return 0;
	case T_BOOL:
		return opts_parse_bool(v, (bool *)field);
	case T_SECONDS:
		return parse_seconds(v, (double *)field);
	case T_WORD:
		if (!*v)
			return -EINVAL;
		/* fall through */
	case T_STR:
		return opts_set_str((char **)field, v);
	case T_PATH:
		if (!*v && k->why)
			return -EINVAL;
		return opts_set_path((char **)field, v, why);
	case T_FN:
		return k->set(o, v, why);
	}
	return -EINVAL;
}

int opts_set(struct options *o, const char *key, const char *v,
	     bool from_cli, const char **why)
{
	int id = opts_key_id(key), ret;

	if (id < 0)
		return -ENOENT;
	if (!from_cli && (o->cli_set & (1ull << id)))
		return 0;
	*why = NULL;
	ret = set_key(o, &keys[id], v, why);
	if (ret == -EINVAL && !*why)
		*why = keys[id].why;
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

