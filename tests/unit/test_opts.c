/* Unit test: server address parsing (HOST[:DISPLAY], HOST::PORT,
 * [IPV6]:DISPLAY, [IPV6]::PORT) and the vncviewer option spellings. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "opts.h"

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
	CHECK(target_is("host:59635", "host", 65535));
	CHECK(target_is("127.0.0.1:7", "127.0.0.1", 5907));
	CHECK(target_is("vnc.example.org::443", "vnc.example.org", 443));
	CHECK(target_is("[::1]", "::1", 5900));
	CHECK(target_is("[::1]:2", "::1", 5902));
	CHECK(target_is("[::1]::5901", "::1", 5901));
	CHECK(target_is("[fe80::1%eth0]:1", "fe80::1%eth0", 5901));
	CHECK(target_is("[2001:db8::7]::5999", "2001:db8::7", 5999));

	CHECK(target_bad(""));
	CHECK(target_bad(NULL));
	CHECK(target_bad(":1"));
	CHECK(target_bad("::5900"));
	CHECK(target_bad("host:"));
	CHECK(target_bad("host::"));
	CHECK(target_bad("host:abc"));
	CHECK(target_bad("host:1x"));
	CHECK(target_bad("host:-1"));
	CHECK(target_bad("host:59636"));
	CHECK(target_bad("host::0"));
	CHECK(target_bad("host::65536"));
	CHECK(target_bad("host::99999999999999999999"));
	CHECK(target_bad("host:::1"));
	CHECK(target_bad("[::1"));
	CHECK(target_bad("[]:1"));
	CHECK(target_bad("[::1]x"));
	CHECK(target_bad("[::1]:"));
	CHECK(target_bad("[::1]:abc"));
	/* A bare IPv6 address is ambiguous: brackets are required. */
	CHECK(target_bad("::1"));
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
	const char **argvs[] = {modern, habit};
	size_t i;

	for (i = 0; i < 2; i++) {
		CHECK_EQ(parse(&o, 11, argvs[i]), 0);
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

int main(void)
{
	test_targets();
	test_spellings();
	test_bench_files();
	return check_done("opts");
}
