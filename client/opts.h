/* Options: command line and config files, one key = value model.
 * Main thread, before anything starts. */
#ifndef VNCFB_OPTS_H
#define VNCFB_OPTS_H

#include <stdbool.h>

enum vncfb_mode {
	MODE_VIEW,	/* connect to HOST and show it */
	MODE_DEMO,	/* built-in server + view */
	MODE_PROBE,	/* vncfb probe */
	MODE_BENCH,	/* vncfb bench */
};

#define CPU_AUTO (-1)
#define CPU_EACH (-2)

struct options {
	enum vncfb_mode mode;
	char *target;		/* HOST[:DISPLAY] as given */
	char *host;		/* parsed host, no brackets */
	int port;
	char *output;		/* output spec, NULL: default */
	char *screenshot;
	double exit_after;	/* seconds, 0: never */
	char *encodings;
	int quality;		/* -1: lossless */
	int compress;		/* -1: default */
	bool view_only;
	char *passwd_file;
	int cpu;		/* CPU_AUTO or a core */
	bool verbose;
	bool quiet;
	char *config;		/* --config FILE */
	bool check_config;
	/* Linux console / input */
	char *input;		/* --input DEV,... */
	char *keymap;		/* layout[:variant] */
	bool server_cursor;
	/* --scale none|fit|fill|N (enum scale_mode in scale.h) */
	int scale_mode;
	unsigned scale_zoom;
	/* Reliability and security */
	bool reconnect;		/* retry when the server goes away */
	int timeout;		/* seconds of silence before a ping/drop */
	char *ca_file;		/* --ca: CA certificates for TLS */
	bool insecure;		/* --insecure: TLS without verification */
	char *user;		/* --user: drop root to this user */
	/* probe / bench */
	int samples;
	bool json;
	char *json_file;
	char *csv_file;
	char *workloads;
	double duration;
	/* bench --record FILE HOST / --replay FILE [--serve PORT]: command
	 * line only (a config file has no business naming files to write) */
	char *record_file;
	char *replay_file;
	int serve_port;		/* -1: measure, not serve */
	long updates;		/* --record: stop after N updates, 0: no limit */
	int repeat;		/* --replay: plays per configuration, 0: 3 */
	/* Which keys came from the command line (config must not override). */
	unsigned long long cli_set;
};

void opts_defaults(struct options *o);
void opts_free(struct options *o);

/* Parse argv. Returns 0 to go on, 1 when done (help/version printed), or
 * -EINVAL after printing a one-line usage error. */
int opts_parse(struct options *o, int argc, char **argv);

/* Set one option by its config-file key ("cpu", "output", ...). from_cli
 * marks it as given on the command line; a later config value for it is
 * then ignored. Returns 0, -ENOENT for an unknown key, -EINVAL for a bad
 * value (with *why describing it). */
int opts_set(struct options *o, const char *key, const char *value,
	     bool from_cli, const char **why);

/* Whether key was set on the command line (a config value is ignored). */
bool opts_from_cli(const struct options *o, const char *key);

/* "host", "host:display", "host::port", "[v6]:display", "[v6]::port".
 * 0 or -EINVAL. *host is malloc'd. */
int opts_parse_target(const char *s, char **host, int *port);

void opts_usage(void);

#endif
