/* Config files: syntax, every documented key, and precedence (command
 * line over user file over system file), through conffile_load(). */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/conffile.h"
#include "util/log.h"
#include "config/opts.h"
#include "../check.h"

static char dir[64];

static void put(const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
		perror(path);
		exit(1);
	}
}

static void rm(const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	unlink(path);
}

/* Parse a command line (NULL-terminated, after "vncfb"), then load the
 * config files. Returns conffile_load's result. */
static int load(struct options *o, ...)
{
	char *argv[16];
	int argc = 0, ret;
	va_list ap;

	argv[argc++] = "vncfb";
	va_start(ap, o);
	while (argc < 15 && (argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	argv[argc] = NULL;
	opts_defaults(o);
	ret = opts_parse(o, argc, argv);
	if (ret != 0) {
		fprintf(stderr, "opts_parse failed\n");
		exit(1);
	}
	return conffile_load(o, NULL);
}

int main(void)
{
	struct options o;
	char path[256], sys[256], xdg[256];

	log_set_level(LOG_ERROR);
	snprintf(dir, sizeof(dir), "/tmp/vncfb-conffile-XXXXXX");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(sys, sizeof(sys), "%s/system.conf", dir);
	snprintf(xdg, sizeof(xdg), "%s/xdg", dir);
	snprintf(path, sizeof(path), "%s/xdg/vncfb", dir);
	mkdir(xdg, 0700);
	mkdir(path, 0700);
	setenv("VNCFB_SYSTEM_CONFIG", sys, 1);
	setenv("XDG_CONFIG_HOME", xdg, 1);
	setenv("HOME", dir, 1);

	/* No files at all: defaults. */
	CHECK(load(&o, "h", NULL) == 0, "no files");
	CHECK(o.cpu == CPU_AUTO && o.quality == -1, "defaults changed");
	opts_free(&o);

	/* Every documented key, comments, quotes, CRLF, blank lines. */
	put("xdg/vncfb/config",
	    "# vncfb settings\n"
	    "\n"
	    "   cpu = 1\n"
	    "output=mem:640x480:rgb565\r\n"
	    "encodings = \"tight zrle\"  # a comment\n"
	    "quality = 7 # lossy allowed\n"
	    "compress\t=\t3\n"
	    "view-only = yes\n"
	    "passwd = \"/etc/vncfb #1.passwd\"\n"
	    "keymap = de:nodeadkeys\n"
	    "input = /dev/input/event3#x\n");
	CHECK(load(&o, "h", NULL) == 0, "full user file");
	CHECK(o.cpu == 1, "cpu %d", o.cpu);
	CHECK(o.output && !strcmp(o.output, "mem:640x480:rgb565"),
	      "output '%s'", o.output ? o.output : "(null)");
	CHECK(o.encodings && !strcmp(o.encodings, "tight zrle"),
	      "encodings '%s'", o.encodings ? o.encodings : "(null)");
	CHECK(o.quality == 7 && o.compress == 3 && o.view_only,
	      "quality %d compress %d view-only %d", o.quality, o.compress,
	      o.view_only);
	CHECK(o.passwd_file && !strcmp(o.passwd_file, "/etc/vncfb #1.passwd"),
	      "passwd '%s'", o.passwd_file ? o.passwd_file : "(null)");
	CHECK(o.keymap && !strcmp(o.keymap, "de:nodeadkeys"), "keymap");
	/* '#' inside a word is not a comment. */
	CHECK(o.input && !strcmp(o.input, "/dev/input/event3#x"), "input '%s'",
	      o.input ? o.input : "(null)");
	opts_free(&o);

	/* Precedence: user file over system file, command line over both. */
	put("system.conf", "cpu = 0\nquality = 5\ncompress = 1\n");
	put("xdg/vncfb/config", "cpu = 1\ncompress = 2\n");
	CHECK(load(&o, "h", NULL) == 0, "two files");
	CHECK(o.cpu == 1, "user file must beat system file: cpu %d", o.cpu);
	CHECK(o.quality == 5, "system-only key lost: quality %d", o.quality);
	CHECK(o.compress == 2, "compress %d", o.compress);
	opts_free(&o);
	CHECK(load(&o, "--cpu", "0", "--compress=9", "h", NULL) == 0, "cli");
	CHECK(o.cpu == 0 && o.compress == 9 && o.quality == 5,
	      "command line must win: cpu %d compress %d quality %d", o.cpu,
	      o.compress, o.quality);
	opts_free(&o);
	CHECK(load(&o, "--cpu", "auto", "h", NULL) == 0, "cli auto");
	CHECK(o.cpu == CPU_AUTO, "--cpu auto must beat the files: %d", o.cpu);
	opts_free(&o);

	/* --config FILE replaces the user file, not the system file. */
	put("other.conf", "encodings = raw\n");
	snprintf(path, sizeof(path), "%s/other.conf", dir);
	CHECK(load(&o, "--config", path, "h", NULL) == 0, "--config");
	CHECK(o.cpu == 0 && o.encodings && !strcmp(o.encodings, "raw"),
	      "--config: cpu %d (system file's 0 expected)", o.cpu);
	opts_free(&o);

	/* A missing --config FILE is an error; a missing default is not. */
	snprintf(path, sizeof(path), "%s/missing.conf", dir);
	CHECK(load(&o, "--config", path, "h", NULL) == -EINVAL,
	      "missing --config accepted");
	opts_free(&o);
	rm("xdg/vncfb/config");
	rm("system.conf");
	CHECK(load(&o, "h", NULL) == 0, "missing defaults");
	opts_free(&o);

	/* A relative XDG_CONFIG_HOME is ignored: ~/.config is used. */
	setenv("XDG_CONFIG_HOME", "relative", 1);
	snprintf(path, sizeof(path), "%s/.config", dir);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/.config/vncfb", dir);
	mkdir(path, 0700);
	put(".config/vncfb/config", "quality = 2\n");
	CHECK(load(&o, "h", NULL) == 0 && o.quality == 2,
	      "~/.config not used: quality %d", o.quality);
	opts_free(&o);
	rm(".config/vncfb/config");
	setenv("XDG_CONFIG_HOME", xdg, 1);

	/* Bad lines, each on its own. */
	{
		static const char *const bad[] = {
			"cpu = fast\n",	     "quality = 10\n",
			"colour = blue\n",   "just words\n",
			"= 3\n",	     "view-only = maybe\n",
			"output = vga:1\n",  "encodings = tight png\n",
			"keymap = \"us\n",  "compress =\n",
			"cpu = \"1\" x\n",   "two words = 1\n",
		};
		size_t i;

		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			put("xdg/vncfb/config", bad[i]);
			CHECK(load(&o, "h", NULL) == -EINVAL,
			      "bad line accepted: %s", bad[i]);
			opts_free(&o);
		}
		/* Bad even where the command line overrides the key. */
		put("xdg/vncfb/config", "cpu = fast\n");
		CHECK(load(&o, "--cpu", "1", "h", NULL) == -EINVAL,
		      "overridden bad value accepted");
		opts_free(&o);
		/* A bad system file is as bad as a bad user file. */
		rm("xdg/vncfb/config");
		put("system.conf", "quality = high\n");
		CHECK(load(&o, "h", NULL) == -EINVAL, "bad system file");
		opts_free(&o);
		rm("system.conf");
	}

	rmdir(path);
	snprintf(path, sizeof(path), "%s/.config", dir);
	rmdir(path);
	rm("other.conf");
	snprintf(path, sizeof(path), "%s/xdg/vncfb", dir);
	rmdir(path);
	rmdir(xdg);
	rmdir(dir);
	if (failures)
		fprintf(stderr, "%d check(s) failed\n", failures);
	return failures ? 1 : 0;
}
