/* Logging to stderr: errors and warnings always, info by default, debug
 * (with file:line) under -v. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "log.h"

static enum log_level current = LOG_INFO;

void log_set_level(enum log_level level)
{
	current = level;
}

enum log_level log_get_level(void)
{
	return current;
}

void log_msg(enum log_level level, const char *file, int line,
	     const char *fmt, ...)
{
	char buf[1024];
	size_t len;
	va_list ap;

	if (level > current)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	len = strlen(buf);
	while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
		buf[--len] = '\0';
	/* One fprintf per line, so lines from threads do not interleave. */
	if (level == LOG_DEBUG)
		fprintf(stderr, "vncfb: [%s:%d] %s\n", file, line, buf);
	else if (level == LOG_WARN)
		fprintf(stderr, "vncfb: warning: %s\n", buf);
	else
		fprintf(stderr, "vncfb: %s\n", buf);
}
