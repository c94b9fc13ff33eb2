/* Unit test: server address parsing (HOST[:DISPLAY], HOST::PORT,
 * [IPV6]:DISPLAY, [IPV6]::PORT, vncviewer's display rules), the option
 * spellings, TigerVNC's parameters, the reconnect values, options of
 * another command, ~ in file names. */
#include "config.h"

#include <errno.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../check.h"
#include "config/opts.h"
#include "platform/input.h"
#include "config/opts_priv.h"
#include "net/vnc_enc.h"

static int target_is(const char *s, const char *host, int port)
{
	char *h = NULL;
	int p = -1, ok;

	if (opts_parse_target(s, &h, &p) != 0) {
		fprintf(stderr, "'%s' refused\n", s);
		return 0;
	}
	ok = h && strcmp(h, host) == 0 && p == port;
	if (!ok)
		fprintf(stderr, "'%s' -> '%s' %d\n", s, h ? h : "(null)", p);
	free(h);
	return ok;
}

static int target_bad(const char *s)
{
	char *h = NULL;
	int p = -1;

	if (opts_parse_target(s, &h, &p) == 0) {
		fprintf(stderr, "'%s' accepted as '%s' %d\n", s, h, p);
		free(h);
		return 0;
	}
	return 1;
}

static void test_targets(void)
{
	CHECK(target_is("host", "host", 5900));
	CHECK(target_is("host:0", "host", 5900));
	CHECK(target_is("host:1", "host", 5901));
	CHECK(target_is("host::5999", "host", 5999));
	CHECK(target_is("host::1", "host", 1));
	CHECK(target_is("host::65535", "host", 65535));
	/* vncviewer: a display of 100 or more is the port itself. */
	CHECK(target_is("host:99", "host", 5999));
	CHECK(target_is("host:100", "host", 100));
	CHECK(target_is("localhost:5905", "localhost", 5905));
	CHECK(target_is("host:65535", "host", 65535));
	CHECK(target_is("[::1]:5901", "::1", 5901));
	/* No host: this machine. */
	CHECK(target_is(":5", "localhost", 5905));
	CHECK(target_is(":0", "localhost", 5900));
	CHECK(target_is("::5901", "localhost", 5901));
	CHECK(target_is("::1", "localhost", 1));
	CHECK(target_is("127.0.0.1:7", "127.0.0.1", 5907));
	CHECK(target_is("vnc.example.org::443", "vnc.example.org", 443));
	CHECK(target_is("[::1]", "::1", 5900));
	CHECK(target_is("[::1]:2", "::1", 5902));
	CHECK(target_is("[::1]::5901", "::1", 5901));
	CHECK(target_is("[fe80::1%eth0]:1", "fe80::1%eth0", 5901));
	CHECK(target_is("[2001:db8::7]::5999", "2001:db8::7", 5999));

	CHECK(target_bad(""));
	CHECK(target_bad(NULL));
	CHECK(target_bad(":"));
	CHECK(target_bad("::"));
	CHECK(target_bad(":x"));
	CHECK(target_bad("host:"));
	CHECK(target_bad("host::"));
	CHECK(target_bad("host:abc"));
	CHECK(target_bad("host:1x"));
	CHECK(target_bad("host:-1"));
	CHECK(target_bad("host:65536"));
	CHECK(target_bad("host::0"));
	CHECK(target_bad("host::65536"));
	CHECK(target_bad("host::99999999999999999999"));
	CHECK(target_bad("host:::1"));
	CHECK(target_bad("[::1"));
	CHECK(target_bad("[]:1"));
	CHECK(target_bad("[::1]x"));
	CHECK(target_bad("[::1]:"));
	CHECK(target_bad("[::1]:abc"));
	/* A bare IPv6 address is ambiguous: brackets are required ("::1" is
	 * vncviewer's localhost port 1, above) ... */
	CHECK(target_bad("::1:2"));
	/* ... while "name::port" is HOST::PORT, even when the name looks
	 * like the start of an address. */
	CHECK(target_is("fe80::1", "fe80", 1));
	CHECK(target_bad("2001:db8::7:1"));
}

