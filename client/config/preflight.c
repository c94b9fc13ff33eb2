/* The checks before a run (preflight.h). */
#include "config.h"

#include <errno.h>
#include <libgen.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "platform/input.h"
#include "util/log.h"
#include "output/output.h"
#include "net/passwd.h"
#include "platform/platform.h"
#include "config/preflight.h"
#include "placement/probe.h"

#define PEM_CERT "-----BEGIN CERTIFICATE-----"

static int check_cpu(const struct options *o)
{
	char on[128];

	if (o->cpu < 0 || platform_cpu_online(o->cpu))
		return 0;
	probe_online_list(on, sizeof(on));
	log_error("core %d for the blit thread is offline or not allowed "
		  "(online cores: %s)",
		  o->cpu, on);
	return -EINVAL;
}

/* Read now, as TLS would read it later: a file without a certificate is
 * refused there with a less helpful message. */
static int check_ca(const char *path)
{
	char line[256];
	bool cert = false;
	FILE *f = fopen(path, "r");

	if (!f) {
		log_error("CA file %s: %s", path, strerror(errno));
		return -errno;
	}
	while (!cert && fgets(line, sizeof(line), f))
		cert = strncmp(line, PEM_CERT, strlen(PEM_CERT)) == 0;
	fclose(f);
	if (!cert) {
		log_error("CA file %s holds no PEM certificate (" PEM_CERT
			  " ...)",
			  path);
		return -EINVAL;
	}
	return 0;
}

/* Found now rather than when the first screenshot is due (SIGUSR1, or at
 * exit, when nothing can be done about it). */
static int check_screenshot(const char *path)
{
	char *copy = strdup(path), *dir;
	struct stat st;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	dir = dirname(copy);
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		log_error("screenshot %s is a directory", path);
		ret = -EISDIR;
	} else if (access(dir, W_OK | X_OK) < 0) {
		ret = -errno;
		log_error("cannot write screenshot %s: %s: %s", path, dir,
			  strerror(errno));
	} else if (access(path, F_OK) == 0 && access(path, W_OK) < 0) {
		ret = -errno;
		log_error("cannot write screenshot %s: %s", path,
			  strerror(errno));
	}
	free(copy);
	return ret;
}

static int check_user(const char *name)
{
	errno = 0;
	if (getpwnam(name))
		return 0;
	if (errno)
		log_error("--user %s: %s", name, strerror(errno));
	else
		log_error("no user '%s' on this system (--user)", name);
	return -ENOENT;
}

/* The status of the worst problem so far: 1 for a device that may yet
 * appear, 2 for everything else. */
static void worst(int *status, int ret, int severity)
{
	if (ret < 0 && severity > *status)
		*status = severity;
}

/* Each check runs under the FILE:LINE of the value it checks. */
int preflight_check(const struct options *o)
{
	bool session = o->mode == MODE_VIEW || o->mode == MODE_DEMO;
	bool input = session && !o->view_only && platform_input &&
		     platform_input->check;
	int status = 0;

	if (session) {
		log_set_context(opts_origin(o, "cpu"));
		worst(&status, check_cpu(o), 2);
	}
	if (o->passwd_file &&
	    (o->mode == MODE_VIEW || o->mode == MODE_BENCH)) {
		log_set_context(opts_origin(o, "passwd"));
		worst(&status, passwd_check_file(o->passwd_file), 2);
	}
	if (o->password_file &&
	    (o->mode == MODE_VIEW || o->mode == MODE_BENCH)) {
		log_set_context(opts_origin(o, "password-file"));
		worst(&status, passwd_check_plain(o->password_file), 2);
	}
	if (o->ca_file && o->mode == MODE_VIEW) {
		log_set_context(opts_origin(o, "ca"));
		worst(&status, check_ca(o->ca_file), 2);
	}
	if (o->screenshot && session) {
		log_set_context(opts_origin(o, "screenshot"));
		worst(&status, check_screenshot(o->screenshot), 2);
	}
	if (o->user && session) {
		log_set_context(opts_origin(o, "user"));
		worst(&status, check_user(o->user), 2);
	}
	if (input && o->keymap) {
		struct input_config icfg = { NULL, o->keymap, false };

		log_set_context(opts_origin(o, "keymap"));
		worst(&status, platform_input->check(&icfg), 2);
	}
	if (input && o->input) {
		struct input_config icfg = { o->input, NULL, false };

		log_set_context(opts_origin(o, "input"));
		worst(&status, platform_input->check(&icfg), 1);
	}
	if (o->output) {
		log_set_context(opts_origin(o, "output"));
		worst(&status, output_check_device(o->output), 1);
	}
	log_set_context(NULL);
	return status;
}
