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
/* The pool's size from the cores and the placement (decpool.h). */
#define DECODE_THREADS_AUTO 0

/* When a session reconnects (the reconnect key). */
enum reconnect_mode {
	RECONNECT_NO,		/* never: exit when the server goes away */
	RECONNECT_LOST,		/* a lost connection (the default) */
	RECONNECT_ALWAYS,	/* the first connection too (kiosks) */
};

/* Room for this many keys (cli_set and origin are per key). */
#define OPTS_MAX_KEYS 64

struct options {
	enum vncfb_mode mode;
	char *target;		/* HOST[:DISPLAY] as given (or the server key) */
	char *host;		/* parsed host, no brackets */
	int port;
	/* The output spec the commands open: output_arg with connector and
	 * drm_mode folded into it (opts_output.c), NULL: the default. */
	char *output;
	char *output_arg;	/* -o / output as given */
	char *connector;	/* --connector NAME[,NAME...] (drm) */
	/* --layout "NAME:X,Y ...": where each head sits in the desktop
	 * (client/view/layout.h), NULL: side by side. */
	char *layout;
	/* --mode WxH[@HZ], or "NAME:WxH[@HZ] ..." with at most one bare
	 * WxH[@HZ] (drm: fbdev/drm/drm_pick.h's mode=). */
	char *drm_mode;
	char *screenshot;
	double exit_after;	/* seconds, 0: never */
	char *encodings;
	int quality;		/* -1: lossless */
	int compress;		/* -1: default */
	/* TigerVNC's -FullColor: auto-select keeps full colour (never
	 * 8-bit on a slow link). */
	bool full_colour;
	bool view_only;
	char *passwd_file;
	int cpu;		/* CPU_AUTO or a core */
	/* --decode-threads: DECODE_THREADS_AUTO, 1 (the main thread) or
	 * that many decoding threads. */
	int decode_threads;
	bool verbose;
	bool quiet;
	char *config;		/* --config FILE */
	bool check_config;
	/* Linux console / input */
	char *input;		/* --input DEV,... */
	char *keymap;		/* layout[:variant] */
	/* --touch-head NAME: the head tablets and touch screens point on,
	 * NULL: the whole desktop (every head). */
	char *touch_head;
	/* Signage: --rotate "ANGLE" or "NAME:ANGLE ..." (output/rotate.h),
	 * NULL: upright. */
	char *rotate;
	/* --touch gestures|pointer: enum input_touch (platform/input.h) */
	int touch;
	bool server_cursor;
	/* --scale none|fit|fill|N (enum scale_mode in view.h) */
	int scale_mode;
	unsigned scale_zoom;
	/* --remote-resize: ask the server for the screen's size */
	bool remote_resize;
	/* Reliability and security */
	enum reconnect_mode reconnect;
	int timeout;		/* seconds of silence before a ping/drop */
	char *ca_file;		/* --ca: CA certificates for TLS */
	bool insecure;		/* --insecure: TLS without verification */
	char *user;		/* --user: drop root to this user */
	char *username;		/* --username: for the types that take one */
	char *password_file;	/* --password-file: plain text, first line */
	char *fingerprint;	/* --fingerprint SHA256:HEX (trust.h) */
	char *security;		/* --security LIST (sectype.h) */
	char *known_hosts;	/* --known-hosts FILE (trust.h), NULL: XDG */
	/* probe / bench */
	int samples;
	bool json;		/* probe --json */
	char *json_file;	/* bench --json FILE, probe --json=FILE */
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
	int push;		/* --push: enum push_mode */
	/* --link RTT,RATE as typed (tools/link parses it), NULL: none */
	char *link;
	/* Which keys came from the command line (config must not override). */
	unsigned long long cli_set;
	/* "FILE:LINE" of the config line that set each key, or NULL. */
	char *origin[OPTS_MAX_KEYS];
};

/* --push: how the replay pump sends updates. */
enum push_mode {
	PUSH_REQUESTS, /* no continuous updates or fences: one per request */
	PUSH_RECORDED, /* continuous updates at the recording's pace */
	PUSH_FAST,     /* continuous updates as fast as the link takes them */
};

void opts_defaults(struct options *o);
void opts_free(struct options *o);

/* Parse argv. Returns 0 to go on, 1 when done (help/version printed), or
 * -EINVAL after printing a one-line usage error. */
int opts_parse(struct options *o, int argc, char **argv);
/* After the config files: what the command needs (a server to view, none
 * for --demo and probe). 0, or -EINVAL after a one-line usage error. */
int opts_finish(struct options *o);

/* Set one option by its config-file key ("cpu", "output", ...). from_cli
 * marks it as given on the command line; a later config value for it is
 * then ignored. Returns 0, -ENOENT for an unknown key, -EINVAL for a bad
 * value (with *why describing it). */
int opts_set(struct options *o, const char *key, const char *value,
	     bool from_cli, const char **why);

/* Whether key was set on the command line (a config value is ignored). */
bool opts_from_cli(const struct options *o, const char *key);

/* Where a config file set key: conffile.c records "FILE:LINE" after a
 * value took effect; opts_origin returns it, or NULL when the value is the
 * command line's or the default. Messages about a value found bad only
 * later (a missing device, an unknown user) start with it. */
int opts_set_origin(struct options *o, const char *key, const char *where);
const char *opts_origin(const struct options *o, const char *key);

/* The server forms of vncviewer: "host" (display 0), "host:N" (display N,
 * port 5900 + N; N of 100 or more is the port itself), "host::port", and
 * the same with "[v6]" for host; no host means localhost (":1"). 0 or
 * -EINVAL. *host is malloc'd. */
int opts_parse_target(const char *s, char **host, int *port);

void opts_usage(void);

#endif