static int parse(struct options *o, int argc, const char **argv)
{
	opts_defaults(o);
	return opts_parse(o, argc, (char **)argv);
}

static void test_spellings(void)
{
	struct options o;
	const char *modern[] = {"vncfb",       "--passwd",    "/p",
				"--view-only", "--encodings", "tight raw",
				"--quality",   "3",	      "--compress",
				"6",	       "h:3",	      NULL};
	const char *habit[] = {"vncfb",	    "-passwd",	  "/p",
			       "-viewonly", "-encodings", "tight raw",
			       "-quality",  "3",	  "-compresslevel",
			       "6",	    "h:3",	  NULL};
	/* TigerVNC's names, any case, both value forms, one or two dashes. */
	const char *tiger[] = {"vncfb",
			       "-PasswordFile=/p",
			       "--VIEWONLY",
			       "--encodings=tight raw",
			       "-QualityLevel",
			       "3",
			       "-compresslevel=6",
			       "h:3",
			       NULL};
	const char **argvs[] = {modern, habit, tiger};
	const int argcs[] = {11, 11, 8};
	size_t i;

	for (i = 0; i < 3; i++) {
		CHECK_EQ(parse(&o, argcs[i], argvs[i]), 0);
		CHECK(o.passwd_file && strcmp(o.passwd_file, "/p") == 0);
		CHECK(o.view_only);
		CHECK(o.encodings && strcmp(o.encodings, "tight raw") == 0);
		CHECK_EQ(o.quality, 3);
		CHECK_EQ(o.compress, 6);
		CHECK(o.host && strcmp(o.host, "h") == 0);
		CHECK_EQ(o.port, 5903);
		opts_free(&o);
	}
	{
		const char *argv[] = {
		    "vncfb", "-o", "mem:64x48:rgb565", "--exit-after", "0.5",
		    "h",     NULL};

		CHECK_EQ(parse(&o, 6, argv), 0);
		CHECK(o.output && strcmp(o.output, "mem:64x48:rgb565") == 0);
		CHECK(o.exit_after > 0.49 && o.exit_after < 0.51);
		CHECK_EQ(o.quality, -1);
		opts_free(&o);
	}
	{
		/* A password on the command line is not an option. */
		const char *argv[] = {"vncfb", "--password", "x", "h", NULL};

		CHECK(parse(&o, 4, argv) < 0);
		opts_free(&o);
	}
	{
		const char *argv[] = {"vncfb", "--quality", "10", "h", NULL};

		CHECK(parse(&o, 4, argv) < 0);
		opts_free(&o);
	}
}

/* vncfb bench --record/--replay/--serve: what goes together. */
static void test_bench_files(void)
{
	static const char *ok[][8] = {
	    {"bench", "--record", "f", "--updates", "5", "h:1"},
	    {"bench", "--record=f", "--exit-after", "2", "h"},
	    {"bench", "--replay", "f", "--repeat", "4"},
	    {"bench", "--replay", "f", "--serve", "0"},
	    {"bench", "--replay", "f", "--serve", "0", "--exit-after", "3"},
	    {"bench", "--record", "f", "--insecure", "--ca", "/ca", "h"},
	};
	static const char *bad[][8] = {
	    {"--record", "f", "h"},	     /* not bench */
	    {"bench", "--record", "f"},	     /* no server */
	    {"bench", "--replay", "f", "h"}, /* a server */
	    {"bench", "--record", "f", "--replay", "g", "h"},
	    {"bench", "--serve", "5999"},     /* nothing to serve */
	    {"bench", "--updates", "3", "h"}, /* not recording */
	    {"bench", "--replay", "f", "--serve", "1", "--repeat", "2"},
	    {"bench", "--replay", "f", "--workload", "idle"},
	    {"bench", "--record", "f", "--updates", "0", "h"},
	    {"bench", "--replay", "f", "--serve", "65536"},
	    {"bench", "--replay", "f", "--repeat", "x"},
	    {"bench", "--record", "", "h"},
	    {"bench", "--replay"}, /* no value */
	    {"bench", "--exit-after", "2"}, /* a bench run has --duration */
	    {"bench", "--replay", "f", "--exit-after", "2"},
	    {"probe", "--replay", "f"},
	};
	struct options o;
	size_t i, n;
	FILE *saved = stderr;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		const char *argv[10] = {"vncfb"};

		for (n = 0; ok[i][n]; n++)
			argv[n + 1] = ok[i][n];
		CHECK_EQ(parse(&o, (int)n + 1, argv), 0);
		CHECK(o.record_file || o.replay_file);
		opts_free(&o);
	}
	CHECK_EQ(parse(&o, 5,
		       (const char *[]){"vncfb", "bench", "--record", "f",
					"h::5999", NULL}),
		 0);
	CHECK(o.record_file && !strcmp(o.record_file, "f") && o.port == 5999 &&
	      o.serve_port == -1 && o.updates == 0);
	opts_free(&o);
	/* The refusals print their line; keep them out of the log. */
	stderr = fopen("/dev/null", "w");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *argv[10] = {"vncfb"};
		int ret;

		for (n = 0; bad[i][n]; n++)
			argv[n + 1] = bad[i][n];
		ret = parse(&o, (int)n + 1, argv);
		if (ret >= 0)
			fprintf(saved, "case %zu accepted\n", i);
		CHECK(ret < 0);
		opts_free(&o);
	}
	fclose(stderr);
	stderr = saved;
}

