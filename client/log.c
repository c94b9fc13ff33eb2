/* Logging to stderr: errors and warnings always, info by default, debug
 * (with file:line) under -v. */
#include "config.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "log.h"

static enum log_level current = LOG_INFO;
static __thread const char *context;
static pthread_mutex_t last_lock = PTHREAD_MUTEX_INITIALIZER;
static char last_error[256];

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
	size_t len;
	va_list ap;

	if (level > current && level != LOG_ERROR)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	len = strlen(buf);
	while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
		buf[--len] = '\0';
	if (level == LOG_ERROR) {
		pthread_mutex_lock(&last_lock);
		snprintf(last_error, sizeof(last_error), "%s", buf);
		pthread_mutex_unlock(&last_lock);
		if (level > current)
			return;
	}
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
