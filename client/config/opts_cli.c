/* The command line: vncfb's subcommands and options into the keys of
 * opts_set() (TigerVNC's -Parameters through opts_tiger.c), what each
 * command takes, and a one-line usage error for anything else. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config/opts.h"
#include "config/opts_priv.h"

#define M_VIEW (1u << MODE_VIEW)
#define M_DEMO (1u << MODE_DEMO)
#define M_PROBE (1u << MODE_PROBE)
#define M_BENCH (1u << MODE_BENCH)
#define M_SESSION (M_VIEW | M_DEMO)

/* The commands each key means something to, on the command line (0: all).
 * A config file serves every command, so there a key for another one is
 * no error. */
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
	[K_REMOTE_RESIZE] = M_SESSION,
	[K_TOUCH] = M_SESSION,
	[K_USERNAME] = M_VIEW | M_BENCH,
	[K_PASSWORD_FILE] = M_VIEW | M_BENCH,
	[K_FINGERPRINT] = M_VIEW | M_BENCH,
	[K_SECURITY] = M_VIEW | M_BENCH,
	[K_KNOWN_HOSTS] = M_VIEW | M_BENCH,
};

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
 * ...) aside, and vncviewer's names in tiger_params (opts_tiger.c). */
static const struct alias aliases[] = {
    {"config", NULL, true},
    {"json", NULL, true},
    {"csv", NULL, true},
    {"record", NULL, true},
    {"replay", NULL, true},
    {"serve", NULL, true},
    {"updates", NULL, true},
    {"repeat", NULL, true},
    {"push", NULL, true},
    {"link", NULL, true},
    {"output", "output", true},
    {"screenshot", "screenshot", true},
    {"exit-after", "exit-after", true},
    {"server", "server", true},
    {"encodings", "encodings", true},
    {"quality", "quality", true},
    {"compress", "compress", true},
    {"view-only", "view-only", false},
    {"passwd", "passwd", true},
    {"cpu", "cpu", true},
    {"decode-threads", "decode-threads", true},
    {"input", "input", true},
    {"keymap", "keymap", true},
    {"server-cursor", "server-cursor", false},
    {"samples", "samples", true},
    {"duration", "duration", true},
    {"workload", "workload", true},
    {"scale", "scale", true},
    {"remote-resize", "remote-resize", false},
    {"no-remote-resize", "remote-resize", false, "no", true},
    {"reconnect", "reconnect", false, NULL, false, reconnect_words},
    {"no-reconnect", "reconnect", false, "no", true},
    {"ca", "ca", true},
    {"insecure", "insecure", false},
    {"user", "user", true},
    {"username", "username", true},
    {"password-file", "password-file", true},
    {"fingerprint", "fingerprint", true},
    {"security", "security", true},
    {"known-hosts", "known-hosts", true},
    {"timeout", "timeout", true},
    {"connector", "connector", true},
    {"mode", "mode", true},
    {"layout", "layout", true},
    {"touch-head", "touch-head", true},
    {"rotate", "rotate", true},
    {"touch", "touch", true},
};

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
			return opts_usage_error("--%s needs a file", name);
		return opts_set_str(dst, val) < 0 ? -ENOMEM : 0;
	}
	if (!strcmp(name, "serve")) {
		if (opts_parse_int(val, 0, 65535, &n) < 0)
			return opts_usage_error("bad value '%s' for --serve: "
						"expected a port 0-65535 (0: "
						"any free one)",
						val);
		o->serve_port = (int)n;
		return 0;
	}
	if (!strcmp(name, "updates")) {
		if (opts_parse_int(val, 1, 100000000, &n) < 0)
			return opts_usage_error("bad value '%s' for --updates: "
						"expected 1-100000000",
						val);
		o->updates = n;
		return 0;
	}
	if (!strcmp(name, "push")) {
		static const char *const names[] = {
			[PUSH_REQUESTS] = "requests",
			[PUSH_RECORDED] = "recorded",
			[PUSH_FAST] = "fast",
		};

		for (n = 0; n < 3; n++)
			if (!strcmp(val, names[n])) {
				o->push = (int)n;
				return 0;
			}
		return opts_usage_error("bad value '%s' for --push: expected "
					"requests, recorded or fast",
					val);
	}
	if (!strcmp(name, "link")) {
		/* Checked by the bench (tools/link parses it). */
		if (!*val)
			return opts_usage_error("--link needs RTT,RATE "
						"(60ms,50mbit)");
		return opts_set_str(&o->link, val) < 0 ? -ENOMEM : 0;
	}
	if (!strcmp(name, "repeat")) {
		if (opts_parse_int(val, 1, 1000, &n) < 0)
			return opts_usage_error("bad value '%s' for --repeat: "
						"expected 1-1000",
						val);
		o->repeat = (int)n;
		return 0;
	}
	return opts_usage_error("unknown option '--%s'", name);
}