static int parses(int argc, const char **argv)
{
	struct options o;
	int ret = parse(&o, argc, argv);

	opts_free(&o);
	return ret;
}

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])) - 1)

static void test_tiger(void)
{
	struct options o;

	{
		/* Bools alone are yes, =0 no; a bool takes no next argument. */
		const char *argv[] = {"vncfb", "-ViewOnly=0", "-Shared",
				      "-FullColor", "h", NULL};

		CHECK_EQ(parse(&o, N(argv), argv), 0);
		CHECK(!o.view_only);
		/* -FullColor: auto-select keeps full colour. */
		CHECK(o.full_colour);
		CHECK(o.target && !strcmp(o.target, "h"));
		opts_free(&o);
	}
	{
		/* Ignored ones take their value along, and go on. */
		const char *argv[] = {"vncfb",	  "-geometry", "800x600",
				      "-FullScreen", "-DesktopSize=1x1",
				      "h:1",	  NULL};

		CHECK_EQ(parse(&o, N(argv), argv), 0);
		CHECK(o.target && !strcmp(o.target, "h:1"));
		CHECK_EQ(o.port, 5901);
		opts_free(&o);
	}
	{
		/* FullScreenMode=All spans every monitor: drm:all. */
		const char *a1[] = {"vncfb", "-FullScreenMode=all", "h", NULL};
		const char *a2[] = {"vncfb", "-FullScreenAllMonitors", "h",
				    NULL};
		const char *a3[] = {"vncfb", "-FullScreenMode", "Current", "h",
				    NULL};
		const char *a4[] = {"vncfb", "-FullScreenMode=Some", "h",
				    NULL};

		CHECK_EQ(parse(&o, N(a1), a1), 0);
		CHECK(o.output_arg && !strcmp(o.output_arg, "drm:all"));
		opts_free(&o);
		CHECK_EQ(parse(&o, N(a2), a2), 0);
		CHECK(o.output_arg && !strcmp(o.output_arg, "drm:all"));
		opts_free(&o);
		CHECK_EQ(parse(&o, N(a3), a3), 0);
		CHECK(!o.output_arg);
		opts_free(&o);
		CHECK(parse(&o, N(a4), a4) < 0);
		opts_free(&o);
	}
	{
		/* RemoteResize is --remote-resize, on by default. */
		const char *a1[] = {"vncfb", "h", NULL};
		const char *a2[] = {"vncfb", "-RemoteResize=0", "h", NULL};
		const char *a3[] = {"vncfb", "--no-remote-resize",
				    "-RemoteResize", "h", NULL};
		const char *a4[] = {"vncfb", "--remote-resize=no", "h", NULL};
		const char *why;

		CHECK_EQ(parse(&o, N(a1), a1), 0);
		CHECK(o.remote_resize);
		opts_free(&o);
		CHECK_EQ(parse(&o, N(a2), a2), 0);
		CHECK(!o.remote_resize && opts_from_cli(&o, "remote-resize"));
		opts_free(&o);
		CHECK_EQ(parse(&o, N(a3), a3), 0);
		CHECK(o.remote_resize);
		opts_free(&o);
		CHECK_EQ(parse(&o, N(a4), a4), 0);
		CHECK(!o.remote_resize);
		CHECK(opts_set(&o, "remote-resize", "maybe", true, &why) ==
			  -EINVAL &&
		      why && !strcmp(why, "expected yes or no"));
		opts_free(&o);
	}
	{
		/* NoJPEG wins, before or after QualityLevel. */
		const char *a1[] = {"vncfb", "-NoJPEG", "-QualityLevel", "7",
				    "h", NULL};
		const char *a2[] = {"vncfb", "-QualityLevel=7", "-nojpeg", "h",
				    NULL};

		CHECK_EQ(parse(&o, N(a1), a1), 0);
		CHECK_EQ(o.quality, -1);
		opts_free(&o);
		CHECK_EQ(parse(&o, N(a2), a2), 0);
		CHECK_EQ(o.quality, -1);
		CHECK(opts_from_cli(&o, "quality"));
		opts_free(&o);
	}
	{
		const char *argv[] = {"vncfb", "-PreferredEncoding", "ZRLE",
				      "-X509CA", "/ca.pem", "h", NULL};

		CHECK_EQ(parse(&o, N(argv), argv), 0);
		CHECK(o.encodings && !strncmp(o.encodings, "zrle ", 5) &&
			      !strstr(o.encodings + 4, "zrle") &&
			      strstr(o.encodings, "tight"),
		      "encodings '%s'", o.encodings ? o.encodings : "");
		CHECK(o.ca_file && !strcmp(o.ca_file, "/ca.pem"));
		opts_free(&o);
	}
	{
		/* AutoSelect (the default) leaves the choice to the link;
		 * AutoSelect=0 fixes the default list, and yields to a
		 * PreferredEncoding given before it. */
		const char *a1[] = {"vncfb", "-AutoSelect", "h", NULL};
		const char *a0[] = {"vncfb", "-AutoSelect=0", "h", NULL};
		const char *ap[] = {"vncfb", "-PreferredEncoding=ZRLE",
				    "-AutoSelect=0", "h", NULL};

		CHECK_EQ(parse(&o, N(a1), a1), 0);
		CHECK(!opts_from_cli(&o, "encodings"));
		opts_free(&o);
		CHECK_EQ(parse(&o, N(a0), a0), 0);
		CHECK(opts_from_cli(&o, "encodings") && o.encodings &&
		      !strcmp(o.encodings, vnc_default_encodings()));
		opts_free(&o);
		CHECK_EQ(parse(&o, N(ap), ap), 0);
		CHECK(o.encodings && !strncmp(o.encodings, "zrle ", 5));
		opts_free(&o);
	}
	{
		const char *via[] = {"vncfb", "-via", "gw", "h", NULL};
		const char *sec[] = {"vncfb", "-SecurityTypes=None,Foo", "h",
				     NULL};
		const char *sec_ok[] = {"vncfb", "-SecurityTypes=X509Plain,None",
					"h", NULL};
		const char *h264[] = {"vncfb", "-PreferredEncoding=H.264", "h",
				      NULL};
		const char *bad[] = {"vncfb", "-ViewOnly=maybe", "h", NULL};
		const char *miss[] = {"vncfb", "h", "-QualityLevel", NULL};

		CHECK(parses(N(via), via) < 0);
		CHECK(parses(N(sec), sec) < 0);
		/* TigerVNC's SecurityTypes is --security. */
		CHECK_EQ(parse(&o, N(sec_ok), sec_ok), 0);
		CHECK(o.security && !strcmp(o.security, "X509Plain,None"),
		      "security '%s'", o.security ? o.security : "");
		opts_free(&o);
#ifdef VNCFB_HAVE_H264
		/* TigerVNC's H.264 is vncfb's h264, first. */
		CHECK_EQ(parse(&o, N(h264), h264), 0);
		CHECK(o.encodings && !strncmp(o.encodings, "h264 copyrect ", 14),
		      "encodings '%s'", o.encodings ? o.encodings : "");
		opts_free(&o);
#else
		CHECK(parses(N(h264), h264) < 0);
#endif
		CHECK(parses(N(bad), bad) < 0);
		CHECK(parses(N(miss), miss) < 0);
	}
	{
		/* ReconnectOnError=0 is --no-reconnect. */
		const char *argv[] = {"vncfb", "-ReconnectOnError=0", "h", NULL};

		CHECK_EQ(parse(&o, N(argv), argv), 0);
		CHECK_EQ(o.reconnect, RECONNECT_NO);
		opts_free(&o);
	}
}

