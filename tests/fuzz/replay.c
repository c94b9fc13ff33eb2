/* Replay driver: runs fuzz inputs (files or directories) through the
 * harness once each (--handshake: the handshake target's), prints what vncfb did with them and, with --expect,
 * checks it against the expectations file. Built with ASan/UBSan where the
 * compiler has them, so a memory error fails the test. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "util/log.h"

static int failures;
static int cases;
static int (*run_case)(const uint8_t *, size_t, struct fuzz_result *) =
	fuzz_run;
static char *expect_text;

static int read_file(const char *path, uint8_t **data, size_t *size)
{
	FILE *f = fopen(path, "rb");
	long n;

	if (!f) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	*data = malloc(n > 0 ? (size_t)n : 1);
	if (!*data || fread(*data, 1, (size_t)n, f) != (size_t)n) {
		fprintf(stderr, "replay: cannot read %s\n", path);
		fclose(f);
		free(*data);
		return -1;
	}
	fclose(f);
	*size = (size_t)n;
	return 0;
}

/* The expectation line for base name, or NULL. Format per line:
 * NAME key=value ... (keys: error, connected, updates>=, cursors>=, size;
 * last, why=TEXT: the rest of the line must be in what vncfb logged). */
static const char *find_expect(const char *name)
{
	const char *p = expect_text;
	size_t n = strlen(name);

	while (p && *p) {
		if (!strncmp(p, name, n) && (p[n] == ' ' || p[n] == '\t'))
			return p + n;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return NULL;
}

static void check(const char *name, const struct fuzz_result *r,
		  const char *logged)
{
	const char *e = find_expect(name);
	char key[32], val[64];
	int used;

	if (!e) {
		if (expect_text) {
			fprintf(stderr, "FAIL %s: no expectation line\n",
				name);
			failures++;
		}
		return;
	}
	while (*e && *e != '\n') {
		used = 0;
		if (sscanf(e, " why=%n", &used) == 0 && used > 0) {
			const char *end = strchr(e + used, '\n');
			size_t n = end ? (size_t)(end - e - used)
				       : strlen(e + used);

			if (!memmem(logged, strlen(logged), e + used, n)) {
				fprintf(stderr,
					"FAIL %s: expected the reason \"%.*s\" "
					"in: %s",
					name, (int)n, e + used, logged);
				failures++;
			}
			break;
		}
		used = 0;
		if (sscanf(e, " %31[a-z>]=%63s%n", key, val, &used) != 2)
			break;
		e += used;
		if (!strcmp(key, "error")) {
			if (strcmp(val, fuzz_error_name(r->error)))
				goto bad;
		} else if (!strcmp(key, "connected")) {
			if (atoi(val) != r->connected)
				goto bad;
		} else if (!strcmp(key, "updates>")) {
			if (r->updates < strtoul(val, NULL, 10))
				goto bad;
		} else if (!strcmp(key, "cursors>")) {
			if (r->cursors < strtoul(val, NULL, 10))
				goto bad;
		} else if (!strcmp(key, "size")) {
			char got[32];

			snprintf(got, sizeof(got), "%ux%u", r->width,
				 r->height);
			if (strcmp(val, got))
				goto bad;
		} else {
			fprintf(stderr, "replay: unknown key %s for %s\n", key,
				name);
			failures++;
			return;
		}
		continue;
bad:
		fprintf(stderr, "FAIL %s: expected %s=%s\n", name, key, val);
		failures++;
	}
}

/* Run one input with vncfb's errors going to a file: the one line that
 * says why the session ended is part of what is checked. */
static int run_logged(const uint8_t *data, size_t size, struct fuzz_result *r,
		      char *logged, size_t len)
{
	FILE *tmp = tmpfile();
	int saved, ret;
	size_t n;

	logged[0] = '\0';
	if (!tmp)
		return run_case(data, size, r);
	fflush(stderr);
	saved = dup(2);
	dup2(fileno(tmp), 2);
	ret = run_case(data, size, r);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	n = fread(logged, 1, len - 1, tmp);
	logged[n] = '\0';
	fclose(tmp);
	if (getenv("VNCFB_FUZZ_VERBOSE"))
		fputs(logged, stderr);
	return ret;
}

static void run_one(const char *path)
{
	struct fuzz_result r;
	const char *name = strrchr(path, '/');
	static char logged[8192];
	uint8_t *data;
	size_t size;

	name = name ? name + 1 : path;
	if (read_file(path, &data, &size) < 0) {
		failures++;
		return;
	}
	if (run_logged(data, size, &r, logged, sizeof(logged)) < 0) {
		fprintf(stderr, "replay: harness setup failed for %s\n", path);
		failures++;
	}
	free(data);
	cases++;
	printf("%-28s connected=%d error=%s updates=%lu rects=%lu "
	       "cursors=%lu size=%ux%u\n",
	       name, r.connected, fuzz_error_name(r.error), r.updates,
	       r.damage, r.cursors, r.width, r.height);
	check(name, &r, logged);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void run_path(const char *path)
{
	struct stat st;
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, i;
	DIR *d;

	if (stat(path, &st) < 0) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		failures++;
		return;
	}
	if (!S_ISDIR(st.st_mode)) {
		run_one(path);
		return;
	}
	d = opendir(path);
	if (!d) {
		failures++;
		return;
	}
	while ((de = readdir(d))) {
		char *full;

		if (de->d_name[0] == '.' || !strcmp(de->d_name, "EXPECT") ||
		    strstr(de->d_name, ".md"))
			continue;
		if (asprintf(&full, "%s/%s", path, de->d_name) < 0)
			break;
		names = realloc(names, (n + 1) * sizeof(*names));
		names[n++] = full;
	}
	closedir(d);
	qsort(names, n, sizeof(*names), by_name);
	for (i = 0; i < n; i++) {
		run_one(names[i]);
		free(names[i]);
	}
	free(names);
}

int main(int argc, char **argv)
{
	int i = 1;

	setvbuf(stdout, NULL, _IOLBF, 0);
	/* Errors only, captured per case (run_logged); -v's debug lines
	 * with VNCFB_FUZZ_VERBOSE. */
	log_set_level(getenv("VNCFB_FUZZ_VERBOSE") ? LOG_DEBUG : LOG_ERROR);
	if (argc > i && !strcmp(argv[i], "--handshake")) {
		run_case = fuzz_handshake;
		i++;
	}
	if (argc > i + 1 && !strcmp(argv[i], "--expect")) {
		uint8_t *t;
		size_t n;

		if (read_file(argv[i + 1], &t, &n) < 0)
			return 1;
		expect_text = realloc(t, n + 1);
		expect_text[n] = '\0';
		i += 2;
	}
	if (i >= argc) {
		fprintf(stderr, "usage: replay [--handshake] [--expect FILE] "
				"PATH...\n");
		return 2;
	}
	for (; i < argc; i++)
		run_path(argv[i]);
	printf("%d cases, %d failures\n", cases, failures);
	free(expect_text);
	return failures ? 1 : 0;
}
