/* Logging to stderr: errors and warnings always, info by default, debug
 * (with file:line) under -v. */
#include "config.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/log.h"

static enum log_level current = LOG_INFO;
static __thread const char *context;
static pthread_mutex_t last_lock = PTHREAD_MUTEX_INITIALIZER;
static char last_error[256];

/* Fuzzing and replay builds format every line, shown or not, and stop at
 * one that would carry a control character: text from the network that
 * missed log_sanitize. */
#ifdef VNCFB_STRICT_LOG
#define STRICT 1
#else
#define STRICT 0
#endif

void log_set_level(enum log_level level)
{
	current = level;
}

enum log_level log_get_level(void)
{
	return current;
}

void log_set_context(const char *where)
{
	context = where;
}

void log_take_error(char *buf, size_t len)
{
	pthread_mutex_lock(&last_lock);
	snprintf(buf, len, "%s", last_error);
	last_error[0] = '\0';
	pthread_mutex_unlock(&last_lock);
}

void log_msg(enum log_level level, const char *file, int line,
	     const char *fmt, ...)
{
	char buf[1024];
	const char *ctx = level <= LOG_WARN ? context : NULL;
	size_t len, i;
	va_list ap;

	if (level > current && level != LOG_ERROR && !STRICT)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	len = strlen(buf);
	while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
		buf[--len] = '\0';
	/* The net under log_sanitize: whoever formatted it, a line never
	 * carries a control character to the terminal. */
	for (i = 0; i < len; i++)
		if ((unsigned char)buf[i] < 0x20 || buf[i] == 0x7f) {
			if (STRICT) {
				fprintf(stderr, "unsanitized log line from "
					"%s:%d\n", file, line);
				abort();
			}
			buf[i] = '?';
		}
	if (level == LOG_ERROR) {
		pthread_mutex_lock(&last_lock);
		snprintf(last_error, sizeof(last_error), "%s", buf);
		pthread_mutex_unlock(&last_lock);
	}
	if (level > current)
		return;
	/* One fprintf per line, so lines from threads do not interleave. */
	if (level == LOG_DEBUG)
		fprintf(stderr, "vncfb: [%s:%d] %s\n", file, line, buf);
	else if (level == LOG_WARN)
		fprintf(stderr, "vncfb: warning: %s%s%s\n", ctx ? ctx : "",
			ctx ? ": " : "", buf);
	else
		fprintf(stderr, "vncfb: %s%s%s\n", ctx ? ctx : "",
			ctx ? ": " : "", buf);
}

/* Whether the terminal decodes UTF-8, as the locale says; the program's
 * own locale stays "C". Any thread: decoders log libavcodec's and
 * libswscale's words from the pool's workers at once. */
static bool locale_utf8(void)
{
	static atomic_int cached = -1;
	const char *names[] = { "LC_ALL", "LC_CTYPE", "LANG" }, *v = NULL;
	int c = atomic_load_explicit(&cached, memory_order_relaxed);
	size_t i;

	if (c >= 0)
		return c;
	for (i = 0; i < sizeof(names) / sizeof(names[0]) && !(v && *v); i++)
		v = getenv(names[i]);
	c = v && (strcasestr(v, "UTF-8") || strcasestr(v, "utf8"));
	atomic_store_explicit(&cached, c, memory_order_relaxed);
	return c;
}

/* Characters that are valid but change what the rest of the line looks
 * like, or are invisible: C1 controls, bidirectional controls, zero-width
 * and other format characters, line and paragraph separators. */
static bool invisible(uint32_t c)
{
	return c < 0xa0 || c == 0xad || c == 0x061c ||
	       (c >= 0x200b && c <= 0x200f) || (c >= 0x2028 && c <= 0x202e) ||
	       (c >= 0x2060 && c <= 0x206f) || c == 0xfeff ||
	       (c >= 0xfff9 && c <= 0xfffb);
}

/* Length of the printable UTF-8 character at s (n bytes left), or 0. */
static size_t utf8_printable(const unsigned char *s, size_t n)
{
	static const uint32_t min[5] = { 0, 0, 0x80, 0x800, 0x10000 };
	size_t len, i;
	uint32_t c;

	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		c = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		c = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		c = s[0] & 0x07;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if (c < min[len] || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff) ||
	    invisible(c))
		return 0;
	return len;
}

const char *log_sanitize(char buf[LOG_TEXT_SIZE], const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	bool utf8 = locale_utf8();
	size_t i = 0, out = 0;

	while (i < len) {
		char esc[4 * 4];
		size_t n = 0, k;

		k = utf8 && p[i] >= 0x80 ? utf8_printable(p + i, len - i) : 0;
		if (k) {
			memcpy(esc, p + i, k);
			n = k;
		} else {
			k = 1;
			if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '\\') {
				esc[n++] = (char)p[i];
			} else {
				esc[n++] = '\\';
				switch (p[i]) {
				case '\\':
					esc[n++] = '\\';
					break;
				case '\n':
					esc[n++] = 'n';
					break;
				case '\r':
					esc[n++] = 'r';
					break;
				case '\t':
					esc[n++] = 't';
					break;
				default:
					esc[n++] = 'x';
					esc[n++] = hex[p[i] >> 4];
					esc[n++] = hex[p[i] & 15];
				}
			}
		}
		if (out + n > LOG_TEXT_MAX)
			break;
		memcpy(buf + out, esc, n);
		out += n;
		i += k;
	}
	if (i < len) {
		memcpy(buf + out, "...", 3);
		out += 3;
	}
	buf[out] = '\0';
	return buf;
}