/* A command line and what one field of the options should then be, -1
 * for a usage error. */
struct argv_case {
	const char *argv[4];
	int want;
};

/* Parse each case's command line: a usage error where want < 0, else
 * field(options) == want. */
static void check_cases(const char *what, const struct argv_case *cases,
			size_t n, int (*field)(const struct options *o))
{
	struct options o;
	size_t i;

	for (i = 0; i < n; i++) {
		int argc = 0, ret;

		while (argc < 4 && cases[i].argv[argc])
			argc++;
		ret = parse(&o, argc, (const char **)cases[i].argv);
		if (cases[i].want < 0)
			CHECK(ret < 0, "%s case %zu accepted", what, i);
		else
			CHECK(ret == 0 && field(&o) == cases[i].want,
			      "%s case %zu: ret %d, got %d, want %d", what, i,
			      ret, ret ? -1 : field(&o), cases[i].want);
		opts_free(&o);
	}
}

static int reconnect_of(const struct options *o)
{
	return (int)o->reconnect;
}

static void test_reconnect(void)
{
	/* want: enum reconnect_mode */
	static const struct argv_case cases[] = {
		{{"vncfb", "h", NULL}, RECONNECT_LOST},
		{{"vncfb", "--no-reconnect", "h"}, RECONNECT_NO},
		{{"vncfb", "--no-reconnect=yes", "h"}, RECONNECT_NO},
		{{"vncfb", "--no-reconnect=no", "h"}, RECONNECT_LOST},
		{{"vncfb", "--no-reconnect=always", "h"}, -1},
		{{"vncfb", "--reconnect", "h"}, RECONNECT_LOST},
		{{"vncfb", "--reconnect", "always", "h"}, RECONNECT_ALWAYS},
		{{"vncfb", "--reconnect=always", "h"}, RECONNECT_ALWAYS},
		{{"vncfb", "--reconnect=no", "h"}, RECONNECT_NO},
		{{"vncfb", "--reconnect=sometimes", "h"}, -1},
	};

	check_cases("reconnect", cases, sizeof(cases) / sizeof(cases[0]),
		    reconnect_of);
}