static bool is_bench_file_option(const char *name)
{
	return !strcmp(name, "record") || !strcmp(name, "replay") ||
	       !strcmp(name, "serve") || !strcmp(name, "updates") ||
	       !strcmp(name, "repeat") || !strcmp(name, "push") ||
	       !strcmp(name, "link");
}

/* What the recorder and the replay rule out, once the line is read. */
static int check_bench_files(const struct options *o)
{
	bool rec = o->record_file, rep = o->replay_file;

	if (o->mode == MODE_BENCH && !rec && !(rep && o->serve_port >= 0) &&
	    opts_from_cli(o, "exit-after"))
		return opts_usage_error("--exit-after is for vncfb bench "
					"--record and --replay --serve (a "
					"bench run has --duration)");
	if (rec && rep)
		return opts_usage_error("--record and --replay go in separate "
					"runs");
	if (rec && !o->target)
		return opts_usage_error("--record needs a server: vncfb bench "
					"--record FILE HOST[:DISPLAY]");
	if (rep && o->target)
		return opts_usage_error("--replay takes no server ('%s'): the "
					"recording is the server",
					o->target);
	if ((rec || rep) && o->workloads)
		return opts_usage_error("--workload is for the embedded "
					"server, not --%s",
					rec ? "record" : "replay");
	if (o->serve_port >= 0 && !rep)
		return opts_usage_error("--serve needs --replay FILE");
	if (o->updates && !rec)
		return opts_usage_error("--updates needs --record");
	if (o->push && !rep)
		return opts_usage_error("--push needs --replay FILE");
	if (o->link && (rec || (!rep && !o->target)))
		return opts_usage_error("--link needs --replay FILE or a "
					"server (HOST)%s",
					rec ? ", not --record" : "");
	if (o->repeat && (!rep || o->serve_port >= 0))
		return opts_usage_error("--repeat needs --replay (and no "
					"--serve)");
	return 0;
}

int opts_usage_error(const char *fmt, ...)
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

int opts_check_mode(const struct options *o, const char *key,
		    const char *as_typed)
{
	int id = opts_key_id(key);
	unsigned m;

	if (id < 0 || !key_modes[id] || (key_modes[id] & (1u << o->mode)))
		return 0;
	m = key_modes[id];
	if (!(m & (m - 1)))
		return opts_usage_error("%s is only for %s", as_typed,
					mode_names[__builtin_ctz(m)]);
	return opts_usage_error("%s is not for %s", as_typed,
				mode_names[o->mode]);
}

int opts_set_cli(struct options *o, const char *key, const char *val,
		 const char *as_typed)
{
	const char *why = NULL;
	int ret = opts_check_mode(o, key, as_typed);

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
	return opts_set_str(&o->json_file, val);
}

/* A word without a dash: the server. 0 or a usage error. */
static int parse_server(struct options *o, const char *a)
{
	const char *why;
	int ret;

	if (opts_from_cli(o, "server"))
		return opts_usage_error("unexpected argument '%s'", a);
	if (o->mode == MODE_PROBE)
		return opts_usage_error("probe takes no server ('%s')", a);
	if (o->mode == MODE_DEMO)
		return opts_usage_error("--demo takes no server ('%s')", a);
	ret = opts_set(o, "server", a, true, &why);
	if (ret == -EINVAL)
		return opts_usage_error("bad server '%s': expected "
					"HOST[:DISPLAY], HOST::PORT or "
					"[IPV6]:DISPLAY",
					a);
	return ret < 0 ? ret : 0;
}

/* The flags that are no key of opts_set: 1 (handled; *stop set for
 * --help and --version, whose output is all), 0 (not one of them), or a
 * usage error. */
static int parse_flag(struct options *o, const char *a, bool *stop)
{
	if (!strcmp(a, "-h") || !strcmp(a, "--help") || !strcmp(a, "-help")) {
		opts_usage();
		*stop = true;
	} else if (!strcmp(a, "-V") || !strcmp(a, "--version")) {
		opts_version();
		*stop = true;
	} else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
		o->verbose = true;
	} else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
		o->quiet = true;
	} else if (!strcmp(a, "--check-config")) {
		o->check_config = true;
	} else if (!strcmp(a, "--demo")) {
		if (o->mode != MODE_VIEW)
			return opts_usage_error("--demo is not for this "
						"command");
		if (opts_from_cli(o, "server"))
			return opts_usage_error("--demo takes no server ('%s')",
						o->target);
		o->mode = MODE_DEMO;
		if (opts_compose_output(o, &(const char *){NULL}) < 0)
			return -ENOMEM;
	} else {
		return 0;
	}
	return 1;
}

/* The value of option al typed as typed, when the argument did not say
 * =VALUE (*val NULL): the next argument for an option that takes one, a
 * flag's value, or (--reconnect always) the next argument when it is one
 * of the flag's words. A --no-NAME=yes/no is turned round. 0 or a usage
 * error. */
