/* Config files (conffile.h): parse `key = value` lines and feed them to
 * opts_set(). */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/conffile.h"
#include "util/log.h"
#include "config/opts.h"

/* Longer lines are surely not a config file. */
#define LINE_MAX_LEN 4096

struct setting {
	char *key, *value;
	int file;		/* index into paths[] */
	int line;
};

struct loader {
	struct options *o;
	const char *paths[2];
	struct setting *set;
	int n, cap;
	int errors;
};

/* The system file: $VNCFB_SYSTEM_CONFIG when set (tests, packaging
 * checks), else VNCFB_SYSCONFDIR/vncfb.conf. */
static const char *conffile_system_path(void)
{
	const char *env = getenv("VNCFB_SYSTEM_CONFIG");

	if (env && *env)
		return env;
	return VNCFB_SYSCONFDIR "/vncfb.conf";
}

/* The user file: o->config (--config FILE) when given, else
 * $XDG_CONFIG_HOME/vncfb/config, else $HOME/.config/vncfb/config. NULL
 * when there is no home to look in. malloc'd. */
static char *conffile_user_path(const struct options *o)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	char *p;

	if (o->config)
		return strdup(o->config);
	/* The XDG spec says to ignore a relative XDG_CONFIG_HOME. */
	if (xdg && xdg[0] == '/') {
		if (asprintf(&p, "%s/vncfb/config", xdg) < 0)
			return NULL;
		return p;
	}
	if (!home || !*home)
		return NULL;
	if (asprintf(&p, "%s/.config/vncfb/config", home) < 0)
		return NULL;
	return p;
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' ||
			 e[-1] == '\r'))
		*--e = '\0';
	return s;
}

static int remember(struct loader *l, const char *key, const char *value,
		    int file, int line)
{
	struct setting *s;

	if (l->n == l->cap) {
		int cap = l->cap ? l->cap * 2 : 16;

		s = realloc(l->set, (size_t)cap * sizeof(*s));
		if (!s)
			return -ENOMEM;
		l->set = s;
		l->cap = cap;
	}
	s = &l->set[l->n];
	s->key = strdup(key);
	s->value = strdup(value);
	if (!s->key || !s->value) {
		free(s->key);
		free(s->value);
		return -ENOMEM;
	}
	s->file = file;
	s->line = line;
	l->n++;
	return 0;
}

static void bad_line(struct loader *l, int file, int line, const char *fmt,
		     ...) __attribute__((format(printf, 4, 5)));

static void bad_line(struct loader *l, int file, int line, const char *fmt,
		     ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_error("%s:%d: %s", l->paths[file], line, msg);
	l->errors++;
}

/* Split one line into key and value in place. Returns 1 for a setting,
 * 0 for a blank or comment line, -1 for a syntax error (*why set). */
static int split_line(char *s, char **key, char **value, const char **why)
{
	char *eq, *v, *k;

	s = trim(s);
	if (*s == '\0' || *s == '#')
		return 0;
	eq = strchr(s, '=');
	if (!eq) {
		*why = "expected 'key = value'";
		return -1;
	}
	*eq = '\0';
	k = trim(s);
	if (!*k || strpbrk(k, " \t")) {
		*why = "expected 'key = value'";
		return -1;
	}
	v = trim(eq + 1);
	if (*v == '"') {
		char *close = strchr(v + 1, '"'), *rest;

		if (!close) {
			*why = "unterminated quoted value";
			return -1;
		}
		*close = '\0';
		rest = trim(close + 1);
		if (*rest && *rest != '#') {
			*why = "text after the quoted value";
			return -1;
		}
		v++;
	} else {
		char *p;

		/* A '#' after blank space starts a comment; inside a word
		 * it is part of the value. */
		for (p = v; *p; p++) {
			if (*p == '#' && p > v &&
			    (p[-1] == ' ' || p[-1] == '\t')) {
				*p = '\0';
				break;
			}
		}
		v = trim(v);
	}
	*key = k;
	*value = v;
	return 1;
}

/* So that a value found bad only later is reported with its FILE:LINE. */
static int note_origin(struct loader *l, const char *key, int file, int line)
{
	char where[4096 + 16];

	snprintf(where, sizeof(where), "%s:%d", l->paths[file], line);
	return opts_set_origin(l->o, key, where);
}

/* Returns settings read (>= 0), -ENOENT for a missing optional file, or
 * -EINVAL/-ENOMEM after reporting. */