/* --touch and touch=: gestures (the default) or pointer; another word,
 * or --touch for probe, is a usage error. */
static int touch_of(const struct options *o)
{
	return o->touch;
}

static void test_touch(void)
{
	/* want: enum input_touch */
	static const struct argv_case cases[] = {
		{{"vncfb", "h", NULL}, INPUT_TOUCH_GESTURES},
		{{"vncfb", "--touch", "pointer", "h"}, INPUT_TOUCH_POINTER},
		{{"vncfb", "--touch=gestures", "h"}, INPUT_TOUCH_GESTURES},
		{{"vncfb", "--touch=Pointer", "h"}, INPUT_TOUCH_POINTER},
		{{"vncfb", "--touch=mouse", "h"}, -1},
		{{"vncfb", "--touch", "h"}, -1},
		{{"vncfb", "probe", "--touch=pointer"}, -1},
	};
	const char *why = NULL;
	struct options o;

	check_cases("touch", cases, sizeof(cases) / sizeof(cases[0]),
		    touch_of);
	opts_defaults(&o);
	CHECK_EQ(opts_set(&o, "touch", "pointer", false, &why), 0);
	CHECK_EQ(o.touch, INPUT_TOUCH_POINTER);
	CHECK_EQ(opts_set(&o, "touch", "", false, &why), -EINVAL);
	CHECK(why && !strcmp(why, "expected gestures or pointer"));
	opts_free(&o);
}

