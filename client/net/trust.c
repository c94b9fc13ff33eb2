/* The known-hosts store (trust.h). */
#include "config.h"

#include <ctype.h>
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/log.h"
#include "net/trust.h"

void trust_format(const uint8_t fp[TRUST_FP_LEN], char out[TRUST_FP_TEXT])
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	memcpy(out, "SHA256:", 7);
	for (i = 0; i < TRUST_FP_LEN; i++) {
		out[7 + 2 * i] = hex[fp[i] >> 4];
		out[8 + 2 * i] = hex[fp[i] & 15];
	}
	out[7 + 2 * TRUST_FP_LEN] = '\0';
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)tolower((unsigned char)c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int trust_parse(const char *text, uint8_t fp[TRUST_FP_LEN])
{
	size_t i;
	int hi, lo;

	if (strncasecmp(text, "SHA256:", 7) != 0)
		return -EINVAL;
	text += 7;
	/* OpenSSH's ':'-separated form is taken as well. */
	for (i = 0; i < TRUST_FP_LEN; i++) {
		if (i && *text == ':')
			text++;
		hi = hexval(text[0]);
		lo = hi < 0 ? -1 : hexval(text[1]);
		if (lo < 0)
			return -EINVAL;
		fp[i] = (uint8_t)(hi << 4 | lo);
		text += 2;
	}
	return *text ? -EINVAL : 0;
}

int trust_store_path(const struct trust_opts *o, char *buf, size_t len)
{
	const char *xdg = getenv("XDG_CONFIG_HOME");
	const char *home = getenv("HOME");
	int n;

	if (o && o->store)
		n = snprintf(buf, len, "%s", o->store);
	else if (xdg && xdg[0] == '/')
		n = snprintf(buf, len, "%s/vncfb/known_hosts", xdg);
	else if (home && home[0])
		n = snprintf(buf, len, "%s/.config/vncfb/known_hosts", home);
	else
		return -ENOENT;
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* "host:port", the host bracketed when it holds a ':' (IPv6). */
static void host_key(char *buf, size_t len, const char *host, int port)
{
	if (strchr(host, ':'))
		snprintf(buf, len, "[%s]:%d", host, port);
	else
		snprintf(buf, len, "%s:%d", host, port);
}

/* The store opened ahead of a privilege drop (trust_open), and its
 * path. */
static int kept_fd = -1;
static char kept_path[4096];

/* The kept store as a stream from its start, if path is it; else NULL
 * with errno 0. */
static FILE *kept(const char *path, const char *mode)
{
	FILE *f;
	int fd;

	errno = 0;
	if (kept_fd < 0 || strcmp(path, kept_path) != 0)
		return NULL;
	fd = fcntl(kept_fd, F_DUPFD_CLOEXEC, 0);
	if (fd < 0)
		return NULL;
	f = fdopen(fd, mode);
	if (!f) {
		close(fd);
		return NULL;
	}
	rewind(f);
	return f;
}

/* The entry for key in the store: 1 with fp and *line set, 0 when there
 * is none (or no store), -errno (logged). */
static int store_find(const char *path, const char *key,
		      uint8_t fp[TRUST_FP_LEN], int *line)
{
	char buf[1024], *sp;
	FILE *f;
	int n = 0, found = 0;

	f = kept(path, "r");
	if (!f && !errno)
		f = fopen(path, "re");
	if (!f) {
		if (errno == ENOENT)
			return 0;
		log_error("cannot read known hosts %s: %s", path,
			  strerror(errno));
		return -errno;
	}
	while (fgets(buf, sizeof(buf), f)) {
		n++;
		buf[strcspn(buf, "\r\n")] = '\0';
		if (buf[0] == '#' || buf[0] == '\0')
			continue;
		sp = strchr(buf, ' ');
		if (!sp)
			continue;
		*sp++ = '\0';
		while (*sp == ' ')
			sp++;
		if (strcmp(buf, key) != 0)
			continue;
		if (trust_parse(sp, fp) < 0) {
			log_error("known hosts %s:%d: bad fingerprint for %s "
				  "(expected SHA256: and 64 hex digits)",
				  path, n, key);
			fclose(f);
			return -EINVAL;
		}
		*line = n;
		found = 1;
		break;
	}
	fclose(f);
	return found;
}

/* mkdir -p of path's directory (mode 700 for what it makes). */
static int make_dirs(const char *path)
{
	char dir[4096], *p;

	if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir))
		return -ENAMETOOLONG;
	p = strrchr(dir, '/');
	if (!p || p == dir)
		return 0;
	*p = '\0';
	for (p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(dir, 0700) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

static int store_add(const char *path, const char *key, const char *fptext,
		     int *line)
{
	char buf[1024];
	FILE *f;
	int fd, ret, n = 0;
	bool nl = true;

	f = kept(path, "a+");
	if (!f && errno) {
		ret = -errno;
		goto fail;
	}
	if (!f) {
		ret = make_dirs(path);
		if (ret < 0)
			goto fail;
		fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
		if (fd < 0) {
			ret = -errno;
			goto fail;
		}
		f = fdopen(fd, "a+");
		if (!f) {
			ret = -errno;
			close(fd);
			goto fail;
		}
	}
	while (fgets(buf, sizeof(buf), f)) {
		size_t len = strlen(buf);

		nl = len && buf[len - 1] == '\n';
		n += nl;
	}
	if (!nl) {
		fputc('\n', f);
		n++;
	}
	fprintf(f, "%s %s\n", key, fptext);
	if (fflush(f) != 0 || fsync(fileno(f)) < 0) {
		ret = -errno;
		fclose(f);
		goto fail;
	}
	if (fclose(f) != 0) {
		ret = -errno;
		goto fail;
	}
	*line = n + 1;
	return 0;
fail:
	log_error("cannot write known hosts %s: %s", path, strerror(-ret));
	return ret;
}

/* Ask on the terminal: 1 yes, 0 no, -1 nobody there. */
static int ask(const char *key, const char *what, const char *fptext)
{
	char buf[64];
	FILE *tty = fopen("/dev/tty", "r+e");
	int ret = 0;

	if (!tty)
		return -1;
	fprintf(tty,
		"The %s of %s is not known yet.\n"
		"Its fingerprint is %s.\n"
		"Trust it and remember it (yes/no)? ",
		what, key, fptext);
	fflush(tty);
	while (fgets(buf, sizeof(buf), tty)) {
		buf[strcspn(buf, "\r\n")] = '\0';
		if (!strcasecmp(buf, "yes")) {
			ret = 1;
			break;
		}
		if (!strcasecmp(buf, "no") || !buf[0])
			break;
		fputs("Please type 'yes' or 'no': ", tty);
		fflush(tty);
	}
	fclose(tty);
	return ret;
}

int trust_check(const struct trust_opts *o, const char *host, int port,
		const char *what, const uint8_t fp[TRUST_FP_LEN])
{
	char path[4096], key[300], got[TRUST_FP_TEXT], had[TRUST_FP_TEXT];
	uint8_t known[TRUST_FP_LEN];
	int ret, line = 0;

	trust_format(fp, got);
	host_key(key, sizeof(key), host, port);
	if (o->pin) {
		if (trust_parse(o->pin, known) == 0 &&
		    memcmp(known, fp, TRUST_FP_LEN) == 0) {
			log_debug("%s: %s %s is the one --fingerprint names",
				  key, what, got);
			return 0;
		}
		log_error("%s: the server's %s is %s, not the one "
			  "--fingerprint names (%s): refused",
			  key, what, got, o->pin);
		return -EPERM;
	}
	if (o->insecure) {
		log_warn("%s: %s %s accepted unchecked (--insecure)", key, what,
			 got);
		return 0;
	}
	ret = trust_store_path(o, path, sizeof(path));
	if (ret < 0) {
		log_error("%s: no place for known hosts (set HOME or "
			  "XDG_CONFIG_HOME), cannot check its %s %s",
			  key, what, got);
		return ret;
	}
	ret = store_find(path, key, known, &line);
	if (ret < 0)
		return ret;
	if (ret > 0) {
		if (memcmp(known, fp, TRUST_FP_LEN) == 0) {
			log_debug("%s: %s %s known (%s:%d)", key, what, got,
				  path, line);
			return 0;
		}
		trust_format(known, had);
		log_error("%s: the server's %s CHANGED: it is now %s, the "
			  "one trusted is %s (%s:%d); refused (if the change "
			  "is expected, remove that line)",
			  key, what, got, had, path, line);
		return -EPERM;
	}
	if (o->ask) {
		ret = ask(key, what, got);
		if (ret == 0) {
			log_error("%s: %s %s not trusted (answered no)", key,
				  what, got);
			return -EPERM;
		}
	}
	ret = store_add(path, key, got, &line);
	if (ret < 0)
		return ret;
	log_warn("%s: first contact, %s %s trusted and recorded in %s:%d", key,
		 what, got, path, line);
	return 0;
}

int trust_open(const struct trust_opts *o)
{
	char path[4096];
	int ret, fd;

	if (o->pin || o->insecure)
		return 0;
	ret = trust_store_path(o, path, sizeof(path));
	if (ret < 0)
		return ret;
	ret = make_dirs(path);
	fd = ret < 0
		 ? -1
		 : open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	if (fd < 0) {
		ret = ret < 0 ? ret : -errno;
		log_error("cannot open known hosts %s: %s", path,
			  strerror(-ret));
		return ret;
	}
	if (kept_fd >= 0)
		close(kept_fd);
	kept_fd = fd;
	snprintf(kept_path, sizeof(kept_path), "%s", path);
	return 0;
}

int trust_show(const struct trust_opts *o)
{
	char path[4096], buf[1024];
	FILE *f;
	int ret, n = 0;

	ret = trust_store_path(o, path, sizeof(path));
	if (ret < 0) {
		printf("known hosts: none (no HOME nor XDG_CONFIG_HOME)\n");
		return 0;
	}
	if (o->pin)
		printf("fingerprint: %s (--fingerprint: the store is not "
		       "used)\n",
		       o->pin);
	f = fopen(path, "re");
	if (!f) {
		if (errno != ENOENT) {
			log_error("cannot read known hosts %s: %s", path,
				  strerror(errno));
			return -errno;
		}
		printf("known hosts: %s (none yet)\n", path);
		return 0;
	}
	printf("known hosts: %s\n", path);
	while (fgets(buf, sizeof(buf), f)) {
		uint8_t fp[TRUST_FP_LEN];
		char *sp;

		n++;
		buf[strcspn(buf, "\r\n")] = '\0';
		if (buf[0] == '#' || buf[0] == '\0')
			continue;
		sp = strchr(buf, ' ');
		if (!sp || trust_parse(sp + strspn(sp, " "), fp) < 0) {
			printf("  line %d: not HOST:PORT SHA256:HEX\n", n);
			continue;
		}
		printf("  %s\n", buf);
	}
	fclose(f);
	return 0;
}