static int load_file(struct loader *l, int file, bool required)
{
	const char *path = l->paths[file];
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0;
	ssize_t len;
	int line = 0, n = 0, ret = 0;

	if (!f) {
		if (errno == ENOENT && !required)
			return -ENOENT;
		log_error("cannot read config file %s: %s", path,
			  strerror(errno));
		l->errors++;
		return -EINVAL;
	}
	while ((len = getline(&buf, &cap, f)) >= 0) {
		struct options scratch;
		const char *why = NULL;
		char *key, *value;
		int r;

		line++;
		if (len > LINE_MAX_LEN || memchr(buf, '\0', (size_t)len)) {
			bad_line(l, file, line,
				 "not a text line (too long or binary)");
			continue;
		}
		r = split_line(buf, &key, &value, &why);
		if (r == 0)
			continue;
		if (r < 0) {
			bad_line(l, file, line, "%s", why);
			continue;
		}
		if (!*value) {
			bad_line(l, file, line, "no value for %s", key);
			continue;
		}
		/* Check the value on its own first: a value the command line
		 * overrides must still be a valid one. */
		opts_defaults(&scratch);
		scratch.mode = l->o->mode;
		r = opts_set(&scratch, key, value, false, &why);
		opts_free(&scratch);
		if (r == -ENOENT) {
			bad_line(l, file, line, "unknown key '%s'", key);
			continue;
		}
		if (r == -EINVAL) {
			bad_line(l, file, line, "bad value '%s' for %s: %s",
				 value, key, why ? why : "invalid");
			continue;
		}
		if (r == 0)
			r = opts_set(l->o, key, value, false, &why);
		if (r == -EINVAL) {
			/* Fine alone, not with what else is set. */
			bad_line(l, file, line, "%s = %s: %s", key, value,
				 why ? why : "invalid");
			continue;
		}
		if (r == 0)
			r = note_origin(l, key, file, line);
		if (r == 0)
			r = remember(l, key, value, file, line);
		if (r < 0) {
			log_error("%s:%d: %s", path, line, strerror(-r));
			ret = r;
			break;
		}
		n++;
	}
	if (ret == 0 && ferror(f)) {
		log_error("cannot read config file %s: %s", path,
			  strerror(errno));
		l->errors++;
	}
	free(buf);
	fclose(f);
	if (ret < 0)
		return ret;
	return n;
}

static void print_report(const struct loader *l, const int *counts,
			 FILE *out)
{
	int file, i, k;

	static const char *const what[2] = { "system file", "user file" };

	for (file = 0; file < 2; file++) {
		const char *kind = file == 1 && l->o->config ? "--config file"
							      : what[file];

		if (!l->paths[file]) {
			fprintf(out, "%s: none (no $HOME)\n", what[file]);
			continue;
		}
		if (counts[file] == -ENOENT) {
			fprintf(out, "%s %s: not present\n", kind,
				l->paths[file]);
			continue;
		}
		fprintf(out, "%s %s: read, %d setting%s\n", kind,
			l->paths[file], counts[file],
			counts[file] == 1 ? "" : "s");
		for (i = 0; i < l->n; i++) {
			const struct setting *s = &l->set[i];
			const char *by = NULL;

			if (s->file != file)
				continue;
			for (k = i + 1; k < l->n && !by; k++)
				if (!strcmp(l->set[k].key, s->key))
					by = l->set[k].file == file
						     ? "a later line"
						     : l->paths[l->set[k].file];
			fprintf(out, "  line %d: %s = %s", s->line, s->key,
				s->value);
			if (opts_from_cli(l->o, s->key))
				fprintf(out, " (the command line overrides "
					     "it)");
			else if (by)
				fprintf(out, " (overridden by %s)", by);
			fputc('\n', out);
		}
	}
}

int conffile_load(struct options *o, FILE *report)
{
	struct loader l;
	char *user;
	int counts[2] = { -ENOENT, -ENOENT }, i, ret = 0;

	memset(&l, 0, sizeof(l));
	l.o = o;
	user = conffile_user_path(o);
	l.paths[0] = conffile_system_path();
	l.paths[1] = user;
	/* System first: the user's file is applied after it and wins. */
	for (i = 0; i < 2 && ret == 0; i++) {
		if (!l.paths[i])
			continue;
		counts[i] = load_file(&l, i, i == 1 && o->config);
		if (counts[i] == -ENOMEM)
			ret = -ENOMEM;
	}
	if (report && ret == 0 && !l.errors)
		print_report(&l, counts, report);
	for (i = 0; i < l.n; i++) {
		free(l.set[i].key);
		free(l.set[i].value);
	}
	free(l.set);
	free(user);
	if (l.errors)
		return -EINVAL;
	return ret;
}