static int alias_value(const struct alias *al, const char *typed, int argc,
		       char **argv, int *i, const char **val)
{
	if (al->takes_value) {
		if (!*val) {
			if (*i + 1 >= argc)
				return opts_usage_error("%s needs a value",
							typed);
			*val = argv[++*i];
		}
	} else if (*val && al->negate) {
		bool b;

		if (opts_parse_bool(*val, &b) < 0)
			return opts_usage_error("bad value '%s' for %s: "
						"expected yes or no",
						*val, typed);
		*val = b ? "no" : "yes";
	} else if (!*val) {
		const char *const *w = al->words;

		while (w && *w && *i + 1 < argc && strcasecmp(*w, argv[*i + 1]))
			w++;
		if (w && *w && *i + 1 < argc)
			*val = argv[++*i];
		else
			*val = al->flag_value ? al->flag_value : "yes";
	}
	return 0;
}

/* Files that are not settings: --config names where settings come from,
 * --json/--csv bench's reports, --record/--replay (and theirs) bench's
 * streams. 0 or a usage error. */
static int set_file(struct options *o, const char *name, const char *val,
		    const char *typed)
{
	const char *why;
	int ret;

	if (is_bench_file_option(name) && o->mode == MODE_BENCH)
		return bench_file_option(o, name, val);
	if (!strcmp(name, "config")) {
		ret = opts_set_path(&o->config, val, &why);
		if (ret == -EINVAL)
			return opts_usage_error("bad value '%s' for %s: %s", val,
						typed, why);
		return ret;
	}
	if (o->mode != MODE_BENCH)
		return opts_usage_error("%s is only for %s", typed,
					!strcmp(name, "json")
					    ? "vncfb probe and vncfb bench"
					    : "vncfb bench");
	return opts_set_str(!strcmp(name, "json") ? &o->json_file
						  : &o->csv_file,
			    val);
}

/* One argument that starts with a dash, at argv[*i] (which the option's
 * value may move on). 0, 1 to stop (--help), or a usage error. */
static int parse_option(struct options *o, int argc, char **argv, int *i,
			bool *no_jpeg)
{
	const char *a = argv[*i], *name, *val = NULL;
	char namebuf[64], typed[70];
	bool stop = false;
	size_t k;
	int ret;

	ret = parse_flag(o, a, &stop);
	if (ret != 0)
		return ret < 0 ? ret : stop;
	if (!strcmp(a, "-o")) {
		if (*i + 1 >= argc)
			return opts_usage_error("%s needs a value", a);
		ret = opts_set_cli(o, "output", argv[++*i], a);
		return ret < 0 ? ret : 0;
	}
	/* --name, --name=value, and single-dash habit spellings. */
	name = a + (a[1] == '-' ? 2 : 1);
	k = strcspn(name, "=");
	if (k >= sizeof(namebuf))
		return opts_usage_error("unknown option '%s'", a);
	memcpy(namebuf, name, k);
	namebuf[k] = '\0';
	if (name[k] == '=')
		val = name + k + 1;
	/* Messages name the option as typed, without its =value. */
	snprintf(typed, sizeof(typed), "%.*s", (int)(name - a + k), a);
	name = namebuf;
	if (o->mode == MODE_PROBE && !strcmp(name, "json")) {
		ret = probe_json(o, val, argc, argv, i);
		return ret < 0 ? ret : 0;
	}
	for (k = 0; k < sizeof(aliases) / sizeof(aliases[0]); k++)
		if (!strcmp(aliases[k].name, name))
			break;
	if (k == sizeof(aliases) / sizeof(aliases[0])) {
		ret = opts_set_tiger(o, name, val, argc, argv, i, no_jpeg);
		if (ret == -ENOENT)
			return opts_usage_error("unknown option '%s'", a);
		return ret < 0 ? ret : 0;
	}
	ret = alias_value(&aliases[k], typed, argc, argv, i, &val);
	if (ret < 0)
		return ret;
	if (!aliases[k].key)
		ret = set_file(o, name, val, typed);
	else
		ret = opts_set_cli(o, aliases[k].key, val, typed);
	return ret < 0 ? ret : 0;
}

int opts_parse(struct options *o, int argc, char **argv)
{
	bool no_jpeg = false;
	int i = 1, ret;

	if (argc > 1 && !strcmp(argv[1], "probe")) {
		o->mode = MODE_PROBE;
		i = 2;
	} else if (argc > 1 && !strcmp(argv[1], "bench")) {
		o->mode = MODE_BENCH;
		i = 2;
	}
	for (; i < argc; i++) {
		if (argv[i][0] != '-' || argv[i][1] == '\0')
			ret = parse_server(o, argv[i]);
		else
			ret = parse_option(o, argc, argv, &i, &no_jpeg);
		if (ret != 0)
			return ret; /* < 0: a usage error; 1: --help said all */
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
		return opts_usage_error("no server given: vncfb "
					"HOST[:DISPLAY], or server = "
					"HOST[:DISPLAY] in the config file (or "
					"--demo)");
	return 0;
}