static void test_modes(void)
{
	struct options o;
	const char *p1[] = {"vncfb", "probe", "--encodings", "raw", NULL};
	const char *p2[] = {"vncfb", "probe", "--scale", "fit", NULL};
	const char *p3[] = {"vncfb", "probe", "h", NULL};
	const char *v1[] = {"vncfb", "--workload", "idle", "h", NULL};
	const char *v2[] = {"vncfb", "--csv", "x.csv", "h", NULL};
	const char *d1[] = {"vncfb", "--demo", "--passwd", "/p", NULL};
	const char *ok1[] = {"vncfb", "probe", "-o", "mem", "--cpu", "0",
			     "--samples", "3", NULL};
	const char *ok2[] = {"vncfb", "bench", "--encodings", "raw",
			     "--workload", "idle", NULL};

	CHECK(parses(N(p1), p1) < 0);
	CHECK(parses(N(p2), p2) < 0);
	CHECK(parses(N(p3), p3) < 0);
	CHECK(parses(N(v1), v1) < 0);
	CHECK(parses(N(v2), v2) < 0);
	CHECK(parses(N(d1), d1) < 0);
	CHECK_EQ(parses(N(ok1), ok1), 0);
	CHECK_EQ(parses(N(ok2), ok2), 0);
	{
		/* probe --json: to standard output, or to a file either way. */
		const char *j1[] = {"vncfb", "probe", "--json", NULL};
		const char *j2[] = {"vncfb", "probe", "--json=x.json", NULL};
		const char *j3[] = {"vncfb", "probe", "--json", "y.json", NULL};

		CHECK_EQ(parse(&o, N(j1), j1), 0);
		CHECK(o.json && !o.json_file);
		opts_free(&o);
		CHECK_EQ(parse(&o, N(j2), j2), 0);
		CHECK(o.json_file && !strcmp(o.json_file, "x.json"));
		opts_free(&o);
		CHECK_EQ(parse(&o, N(j3), j3), 0);
		CHECK(o.json_file && !strcmp(o.json_file, "y.json"));
		opts_free(&o);
	}
}

/* The server key, from a config file's side: the command line wins, and
 * only a session takes it. */
static void test_server_key(void)
{
	struct options o;
	const char *why = NULL;
	const char *view[] = {"vncfb", "--check-config", NULL};
	const char *cli[] = {"vncfb", "other:2", NULL};
	const char *demo[] = {"vncfb", "--demo", NULL};

	CHECK_EQ(parse(&o, N(view), view), 0);
	CHECK_EQ(opts_set(&o, "server", "kiosk:5905", false, &why), 0);
	CHECK(o.host && !strcmp(o.host, "kiosk") && o.port == 5905);
	CHECK_EQ(opts_set(&o, "server", "a:b", false, &why), -EINVAL);
	CHECK(why && strstr(why, "HOST[:DISPLAY]"));
	CHECK_EQ(opts_finish(&o), 0);
	opts_free(&o);

	CHECK_EQ(parse(&o, N(cli), cli), 0);
	CHECK_EQ(opts_set(&o, "server", "kiosk:1", false, &why), 0);
	CHECK(o.host && !strcmp(o.host, "other") && o.port == 5902);
	opts_free(&o);

	CHECK_EQ(parse(&o, N(demo), demo), 0);
	CHECK_EQ(opts_set(&o, "server", "kiosk:1", false, &why), 0);
	CHECK_EQ(opts_finish(&o), 0);
	CHECK(!o.host && !o.target, "--demo took the config's server");
	opts_free(&o);

	/* A session with no server anywhere is a usage error. */
	opts_defaults(&o);
	CHECK(opts_finish(&o) < 0);
	opts_free(&o);
}

/* --decode-threads and decode-threads =: auto, 1-16; the command line
 * beats the config file. */
static void test_decode_threads(void)
{
	struct options o;
	const char *why = NULL;
	const char *cli[] = {"vncfb", "--decode-threads", "3", "h", NULL};
	const char *bad[] = {"vncfb", "--decode-threads", "0", "h", NULL};
	const char *bench[] = {"vncfb", "bench", "--decode-threads=1", NULL};
	const char *probe[] = {"vncfb", "probe", "--decode-threads", "2",
			       NULL};

	opts_defaults(&o);
	CHECK_EQ(o.decode_threads, DECODE_THREADS_AUTO);
	CHECK_EQ(opts_set(&o, "decode-threads", "16", false, &why), 0);
	CHECK_EQ(o.decode_threads, 16);
	CHECK_EQ(opts_set(&o, "decode-threads", "auto", false, &why), 0);
	CHECK_EQ(o.decode_threads, DECODE_THREADS_AUTO);
	CHECK_EQ(opts_set(&o, "decode-threads", "17", false, &why), -EINVAL);
	CHECK(why && strstr(why, "1-16"));
	CHECK_EQ(opts_set(&o, "decode-threads", "2x", false, &why), -EINVAL);
	opts_free(&o);

	CHECK_EQ(parse(&o, N(cli), cli), 0);
	CHECK_EQ(o.decode_threads, 3);
	CHECK_EQ(opts_set(&o, "decode-threads", "1", false, &why), 0);
	CHECK_EQ(o.decode_threads, 3);
	opts_free(&o);
	CHECK(parse(&o, N(bad), bad) < 0);
	opts_free(&o);
	CHECK_EQ(parse(&o, N(bench), bench), 0);
	CHECK_EQ(o.decode_threads, 1);
	opts_free(&o);
	/* probe decodes nothing. */
	CHECK(parse(&o, N(probe), probe) < 0);
	opts_free(&o);
}

static void test_home(void)
{
	struct options o;
	const char *why = NULL;
	struct passwd *root = getpwuid(0);
	char want[512];

	setenv("HOME", "/home/kiosk", 1);
	opts_defaults(&o);
	CHECK_EQ(opts_set(&o, "passwd", "~/.vnc/passwd", true, &why), 0);
	CHECK(o.passwd_file && !strcmp(o.passwd_file, "/home/kiosk/.vnc/passwd"),
	      "~/ gave '%s'", o.passwd_file ? o.passwd_file : "");
	CHECK_EQ(opts_set(&o, "screenshot", "~/shot.png", true, &why), 0);
	CHECK(o.screenshot && !strcmp(o.screenshot, "/home/kiosk/shot.png"));
	if (root) {
		snprintf(want, sizeof(want), "%s/x", root->pw_dir);
		CHECK_EQ(opts_set(&o, "ca", "~root/x", true, &why), 0);
		CHECK(o.ca_file && !strcmp(o.ca_file, want));
	}
	CHECK_EQ(opts_set(&o, "passwd", "~no-such-user-vncfb/p", true, &why),
		 -EINVAL);
	CHECK(why && strstr(why, "no such user"));
	/* A ~ inside the name is a name. */
	CHECK_EQ(opts_set(&o, "passwd", "/a/~b", true, &why), 0);
	CHECK(!strcmp(o.passwd_file, "/a/~b"));
	/* Screenshots are PPM or PNG, by name. */
	CHECK_EQ(opts_set(&o, "screenshot", "x.jpg", true, &why), -EINVAL);
	CHECK_EQ(opts_set(&o, "screenshot", "x.PNG", true, &why), 0);
	CHECK_EQ(opts_set(&o, "screenshot", "dir.png/x", true, &why), -EINVAL);
	opts_free(&o);
}

/* --connector A,B and --layout: several heads of the drm output. */
/* Each number's range: both ends taken, one past either refused, with
 * the range in the reason. */
static void test_ranges(void)
{
	static const struct {
		const char *key, *lo, *hi, *below, *above, *why;
	} r[] = {
	    {"quality", "0", "9", "-1", "10", "0-9"},
	    {"compress", "0", "9", "-1", "10", "0-9"},
	    {"samples", "1", "1000", "0", "1001", "1-1000"},
	    {"timeout", "1", "3600", "0", "3601", "1-3600"},
	    {"decode-threads", "1", "16", "0", "17", "1-16"},
	    {"cpu", "0", "4095", "-1", "4096", "a core number"},
	};
	struct options o;

	for (size_t i = 0; i < sizeof(r) / sizeof(r[0]); i++) {
		const char *why = NULL;

		opts_defaults(&o);
		CHECK(opts_set(&o, r[i].key, r[i].lo, false, &why) == 0,
		      "%s = %s refused", r[i].key, r[i].lo);
		CHECK(opts_set(&o, r[i].key, r[i].hi, false, &why) == 0,
		      "%s = %s refused", r[i].key, r[i].hi);
		why = NULL;
		CHECK(opts_set(&o, r[i].key, r[i].below, false, &why) ==
			      -EINVAL &&
			  why && strstr(why, r[i].why),
		      "%s = %s taken", r[i].key, r[i].below);
		why = NULL;
		CHECK(opts_set(&o, r[i].key, r[i].above, false, &why) ==
			      -EINVAL &&
			  why && strstr(why, r[i].why),
		      "%s = %s taken", r[i].key, r[i].above);
		opts_free(&o);
	}
}

/* A boolean key's words, each in any case, and what is neither. */
static void test_bools(void)
{
	static const char *const yes[] = {"1", "yes", "true", "on", "YES",
					  "True", "ON"};
	static const char *const no[] = {"0", "no", "false", "off", "NO",
					 "False", "OFF"};
	static const char *const neither[] = {"", "2", "of", "onn", "y",
					      "nope", "-1"};

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		bool b = false;

		CHECK(opts_parse_bool(yes[i], &b) == 0 && b, "%s", yes[i]);
	}
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
		bool b = true;

		CHECK(opts_parse_bool(no[i], &b) == 0 && !b, "%s", no[i]);
	}
	for (size_t i = 0; i < sizeof(neither) / sizeof(neither[0]); i++) {
		bool b = false;

		CHECK(opts_parse_bool(neither[i], &b) == -EINVAL,
		      "\"%s\" taken", neither[i]);
	}
}

static void test_heads(void)
{
	struct options o;
	FILE *saved = stderr;

	{
		const char *argv[] = {"vncfb",
				      "--connector",
				      "Virtual-1,Virtual-2",
				      "--layout",
				      "Virtual-1:0,0 Virtual-2:1024,0",
				      "h",
				      NULL};

		CHECK_EQ(parse(&o, N(argv), argv), 0);
		CHECK(o.output && !strcmp(o.output,
					  "drm:connector=Virtual-1+Virtual-2"),
		      "got %s", o.output ? o.output : "(null)");
		CHECK(o.layout &&
		      !strcmp(o.layout, "Virtual-1:0,0 Virtual-2:1024,0"));
		opts_free(&o);
	}
	{
		const char *argv[] = {"vncfb", "-o", "drm:all", "h", NULL};

		CHECK_EQ(parse(&o, N(argv), argv), 0);
		CHECK(o.output && !strcmp(o.output, "drm:all"));
		opts_free(&o);
	}
	stderr = fopen("/dev/null", "w");
	{
		/* A connector twice, a layout that is not NAME:X,Y. */
		const char *twice[] = {"vncfb", "--connector", "A,a", "h",
				       NULL};
		const char *bad[] = {"vncfb", "--layout", "A:0,0 B", "h", NULL};
		const char *both[] = {"vncfb", "-o", "drm:all", "--connector",
				      "A",     "h",  NULL};

		CHECK(parses(N(twice), twice) < 0);
		CHECK(parses(N(bad), bad) < 0);
		CHECK(parses(N(both), both) < 0);
	}
	fclose(stderr);
	stderr = saved;
}

int main(void)
{
	test_targets();
	test_spellings();
	test_bench_files();
	test_tiger();
	test_reconnect();
	test_touch();
	test_modes();
	test_server_key();
	test_decode_threads();
	test_home();
	test_heads();
	test_bools();
	test_ranges();
	return check_done("opts");
}
